"""The compiled phases of the full-rank forward Krylov path (sparse PCA), with Numba.

:func:`pixsel.spectral.greedy._fullrank_krylov.forward_krylov` spends a step on a few passes over the
growing ``A_SS`` (a leading block of a row-major buffer) with one to three vectors, and on the
rows of every candidate times the two Ritz vectors; late in a path to ``k = p`` each phase's
arithmetic is small, so the NumPy route is dominated by per-call overhead. Here each phase is
one compiled call:

* :func:`screen_candidates`: the candidates' bounds, from their rows times ``U`` (formed only
  for the rows that can matter) and the 4 x 4 arrow bound;
* :func:`bordered_top2_krylov`: one survivor's whole block Krylov iteration (Rayleigh-Ritz,
  residuals, Gram-Schmidt, passes), the iteration of
  :func:`pixsel.spectral.greedy._fullrank_krylov._top2_krylov` with the vectors stored as rows;
* :func:`add_feature`: the bookkeeping after a feature joins the support.

The products read each matrix row once for all the vectors (fused dot products; OpenBLAS runs
such ``n x 2`` products as a ``dgemm`` whose packing costs 3-5 x two ``dgemv`` on one thread),
and the symmetric pass reads the lower triangle only, two rows at a time. The sums are in a
different order from BLAS (``fastmath`` reassociation lets the compiler vectorize them): the
Krylov step certifies its results by residual norms, so only rounding differs.

Imported lazily by :mod:`pixsel.spectral.greedy._fullrank_krylov` (``cache=True`` keeps the machine
code next to this file for later processes).
"""

from __future__ import annotations

import math

import numpy as np
from ..._optional import numba as _numba

from ._secular_jit import arrow4_rows

njit = _numba().njit  # Numba is optional: without it, a clear error naming the extra that installs it

__all__ = [
    "lead_block_matmul",
    "lead_block_symmatmul",
    "rows_matmul",
    "bordered_top2_krylov",
    "screen_candidates",
    "add_feature",
    "deleted_top2_krylov",
    "swap_delete",
]

_EPS = 2.220446049250313e-16


@njit(cache=True, nogil=True, fastmath=True)
def _dots(A, r, n, QT, q0, m, out, o):
    """``out[q0 + l, o] = A[r, :n] . QT[q0 + l, :n]`` for ``l < m`` (``m <= 3``), one read of the row."""
    if m == 1:
        v0 = QT[q0]
        s0 = 0.0
        for j in range(n):
            s0 += A[r, j] * v0[j]
        out[q0, o] = s0
    elif m == 2:
        v0 = QT[q0]
        v1 = QT[q0 + 1]
        s0 = 0.0
        s1 = 0.0
        for j in range(n):
            x = A[r, j]
            s0 += x * v0[j]
            s1 += x * v1[j]
        out[q0, o] = s0
        out[q0 + 1, o] = s1
    else:
        v0 = QT[q0]
        v1 = QT[q0 + 1]
        v2 = QT[q0 + 2]
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        for j in range(n):
            x = A[r, j]
            s0 += x * v0[j]
            s1 += x * v1[j]
            s2 += x * v2[j]
        out[q0, o] = s0
        out[q0 + 1, o] = s1
        out[q0 + 2, o] = s2


@njit(cache=True, nogil=True, fastmath=True)
def lead_block_matmul(A, n, QT, out):
    """``out[:, :n] = (A[:n, :n] @ QT[:, :n].T).T`` for a row-major ``A`` (the leading block)."""
    m = QT.shape[0]
    for q0 in range(0, m, 3):
        mm = min(3, m - q0)
        for i in range(n):
            _dots(A, i, n, QT, q0, mm, out, i)


@njit(cache=True, nogil=True, fastmath=True)
def lead_block_symmatmul(A, n, QT, out):
    """:func:`lead_block_matmul` for a symmetric leading block, reading its lower triangle only.

    Row ``i`` of the triangle gives its dot product with ``q`` (``j <= i``) and, transposed,
    the update ``out[j] += A[i, j] q[i]`` (``j < i``): both loops run along contiguous memory,
    so half the matrix is read (faster than the full block). Rows go two at a time, so that one
    load and store of ``out[j]`` serves both (faster again with two vectors).
    """
    m = QT.shape[0]
    for q in range(m):
        for i in range(n):
            out[q, i] = 0.0
    for q0 in range(0, m, 2):
        if q0 + 1 < m:
            v0 = QT[q0]
            v1 = QT[q0 + 1]
            o0 = out[q0]
            o1 = out[q0 + 1]
            i = 0
            while i + 1 < n:  # two rows at a time: one load and store of out[j] serves both
                x0 = v0[i]
                x1 = v1[i]
                y0 = v0[i + 1]
                y1 = v1[i + 1]
                s0 = 0.0
                s1 = 0.0
                t0 = 0.0
                t1 = 0.0
                for j in range(i):
                    a = A[i, j]
                    b = A[i + 1, j]
                    w0 = v0[j]
                    w1 = v1[j]
                    s0 += a * w0
                    s1 += a * w1
                    t0 += b * w0
                    t1 += b * w1
                    o0[j] += a * x0 + b * y0
                    o1[j] += a * x1 + b * y1
                c = A[i + 1, i]
                o0[i] += s0 + A[i, i] * x0 + c * y0
                o1[i] += s1 + A[i, i] * x1 + c * y1
                o0[i + 1] += t0 + c * x0 + A[i + 1, i + 1] * y0
                o1[i + 1] += t1 + c * x1 + A[i + 1, i + 1] * y1
                i += 2
            if i < n:
                x0 = v0[i]
                x1 = v1[i]
                s0 = A[i, i] * x0
                s1 = A[i, i] * x1
                for j in range(i):
                    a = A[i, j]
                    s0 += a * v0[j]
                    s1 += a * v1[j]
                    o0[j] += a * x0
                    o1[j] += a * x1
                o0[i] += s0
                o1[i] += s1
        else:
            v0 = QT[q0]
            o0 = out[q0]
            i = 0
            while i + 1 < n:
                x0 = v0[i]
                y0 = v0[i + 1]
                s0 = 0.0
                t0 = 0.0
                for j in range(i):
                    a = A[i, j]
                    b = A[i + 1, j]
                    w0 = v0[j]
                    s0 += a * w0
                    t0 += b * w0
                    o0[j] += a * x0 + b * y0
                c = A[i + 1, i]
                o0[i] += s0 + A[i, i] * x0 + c * y0
                o0[i + 1] += t0 + c * x0 + A[i + 1, i + 1] * y0
                i += 2
            if i < n:
                x0 = v0[i]
                s0 = A[i, i] * x0
                for j in range(i):
                    a = A[i, j]
                    s0 += a * v0[j]
                    o0[j] += a * x0
                o0[i] += s0


@njit(cache=True, nogil=True, fastmath=True)
def rows_matmul(A, rows, n, QT, out):
    """``out[:, r] = A[rows[r], :n] @ QT[:, :n].T`` for a row-major ``A``."""
    m = QT.shape[0]
    for q0 in range(0, m, 3):
        mm = min(3, m - q0)
        for r in range(rows.shape[0]):
            _dots(A, rows[r], n, QT, q0, mm, out, r)


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _vdot(x, y):
    s = 0.0
    for j in range(x.shape[0]):
        s += x[j] * y[j]
    return s


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _combine(Z, zc, m, XT, out):
    """``out = sum_a Z[a, zc] XT[a]`` over the first ``m`` rows of ``XT``."""
    out[:] = 0.0
    for a in range(m):
        za = Z[a, zc]
        xa = XT[a]
        for j in range(out.shape[0]):
            out[j] += za * xa[j]


@njit(cache=True, nogil=True)
def _ritz_top2(VT, WT, H, hv, m, mu, UT, MUT, RT, r2):
    """One Rayleigh-Ritz step of the compiled Krylov iterations on the first ``m`` rows of ``VT``
    (``WT`` their images): the rows and columns of ``H = V^T W`` from ``hv`` on are added, the
    top two Ritz values go to ``mu``, their vectors and images to ``UT``, ``MUT``, the residuals
    to ``RT`` and their squared norms to ``r2``. Returns the Ritz coefficients ``Z`` (ascending)."""
    n = VT.shape[1]
    for a in range(hv, m):  # the new rows and columns of V^T W
        for b in range(m):
            H[a, b] = _vdot(VT[a], WT[b])
        for b in range(hv):
            H[b, a] = _vdot(VT[b], WT[a])
    Hs = np.empty((m, m))
    for a in range(m):
        for b in range(m):
            Hs[a, b] = 0.5 * (H[a, b] + H[b, a])
    th, Z = np.linalg.eigh(Hs)
    for c in range(2):
        mu[c] = th[m - 1 - c]
        _combine(Z, m - 1 - c, m, VT, UT[c])
        _combine(Z, m - 1 - c, m, WT, MUT[c])
        for j in range(n):
            RT[c, j] = MUT[c, j] - mu[c] * UT[c, j]
        r2[c] = _vdot(RT[c], RT[c])
    return Z


@njit(cache=True, nogil=True)
def _expand(VT, m, RT, r2, res1, tol1, tol, q, coef, zero):
    """Append the unconverged residuals (``RT``) to the basis ``VT[:m]``, each orthogonalized
    twice (Gram-Schmidt) and kept where it is not dependent; entry ``zero`` is held at 0 when
    ``zero >= 0`` (the deleted coordinate of the backward iteration). Returns how many rows were
    added at ``VT[m:]``."""
    n = VT.shape[1]
    added = 0
    for col in range(2):
        if (col == 0 and res1 <= tol1) or (col == 1 and math.sqrt(r2[1]) <= 0.5 * tol):
            continue
        q[:] = RT[col]
        if zero >= 0:
            q[zero] = 0.0
        nq0 = math.sqrt(_vdot(q, q))
        if nq0 == 0.0:
            continue
        k = m + added
        for _r in range(2):
            for a in range(k):
                coef[a] = _vdot(VT[a], q)
            for a in range(k):
                ca = coef[a]
                va = VT[a]
                for j in range(n):
                    q[j] -= ca * va[j]
        if zero >= 0:
            q[zero] = 0.0
        nq = math.sqrt(_vdot(q, q))
        if nq <= 1e-8 * nq0:
            continue
        for j in range(n):
            VT[k, j] = q[j] / nq
        added += 1
    return added


@njit(cache=True, nogil=True)
def bordered_top2_krylov(G, t, arow, d, VkT, WkT, tol1, tol, max_iter, max_dim, keep):
    """:func:`pixsel.spectral.greedy._fullrank_krylov._top2_krylov` for ``M = G[:t + 1, :t + 1]``, compiled.

    ``G[t, :t + 1]`` is first set to the candidate's row ``(arow[:t], d)`` (the column
    ``G[:t, t]`` is not written). The subspace starts at ``[Vk, 0; 0, 1]`` (``VkT``: orthonormal
    rows of length ``t``, with ``WkT = VkT A_SS``, so that ``M V0`` needs only that row); the passes
    over ``M`` read its lower triangle (:func:`lead_block_symmatmul`). The same iteration as the
    NumPy one (Rayleigh-Ritz, residual norms with the same rounding slack, thick restart at
    ``max_dim``, twice-Gram-Schmidt of the unconverged residuals); vectors are stored as rows.
    Returns ``(ok, mu, UT, MUT, res1, res, VkT_new, WkT_new)``: ``ok`` False where the NumPy
    iteration returns ``None``; ``VkT_new`` the top ``min(keep, m)`` Ritz vectors (rows).
    """
    q0, _ = VkT.shape
    n = t + 1
    G[t, :t] = arow[:t]  # the candidate's row (the passes read the lower triangle only)
    G[t, t] = d
    m = q0 + 1
    cap = min(max_dim, n)
    nb = max(cap + 2, m)
    VT = np.empty((nb, n))  # every row is written before it is read
    WT = np.empty((nb, n))
    grow = G[t, :n]
    for a in range(q0):
        VT[a, :t] = VkT[a]
        VT[a, t] = 0.0
        WT[a, :t] = WkT[a]
        WT[a, t] = _vdot(VkT[a], grow[:t])
    VT[q0, :] = 0.0
    VT[q0, t] = 1.0
    WT[q0, :] = grow
    H = np.empty((nb, nb))
    hv = 0
    mu = np.empty(2)
    UT = np.empty((2, n))
    MUT = np.empty((2, n))
    RT = np.empty((2, n))
    r2 = np.empty(2)
    q = np.empty(n)
    coef = np.empty(nb)
    res1 = res = 0.0
    for _ in range(max_iter):
        Z = _ritz_top2(VT, WT, H, hv, m, mu, UT, MUT, RT, r2)
        hv = m
        slack = n * _EPS * (abs(mu[0]) + abs(mu[1]))
        res1 = math.sqrt(r2[0]) + slack
        res = math.sqrt(r2[0] + r2[1]) + slack
        if res1 <= tol1 and res <= tol:
            qk = min(keep, m)
            VkN = np.empty((qk, n))
            WkN = np.empty((qk, n))
            for c in range(qk):
                if c < 2:  # the Ritz vectors already formed
                    VkN[c] = UT[c]
                    WkN[c] = MUT[c]
                else:
                    _combine(Z, m - 1 - c, m, VT, VkN[c])
                    _combine(Z, m - 1 - c, m, WT, WkN[c])
            return True, mu, UT, MUT, res1, res, VkN, WkN
        if m + 2 > cap:  # thick restart on the Ritz vectors
            VT[0], VT[1] = UT[0], UT[1]
            WT[0], WT[1] = MUT[0], MUT[1]
            m = 2
            hv = 0
        added = _expand(VT, m, RT, r2, res1, tol1, tol, q, coef, -1)
        if added == 0:
            break
        lead_block_symmatmul(G, n, VT[m : m + added], WT[m : m + added])
        m += added
    empty = np.empty((0, n))
    return False, mu, UT, MUT, res1, res, empty, empty


@njit(cache=True, nogil=True)
def _eig2_max(a, b, c):
    return 0.5 * (a + c) + math.sqrt(0.25 * (a - c) ** 2 + b * b)


@njit(cache=True, nogil=True)
def _at_least(upper, n, floor):
    """The rows ``r < n`` with ``upper[r] >= floor``, in increasing order."""
    m = 0
    for r in range(n):
        if upper[r] >= floor:
            m += 1
    out = np.empty(m, dtype=np.intp)
    k = 0
    for r in range(n):
        if upper[r] >= floor:
            out[k] = r
            k += 1
    return out


@njit(cache=True, nogil=True)
def screen_candidates(Acols, rows, t, UT, mu0, mu1, gamma, eps, c, bnorm2):
    """The candidate screening of one step of ``forward_krylov`` (``B = I``), compiled.

    ``b = Acols[rows, :t] @ U`` (``UT = U^T``), the 2 x 2 lower bound on ``(u_1, e_i)``,
    the cheap upper bound ``eig2(max(mu_1, gamma), |a|, c) + eps`` (inflated as in NumPy), then the
    4 x 4 arrow bound (:func:`pixsel.spectral.greedy._secular_jit.arrow4_rows` climbing the secular
    equation, LAPACK where it stalls, as :func:`pixsel.spectral.greedy._secular.arrow4_max`) on the
    rows whose cheap bound reaches the best lower bound. The same expressions as the NumPy
    route, element by element, except that ``b`` is formed only where it can matter: the cheap
    bound needs no ``b``, and a row whose cheap bound is below ``lmax0 - tol_s`` (``lmax0`` the
    best lower bound of the four rows of largest cheap bound) can neither set the best lower
    bound nor survive; such rows get ``b = 0`` and ``lower = -inf``. Returns
    ``(bT, lower, upper, tol_s, surv)``.
    """
    n = rows.shape[0]
    bT = np.zeros((2, n))
    lower = np.full(n, -np.inf)
    upper = np.empty(n)
    top = max(mu0, gamma)
    tmax = -np.inf
    for r in range(n):  # the cheap upper bounds need no product with U
        cr = c[r]
        nb = math.sqrt(bnorm2[r])
        up = _eig2_max(top, nb, cr)
        up = up * (1 + 1e-12) + 1e-12 * abs(cr) + eps
        upper[r] = up
        tmax = max(tmax, max(abs(up), abs(mu0)) + nb)
    tol_s = 1e-10 * tmax
    # b = A[rows, :t] U only where the row can matter: first the n_first rows of largest upper
    # bound, whose best lower bound lmax0 then rules out every row with upper < lmax0 - tol_s
    # (such a row has lower <= upper, so it can neither set the best lower bound nor survive).
    n_first = min(4, n)
    first = np.empty(n_first, dtype=np.intp)
    done = np.zeros(n, dtype=np.bool_)
    for k in range(n_first):
        best = -1
        for r in range(n):
            if not done[r] and (best < 0 or upper[r] > upper[best]):
                best = r
        first[k] = best
        done[best] = True
    lmax = -np.inf
    for k in range(n_first):
        r = first[k]
        _dots(Acols, rows[r], t, UT, 0, 2, bT, r)
        lower[r] = max(_eig2_max(mu0, bT[0, r], c[r]), mu0)
        lmax = max(lmax, lower[r])
    for r in range(n):
        if not done[r] and upper[r] >= lmax - tol_s:
            _dots(Acols, rows[r], t, UT, 0, 2, bT, r)
            lower[r] = max(_eig2_max(mu0, bT[0, r], c[r]), mu0)
    lmax = -np.inf
    for r in range(n):
        lmax = max(lmax, lower[r])
    hard = _at_least(upper, n, lmax - tol_s)
    nh = len(hard)
    if nh:
        d = np.array([mu0, mu1, gamma])
        o = np.empty(3, dtype=np.intp)  # stable argsort of three values
        o[0], o[1], o[2] = 0, 1, 2
        for a in range(1, 3):
            b = a
            while b > 0 and d[o[b - 1]] > d[o[b]]:
                o[b - 1], o[b] = o[b], o[b - 1]
                b -= 1
        ds = np.array([d[o[0]], d[o[1]], d[o[2]]])
        B = np.empty((nh, 3))
        Bu = np.empty((nh, 3))
        ch = np.empty(nh)
        margin = np.empty(nh)
        for k in range(nh):
            r = hard[k]
            b1 = bT[0, r]
            b2 = bT[1, r]
            beta = math.sqrt(max(bnorm2[r] - b1**2 - b2**2, 0.0))
            Bu[k, 0], Bu[k, 1], Bu[k, 2] = b1, b2, beta
            for a in range(3):
                B[k, a] = Bu[k, o[a]]
            ch[k] = c[r]
            scale = abs(mu0) + abs(mu1) + abs(gamma) + abs(c[r]) + (abs(b1) + abs(b2) + abs(beta))
            margin[k] = 1e-12 * scale
        lam, ok = arrow4_rows(ds, B, ch, margin, 100)
        T = np.zeros((4, 4))
        for k in range(nh):
            if not ok[k]:  # Newton stalled within rounding of a pole: LAPACK
                T[:] = 0.0
                T[0, 0], T[1, 1], T[2, 2], T[3, 3] = mu0, mu1, gamma, ch[k]
                for a in range(3):
                    T[a, 3] = T[3, a] = Bu[k, a]
                lam[k] = np.linalg.eigvalsh(T)[-1] + margin[k]
            r = hard[k]
            upper[r] = min(upper[r], lam[k] + eps)
    lmax = -np.inf
    for r in range(n):
        lower[r] = min(lower[r], upper[r])
        lmax = max(lmax, lower[r])
    return bT, lower, upper, tol_s, _at_least(upper, n, lmax - tol_s)


@njit(cache=True, nogil=True)
def add_feature(Acols, rows, nrows, G, order, t, col, rowsq):
    """Bookkeeping after feature ``order[t]`` (its column ``col``) joins the support.

    ``Acols[r, t] = col[rows[r]]`` for ``r < nrows``, row and column ``t`` of ``G`` (``A_SS`` in
    the order of addition) from ``col[order[:t + 1]]``, and ``rowsq += col ** 2``.
    """
    for r in range(nrows):
        Acols[r, t] = col[rows[r]]
    for a in range(t + 1):
        x = col[order[a]]
        G[t, a] = x
        G[a, t] = x
    for i in range(col.shape[0]):
        rowsq[i] += col[i] * col[i]


@njit(cache=True, nogil=True)
def deleted_top2_krylov(A, s, r, UT, MUT, tol1, tol, max_iter, max_dim, th2_up, stop_below):
    """The backward path's Krylov iteration for ``A_SS`` without row and column ``r``, compiled.

    ``A[:s, :s]`` is ``A_SS`` (symmetric, both triangles stored; the passes read the lower one),
    ``UT`` (``2 x s``) its two Ritz vectors as rows and ``MUT = UT A_SS``. The deleted matrix is
    handled in the coordinates of ``A_SS`` with entry ``r`` of every vector kept at zero (``P A_SS
    P``, ``P`` zeroing entry ``r``, restricted to ``e_r^perp``): no copy of ``A_SS``. The start is
    :func:`pixsel.spectral.greedy._fullrank_krylov._top2_krylov`'s of ``backward_krylov``: ``U`` with
    entry ``r`` zeroed, orthonormalized (Gram-Schmidt, twice; ``ok`` False when a diagonal entry
    of ``R`` is below ``1e-8``, as the NumPy route's QR test), its image ``P (A U - A e_r U[r])
    R^-1`` formed without a pass. Then the same iteration as :func:`bordered_top2_krylov`
    (Rayleigh-Ritz, residual norms with the rounding slack of size ``s - 1``, thick restart at
    ``max_dim``, twice-Gram-Schmidt of the unconverged residuals). Returns ``(status, mu, UT_n,
    MUT_n, res1, res)``, the vectors of length ``s`` with entry ``r`` zero; ``status`` 1 when
    converged, 0 where the NumPy iteration returns ``None``, and 2 when the iteration stopped
    early, after any Rayleigh-Ritz step, because Temple's bound ``mu_1 + res1^2 / (mu_1 -
    th2_up)`` (``th2_up >= theta_2`` of the deleted matrix, given, and ``mu_1 > th2_up``) fell
    below ``stop_below``: that deletion cannot be the argmax, ``(mu, res1)`` give its bound.
    """
    n = s
    cap = min(max_dim, n - 1)
    nb = cap + 2
    VT = np.empty((nb, n))  # every row is written before it is read
    WT = np.empty((nb, n))
    mu = np.zeros(2)
    UTn = np.zeros((2, n))
    MUTn = np.zeros((2, n))
    for a in range(2):
        ua = UT[a, r]
        for j in range(n):
            VT[a, j] = UT[a, j]
            WT[a, j] = MUT[a, j] - A[j, r] * ua
        VT[a, r] = 0.0
        WT[a, r] = 0.0
    # QR of the two columns (Gram-Schmidt twice) and W R^-1
    r00 = math.sqrt(_vdot(VT[0], VT[0]))
    if not r00 >= 1e-8:
        return 0, mu, UTn, MUTn, 0.0, 0.0
    for j in range(n):
        VT[0, j] /= r00
        WT[0, j] /= r00
    r01 = 0.0
    for _r in range(2):
        c01 = _vdot(VT[0], VT[1])
        r01 += c01
        for j in range(n):
            VT[1, j] -= c01 * VT[0, j]
    r11 = math.sqrt(_vdot(VT[1], VT[1]))
    if not r11 >= 1e-8:
        return 0, mu, UTn, MUTn, 0.0, 0.0
    for j in range(n):
        VT[1, j] /= r11
        WT[1, j] = (WT[1, j] - r01 * WT[0, j]) / r11
    m = 2
    H = np.empty((nb, nb))
    hv = 0
    RT = np.empty((2, n))
    r2 = np.empty(2)
    q = np.empty(n)
    coef = np.empty(nb)
    res1 = res = 0.0
    for _ in range(max_iter):
        _ritz_top2(VT, WT, H, hv, m, mu, UTn, MUTn, RT, r2)
        hv = m
        slack = (n - 1) * _EPS * (abs(mu[0]) + abs(mu[1]))
        res1 = math.sqrt(r2[0]) + slack
        res = math.sqrt(r2[0] + r2[1]) + slack
        if res1 <= tol1 and res <= tol:
            return 1, mu, UTn, MUTn, res1, res
        if mu[0] > th2_up and mu[0] + res1 * res1 / (mu[0] - th2_up) < stop_below:
            return 2, mu, UTn, MUTn, res1, res
        if m + 2 > cap:  # thick restart on the Ritz vectors
            VT[0], VT[1] = UTn[0], UTn[1]
            WT[0], WT[1] = MUTn[0], MUTn[1]
            m = 2
            hv = 0
        added = _expand(VT, m, RT, r2, res1, tol1, tol, q, coef, r)
        if added == 0:
            break
        lead_block_symmatmul(A, n, VT[m : m + added], WT[m : m + added])
        for a in range(m, m + added):
            WT[a, r] = 0.0
        m += added
    return 0, mu, UTn, MUTn, res1, res


@njit(cache=True, nogil=True)
def swap_delete(A, s, r):
    """Delete row and column ``r`` of the symmetric ``A[:s, :s]`` by moving row and column
    ``s - 1`` into their place (``O(s)``; the order of the others is kept)."""
    last = s - 1
    if r != last:
        for j in range(s):
            A[r, j] = A[last, j]
        for i in range(s):
            A[i, r] = A[i, last]
        A[r, r] = A[last, last]
