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
it still holds; ``f(F + tail) = f(F) + tr(R_tail^T S_tail^{-1} R_tail)`` costs one Cholesky
factorization of ``S_tail``.

The work is about ``C(p, K - 2) (p - K)^2 / 2`` steps before pruning: :func:`enumeration_size`
picks the largest ``K`` under a budget. The state lives in arrays, so the kernel runs a budget
of nodes, returns to Python (time limit, Ctrl-C) and resumes.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["EnumKernel", "enumeration_size"]

#: the largest estimated work (``C(p, K - 2) (p - K)^2 / 2`` pair evaluations) enumerated
WORK_BUDGET = 1.2e10
#: 1: nodes whose children are pair loops are not bounded (the loop costs about the bound)
PRUNE_PAIRS = 1


def enumeration_size(p: int, r: int, max_k: int, budget: float | None = None) -> int:
    """The largest ``K <= min(max_k, p - 1)`` whose enumeration fits ``budget`` (0 if none > 2)."""
    budget = WORK_BUDGET if budget is None else budget
    best = 0
    for K in range(3, min(max_k, p - 1) + 1):
        work = math.comb(p, K - 2) * (p - K + 2) ** 2 / 2 * max(1, r)
        if work > budget:
            break
        best = K
    return best


def _kernel(B, M, K, budget, prune_pairs, Sd, Rd, fd, Kd, cur, F, state, inc, inc_sup):  # pragma: no cover - compiled
    """Run up to ``budget`` node visits; ``state = [depth, nodes, pairs, pruned]`` (depth -1: done).

    ``Kd[m]``: the largest size still needed below the node at depth ``m`` (sizes whose
    incumbent its inclusion bound cannot beat are dropped from the top of its range)."""
    p = B.shape[0]
    r = M.shape[1]
    m = state[0]
    done = 0
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
                sjj = S[j, j]
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
                for l in range(j + 1, p):
                    u = S[l, j] / sjj
                    sl = S[l, l] - u * S[l, j]
                    acc = 0.0
                    for q in range(r):
                        x = R[l, q] - u * R[j, q]
                        acc += x * x
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
        Sn = Sd[m + 1]
        Rn = Rd[m + 1]
        for l in range(i + 1, p):
            u = S[l, i] / sii
            for q in range(r):
                Rn[l, q] = R[l, q] - u * R[i, q]
            for q in range(i + 1, l + 1):
                x = S[l, q] - u * S[q, i]
                Sn[l, q] = x
                Sn[q, l] = x
        # inclusion: f(F + i + tail) bounds every support of the subtree; the sizes whose
        # incumbent it does not beat are dropped (not bounded where the child is a pair loop,
        # which costs about as much as the bound)
        if top >= m + 3 + prune_pairs:
            T = np.empty((c, c))
            ok = True
            for a in range(c):
                x = Sn[i + 1 + a, i + 1 + a]
                for q in range(a):
                    x -= T[a, q] * T[a, q]
                if x <= 0.0:
                    ok = False
                    break
                x = np.sqrt(x)
                T[a, a] = x
                for b in range(a + 1, c):
                    y = Sn[i + 1 + b, i + 1 + a]
                    for q in range(a):
                        y -= T[b, q] * T[a, q]
                    T[b, a] = y / x
            if ok:
                # tr(R^T S^-1 R) = |L^-1 R|_F^2
                g = 0.0
                z = np.empty(c)
                for q in range(r):
                    for a in range(c):
                        y = Rn[i + 1 + a, q]
                        for b in range(a):
                            y -= T[a, b] * z[b]
                        z[a] = y / T[a, a]
                        g += z[a] * z[a]
                bound = (v + g) * (1.0 + 1e-9) + 1e-300  # a relative slack covers rounding
                while top >= m + 2 and bound <= inc[top]:
                    top -= 1
                if top < m + 2:
                    state[3] += 1
                    continue
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
    in the original indices.
    """

    def __init__(self, M, B, K, order, inc):
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
        self.inc_sup = np.full((K + 1, max(K, 1)), -1, np.int64)
        self.found = np.zeros(K + 1, bool)
        self._inc0 = self.inc.copy()

    @property
    def open(self):
        return int(self.state[0]) >= 0

    @property
    def n_nodes(self):
        return int(self.state[1])

    def step(self, budget):
        return _compiled_kernel()(self.B, self.M, self.K, int(budget), PRUNE_PAIRS, self.Sd, self.Rd, self.fd, self.Kd, self.cur,
                                  self.F, self.state, self.inc, self.inc_sup)

    def improved(self):
        """``{size: (value, support in original indices)}`` for every size the enumeration raised."""
        out = {}
        for j in range(1, self.K + 1):
            if self.inc[j] > self._inc0[j] and self.inc_sup[j, 0] >= 0:
                out[j] = (float(self.inc[j]), np.sort(self.order[self.inc_sup[j, :j]]))
        return out
