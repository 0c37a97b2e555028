"""The one way pixsel walks over samples: a block reduction for NumPy and Dask arrays.

A statistic is written as two small functions:

* ``part(X_block, *row_arrays_block) -> partial``, the statistic of a block of rows (a small
  object: counts, sums, a ``p x p`` scatter...), and
* ``merge(list_of_partials) -> partial``, which combines partials exactly.

:func:`block_reduce` feeds ``part`` with row blocks of bounded size (at most ``block_bytes`` of
float64 working memory) of a NumPy array, or, for a Dask array, with the row blocks of each chunk
(every chunk is reduced by the very same NumPy code inside one task). Partials are folded into a
running accumulator as they come, never gathered in a list: a NumPy array of any length holds one
block partial and one accumulator at a time.

On Dask the chunks are folded along a few independent chains, one per thread of the scheduler
(on a ``dask.distributed`` cluster: one per worker thread), each task reading one chunk and
merging its partial into the chain's accumulator; the chains' results are then merged pairwise.
The read is part of the fold task (the tasks that make a chunk run inside it): a chunk is read
when its fold step runs, so a worker holds one chunk per thread, never chunks read ahead.
So a worker holds one accumulator and the partial of the chunk it is reading (two partials; a
tree of fan-in 8 held nine, too many for a worker's memory at large ``p`` for a ``p x p``
scatter). Up to four chain results come back to the caller, who merges them in place; beyond
four they are first merged pairwise by tasks (three partials on a worker for those merges). A
chain's tasks run where its accumulator is (the scheduler's data locality), so only the chains'
results cross the network. NumPy and Dask input agree to rounding.
"""

from __future__ import annotations

import numpy as np

from .._validation import NonFiniteError, is_dask_array

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["block_reduce", "sum_partials"]

#: default bytes of float64 working memory per row block (rows per block = this / (8 p)).
BLOCK_BYTES = 64 * 2**20

#: at most this many chain results are sent to the caller and merged there (more are first
#: merged pairwise by tasks).
_CLIENT_MERGE = 4

#: shared data of at most this size (a store's array object) is copied into every chunk's task.
_INLINE_BYTES = 1 << 20


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


def block_rows(p: int, block_bytes: int = BLOCK_BYTES, min_rows: int = 1) -> int:
    """Rows per block of :func:`block_reduce` for ``p`` columns (a NumPy ``X`` of at most this
    many rows is one block: its partial, through one fold, is the result)."""
    return max(min_rows, block_bytes // (8 * max(p, 1)), 1)


def single_block(part, X, *args, block_bytes: int = BLOCK_BYTES, min_rows: int = 1):
    """``part(X, *args)`` when :func:`block_reduce` would read a NumPy ``X`` as one block (its
    result is then this partial through one merge), with the same error for a NaN; None for
    more rows, or for Dask and other arrays. For callers whose merge of a single partial is
    cheaper done by hand than through the reduction's machinery (small tables)."""
    if not isinstance(X, np.ndarray) or X.shape[0] > block_rows(X.shape[1], block_bytes, min_rows):
        return None
    return _located(part, 0, X, *args)


def _numpy_reduce(part, merge, X, rows_arrays, block_bytes, min_rows, start=0, merge_inplace=None):
    """Fold the blocks' partials into one as they come (one block partial alive at a time)."""
    n, p = X.shape
    rows = block_rows(p, block_bytes, min_rows)
    fold = merge_inplace or merge
    acc = None
    for i in range(0, max(n, 1), rows):
        # in-bounds slices: the standard's rule
        new = _located(part, start + i, X[i : min(i + rows, n), ...],
                       *(r[i : min(i + rows, n), ...] for r in rows_arrays))
        acc = fold([new]) if acc is None else fold([new, acc])  # new is ours: fold may reuse it
    return acc


def _parallel_slots():
    """How many tasks the current Dask scheduler runs at once (the number of fold chains)."""
    import os

    import dask

    scheduler = dask.config.get("scheduler", None)
    if scheduler in (None, "dask.distributed", "distributed"):
        try:
            from distributed import default_client

            return max(1, sum(default_client().nthreads().values()))
        except (ImportError, ValueError):  # no distributed, or no client: the local schedulers
            pass
    if scheduler in ("sync", "synchronous", "single-threaded"):
        return 1
    return max(1, int(dask.config.get("num_workers", None) or os.cpu_count() or 1))


def block_reduce(
    part: Callable[..., Any],
    merge: Callable[[list], Any],
    X: Any,
    *row_arrays: Any,
    block_bytes: int = BLOCK_BYTES,
    min_rows: int = 1,
    merge_inplace: Callable[[list], Any] | None = None,
    chains: int | None = None,
) -> Any:
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
    merge_inplace : callable, optional
        Like ``merge`` but free to overwrite its FIRST partial (always one just computed by
        ``part`` in the same task or block, never an input another task may read again) and to
        return it; saves one partial of memory (and its copy) per fold, for NumPy and Dask input
        alike. Default: ``merge``.
    chains : int, optional
        Dask only: the number of independent fold chains; default one per thread of the
        scheduler (the cluster's worker threads under a ``dask.distributed`` client).

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
        return _numpy_reduce(part, merge, X, row_arrays, block_bytes, min_rows, merge_inplace=merge_inplace)
    row_arrays = tuple(np.asarray(r) for r in row_arrays)

    import uuid

    import dask
    from dask._task_spec import cull
    from dask.delayed import Delayed

    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    graph, reads = _fused_reads(X)
    fold_merge = merge_inplace or merge
    rows = X.chunks[0]
    starts = np.concatenate([[0], np.cumsum(rows[:-1])]).astype(int).tolist()
    n_chains = max(1, min(len(rows), chains or _parallel_slots()))
    name = f"chunk-{uuid.uuid4().hex}"  # never a key of an earlier call (its part may differ)

    def step(acc, xb, start, rb):
        """One chunk's partial, merged into the chain's accumulator (never modified: a retried
        task must find it as it was)."""
        new = _numpy_reduce(part, merge, np.asarray(xb), rb, block_bytes, min_rows, start, merge_inplace)
        return new if acc is None else fold_merge([new, acc])

    last = []
    for c in range(n_chains):  # chain c folds chunks c, c + n_chains, ...: all chains advance in row order
        prev = None
        for i in range(c, len(rows), n_chains):
            s, e = starts[i], starts[i] + rows[i]
            key = (name, i)
            graph[key] = reads[i](key, step, prev, s, tuple(r[s:e] for r in row_arrays))
            prev = key
        last.append(prev)
    graph = cull(graph, last)  # drops what every chunk's task carries inside itself
    accs = [Delayed(k, graph) for k in last]
    merge_task = dask.delayed(merge, pure=True)
    while len(accs) > _CLIENT_MERGE:  # many chains: merged pairwise on the workers first
        accs = [merge_task(accs[i : i + 2]) if i + 1 < len(accs) else accs[i] for i in range(0, len(accs), 2)]
    # the last few here: they are ours now, so the first is merged into in place (no worker holds
    # two accumulators and their sum)
    parts = list(dask.compute(*accs, optimize_graph=False))
    return parts[0] if len(parts) == 1 else fold_merge(parts)


def _fused_reads(X):
    """``X``'s (optimized) graph and, per row chunk, a builder of the task that reads and folds it.

    ``reads[i](key, step, prev, *args)`` returns ONE task computing ``step(acc, x_i, *args)``
    (``acc`` the result of the task ``prev``, or None) that also computes chunk ``i`` of ``X``
    itself: the tasks only chunk ``i`` needs (reading it from its store, slicing, converting)
    run inside it, so a chunk is read when its fold step runs, never ahead of it. Reads that
    are separate tasks are ready at once and the scheduler runs them ahead of the chains, whose
    steps wait for each other: on a cluster the read chunks piled up in worker memory (several GiB
    per worker for a million-image store). What several chunks share (the store's array object, an
    in-memory array) stays a key of the graph, referenced by the tasks (the caller culls the
    keys every task carries inside itself); small shared
    data (the store's array object) is copied into every task, so that the first task of a chain
    depends on nothing and the scheduler spreads the chains over the workers.
    """
    from dask._task_spec import DataNode, GraphNode, Task, TaskRef, convert_legacy_graph
    from dask.core import reverse_dict
    from dask.sizeof import sizeof

    keys = [k for row in X.__dask_keys__() for k in row]
    dsk = convert_legacy_graph(dict(X.__dask_optimize__(X.__dask_graph__(), keys)))
    deps = {k: v.dependencies for k, v in dsk.items()}
    dependents = reverse_dict(deps)

    def inline(node, n_dependents):
        """Whether a chunk's task computes ``node`` itself: a task only that chunk needs, or small
        data (the store's array object: a path and metadata) copied into every task that reads
        through it; large shared data (an in-memory array) stays one key of the graph."""
        if isinstance(node, DataNode):
            return sizeof(node.value) <= _INLINE_BYTES
        return isinstance(node, GraphNode) and n_dependents == 1

    def builder(ck):
        private = []
        if ck in dsk and inline(dsk[ck], 1):
            private.append(dsk[ck])
            todo = [ck]
            while todo:
                for d in deps[todo.pop()]:
                    if d in dsk and d not in seen and inline(dsk[d], len(dependents[d])):
                        seen.add(d)
                        private.append(dsk[d])
                        todo.append(d)
            seen.clear()

        def build(key, step, prev, *args):
            tail = Task(key, step, None if prev is None else TaskRef(prev), TaskRef(ck), *args)
            return Task.fuse(*private, tail, key=key) if private else tail

        return build

    seen = set()
    return dsk, [builder(ck) for ck in keys]
