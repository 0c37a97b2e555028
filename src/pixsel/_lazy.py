"""Lazy outputs: an estimator's ``transform`` of a Dask array is a Dask array.

A fitted selector or projection transforms each sample on its own, so a Dask array chunked by
rows is transformed chunk by chunk with the estimator's own NumPy ``transform``: one task per
row chunk, nothing computed until the caller asks (``.compute()``, ``da.to_zarr``, or
:func:`pixsel.datasets.write_zarr`), and on a ``dask.distributed`` cluster each worker transforms
the rows it reads. Masks, scores and components stay small NumPy arrays on the estimator.

Two ways to opt in, both without changing the NumPy path:

* :class:`DaskSelectorMixin` before ``SelectorMixin`` in a selector's bases (scikit-learn's
  ``SelectorMixin.transform`` would convert a Dask array to NumPy, pulling the whole result into
  memory);
* the :func:`dask_rows` decorator on a ``transform`` (or ``predict``) method written for NumPy.
"""

from __future__ import annotations

import functools

import numpy as np

from ._validation import NonFiniteError, check_input, get_support_image, is_dask_array

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["DaskSelectorMixin", "dask_rows", "map_row_blocks"]


def map_row_blocks(fn, X, *, owner=None):
    """Apply a row-wise NumPy function ``fn`` lazily to each row chunk of the Dask array ``X``.

    ``fn`` maps an ``(m, n_features)`` NumPy block to ``(m, n_out)`` (or ``(m,)``); the output's
    width and dtype are read from ``fn`` applied to one row of zeros. ``X`` is re-chunked to whole
    rows if its columns are split (a no-op for the stores' arrays). ``owner`` (a fitted estimator)
    makes the feature-count check speak its name.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> X = da.from_array(np.arange(12.0).reshape(6, 2), chunks=(4, 2))
    >>> Y = map_row_blocks(lambda b: b @ np.ones((2, 3)), X)
    >>> Y.shape, Y.chunks[0], float(Y.sum().compute())
    ((6, 3), (4, 2), 198.0)
    """
    if X.ndim != 2:
        raise ValueError(
            f"X must be 2-D (n_samples, n_features); got {X.ndim} dimension(s). "
            "Flatten images with X.reshape(len(X), -1)."
        )
    expected = getattr(owner, "n_features_in_", None)
    if expected is not None and X.shape[1] != expected:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(owner).__name__} is expecting {expected} "
            "features as input."
        )
    X = X.rechunk({1: -1})
    probe = np.asarray(fn(np.zeros((1, X.shape[1]), dtype=X.dtype)))

    def located(block, block_info=None):  # a NaN is reported at its row of X, not of the chunk
        if block_info is not None and block.dtype.kind in "fc" and not np.all(np.isfinite(block)):
            start = block_info[0]["array-location"][0][0]
            bad = np.argwhere(~np.isfinite(block))
            raise NonFiniteError(f"X (rows {start} to {start + len(block) - 1})", len(bad),
                                 (bad[0][0] + start, *bad[0][1:]))
        return fn(block)

    if probe.ndim == 1:
        return X.map_blocks(located, drop_axis=1, dtype=probe.dtype, meta=np.empty((0,), probe.dtype))
    return X.map_blocks(
        located, chunks=(X.chunks[0], (probe.shape[1],)), dtype=probe.dtype, meta=np.empty((0, 0), probe.dtype)
    )


def dask_rows(method):
    """Decorate a NumPy ``transform``/``predict`` so that a Dask array goes through it lazily.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from sklearn.base import BaseEstimator
    >>> class Double(BaseEstimator):
    ...     def fit(self, X, y=None):
    ...         self.n_features_in_ = X.shape[1]
    ...         return self
    ...     @dask_rows
    ...     def transform(self, X):
    ...         return 2 * np.asarray(X)
    >>> Y = Double().fit(np.ones((3, 2))).transform(da.ones((5, 2), chunks=(2, 2)))
    >>> Y.chunks, Y.compute()[0].tolist()
    (((2, 2, 1), (2,)), [2.0, 2.0])
    """

    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        if is_dask_array(X):
            from sklearn.utils.validation import check_is_fitted

            check_is_fitted(self)
            return map_row_blocks(functools.partial(method, self, *args, **kwargs), X, owner=self)
        return method(self, X, *args, **kwargs)

    return wrapper


class DaskSelectorMixin:
    """Put before ``SelectorMixin``: ``transform`` of a Dask array keeps the selected columns lazily."""

    get_support_image = get_support_image  # the support as an image of shape image_shape_

    def transform(self, X: ArrayLike) -> NDArray:
        """Reduce ``X`` to the selected features (a Dask array stays a lazy Dask array).

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)

        Returns
        -------
        X_r : ndarray or dask array of shape (n_samples, n_selected_features)
        """
        if not is_dask_array(X):  # an image stack (n, h, w) is flattened first
            return super().transform(check_input(self, X, reset=False))
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        idx = np.flatnonzero(self.get_support())
        return map_row_blocks(lambda block: block[:, idx], X, owner=self)
