"""Small sizes of :func:`pixsel.spectral.exact_path` by enumeration (compiled, resumable).

For an additive objective (a vector ``a``, or ``'trace'`` of a factor ``M``),
``f(S) = tr(M_S^T B_SS^{-1} M_S)`` grows by an exact rank-one step when a feature ``j`` is added
to a support ``F``::

    f(F + j) = f(F) + |R_j|^2 / S_jj,

with ``S`` the Schur complement of ``B_FF`` in ``B`` (``S = B - B_:F B_FF^{-1} B_F:``) and
``R = M - B_:F B_FF^{-1} M_F`` the residual of ``M`` given ``F``; adding ``j`` updates both by one
rank-one step (``S' = S - s_j s_j^T / S_jj``, ``R' = R - s_j R_j / S_jj``).

The supports of every size ``1..K`` are visited once in lexicographic order (a depth-first tree
over a given order of the features: the children of ``F`` add one feature after the last of
``F``). The last two levels are not built as nodes: from a node of size ``K - 2`` every pair of
later features is valued from the node's ``S`` and ``R`` in ``O(r)`` each. A subtree (the
supports ``F <= T <= F + tail``, ``tail`` the features after the last of ``F``) is skipped when
``f(F + tail)`` (by inclusion, a bound for all of them) does not beat the incumbent of any size
it still holds. The bounds of all the children of a node come from one factorization: the
child adding ``j`` has ``F + j + tail_j = F + {j, ..., p - 1}``, a suffix of the node's candidates,
and ``f(F + suffix) = f(F) + tr(R_suf^T S_suf^{-1} R_suf)`` for every suffix at once is the running
sum of ``|L^{-1} R|^2`` for the Cholesky factor ``L`` of ``S`` taken in reverse order (its leading
blocks are the nested suffixes): ``O(c^3 / 3)`` per node for its ``c`` children instead of that per
child, and a child that is pruned is never built (on Sonar, p = 60, sizes 1..10: 115 s -> 40 s).

The work is about ``C(p, K - 2) (p - K)^2 / 2`` steps before pruning: :func:`enumeration_size`
picks the largest ``K`` under a budget. The state lives in arrays, so the kernel runs a budget
of nodes, returns to Python (time limit, Ctrl-C) and resumes.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["EnumKernel", "enumeration_growth", "enumeration_size", "enumeration_work"]

#: the largest estimated work (``C(p, K - 2) (p - K + 2)^2 / 2`` pair evaluations) enumerated
WORK_BUDGET = 1.2e10
#: 1: nodes whose children are pair loops are not bounded (0, the default since the bounds of all
#: the children cost one factorization: bounding them halves the pair evaluations on Sonar)
PRUNE_PAIRS = 0
#: nodes per :meth:`EnumKernel.step` between two checks of the caller's limits (a node costs at
#: most ``O(p^2 r)``)
CHUNK = 2048


def enumeration_work(p: int, r: int, K: int) -> float:
    """The unpruned work estimate of enumerating the size ``K``: ``C(p, K - 2) (p - K + 2)^2 / 2``
    pair evaluations of ``O(r)`` each."""
    return math.comb(p, K - 2) * (p - K + 2) ** 2 / 2 * max(1, r)


def enumeration_growth(p: int, r: int, K: int) -> float:
    """How much more the size ``K + 1`` costs than ``K`` by the unpruned work estimate (a
    pessimistic prediction of the enumeration's growth: pruning slows it)."""
    return enumeration_work(p, r, K + 1) / enumeration_work(p, r, K)


def enumeration_size(p: int, r: int, max_k: int, budget: float | None = None) -> int:
    """The largest ``K <= min(max_k, p - 1)`` whose enumeration fits ``budget`` (0 if none > 2)."""
    budget = WORK_BUDGET if budget is None else budget
    best = 0
    for K in range(3, min(max_k, p - 1) + 1):
        work = enumeration_work(p, r, K)
        if work > budget:
            break
        best = K
    return best


def _kernel(B, M, K, budget, prune_pairs, Sd, Rd, fd, Kd, cur, F, state, inc, inc_sup, sb):  # pragma: no cover - compiled
    """Run up to ``budget`` node visits; ``state = [depth, nodes, pairs, pruned]`` (depth -1: done).

    ``Kd[m]``: the largest size still needed below the node at depth ``m`` (sizes whose
    incumbent its inclusion bound cannot beat are dropped from the top of its range)."""
    p = B.shape[0]
    r = M.shape[1]
    m = state[0]
    done = 0
    dg = np.empty(p)  # the diagonal of the node's S, for the pair loops
    L = np.empty((p, p))  # scratch of the suffix bounds
    zz = np.empty(p)
    acc_s = np.empty(p)
    while m >= 0 and done < budget:
        Km = Kd[m]
        lo = 0 if m == 0 else F[m - 1] + 1
        i = cur[m] + 1
        if i < lo:
            i = lo
        if i >= p or m >= Km:
            m -= 1
            continue
        S = Sd[m]
        R = Rd[m]
        f = fd[m]
        done += 1
        if m >= Km - 2:
            # every child (size m + 1) and, at m = Km - 2, every pair after it (size m + 2)
            for j in range(lo, p):
                dg[j] = S[j, j]
            for j in range(lo, p):
                sjj = dg[j]
                acc = 0.0
                for q in range(r):
                    acc += R[j, q] * R[j, q]
                v = f + acc / sjj
                if v > inc[m + 1]:
                    inc[m + 1] = v
                    for q in range(m):
                        inc_sup[m + 1, q] = F[q]
                    inc_sup[m + 1, m] = j
                if m == Km - 1:
                    continue
                best = -np.inf
                bl = -1
                inv = 1.0 / sjj
                if r == 1:
                    # the hot loop (a vector a): the best ratio x^2 / sl kept as a fraction, so that
                    # a pair costs multiplications only; the row of S and the diagonal are contiguous
                    rj = R[j, 0]
                    ba = -1.0
                    bs = 1.0
                    for l in range(j + 1, p):
                        sjl = S[j, l]
                        u = sjl * inv
                        sl = dg[l] - u * sjl
                        x = R[l, 0] - u * rj
                        x2 = x * x
                        if sl > 0.0 and x2 * bs > ba * sl:
                            ba = x2
                            bs = sl
                            bl = l
                    if bl >= 0:
                        best = ba / bs
                else:
                    for l in range(j + 1, p):
                        u = S[j, l] * inv
                        sl = dg[l] - u * S[j, l]
                        acc = 0.0
                        for q in range(r):
                            x = R[l, q] - u * R[j, q]
                            acc += x * x
                        if sl > 0.0:
                            w = acc / sl
                            if w > best:
                                best = w
                                bl = l
                state[2] += p - j - 1
                if bl >= 0 and v + best > inc[m + 2]:
                    inc[m + 2] = v + best
                    for q in range(m):
                        inc_sup[m + 2, q] = F[q]
                    inc_sup[m + 2, m] = j
                    inc_sup[m + 2, m + 1] = bl
            cur[m] = p  # this node is finished
            m -= 1
            continue
        # ---- one child: add feature i, build its S and R over the features after i
        if cur[m] < lo and Km >= m + 3 + prune_pairs:
            # first child: the values of F + {j..p-1} for every j >= lo (each child's inclusion
            # bound) from one Cholesky factorization of S over lo..p-1 in reverse order, whose
            # leading blocks are the nested suffixes: sb[m, j] = R_j..^T S_j..^-1 R_j.. (summed over
            # the columns of R); +inf past a non-positive pivot (no bound there)
            n = p - lo
            ok_len = n
            for a in range(n):
                ia = p - 1 - a
                x = S[ia, ia]
                for q in range(a):
                    x -= L[a, q] * L[a, q]
                if x <= 0.0:
                    ok_len = a
                    break
                x = np.sqrt(x)
                L[a, a] = x
                for b in range(a + 1, n):
                    y = S[p - 1 - b, ia]
                    for q in range(a):
                        y -= L[b, q] * L[a, q]
                    L[b, a] = y / x
            for a in range(n):
                acc_s[a] = 0.0
            for q in range(r):
                for a in range(ok_len):
                    y = R[p - 1 - a, q]
                    for b in range(a):
                        y -= L[a, b] * zz[b]
                    zz[a] = y / L[a, a]
                    acc_s[a] += zz[a] * zz[a]
            cum = 0.0
            for a in range(n):
                if a < ok_len:
                    cum += acc_s[a]
                    sb[m, p - 1 - a] = cum
                else:
                    sb[m, p - 1 - a] = np.inf
        cur[m] = i
        F[m] = i
        sii = S[i, i]
        acc = 0.0
        for q in range(r):
            acc += R[i, q] * R[i, q]
        v = f + acc / sii
        state[1] += 1
        if v > inc[m + 1]:
            inc[m + 1] = v
            for q in range(m + 1):
                inc_sup[m + 1, q] = F[q]
        c = p - i - 1
        # sizes m + 2 .. top remain in the child's subtree
        top = min(Km, m + 1 + c)
        if top < m + 2:
            continue
        # inclusion: f(F + i + tail) bounds every support of the subtree; the sizes whose
        # incumbent it does not beat are dropped before the child is built (with prune_pairs = 1
        # not where the child is a pair loop). The value is the parent's suffix value; a pair
        # whose Schur complement is not positive (rounding) is skipped in the pair loops.
        if top >= m + 3 + prune_pairs:
            bound = (f + sb[m, i]) * (1.0 + 1e-9) + 1e-300  # a relative slack covers rounding
            while top >= m + 2 and bound <= inc[top]:
                top -= 1
            if top < m + 2:
                state[3] += 1
                continue
        Sn = Sd[m + 1]
        Rn = Rd[m + 1]
        # the upper triangle only, row by row (every read below is of an upper entry)
        for l in range(i + 1, p):
            u = S[i, l] / sii
            for q in range(r):
                Rn[l, q] = R[l, q] - u * R[i, q]
            for q in range(l, p):
                Sn[l, q] = S[l, q] - u * S[i, q]
        fd[m + 1] = v
        Kd[m + 1] = top
        m += 1
        cur[m] = -1
    state[0] = m
    return done


_compiled = []


def _compiled_kernel():
    if not _compiled:
        import numba

        _compiled.append(numba.njit(cache=True)(_kernel))
    return _compiled[0]


class EnumKernel:
    """The arrays of a resumable enumeration of every support of size ``1..K``.

    ``order`` is the order in which features are enumerated (the tree branches on ``order[0]``
    first); ``inc`` the incumbents by size (index = size), raised in place; supports are reported
    in the original indices. ``off``: sizes not wanted (already solved): their incumbents are set to
    ``+inf`` inside the kernel, so that no subtree is kept for them alone and nothing is reported
    for them (extending a completed enumeration of ``1..K`` to size ``K + 1`` enumerates that size
    only: on Sonar, size 10 in 30 s instead of 42 s with the smaller sizes kept at their optima).
    """

    def __init__(self, M, B, K, order, inc, off=()):
        p, r = M.shape
        self.order = np.asarray(order, dtype=np.int64)
        self.B = np.ascontiguousarray(B[np.ix_(self.order, self.order)], dtype=np.float64)
        self.M = np.ascontiguousarray(M[self.order], dtype=np.float64)
        self.p, self.r, self.K = p, r, K
        self.Sd = np.zeros((K + 1, p, p))
        self.Rd = np.zeros((K + 1, p, r))
        self.Sd[0] = self.B
        self.Rd[0] = self.M
        self.fd = np.zeros(K + 1)
        self.Kd = np.full(K + 1, K, np.int64)
        self.cur = np.full(K + 1, -1, np.int64)
        self.F = np.zeros(max(K, 1), np.int64)
        self.state = np.zeros(4, np.int64)  # depth, nodes, pair evaluations, pruned subtrees
        self.inc = np.full(K + 1, -np.inf)
        self.inc[: K + 1] = np.asarray(inc[: K + 1], dtype=np.float64)
        self.inc[~np.isfinite(self.inc)] = -np.inf
        for j in off:
            if 1 <= j <= K:
                self.inc[j] = np.inf
        self.inc_sup = np.full((K + 1, max(K, 1)), -1, np.int64)
        self.found = np.zeros(K + 1, bool)
        self.sb = np.full((K + 1, p), np.inf)  # per depth: the suffix values of the node's children
        self._inc0 = self.inc.copy()

    @property
    def open(self):
        return int(self.state[0]) >= 0

    @property
    def n_nodes(self):
        return int(self.state[1])

    def step(self, budget):
        return _compiled_kernel()(self.B, self.M, self.K, int(budget), PRUNE_PAIRS, self.Sd, self.Rd, self.fd, self.Kd, self.cur,
                                  self.F, self.state, self.inc, self.inc_sup, self.sb)

    def improved(self):
        """``{size: (value, support in original indices)}`` for every size the enumeration raised."""
        out = {}
        for j in range(1, self.K + 1):
            if np.isfinite(self.inc[j]) and self.inc[j] > self._inc0[j] and self.inc_sup[j, 0] >= 0:
                out[j] = (float(self.inc[j]), np.sort(self.order[self.inc_sup[j, :j]]))
        return out
