"""The compiled kernel of :func:`pixsel.spectral.exact_path_batch` (Numba).

One pair at a time, everything in compiled code (supports are bit masks, ``p <= 20``):

1. Seeds: the forward and backward greedy supports of every size (the dual pass; their
   objectives are returned). Each step factors the current set once, ``A_SS X = B_SS X diag(d)``
   with ``X`` ``B``-orthonormal (Cholesky of ``B_SS``, ``eigh`` of ``L^{-1} A_SS L^{-T}``), and
   values every candidate from it: removing ``j`` restricts the Rayleigh quotient to ``y``
   orthogonal to ``z = X[j, :]``, whose maximum is the largest root of ``sum_i z_i^2 / (d_i -
   mu) = 0`` in ``[d_2, d_1]`` (:func:`_drop_value`); adding ``j`` gives an arrowhead pencil
   whose largest root lies above ``d_1`` (:func:`_add_value`). Both are solved to rounding by
   bracketed Newton iterations.
2. Sizes 1 and 2 in closed form; sizes 3..``kenum`` by enumeration in lexicographic order with
   the Cholesky factor of ``theta B - A`` (``theta`` the size's incumbent) grown one row per
   level, so prefixes share their rows; a support whose factor fails may beat ``theta`` and only
   then gets its eigenvalue computed.
3. The larger sizes by the "dropping" tree of :mod:`._allk` (inclusion bound: ``f`` is monotone
   under inclusion) with one global order of importance (the root's losses): child ``c`` of a
   node drops its ``c``-th free variable and fixes the ones before it. A child is kept when its
   Cholesky test at the threshold of its smallest open size fails; a node's own value is computed
   only where its test at the incumbent of its size fails.

Cholesky tests (``s^3 / 6`` flops) instead of eigendecompositions at the nodes: each node is far
cheaper, at the price of more nodes than the exact-value ordering (bench_exact_montecarlo). Every
reported value is recomputed from scratch on its support.
"""

from __future__ import annotations

import threading

import numpy as np
from ..._optional import numba as _require_numba

__all__ = ["solve_batch"]

#: Run the loops compiled (Numba, the extra `numba`); ``False`` runs the same functions in Python,
#: the oracle that the tests compare the compiled loops with.
_COMPILED = True
_compiled = []
#: held while the kernels are wrapped on their first call: two threads doing it at once would wrap
#: an already compiled helper (a TypeError from Numba); re-entrant, drop_values wraps the batch's
_COMPILE_LOCK = threading.RLock()


def _entry(A, B, i, j, theta, shifted):
    """``theta B_ij - A_ij`` (``shifted``) or ``B_ij``."""
    if shifted:
        return theta * B[i, j] - A[i, j]
    return B[i, j]


def _cholesky_of(A, B, idx, s, theta, shifted, L):
    """Lower Cholesky factor of ``theta B[idx, idx] - A[idx, idx]`` (``shifted``) or of
    ``B[idx, idx]`` into ``L[:s, :s]``, column by column; False at the first pivot that is not
    positive (the matrix is not positive definite), the columns after it untouched."""
    for j in range(s):
        acc = _entry(A, B, idx[j], idx[j], theta, shifted)
        for q in range(j):
            acc -= L[j, q] * L[j, q]
        if not acc > 0.0:
            return False
        ljj = np.sqrt(acc)
        L[j, j] = ljj
        for i in range(j + 1, s):
            acc = _entry(A, B, idx[i], idx[j], theta, shifted)
            for q in range(j):
                acc -= L[i, q] * L[j, q]
            L[i, j] = acc / ljj
    return True


def _cholesky(B, idx, s, L):
    """Lower Cholesky factor of ``B[idx, idx]`` into ``L[:s, :s]``; False if not positive definite."""
    return _cholesky_of(B, B, idx, s, 1.0, False, L)


def _reduced(A, idx, s, L):
    """``C = L^{-1} A[idx, idx] L^{-T}`` (symmetrized), a fresh s x s array."""
    T = np.empty((s, s))
    for c in range(s):  # T = L^{-1} A_SS, column by column
        for i in range(s):
            acc = A[idx[i], idx[c]]
            for q in range(i):
                acc -= L[i, q] * T[q, c]
            T[i, c] = acc / L[i, i]
    C = np.empty((s, s))
    for r in range(s):  # C = L^{-1} T^T = L^{-1} A_SS L^{-T}
        for i in range(s):
            acc = T[r, i]
            for q in range(i):
                acc -= L[i, q] * C[q, r]
            C[i, r] = acc / L[i, i]
    for i in range(s):
        for j in range(i):
            v = 0.5 * (C[i, j] + C[j, i])
            C[i, j] = v
            C[j, i] = v
    return C


def _below(A, B, idx, s, theta, L):
    """True when ``lambda_max(A_SS, B_SS) < theta``: ``theta B_SS - A_SS`` is positive definite
    (a Cholesky attempt, ``s^3 / 6`` flops)."""
    if not theta > -np.inf:
        return False
    return _cholesky_of(A, B, idx, s, theta, True, L)


def _value(A, B, idx, s, L):
    """``lambda_max(A_SS, B_SS)``."""
    if s == 1:
        return A[idx[0], idx[0]] / B[idx[0], idx[0]]
    _cholesky(B, idx, s, L)
    C = _reduced(A, idx, s, L)
    return np.linalg.eigvalsh(C)[s - 1]


def _eig(A, B, idx, s, L, d, X):
    """Eigenvalues (descending, into ``d``) and B-orthonormal eigenvectors (``X[:s, :s]``, rows =
    the variables of ``idx``) of the pair on ``idx``."""
    _cholesky(B, idx, s, L)
    C = _reduced(A, idx, s, L)
    w, Y = np.linalg.eigh(C)
    for c in range(s):
        src = s - 1 - c
        d[c] = w[src]
        for i in range(s - 1, -1, -1):  # X = L^{-T} Y: back substitution
            acc = Y[i, src]
            for q in range(i + 1, s):
                acc -= L[q, i] * X[q, c]
            X[i, c] = acc / L[i, i]


def _drop_value(d, X, j, s):
    """``lambda_max`` of the pair with variable ``j`` (a row of ``X``) removed: the largest root
    of ``sum_i X[j, i]^2 / (d_i - mu) = 0`` (``d`` descending), returned as ``d_1 - tau``."""
    z0 = X[j, 0] * X[j, 0]
    gap = d[0] - d[1]
    if z0 == 0.0 or gap <= 0.0:
        return d[0]
    lo = 0.0
    hi = gap
    scale = abs(d[0]) + gap
    tau = 0.0
    for _ in range(100):
        psi = 0.0
        dpsi = 0.0
        for i in range(1, s):
            den = (d[0] - d[i]) - tau
            if den <= 0.0:  # tau reached the pole (rounding): stay inside the bracket
                psi = np.inf
                break
            q = X[j, i] * X[j, i] / den
            psi += q
            dpsi += q / den
        F = z0 - tau * psi  # decreasing and concave in tau; root in (0, gap]
        if F > 0.0:
            lo = tau
        elif F < 0.0:
            hi = tau
        else:
            return d[0] - tau
        dF = psi + tau * dpsi
        new = tau + F / dF if np.isfinite(dF) and dF > 0.0 else 0.5 * (lo + hi)
        if not (lo < new < hi):
            new = 0.5 * (lo + hi)
        if abs(new - tau) <= 1e-16 * scale or hi - lo <= 1e-16 * scale:
            tau = new
            break
        tau = new
    return d[0] - tau


def _indices(mask, p, idx):
    s = 0
    for i in range(p):
        if (mask >> i) & 1:
            idx[s] = i
            s += 1
    return s


def _offer(val, mask, size, inc, incmask, thr, p):
    if val > inc[size]:
        inc[size] = val
        incmask[size] = mask
        for j in range(size, p + 1):
            if thr[j] < val:
                thr[j] = val


def _enumerate(A, B, j, p, inc, incmask, thr, rtol, L, idx, pd):
    """Every support of size ``j`` in lexicographic order, the Cholesky factor of ``theta B - A``
    grown one row per level (prefixes share their rows); a support whose factor fails may beat
    ``theta`` (the threshold of size ``j``) and gets its value computed and offered."""
    t = thr[j]
    theta = t + rtol * abs(t)
    fin = theta > -np.inf
    cand = np.empty(j, np.int64)
    depth = 0
    idx[0] = -1
    while depth >= 0:
        idx[depth] += 1
        if idx[depth] > p - (j - depth):
            depth -= 1
            continue
        v = idx[depth]
        ok = fin and (depth == 0 or pd[depth - 1])
        if ok:
            for q in range(depth):
                acc = theta * B[v, idx[q]] - A[v, idx[q]]
                for r in range(q):
                    acc -= L[depth, r] * L[q, r]
                L[depth, q] = acc / L[q, q]
            acc = theta * B[v, v] - A[v, v]
            for q in range(depth):
                acc -= L[depth, q] * L[depth, q]
            if acc > 0.0:
                L[depth, depth] = np.sqrt(acc)
            else:
                ok = False
        pd[depth] = ok
        if depth == j - 1:
            if not ok:
                mask = np.int64(0)
                for q in range(j):
                    cand[q] = idx[q]
                    mask |= np.int64(1) << idx[q]
                _offer(_value(A, B, cand, j, L[j:]), mask, j, inc, incmask, thr, p)
        else:
            depth += 1
            idx[depth] = idx[depth - 1]


def _add_value(A, B, idx, s, d, X, j, L):
    """``lambda_max`` of the pair on ``idx[:s] + j`` from the eigendecomposition on ``idx[:s]``.

    With ``c = X^T B_Sj`` the new direction ``e_j - X c`` is ``B``-orthogonal to the old ones,
    of ``B``-norm ``delta = B_jj - |c|^2``; in the basis (eigenvectors, new direction) the pencil is
    the arrowhead ``[[diag(d), w], [w^T, gamma]]`` against ``diag(1, delta)`` with ``w = X^T A_Sj
    - d * c`` and ``gamma = A_jj - 2 c^T X^T A_Sj + c^T diag(d) c``; its largest eigenvalue
    ``d_1 + sigma`` solves ``h(sigma) = (d_1 + sigma) delta - gamma - sum_i w_i^2 / (sigma + d_1 -
    d_i) = 0``, ``h`` increasing and concave on ``sigma > 0``: Newton from the root of the 2 x 2
    problem with ``w_1`` alone (where ``h <= 0``) climbs to it monotonically."""
    c = np.empty(s)
    xa = np.empty(s)
    w = np.empty(s)
    cc = 0.0
    for i in range(s):
        acc_b = 0.0
        acc_a = 0.0
        for q in range(s):
            acc_b += X[q, i] * B[idx[q], j]
            acc_a += X[q, i] * A[idx[q], j]
        c[i] = acc_b
        xa[i] = acc_a
        cc += acc_b * acc_b
    delta = B[j, j] - cc
    if not delta > 1e-10 * B[j, j]:  # (numerically) dependent on the set: from scratch
        cand = np.empty(s + 1, np.int64)
        for q in range(s):
            cand[q] = idx[q]
        cand[s] = j
        return _value(A, B, cand, s + 1, L)
    gamma = A[j, j]
    for i in range(s):
        w[i] = xa[i] - d[i] * c[i]
        gamma += -2.0 * c[i] * xa[i] + d[i] * c[i] * c[i]
    d1 = d[0]
    bq = d1 * delta - gamma
    w1 = w[0] * w[0]
    disc = np.sqrt(bq * bq + 4.0 * delta * w1)
    if bq > 0.0:
        sig = 2.0 * w1 / (bq + disc) if bq + disc > 0.0 else 0.0
    else:
        sig = (disc - bq) / (2.0 * delta)
    scale = abs(d1) + abs(gamma / delta)
    for _ in range(100):
        h = (d1 + sig) * delta - gamma
        dh = delta
        if sig > 0.0:
            h -= w1 / sig
            dh += w1 / (sig * sig)
        for i in range(1, s):
            den = sig + (d1 - d[i])
            if den > 0.0:
                q = w[i] * w[i] / den
                h -= q
                dh += q / den
        if not h < 0.0:
            break
        step = -h / dh
        sig += step
        if step <= 1e-16 * scale:
            break
    return d1 + sig


def _solve_pair(A, B, inc, incmask, thr, gfw, gbw, rtol, kenum):
    """Seeds, enumeration of sizes 1 and 2, then the dropping tree; returns the nodes expanded.

    ``inc[j]``, ``incmask[j]``: the best value and support of size ``j`` found (``thr[j]`` their
    running maximum over sizes ``<= j``, the pruning threshold: the optimum of size ``j`` is at
    least the best of any smaller size). ``gfw``, ``gbw``: forward and backward greedy values.
    """
    p = A.shape[0]
    L = np.zeros((p, p))
    X = np.zeros((p, p))
    d = np.zeros(p)
    idx = np.zeros(p, np.int64)
    for j in range(p + 1):
        inc[j] = -np.inf
        thr[j] = -np.inf
        incmask[j] = 0
    full = (np.int64(1) << p) - 1
    # ---- size 1 by enumeration (also the first greedy step: ties to the lowest index)
    best = -np.inf
    bi = 0
    for i in range(p):
        v = A[i, i] / B[i, i]
        if v > best:
            best = v
            bi = i
    # ---- forward greedy: every candidate's value from scratch
    mask = np.int64(1) << bi
    gfw[0] = best
    _offer(best, mask, 1, inc, incmask, thr, p)
    for t in range(2, p + 1):
        s = _indices(mask, p, idx)
        if s > 1:
            _eig(A, B, idx, s, L, d, X)
        else:
            d[0] = A[idx[0], idx[0]] / B[idx[0], idx[0]]
            X[0, 0] = 1.0 / np.sqrt(B[idx[0], idx[0]])
        bv = -np.inf
        bj = -1
        for j in range(p):
            if (mask >> j) & 1:
                continue
            v = _add_value(A, B, idx, s, d, X, j, L)
            if v > bv:
                bv = v
                bj = j
        mask |= np.int64(1) << bj
        gfw[t - 1] = bv
        _offer(bv, mask, t, inc, incmask, thr, p)
    # ---- backward greedy: child values from the secular equation of each step's eigenproblem
    mask = full
    for size in range(p, 0, -1):
        s = _indices(mask, p, idx)
        if s == 1:
            v = A[idx[0], idx[0]] / B[idx[0], idx[0]]
            gbw[0] = v
            _offer(v, mask, 1, inc, incmask, thr, p)
            break
        _eig(A, B, idx, s, L, d, X)
        gbw[size - 1] = d[0]
        _offer(d[0], mask, size, inc, incmask, thr, p)
        bv = -np.inf
        bq = 0
        for q in range(s):
            v = _drop_value(d, X, q, s)
            if v > bv:
                bv = v
                bq = q
        mask &= ~(np.int64(1) << idx[bq])
    # ---- size 2 by enumeration (closed form of the 2 x 2 generalized eigenproblem)
    kmin = 2
    if p >= 3:
        best = -np.inf
        bm = np.int64(0)
        for i in range(p):
            for j in range(i + 1, p):
                det = B[i, i] * B[j, j] - B[i, j] * B[i, j]
                tr = (A[i, i] * B[j, j] + A[j, j] * B[i, i] - 2.0 * A[i, j] * B[i, j]) / det
                pr = (A[i, i] * A[j, j] - A[i, j] * A[i, j]) / det
                v = 0.5 * (tr + np.sqrt(max(tr * tr - 4.0 * pr, 0.0)))
                if v > best:
                    best = v
                    bm = (np.int64(1) << i) | (np.int64(1) << j)
        s = _indices(bm, p, idx)
        _offer(_value(A, B, idx, s, L), bm, 2, inc, incmask, thr, p)
        kmin = 3
    # ---- sizes 3..kenum by enumeration (Cholesky tests shared along prefixes)
    pd = np.zeros(p, np.bool_)
    Le = np.zeros((2 * p, p))
    while kmin <= kenum and kmin < p:
        _enumerate(A, B, kmin, p, inc, incmask, thr, rtol, Le, idx, pd)
        kmin += 1
    # ---- the dropping tree: (mask, fixed mask, number fixed, threshold passed) on a stack
    # one global order of importance (the root's losses): child c of a node drops its c-th free
    # variable in this order and fixes the ones before it
    s = _indices(full, p, idx)
    _eig(A, B, idx, s, L, d, X)
    rank = np.zeros(p, np.int64)  # variables, most important (largest loss) first
    cval = np.zeros(p)
    for q in range(p):
        cv = _drop_value(d, X, q, p)
        pos = q
        while pos > 0 and cval[pos - 1] > cv:
            cval[pos] = cval[pos - 1]
            rank[pos] = rank[pos - 1]
            pos -= 1
        cval[pos] = cv
        rank[pos] = q
    cap = p * p + 2
    smask = np.zeros(cap, np.int64)
    sfix = np.zeros(cap, np.int64)
    snfix = np.zeros(cap, np.int64)
    sthr = np.zeros(cap)
    smask[0] = full
    sthr[0] = -np.inf
    sp = 1
    nodes = 0
    free = np.zeros(p, np.int64)
    while sp > 0:
        sp -= 1
        mask = smask[sp]
        fix = sfix[sp]
        m = snfix[sp]
        s = _indices(mask, p, idx)
        lo = max(m, kmin)
        if lo > s - 1:
            continue
        t = thr[lo]
        t = t + rtol * abs(t)
        if t > sthr[sp] and _below(A, B, idx, s, t, L):  # the thresholds rose since the push
            continue
        nodes += 1
        if s < p and s >= kmin:  # its own value, where it may beat the incumbent of its size
            t = thr[s]
            if not _below(A, B, idx, s, t + rtol * abs(t), L):
                _offer(_value(A, B, idx, s, L), mask, s, inc, incmask, thr, p)
        nf = 0
        for q in range(p):
            j = rank[q]
            if (mask >> j) & 1 and not (fix >> j) & 1:
                free[nf] = j
                nf += 1
        cfix = fix
        cidx = np.zeros(p, np.int64)
        for c in range(nf):
            j = free[c]
            cmask = mask & ~(np.int64(1) << j)
            cm = m + c
            clo = max(cm, kmin)
            if clo <= s - 2:
                t = thr[clo]
                t = t + rtol * abs(t)
                n = _indices(cmask, p, cidx)
                if not _below(A, B, cidx, n, t, L):
                    smask[sp] = cmask
                    sfix[sp] = cfix
                    snfix[sp] = cm
                    sthr[sp] = t
                    sp += 1
            elif s - 1 >= kmin:  # a leaf: offer it where it may beat the incumbent
                t = thr[s - 1]
                n = _indices(cmask, p, cidx)
                if not _below(A, B, cidx, n, t + rtol * abs(t), L):
                    _offer(_value(A, B, cidx, n, L), cmask, s - 1, inc, incmask, thr, p)
            cfix |= np.int64(1) << j
    # ---- sizes pruned by a smaller size's value: that support padded (monotone: as good)
    for size in range(2, p + 1):
        if inc[size] < thr[size]:
            src = size - 1
            while inc[src] < thr[size]:
                src -= 1
            mask = incmask[src]
            n = size - src
            for i in range(p):
                if n == 0:
                    break
                if not (mask >> i) & 1:
                    mask |= np.int64(1) << i
                    n -= 1
            incmask[size] = mask
    for size in range(1, p + 1):  # every reported value from scratch
        s = _indices(incmask[size], p, idx)
        inc[size] = _value(A, B, idx, s, L)
    return nodes


def _batch(A, B, inc, incmask, gfw, gbw, nodes, rtol, kenum):
    N = A.shape[0]
    p = A.shape[1]
    thr = np.zeros(p + 1)
    for n in range(N):
        nodes[n] = _solve_pair(A[n], B[n], inc[n], incmask[n], thr, gfw[n], gbw[n], rtol, kenum)


def _compiled_batch():
    if _compiled:  # no lock once built
        return _compiled[0]
    with _COMPILE_LOCK:  # threads on their first call (exact_spca_path's workers) wrap each helper once
        if not _compiled:
            numba = _require_numba()  # optional: a clear error naming its extra where it is missing

            g = globals()
            for name in ("_entry", "_cholesky_of", "_cholesky", "_reduced", "_below", "_value", "_eig", "_drop_value", "_add_value", "_indices", "_offer", "_enumerate", "_solve_pair"):
                g[name] = numba.njit(cache=True, nogil=True)(g[name])
            _compiled.append(numba.njit(cache=True, nogil=True)(_batch))
    return _compiled[0]


def solve_batch(A, B, rtol, kenum):
    """Run the kernel on C-contiguous float64 stacks ``A``, ``B`` of shape (N, p, p).

    Returns ``(values (N, p + 1), masks (N, p + 1) int64, greedy_forward (N, p), greedy_backward
    (N, p), nodes (N,))``; index ``j`` of the first two is the size.
    """
    N, p = A.shape[0], A.shape[1]
    inc = np.zeros((N, p + 1))
    incmask = np.zeros((N, p + 1), np.int64)
    gfw = np.zeros((N, p))
    gbw = np.zeros((N, p))
    nodes = np.zeros(N, np.int64)
    run = _compiled_batch() if _COMPILED else _batch
    run(A, B, inc, incmask, gfw, gbw, nodes, rtol, kenum)
    return inc, incmask, gfw, gbw, nodes


def _drop_rows(d, X, rows):
    out = np.empty(len(rows))
    s = len(d)
    for r in range(len(rows)):
        out[r] = _drop_value(d, X, rows[r], s)
    return out


_compiled_drop = []


def drop_values(d, X, rows):
    """``lambda_max`` of the pencil with each of ``rows`` deleted (one at a time), from its
    eigenvalues ``d`` (descending) and ``B``-orthonormal eigenvectors ``X`` (rows = variables,
    columns in the order of ``d``): the largest roots of the secular equations of
    :func:`_drop_value`, accurate to rounding (``O(n eps max|d|)``)."""
    d = np.ascontiguousarray(d, dtype=np.float64)
    X = np.ascontiguousarray(X, dtype=np.float64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if len(d) == 1:
        return np.full(len(rows), -np.inf)
    if not _COMPILED:
        return _drop_rows(d, X, rows)
    if not _compiled_drop:
        with _COMPILE_LOCK:
            if not _compiled_drop:
                numba = _require_numba()  # optional: a clear error naming its extra where it is missing

                _compiled_batch()  # compiles _drop_value and binds it where _drop_rows looks it up
                _compiled_drop.append(numba.njit(cache=True, nogil=True)(_drop_rows))
    return _compiled_drop[0](d, X, rows)
