"""Small sizes of :func:`pixsel.spectral.exact_path` by enumeration (compiled, resumable).

For an additive objective (a vector ``a``, or ``'trace'`` of a factor ``M``),
``f(S) = tr(M_S^T B_SS^{-1} M_S)`` grows by an exact rank-one step when a feature ``j`` is added
to a support ``F``::

    f(F + j) = f(F) + |R_j|^2 / S_jj,

with ``S`` the Schur complement of ``B_FF`` in ``B`` (``S = B - B_:F B_FF^{-1} B_F:``) and
``R = M - B_:F B_FF^{-1} M_F`` the residual of ``M`` given ``F``; adding ``j`` updates both by one
rank-one step (``S' = S - s_j s_j^T / S_jj``, ``R' = R - s_j R_j / S_jj``).

The supports of every size ``1..K`` are visited once by a depth-first tree: a node ``F`` holds a
list of candidates ``C`` (its subtree is the supports ``F <= T <= F + C``), and its ``i``-th child
adds ``C[i]`` with the candidates after it, ``C[i+1:]``, so that every support is reached once
whatever order each node gives its list. The last two levels are not built as nodes: from a node
of size ``K - 2`` every pair of its candidates is valued from the node's ``S`` and ``R`` in
``O(r)`` each. A child is skipped when ``f(F + C[i:])`` (by inclusion, a bound for its whole
subtree) does not beat the incumbent of any size it still holds.

Each node orders its own candidates so that these suffixes are as weak as they can be made given
``F``: greedily from the end, the last candidate is the one whose gain ``|R_j|^2 / S_jj`` is the
smallest, the one before it the smallest gain given ``F`` and the suffix so far, and so on (one
rank-one downdate of ``S`` and ``R`` per step, ``O(c^3 / 3)`` for ``c`` candidates). The running sum
of the chosen gains is ``f(F + C[i:]) - f(F)`` for every suffix at once, so the bounds of all the
children come with their order. On Sonar (p = 60, the size ``K`` alone, the smaller sizes solved)
a fixed order of the features (the order the backward greedy path keeps them, with the suffix
bounds from one reversed Cholesky factorization per node) was an order of magnitude slower at ``K = 9..11``
(single sizes in the middle took minutes) than the order chosen per node.

Memory layout (the tree and the arithmetic are those of a plain layout; only the reads change): the
ordering keeps the candidates still to be placed in the leading block of a scratch matrix (lower
triangle) and swaps the chosen one to the end of the block, so its rank-one downdates run over
contiguous rows; each node rewrites its matrix in its children's order, so every child's Schur
complement is built from contiguous rows (upper triangles only: every reader reads ``S[j, l]``,
``j <= l``); and each pair row is first screened, without a running best, for a pair that beats
the incumbent of its size (the threshold lowered by a relative 1e-12 so that rounding can only let
a row through), the exact loop running only on the rows that pass.

The work is at most about ``C(p, K - 2) (p - K)^2 / 2`` steps before pruning:
:func:`enumeration_size` picks the largest ``K`` under a budget. The state lives in arrays, so
the kernel runs a budget of nodes, returns to Python (time limit, Ctrl-C) and resumes.
"""

from __future__ import annotations

import math
import threading

import numpy as np
from ..._optional import numba as _require_numba

__all__ = ["EnumKernel", "enumeration_bytes", "enumeration_growth", "enumeration_size", "enumeration_work",
           "gram_mode"]

#: the largest estimated work (``C(p, K - 2) (p - K + 2)^2 / 2`` pair evaluations) enumerated
WORK_BUDGET = 1.2e10
#: nodes per :meth:`EnumKernel.step` between two checks of the caller's limits (a node costs at
#: most ``O(p^2 r)``)
CHUNK = 2048


def gram_mode(p: int, r: int) -> bool:
    """Whether the enumeration keeps the Gram matrix of the residual rows (``p x p``) rather than
    the residual (``p x r``): for factors of many columns, where valuing a pair in ``O(r)`` costs
    more than keeping ``p x p`` matrices (the column subset's factor has ``r = p``). A pair costs
    about 5 operations against ``2 r``, a node's ordering ``p^3 / 3`` against ``p^2 r``: on the
    digits' 61 pixels, one size alone, the Gram form took 1.16 / 1.04 / 0.75 times the residual
    form's time with 3 / 5 / 10 classes (``r`` = 2 / 4 / 9), and 0.09 times it with the column
    subset's ``r = p = 100`` (10x10 Brodatz patches, k = 5)."""
    return p >= 2 and r >= 8 and 8 * r >= p


def enumeration_bytes(p: int, r: int, K: int) -> int:
    """The bytes of an :class:`EnumKernel`'s per-depth matrices for sizes up to ``K``."""
    return (K + 1) * p * (p + (p if gram_mode(p, r) else r)) * 8


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


def _kernel(K, budget, Sd, Rd, ids, nc, perm, sb, fd, Kd, cur, F, state, inc, inc_sup, conf, gram, T, Rt, Gt, rem,
            w):  # pragma: no cover - compiled
    """Run up to ``budget`` node visits; ``state = [depth, nodes, pairs, pruned]`` (depth -1: done).

    A node at depth ``m`` holds, over its ``nc[m]`` candidates (``ids[m]``, global indices), the
    Schur complement ``Sd[m]`` and residual ``Rd[m]`` given ``F[:m]``; its children follow the order
    ``perm[m]`` (positions in the node's list) with ``sb[m, i]`` the gain of the suffix from ``i``.
    ``Kd[m]``: the largest size still needed below the node (sizes whose incumbent its inclusion
    bound cannot beat are dropped from the top of its range). ``conf``: a ``p x p`` boolean matrix of
    the pairs of features (positions in the root's order) that no support may hold together (a
    placement's minimum distance), or ``1 x 1`` for none: a child keeps only the candidates that do
    not conflict with the feature it adds, and the pair loops skip conflicting pairs, so every
    support valued is conflict-free (the suffix bounds of the unfiltered lists still bound the
    filtered subtrees). ``gram``: ``Rd[m]`` holds the Gram matrix ``G = R R^T`` of the residual
    rows over the node's candidates (upper triangle, ``p x p``) instead of ``R`` (``p x r``): a
    pair is then valued in ``O(1)`` (``|R_l - u R_j|^2 = G_ll - 2 u G_jl + u^2 G_jj``) instead of
    ``O(r)``, for factors of many columns (the column subset's ``M``, ``r = p``); the same tree,
    the same values to rounding. ``T``, ``Rt``, ``Gt`` (``gram`` only), ``rem``, ``w``: scratch.
    Once a node has ordered its children it rewrites ``Sd[m]``, ``Rd[m]`` and ``ids[m]`` in that
    order (``perm[m]`` becomes the identity), so that each child's matrix is built from contiguous
    rows; only upper triangles are kept (every reader reads ``S[j, l]`` with ``j <= l``)."""
    p = Sd.shape[1]
    r = Rd.shape[2]
    has_conf = conf.shape[0] > 1
    m = state[0]
    done = 0
    dg = np.empty(p)
    while m >= 0 and done < budget:
        Km = Kd[m]
        c = nc[m]
        i = cur[m] + 1
        if i >= c or m >= Km:
            m -= 1
            continue
        S = Sd[m]
        R = Rd[m]
        f = fd[m]
        idm = ids[m]
        done += 1
        if m >= Km - 2:
            # every child (size m + 1) and, at m = Km - 2, every pair of candidates (size m + 2)
            for j in range(c):
                dg[j] = S[j, j]
            if gram:
                for j in range(c):
                    w[j] = R[j, j]  # the squared residual norms
            for j in range(c):
                sjj = dg[j]
                acc = 0.0
                if gram:
                    acc = w[j]
                else:
                    for q in range(r):
                        acc += R[j, q] * R[j, q]
                v = f + acc / sjj
                if v > inc[m + 1]:
                    inc[m + 1] = v
                    for q in range(m):
                        inc_sup[m + 1, q] = F[q]
                    inc_sup[m + 1, m] = idm[j]
                if m == Km - 1:
                    continue
                best = -np.inf
                bl = -1
                inv = 1.0 / sjj
                if gram:
                    # |R_l - u R_j|^2 from the Gram matrix: O(1) a pair
                    gjj = w[j]
                    gj = idm[j]
                    for l in range(j + 1, c):
                        if has_conf and conf[gj, idm[l]]:
                            continue
                        u = S[j, l] * inv
                        sl = dg[l] - u * S[j, l]
                        acc = w[l] - 2.0 * u * R[j, l] + u * u * gjj
                        if sl > 0.0:
                            ww = acc / sl
                            if ww > best:
                                best = ww
                                bl = l
                elif r == 1 and not has_conf:
                    # the hot loop (a vector a): the best ratio x^2 / sl kept as a fraction, so that
                    # a pair costs multiplications only; the row of S and the diagonal are contiguous
                    rj = R[j, 0]
                    # first a screen without a loop-carried best (it vectorizes): does any pair
                    # beat the incumbent of its size, x^2 / sl > inc - v? (the threshold lowered
                    # a little, so that rounding can only let a pair through to the exact loop)
                    thr = inc[m + 2] - v
                    thr -= 1e-12 * (abs(thr) + abs(v))
                    hits = 0
                    for l in range(j + 1, c):
                        sjl = S[j, l]
                        u = sjl * inv
                        sl = dg[l] - u * sjl
                        x = R[l, 0] - u * rj
                        hits += (sl > 0.0) & (x * x > thr * sl)
                    ba = -1.0
                    bs = 1.0
                    if hits > 0:
                        for l in range(j + 1, c):
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
                    # a factor, or pairs that may be held together only (no screen: the check
                    # breaks its vector loop)
                    gj = idm[j]
                    for l in range(j + 1, c):
                        if has_conf and conf[gj, idm[l]]:
                            continue
                        u = S[j, l] * inv
                        sl = dg[l] - u * S[j, l]
                        acc = 0.0
                        for q in range(r):
                            x = R[l, q] - u * R[j, q]
                            acc += x * x
                        if sl > 0.0:
                            ww = acc / sl
                            if ww > best:
                                best = ww
                                bl = l
                state[2] += c - j - 1
                if bl >= 0 and v + best > inc[m + 2]:
                    inc[m + 2] = v + best
                    for q in range(m):
                        inc_sup[m + 2, q] = F[q]
                    inc_sup[m + 2, m] = idm[j]
                    inc_sup[m + 2, m + 1] = idm[bl]
            cur[m] = c  # this node is finished
            m -= 1
            continue
        # ---- one child: add the candidate at position i of the node's order
        if cur[m] < 0:
            # the order of the children: the weakest suffixes (given F) greedily from the end. The
            # candidates left are kept in the leading block of T (lower triangle only, rows
            # contiguous): the chosen one is swapped to the end of the block, so the downdate reads
            # and writes contiguous rows (``rem`` maps block positions to the node's positions)
            for a in range(c):
                for b in range(a + 1):
                    T[a, b] = S[b, a]
                if gram:
                    for b in range(a + 1):
                        Gt[a, b] = R[b, a]
                else:
                    for q in range(r):
                        Rt[a, q] = R[a, q]
                rem[a] = a
            nr = c
            cum = 0.0
            pos = c - 1
            while nr > 0:
                ba = -1
                bg = np.inf
                for a in range(nr):
                    txx = T[a, a]
                    if txx > 0.0:
                        acc = 0.0
                        if gram:
                            acc = Gt[a, a]
                        else:
                            for q in range(r):
                                acc += Rt[a, q] * Rt[a, q]
                        g = acc / txx
                        if g < bg:
                            bg = g
                            ba = a
                if ba < 0:
                    # no positive pivot left (rounding): no bound for the rest
                    for a in range(nr):
                        perm[m, pos] = rem[a]
                        sb[m, pos] = np.inf
                        pos -= 1
                    break
                n1 = nr - 1
                if ba != n1:
                    # swap block positions ba and n1 (the last) of the symmetric lower-stored T
                    t = T[ba, ba]
                    T[ba, ba] = T[n1, n1]
                    T[n1, n1] = t
                    for b in range(ba):
                        t = T[ba, b]
                        T[ba, b] = T[n1, b]
                        T[n1, b] = t
                    for b in range(ba + 1, n1):
                        t = T[b, ba]
                        T[b, ba] = T[n1, b]
                        T[n1, b] = t
                    if gram:  # the same swap in the lower-stored Gram matrix
                        t = Gt[ba, ba]
                        Gt[ba, ba] = Gt[n1, n1]
                        Gt[n1, n1] = t
                        for b in range(ba):
                            t = Gt[ba, b]
                            Gt[ba, b] = Gt[n1, b]
                            Gt[n1, b] = t
                        for b in range(ba + 1, n1):
                            t = Gt[b, ba]
                            Gt[b, ba] = Gt[n1, b]
                            Gt[n1, b] = t
                    else:
                        for q in range(r):
                            t = Rt[ba, q]
                            Rt[ba, q] = Rt[n1, q]
                            Rt[n1, q] = t
                    y = rem[ba]
                    rem[ba] = rem[n1]
                    rem[n1] = y
                cum += bg
                perm[m, pos] = rem[n1]
                sb[m, pos] = cum
                pos -= 1
                nr = n1
                inv = 1.0 / T[n1, n1]
                for a in range(n1):
                    w[a] = T[n1, a]
                    dg[a] = w[a] * inv
                if gram:  # G_ab -= u_a G_nb + u_b G_na - u_a u_b G_nn (n = n1; lower-stored, b <= a)
                    gnn = Gt[n1, n1]
                    for a in range(n1):
                        u = dg[a]
                        gna = Gt[n1, a]
                        for b in range(a + 1):
                            Gt[a, b] -= u * Gt[n1, b] + dg[b] * (gna - u * gnn)
                for a in range(n1):
                    u = dg[a]
                    if not gram:
                        for q in range(r):
                            Rt[a, q] -= u * Rt[n1, q]
                    wa = w[a]
                    for b in range(a + 1):
                        T[a, b] -= dg[b] * wa
            # the node's S (upper triangle), R and candidates rewritten in the children's order
            # (T and Rt, done with, as scratch): the children then read contiguous rows
            for a in range(c):
                pa = perm[m, a]
                for b in range(a, c):
                    pb = perm[m, b]
                    T[a, b] = S[pa, pb] if pa <= pb else S[pb, pa]
                if gram:
                    for b in range(a, c):
                        pb = perm[m, b]
                        Gt[a, b] = R[pa, pb] if pa <= pb else R[pb, pa]
                else:
                    for q in range(r):
                        Rt[a, q] = R[pa, q]
                rem[a] = idm[pa]
            for a in range(c):
                for b in range(a, c):
                    S[a, b] = T[a, b]
                if gram:
                    for b in range(a, c):
                        R[a, b] = Gt[a, b]
                else:
                    for q in range(r):
                        R[a, q] = Rt[a, q]
                idm[a] = rem[a]
                perm[m, a] = a
        cur[m] = i
        x = perm[m, i]
        F[m] = idm[x]
        sxx = S[x, x]
        acc = 0.0
        if gram:
            acc = R[x, x]
        else:
            for q in range(r):
                acc += R[x, q] * R[x, q]
        v = f + acc / sxx
        state[1] += 1
        if v > inc[m + 1]:
            inc[m + 1] = v
            for q in range(m + 1):
                inc_sup[m + 1, q] = F[q]
        cc = c - i - 1
        if has_conf:  # the child's candidates: those after x that x does not conflict with (positions in rem)
            xg = idm[x]
            kept = 0
            for a in range(cc):
                ya = i + 1 + a
                if not conf[xg, idm[ya]]:
                    rem[kept] = ya
                    kept += 1
            cc = kept
        # sizes m + 2 .. top remain in the child's subtree
        top = min(Km, m + 1 + cc)
        if top < m + 2:
            continue
        # inclusion: f(F + C[i:]) bounds every support of the child's subtree; the sizes whose
        # incumbent it does not beat are dropped before the child is built (a relative slack
        # covers rounding; a pair whose Schur complement is not positive is skipped in the pair loops)
        bound = (f + sb[m, i]) * (1.0 + 1e-9) + 1e-300
        while top >= m + 2 and bound <= inc[top]:
            top -= 1
        if top < m + 2:
            state[3] += 1
            continue
        Sn = Sd[m + 1]
        Rn = Rd[m + 1]
        idn = ids[m + 1]
        inv = 1.0 / sxx
        # the child's S (upper triangle) and R over its candidates, in the node's order (the
        # node's arrays are in that order: x is at position i, its candidates follow it)
        if gram:  # G'_ab = G_ab - u_a G_xb - u_b G_xa + u_a u_b G_xx over the kept candidates (x first)
            if not has_conf:
                for a in range(cc):
                    rem[a] = i + 1 + a
            gxx = R[x, x]
            for a in range(cc):
                ya = rem[a]
                w[a] = S[x, ya]
                dg[a] = R[x, ya]
                idn[a] = idm[ya]
            for a in range(cc):
                ya = rem[a]
                u = w[a] * inv
                ga = dg[a] - u * gxx
                for b in range(a, cc):
                    yb = rem[b]
                    Sn[a, b] = S[ya, yb] - u * w[b]
                    Rn[a, b] = R[ya, yb] - u * dg[b] - w[b] * inv * ga
        elif has_conf:  # the kept candidates, gathered (still in the node's order: S[ya, yb] with ya < yb)
            for a in range(cc):
                ya = rem[a]
                w[a] = S[x, ya]
                idn[a] = idm[ya]
            for a in range(cc):
                ya = rem[a]
                u = w[a] * inv
                for q in range(r):
                    Rn[a, q] = R[ya, q] - u * R[x, q]
                for b in range(a, cc):
                    Sn[a, b] = S[ya, rem[b]] - u * w[b]
        else:
            for a in range(cc):
                ya = i + 1 + a
                w[a] = S[x, ya]
                idn[a] = idm[ya]
            for a in range(cc):
                ya = i + 1 + a
                u = w[a] * inv
                for q in range(r):
                    Rn[a, q] = R[ya, q] - u * R[x, q]
                for b in range(a, cc):
                    Sn[a, b] = S[ya, i + 1 + b] - u * w[b]
        nc[m + 1] = cc
        fd[m + 1] = v
        Kd[m + 1] = top
        m += 1
        cur[m] = -1
    state[0] = m
    return done


_compiled = []


#: held while the kernel is wrapped on its first call (threads calling at once wrap it once)
_COMPILE_LOCK = threading.Lock()


def _compiled_kernel():
    if _compiled:  # every step asks: no lock once built
        return _compiled[0]
    with _COMPILE_LOCK:
        if not _compiled:
            numba = _require_numba()  # optional: a clear error naming its extra where it is missing

            _compiled.append(numba.njit(cache=True)(_kernel))
    return _compiled[0]


class EnumKernel:
    """The arrays of a resumable enumeration of every support of size ``1..K``.

    ``order``: the features' order in the root's list (the root orders its children itself, so
    it only breaks ties); ``inc`` the incumbents by size (index = size), raised in place; supports
    are reported in the original indices. ``conflict``: a ``p x p`` boolean matrix of the pairs no
    support may hold (None: none; see :func:`_kernel`). ``gram``: keep the Gram matrix of the
    residual rows rather than the residual (None: :func:`gram_mode`'s rule). ``off``: sizes not
    wanted (already solved): their
    incumbents are set to ``+inf`` inside the kernel, so that no subtree is kept for them alone
    and nothing is reported for them (extending a completed enumeration of ``1..K`` to size
    ``K + 1`` enumerates that size only).
    """

    def __init__(self, M, B, K, order, inc, off=(), conflict=None, gram=None):
        p, r = M.shape
        self.order = np.asarray(order, dtype=np.int64)
        self.gram = gram_mode(p, r) if gram is None else bool(gram) and p >= 2
        # pairs no support holds together, in the root's order (1 x 1: none)
        self.conf = np.zeros((1, 1), bool) if conflict is None else \
            np.ascontiguousarray(np.asarray(conflict, dtype=bool)[np.ix_(self.order, self.order)])
        self.p, self.r, self.K = p, r, K
        self.Sd = np.zeros((K + 1, p, p))
        self.Sd[0] = np.asarray(B, dtype=np.float64)[np.ix_(self.order, self.order)]
        Mo = np.asarray(M, dtype=np.float64)[self.order]
        if self.gram:  # the Gram matrix of the residual rows (M M^T at the root)
            self.Rd = np.zeros((K + 1, p, p))
            self.Rd[0] = Mo @ Mo.T
        else:
            self.Rd = np.zeros((K + 1, p, r))
            self.Rd[0] = Mo
        self.ids = np.zeros((K + 1, p), np.int64)  # per depth: the node's candidates (indices in order)
        self.ids[0] = np.arange(p)
        self.nc = np.zeros(K + 1, np.int64)
        self.nc[0] = p
        self.perm = np.zeros((K + 1, p), np.int64)  # per depth: the order of the node's children
        self.sb = np.full((K + 1, p), np.inf)  # per depth: the gains of the suffixes of that order
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
        self._scratch = (np.zeros((p, p)), np.zeros((1, 1)) if self.gram else np.zeros((p, r)),
                         np.zeros((p, p)) if self.gram else np.zeros((1, 1)), np.zeros(p, np.int64), np.zeros(p))
        self._inc0 = self.inc.copy()

    @property
    def open(self):
        return int(self.state[0]) >= 0

    @property
    def n_nodes(self):
        return int(self.state[1])

    def step(self, budget):
        return _compiled_kernel()(self.K, int(budget), self.Sd, self.Rd, self.ids, self.nc, self.perm, self.sb, self.fd,
                                  self.Kd, self.cur, self.F, self.state, self.inc, self.inc_sup, self.conf,
                                  self.gram, *self._scratch)

    def improved(self):
        """``{size: (value, support in original indices)}`` for every size the enumeration raised."""
        out = {}
        for j in range(1, self.K + 1):
            if np.isfinite(self.inc[j]) and self.inc[j] > self._inc0[j] and self.inc_sup[j, 0] >= 0:
                out[j] = (float(self.inc[j]), np.sort(self.order[self.inc_sup[j, :j]]))
        return out
