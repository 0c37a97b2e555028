"""Upper bounds on sparse PCA, ``max lambda_max(A_SS)`` over ``|S| = k``, for one search node.

A node of the branch and bound is ``(F, C)``: every support ``S`` of its subtree satisfies
``F <= S <= C`` (``F`` fixed in, ``C`` the candidates). Every function here returns a number
that is never below ``max {lambda_max(A_SS) : |S| = k, F <= S <= C}`` (up to the relative
``1e-10`` slack added for rounding); the tests check each one against brute force. They are
plain functions (arrays in, floats or arrays out) so that every search can use them.

Row bounds (:func:`row_bound`, ``O(|C|^2)``; :func:`row_bounds_path`, every ``k`` at once):

* Gershgorin: ``lambda_max(A_SS) <= max_{i in S} (A_ii + sum_{j in S, j != i} |A_ij|)``; with
  ``S`` unknown, row ``i`` gets its entries in ``F`` and the ``k - |F|`` (``- 1`` when ``i`` is
  not in ``F``) largest ``|A_ij|`` among the free candidates;
* Frobenius: ``lambda_max(A_SS) <= ||A_SS||_F``, bounded by the same per-row choice of squares
  and the ``k - |F|`` largest row totals among the free candidates;
* trace (``A`` positive semidefinite only): the sum of ``A_ii`` over ``F`` and the ``k - |F|``
  largest free ``A_ii``.

The semidefinite relaxation of d'Aspremont, El Ghaoui, Jordan and Lanckriet (SIAM Review 2007),
``max Tr(A X)`` s.t. ``Tr X = 1``, ``1^T |X| 1 <= k``, ``X >= 0``, contains ``x x^T`` for every
unit ``x`` with ``k`` nonzeros (``||x||_1^2 <= k``). Weak duality gives, for *every* symmetric
``U``, ``Tr(A X) = Tr((A - U) X) + Tr(U X) <= lambda_max(A - U) + k ||U||_max``. Taking the
diagonal of ``U`` equal to ``||U||_max`` (never worse: it lowers ``lambda_max`` by exactly that
amount) leaves, for an off-diagonal symmetric ``Z`` (:func:`sdp_dual_value`)::

    opt(k) <= lambda_max(A - Z) + (k - 1) ||Z||_max,

so *every* ``Z`` certifies a bound: no solver has to converge for the value to be valid.
:func:`sdp_dual_bound` minimizes it over ``Z``, first over the soft-thresholding family
``Z = clip(A_offdiag, -rho, rho)`` (a scalar search), then by an accelerated proximal gradient
method on the entropy-smoothed ``lambda_max`` (Nesterov 2005, as d'Aspremont et al. solve the
relaxation) with the prox of ``(k - 1) ||.||_max``; the bound reported is the smallest exact
value met. A ``Z`` found at one node remains a certificate for every node below it: on a
candidate set ``C`` the bound is ``lambda_max((A - Z)_CC) + (k - 1) ||Z_CC||_max`` (Cauchy
interlacing), which a search tests by one Cholesky factorization.

For a general positive definite ``B``, ``lambda_max(A_SS, B_SS) <= b / lambda_min(B)`` for any
bound ``b >= 0`` on ``lambda_max(A_SS)`` (``b / lambda_max(B)`` when ``b < 0``):
:func:`generalize`.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg as sla

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

__all__ = [
    "row_bound",
    "RowTable",
    "row_bounds_path",
    "sdp_dual_value",
    "sdp_dual_bound",
    "sdp_bounds_path",
    "spca_bounds_path",
    "generalize",
    "top_eigenvalue_bound",
    "top_eigenpair_bound",
    "accelerated_dual",
]

_SLACK = 1e-10


def _inflate(value, scale):
    """``value`` raised by the rounding slack (relative to ``scale``, the matrix's magnitude)."""
    return float(value + _SLACK * (abs(value) + scale))


_DENSE_MAX = 256  # up to this size lambda_max by dense LAPACK, above by Lanczos + Cholesky


def top_eigenvalue_bound(M):
    """A certified upper bound on the largest eigenvalue of a symmetric ``M``.

    Small ``M``: dense LAPACK (accurate to ``O(n eps ||M||)``, covered by the callers' slack).
    Large ``M``: a Lanczos estimate ``theta`` (never above ``lambda_max``), raised until the
    Cholesky factorization of ``tau I - M`` succeeds, which proves ``lambda_max(M) < tau``;
    dense LAPACK when that fails three times.
    """
    return top_eigenpair_bound(M, vector=False)[0]


def top_eigenpair_bound(M, vector=True, cap=math.inf):
    """:func:`top_eigenvalue_bound` and (``vector=True``) a unit eigenvector estimate of the
    largest eigenvalue (exact to rounding where dense LAPACK answered, else Lanczos's); with
    ``vector=False`` the vector is None.

    ``cap``: a bound the caller already holds. Where Lanczos's estimate, never above
    ``lambda_max(M)``, reaches it, no certified bound could be lower: the proof is skipped and
    the bound returned is ``inf``."""
    n = M.shape[0]

    def dense():
        if not vector:
            return float(sla.eigh(M, eigvals_only=True, subset_by_index=[n - 1, n - 1], check_finite=False)[0]), None
        w, V = sla.eigh(M, subset_by_index=[n - 1, n - 1], check_finite=False)
        return float(w[0]), V[:, 0]

    if n <= _DENSE_MAX:
        return dense()
    from scipy.sparse.linalg import eigsh

    out = eigsh(M, k=1, which="LA", tol=1e-10, v0=np.ones(n), return_eigenvectors=vector)
    theta, v = (float(out[0][0]), out[1][:, 0]) if vector else (float(out[0]), None)
    if theta >= cap:
        return math.inf, v
    scale = float(np.abs(np.diag(M)).max()) + abs(theta) + 1e-300
    step = 1e-9 * scale
    for _ in range(3):
        tau = theta + step
        T = -M
        T[np.diag_indices(n)] += tau
        try:
            sla.cholesky(T, lower=True, check_finite=False, overwrite_a=True)
            return tau, v
        except np.linalg.LinAlgError:
            step *= 100
    return dense()


def _top_eigs(M, m):
    """The ``m`` largest eigenpairs of ``M`` (ascending), dense for small ``M``, else Lanczos."""
    n = M.shape[0]
    if n <= _DENSE_MAX or m >= n - 1:
        w, V = np.linalg.eigh(M)
        return w[-m:], V[:, -m:]
    from scipy.sparse.linalg import eigsh

    w, V = eigsh(M, k=m, which="LA", tol=1e-8, v0=np.ones(n))
    o = np.argsort(w)
    return w[o], V[:, o]


def generalize(bound: float, lmin_B: float, lmax_B: float) -> float:
    """A bound on ``lambda_max(A_SS, B_SS)`` from a bound on ``lambda_max(A_SS)``.

    ``lambda_max(A_SS, B_SS) = max x^T A x / x^T B x``; with ``lambda_min(B) <= x^T B x / x^T x
    <= lambda_max(B)`` (interlacing on ``B_SS``) it is at most ``bound / lambda_min(B)`` when
    ``bound >= 0`` and at most ``bound / lambda_max(B)`` when ``bound < 0``.

    Examples
    --------
    >>> generalize(2.0, 0.5, 4.0), generalize(-2.0, 0.5, 4.0)
    (4.0, -0.5)
    """
    return bound / lmin_B if bound >= 0 else bound / lmax_B


def _as_indices(subset):
    """The feature indices of ``subset``, an array of int or a boolean mask."""
    subset = np.asarray(subset)
    return np.flatnonzero(subset) if subset.dtype == bool else subset.astype(np.intp)


def _path_sizes(A, max_k):
    """``A`` as float64, its size ``p`` and the largest size of a path over it (``max_k``, default ``p``)."""
    A = np.asarray(A, dtype=np.float64)
    p = A.shape[0]
    return A, p, p if max_k is None else int(max_k)


def _node(p, k, candidates, fixed):
    C = np.arange(p) if candidates is None else _as_indices(candidates)
    if fixed is None:
        inF = np.zeros(len(C), bool)
    else:
        Fidx = _as_indices(fixed)
        inF = np.isin(C, Fidx)
        if inF.sum() != len(Fidx):
            raise ValueError("fixed must be a subset of candidates; pass the node's (F, C) with F <= C.")
    m = int(inF.sum())
    if not m <= k <= len(C):
        raise ValueError(f"the node has {m} fixed and {len(C)} candidate features: no support of size {k} fits.")
    return C, inF, m


def row_bound(
    A: ArrayLike, k: int, *, candidates: ArrayLike | None = None, fixed: ArrayLike | None = None,
    psd: bool | None = None,
) -> float:
    """Gershgorin, Frobenius and trace bounds on ``lambda_max(A_SS)``, ``|S| = k``, ``F <= S <= C``.

    Parameters
    ----------
    A : ndarray of shape (p, p)
        Symmetric.
    k : int
    candidates : array of int or bool mask, or None
        ``C`` (default: all features).
    fixed : array of int or bool mask, or None
        ``F``, a subset of ``C`` (default: empty).
    psd : bool or None
        Whether ``A`` is positive semidefinite (enables the trace bound); None: checked.

    Returns
    -------
    float
        The smallest of the bounds (inflated by the rounding slack).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    >>> round(row_bound(A, 2), 6)  # the optimum is 3 ({0, 1})
    3.0
    """
    A = np.asarray(A, dtype=np.float64)
    p = A.shape[0]
    C, inF, m = _node(p, k, candidates, fixed)
    if psd is None:
        psd = bool(np.linalg.eigvalsh(A)[0] >= -1e-12 * max(np.abs(A).max(), 1e-300))
    return RowTable(A, C, k, psd).bound(inF)


class RowTable:
    """:func:`row_bound`'s work that depends on ``(A, C)`` alone, for many nodes with the same
    candidates ``C`` and any ``F`` (a depth-first dive fixes features in and keeps ``C``).

    A row of ``|A_CC|`` needs at most its ``k - |F|`` largest entries outside ``F`` and off its
    own diagonal, hence among its ``k + 1`` largest entries: these are sorted once, here, and
    each :meth:`bound` reads the first ones that are free, in the same descending order, so it
    returns what the row bound computed from scratch returns."""

    def __init__(self, A, C, k, psd):
        self.k = k
        self.psd = psd
        self.sub = sub = np.abs(A[np.ix_(C, C)])
        self.d = np.diag(A)[C]
        n = len(C)
        self.scale = float(np.abs(self.d).max()) if n else 0.0
        w = min(k + 1, n)
        if w < n:
            idx = np.argpartition(-sub, w - 1, axis=1)[:, :w]
        else:
            idx = np.broadcast_to(np.arange(n), (n, n))
        vals = np.take_along_axis(sub, idx, axis=1)
        order = np.argsort(-vals, axis=1, kind="stable")
        self.top_idx = np.take_along_axis(idx, order, axis=1)
        self.top_vals = np.take_along_axis(vals, order, axis=1)

    def bound(self, inF):
        """The row bound at the node whose fixed features are ``C[inF]`` (``inF`` a mask over ``C``)."""
        sub, d, k = self.sub, self.d, self.k
        n = len(d)
        m = int(np.count_nonzero(inF))
        t = k - m  # free slots
        fsum = sub[:, inF].sum(axis=1)
        fsq = (sub[:, inF] ** 2).sum(axis=1)
        # rows in F counted their own diagonal among the fixed columns: take it back out
        fsum[inF] -= np.abs(d[inF])
        fsq[inF] -= d[inF] ** 2
        free = ~inF
        if t > 0 and n > m:
            tt = min(t, n - m)
            # a row's candidates: its entries in free columns off its own diagonal (which would
            # count 0, so can only fill slots that zeros fill anyway), the first tt of them in the
            # table's descending order
            keep = free[self.top_idx] & (self.top_idx != np.arange(n)[:, None])
            rank = np.cumsum(keep, axis=1)
            r, c = np.nonzero(keep & (rank <= tt))
            top = np.zeros((n, tt))
            top[r, rank[r, c] - 1] = self.top_vals[r, c]
            cs = np.concatenate([np.zeros((n, 1)), np.cumsum(top, axis=1)], axis=1)
            cs2 = np.concatenate([np.zeros((n, 1)), np.cumsum(top**2, axis=1)], axis=1)
            slots = np.where(inF, t, t - 1).clip(0, tt)
            g = cs[np.arange(n), slots]
            g2 = cs2[np.arange(n), slots]
        else:
            g = g2 = np.zeros(n)
        gersh_rows = d + fsum + g
        fro_rows = d**2 + fsq + g2
        if t > 0:
            # rows in S: every row in F and t free rows
            gersh = float(gersh_rows.max())
            fro_free = np.sort(fro_rows[free])[::-1][:t].sum()
        else:
            gersh = float(gersh_rows[inF].max())
            fro_free = 0.0
        fro = math.sqrt(max(float(fro_rows[inF].sum() + fro_free), 0.0))
        best = min(gersh, fro)
        if self.psd:
            tr = float(d[inF].sum() + (np.sort(d[free])[::-1][:t].sum() if t > 0 else 0.0))
            best = min(best, tr)
        return _inflate(best, self.scale)


def row_bounds_path(A: ArrayLike, max_k: int | None = None, *, psd: bool | None = None) -> np.ndarray:
    """:func:`row_bound` at the root (``F`` empty, ``C`` all) for every ``k = 1..max_k``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    >>> row_bounds_path(A).round(6).tolist()
    [2.0, 3.0, 3.0]
    """
    A, p, max_k = _path_sizes(A, max_k)
    d = np.diag(A)
    off = np.abs(A)
    np.fill_diagonal(off, 0.0)
    off = -np.sort(-off, axis=1)[:, : max(max_k - 1, 0)]
    cs = np.concatenate([np.zeros((p, 1)), np.cumsum(off, axis=1)], axis=1)  # column j: j largest
    cs2 = np.concatenate([np.zeros((p, 1)), np.cumsum(off**2, axis=1)], axis=1)
    gersh = (d[:, None] + cs).max(axis=0)  # k = 1..max_k
    rows2 = d[:, None] ** 2 + cs2  # (p, max_k): row totals of squares for each k
    rows2 = -np.sort(-rows2, axis=0)
    fro = np.sqrt(np.maximum(np.cumsum(rows2, axis=0)[np.arange(max_k), np.arange(max_k)], 0.0))
    ub = np.minimum(gersh, fro)
    if psd is None:
        psd = bool(np.linalg.eigvalsh(A)[0] >= -1e-12 * max(np.abs(A).max(), 1e-300))
    if psd:
        ub = np.minimum(ub, np.cumsum(np.sort(d)[::-1])[:max_k])
    scale = float(np.abs(d).max()) if p else 0.0
    return ub + _SLACK * (np.abs(ub) + scale)


def sdp_dual_value(A: ArrayLike, Z: ArrayLike, k: int, *, candidates: ArrayLike | None = None) -> float:
    """The certified bound ``lambda_max((A - Z)_CC) + (k - 1) ||Z_CC||_max`` of one dual point.

    Parameters
    ----------
    A : ndarray of shape (p, p)
        Symmetric.
    Z : ndarray of shape (p, p)
        Any symmetric matrix (its diagonal is ignored: the bound puts ``||Z||_max`` there).
    k : int
    candidates : array of int or None

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> round(sdp_dual_value(A, np.zeros((2, 2)), 2), 6), round(sdp_dual_value(A, A, 1), 6)
    (1.5, 1.0)
    """
    A = np.asarray(A, dtype=np.float64)
    if candidates is not None:
        C = _as_indices(candidates)
        A = A[np.ix_(C, C)]
        Z = np.asarray(Z, dtype=np.float64)[np.ix_(C, C)]
    Zo = np.array(Z, dtype=np.float64)
    np.fill_diagonal(Zo, 0.0)
    rho = float(np.abs(Zo).max()) if Zo.size else 0.0
    val = top_eigenvalue_bound(A - Zo) + (k - 1) * rho
    return _inflate(val, float(np.abs(np.diag(A)).max()) + (k - 1) * rho)


def _soft_family(A, rhos, deadline=None):
    """``lambda_max(A - clip(A_offdiag, -rho, rho))`` for each ``rho`` (``inf`` past ``deadline``,
    except for the first, ``rho = 0``, which is always computed)."""
    off = A.copy()
    np.fill_diagonal(off, 0.0)
    out = np.full(len(rhos), np.inf)
    for i, r in enumerate(rhos):
        if i and deadline is not None and time.perf_counter() > deadline:
            break
        out[i] = top_eigenvalue_bound(A - np.clip(off, -r, r))
    return out


def _rho_grid(A, n):
    off = np.abs(A.copy())
    np.fill_diagonal(off, 0.0)
    top = float(off.max()) if off.size else 0.0
    if top <= 0:
        return np.zeros(1)
    # quantiles of the off-diagonal magnitudes plus the two ends
    vals = off[np.triu_indices_from(off, 1)]
    q = np.quantile(vals, np.linspace(0, 1, n))
    return np.unique(np.concatenate([[0.0], q, [top]]))


def _project_l1(v, radius):
    """Euclidean projection of ``v`` onto ``{||x||_1 <= radius}`` (Duchi et al. 2008)."""
    a = np.abs(v)
    if a.sum() <= radius:
        return v.copy()
    if radius <= 0:
        return np.zeros_like(v)
    s = np.sort(a)[::-1]
    cs = np.cumsum(s)
    j = np.arange(1, len(s) + 1)
    idx = np.flatnonzero(s * j > cs - radius)[-1]
    theta = (cs[idx] - radius) / (idx + 1)
    return np.sign(v) * np.maximum(a - theta, 0.0)


def _prox_max(Y, t):
    """Prox of ``t ||.||_max`` on the off-diagonal entries of a symmetric ``Y`` (diagonal zero).

    ``prox_{t ||.||_inf}(y) = y - proj_{||.||_1 <= t}(y)`` (Moreau). Each off-diagonal pair
    appears twice in the matrix, so the matrix prox of ``t ||.||_max`` is the vector prox over
    the upper triangle with the weight of a pair (2) folded into ``t / 2``.
    """
    n = Y.shape[0]
    iu = np.triu_indices(n, 1)
    y = Y[iu]
    z = y - _project_l1(y, t / 2.0)
    out = np.zeros_like(Y)
    out[iu] = z
    return out + out.T


def sdp_dual_bound(
    A: ArrayLike, k: int, *, candidates: ArrayLike | None = None, Z0: ArrayLike | None = None, n_rho: int = 24,
    max_iter: int = 60, rtol: float = 1e-4, time_limit: float | None = None,
) -> tuple[float, np.ndarray]:
    """Minimize the dual bound of the sparse PCA relaxation; every value met is a valid bound.

    Parameters
    ----------
    A : ndarray of shape (p, p)
        Symmetric.
    k : int
    candidates : array of int or bool mask, or None
        Restrict the problem to ``C`` (a node's candidates).
    Z0 : ndarray or None
        Warm start (a dual point of a parent node, on the same index set as ``A``); the
        soft-thresholding search is skipped when given.
    n_rho : int
        Points of the soft-thresholding search.
    max_iter : int
        Iterations of the accelerated proximal gradient method (0: soft-thresholding only).
    rtol : float
        Stop when the bound improved by less than ``rtol`` (relative) over 10 iterations.
    time_limit : float or None
        Seconds after which the iterations stop (the bound found so far is returned).

    Returns
    -------
    bound : float
        The smallest certified value found (inflated by the rounding slack).
    Z : ndarray of shape (|C|, |C|)
        Its dual point (off-diagonal, symmetric), a certificate for every subset of ``C``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    >>> b, Z = sdp_dual_bound(A, 1)
    >>> round(b, 6)  # the optimum for k = 1 is max A_ii = 2
    2.0
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    A = np.asarray(A, dtype=np.float64)
    if candidates is not None:
        C = _as_indices(candidates)
        A = A[np.ix_(C, C)]
    n = A.shape[0]
    scale = float(np.abs(np.diag(A)).max()) if n else 0.0
    off = A.copy()
    np.fill_diagonal(off, 0.0)

    def value(Z):
        rho = float(np.abs(Z).max()) if n > 1 else 0.0
        return top_eigenvalue_bound(A - Z) + (k - 1) * rho

    if Z0 is not None:
        Z = np.array(Z0, dtype=np.float64)
        np.fill_diagonal(Z, 0.0)
        best_val, best_Z = value(Z), Z
    else:
        rhos = _rho_grid(A, n_rho)
        if deadline is not None:  # coarse to fine: the ends and the middle quantiles first
            order = np.argsort(np.abs(np.arange(len(rhos)) - (len(rhos) - 1) / 2), kind="stable")[::-1]
            order = np.concatenate([[0], order[order != 0]])
            rhos = rhos[order]
        vals = _soft_family(A, rhos, deadline) + (k - 1) * rhos
        srt = np.argsort(rhos, kind="stable")
        rhos, vals = rhos[srt], vals[srt]
        i = int(np.argmin(vals))
        # refine the scalar search between the neighbours of the best grid point
        lo, hi = rhos[max(i - 1, 0)], rhos[min(i + 1, len(rhos) - 1)]
        for _ in range(8):
            if deadline is not None and time.perf_counter() > deadline:
                break
            if hi - lo <= 1e-12 * (hi + 1e-300):
                break
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            v1 = top_eigenvalue_bound(A - np.clip(off, -m1, m1)) + (k - 1) * m1
            v2 = top_eigenvalue_bound(A - np.clip(off, -m2, m2)) + (k - 1) * m2
            rhos = np.append(rhos, [m1, m2])
            vals = np.append(vals, [v1, v2])
            if v1 <= v2:
                hi = m2
            else:
                lo = m1
        i = int(np.argmin(vals))
        best_val = float(vals[i])
        best_Z = np.clip(off, -rhos[i], rhos[i])
    if max_iter > 0 and n > 1:
        best_val, best_Z = accelerated_dual(A, k, best_Z, best_val, max_iter, rtol, n, deadline)
    return _inflate(best_val, scale + (k - 1) * float(np.abs(best_Z).max() if n > 1 else 0.0)), best_Z


def accelerated_dual(A, k, Z, best_val, max_iter, rtol, n, deadline=None, target=-math.inf, mu_rel=0.02):
    """FISTA on ``mu log sum exp(lambda(A - Z) / mu) + (k - 1) ||Z||_max`` with continuation.

    Every point at which eigenvalues are computed gives an exact bound
    ``lambda_max(A - Z) + (k - 1) ||Z||_max``; the smallest is kept.
    """
    best_Z = Z
    mu = max(mu_rel * abs(best_val), 1e-300) / math.log(max(n, 2))
    X_prev = Z
    Y = Z
    tk = 1.0
    history = [best_val]
    for it in range(max_iter):
        w, V = _top_eigs(A - Y, min(n, 8))
        rho = float(np.abs(Y).max())
        val = (float(w[-1]) if n <= _DENSE_MAX else top_eigenvalue_bound(A - Y)) + (k - 1) * rho
        if val < best_val:
            best_val, best_Z = val, Y
        history.append(best_val)
        if it >= 10 and history[-11] - best_val <= rtol * abs(best_val):
            break
        if best_val < target or (deadline is not None and time.perf_counter() > deadline):
            break
        e = np.exp((w - w[-1]) / mu)
        e /= e.sum()
        G = (V * e) @ V.T  # gradient of the smoothed lambda_max(A - Z) is -G
        np.fill_diagonal(G, 0.0)
        step = mu
        X = _prox_max(Y + step * G, step * (k - 1))
        tn = (1 + math.sqrt(1 + 4 * tk * tk)) / 2
        Y = X + ((tk - 1) / tn) * (X - X_prev)
        X_prev, tk = X, tn
        if (it + 1) % 15 == 0:  # continuation: sharper smoothing, restart momentum
            mu *= 0.5
            Y, X_prev, tk = best_Z, best_Z, 1.0
    return best_val, best_Z


def sdp_bounds_path(A: ArrayLike, max_k: int | None = None, *, n_rho: int = 48) -> np.ndarray:
    """The soft-thresholding dual bound for every ``k = 1..max_k`` from one scalar grid.

    ``lambda_max(A - clip(A_offdiag, -rho, rho))`` is computed once per ``rho``; the bound at
    ``k`` is its minimum over the grid of that value plus ``(k - 1) rho``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    >>> sdp_bounds_path(A).round(6).tolist()
    [2.0, 3.0, 3.0]
    """
    A, _, max_k = _path_sizes(A, max_k)
    rhos = _rho_grid(A, n_rho)
    lam = _soft_family(A, rhos)
    ks = np.arange(1, max_k + 1)
    vals = lam[None, :] + (ks[:, None] - 1) * rhos[None, :]
    i = np.argmin(vals, axis=1)
    ub = vals[np.arange(max_k), i]
    scale = float(np.abs(np.diag(A)).max()) + (ks - 1) * rhos[i]
    return ub + _SLACK * (np.abs(ub) + scale)


def spca_bounds_path(
    A: ArrayLike, max_k: int | None = None, *, relaxation: bool = True, refine: Iterable[int] = (), max_iter: int = 60,
    psd: bool | None = None,
) -> np.ndarray:
    """Certified upper bounds on sparse PCA for every ``k``: the smallest of all bounds here.

    The row bounds and the soft-thresholding dual bound for every ``k``, the full first-order
    dual minimization at the ``k`` listed in ``refine``, the whole-matrix ``lambda_max`` (the
    inclusion bound), then monotonicity (``opt(k) <= opt(k + 1)``).

    Parameters
    ----------
    A : ndarray of shape (p, p)
        Symmetric (a covariance).
    max_k : int or None
    relaxation : bool, default True
        Include the soft-thresholding dual bound (about 50 certified ``lambda_max`` of ``p x p``
        matrices; the row bounds alone cost ``O(p^2 log p)``).
    refine : iterable of int
        Cardinalities at which :func:`sdp_dual_bound` runs its accelerated iterations.
    max_iter : int
    psd : bool or None
        Whether ``A`` is positive semidefinite (enables the trace bound); None: checked (one
        eigenvalue decomposition of ``A``, which a caller that has its spectrum can spare).

    Returns
    -------
    ndarray of shape (max_k,)

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    >>> spca_bounds_path(A).round(6).tolist()
    [2.0, 3.0, 3.0]
    """
    A, _, max_k = _path_sizes(A, max_k)
    A = (A + A.T) / 2
    ub = row_bounds_path(A, max_k, psd=psd)
    if relaxation:
        ub = np.minimum(ub, sdp_bounds_path(A, max_k))
    for k in refine:
        if 1 <= k <= max_k:
            ub[k - 1] = min(ub[k - 1], sdp_dual_bound(A, k, max_iter=max_iter)[0])
    lam = _inflate(top_eigenvalue_bound(A), float(np.abs(np.diag(A)).max()))
    ub = np.minimum(ub, lam)
    return np.minimum.accumulate(ub[::-1])[::-1]
