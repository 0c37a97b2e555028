"""The centred Gram matrix of the data, used through the data (image scale, ``N << p``).

``G = Xc^T Xc / N + alpha I`` with ``Xc = X - M[y]`` (every row minus its class mean; the overall
mean when there are no labels) is the within-class covariance (LDA, plus a ridge) or the
covariance (PCA). At ``p = 16384`` it would cost ``8 p^2`` bytes and ``N p^2`` flops, while a
forward greedy path to ``k`` needs only its diagonal and ``k`` of its columns. Column ``j`` is
``X^T (X[:, j] - m_{y, j}) / N``: the class-centred column has zero class sums, so the means
never multiply a ``p``-vector. ``X`` is never copied or centred in memory (float32 stays
float32): one ``O(N p)`` product per column, one pass for the diagonal.

:func:`centered_gram_matmat` and :func:`centered_projected_gram` are the two passes of the block
Krylov SVD (:func:`pixsel.scores.block_krylov_svd`): ``A_c^T (A_c V)`` and ``(A_c Q)^T (A_c Q)``
for a small block, centring implicit (``A_c V = A V - 1 (mean^T V)``), NumPy or Dask.
"""

from __future__ import annotations

import copy

import numpy as np

from .._array_api import get_namespace, is_numpy
from .._validation import as_float_array, check_real
from ._moments import class_codes, class_means
from ._reduce import block_reduce, sum_partials

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = ["CenteredGramOperator", "centered_gram_matmat", "centered_projected_gram"]


class CenteredGramOperator:
    """``G = Xc^T Xc / N + alpha I`` with ``Xc = X - M[y]``, used through ``X`` only.

    The column-access protocol of the forward greedy kernels (``p``, ``diag()``, ``column(j)``,
    ``columns(idx)``, ``submatrix(idx)``); the ``p x p`` matrix is never formed.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data; float32 and float64 are kept (no copy), integers converted to float64. Never
        modified.
    y : array-like of shape (n_samples,) or None
        Class labels: each row is centred at its class mean. ``None``: at the overall mean.
    classes : array-like, optional
        The labels to expect; default ``np.unique(y)``.
    alpha : float, default=0.0
        Ridge added to the diagonal.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
    codes : ndarray of shape (n_samples,)
        Class index of every row.
    class_means : ClassMeans
        The class means used for centring (one class when ``y`` is None).
    n, p : int
    alpha : float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 1.], [2., 1.], [4., 5.], [6., 7.]])
    >>> G = CenteredGramOperator(X, [0, 0, 1, 1])
    >>> G.submatrix([0, 1]).tolist()  # the pooled within-class covariance
    [[1.0, 0.5], [0.5, 0.5]]
    >>> G.column(1).tolist(), G.diag().tolist()
    ([0.5, 0.5], [1.0, 0.5])
    """

    def __init__(
        self,
        X: ArrayLike,
        y: ArrayLike | None = None,
        *,
        classes: Any = None,
        alpha: float = 0.0,
    ) -> None:
        self.X = as_float_array(X, "X")
        self.n, self.p = self.X.shape
        if y is None:
            self.codes = np.zeros(self.n, dtype=np.intp)
        else:
            classes, self.codes = class_codes(y, classes)
        self.class_means = class_means(self.X, y, classes=classes)
        self.means = self.class_means.means  # (C, p) float64
        self.alpha = check_real(alpha, "alpha", low=0, owner="CenteredGramOperator")

    def with_alpha(self, alpha: float) -> CenteredGramOperator:
        """The same operator (sharing ``X`` and the means, nothing recomputed) with ridge ``alpha``."""
        out = copy.copy(self)
        out.alpha = check_real(alpha, "alpha", low=0, owner="CenteredGramOperator")
        return out

    def mean_variance(self) -> float:
        """``trace(Xc^T Xc / N) / p``, the mean of the diagonal without the ridge (one pass)."""
        return float(np.mean(self.diag() - self.alpha))

    def _centered_col(self, j):
        return np.asarray(self.X[:, j], dtype=np.float64) - self.means[self.codes, j]

    def diag(self) -> NDArray:
        sq = np.einsum("ij,ij->j", self.X, self.X, dtype=np.float64)
        counts = np.bincount(self.codes, minlength=len(self.means)).astype(np.float64)
        sq -= counts @ (self.means * self.means)
        return np.maximum(sq, 0.0) / self.n + self.alpha

    def column(self, j: int) -> NDArray:
        xc = self._centered_col(j).astype(self.X.dtype, copy=False)
        col = (self.X.T @ xc).astype(np.float64) / self.n
        col[j] += self.alpha
        return col

    def columns(self, idx: ArrayLike) -> NDArray:
        idx = np.asarray(idx, dtype=np.intp)
        XS = np.asarray(self.X[:, idx], dtype=np.float64) - self.means[:, idx][self.codes]
        cols = (self.X.T @ XS.astype(self.X.dtype, copy=False)).astype(np.float64) / self.n
        cols[idx, np.arange(len(idx))] += self.alpha
        return cols

    def submatrix(self, idx: ArrayLike) -> NDArray:
        idx = np.asarray(idx, dtype=np.intp)
        XS = self.X[:, idx].astype(np.float64) - self.means[:, idx][self.codes]
        return XS.T @ XS / self.n + self.alpha * np.eye(len(idx))


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
