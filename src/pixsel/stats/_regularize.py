"""Regularization of the within-class covariance, always explicit and recorded."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, fields

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

from .._array_api import call_on_host, get_namespace, host_view, is_numpy
from .._routes import placement

__all__ = ["Regularization", "regularize", "ridge_regularization", "regularized_factor", "ledoit_wolf_from_rows",
           "shrinkage_regularization", "is_shrinkage", "AUTO_RIDGE", "SHRINKAGE_FLOOR"]

#: the relative ridge of ``regularization='auto'``: ``alpha = AUTO_RIDGE * trace(B) / p``.
AUTO_RIDGE = 1e-3

#: the least intensity of ``regularization='ledoit-wolf-floor'``: ``B`` is shrunk at least 2 % of the way
#: to ``mu I``.
SHRINKAGE_FLOOR = 0.02

#: the regularizations that shrink ``B`` towards ``mu I`` by an intensity estimated from the data.
SHRINKAGE_METHODS = ("ledoit-wolf", "ledoit-wolf-floor")


def is_shrinkage(regularization: Any) -> bool:
    """True for the regularizations whose intensity comes from the data (``'ledoit-wolf'``,
    ``'ledoit-wolf-floor'``): they need ``X`` and ``y``, not only ``B``.

    Examples
    --------
    >>> is_shrinkage("ledoit-wolf-floor"), is_shrinkage("rda"), is_shrinkage(0.5)
    (True, False, False)
    """
    return isinstance(regularization, str) and regularization in SHRINKAGE_METHODS


def shrinkage_regularization(regularization: str, intensity: float, mu: float) -> Regularization:
    """The shrinkage policy, from the Ledoit-Wolf intensity and the mean variance ``mu``.

    The one place where an estimated intensity becomes the shrinkage that is applied: the dense
    path (:func:`regularize`) and the implicit one (which estimates the intensity with
    :func:`ledoit_wolf_from_rows`) both call it.

    Parameters
    ----------
    regularization : 'ledoit-wolf' or 'ledoit-wolf-floor'
        ``'ledoit-wolf'``: the intensity as estimated; ``'ledoit-wolf-floor'``: at least
        ``SHRINKAGE_FLOOR``. The Ledoit-Wolf intensity minimizes the expected Frobenius error of
        the whole ``p x p`` covariance and tends to 0 as the samples per class grow; a greedy
        search over single pixels then prefers pixels of very small within-class variance, which
        does not hold on new images (see the documentation's quality page).
    intensity : float
        The Ledoit-Wolf intensity, in [0, 1].
    mu : float
        ``trace(B) / p``, the mean variance.

    Returns
    -------
    Regularization

    Raises
    ------
    ValueError
        When ``mu`` is 0: the covariance is zero and so is any shrinkage of it.

    Examples
    --------
    >>> shrinkage_regularization("ledoit-wolf-floor", 0.001, 2.0).shrinkage
    0.02
    >>> shrinkage_regularization("ledoit-wolf", 0.001, 2.0).shrinkage
    0.001
    """
    if not is_shrinkage(regularization):
        raise ValueError(f"regularization must be one of {SHRINKAGE_METHODS}. Got {regularization!r} instead.")
    if not float(mu) > 0:
        # B == 0 (one sample per class, or every feature constant within its class): shrinking
        # it towards mu I leaves it zero, and every f(S) would divide by a singular B_SS
        raise ValueError(
            f"The within-class covariance is zero (every class holds one sample, or every feature is constant "
            f"within its class), so regularization={regularization!r}, a shrinkage towards its mean variance, "
            "leaves it zero and singular. Give at least 2 samples of a class whose features vary, or use "
            "regularization='auto', 'rda' or a ridge > 0."
        )
    s = float(intensity)
    if regularization == "ledoit-wolf-floor":
        s = max(s, SHRINKAGE_FLOOR)
    return Regularization(regularization, 0.0, s, float(mu))


@dataclass(frozen=True)
class Regularization:
    """What was done to ``B``: ``B_reg = (1 - shrinkage) * B + shrinkage * mu * I + alpha * I``.

    Attributes
    ----------
    method : str
        ``'none'``, ``'ridge'``, ``'auto'``, ``'rda'``, ``'ledoit-wolf'`` or ``'ledoit-wolf-floor'``.
    alpha : float
        The ridge added to the diagonal.
    shrinkage : float
        The shrinkage intensity applied (0 when not used): Ledoit-Wolf's, or with
        ``'ledoit-wolf-floor'`` at least ``SHRINKAGE_FLOOR``.
    mu : float
        ``trace(B) / p``, the shrinkage target's scale.
    """

    method: str
    alpha: float
    shrinkage: float
    mu: float

    def to_dict(self) -> dict:
        # the fields are scalars: asdict's deep copy of each is not needed
        return {f.name: (float(v) if isinstance(v := getattr(self, f.name), float) else v) for f in fields(self)}

    def apply(self, B: np.ndarray) -> np.ndarray:
        """Return the regularized copy of ``B`` (``B`` itself is not modified).

        A NumPy ``B`` gives float64; an array of another library stays in its library, on its
        device and in its float dtype."""
        xp, dev = get_namespace(B, names=["B"])
        if not is_numpy(xp):
            eye = xp.eye(B.shape[0], dtype=B.dtype, device=dev)
            return (1.0 - self.shrinkage) * B + (self.shrinkage * self.mu + self.alpha) * eye
        out = (1.0 - self.shrinkage) * np.asarray(B, dtype=np.float64)
        diagonal = np.einsum("ii->i", out)  # a writable view of out's diagonal, whatever its memory order
        diagonal += self.shrinkage * self.mu + self.alpha
        return out


def _ledoit_wolf_from_moments(B, fourth, n):
    """Ledoit-Wolf (2004) shrinkage from ``B = R^T R / n`` and ``fourth = sum_i ||r_i||^4``.

    The same estimator as ``sklearn.covariance.ledoit_wolf_shrinkage`` applied to the
    class-centred rows ``r_i``, written with moments so it can run on out-of-core data.
    """
    return _ledoit_wolf_shrinkage(float(np.trace(B)), float(np.sum(B * B)), B.shape[0], fourth, n)


def _ledoit_wolf_shrinkage(trace, sum_sq, p, fourth, n):
    """The Ledoit-Wolf shrinkage from ``tr B``, ``sum(B * B)``, ``p``, ``sum_i ||r_i||^4`` and ``n``."""
    mu = trace / p
    delta = (sum_sq - 2 * mu * trace + p * mu**2) / p
    beta_ = (fourth / n - sum_sq) / (n * p)
    beta = min(beta_, delta)
    return 0.0 if delta == 0 else beta / delta


def _centred_rows(X, means, idx):
    """``np.asarray(X, dtype=np.float64) - means[idx]`` (``means`` float64) in one ``n x p`` array:
    the class means are gathered into it and ``X`` subtracted in place (the same differences).
    Two ``n x p`` temporaries freed one after the other can make the allocator hand their pages
    back to the system and fault them in again at the next call, which costs more than the
    subtraction itself."""
    R = np.take(means, idx, axis=0)
    np.subtract(X, R, out=R)
    return R


def ledoit_wolf_from_rows(X: ArrayLike, y: ArrayLike, means: ArrayLike, classes: Any) -> float:
    """The Ledoit-Wolf intensity of ``B = R^T R / n`` (``R = X - means[y]``), without ``B``.

    For the implicit forward pass, where the ``p x p`` matrix is never formed: ``sum(B * B)`` is
    ``||R R^T||_F^2 / n^2``, accumulated over blocks of rows of the ``n x n`` products (``n^2 p``
    operations, where forming ``B`` costs ``n p^2``), and ``sum_i ||r_i||^4`` from the rows'
    norms. The same intensity as :func:`regularize` with ``'ledoit-wolf'`` (tested). A NumPy
    ``X`` (one float64 copy of ``R``), a Dask array (the products chunk by chunk) or an array of
    another library (a view on a CPU, NumPy's code; on its device otherwise; the intensity comes
    back as a float).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((30, 80)); y = np.arange(30) % 3
    >>> means = np.stack([X[y == c].mean(axis=0) for c in range(3)])
    >>> R = X - means[y]
    >>> _, info = regularize(R.T @ R / 30, "ledoit-wolf", X=X, y=y, means=means, classes=np.arange(3))
    >>> bool(np.isclose(ledoit_wolf_from_rows(X, y, means, np.arange(3)), info.shrinkage))
    True
    """
    from .._validation import is_dask_array

    idx = np.searchsorted(np.asarray(classes), np.asarray(y))
    means = np.asarray(means, dtype=np.float64)
    n, p = (int(v) for v in X.shape)
    if is_dask_array(X):
        import dask
        import dask.array as da

        R = X.astype(np.float64) - da.from_array(means)[da.from_array(idx, chunks=(X.chunks[0],))]
        sq = da.einsum("ij,ij->i", R, R)
        K = R @ R.T
        trace, fourth, sum_sq = dask.compute(sq.sum(), (sq**2).sum(), (K * K).sum())
        trace, fourth, sum_sq = float(trace), float(fourth), float(sum_sq)
    else:
        xp, dev = get_namespace(X, names=["X"])
        if not is_numpy(xp) and placement(xp, dev) == "host":  # another library on a CPU: a view, NumPy's code
            X, xp = host_view(X), np
        if is_numpy(xp):
            R = _centred_rows(X, means, idx)
        else:  # on X's device, in float64 where the device has it
            from .._array_api import has_float64

            wd = xp.float64 if has_float64(xp, dev) else xp.float32
            R = xp.astype(X, wd) - xp.take(xp.asarray(means, dtype=wd, device=dev),
                                           xp.asarray(idx, device=dev), axis=0)
        sq = xp.sum(R * R, axis=1)
        trace, fourth = float(xp.sum(sq)), float(xp.sum(sq * sq))
        rows = max(1, 2**19 // max(n, 1))  # a block of the n x n products: at most 4 MiB
        sum_sq = 0.0
        for i in range(0, n, rows):
            K = R[i:min(i + rows, n), :] @ R.T
            sum_sq += float(xp.sum(K * K))
    return _ledoit_wolf_shrinkage(trace / n, sum_sq / n**2, p, fourth, n)


def regularize(
    B: ArrayLike,
    regularization: str = "auto",
    *,
    X: ArrayLike | None = None,
    y: ArrayLike | None = None,
    means: ArrayLike | None = None,
    classes: Any = None,
) -> tuple[Any, Regularization]:
    """Regularize a covariance ``B`` and say what was done.

    Parameters
    ----------
    B : ndarray of shape (p, p)
        Symmetric positive semi-definite.
    regularization : 'auto', 'rda', 'none', None, float >= 0, 'ledoit-wolf' or 'ledoit-wolf-floor'
        * ``'auto'``: ridge ``alpha = 1e-3 * trace(B) / p`` (keeps a rank-deficient ``B``, e.g.
          constant pixels or more pixels than samples, invertible while changing a well-posed
          ``B`` by 0.1% of its mean eigenvalue);
        * ``'rda'``: ridge ``alpha = trace(B) / p``, the mean variance: ``B + mu I`` is twice
          the covariance shrunk halfway towards its spherical part, ``B / 2 + (mu / 2) I``, the
          regularized discriminant analysis of Friedman ("Regularized discriminant analysis",
          JASA 1989) with ``gamma = 1/2`` (the factor 2 changes no selection). A statistical
          regularization, where ``'auto'`` is a numerical one;
        * a number: that ridge ``alpha``;
        * ``'none'`` or ``None``: ``B`` unchanged (the caller must ensure it is invertible);
        * ``'ledoit-wolf'``: Ledoit-Wolf shrinkage towards ``mu I``, the intensity of
          scikit-learn's ``ledoit_wolf_shrinkage`` of the class-centred data, computed from
          ``B``'s moments and one pass for the rows' fourth moment (``X``, ``y`` and the class
          ``means`` are then required);
        * ``'ledoit-wolf-floor'``: the same, with an intensity of at least ``SHRINKAGE_FLOOR``
          (see :func:`shrinkage_regularization`).

    Returns
    -------
    B_reg : ndarray of shape (p, p)
        float64 for NumPy (and Dask) input. A ``B`` of another array library (PyTorch, CuPy,
        array-api-strict) comes back in that library, on its device and in its dtype: on a CPU
        computed by NumPy's code on views of the arrays (:func:`pixsel._routes.placement`), on
        another device there, the Ledoit-Wolf moment ``sum_i ||r_i||^4`` from ``X`` on the device
        too.
    info : Regularization

    Examples
    --------
    >>> import numpy as np
    >>> B_reg, info = regularize(np.diag([1.0, 0.0]), "auto")
    >>> info.method, info.alpha
    ('auto', 0.0005)
    """
    xp, dev = get_namespace(B, names=["B"])
    if not is_numpy(xp):
        if placement(xp, dev) == "host":  # another library on a CPU: NumPy's code on host views, no copy
            return call_on_host(regularize, xp, dev, B, regularization, X=X, y=y, means=means, classes=classes)
        return _regularize_xp(xp, dev, B, regularization, X, y, means, classes)
    B = np.asarray(B, dtype=np.float64)
    p = B.shape[0]
    mu = float(np.trace(B) / p) if p else 0.0
    if is_shrinkage(regularization):
        _need_data(X, y, means, classes)
        from ._reduce import block_reduce, single_block, sum_partials

        idx = np.searchsorted(classes, np.asarray(y))
        means64 = np.asarray(means, dtype=np.float64)

        def fourth_part(xb, ib):
            R = _centred_rows(xb, means64, ib)
            return float(np.sum(np.einsum("ij,ij->i", R, R) ** 2))

        # B is at hand: sum(B * B) costs p^2 and the fourth moment one pass (n p), where
        # scikit-learn's ledoit_wolf_shrinkage forms R^T R again (n p^2); the same estimator (tested)
        one = single_block(fourth_part, X, idx)  # one block: its partial, merged as block_reduce would
        fourth = float(sum_partials([one]) if one is not None else block_reduce(fourth_part, sum_partials, X, idx))
        shrinkage = _ledoit_wolf_from_moments(B, fourth, X.shape[0])
        info = shrinkage_regularization(regularization, shrinkage, mu)
    else:
        info = ridge_regularization(regularization, mu)
    return info.apply(B), info


def regularized_factor(X: ArrayLike, y: ArrayLike, means: ArrayLike, classes: Any,
                       info: Regularization) -> tuple[np.ndarray, float] | None:
    """The regularized within-class covariance as ``lam I + U U^T``, without the ``p x p`` matrix.

    The pooled within-class covariance of ``class_statistics`` is ``R^T R / n`` with ``R`` the
    class-centred rows of ``X``; every regularization of :func:`regularize` that adds a multiple
    of the identity keeps that form: ``B_reg = (1 - shrinkage) R^T R / n + (shrinkage mu + alpha) I``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data the statistics came from (NumPy).
    y : array-like of shape (n_samples,)
    means : ndarray of shape (n_classes, n_features)
        The class means of ``class_statistics``.
    classes : ndarray of shape (n_classes,)
        The sorted classes the means belong to.
    info : Regularization
        What :func:`regularize` did.

    Returns
    -------
    (U, lam) or None
        ``U`` of shape ``(n_features, n_samples)`` and ``lam > 0`` with
        ``B_reg = lam I + U U^T``; None when ``B_reg`` has no ridge (``lam = 0``).

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.stats import class_statistics
    >>> X = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0], [2.0, 2.0, 2.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> st = class_statistics(X, y)
    >>> B, info = regularize(st.within, "rda")
    >>> U, lam = regularized_factor(X, y, st.means, st.classes, info)
    >>> bool(np.allclose(B, lam * np.eye(3) + U @ U.T))
    True
    """
    lam = float(info.shrinkage * info.mu + info.alpha)
    if not lam > 0:
        return None
    X = np.asarray(X, dtype=np.float64)
    idx = np.searchsorted(np.asarray(classes), np.asarray(y))
    U = (X - np.asarray(means, dtype=np.float64)[idx]).T
    U *= np.sqrt((1.0 - info.shrinkage) / X.shape[0])
    return U, lam


def _need_data(X, y, means, classes):
    if X is None or y is None or means is None or classes is None:
        raise ValueError(
            "regularization='ledoit-wolf' (or 'ledoit-wolf-floor') needs the data: pass X, y, means and classes."
        )


def _regularize_xp(xp, dev, B, regularization, X, y, means, classes):
    """:func:`regularize` for a ``B`` of another array library: the same policy, on its device."""
    from .._array_api import float_dtype, from_numpy, to_numpy
    from ._reduce import block_reduce, sum_partials

    p = B.shape[0]
    trace = float(xp.sum(xp.linalg.diagonal(B)))
    mu = trace / p if p else 0.0
    if is_shrinkage(regularization):
        _need_data(X, y, means, classes)
        get_namespace(B, X, means, names=["B", "X", "means"])  # one library, one device
        idx = np.searchsorted(np.asarray(classes), to_numpy(y))
        codes = from_numpy(xp, idx, dev, dtype=xp.int64)
        wd = float_dtype(xp, X, dev)

        def fourth_part(xb, ib):  # sum_i ||x_i - m_{y_i}||^4 of a row block, on the device
            R = xp.astype(xb, wd, copy=False) - xp.take(means, ib, axis=0)
            return xp.sum(xp.sum(R * R, axis=1) ** 2)

        fourth = float(block_reduce(fourth_part, sum_partials, X, codes))
        shrinkage = _ledoit_wolf_shrinkage(trace, float(xp.sum(B * B)), p, fourth, X.shape[0])
        info = shrinkage_regularization(regularization, shrinkage, mu)
    else:
        info = ridge_regularization(regularization, mu)
    return info.apply(B), info


def ridge_regularization(regularization: str | float | None, mu: float) -> Regularization:
    """The ridge policy, from the mean variance ``mu = trace(B) / p`` alone.

    The one place where ``'auto'``, ``'none'`` and a number become a ridge ``alpha``: the dense
    path (:func:`regularize`) and the implicit one (where ``B`` is never formed, only its diagonal)
    both call it, so they regularize alike.

    Parameters
    ----------
    regularization : 'auto', 'rda', 'none', None or float >= 0
        ``'auto'``: ``alpha = AUTO_RIDGE * mu`` (``AUTO_RIDGE`` itself when ``mu = 0``, i.e. every
        feature constant); ``'rda'``: ``alpha = mu`` (1 when ``mu = 0``); a number: that ridge;
        ``'none'``/``None``: no ridge.
    mu : float
        ``trace(B) / p``, the mean variance.

    Returns
    -------
    Regularization

    Examples
    --------
    >>> ridge_regularization("auto", 2.0).alpha
    0.002
    >>> ridge_regularization(0.5, 2.0).method
    'ridge'
    >>> ridge_regularization("rda", 2.0).alpha
    2.0
    """
    mu = float(mu)
    if regularization is None or (isinstance(regularization, str) and regularization == "none"):
        return Regularization("none", 0.0, 0.0, mu)
    if isinstance(regularization, str) and regularization == "auto":
        alpha = AUTO_RIDGE * mu
        if alpha <= 0:  # B == 0: every feature constant
            alpha = AUTO_RIDGE
        return Regularization("auto", alpha, 0.0, mu)
    if isinstance(regularization, str) and regularization == "rda":
        return Regularization("rda", mu if mu > 0 else 1.0, 0.0, mu)
    if isinstance(regularization, numbers.Real) and not isinstance(regularization, bool):
        alpha = float(regularization)
        if not np.isfinite(alpha) or alpha < 0:
            raise ValueError(
                f"The 'regularization' ridge must be a finite number >= 0. Got {regularization!r} instead."
            )
        return Regularization("ridge", alpha, 0.0, mu)
    if is_shrinkage(regularization):
        raise ValueError(
            f"regularization={regularization!r} needs the data, not only the mean variance: use "
            f"pixsel.stats.regularize(B, {regularization!r}, X=..., y=..., means=..., classes=...)."
        )
    raise ValueError(
        "The 'regularization' parameter must be 'auto', 'rda', 'none', None, 'ledoit-wolf', "
        "'ledoit-wolf-floor' or a "
        f"number >= 0. Got {regularization!r} instead."
    )
