"""A root bound for two-class sparse LDA from the rank-one (pairwise) convexification.

``opt(k) = max_{|S| = k} a_S^T B_SS^{-1} a_S = max_{|w|_0 <= k} 2 a^T w - w^T B w``. Split

    B = C + diag(d) + sum_{b = (i, j) in E} P_b        (C, P_b positive semi-definite, d >= 0,
                                                        P_b a 2 x 2 block on the pair (i, j))

With ``z`` the indicator of ``S`` and ``s_b(z) = min(1, z_i + z_j)``, for every ``w`` on ``S``
``d_i w_i^2 = d_i w_i^2 / z_i`` and ``w_b^T P_b w_b >= w_b^T P_b w_b / s_b`` (both sides 0 when
``s_b = 0``). So ``opt(k) <= max_{z in Z} h(z)``, ``Z = {z in [0, 1]^p, sum z = k}``, with

    h(z) = max_w 2 a^T w - w^T C w - sum_i d_i w_i^2 / z_i - sum_b w_b^T P_b w_b / s_b(z)
         = a^T M(z)^{-1} a,    M(z) = C + diag(d / z) + sum_b P_b / s_b(z).

``h`` is concave (a partial maximum of a jointly concave function: perspectives of convex
quadratics, composed with the concave, non-decreasing ``s_b``), and at an interior ``z0`` with
``w = M(z0)^{-1} a`` the vector

    g_i = d_i w_i^2 / z0_i^2 + sum_{b containing i, z0_i + z0_j < 1} w_b^T P_b w_b / s_b^2

is a supergradient. Hence ``opt(k) <= h(z0) - g^T z0 + (sum of the k largest g_i)`` at EVERY
interior ``z0`` (the Frank-Wolfe bound): no convergence is needed for validity, only an exact
``w`` (a Cholesky solve; a relative slack covers its rounding). With ``P = 0`` this is the
perspective bound ``g(v)`` of :mod:`._perspective` at ``v = w``.

The decomposition is the dual of the semidefinite relaxation in the extended space of
Atamtürk and Gómez ("Rank-one convexification for sparse regression", JMLR 2025):

    max 2 a^T w - <B, W>  s.t.  [[1, w^T], [w, W]] PSD,  [[z_i, w_i], [w_i, W_ii]] PSD,
        [[t_b, w_i, w_j], [w_i, W_ii, W_ij], [w_j, W_ij, W_jj]] PSD,  t_b <= 1,  t_b <= z_i + z_j,
        sum z = k,  0 <= z <= 1,

solved by the interior-point conic solver Clarabel (Goulart and Chen, "Clarabel: an
interior-point solver for conic programs with quadratic objectives", 2024), an optional
dependency (``pip install pixsel[conic]``). Its dual multipliers of the small cones give ``d``
and ``P``; ``C = B - diag(d) - sum P`` is then scaled back into the PSD cone (checked by a
Cholesky factorization) and the bound is evaluated by the formula above, so an inexact or early
solve still yields a certified bound, only a looser one. Without the pair cones the relaxation is
the perspective relaxation with the best diagonal (Dong, Chen and Linderoth, "Regularization vs.
relaxation: a conic optimization perspective of statistical variable selection", 2015).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

__all__ = ["mixed_split_bound", "pair_bound", "sdp_decomposition", "sdp_root_bound", "strongest_pairs"]

#: relative shrink onto the PSD cone, slack on the bound, floor on z in the ascent
_MARGIN = 1e-7
_SLACK = 1e-9
_ZMIN = 1e-7


def _need_clarabel():
    try:
        import clarabel
    except ImportError:
        raise ImportError(
            "The semidefinite root bound needs the optional conic solver Clarabel. Install it with "
            "`pip install pixsel[conic]` (or `pip install clarabel`)."
        ) from None
    return clarabel


def strongest_pairs(B, per_feature=4):
    """The pairs ``(i, j)``, ``i < j``, of each feature with its ``per_feature`` most correlated others.

    Parameters
    ----------
    B : ndarray of shape (p, p)
        Symmetric positive definite.
    per_feature : int
        Partners per feature (the union over features is returned, without duplicates).

    Returns
    -------
    ndarray of shape (m, 2)
    """
    B = np.asarray(B, dtype=np.float64)
    p = B.shape[0]
    s = 1.0 / np.sqrt(np.diag(B))
    R = np.abs(B * s[:, None] * s[None, :])
    np.fill_diagonal(R, -np.inf)
    m = min(int(per_feature), p - 1)
    if m <= 0:
        return np.zeros((0, 2), dtype=np.intp)
    part = np.argpartition(-R, m - 1, axis=1)[:, :m]
    rows = np.repeat(np.arange(p), m)
    cols = part.ravel()
    pairs = np.stack([np.minimum(rows, cols), np.maximum(rows, cols)], axis=1)
    return np.unique(pairs, axis=0)


def _check_pairs(pairs, p):
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    if pairs.size and (pairs.min() < 0 or pairs.max() >= p or np.any(pairs[:, 0] == pairs[:, 1])):
        raise ValueError(f"pairs must hold two different feature indices in [0, {p}) per row.")
    return pairs


def _sdp_problem(a, B, k, pairs):
    """Clarabel's data ``(P, q, A, b, cones)`` and the row offsets of the small cones."""
    import scipy.sparse as sp

    clarabel = _need_clarabel()
    p = a.size
    m = len(pairs)
    iu_r, iu_c = np.triu_indices(p)
    widx = np.full((p, p), -1, dtype=np.intp)
    widx[iu_r, iu_c] = p + np.arange(iu_r.size)
    widx[iu_c, iu_r] = widx[iu_r, iu_c]
    nz0 = p + iu_r.size
    zi = nz0 + np.arange(p)
    ti = nz0 + p + np.arange(m)
    n = nz0 + p + m
    q = np.zeros(n)
    q[:p] = -2.0 * a
    q[p:nz0] = np.where(iu_r == iu_c, 1.0, 2.0) * B[iu_r, iu_c]

    rows, cols, vals, b = [], [], [], []

    def row(entries, const):
        r = len(b)
        for j, v in entries:
            rows.append(r)
            cols.append(j)
            vals.append(v)
        b.append(const)

    # s = b - A x: a constraint "expr in K" with expr = const + sum coef x_j is row(-coef, const)
    row([(j, 1.0) for j in zi], float(k))  # zero cone: k - sum z = 0
    for j in zi:  # z >= 0
        row([(j, -1.0)], 0.0)
    for j in zi:  # 1 - z >= 0
        row([(j, 1.0)], 1.0)
    for t in ti:  # 1 - t >= 0
        row([(t, 1.0)], 1.0)
    for (i, j), t in zip(pairs, ti):  # z_i + z_j - t >= 0
        row([(zi[i], -1.0), (zi[j], -1.0), (t, 1.0)], 0.0)

    r2 = np.sqrt(2.0)

    def psd(M):
        """``M``: square list of entries, each ``('c', value)`` or a variable index."""
        start = len(b)
        dim = len(M)
        for c in range(dim):
            for r in range(c + 1):
                sc = 1.0 if r == c else r2
                e = M[r][c]
                if isinstance(e, tuple):
                    row([], sc * e[1])
                else:
                    row([(int(e), -sc)], 0.0)
        return start

    big = [[("c", 1.0)] + [int(j) for j in range(p)]]
    for i in range(p):
        big.append([i] + [int(widx[i, j]) for j in range(p)])
    psd(big)
    small = [psd([[zi[i], i], [i, widx[i, i]]]) for i in range(p)]
    pair_rows = [psd([[t, i, j], [i, widx[i, i], widx[i, j]], [j, widx[i, j], widx[j, j]]])
                 for (i, j), t in zip(pairs, ti)]
    A = sp.csc_matrix((vals, (rows, cols)), shape=(len(b), n))
    cones = ([clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(2 * p + 2 * m), clarabel.PSDTriangleConeT(p + 1)]
             + [clarabel.PSDTriangleConeT(2)] * p + [clarabel.PSDTriangleConeT(3)] * m)
    return sp.csc_matrix((n, n)), q, A, np.asarray(b), cones, small, pair_rows, zi


def sdp_decomposition(a, B, k, pairs=None, *, max_iter=100, tol=1e-7, time_limit=None):
    """``d`` and the pair blocks ``P`` from the semidefinite relaxation (needs Clarabel).

    Parameters
    ----------
    a : ndarray of shape (p,)
    B : ndarray of shape (p, p)
        Symmetric positive definite.
    k : int
        The support size the relaxation is solved at (the decomposition bounds every size).
    pairs : ndarray of shape (m, 2) or None
        The pairs given a rank-one (pairwise) cone; default :func:`strongest_pairs` ``(B, 4)``.
        An empty array gives the perspective relaxation with the best diagonal.
    max_iter, tol, time_limit :
        Clarabel's iteration limit, gap and feasibility tolerances and time limit (seconds); a
        stopped solve still gives a valid decomposition.

    Returns
    -------
    d : ndarray of shape (p,)
    pairs : ndarray of shape (m, 2)
    P : ndarray of shape (m, 2, 2)
        Not yet scaled into the cone: :func:`pair_bound` does that.
    info : dict
        ``status`` (Clarabel's), ``relaxation`` (its primal objective), ``z`` (its primal ``z``).
    """
    clarabel = _need_clarabel()
    a = np.asarray(a, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    pairs = strongest_pairs(B) if pairs is None else _check_pairs(pairs, a.size)
    Pm, q, A, b, cones, small, pair_rows, zi = _sdp_problem(a, B, int(k), pairs)
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.max_iter = int(max_iter)
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = float(tol)
    if time_limit is not None:
        settings.time_limit = float(time_limit)
    sol = clarabel.DefaultSolver(Pm, q, A, b, cones, settings).solve()
    y = np.asarray(sol.z)
    x = np.asarray(sol.x)
    d = np.array([y[r + 2] for r in small])
    P = np.array([[[y[r + 2], y[r + 4] / np.sqrt(2.0)], [y[r + 4] / np.sqrt(2.0), y[r + 5]]] for r in pair_rows])
    return d, pairs, P.reshape(-1, 2, 2), {"status": str(sol.status), "relaxation": -float(sol.obj_val),
                                           "z": x[zi]}


def _valid_split(B, d, pairs, P):
    """``(d, P, C)`` with ``d >= 0``, each ``P_b`` PSD and ``C = B - diag(d) - sum P`` positive definite."""
    p = B.shape[0]
    d = np.maximum(np.asarray(d, dtype=np.float64), 0.0)
    P = np.asarray(P, dtype=np.float64).reshape(-1, 2, 2)
    if P.size:
        ev, V = np.linalg.eigh((P + P.transpose(0, 2, 1)) / 2)
        P = np.einsum("bij,bj,bkj->bik", V, np.maximum(ev, 0.0), V)
    K = np.diag(d)
    for (i, j), Pb in zip(pairs, P):
        K[np.ix_([i, j], [i, j])] += Pb
    L = np.linalg.cholesky(B)
    X = sla.solve_triangular(L, sla.solve_triangular(L, K, lower=True).T, lower=True)
    mu = float(np.linalg.eigvalsh((X + X.T) / 2)[-1])
    t = 1.0 if mu <= 0 else min(1.0, (1.0 - _MARGIN) / mu)
    while True:
        C = B - t * K
        try:
            np.linalg.cholesky(C)
            break
        except np.linalg.LinAlgError:  # pragma: no cover - rounding only
            t *= 1.0 - 1e3 * _MARGIN
    assert C.shape == (p, p)
    return t * d, t * P, C


def _project_capped(y, k, lo):
    """Euclidean projection onto ``{z in [lo, 1]^n, sum z = k}`` (bisection on the shift)."""
    a, b = float(y.min()) - 1.0, float(y.max())
    buf = np.empty_like(y, dtype=np.float64)
    for _ in range(100):
        tau = (a + b) / 2
        if not a < tau < b:  # a and b adjacent doubles: the rest of the loop leaves (a + b) / 2 at tau
            break
        np.subtract(y, tau, out=buf)  # clip(y - tau, lo, 1) without np.clip's call overhead
        np.maximum(buf, lo, out=buf)
        np.minimum(buf, 1.0, out=buf)
        if np.add.reduce(buf) > k:  # buf.sum(), without its wrapper
            a = tau
        else:
            b = tau
    z = np.clip(y - (a + b) / 2, lo, 1.0)
    free = (z > lo) & (z < 1.0)
    if np.any(free):
        z[free] += (k - z.sum()) / np.count_nonzero(free)
    return np.clip(z, lo, 1.0)


class _Relaxation:
    """``h(z)``, its maximizer ``w`` and a supergradient, for a fixed valid split."""

    def __init__(self, a, C, d, pairs, P):
        self.a, self.C, self.d, self.P = a, C, d, P
        self.i, self.j = (pairs[:, 0], pairs[:, 1]) if len(pairs) else (np.zeros(0, int), np.zeros(0, int))

    def __call__(self, z):
        s = np.minimum(1.0, z[self.i] + z[self.j])
        M = self.C + np.diag(self.d / z)
        Ps = self.P / s[:, None, None]
        np.add.at(M, (self.i, self.i), Ps[:, 0, 0])
        np.add.at(M, (self.j, self.j), Ps[:, 1, 1])
        np.add.at(M, (self.i, self.j), Ps[:, 0, 1])
        np.add.at(M, (self.j, self.i), Ps[:, 1, 0])
        w = sla.cho_solve(sla.cho_factor(M, lower=True, check_finite=False), self.a, check_finite=False)
        h = float(self.a @ w)
        g = self.d * w * w / (z * z)
        wi, wj = w[self.i], w[self.j]
        quad = self.P[:, 0, 0] * wi * wi + 2 * self.P[:, 0, 1] * wi * wj + self.P[:, 1, 1] * wj * wj
        slope = np.where(z[self.i] + z[self.j] < 1.0, quad / (s * s), 0.0)
        np.add.at(g, self.i, slope)
        np.add.at(g, self.j, slope)
        return h, g, w


def _frank_wolfe(h, g, z, k):
    return h - float(g @ z) + float(np.partition(g, g.size - k)[g.size - k :].sum())


def pair_bound(a, B, k, d, pairs, P, *, iters=100, z0=None):
    """Certified upper bound on ``max a_S^T B_SS^{-1} a_S`` over ``|S| = k`` from a split of ``B``.

    Valid for ANY ``d >= 0`` and PSD 2 x 2 blocks ``P`` on ``pairs``: the split is first scaled so
    that ``C = B - diag(d) - sum P`` is positive definite, then projected gradient ascent on the
    concave ``h`` tracks the smallest Frank-Wolfe bound (see the module's notes).

    Parameters
    ----------
    a : ndarray of shape (p,)
    B : ndarray of shape (p, p)
    k : int
        ``1 <= k <= p``.
    d : ndarray of shape (p,)
    pairs : ndarray of shape (m, 2)
    P : ndarray of shape (m, 2, 2)
    iters : int
        Ascent steps (the bound is valid after any number).
    z0 : ndarray of shape (p,) or None
        Where the ascent starts (e.g. the semidefinite relaxation's ``z``); default ``k / p``.

    Returns
    -------
    bound : float
    info : dict
        ``relaxation`` (the largest ``h`` reached: a lower bound on the relaxation's value),
        ``z``, ``d``, ``P`` (the scaled split).
    """
    a = np.asarray(a, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    p = a.size
    k = int(k)
    if not 1 <= k <= p:
        raise ValueError(f"k must be between 1 and p = {p}; got k = {k}.")
    pairs = _check_pairs(pairs, p)
    if np.shape(d) != (p,) or np.size(P) != 4 * len(pairs):
        raise ValueError(f"d must have shape ({p},) and P shape ({len(pairs)}, 2, 2), one block per pair.")
    d, P, C = _valid_split(B, d, pairs, P)
    # a little of the diagonal split keeps every d_i > 0 (a convex combination of valid splits)
    d0 = np.diag(B) * 1e-9
    C = C - np.diag(d0)
    if np.any(np.linalg.eigvalsh(C)[:1] <= 0):
        C = C + np.diag(d0)
        d0 = np.zeros(p)
    d = d + d0
    rel = _Relaxation(a, C, d, pairs, P)
    lo = min(_ZMIN, k / p)
    z = _project_capped(np.full(p, k / p) if z0 is None else np.asarray(z0, dtype=np.float64), k, lo)
    h, g, _ = rel(z)
    best, hbest = _frank_wolfe(h, g, z, k), h
    if k < p:
        eta = 0.5 / max(float(g.max()), np.finfo(float).tiny)
        for _ in range(iters):
            while True:
                zn = _project_capped(z + eta * g, k, lo)
                hn, gn, _ = rel(zn)
                if hn >= h or eta < 1e-14:
                    break
                eta *= 0.5
            z, h, g = zn, hn, gn
            eta *= 1.5
            hbest = max(hbest, h)
            best = min(best, _frank_wolfe(h, g, z, k))
            if best - hbest <= 1e-9 * abs(best):
                break
    return best * (1.0 + _SLACK) + _SLACK, {"relaxation": hbest, "z": z, "d": d, "P": P}


def mixed_split_bound(a, B, k, d, pairs, P, *, weights=(0.0, 0.25, 0.5, 0.75, 1.0), iters=100, z0=None):
    """The smallest :func:`pair_bound` over the splits ``t * (d, P) + (1 - t) * (d0, 0)``, ``t`` in ``weights``.

    ``d0`` is the perspective bound's diagonal (:func:`pixsel.spectral.bounds.perspective_diagonal`).
    A convex combination of valid splits is a valid split, so every one gives a certified bound;
    this adapts a split solved at one size to the others (a split is tuned to the size it was
    solved at, and at a distant size it can be weaker than the plain diagonal).

    Returns
    -------
    bound : float
    t : float
        The weight that gave it.
    """
    from ._perspective import perspective_diagonal

    B = np.asarray(B, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    P = np.asarray(P, dtype=np.float64).reshape(-1, 2, 2)
    d0 = perspective_diagonal(B)
    best, tbest = np.inf, None
    for t in weights:
        b, _ = pair_bound(a, B, k, t * d + (1 - t) * d0, pairs, t * P, iters=iters, z0=z0 if t == 1 else None)
        if b < best:
            best, tbest = b, float(t)
    return best, tbest


def sdp_root_bound(a, B, k, *, pairs=None, iters=100, solver_options=None):
    """The rank-one convexification bound at the root (no fixed variables); needs Clarabel.

    The smaller of this split's :func:`pair_bound` and the perspective bound with its default
    diagonal, so it is never weaker than :func:`pixsel.spectral.bounds.perspective_bound`.

    Parameters
    ----------
    a : ndarray of shape (p,)
    B : ndarray of shape (p, p)
        Symmetric positive definite.
    k : int
        ``1 <= k <= p``.
    pairs : ndarray of shape (m, 2) or None
        See :func:`sdp_decomposition`.
    iters : int
        Ascent steps of :func:`pair_bound`.
    solver_options : dict or None
        ``max_iter``, ``tol``, ``time_limit`` of :func:`sdp_decomposition`.

    Returns
    -------
    bound : float
    info : dict
        ``pair`` (the split's bound), ``perspective`` (the perspective bound), ``sdp`` (the solver's
        ``status`` and ``relaxation``), ``d``, ``pairs``, ``P``.
    """
    from ._perspective import perspective_bound

    a = np.asarray(a, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    p = a.size
    if not 1 <= int(k) <= p:
        raise ValueError(f"k must be between 1 and p = {p}; got k = {k}.")
    d, pairs, P, sdp = sdp_decomposition(a, B, k, pairs, **(solver_options or {}))
    pb, info = pair_bound(a, B, k, d, pairs, P, iters=iters, z0=sdp["z"])
    persp, _ = perspective_bound(a, B, k, iters=iters)
    return min(pb, persp), {"pair": pb, "perspective": persp, "sdp": {k_: sdp[k_] for k_ in ("status", "relaxation")},
                            "d": info["d"], "pairs": pairs, "P": info["P"]}
