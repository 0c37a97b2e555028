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

NumPy or Dask. Every pass goes through :func:`~pixsel.stats._reduce.block_reduce`; on a Dask
array chunked by rows each chunk's product runs in one task on a worker (a ``dask.distributed``
cluster when a ``Client`` is active), and only ``p``-vectors and ``p x b`` panels come back,
merged as a tree: no ``N x p`` or ``p x p`` array on the client. :attr:`CenteredGramOperator.n_passes`
counts the passes over ``X``.

:func:`centered_gram_matmat` and :func:`centered_projected_gram` are the two passes of the block
Krylov SVD (:func:`pixsel.scores.block_krylov_svd`): ``A_c^T (A_c V)`` and ``(A_c Q)^T (A_c Q)``
for a small block, centring implicit (``A_c V = A V - 1 (mean^T V)``), NumPy or Dask.
"""

from __future__ import annotations

import copy
import functools

import numpy as np

from .._array_api import get_namespace, is_numpy
from .._validation import as_float_array, check_real, is_dask_array
from ._moments import ClassMeans, _check_counts, class_codes, class_means
from ._reduce import block_reduce, sum_partials

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = ["CenteredGramOperator", "centered_gram_matmat", "centered_projected_gram"]

#: float64 working memory of the operator's passes: a tile of rows x columns converted to float64.
GRAM_BLOCK_BYTES = 4 * 2**20

#: ``block_reduce`` hands each NumPy array or Dask chunk whole to the operator's ``part``.
_WHOLE = 2**62


def _f64(a):
    """A block of rows as float64 (a no-copy view for float64 data)."""
    return np.asarray(a, dtype=np.float64)


class CenteredGramOperator:
    """``G = Xc^T Xc / N + alpha I`` with ``Xc = X - M[y]``, used through ``X`` only.

    The column-access protocol of the forward greedy kernels (``p``, ``diag()``, ``column(j)``,
    ``columns(idx)``, ``submatrix(idx)``); the ``p x p`` matrix is never formed. Products are
    accumulated in float64 whatever the dtype of ``X`` (see the module docstring).

    Parameters
    ----------
    X : array-like or dask array of shape (n_samples, n_features)
        Data; float32 and float64 are kept (no copy), integers converted to float64 (a Dask
        array is kept as it is and converted block by block). Never modified. A Dask array
        should be chunked by rows (one chunk of columns); every pass then runs chunk by chunk
        where the chunks live (the workers of a ``dask.distributed`` cluster).
    y : array-like of shape (n_samples,) or None
        Class labels: each row is centred at its class mean. ``None``: at the overall mean.
    classes : array-like, optional
        The labels to expect; default ``np.unique(y)``.
    alpha : float, default=0.0
        Ridge added to the diagonal.
    block_bytes : int, optional
        Float64 working memory of a pass (default 4 MiB): the rows of an array or chunk are
        converted a tile of columns at a time.

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
    ) -> None:
        if is_dask_array(X):
            if X.ndim != 2:
                raise ValueError(
                    f"X must be a 2-D array of shape (n_samples, n_features); got an array with "
                    f"{X.ndim} dimension(s). Flatten images with X.reshape(len(X), -1)."
                )
            self.X = X
        else:
            self.X = as_float_array(X, "X")
        self.n, self.p = (int(s) for s in self.X.shape)
        if y is None:
            self.codes = np.zeros(self.n, dtype=np.intp)
            classes = np.zeros(1, dtype=np.intp)
        else:
            classes, self.codes = class_codes(y, classes)
        self.block_bytes = int(block_bytes)
        self._state = {"passes": 0, "diag": None}  # shared with with_alpha copies
        self.class_means = self._class_means(y, classes)
        self.means = self.class_means.means  # (C, p) float64
        self.alpha = check_real(alpha, "alpha", low=0, owner="CenteredGramOperator")

    def _class_means(self, y, classes):
        """:func:`~pixsel.stats.class_means` in one pass whose partials are single ``C x p`` sums
        (tiles of columns; at ``C = 50``, ``p = 16384`` a list of per-block partials would cost
        3 x X); on a non-finite sum, :func:`class_means` itself locates the bad row."""
        C = len(classes)
        counts, sums = self._reduce(_sums_part, C=C, block_bytes=self.block_bytes)
        _check_counts(classes, counts)
        if not np.all(np.isfinite(sums)):
            class_means(self.X, y, classes=classes)  # raises, naming the global row
        means = sums / counts[:, None]
        return ClassMeans(classes=classes, counts=counts.astype(np.int64), means=means,
                          mean=(counts @ means) / self.n, n_samples=self.n)

    @property
    def n_passes(self) -> int:
        return self._state["passes"]

    def with_alpha(self, alpha: float) -> CenteredGramOperator:
        """The same operator (sharing ``X`` and the means, nothing recomputed) with ridge ``alpha``."""
        out = copy.copy(self)
        out.alpha = check_real(alpha, "alpha", low=0, owner="CenteredGramOperator")
        return out

    def mean_variance(self) -> float:
        """``trace(Xc^T Xc / N) / p``, the mean of the diagonal without the ridge (one pass)."""
        return float(np.mean(self.diag() - self.alpha))

    def _reduce(self, part, **kw):
        # one call of ``part`` per NumPy array or Dask chunk (it tiles the columns itself, so the
        # float64 working memory stays ``block_bytes`` and the partials are single p-panels); the
        # task carries only what it needs (module-level functions: never the operator or X)
        self._state["passes"] += 1
        fn = functools.partial(part, **kw)
        return block_reduce(fn, sum_partials, self.X, self.codes, block_bytes=_WHOLE)

    def diag(self) -> NDArray:
        """The diagonal (one pass, the first time; then remembered)."""
        if self._state["diag"] is None:
            sq = self._reduce(_diag_part, means=self.means, block_bytes=self.block_bytes)
            self._state["diag"] = np.asarray(sq, dtype=np.float64) / self.n
        return self._state["diag"] + self.alpha

    def column(self, j: int) -> NDArray:
        """Column ``j`` (one pass); prefer :meth:`columns` for several."""
        return self.columns([j])[:, 0]

    def columns(self, idx: ArrayLike) -> NDArray:
        """Columns ``idx`` as a ``(p, len(idx))`` float64 panel, all in one pass over ``X``."""
        idx = np.asarray(idx, dtype=np.intp).ravel()
        cols = self._reduce(_columns_part, idx=idx, means=self.means[:, idx], block_bytes=self.block_bytes)
        cols = np.asarray(cols, dtype=np.float64) / self.n
        cols[idx, np.arange(len(idx))] += self.alpha
        return cols

    def submatrix(self, idx: ArrayLike) -> NDArray:
        """``G[idx][:, idx]`` (one pass; only the columns ``idx`` of ``X`` enter the products)."""
        idx = np.asarray(idx, dtype=np.intp).ravel()
        sub = self._reduce(_submatrix_part, idx=idx, means=self.means[:, idx])
        return np.asarray(sub, dtype=np.float64) / self.n + self.alpha * np.eye(len(idx))


def _tiles(n_rows, p, block_bytes):
    """Column slices whose float64 tile of ``n_rows`` rows stays within ``block_bytes``."""
    width = max(1, block_bytes // (8 * max(n_rows, 1)))
    return [slice(c, min(c + width, p)) for c in range(0, p, width)]


def _sums_part(xb, cb, *, C, block_bytes):
    onehot = np.zeros((len(cb), C))
    onehot[np.arange(len(cb)), cb] = 1.0
    sums = np.empty((C, xb.shape[1]))
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0: the caller checks the sums
        for c in _tiles(len(xb), xb.shape[1], block_bytes):
            sums[:, c] = (_f64(xb[:, c]).T @ onehot).T  # X^T 1_c: BLAS's fast orientation
    return np.bincount(cb, minlength=C).astype(np.float64), sums


def _diag_part(xb, cb, *, means, block_bytes):
    out = np.empty(xb.shape[1])
    for c in _tiles(len(xb), xb.shape[1], block_bytes):
        xc = _f64(xb[:, c]) - means[cb, c]  # exactly centred: no E[x^2] - E[x]^2 cancellation
        out[c] = np.einsum("ij,ij->j", xc, xc)
    return out


def _columns_part(xb, cb, *, idx, means, block_bytes):
    xs = _f64(xb[:, idx]) - means[cb]  # (rows, b) class-centred; means is (C, b)
    out = np.empty((xb.shape[1], len(idx)))
    for c in _tiles(len(xb), xb.shape[1], block_bytes):  # a float64 tile, one dgemm each
        np.matmul(_f64(xb[:, c]).T, xs, out=out[c])
    return out


def _submatrix_part(xb, cb, *, idx, means):
    xs = _f64(xb[:, idx]) - means[cb]
    return xs.T @ xs


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
    Vd = V.astype(A.dtype, copy=False)
    shift = (mean @ V).astype(A.dtype)  # (b,)

    def part(a):
        y = a @ Vd
        y -= shift
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
    Qd = Q.astype(A.dtype, copy=False)
    shift = (mean @ Q).astype(A.dtype)

    def part(a):
        y = a @ Qd
        y -= shift
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
