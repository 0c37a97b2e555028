"""Sparse PLS: SPLS-eta (Chun and Keles, 2010) and cardinal SPLS (Zhang et al., ICIP 2014).

Both methods run ``K`` iterations of the same loop (Algorithm 1 of the cardinal SPLS paper,
which is Chun and Keles' SIMPLS variant with ``kappa = 1/2``):

1. ``Z = X1^T Y`` where ``X1`` is ``X`` with the selected columns deflated (step 6);
2. a sparse direction from the surrogate problem Eq.(3) by alternating ``w`` and ``c``: with
   ``M = Z Z^T``, ``w = M c / ||M c||`` and ``c = threshold(M w)``; ``M`` is never formed
   (``M v = Z (Z^T v)``, so an iteration costs ``O(p q)``);
3. the active set ``A`` grows by the features the threshold keeps;
4. SIMPLS with ``min(k, |A|)`` components on ``X_A`` (the original centred columns);
5. ``X1_A = X_A (I - P (P^T P)^{-1} P^T)`` with ``P`` the SIMPLS loadings of step 4; only the
   ``A`` rows of ``Z`` change, ``Z_A = (I - Pi_P) X_A^T Y``, so ``X1`` is never formed either.

The methods differ in the threshold only:

* **SPLS-eta**, Eq.(5): ``c = sign(v) (|v| - eta max|v|)_+``; entries exactly at the threshold
  are zero (as in the R package ``spls``). How many features this selects is only indirectly
  controlled by ``eta``.
* **cardinal SPLS**, Eq.(8): features already in ``A`` are not penalized (kept with their full
  value); among the others exactly ``n^(k)`` are kept, the counts given by Eq.(9).

**Cardinality rule (exactly n features).** Eq.(9) rounds ``q_k = 2 (K - k + 1) n / (K (K + 1))``
to the nearest integer; the rounded counts need not sum to ``n`` (``n = 7, K = 5`` gives
``2 + 2 + 1 + 1 + 0 = 6``, ``n = 3, K = 3`` gives ``2 + 1 + 1 = 4`` with round-half-up). pixsel apportions by
largest remainders (Hamilton): each ``n^(k)`` is ``floor(q_k)``, and the ``n - sum floor(q_k)``
remaining units go to the iterations with the largest fractional parts, earlier iterations first
on ties. Every ``n^(k)`` is then ``floor(q_k)`` or ``ceil(q_k)``, the counts sum to ``n``, and
whenever nearest-integer rounding already sums to ``n`` both rules agree (computed in exact integer
arithmetic, see :func:`cardinal_counts`). Eq.(8) as printed takes ``s`` as the ``n^(k)``-th largest
``|c_i|`` outside ``A``, which would zero that very entry and keep ``n^(k) - 1``; pixsel keeps the
``n^(k)`` largest (``s`` = the ``(n^(k) + 1)``-th largest value), and when several entries tie at
the boundary the lowest feature indices are taken, so exactly ``n^(k)`` features are added at
iteration ``k`` and exactly ``n`` overall. Constant columns (zero after centring) are never
selected.

**Array API.** The loop is written once against the array API standard (NumPy 2 is itself an
array-API namespace): NumPy input is fitted in float64, and ``X`` and ``Y`` of another library
(PyTorch, CuPy, array-api-strict; both from the same one) on their device: the centring, the
cross-covariance ``Z = X^T Y`` (the one ``O(N p q)`` product), the ``M v = Z (Z^T v)`` products,
SIMPLS on the selected columns and the deflation of ``Z`` by a QR of the loadings run there, in
X's float dtype; only the ``p``-vector each threshold ranks visits the host, where the thresholds
of Eq.(5) / Eq.(8) cut it (a partition and a stable sort with the lowest-index tie rule, which the
standard lacks). The result's ``coef``, means and model are then arrays of that library;
``support`` and ``history`` are NumPy. Arrays of another library on a CPU are fitted by NumPy on
views of them (the CPU policy of :mod:`pixsel._array_api`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._array_api import call_on_host, device_of, float_dtype, from_numpy, get_namespace, is_numpy, to_numpy
from .._routes import choose
from ._loop import selection_loop
from ._simpls import SIMPLSResult, _as_xy, _check_components, _check_selected_fit, _check_xy, _norm, _simpls

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from .._routes import Route

__all__ = ["SPLSResult", "cardinal_counts", "cardinal_spls", "spls_eta"]


@dataclass(frozen=True)
class SPLSResult:
    """The result of a sparse PLS selection.

    Attributes
    ----------
    support : ndarray of int
        Selected feature indices, sorted.
    history : tuple of ndarray of int
        ``history[k]`` are the features added at iteration ``k + 1``, by decreasing ``|c_i|``
        (ties: lowest index first).
    coef : ndarray of shape (n_features, n_targets)
        Regression coefficients of the final SIMPLS model, zero off the support.
    x_mean, y_mean : ndarray
        Means removed before fitting.
    model : SIMPLSResult
        The final SIMPLS fit on ``X[:, support]`` (``min(n_components, len(support))`` components).
    n_iter : ndarray of int of shape (n_components,)
        Alternating ``c``/``w`` iterations used for each direction.
    converged : ndarray of bool of shape (n_components,)
        Whether each alternating optimization met ``tol`` within ``max_iter``.
    """

    support: np.ndarray
    history: tuple
    coef: np.ndarray
    x_mean: np.ndarray
    y_mean: np.ndarray
    model: SIMPLSResult
    n_iter: np.ndarray
    converged: np.ndarray

    @property
    def n_selected(self) -> int:
        """Number of selected features."""
        return int(len(self.support))

    def predict(self, X: ArrayLike) -> NDArray:
        """Predictions of shape (n_samples, n_targets) from all ``n_features`` columns of ``X``
        (in the library of the fit when it ran on a device)."""
        xp, _ = get_namespace(self.coef, names=["coef"])
        if not is_numpy(xp):
            return (xp.astype(X, self.coef.dtype) - self.x_mean) @ self.coef + self.y_mean
        return (np.asarray(X, dtype=np.float64) - self.x_mean) @ self.coef + self.y_mean


def cardinal_counts(n: int, n_components: int) -> NDArray:
    """Per-iteration counts ``n^(k)`` of Eq.(9), apportioned to sum exactly to ``n``.

    Largest-remainder rounding of ``q_k = 2 (K - k + 1) n / (K (K + 1))``, earlier iterations
    first on ties, in exact integer arithmetic (see the module docstring).

    References
    ----------
    * H. Zhang, S. Kiranyaz and M. Gabbouj, "Cardinal sparse partial least square feature selection
      and its application in face recognition", IEEE International Conference on Image Processing
      (ICIP), 2014.

    Examples
    --------
    >>> cardinal_counts(200, 5).tolist()
    [67, 53, 40, 27, 13]
    >>> cardinal_counts(3, 3).tolist()   # nearest-integer rounding would give 2 + 1 + 1 = 4
    [2, 1, 0]
    """
    n = int(n)
    K = int(n_components)
    if n < 0 or K < 1:
        raise ValueError(f"cardinal_counts needs n >= 0 and n_components >= 1; got {n}, {K}.")
    den = K * (K + 1)
    num = np.array([2 * (K - k + 1) * n for k in range(1, K + 1)], dtype=object)
    floors = np.array([int(v // den) for v in num], dtype=np.int64)
    rems = np.array([int(v % den) for v in num], dtype=np.int64)
    extra = n - int(floors.sum())
    order = np.argsort(-rems, kind="stable")  # largest remainder first, earlier k on ties
    floors[order[:extra]] += 1
    return floors


def _route(X, Y, route=None):
    """The arrays' namespace (NumPy itself for NumPy), their device and where the PLS family runs
    on them (``route``, the calling fit's, or :func:`pixsel._routes.choose`: ``'numpy'``,
    ``'host'`` or ``'device'``)."""
    xp, dev = get_namespace(X, Y, names=["X", "Y"])
    backend = (choose("pls", xp=xp, device=dev) if route is None else route).backend
    return (np if backend == "numpy" else xp), dev, backend


def _as_xy_xp(xp, X, Y, owner):
    """``X`` (2-D) and ``Y`` (a column when 1-D) of another library in X's float dtype, checked
    like :func:`pixsel.pls._simpls._as_xy` (which gives NumPy input as float64 copies)."""
    wd = float_dtype(xp, X, device_of(X), name="X")
    return _check_xy(xp, xp.astype(X, wd), xp.astype(Y, wd), owner)


def _prepare(X, Y, owner, xp):
    """``(Xc, Yc, x_mean, y_mean)``: the checked, centred data (float64 for NumPy input)."""
    X, Y = _as_xy(X, Y, owner) if is_numpy(xp) else _as_xy_xp(xp, X, Y, owner)
    if X.shape[0] < 2:
        raise ValueError(f"{owner}: X has {X.shape[0]} sample(s); PLS needs at least 2 samples.")
    x_mean, y_mean = xp.mean(X, axis=0), xp.mean(Y, axis=0)
    if is_numpy(xp):  # centred in place: X and Y are the float64 copies made above
        X -= x_mean
        Y -= y_mean
        Xc, Yc = X, Y
    else:
        Xc, Yc = X - x_mean, Y - y_mean
    if not bool(xp.any(Yc != 0)):
        raise ValueError(f"{owner}: Y is constant (every response equals its mean); there is nothing to fit.")
    return Xc, Yc, x_mean, y_mean


def _top_n(a, n):
    """Indices of the ``n`` largest entries of ``a`` (ties: lowest index), in decreasing order,
    and the ``(n + 1)``-th largest value (0 if there is none). ``O(len(a))`` plus ``n log n``."""
    m = len(a)
    if n >= m:
        order = np.argsort(-a, kind="stable")
        return order, 0.0
    kth = np.partition(a, m - n)[m - n]  # the n-th largest value
    above = np.flatnonzero(a > kth)
    ties = np.flatnonzero(a == kth)  # ascending: lowest indices first
    chosen = np.concatenate([above, ties[: n - len(above)]])
    chosen = chosen[np.argsort(-a[chosen], kind="stable")]
    if len(above) + len(ties) > n:
        nxt = kth
    else:
        below = a[a < kth]
        nxt = float(below.max()) if below.size else 0.0
    return chosen, float(nxt)


def _scatter_rows(xp, rows, idx, n):
    """An ``(n, q)`` array with ``rows`` at the rows ``idx`` (NumPy ints), zeros elsewhere: the
    standard has ``take`` but no assignment through an index array."""
    idx = np.asarray(idx, dtype=np.int64)
    pos = np.full(n, len(idx), dtype=np.int64)
    pos[idx] = np.arange(len(idx))
    padded = xp.concat([rows, xp.zeros((1, rows.shape[1]), dtype=rows.dtype, device=device_of(rows))], axis=0)
    return xp.take(padded, xp.asarray(pos, device=device_of(rows)), axis=0)


def _direction(xp, Z, threshold, max_iter, tol):
    """Alternating c/w optimization of Eq.(3) with kappa = 1/2; returns ``(added, n_iter, ok)``.
    The products run where ``Z`` lives; the ``p``-vector each threshold ranks comes to the host."""
    if Z.shape[1] == 1:  # M w is proportional to Z: one thresholding step is exact
        c, added = threshold(to_numpy(Z[:, 0], np.float64))
        return added, 1, True
    dev = device_of(Z)
    c = np.ones(Z.shape[0])
    added = np.zeros(0, dtype=np.intp)
    for it in range(1, max_iter + 1):
        cd = from_numpy(xp, c, dev, dtype=Z.dtype)
        m = Z @ (Z.T @ cd)
        nm = _norm(xp, m)
        if nm == 0.0:  # c lies in the null space of M: restart from the dominant direction
            m = Z @ xp.linalg.svd(Z, full_matrices=False)[2][0, :]
            nm = _norm(xp, m)
        w = m / nm
        c_new, added = threshold(to_numpy(Z @ (Z.T @ w), np.float64))
        scale = float(np.max(np.abs(c_new))) if c_new.size else 0.0
        done = float(np.max(np.abs(c_new - c))) <= tol * max(scale, np.finfo(float).tiny)
        c = c_new
        if done:
            return added, it, True
    return added, max_iter, False


def _sparse_pls(xp, Xc, Yc, n_components, make_threshold, max_iter, tol):
    """The shared loop of Algorithm 1; ``make_threshold(k, selected)`` returns the threshold."""
    p = Xc.shape[1]
    dev = device_of(Xc)
    Z0 = Xc.T @ Yc

    def direction(Z, threshold):
        return _direction(xp, Z, threshold, max_iter, tol)

    def refit(A, k):
        XA = xp.take(Xc, xp.asarray(A, device=dev), axis=1)
        return _simpls(XA, Yc, min(k, len(A)), strict=False, xp=xp)

    def deflate(Z, A, fit):
        """``Z`` with the ``A`` rows projected off the loadings ``P`` (step 6), other rows unchanged."""
        P = fit[2]
        if not P.shape[1]:
            return Z
        Qp = xp.linalg.qr(P)[0]
        ZA = xp.take(Z0, xp.asarray(A, device=dev), axis=0)
        return Z0 - _scatter_rows(xp, Qp @ (Qp.T @ ZA), A, p)

    return selection_loop(Z0, p, n_components, make_threshold, direction, refit, deflate)


def _finish(xp, A, history, fit, n_iter, converged, x_mean, y_mean, n_components, p, owner):
    R, T, P, Q = fit
    want = min(n_components, len(A))
    _check_selected_fit(A, R, want, n_components, owner)
    coef_A = R @ Q.T
    model = SIMPLSResult(
        x_rotations=R, x_scores=T, x_loadings=P, y_loadings=Q, coef=coef_A,
        x_mean=xp.take(x_mean, xp.asarray(A, device=device_of(x_mean))), y_mean=y_mean,
        n_components=R.shape[1],
    )
    return SPLSResult(
        support=A, history=tuple(history), coef=_scatter_rows(xp, coef_A, A, p), x_mean=x_mean,
        y_mean=y_mean, model=model, n_iter=n_iter, converged=converged,
    )


def _run_spls(entry, X, Y, size, n_components, max_iter, tol, thresholds, route=None):
    """What both public entries do around their threshold rule.

    Route (the host policy calls ``entry`` back with NumPy views), centre, check ``n_components``,
    build the rule with ``thresholds(Xc, K, owner, xp)`` (it checks ``size``, the entry's own
    sparsity parameter), run Algorithm 1's loop and pack the result.
    """
    owner = entry.__name__
    xp, dev, backend = _route(X, Y, route)
    if backend == "host":  # the CPU policy: NumPy's code on views
        return call_on_host(entry, xp, dev, X, Y, size, n_components, max_iter=max_iter, tol=tol)
    Xc, Yc, x_mean, y_mean = _prepare(X, Y, owner, xp)
    N, p = Xc.shape
    K = _check_components(n_components, N, p, owner)
    make_threshold = thresholds(Xc, K, owner, xp)
    out = _sparse_pls(xp, Xc, Yc, K, make_threshold, max_iter, tol)
    return _finish(xp, *out, x_mean, y_mean, K, p, owner)


def spls_eta(
    X: ArrayLike,
    Y: ArrayLike,
    eta: float,
    n_components: int,
    *,
    max_iter: int | float = 100,
    tol: int | float = 1e-6,
    route: Route | None = None,
) -> SPLSResult:
    """SPLS-eta (Chun and Keles, 2010; section 2.2 of Zhang et al.) with ``kappa = 1/2``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    Y : array-like of shape (n_samples,) or (n_samples, n_targets)
        Continuous responses, or a one-hot class indicator (centred here like any response).
    eta : float in (0, 1)
        Soft-threshold level of Eq.(5): larger is sparser. The number of features selected is
        ``len(result.support)``; it is only indirectly controlled by ``eta``.
    n_components : int
        Number of latent components ``K`` (iterations), ``<= min(n_samples - 1, n_features)``.
    max_iter, tol : int, float
        Limits of the alternating ``c``/``w`` optimization (relative change of ``c``).
    route : Route or None, default None
        The :class:`pixsel._routes.Route` of the fit that calls (where X lives); None asks
        :func:`pixsel._routes.choose` for the arrays given.

    Returns
    -------
    SPLSResult

    References
    ----------
    * H. Chun and S. Keles, "Sparse partial least squares regression for simultaneous dimension
      reduction and variable selection", Journal of the Royal Statistical Society: Series B, 72(1),
      2010. doi:10.1111/j.1467-9868.2009.00723.x
    * H. Zhang, S. Kiranyaz and M. Gabbouj, "Cardinal sparse partial least square feature selection
      and its application in face recognition", IEEE International Conference on Image Processing
      (ICIP), 2014.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 30)); y = X[:, :3] @ [3.0, -2.0, 2.5] + 0.1 * rng.normal(size=50)
    >>> res = spls_eta(X, y, 0.6, 2)
    >>> sorted(set(res.support.tolist()) & {0, 1, 2})
    [0, 1, 2]
    """

    def thresholds(Xc, K, owner, xp):
        if isinstance(eta, bool) or not isinstance(eta, (int, float, np.floating)) or not 0 < eta < 1:
            raise ValueError(
                f"The 'eta' parameter of {owner} must be a real number in the range (0, 1). Got {eta!r} instead."
            )
        level = float(eta)

        def make_threshold(k, selected):
            def threshold(v):
                a = np.abs(v)
                lam = level * float(a.max()) if a.size else 0.0
                c = np.sign(v) * np.maximum(a - lam, 0.0)
                keep = np.flatnonzero(c)
                return c, keep[np.argsort(-a[keep], kind="stable")]

            return threshold

        return make_threshold

    return _run_spls(spls_eta, X, Y, eta, n_components, max_iter, tol, thresholds, route)


def cardinal_spls(
    X: ArrayLike,
    Y: ArrayLike,
    n_features: int,
    n_components: int,
    *,
    max_iter: int | float = 100,
    tol: int | float = 1e-6,
    route: Route | None = None,
) -> SPLSResult:
    """Cardinal SPLS (Algorithm 1 of Zhang, Kiranyaz and Gabbouj, ICIP 2014): exactly ``n_features``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features_in)
    Y : array-like of shape (n_samples,) or (n_samples, n_targets)
        Continuous responses, or a one-hot class indicator (centred here like any response).
    n_features : int
        Target cardinality ``n``, ``1 <= n <=`` the number of non-constant columns.
    n_components : int
        Number of latent components ``K``, ``<= min(n_samples - 1, n_features_in)``.
    max_iter, tol : int, float
        Limits of the alternating ``c``/``w`` optimization (relative change of ``c``).
    route : Route or None, default None
        The :class:`pixsel._routes.Route` of the fit that calls (where X lives); None asks
        :func:`pixsel._routes.choose` for the arrays given.

    Returns
    -------
    SPLSResult
        ``len(result.history[k]) == cardinal_counts(n_features, n_components)[k]``.

    References
    ----------
    * H. Zhang, S. Kiranyaz and M. Gabbouj, "Cardinal sparse partial least square feature selection
      and its application in face recognition", IEEE International Conference on Image Processing
      (ICIP), 2014.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 30))
    >>> Y = X[:, :4] @ np.array([[2.0, 0, 1], [0, 2, -1], [1, 1, 2], [-2, 1, 0]])
    >>> res = cardinal_spls(X, Y, 4, 3)
    >>> res.support.tolist(), [len(h) for h in res.history]
    ([0, 1, 2, 3], [2, 1, 1])
    """

    def thresholds(Xc, K, owner, xp):
        p = Xc.shape[1]
        # constant columns are never selected
        eligible = to_numpy(xp.any(Xc != 0.0, axis=0))
        m = int(eligible.sum())
        if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) or not 1 <= n_features <= m:
            extra = "" if m == p else f" ({p - m} of the {p} columns are constant and cannot be selected)"
            raise ValueError(
                f"The 'n_features' parameter of {owner} must be an int in the range [1, {m}]{extra}. "
                f"Got {n_features!r} instead."
            )
        counts = cardinal_counts(int(n_features), K)

        def make_threshold(k, selected):
            n_k = int(counts[k - 1])
            cand = np.flatnonzero(eligible & ~selected)

            def threshold(v):
                c = np.where(selected, v, 0.0)
                if n_k == 0:
                    return c, np.zeros(0, dtype=np.intp)
                a = np.abs(v[cand])
                local, s = _top_n(a, n_k)
                chosen = cand[local]
                c[chosen] = np.sign(v[chosen]) * (np.abs(v[chosen]) - s)
                return c, chosen

            return threshold

        return make_threshold

    return _run_spls(cardinal_spls, X, Y, n_features, n_components, max_iter, tol, thresholds, route)
