"""The group steps of :mod:`pixsel.spectral._groups`, compiled with Numba.

Two loops whose NumPy versions (kept in :mod:`pixsel.spectral._groups`, their oracle) spend most
of their time in the call overhead of tiny batched operations:

* :func:`factor_steps`, the panel of block eliminations of a vector ``a`` (binary LDA): score
  every free group by ``q_G^T R_GG^+ q_G`` (a ``g x g`` Cholesky, or the eigendecomposition when
  a pivot is below the group's tolerance), take the best with the lowest-group tie rule, and
  eliminate it from the diagonal blocks, ``q`` and the panel, until the panel is full. The
  stored matrix receives the panel in NumPy (one matrix product), as in the single-feature
  kernel :mod:`pixsel.spectral.greedy._rank_one_jit`.
* :func:`border_scores`, the forward step of a full ``A`` with ``B = I`` (sparse PCA): with
  ``A_SS = U diag(theta) U^T``, adding a group ``G`` borders ``diag(theta)`` by ``C = U^T A_SG``
  and ``A_GG``; the new largest eigenvalue is the root above ``theta_1`` of
  ``h(lam) = mu_max(A_GG + C^T (lam - theta)^{-1} C) - lam``, a convex decreasing function
  (the block form of the single-feature secular equation), found by safeguarded Newton steps on
  ``g x g`` Jacobi eigendecompositions instead of one ``(t + g) x (t + g)`` eigendecomposition.

Imported lazily (Numba's import and first compilation are paid once; ``cache=True`` keeps the
machine code next to this file).
"""

from __future__ import annotations

import math

import numpy as np
from .._optional import numba as _numba

njit = _numba().njit  # Numba is optional: without it, a clear error naming the extra that installs it

__all__ = ["factor_steps", "border_scores"]

_EPS = np.finfo(np.float64).eps


# ------------------------------------------------------------------------------------------ small blocks
@njit(cache=True, nogil=True)
def _chol(S, tol, L):
    """Cholesky factor of the ``s x s`` block ``S`` into ``L``; False when a pivot is not above ``tol``."""
    s = S.shape[0]
    for i in range(s):
        for j in range(i + 1):
            acc = S[i, j]
            for k in range(j):
                acc -= L[i, k] * L[j, k]
            if i == j:
                if not acc > tol:
                    return False
                L[i, i] = math.sqrt(acc)
            else:
                L[i, j] = acc / L[j, j]
        for j in range(i + 1, s):
            L[i, j] = 0.0
    return True


@njit(cache=True, nogil=True)
def _jacobi(S, w, V):
    """Eigenvalues ``w`` and eigenvectors ``V`` (columns) of the symmetric ``s x s`` ``S`` (cyclic Jacobi)."""
    s = S.shape[0]
    a = S.copy()
    for i in range(s):
        for j in range(s):
            V[i, j] = 1.0 if i == j else 0.0
    for _ in range(60):
        rotated = False
        for pp in range(s - 1):
            for q in range(pp + 1, s):
                apq = a[pp, q]
                if abs(apq) <= 1e-3 * _EPS * (abs(a[pp, pp]) + abs(a[q, q])):
                    a[pp, q] = a[q, pp] = 0.0  # below the rounding of the diagonal: converged
                    continue
                rotated = True
                tau = (a[q, q] - a[pp, pp]) / (2.0 * apq)
                tt = (1.0 if tau >= 0 else -1.0) / (abs(tau) + math.sqrt(1.0 + tau * tau))
                c = 1.0 / math.sqrt(1.0 + tt * tt)
                sn = tt * c
                for k in range(s):
                    akp, akq = a[k, pp], a[k, q]
                    a[k, pp] = c * akp - sn * akq
                    a[k, q] = sn * akp + c * akq
                for k in range(s):
                    apk, aqk = a[pp, k], a[q, k]
                    a[pp, k] = c * apk - sn * aqk
                    a[q, k] = sn * apk + c * aqk
                for k in range(s):
                    vkp, vkq = V[k, pp], V[k, q]
                    V[k, pp] = c * vkp - sn * vkq
                    V[k, q] = sn * vkp + c * vkq
                a[pp, q] = a[q, pp] = 0.0
        if not rotated:
            break
    for i in range(s):
        w[i] = a[i, i]


@njit(cache=True, nogil=True)
def _block_gain(S, q, tol, L, w, V, y):
    """``q^T S^+ q`` for one symmetric PSD block (directions below ``tol`` dropped), as
    :func:`pixsel.spectral._groups._block_gains` does for one group."""
    s = S.shape[0]
    if _chol(S, tol, L):
        gain = 0.0
        for i in range(s):
            acc = q[i]
            for k in range(i):
                acc -= L[i, k] * y[k]
            y[i] = acc / L[i, i]
            gain += y[i] * y[i]
        return gain
    if s == 1:
        return 0.0
    _jacobi(S, w, V)
    gain = 0.0
    for i in range(s):
        if w[i] > tol:
            proj = 0.0
            for k in range(s):
                proj += V[k, i] * q[k]
            gain += proj * proj / w[i]
    return gain


@njit(cache=True, nogil=True)
def _inverse_factor(S, tol, L, w, V, F):
    """``F`` with ``F F^T = S^+`` (``L^{-T}`` of the Cholesky factor, else from the eigenvectors)."""
    s = S.shape[0]
    if _chol(S, tol, L):
        # F[c, i] = X[i, c] with X = L^{-1} (lower triangular): F = L^{-T}, row c by forward substitution
        for c in range(s):
            for i in range(s):
                if i < c:
                    F[c, i] = 0.0
                    continue
                acc = 1.0 if i == c else 0.0
                for k in range(c, i):
                    acc -= L[i, k] * F[c, k]
                F[c, i] = acc / L[i, i]
        return
    if s == 1:
        F[0, 0] = 0.0
        return
    _jacobi(S, w, V)
    for i in range(s):
        f = 1.0 / math.sqrt(w[i]) if w[i] > tol else 0.0
        for k in range(s):
            F[k, i] = V[k, i] * f


# ------------------------------------------------------------------------------------------ vector paths
@njit(cache=True, nogil=True)
def factor_steps(R, LT, t, q, pos, pad, sizes, D, tol, free, K, order, objective, step, n_steps, forward, panel,
                 tie_rtol):
    """Run greedy group steps of a vector ``a`` until the panel ``LT`` holds ``panel`` rows or the path ends.

    ``R`` (``m x m``, its upper triangle read) is the stored working matrix, ``LT`` the panel (transposed: ``R_true = R -
    LT[:t].T LT[:t]``), ``q`` the working right-hand side, ``pos`` the working position of each
    original feature, ``pad`` / ``sizes`` the members of each group, ``D`` the current diagonal
    block of each group, ``tol`` its pivot tolerance and ``free`` the groups still candidates.
    ``K`` is the objective so far. Returns ``(t, step, K)``.
    """
    n_groups, gmax = pad.shape
    m = R.shape[0]
    scores = np.empty(n_groups)
    gains = np.empty(n_groups)
    Lw = np.empty((gmax, gmax))
    w = np.empty(gmax)
    V = np.empty((gmax, gmax))
    qg = np.empty(gmax)
    yb = np.empty(gmax)
    while step < n_steps:
        if not forward:
            size = n_groups - step
            objective[size - 1] = K
            if size == 1:
                for c in range(n_groups):
                    if free[c]:
                        order[step] = c
                        free[c] = False
                        break
                step += 1
                break
        best = -np.inf
        for c in range(n_groups):
            if not free[c]:
                continue
            s = sizes[c]
            for a in range(s):
                qg[a] = q[pos[pad[c, a]]]
            g = _block_gain(D[c, :s, :s], qg[:s], tol[c], Lw[:s, :s], w[:s], V[:s, :s], yb)
            gains[c] = g
            scores[c] = K + g if forward else K - g
            if scores[c] > best:
                best = scores[c]
        thr = best - tie_rtol * abs(best)
        j = -1
        for c in range(n_groups):
            if free[c] and scores[c] >= thr:
                j = c
                break
        if j < 0:  # NaN scores: the first free group, as the NumPy rule's comparison gives nothing better
            for c in range(n_groups):
                if free[c]:
                    j = c
                    break
        order[step] = j
        if forward:
            objective[step] = scores[j]
        free[j] = False
        K = K + gains[j] if forward else K - gains[j]
        step += 1
        if forward and step >= n_steps:
            break
        # eliminate group j: its true columns, then R_{:,G} F with F F^T = R_GG^+
        s = sizes[j]
        gpos = np.empty(s, dtype=np.intp)
        for a in range(s):
            gpos[a] = pos[pad[j, a]]
        colsT = np.empty((s, m))
        for a in range(s):
            ga = gpos[a]
            for r in range(ga):  # only the upper triangle of R is kept current
                colsT[a, r] = R[r, ga]
            for r in range(ga, m):
                colsT[a, r] = R[ga, r]
            for u in range(t):
                lu = LT[u, ga]
                if lu != 0.0:
                    for r in range(m):
                        colsT[a, r] -= lu * LT[u, r]
        blk = np.empty((s, s))
        for a in range(s):
            for b in range(s):
                blk[a, b] = colsT[a, gpos[b]]
        F = np.empty((s, s))
        _inverse_factor(blk, tol[j], Lw[:s, :s], w[:s], V[:s, :s], F)
        # LnewT = F^T colsT, written straight into the panel
        for b in range(s):
            row = t + b
            for r in range(m):
                LT[row, r] = 0.0
            for a in range(s):
                f = F[a, b]
                if f != 0.0:
                    for r in range(m):
                        LT[row, r] += f * colsT[a, r]
        wq = np.zeros(s)
        for b in range(s):
            acc = 0.0
            for a in range(s):
                acc += F[a, b] * q[gpos[a]]
            wq[b] = acc
        for r in range(m):
            acc = 0.0
            for b in range(s):
                acc += LT[t + b, r] * wq[b]
            q[r] -= acc
        for c in range(n_groups):
            if not free[c]:
                continue
            sc = sizes[c]
            for a in range(sc):
                pa = pos[pad[c, a]]
                for b in range(a, sc):
                    pb = pos[pad[c, b]]
                    acc = 0.0
                    for u in range(s):
                        acc += LT[t + u, pa] * LT[t + u, pb]
                    D[c, a, b] -= acc
                    if b != a:
                        D[c, b, a] -= acc
        t += s
        if t >= panel:
            break
    return t, step, K


# ------------------------------------------------------------------------------------------ sparse PCA
@njit(cache=True, nogil=True)
def _border_root(theta, C, Dg, mu, M, w, V, Z, wz, Vz):
    """The largest eigenvalue of ``[[diag(theta), C], [C^T, Dg]]`` (``theta`` descending, ``t >= 1``;
    ``mu`` is the largest eigenvalue of ``Dg``)."""
    t, s = C.shape
    th1 = theta[0]
    cn = 0.0
    for i in range(t):
        for a in range(s):
            cn += C[i, a] * C[i, a]
    lo = max(th1, mu)
    hi = lo + math.sqrt(cn)
    if cn == 0.0:
        return lo
    # a lower bound: the largest eigenvalue on span(u_1, G), the (1 + s) x (1 + s) border of theta_1
    Z[0, 0] = th1
    for a in range(s):
        Z[0, a + 1] = Z[a + 1, 0] = C[0, a]
        for b in range(s):
            Z[a + 1, b + 1] = Dg[a, b]
    _jacobi(Z, wz, Vz)
    lb = min(max(wz.max(), lo), hi)
    # bracket [a, b]: h(a) >= 0 (or a is the pole theta_1), h(b) <= 0. h is convex and decreasing,
    # so Newton steps from a point left of the root climb to it monotonically
    a_, b_ = lo, hi
    lam = lb if lb > th1 else hi
    for _ in range(200):
        # M = Dg + C^T diag(1 / (lam - theta)) C
        for x in range(s):
            for y in range(x, s):
                acc = Dg[x, y]
                for i in range(t):
                    acc += C[i, x] * C[i, y] / (lam - theta[i])
                M[x, y] = acc
                M[y, x] = acc
        _jacobi(M, w, V)
        k = 0
        for x in range(1, s):
            if w[x] > w[k]:
                k = x
        h = w[k] - lam
        if h >= 0:
            a_ = lam
        else:
            b_ = lam
        dh = -1.0
        for i in range(t):
            cv = 0.0
            for x in range(s):
                cv += C[i, x] * V[x, k]
            d = lam - theta[i]
            dh -= cv * cv / (d * d)
        new = lam - h / dh
        if not (new > a_ and new < b_):
            new = 0.5 * (a_ + b_)
        if abs(new - lam) <= 2.0 * _EPS * abs(lam) or b_ - a_ <= 2.0 * _EPS * abs(b_):
            lam = new
            break
        lam = new
    return lam


@njit(cache=True, nogil=True)
def _border_lower(theta, C, Dg, mu):
    """A lower bound on the largest eigenvalue of ``[[diag(theta), C], [C^T, Dg]]``: the larger of
    ``theta_1``, ``mu = mu_max(Dg)`` and the Rayleigh-Ritz value on ``span(u_1, c_1)`` (``c_1`` the
    first row of ``C`` placed on the group), a closed-form ``2 x 2`` problem."""
    s = C.shape[1]
    n2 = 0.0
    quad = 0.0
    for a in range(s):
        n2 += C[0, a] * C[0, a]
        acc = 0.0
        for b in range(s):
            acc += Dg[a, b] * C[0, b]
        quad += C[0, a] * acc
    best = max(theta[0], mu)
    if n2 > 0.0:
        d = quad / n2
        half = 0.5 * (theta[0] - d)
        best = max(best, 0.5 * (theta[0] + d) + math.sqrt(half * half + n2))
    return best


@njit(cache=True, nogil=True)
def _border_upper(theta, C, Dg, mu, cut, Y, wy, Vy, E, we, Ve):
    """An upper bound on the same largest eigenvalue, or a cheaper one already below ``cut``.

    ``theta_2, ..., theta_t`` all raised to ``theta_2`` can only raise the Schur complement
    ``Dg + C^T (lam - theta)^{-1} C``; with ``E = sum_{j >= 2} c_j c_j^T`` the bound is the
    largest eigenvalue of the ``1 + 2 s`` matrix bordered by ``c_1`` and ``E^{1/2}``. Before it,
    the scalar arrow ``[[theta_1, 0, |c_1|], [0, theta_2, |E|^{1/2}], [|c_1|, |E|^{1/2}, mu_max(Dg)]]``
    (each block replaced by its norm) bounds it from above in ``O(1)``."""
    t, s = C.shape
    th2 = theta[1] if t > 1 else theta[0]
    for a in range(s):
        for b in range(a, s):
            acc = 0.0
            for i in range(1, t):
                acc += C[i, a] * C[i, b]
            E[a, b] = E[b, a] = acc
    _jacobi(E, we, Ve)
    c1 = 0.0
    for a in range(s):
        c1 += C[0, a] * C[0, a]
    A3 = np.zeros((3, 3))
    A3[0, 0], A3[1, 1], A3[2, 2] = theta[0], th2, mu
    A3[0, 2] = A3[2, 0] = math.sqrt(c1)
    A3[1, 2] = A3[2, 1] = math.sqrt(max(we.max(), 0.0))
    w3 = np.empty(3)
    V3 = np.empty((3, 3))
    _jacobi(A3, w3, V3)
    cheap = w3.max() * (1.0 + 8.0 * _EPS) + 8.0 * _EPS * abs(theta[0])
    if cheap < cut:
        return cheap
    n = 1 + 2 * s
    for x in range(n):
        for y in range(n):
            Y[x, y] = 0.0
    Y[0, 0] = theta[0]
    for a in range(s):
        Y[0, a + 1] = Y[a + 1, 0] = C[0, a]
        for b in range(s):
            Y[a + 1, b + 1] = Dg[a, b]
        Y[1 + s + a, 1 + s + a] = th2
        for b in range(s):  # E^{1/2}[a, b]
            acc = 0.0
            for k in range(s):
                if we[k] > 0:
                    acc += Ve[a, k] * math.sqrt(we[k]) * Ve[b, k]
            Y[1 + a, 1 + s + b] = Y[1 + s + b, 1 + a] = acc
    _jacobi(Y, wy, Vy)
    return wy.max() * (1.0 + 8.0 * _EPS) + 8.0 * _EPS * abs(theta[0])


@njit(cache=True, nogil=True)
def border_scores(theta, CU, A, pad, sizes, free, mu, out, tie_rtol):
    """``out[c]``: the largest eigenvalue of ``A`` on the support plus group ``c``, for every free
    group that can be within ``tie_rtol`` of the best (``-inf`` for the others).

    ``theta`` (descending) and ``CU = U^T A_{S,:}`` (``t x p``) come from the eigendecomposition
    ``A_SS = U diag(theta) U^T`` of the current support; ``t = 0`` scores the groups alone and
    fills ``mu`` (each group's own largest eigenvalue, which later calls read). As in
    the single-feature path, cheap bounds screen the candidates: a group whose upper bound is
    below the best lower bound by more than the tie tolerance cannot be chosen, and its root is
    not solved.
    """
    n_groups, gmax = pad.shape
    t = theta.shape[0]
    M = np.empty((gmax, gmax))
    w = np.empty(gmax)
    V = np.empty((gmax, gmax))
    Z = np.empty((gmax + 1, gmax + 1))
    wz = np.empty(gmax + 1)
    Vz = np.empty((gmax + 1, gmax + 1))
    Y = np.empty((2 * gmax + 1, 2 * gmax + 1))
    wy = np.empty(2 * gmax + 1)
    Vy = np.empty((2 * gmax + 1, 2 * gmax + 1))
    E = np.empty((gmax, gmax))
    we = np.empty(gmax)
    Ve = np.empty((gmax, gmax))
    best_lower = -np.inf
    lead = 0
    Cs = np.empty((n_groups, t, gmax))
    Ds = np.empty((n_groups, gmax, gmax))
    for c in range(n_groups):
        out[c] = -np.inf
        if not free[c]:
            continue
        s = sizes[c]
        for a in range(s):
            fa = pad[c, a]
            for b in range(s):
                Ds[c, a, b] = A[fa, pad[c, b]]
            for i in range(t):
                Cs[c, i, a] = CU[i, fa]
        if t == 0:
            _jacobi(Ds[c, :s, :s], w[:s], V[:s, :s])
            mu[c] = out[c] = w[:s].max()
            continue
        lo = _border_lower(theta, Cs[c, :, :s], Ds[c, :s, :s], mu[c])
        if lo > best_lower:
            best_lower, lead = lo, c
    if t == 0:
        return
    # the root of the most promising group first: its value is the sharpest cut
    s = sizes[lead]
    out[lead] = _border_root(theta, Cs[lead, :, :s], Ds[lead, :s, :s], mu[lead], M[:s, :s], w[:s], V[:s, :s],
                             Z[:s + 1, :s + 1], wz[:s + 1], Vz[:s + 1, :s + 1])
    best_lower = max(best_lower, out[lead])
    cut = best_lower - 4.0 * tie_rtol * abs(best_lower)
    for c in range(n_groups):
        if not free[c] or c == lead:
            continue
        s = sizes[c]
        if _border_upper(theta, Cs[c, :, :s], Ds[c, :s, :s], mu[c], cut, Y[:2 * s + 1, :2 * s + 1], wy[:2 * s + 1],
                         Vy[:2 * s + 1, :2 * s + 1], E[:s, :s], we[:s], Ve[:s, :s]) < cut:
            continue
        out[c] = _border_root(theta, Cs[c, :, :s], Ds[c, :s, :s], mu[c], M[:s, :s], w[:s], V[:s, :s], Z[:s + 1, :s + 1],
                              wz[:s + 1], Vz[:s + 1, :s + 1])
