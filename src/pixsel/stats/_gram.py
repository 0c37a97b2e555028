"""The centred Gram matrix of the data, used through the data (image scale, ``N << p``).

``G = Xc^T Xc / N + alpha I`` with ``Xc = X - M[y]`` (every row minus its class mean; the overall
mean when there are no labels) is the within-class covariance (LDA, plus a ridge) or the
covariance (PCA). At ``p = 16384`` it would cost ``8 p^2`` bytes and ``N p^2`` flops, while a
forward greedy path to ``k`` needs only its diagonal and ``k`` of its columns. A block of columns
``idx`` is ``X^T (X[:, idx] - M[y, idx]) / N``: the class-centred columns have zero class sums,
so the means never multiply a ``p``-vector. ``X`` is never copied or centred whole.

Dtype policy (float32 data give the float64 answer). ``X`` stays in its dtype (float32 is kept:
half the memory of a float64 copy), but every product over the rows is accumulated in float64:
each tile of the rows of an array or chunk (at most ``block_bytes`` of float64, a few MiB) is
converted to float64 just before its ``dgemm``. This is where it matters: the forward kernels subtract ``L L^T`` from these
columns (a Schur complement), a difference of nearly equal numbers once the support explains
most of a candidate; a float32 accumulation leaves ``~1e-7 |G|`` absolute error there, which the
small pivots turn into a relative error that grows along the path (``2e-6`` at ``k = 50`` to
``4e-3`` at ``k = 300`` on faces with ``p = 10304``). With float64 accumulation the float32 and
float64 copies of the same data give the same columns to rounding (the products see the same
float64 values). The conversion costs one ``O(N p)`` pass per block of columns; blocking the
columns (:meth:`CenteredGramOperator.columns`) amortizes it. The diagonal is accumulated from
the exactly centred rows in float64 (no ``E[x^2] - E[x]^2`` cancellation).

uint8 / int8 / bool images are multiplied EXACTLY at float32 speed: ``z = x - 128`` (uint8)
lies in [-128, 127], so a float32 product over at most 1024 rows is an integer below ``2^24``
(exact), added into float64 (exact integers below ``2^53``). The class centring is applied once,
on the caller, from the exact class sums ``s_c`` of ``z``: ``Xc^T Xc[:, idx] = Z^T Z[:, idx] -
sum_c s_c s_c[idx]^T / n_c``, the only rounding of the pass (a pixel constant within every class
comes out exactly zero). The tasks never see a non-integer, so any chunking and order give the
same bits, and ``X`` is never converted whole (1 byte a pixel in memory).

NumPy or Dask. A NumPy array or a Dask array under a local scheduler goes through
:func:`~pixsel.stats._reduce.block_reduce`. On a ``dask.distributed`` cluster (an active
``Client``) a pass is one task per row chunk, chunk ``i`` always on worker thread ``i mod T``,
where the tasks of a thread fold their partials in a chain; each task reads its own chunk (no
read task whose 16 MiB output would travel) or, inside :meth:`CenteredGramOperator.cached` (the
forward path uses it), finds it kept in the worker's memory in its own dtype, so the dozens of
passes of a path read the store once. Only ``p``-vectors and ``p x b`` panels come back, merged
pairwise on the workers down to four: no ``N x p`` or ``p x p`` array on the client.
:attr:`CenteredGramOperator.n_passes` counts the passes over ``X``.

:func:`centered_gram_matmat` and :func:`centered_projected_gram` are the two passes of the block
Krylov SVD (:func:`pixsel.scores.block_krylov_svd`): ``A_c^T (A_c V)`` and ``(A_c Q)^T (A_c Q)``
for a small block, centring implicit (``A_c V = A V - 1 (mean^T V)``), NumPy or Dask.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import uuid

import numpy as np

from .._array_api import get_namespace, is_numpy
from .._threads import blas_limit
from .._validation import as_float_array, check_options, check_real, is_dask_array
from ._moments import _EXACT_ROWS, ClassMeans, _check_counts, _small_int_offset, class_codes, class_means
from ._reduce import _CLIENT_MERGE, _located, block_reduce, sum_partials

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["CenteredGramOperator", "ShrunkGramOperator", "centered_gram_matmat", "centered_projected_gram"]

#: float64 working memory of the operator's passes: a tile of rows x columns converted to float64.
GRAM_BLOCK_BYTES = 4 * 2**20

#: ``block_reduce`` hands each NumPy array or Dask chunk whole to the operator's ``part``.
_WHOLE = 2**62
#: an in-memory X of at most this many entries runs its passes on one BLAS thread: each pass is a
#: skinny product ((b x n) times (n x p), b a few columns) that a second thread does not speed up,
#: and that a busy machine makes several times slower (the threads wait for each other's turn)
_ONE_THREAD_ENTRIES = 2**22


def _f64(a):
    """A block of rows as float64 (a no-copy view for float64 data)."""
    return np.asarray(a, dtype=np.float64)


class _GramAccess:
    """What :class:`CenteredGramOperator` and :class:`pixsel.stats.DeviceGramOperator` share above
    their passes (``columns``, ``diag``): the pass count, the ridge, one column."""

    @property
    def n_passes(self) -> int:
        return self._state["passes"]

    def with_alpha(self, alpha: float) -> Self:
        """The same operator (sharing ``X`` and the means, nothing recomputed) with ridge ``alpha``."""
        out = copy.copy(self)
        out.alpha = check_real(alpha, "alpha", low=0, owner=type(self).__name__)
        return out

    def mean_variance(self) -> float:
        """``trace(Xc^T Xc / N) / p``, the mean of the diagonal without the ridge (one pass the first time)."""
        return float(np.mean(self.diag() - self.alpha))

    def column(self, j: int) -> NDArray:
        """Column ``j`` (one pass); prefer :meth:`columns` for several."""
        return self.columns([j])[:, 0]


class CenteredGramOperator(_GramAccess):
    """``G = Xc^T Xc / N + alpha I`` with ``Xc = X - M[y]``, used through ``X`` only.

    The column-access protocol of the forward greedy kernels (``p``, ``diag()``, ``column(j)``,
    ``columns(idx)``, ``submatrix(idx)``); the ``p x p`` matrix is never formed. Products are
    accumulated in float64 whatever the dtype of ``X`` (see the module docstring); uint8, int8
    and bool images are multiplied EXACTLY in float32 tiles (integers below ``2^24``).

    Parameters
    ----------
    X : array-like or dask array of shape (n_samples, n_features)
        Data; float32, float64, uint8, int8 and bool are kept (no copy), other integers converted
        to float64 (a Dask array is kept as it is and converted block by block). Never modified.
        A Dask array should be chunked by rows (one chunk of columns); every pass then runs chunk
        by chunk where the chunks live (the workers of a ``dask.distributed`` cluster).
    y : array-like of shape (n_samples,) or None
        Class labels: each row is centred at its class mean. ``None``: at the overall mean.
    classes : array-like, optional
        The labels to expect; default ``np.unique(y)``.
    alpha : float, default=0.0
        Ridge added to the diagonal.
    block_bytes : int, optional
        Working memory of a pass (default 4 MiB): the rows of an array or chunk are converted a
        tile of columns at a time.
    cache : {'auto', True, False}, default='auto'
        Dask on a ``dask.distributed`` cluster only: inside :meth:`cached` (as the forward path
        uses it), keep the row chunks in the workers' memory in their own dtype (uint8 images:
        one byte a pixel), so that the passes do not read the store again. ``'auto'``: when
        each worker's share is at most 40 % of its memory limit.

    Attributes
    ----------
    X : ndarray or dask array of shape (n_samples, n_features)
    codes : ndarray of shape (n_samples,)
        Class index of every row.
    class_means : ClassMeans
        The class means used for centring (one class when ``y`` is None).
    n, p : int
    alpha : float
    n_passes : int
        Passes over ``X`` so far (the class means, the diagonal, every block of columns), shared
        with the copies made by :meth:`with_alpha`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 1.], [2., 1.], [4., 5.], [6., 7.]])
    >>> G = CenteredGramOperator(X, [0, 0, 1, 1])
    >>> G.submatrix([0, 1]).tolist()  # the pooled within-class covariance
    [[1.0, 0.5], [0.5, 0.5]]
    >>> G.column(1).tolist(), G.diag().tolist()
    ([0.5, 0.5], [1.0, 0.5])
    >>> G.n_passes  # the means, two columns, the diagonal
    4
    """

    def __init__(
        self,
        X: ArrayLike,
        y: ArrayLike | None = None,
        *,
        classes: Any = None,
        alpha: float = 0.0,
        block_bytes: int = GRAM_BLOCK_BYTES,
        cache: bool | str = "auto",
    ) -> None:
        if is_dask_array(X):
            if X.ndim != 2:
                raise ValueError(
                    f"X must be a 2-D array of shape (n_samples, n_features); got an array with "
                    f"{X.ndim} dimension(s). Flatten images with X.reshape(len(X), -1)."
                )
            self.X = X
        else:
            arr = np.asarray(X)
            small = arr.ndim == 2 and _small_int_offset(arr.dtype) is not None
            self.X = arr if small else as_float_array(X, "X")  # small integers: exact float32 tiles
        if not isinstance(cache, bool):
            check_options(cache, "cache", ("auto",), owner="CenteredGramOperator")
        self.cache = cache
        self._offset = _small_int_offset(self.X.dtype)  # None: float data
        self.n, self.p = (int(s) for s in self.X.shape)
        if y is None:
            self.codes = np.zeros(self.n, dtype=np.intp)
            classes = np.zeros(1, dtype=np.intp)
        else:
            classes, self.codes = class_codes(y, classes)
        self.block_bytes = int(block_bytes)
        self._state = {"passes": 0, "diag": None, "chunks": None}  # shared with with_alpha copies
        self.class_means = self._class_means(y, classes)
        self.means = self.class_means.means  # (C, p) float64
        self.alpha = check_real(alpha, "alpha", low=0, owner="CenteredGramOperator")

    def _class_means(self, y, classes):
        """:func:`~pixsel.stats.class_means` in one pass whose partials are single ``C x p`` sums
        (tiles of columns; at ``C = 50``, ``p = 16384`` a list of per-block partials would cost
        3 x X); on a non-finite sum, :func:`class_means` itself locates the bad row."""
        C = len(classes)
        if self._offset is not None:
            # exact integer class sums of z = x - offset (kept: the exact class correction)
            counts, zsums = self._reduce(_sums_part_int, C=C, off=self._offset, block_bytes=self.block_bytes)
            _check_counts(classes, counts)
            self._zsums = zsums
            sums = zsums + self._offset * counts[:, None]
        else:
            counts, sums = self._reduce(_sums_part, C=C, block_bytes=self.block_bytes)
            _check_counts(classes, counts)
            if not np.all(np.isfinite(sums)):
                class_means(self.X, y, classes=classes)  # raises, naming the global row
        means = sums / counts[:, None]
        self._counts = counts
        return ClassMeans(classes=classes, counts=counts.astype(np.int64), means=means,
                          mean=(counts @ means) / self.n, n_samples=self.n)

    def _correction(self, idx=None):
        """``sum_c s_c s_c[idx]^T / n_c`` from the exact class sums of ``z`` (integer data): what
        ``Z^T Z`` exceeds the class-centred ``Xc^T Xc`` by, the only rounding of an integer pass."""
        S = self._zsums
        return S.T @ (S[:, idx] / self._counts[:, None])

    @contextlib.contextmanager
    def cached(self) -> Iterator[CenteredGramOperator]:
        """Within this context, a Dask ``X`` on a ``dask.distributed`` cluster stays on the workers.

        Each row chunk is read once (by the worker that will use it) and kept in the workers'
        memory in its own dtype until the context exits; every pass inside runs its chunk's task
        where the chunk is. Without a cluster, with ``cache=False``, or with ``cache='auto'`` when
        a worker's share would exceed 40 % of its memory limit, nothing changes (each pass
        reads the store). Shared with the copies made by :meth:`with_alpha`; nests.
        """
        if self._state["chunks"] is not None or not is_dask_array(self.X) or self.cache is False:
            yield self
            return
        client = _distributed_client()
        if client is None:
            yield self
            return
        X = _one_column_chunk(self.X)
        slots = _worker_slots(client)
        sizes = [r * self.p * X.dtype.itemsize for r in X.chunks[0]]
        if not slots or (self.cache == "auto" and not _fits(client, slots, sizes)):
            yield self
            return
        reads = X.to_delayed().ravel()
        tag = uuid.uuid4().hex[:12]
        futures = [
            client.submit(_read_chunk, _Chunk(d), key=f"gram-chunk-{tag}-{i}", workers=[slots[i % len(slots)]],
                          allow_other_workers=True, pure=False)
            for i, d in enumerate(reads)
        ]
        self._state["chunks"] = futures
        try:
            yield self
        finally:
            self._state["chunks"] = None
            client.cancel(futures)

    def _reduce(self, part, **kw):
        # one call of ``part`` per NumPy array or Dask chunk (it tiles the rows and columns itself,
        # so the working memory stays ``block_bytes`` and the partials are single p-panels); the
        # task carries only what it needs (module-level functions: never the operator or X)
        self._state["passes"] += 1
        fn = functools.partial(part, **kw)
        if is_dask_array(self.X):
            client = _distributed_client()
            if client is not None:
                return _cluster_reduce(client, fn, _one_column_chunk(self.X), self.codes, self._state["chunks"])
        small = not is_dask_array(self.X) and self.n * self.p <= _ONE_THREAD_ENTRIES
        with blas_limit(1 if small else None):
            return block_reduce(fn, sum_partials, self.X, self.codes, block_bytes=_WHOLE,
                                merge_inplace=_sum_into_first)

    def diag(self) -> NDArray:
        """The diagonal (one pass, the first time; then remembered)."""
        if self._state["diag"] is None:
            if self._offset is not None:
                sq = self._reduce(_diag_part_int, off=self._offset, block_bytes=self.block_bytes)
                sq = sq - np.einsum("cj,cj->j", self._zsums, self._zsums / self._counts[:, None])
            else:
                sq = self._reduce(_diag_part, means=self.means, block_bytes=self.block_bytes)
            self._state["diag"] = np.asarray(sq, dtype=np.float64) / self.n
        return self._state["diag"] + self.alpha

    def columns(self, idx: ArrayLike) -> NDArray:
        """Columns ``idx`` as a ``(p, len(idx))`` float64 panel, all in one pass over ``X``."""
        idx = np.asarray(idx, dtype=np.intp).ravel()
        if self._offset is not None:
            raw = self._reduce(_columns_part_int, idx=idx, off=self._offset, block_bytes=self.block_bytes)
            cols = raw.T - self._correction(idx)
        else:
            raw = self._reduce(_columns_part, idx=idx, means=self.means[:, idx], block_bytes=self.block_bytes)
            cols = np.array(raw.T, dtype=np.float64)
        cols /= self.n
        cols[idx, np.arange(len(idx))] += self.alpha
        return cols

    def submatrix(self, idx: ArrayLike) -> NDArray:
        """``G[idx][:, idx]`` (one pass; only the columns ``idx`` of ``X`` enter the products)."""
        idx = np.asarray(idx, dtype=np.intp).ravel()
        if self._offset is not None:
            sub = self._reduce(_submatrix_part_int, idx=idx, off=self._offset)
            sub = sub - self._correction(idx)[idx]
        else:
            sub = self._reduce(_submatrix_part, idx=idx, means=self.means[:, idx])
        return np.asarray(sub, dtype=np.float64) / self.n + self.alpha * np.eye(len(idx))


def _sum_into_first(parts):
    """:func:`~pixsel.stats._reduce.sum_partials` written into the first partial (one a pass has
    just computed, see ``block_reduce(merge_inplace=...)``) where it is a float64 array: the same
    sums in the same order (``0 + p_0 + p_1 + ...``), without a copy of a ``p x b`` panel."""
    first = parts[0]
    if not (isinstance(first, np.ndarray) and first.dtype == np.float64 and first.flags.writeable):
        return sum_partials(parts)
    first += 0.0  # sum_partials starts from 0 (a -0.0 becomes 0.0 there too)
    for part in parts[1:]:
        first += part
    return first


# --- the passes on a dask.distributed cluster ---------------------------------------------------

def _distributed_client():
    """The active ``dask.distributed`` client, or None (no client, or another scheduler chosen)."""
    import dask

    if dask.config.get("scheduler", None) not in (None, "dask.distributed", "distributed"):
        return None
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


def _one_column_chunk(X):
    return X.rechunk({1: -1}) if len(X.chunks[1]) > 1 else X


def _worker_slots(client):
    """One entry per worker thread, interleaved across workers (w0, w1, ..., w0, w1, ...)."""
    nthreads = client.nthreads()
    workers = sorted(nthreads)
    return [w for t in range(max(nthreads.values(), default=0)) for w in workers if t < nthreads[w]]


def _fits(client, slots, sizes, share=0.4):
    """Whether the chunks, dealt round robin to ``slots``, take at most ``share`` of each worker's
    memory limit (unknown limits: no)."""
    limits = {w: info.get("memory_limit") for w, info in client.scheduler_info()["workers"].items()}
    held = dict.fromkeys(limits, 0)
    for i, s in enumerate(sizes):
        held[slots[i % len(slots)]] += s
    return all(limits.get(w) and held[w] <= share * limits[w] for w in held)


class _Chunk:
    """A row chunk's own (tiny) graph, opaque to the scheduler: the task that gets it reads it
    (no separate read task whose output would travel to the task)."""

    __slots__ = ("graph",)

    def __init__(self, graph):
        self.graph = graph


def _read_chunk(chunk):
    return np.asarray(chunk.graph.compute(scheduler="sync"))


def _fold(acc, source, codes, start, part):
    """One chunk's partial (``source`` the chunk held on this worker, or a :class:`_Chunk` to read),
    added INTO the fresh partial (``acc`` is never modified: a retried task finds it intact)."""
    xb = source if isinstance(source, np.ndarray) else _read_chunk(source)
    new = _located(part, start, xb, codes)
    return new if acc is None else sum_partials([new, acc])


def _cluster_reduce(client, part, X, codes, chunks=None):
    """One pass of ``part`` over the row chunks of ``X`` on the cluster: chunk ``i`` goes to
    worker thread ``i mod T`` (where :meth:`CenteredGramOperator.cached` keeps it), whose tasks
    fold their partials in a chain (one accumulator per thread, no chunk moves between workers);
    the chains' results (p-vectors, p x b panels) are merged pairwise on the workers down to
    four, which the caller adds."""
    slots = _worker_slots(client) or [None]  # no worker yet: wherever the scheduler likes
    starts = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(int)
    sources = chunks if chunks is not None else [_Chunk(d) for d in X.to_delayed().ravel()]
    tag = uuid.uuid4().hex[:12]
    accs = {}
    for i, src in enumerate(sources):
        s = i % len(slots)
        accs[s] = client.submit(
            _fold, accs.get(s), src, codes[starts[i] : starts[i + 1]], int(starts[i]), part,
            key=f"chunk-{tag}-{i}", workers=slots[s] and [slots[s]], allow_other_workers=slots[s] is not None,
            pure=False,
        )
    accs = list(accs.values())
    while len(accs) > _CLIENT_MERGE:
        accs = [client.submit(sum_partials, accs[i : i + 2], key=f"merge-{tag}-{len(accs)}-{i}", pure=False)
                if i + 1 < len(accs) else accs[i] for i in range(0, len(accs), 2)]
    parts = client.gather(accs)
    return parts[0] if len(parts) == 1 else sum_partials(parts)


# --- the passes: one call per NumPy array or Dask chunk ---------------------------------------

def _tiles(n_rows, p, block_bytes, itemsize=8):
    """Column slices whose tile of ``n_rows`` rows stays within ``block_bytes``."""
    width = max(1, block_bytes // (itemsize * max(n_rows, 1)))
    return [slice(c, min(c + width, p)) for c in range(0, p, width)]


def _sums_part(xb, cb, *, C, block_bytes):
    onehot = np.zeros((len(cb), C))
    onehot[np.arange(len(cb)), cb] = 1.0
    sums = np.empty((C, xb.shape[1]))
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0: the caller checks the sums
        for c in _tiles(len(xb), xb.shape[1], block_bytes):
            sums[:, c] = onehot.T @ _f64(xb[:, c])
    return np.bincount(cb, minlength=C).astype(np.float64), sums


def _diag_part(xb, cb, *, means, block_bytes):
    out = np.empty(xb.shape[1])
    for c in _tiles(len(xb), xb.shape[1], block_bytes):
        xc = _f64(xb[:, c]) - means[cb, c]  # exactly centred: no E[x^2] - E[x]^2 cancellation
        out[c] = np.einsum("ij,ij->j", xc, xc)
    return out


def _columns_part(xb, cb, *, idx, means, block_bytes):
    """``Xc[:, idx]^T X`` as a ``(b, p)`` panel: (b x rows) times (rows x tile), BLAS's fast
    orientation for row-major X (the transposed product is several times slower for small b)."""
    xs = _f64(xb[:, idx]) - means[cb]  # (rows, b) class-centred; means is (C, b)
    out = np.empty((len(idx), xb.shape[1]))
    for c in _tiles(len(xb), xb.shape[1], block_bytes):  # a float64 tile, one dgemm each
        np.matmul(xs.T, _f64(xb[:, c]), out=out[:, c])
    return out


def _submatrix_part(xb, cb, *, idx, means):
    xs = _f64(xb[:, idx]) - means[cb]
    return xs.T @ xs


# uint8 / int8 / bool: z = x - off lies in [-128, 127]; over at most _EXACT_ROWS = 1024 rows every
# sum of products of two such values is an integer of magnitude <= 2^24, which float32 holds
# exactly; each tile's float32 product is added into float64, where the sums stay exact integers
# (below 2^53). The class centring is applied once on the caller (the exact class sums of z), so
# the tasks never see a non-integer and the whole pass is exact, in any order and chunking.

def _int_tiles(xb, off, block_bytes, cols=None):
    """``(rows, cols, z)``: float32 tiles ``z = x - off`` of at most 1024 rows and
    ``block_bytes`` (exact), over the column slices of ``cols`` (default: all columns)."""
    n, p = xb.shape
    rows = min(_EXACT_ROWS, max(n, 1))
    buf = np.empty(rows * max(1, min(p, block_bytes // (4 * rows))), dtype=np.float32)
    for i in range(0, n, _EXACT_ROWS):
        xr = xb[i : i + _EXACT_ROWS]
        for c in (cols if cols is not None else _tiles(rows, p, block_bytes, itemsize=4)):
            z = buf[: len(xr) * (c.stop - c.start)].reshape(len(xr), c.stop - c.start)
            np.subtract(xr[:, c], np.float32(off), out=z, casting="unsafe")
            yield slice(i, i + len(xr)), c, z


def _sums_part_int(xb, cb, *, C, off, block_bytes):
    onehot = np.zeros((len(cb), C), dtype=np.float32)
    onehot[np.arange(len(cb)), cb] = 1.0
    sums = np.zeros((C, xb.shape[1]))
    for r, c, z in _int_tiles(xb, off, block_bytes):
        sums[:, c] += onehot[r].T @ z  # |sum| <= 1024 * 128: exact
    return np.bincount(cb, minlength=C).astype(np.float64), sums


def _diag_part_int(xb, cb, *, off, block_bytes):
    out = np.zeros(xb.shape[1])
    for _, c, z in _int_tiles(xb, off, block_bytes):
        out[c] += np.einsum("ij,ij->j", z, z)  # <= 1024 * 128^2 = 2^24: exact
    return out


def _columns_part_int(xb, cb, *, idx, off, block_bytes):
    out = np.zeros((len(idx), xb.shape[1]))
    prod = np.empty(len(idx) * max(1, min(xb.shape[1], block_bytes // (4 * min(_EXACT_ROWS, max(len(xb), 1))))),
                    dtype=np.float32)
    zs = None
    for r, c, z in _int_tiles(xb, off, block_bytes):
        if c.start == 0:  # a new tile of rows: its selected columns
            zs = np.subtract(xb[r][:, idx], np.float32(off), dtype=np.float32)
        pr = prod[: len(idx) * z.shape[1]].reshape(len(idx), z.shape[1])
        np.matmul(zs.T, z, out=pr)  # exact
        out[:, c] += pr
    return out


def _submatrix_part_int(xb, cb, *, idx, off):
    out = np.zeros((len(idx), len(idx)))
    for i in range(0, len(xb), _EXACT_ROWS):
        zs = np.subtract(xb[i : i + _EXACT_ROWS][:, idx], np.float32(off), dtype=np.float32)
        out += zs.T @ zs
    return out


def _centred_product(A, V, mean):
    """``a -> (a - 1 mean^T) V`` for row blocks ``a`` of the NumPy (or Dask) ``A``, in ``A``'s dtype."""
    Vd = V.astype(A.dtype, copy=False)
    shift = (mean @ V).astype(A.dtype)  # (b,)

    def product(a):
        y = a @ Vd
        y -= shift
        return y

    return product


def centered_gram_matmat(A: ArrayLike, V: ArrayLike, mean: ArrayLike) -> Any:
    """``A_c^T (A_c V)`` with ``A_c = A - 1 mean^T`` never formed: one pass over the rows.

    Parameters
    ----------
    A : ndarray or dask array of shape (n_samples, n_features)
        Float data, used in its own dtype (float32 products stay float32 inside a block).
    V : ndarray of shape (n_features, b)
        A small block of vectors.
    mean : ndarray of shape (n_features,)
        The centre (zeros for uncentred data).

    Returns
    -------
    ndarray of shape (n_features, b), float64
        (In ``V``'s dtype for another array library: the products over the rows run in ``A``'s
        dtype on ``A``'s device, the result is returned in ``V``'s.)

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 2.0], [3.0, 6.0]]); V = np.eye(2)
    >>> centered_gram_matmat(A, V, A.mean(axis=0)).tolist()
    [[2.0, 4.0], [4.0, 8.0]]
    """
    xp, _ = get_namespace(A, V, mean, names=["A", "V", "mean"])
    if not is_numpy(xp):
        return _centered_gram_matmat_xp(xp, A, V, mean)
    centred_product = _centred_product(A, V, mean)

    def part(a):
        y = centred_product(a)
        return a.T @ y, y.sum(axis=0)

    Z, colsum = block_reduce(part, sum_partials, A)
    Z = np.asarray(Z, dtype=np.float64)
    Z -= np.outer(mean, np.asarray(colsum, dtype=np.float64))
    return Z


def centered_projected_gram(A: ArrayLike, Q: ArrayLike, mean: ArrayLike) -> Any:
    """``(A_c Q)^T (A_c Q)`` with ``A_c = A - 1 mean^T`` never formed: one pass over the rows.

    Parameters
    ----------
    A : ndarray or dask array of shape (n_samples, n_features)
    Q : ndarray of shape (n_features, s)
    mean : ndarray of shape (n_features,)

    Returns
    -------
    ndarray of shape (s, s), float64

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 2.0], [3.0, 6.0]])
    >>> centered_projected_gram(A, np.array([[1.0], [0.0]]), A.mean(axis=0)).tolist()
    [[2.0]]
    """
    xp, _ = get_namespace(A, Q, mean, names=["A", "Q", "mean"])
    if not is_numpy(xp):
        return _centered_projected_gram_xp(xp, A, Q, mean)
    centred_product = _centred_product(A, Q, mean)

    def part(a):
        y = centred_product(a)
        return y.T @ y

    return np.asarray(block_reduce(part, sum_partials, A), dtype=np.float64)


# --- any other array library: the products over the rows in A's dtype, on A's device; the
# --- small results in V's (Q's) dtype, float64 where the device has it

def _centered_gram_matmat_xp(xp, A, V, mean):
    Vd = xp.astype(V, A.dtype)
    shift = xp.astype(xp.astype(mean, V.dtype) @ V, A.dtype)

    def part(a):
        y = a @ Vd - shift
        return xp.astype(a.T @ y, V.dtype, copy=False), xp.astype(xp.sum(y, axis=0), V.dtype, copy=False)

    Z, colsum = block_reduce(part, sum_partials, A)
    return Z - xp.astype(mean, V.dtype)[:, None] * colsum[None, :]


def _centered_projected_gram_xp(xp, A, Q, mean):
    Qd = xp.astype(Q, A.dtype)
    shift = xp.astype(xp.astype(mean, Q.dtype) @ Q, A.dtype)

    def part(a):
        y = a @ Qd - shift
        return xp.astype(y.T @ y, Q.dtype, copy=False)

    return block_reduce(part, sum_partials, A)


# --- a Gram operator shrunk towards the identity, plus a low-rank term ---------------------------
class ShrunkGramOperator:
    """``scale * G0 + F F^T + alpha I`` read through a Gram operator ``G0`` (its own ridge left out).

    What the implicit forward pass needs of a Ledoit-Wolf regularized covariance without the
    ``p x p`` matrix: ``(1 - s) B + s mu I`` is ``scale = 1 - s`` and ``alpha = s mu`` over the
    within-class operator; the correlation criterion's ``(1 - s) B + s mu I + A``, with ``A = M M^T``
    and ``T = B + A`` the covariance about the overall mean, is ``(1 - s) T + s M M^T + s mu I``
    (``F = sqrt(s) M``). The same column-access protocol as :class:`CenteredGramOperator`
    (``p``, ``diag()``, ``column(j)``, ``columns(idx)``, ``submatrix(idx)``, ``cached()``); every
    pass is ``G0``'s. ``alpha`` bounds the operator from below (``G >= alpha I``), as a ridge does.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((12, 5)); F = rng.standard_normal((5, 2))
    >>> G0 = CenteredGramOperator(X)
    >>> G = ShrunkGramOperator(G0, 0.9, 0.3, F)
    >>> dense = 0.9 * G0.submatrix(range(5)) + F @ F.T + 0.3 * np.eye(5)
    >>> bool(np.allclose(G.submatrix(range(5)), dense) and np.allclose(G.columns([1, 3]), dense[:, [1, 3]]))
    True
    """

    def __init__(self, base: CenteredGramOperator | Any, scale: float, alpha: float,
                 factor: ArrayLike | None = None) -> None:
        self.base = base.with_alpha(0.0)
        self.scale = check_real(scale, "scale", low=0, owner="ShrunkGramOperator")
        self.alpha = check_real(alpha, "alpha", low=0, owner="ShrunkGramOperator")
        self.p = self.base.p
        F = np.zeros((self.p, 0)) if factor is None else np.asarray(factor, dtype=np.float64)
        self.factor = F.reshape(self.p, -1)
        self.class_means = getattr(base, "class_means", None)

    @property
    def n_passes(self) -> int:
        return self.base.n_passes

    def cached(self) -> contextlib.AbstractContextManager:
        """The base operator's :meth:`CenteredGramOperator.cached` context."""
        return self.base.cached()

    def diag(self) -> NDArray:
        return self.scale * self.base.diag() + np.einsum("ij,ij->i", self.factor, self.factor) + self.alpha

    def columns(self, idx: ArrayLike) -> NDArray:
        idx = np.asarray(idx, dtype=np.intp).ravel()
        cols = self.base.columns(idx)
        if isinstance(self.base, CenteredGramOperator):  # a new panel: scaled where it is
            cols *= self.scale
        else:
            cols = self.scale * cols
        if self.factor.shape[1]:
            cols += self.factor @ self.factor[idx].T
        else:  # the empty factor's product is zeros: adding 0.0 is the same sum, without the product
            cols += 0.0
        cols[idx, np.arange(len(idx))] += self.alpha
        return cols

    def column(self, j: int) -> NDArray:
        return self.columns([j])[:, 0]

    def submatrix(self, idx: ArrayLike) -> NDArray:
        idx = np.asarray(idx, dtype=np.intp).ravel()
        Fi = self.factor[idx]
        return self.scale * self.base.submatrix(idx) + Fi @ Fi.T + self.alpha * np.eye(len(idx))
