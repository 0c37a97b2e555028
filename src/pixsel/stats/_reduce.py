"""The one way pixsel walks over samples: a block reduction for NumPy and Dask arrays.

A statistic is written as two small functions:

* ``part(X_block, *row_arrays_block) -> partial``, the statistic of a block of rows (a small
  object: counts, sums, a ``p x p`` scatter...), and
* ``merge(list_of_partials) -> partial``, which combines partials exactly.

:func:`block_reduce` feeds ``part`` with row blocks of bounded size (at most ``block_bytes`` of
float64 working memory) of a NumPy array, or, for a Dask array, with the row blocks of each chunk
(every chunk is reduced by the very same NumPy code inside one task) and merges the chunks'
partials as a tree of tasks (fan-in 8). A chunk is released as soon as its partial is computed,
so the peak memory is a few chunks whatever the size of the array, and NumPy and Dask input
agree to rounding.
"""

from __future__ import annotations

import numpy as np

from .._validation import NonFiniteError, is_dask_array

__all__ = ["block_reduce", "sum_partials"]

#: default bytes of float64 working memory per row block (rows per block = this / (8 p)).
BLOCK_BYTES = 64 * 2**20

#: how many partials one merge task combines in the Dask reduction tree.
_FANIN = 8


def sum_partials(parts):
    """``merge`` for partials that are arrays or tuples of arrays: the elementwise sum.

    Summed left to right (``0 + p_0 + p_1 + ...``), i.e. exactly as a running accumulation.

    Examples
    --------
    >>> import numpy as np
    >>> sum_partials([(np.ones(2), 1.0), (np.ones(2), 2.0)])
    (array([2., 2.]), 3.0)
    """
    first = parts[0]
    if isinstance(first, tuple):
        return tuple(sum(p[i] for p in parts) for i in range(len(first)))
    return sum(parts)


def _located(part, start, Xb, *rb):
    """``part`` on the rows ``start, start + 1, ...`` of X; a NaN is reported at its global row."""
    try:
        return part(Xb, *rb)
    except NonFiniteError as exc:
        index = (exc.index[0] + start,) + exc.index[1:]
        raise NonFiniteError(f"X (rows {start} to {start + len(Xb) - 1})", exc.count, index) from None


def _numpy_reduce(part, merge, X, rows_arrays, block_bytes, min_rows, start=0):
    n, p = X.shape
    rows = max(min_rows, block_bytes // (8 * max(p, 1)), 1)
    parts = [
        _located(part, start + i, X[i : min(i + rows, n), ...],  # in-bounds slices: the standard's rule
                 *(r[i : min(i + rows, n), ...] for r in rows_arrays))
        for i in range(0, max(n, 1), rows)
    ]
    return merge(parts)


def block_reduce(part, merge, X, *row_arrays, block_bytes=BLOCK_BYTES, min_rows=1):
    """Reduce ``X`` (and NumPy arrays aligned with its rows) block by block.

    Parameters
    ----------
    part : callable
        ``part(X_block, *row_array_blocks)``; receives slices of ``X`` (NumPy for NumPy and Dask
        input, the array's own library otherwise; never modified, convert inside ``part``).
    merge : callable
        ``merge(list_of_partials)``, exact and associative; for plain sums use
        :func:`sum_partials`.
    X : ndarray or dask array of shape (n_samples, n_features)
        A Dask array is rechunked to one column chunk (rows keep their chunks) and never
        materialized whole.
    *row_arrays : arrays of shape (n_samples, ...)
        Arrays sliced like the rows of ``X`` (labels, class codes): NumPy for NumPy and Dask
        ``X``, in ``X``'s library and on its device otherwise.
    block_bytes : int
        Float64 working memory per block of rows.
    min_rows : int
        Smallest number of rows per block.

    Returns
    -------
    The merged partial. It has been through ``merge`` at least once, so NumPy and Dask input
    with a single block return the same thing.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(12.0).reshape(6, 2)
    >>> block_reduce(lambda b: b.sum(axis=0), sum_partials, X, block_bytes=32)
    array([30., 36.])
    """
    if not is_dask_array(X):
        if isinstance(X, np.ndarray):
            row_arrays = tuple(np.asarray(r) for r in row_arrays)
        # any other array-API array (torch, CuPy, array-api-strict): its row slices, on its device
        return _numpy_reduce(part, merge, X, row_arrays, block_bytes, min_rows)
    row_arrays = tuple(np.asarray(r) for r in row_arrays)

    import dask
    import dask.array as da

    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    xblocks = X.to_delayed().ravel()
    rblocks = [
        da.from_array(r, chunks=(X.chunks[0],) + tuple((s,) for s in r.shape[1:])).to_delayed().ravel()
        for r in row_arrays
    ]

    def chunk(xb, start, *rb):
        return _numpy_reduce(part, merge, np.asarray(xb), rb, block_bytes, min_rows, start)

    task = dask.delayed(chunk, pure=True)
    merge_task = dask.delayed(merge, pure=True)
    starts = np.concatenate([[0], np.cumsum(X.chunks[0][:-1])]).astype(int).tolist()
    parts = [task(xb, s, *rb) for xb, s, *rb in zip(xblocks, starts, *rblocks)]
    while len(parts) > 1:  # tree reduction: bounded memory, parallel merges
        parts = [merge_task(parts[i : i + _FANIN]) for i in range(0, len(parts), _FANIN)]
    return dask.compute(parts[0])[0]
