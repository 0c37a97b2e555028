"""Per-feature statistics for the feature scores: column moments and per-class column sums.

Both run through :func:`~pixsel.stats._reduce.block_reduce` (row blocks of bounded size, the
same code inside every Dask chunk), accumulate in float64 and never copy the data whole.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._routes import placement
from .._array_api import (
    call_on_host, float_dtype, get_namespace, one_hot, to_numpy,
)
from .._validation import check_finite, is_dask_array
from ._moments import _check_Xy, _off_numpy, _onehot, _prepare_xp, class_codes
from ._reduce import block_reduce, sum_partials

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = ["ClassSums", "class_sums", "column_moments"]

#: float64 working memory per row block of the column statistics.
_BLOCK_BYTES = 1 << 23


def _check_finite_columns(mean, ss, X=None):
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(ss))):
        if X is not None:  # NumPy or Dask: one more pass reports the first NaN at its row of X
            block_reduce(check_finite, lambda parts: None, X, block_bytes=_BLOCK_BYTES)
        bad = int(np.flatnonzero(~(np.isfinite(ss) & np.isfinite(mean)))[0])
        raise ValueError(
            f"X contains NaN or infinite values (the first affected feature is column {bad}). "
            "Remove or impute them (for example with sklearn.impute.SimpleImputer) before scoring."
        )


def _column_mean(A):
    """Column means in float64 (NumPy's pairwise sum for in-memory data; one pass for Dask)."""
    if is_dask_array(A):
        total = block_reduce(lambda a: a.sum(axis=0, dtype=np.float64), sum_partials, A,
                             block_bytes=_BLOCK_BYTES)
        return np.asarray(total, dtype=np.float64) / A.shape[0]
    return np.asarray(A.mean(axis=0, dtype=np.float64))


def _sum_sq_about(a, mean):
    block = a.astype(np.float64) - mean
    return np.einsum("ij,ij->j", block, block)


def column_moments(A: ArrayLike, *, center: bool = True, route: Any = None) -> tuple[NDArray, NDArray]:
    """Column means and squared norms of the centred columns, in two passes without a copy.

    Parameters
    ----------
    A : ndarray, dask array or array-API array of shape (n_samples, n_features)
        Another array library than NumPy/Dask computes on A's device in A's float dtype.
    center : bool, default=True
        If False the mean is taken as zero.
    route : Route or None, default None
        The :class:`pixsel._routes.Route` of the fit that calls (where its data lives: NumPy,
        host views of another library on a CPU, a device); None follows the arrays given
        (:func:`pixsel._routes.placement`).

    Returns
    -------
    mean : array of shape (n_features,)
    column_sq_norms : array of shape (n_features,)
        ``sum_j (A[j, i] - mean[i])^2``, accumulated in float64 block by block.

    Raises
    ------
    ValueError
        If ``A`` contains NaN or infinite values (detected from the sums, also for Dask).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 2.0], [3.0, 2.0]])
    >>> mean, ss = column_moments(A)
    >>> mean.tolist(), ss.tolist()
    ([2.0, 2.0], [2.0, 0.0])
    """
    xp, dev = get_namespace(A, names=["A"])
    where = placement(xp, dev, route=route)
    if where == "host":  # NumPy's kernel on host views, no copy
        return call_on_host(column_moments, xp, dev, A, center=center)
    if where == "device":
        return _column_moments_xp(xp, dev, A, center)
    p = A.shape[1]
    mean = _column_mean(A) if center else np.zeros(p)
    ss = block_reduce(lambda a: _sum_sq_about(a, mean), sum_partials, A, block_bytes=_BLOCK_BYTES)
    ss = np.asarray(ss, dtype=np.float64)
    _check_finite_columns(mean, ss, A)
    return mean, ss


@dataclass(frozen=True)
class ClassSums:
    """Per-class sums of the globally centred columns (see :func:`class_sums`).

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    counts : ndarray of shape (n_classes,)
    mean : ndarray of shape (n_features,)
        The overall column means about which the sums are taken.
    sums : ndarray of shape (n_classes, n_features)
        ``s_c = sum_{i in c} (x_i - mean)``.
    squares : ndarray of shape (n_classes, n_features)
        ``q_c = sum_{i in c} (x_i - mean)^2`` (elementwise).
    """

    classes: np.ndarray
    counts: np.ndarray
    mean: np.ndarray
    sums: np.ndarray
    squares: np.ndarray


def _class_sums_partial(Xb, codes, mean, C):
    H = _onehot(codes, C)
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0: class_sums checks the sums
        F = np.asarray(Xb, dtype=np.float64) - mean
        return (F.T @ H).T, ((F * F).T @ H).T


def class_sums(X: ArrayLike, y: ArrayLike, *, classes: Any = None, route: Any = None) -> ClassSums:
    """Per-class counts, sums and sums of squares of the globally centred columns.

    Two passes (the column means, then the class sums about them); centring first keeps the
    sums of squares free of cancellation on data with large means (uint8 images).

    Parameters
    ----------
    X : ndarray, dask array or array-API array of shape (n_samples, n_features)
        Another array library than NumPy/Dask computes on X's device in X's float dtype
        (``sums``, ``squares`` and ``mean`` stay there; ``classes``, ``counts`` are NumPy).
    y : array-like of shape (n_samples,)
    classes : array-like, optional
        The labels to expect; default ``np.unique(y)``.
    route : Route or None, default None
        The :class:`pixsel._routes.Route` of the fit that calls (where its data lives: NumPy,
        host views of another library on a CPU, a device); None follows the arrays given
        (:func:`pixsel._routes.placement`).

    Returns
    -------
    ClassSums

    Raises
    ------
    ValueError
        If ``X`` contains NaN or infinite values.

    Examples
    --------
    >>> import numpy as np
    >>> cs = class_sums(np.array([[0.0], [2.0], [4.0], [6.0]]), [0, 0, 1, 1])
    >>> cs.mean.tolist(), cs.sums.tolist(), cs.squares.tolist()
    ([3.0], [[-4.0], [4.0]], [[10.0], [10.0]])
    """
    routed = _off_numpy(class_sums, _class_sums_xp, X, y, classes, route)
    if routed is not None:
        return routed
    y = _check_Xy(X, y)
    classes, codes = class_codes(y, classes)
    C = len(classes)
    mean = _column_mean(X)
    s, q = block_reduce(lambda xb, cb: _class_sums_partial(xb, cb, mean, C), sum_partials, X, codes,
                        block_bytes=_BLOCK_BYTES)
    _check_finite_columns(mean, q.sum(axis=0), X)
    return ClassSums(classes=classes, counts=np.bincount(codes, minlength=C).astype(np.int64),
                     mean=mean, sums=np.asarray(s), squares=np.asarray(q))


# --- any other array library: the same passes against the array API standard, on A's device

def _column_mean_xp(xp, A, wd):
    total = block_reduce(lambda a: xp.sum(xp.astype(a, wd, copy=False), axis=0), sum_partials, A,
                         block_bytes=_BLOCK_BYTES)
    return total / A.shape[0]


def _sum_sq_about_xp(xp, A, mean, wd):
    def part(a):
        block = xp.astype(a, wd, copy=False) - mean
        return xp.sum(block * block, axis=0)

    return block_reduce(part, sum_partials, A, block_bytes=_BLOCK_BYTES)


def _column_moments_xp(xp, dev, A, center):
    if A.ndim != 2:
        raise ValueError(f"A must be 2-D (n_samples, n_features); got {A.ndim} dimension(s).")
    wd = float_dtype(xp, A, dev, name="A")
    mean = _column_mean_xp(xp, A, wd) if center else xp.zeros(A.shape[1], dtype=wd, device=dev)
    ss = _sum_sq_about_xp(xp, A, mean, wd)
    _check_finite_columns(to_numpy(mean), to_numpy(ss))
    return mean, ss


def _class_sums_xp(xp, dev, X, y, classes):
    wd, classes, codes = _prepare_xp(xp, dev, X, y, classes)
    C = len(classes)
    mean = _column_mean_xp(xp, X, wd)

    def part(Xb, cb):
        H = one_hot(xp, cb, C, wd)
        F = xp.astype(Xb, wd, copy=False) - mean
        return (F.T @ H).T, ((F * F).T @ H).T

    s, q = block_reduce(part, sum_partials, X, codes, block_bytes=_BLOCK_BYTES)
    _check_finite_columns(to_numpy(mean), to_numpy(xp.sum(q, axis=0)))
    counts = np.bincount(to_numpy(codes), minlength=C).astype(np.int64)
    return ClassSums(classes=classes, counts=counts, mean=mean, sums=s, squares=q)
