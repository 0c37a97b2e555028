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

Nothing in the split depends on ``k``: one solve gives a certified bound at EVERY size (tightest
near the size it was solved at; :func:`mixed_split_bound` mixes it with the perspective diagonal
for the others). :func:`pixsel.spectral.exact_path` with ``bounds='sdp'`` uses it so, to cap the
sizes its search leaves open.

Node version (``I`` fixed in, ``O`` fixed out, ``U`` the allowed variables): every support ``S``
with ``I <= S <= U`` has ``w`` zero off ``U``, so only ``C_UU`` (a principal submatrix of a PSD
matrix, hence PSD), ``d_U`` and the blocks meet it; a block with one end ``j`` outside ``U``
contributes ``P_b[ii] w_i^2`` with ``s_b = min(1, z_i + 0) = z_i``: exactly a perspective term,
so its entry joins ``d_i``. The same argument on ``U`` with ``z_i = 1`` on ``I`` (its terms are
then exact) gives ``max h`` over ``{z_I = 1, z_free in [0, 1], sum z_free = k - |I|}`` as the
bound, and the Frank-Wolfe bound at any ``z0`` counts ``g`` on ``I`` and the ``k - |I|`` largest
free ``g``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ._perspective import _node_sets

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
    """Euclidean projection onto ``{z in [lo, 1]^n, sum z = k}``, ``n lo <= k <= n``.

    ``z = lo + (1 - lo) u`` maps the set onto ``{u in [0, 1]^n, sum u = (k - n lo) / (1 - lo)}``
    and, being a uniform scaling plus a shift, maps projections onto projections: the sort-based
    projection of :mod:`._perspective` (exact, no bisection) does the rest.
    """
    from ._perspective import _project_capped_simplex

    n = y.size
    kk = min(max((k - n * lo) / (1.0 - lo), 0.0), float(n))
    u = _project_capped_simplex((np.asarray(y, dtype=np.float64) - lo) / (1.0 - lo), kk)
    return np.clip(lo + (1.0 - lo) * u, lo, 1.0)


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


def _restrict_split(d, pairs, P, C, U):
    """The split on the allowed variables ``U`` (sorted): ``C_UU``, ``d_U`` plus the in-``U`` diagonal
    entry of every block with one end outside ``U`` (there ``w`` vanishes on the other end, so
    ``w_b^T P_b w_b / s_b = P_b[ii] w_i^2 / z_i``: a diagonal term), and the blocks inside ``U``
    (re-indexed). ``C_UU`` is a principal submatrix of a PSD matrix, so the split stays valid."""
    p = d.size
    pos = np.full(p, -1, dtype=np.intp)
    pos[U] = np.arange(U.size)
    dU = d[U].copy()
    keep = []
    for b, (i, j) in enumerate(pairs):
        if pos[i] >= 0 and pos[j] >= 0:
            keep.append(b)
        elif pos[i] >= 0:
            dU[pos[i]] += P[b, 0, 0]
        elif pos[j] >= 0:
            dU[pos[j]] += P[b, 1, 1]
    keep = np.asarray(keep, dtype=np.intp)
    pairsU = pos[pairs[keep]].reshape(-1, 2) if keep.size else np.zeros((0, 2), dtype=np.intp)
    return dU, pairsU, P[keep].reshape(-1, 2, 2), C[np.ix_(U, U)]


def pair_bound(a, B, k, d, pairs, P, *, iters=100, z0=None, fixed_in=None, allowed=None):
    """Certified upper bound on ``max a_S^T B_SS^{-1} a_S`` over ``|S| = k`` from a split of ``B``.

    Valid for ANY ``d >= 0`` and PSD 2 x 2 blocks ``P`` on ``pairs``: the split is first scaled so
    that ``C = B - diag(d) - sum P`` is positive definite, then projected gradient ascent on the
    concave ``h`` tracks the smallest Frank-Wolfe bound (see the module's notes).

    Node version (``fixed_in`` ``I``, ``allowed`` ``U``): the split restricted to ``U`` (a block
    with one end outside ``U`` acts on the other end as a diagonal term, since ``w`` vanishes off
    ``U``), ``z_i = 1`` on ``I`` and the ascent over the free variables with ``sum z = k - |I|``;
    the Frank-Wolfe bound counts ``g`` on ``I`` and the ``k - |I|`` largest free ``g``.

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
        Where the ascent starts (e.g. the semidefinite relaxation's ``z``, or at a node its
        parent's ``z``: a warm start); default ``k / p``, at a node ``(k - |fixed_in|)`` over the
        free allowed features. At a node only its entries on the free allowed features are read,
        projected onto the node's set.
    fixed_in : array-like of int or None
        Variables every support must hold.
    allowed : array-like of int or None
        The variables supports may use (default all); ``fixed_in`` must lie inside.

    Returns
    -------
    bound : float
        ``>= max f(S)`` over the supports of size ``k`` with ``fixed_in <= S <= allowed``.
    info : dict
        ``relaxation`` (the largest ``h`` reached: a lower bound on the relaxation's value),
        ``z`` (zero outside ``allowed``), ``d``, ``P`` (the scaled split, on all variables).
    """
    a = np.asarray(a, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    p = a.size
    k = int(k)
    pairs = _check_pairs(pairs, p)
    if np.shape(d) != (p,) or np.size(P) != 4 * len(pairs):
        raise ValueError(f"d must have shape ({p},) and P shape ({len(pairs)}, 2, 2), one block per pair.")
    U, inn = _node_sets(p, fixed_in, allowed)
    if not max(1, int(np.count_nonzero(inn))) <= k <= U.size:
        raise ValueError(f"k must be between max(1, |fixed_in|) and |allowed| = {U.size}; got k = {k}.")
    d, P, C = _valid_split(B, d, pairs, P)
    dfull, Pfull = d, P
    node = U.size < p or np.any(inn)
    if node:
        d, pairs, P, C = _restrict_split(d, pairs, P, C, U)
        aU, fixed = a[U], inn[U]
    else:
        aU, fixed = a, inn
    n = aU.size
    free = ~fixed
    kf = k - int(np.count_nonzero(fixed))
    nf = int(np.count_nonzero(free))
    # a little of the diagonal split keeps every d_i > 0 (a convex combination of valid splits)
    d0 = np.diag(C) * 1e-9 if node else np.diag(B) * 1e-9
    C = C - np.diag(d0)
    if np.any(np.linalg.eigvalsh(C)[:1] <= 0):
        C = C + np.diag(d0)
        d0 = np.zeros(n)
    d = d + d0
    rel = _Relaxation(aU, C, d, pairs, P)
    lo = min(_ZMIN, kf / nf) if kf > 0 else _ZMIN  # kf = 0: z tiny on the free variables
    z = np.ones(n)
    if nf:
        if z0 is None:
            start = np.full(nf, kf / nf)
        else:
            z0 = np.asarray(z0, dtype=np.float64)
            if z0.shape != (p,):
                raise ValueError(f"z0 must have shape ({p},) (a value per feature); got {z0.shape}.")
            start = z0[U][free] if node else z0
        z[free] = _project_capped(start, kf, lo) if kf > 0 else lo

    def fw(h, g, z):
        top = float(g[fixed].sum())
        if 0 < kf < nf:
            gf = g[free]
            top += float(np.partition(gf, nf - kf)[nf - kf :].sum())
        elif kf >= nf:
            top += float(g[free].sum())
        return h - float(g @ z) + top

    h, g, _ = rel(z)
    best, hbest = fw(h, g, z), h
    if 0 < kf < nf:
        eta = 0.5 / max(float(g[free].max()), np.finfo(float).tiny)
        for _ in range(iters):
            while True:
                zn = z.copy()
                zn[free] = _project_capped(z[free] + eta * g[free], kf, lo)
                hn, gn, _ = rel(zn)
                if hn >= h or eta < 1e-14:
                    break
                eta *= 0.5
            z, h, g = zn, hn, gn
            eta *= 1.5
            hbest = max(hbest, h)
            best = min(best, fw(h, g, z))
            if best - hbest <= 1e-9 * abs(best):
                break
    zz = np.zeros(p)
    zz[U] = z
    return best * (1.0 + _SLACK) + _SLACK, {"relaxation": hbest, "z": zz, "d": dfull, "P": Pfull}


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
