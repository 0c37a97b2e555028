"""Class statistics in one pass over the samples, for NumPy and Dask arrays.

Conventions (all float64, all "maximum-likelihood" scatter normalized by ``n``):

* class means ``m_c`` and the overall mean ``m``;
* the pooled within-class covariance ``B = (1/n) sum_c sum_{i in c} (x_i - m_c)(x_i - m_c)^T``;
* the between-class covariance ``S_b = sum_c pi_c (m_c - m)(m_c - m)^T = M M^T`` with the factor
  ``M`` of shape ``(p, C - 1)``;
* the total covariance ``T = (1/n) sum_i (x_i - m)(x_i - m)^T = B + S_b`` exactly.

For two classes ``a = m_1 - m_0`` and ``S_b = pi_0 pi_1 a a^T``.

The samples are visited block by block (:func:`~pixsel.stats._reduce.block_reduce`: a block of
rows at a time, the same code inside every Dask chunk). For the scatter, each block contributes
its class counts, its class means and its within-class scatter about its *own* class means;
blocks are merged with the parallel-variance identity of Chan, Golub and LeVeque, which is exact
and avoids the cancellation of ``X^T X - n m m^T`` on uint8 images with large means. NumPy and
Dask input go through the very same code, so they agree to rounding. :func:`class_means` is the
first-order half of the same pass (no ``p x p`` matrix), for image-scale data.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy.linalg.blas import dgemm, dsyrk, ssyrk

from .._routes import placement
from .._array_api import (
    call_on_host, float_dtype, from_numpy, get_namespace, is_numpy, one_hot, to_numpy,
)
from .._validation import check_finite, check_options, is_dask_array
from ._reduce import BLOCK_BYTES, block_reduce, single_block, sum_partials

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "ClassMeans",
    "ClassStatistics",
    "between_class_factor",
    "class_codes",
    "class_means",
    "class_statistics",
    "covariance",
]


#: float64 working memory per block of :func:`class_means` (small: at image scale the data
#: themselves are the memory budget, and a thin block costs nothing in speed).
_MEANS_BLOCK_BYTES = 1 << 22


def between_class_factor(means: ArrayLike, counts: ArrayLike) -> Any:
    """``M`` of shape ``(p, C - 1)`` with ``M @ M.T = sum_c pi_c (m_c - m)(m_c - m)^T``.

    ``pi_c = n_c / n`` and ``m = sum_c pi_c m_c``. ``M = D Q`` with ``D`` the ``p x C`` matrix
    of columns ``sqrt(pi_c) (m_c - m)`` and ``Q`` an orthonormal basis of the complement of
    ``sqrt(pi)`` in ``R^C``; ``D sqrt(pi) = 0``, so ``M M^T = D D^T`` exactly.

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
    counts : ndarray of shape (n_classes,)

    Returns
    -------
    ndarray of shape (n_features, n_classes - 1)

    Examples
    --------
    >>> import numpy as np
    >>> M = between_class_factor(np.array([[0.0, 0.0], [2.0, 4.0]]), np.array([1, 1]))
    >>> (M @ M.T).round(12).tolist()  # pi_0 pi_1 a a^T with a = m_1 - m_0
    [[1.0, 2.0], [2.0, 4.0]]
    """
    xp, dev = get_namespace(means, names=["means"])
    if not is_numpy(xp):
        return _between_class_factor_xp(xp, dev, means, counts)
    means = np.asarray(means, dtype=np.float64)
    counts = np.asarray(counts)
    n = float(counts.sum())
    pi = counts / n
    mean = (counts @ means) / n
    D = (means - mean).T * np.sqrt(pi)  # p x C, D @ sqrt(pi) = 0
    u = np.sqrt(pi)[:, None]
    # orthonormal basis of the complement of u in R^C (columns 1.. of a QR with u first)
    Q, _ = np.linalg.qr(np.hstack([u, np.eye(len(pi))[:, :-1]]))
    return D @ Q[:, 1:]


def _complement_basis(pi):
    """Orthonormal basis (C x (C - 1)) of the complement of ``sqrt(pi)`` in ``R^C`` (NumPy)."""
    u = np.sqrt(pi)[:, None]
    Q, _ = np.linalg.qr(np.hstack([u, np.eye(len(pi))[:, :-1]]))
    return Q[:, 1:]


def _between_class_factor_xp(xp, dev, means, counts):
    """:func:`between_class_factor` on ``means``' device (the tiny ``C x C`` basis on the host)."""
    counts = to_numpy(counts, np.float64)
    pi = counts / counts.sum()
    Q = from_numpy(xp, _complement_basis(pi), dev, dtype=means.dtype)
    pi_d = from_numpy(xp, pi, dev, dtype=means.dtype)
    mean = pi_d @ means
    D = (means - mean).T * xp.sqrt(pi_d)
    return D @ Q


@dataclass(frozen=True)
class ClassMeans:
    """First-order statistics of labelled data.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
        Sorted class labels (NumPy, whatever the library of the data).
    counts : ndarray of shape (n_classes,)
        Number of samples per class (NumPy).
    means : array of shape (n_classes, n_features)
        Class means, in the library and on the device of the data (NumPy float64 for NumPy and
        Dask data).
    mean : array of shape (n_features,)
        Overall mean (like ``means``).
    n_samples : int
    """

    classes: np.ndarray
    counts: np.ndarray
    means: np.ndarray
    mean: np.ndarray
    n_samples: int

    @property
    def n_features(self) -> int:
        return self.means.shape[1]

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def priors(self) -> np.ndarray:
        return self.counts / self.n_samples

    @property
    def between(self) -> np.ndarray:
        """For two classes, the between-class vector ``a = m_1 - m_0`` (shape ``(p,)``)."""
        if self.n_classes != 2:
            raise ValueError(
                f"The between-class vector a = m1 - m0 needs exactly 2 classes; found {self.n_classes}. "
                "Use between_factor for any number of classes."
            )
        return self.means[1, :] - self.means[0, :]

    @property
    def between_factor(self) -> np.ndarray:
        """``M`` of shape ``(p, C - 1)`` with ``M @ M.T`` the between-class covariance."""
        return between_class_factor(self.means, self.counts)

    @property
    def between_covariance(self) -> np.ndarray:
        M = self.between_factor
        return M @ M.T


@dataclass(frozen=True)
class ClassStatistics(ClassMeans):
    """Second-order statistics of labelled data (see the module docstring for conventions).

    Attributes
    ----------
    classes, counts, means, mean, n_samples
        As in :class:`ClassMeans`.
    within : ndarray of shape (n_features, n_features)
        Pooled within-class covariance ``B`` (not regularized).
    """

    within: np.ndarray = None

    @property
    def total(self) -> np.ndarray:
        """Total covariance ``T = B + M M^T`` (normalized by ``n``)."""
        return self.within + self.between_covariance


def _off_numpy(entry, on_device, X, y, classes, route):
    """A class statistic ``entry`` of ``(X, y)`` placed by :func:`pixsel._routes.placement`: on the
    host views of another library on a CPU (no copy) or ``on_device(xp, dev, X, y, classes)``; None
    on NumPy, where the caller computes it itself."""
    xp, dev = get_namespace(X, y)
    where = placement(xp, dev, route=route)
    if where == "host":  # NumPy's kernel on host views, no copy
        return call_on_host(entry, xp, dev, X, y, classes=classes)
    if where == "device":
        return on_device(xp, dev, X, y, classes)
    return None


def _check_Xy(X, y):
    """Shapes and dtype of ``X`` (NumPy or Dask) against ``y``; returns ``y`` as NumPy."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of labels; got shape {y.shape}. Use y.ravel().")
    if X.ndim != 2:
        raise ValueError(
            f"X must be 2-D (n_samples, n_features); got {X.ndim} dimension(s). "
            "Flatten images with X.reshape(len(X), -1)."
        )
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels; they must match.")
    if X.shape[0] == 0:
        raise ValueError("X has no samples.")
    if not is_dask_array(X) and np.asarray(X).dtype.kind not in "uifb":
        raise TypeError(f"X must hold numbers; got dtype {np.asarray(X).dtype}.")
    return y


def class_codes(y: ArrayLike, classes: Any = None) -> tuple[NDArray, NDArray]:
    """Sorted ``classes`` (default ``np.unique(y)``) and the index of every label in them.

    Examples
    --------
    >>> classes, codes = class_codes(["b", "a", "b"])
    >>> classes.tolist(), codes.tolist()
    (['a', 'b'], [1, 0, 1])
    """
    y = np.asarray(y)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    C = len(classes)
    idx = np.searchsorted(classes, y)
    if np.any(idx >= C) or np.any(classes[np.minimum(idx, C - 1)] != y):
        raise ValueError("y holds labels that are not in 'classes'.")
    return classes, idx.astype(np.intp)


def _check_counts(classes, counts):
    missing = classes[counts == 0]
    if len(missing):
        raise ValueError(f"No samples of class(es) {missing.tolist()} in y.")


def _onehot(codes, C):
    onehot = np.zeros((len(codes), C))
    onehot[np.arange(len(codes)), codes] = 1.0
    return onehot


def _sums_partial(Xb, codes, C):
    """Class counts and class sums (float64) of one block."""
    # (X^T 1_c)^T: OpenBLAS is slow on the short-and-wide product 1_c^T X, fast on this one
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0: the caller checks the sums
        sums = (np.asarray(Xb, dtype=np.float64).T @ _onehot(codes, C)).T
    return np.bincount(codes, minlength=C).astype(np.float64), sums


def class_means(X: ArrayLike, y: ArrayLike | None = None, *, classes: Any = None,
                route: Any = None) -> ClassMeans:
    """Class means and the overall mean of ``X`` in one pass, without any ``p x p`` matrix.

    Parameters
    ----------
    X : ndarray, dask array or array-API array of shape (n_samples, n_features)
        uint8, integer, float32 or float64; accumulated in float64 block by block (never copied
        whole, never modified). Another array library (PyTorch, CuPy...) computes on X's
        device in X's float dtype (see :mod:`pixsel._array_api`).
    y : array-like of shape (n_samples,) or None
        Class labels; ``None``: a single class holding every sample.
    classes : array-like, optional
        The labels to expect; default ``np.unique(y)``.
    route : Route or None, default None
        The :class:`pixsel._routes.Route` of the fit that calls (where its data lives: NumPy,
        host views of another library on a CPU, a device); None follows the arrays given
        (:func:`pixsel._routes.placement`).

    Returns
    -------
    ClassMeans

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 1.], [2., 1.], [4., 5.], [6., 5.]])
    >>> cm = class_means(X, [0, 0, 1, 1])
    >>> cm.means.tolist(), cm.between.tolist()
    ([[1.0, 1.0], [5.0, 5.0]], [4.0, 4.0])
    """
    routed = _off_numpy(class_means, _class_means_xp, X, y, classes, route)
    if routed is not None:
        return routed
    if y is None:
        y = np.zeros(X.shape[0], dtype=np.intp)
    y = _check_Xy(X, y)
    classes, codes = class_codes(y, classes)
    C = len(classes)
    counts, sums = block_reduce(lambda xb, cb: _sums_partial(xb, cb, C), sum_partials, X, codes,
                                block_bytes=_MEANS_BLOCK_BYTES)
    _check_counts(classes, counts)
    if not np.all(np.isfinite(sums)):
        block_reduce(_check_block, lambda parts: None, X)  # raises, locating it (never loads X whole)
    means = sums / counts[:, None]
    n = float(counts.sum())
    return ClassMeans(
        classes=classes,
        counts=counts.astype(np.int64),
        means=means,
        mean=(counts @ means) / n,
        n_samples=int(n),
    )


def _check_block(Xb):
    check_finite(Xb)


def _block_partial(Xb, codes, C, cols=None):
    """Counts, class means and within-class scatter (about the block's class means) of one block.

    One float64 working copy ``R = X_b - m_b`` (the block's overall mean ``m_b``; conversion and
    centring in a single pass, never touching the caller's array), one SYRK ``R^T R``, then the
    class correction ``- sum_c n_c d_c d_c^T`` with ``d_c`` the class means of ``R``: the exact
    identity ``sum_{i in c} (r_i - d_c)(r_i - d_c)^T = sum_{i in c} r_i r_i^T - n_c d_c d_c^T``,
    whose cancellation is harmless once the large common mean is removed.

    ``cols = (j0, j1)``: only the columns ``j0:j1`` of the scatter, from row ``j0`` down (a
    ``(p - j0) x (j1 - j0)`` panel; see :func:`_column_panels`); default all of it. Only the
    lower triangle is the scatter's (merges keep it so); :func:`_finish` mirrors it once.
    """
    p = Xb.shape[1]
    j0, j1 = cols or (0, p)
    counts = np.bincount(codes, minlength=C).astype(np.float64)
    if Xb.shape[0]:  # Xb.mean(axis=0, dtype=np.float64) by the two calls it makes (the sum, then one division)
        m0 = np.add.reduce(Xb, axis=0, dtype=np.float64)
        m0 /= Xb.shape[0]
    else:  # an empty chunk: NumPy's mean and its warning
        m0 = Xb.mean(axis=0, dtype=np.float64)
    R = np.empty(Xb.shape, dtype=np.float64)
    np.subtract(Xb, m0, out=R)
    # (R^T 1_c)^T: OpenBLAS is slow on the short-and-wide product 1_c^T R, fast on this one
    d = (R.T @ _onehot(codes, C)).T / np.where(counts > 0, counts, 1.0)[:, None]
    if (j0, j1) == (0, p):
        W = dsyrk(1.0, R.T, trans=0, lower=1)  # lower triangle of R^T R, F-ordered (R.T: no copy)
    else:
        W = np.empty((p - j0, j1 - j0), order="F")
        Rj = R[:, j0:j1]
        W[: j1 - j0] = dsyrk(1.0, Rj.T, trans=0, lower=1)
        np.matmul(R[:, j1:].T, Rj, out=W[j1 - j0 :])
    del R
    _rank_update(W, -(d.T * counts)[j0:], d[:, j0:j1])  # the lower triangle is the scatter's
    if not (np.isfinite(m0).all() and np.isfinite(W.diagonal()).all()):
        check_finite(np.asarray(Xb, dtype=np.float64), "a block of rows of X")  # raises, locating it
    return counts, m0 + d, W


#: rows of one float32 product in :func:`_block_partial_small_int`: with |z| <= 128 every partial
#: sum of ``z_i z_j`` over them is an integer below 2^24, which float32 holds exactly.
_EXACT_ROWS = 1024

#: columns per panel when a ``p x p`` matrix is built or symmetrized triangle by triangle (the
#: float32 scratch of :func:`_block_partial_small_int` is ``p x _PANEL``, not ``p x p``).
_PANEL = 1024


def _small_int_offset(dtype):
    """The offset that maps ``dtype``'s values into [-128, 127], or None (not a small integer type)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_ or dtype == np.int8:
        return 0
    if dtype == np.uint8:
        return 128
    return None


def _block_partial_small_int(Xb, codes, C, cols=None):
    """:func:`_block_partial` for uint8 / int8 / bool data, with exact float32 products.

    ``z = x - 128`` (uint8) lies in [-128, 127], so over ``1024`` rows every entry of ``Z^T Z``
    is an integer of magnitude at most ``1024 * 128^2 = 2^24``: float32 (24-bit significand)
    computes it EXACTLY, at float32 speed (SSYRK, about twice DSYRK's rate), in any summation
    order. Each such product is added into a float64 accumulator, where the sums over all rows
    stay exact (integers below 2^53, i.e. up to 5e11 rows). This is where float64 accumulation
    matters: beyond 1024 rows a float32 sum would start rounding. The class sums of ``z`` are
    exact likewise. The scatter about the class means is then
    ``G - sum_c s_c s_c^T / n_c`` in float64, from the exact ``G`` and ``s_c``: the only
    rounding of the whole computation, relative ``~1e-16 x mean(z^2) / var``, harmless.

    The conversion and the offset are fused into the product, one ``1024 x p`` float32 tile at a
    time (cache-sized): no float64 copy of the block is ever made.

    ``cols = (j0, j1)``: only the columns ``j0:j1`` of the scatter, from row ``j0`` down (a
    ``(p - j0) x (j1 - j0)`` panel; see :func:`_column_panels`); default all of it.
    """
    return _tiled_partial(Xb, codes, C, cols, np.float32(_small_int_offset(Xb.dtype)))


def _block_partial_float32(Xb, codes, C, cols=None):
    """:func:`_block_partial` with float32 products (``class_statistics(products="float32")``).

    The block is centred at its own mean (in float64) and rounded to float32 one ``1024 x p``
    tile at a time; the tile's ``Z^T Z`` and class sums are float32 products (SSYRK), each
    added into float64 accumulators, then the class correction as in
    :func:`_block_partial_small_int`. Unlike small integers the products round: each entry of a
    tile's product carries an error of at most ``~1024 eps32 |z_i| |z_j|`` summed (``eps32 =
    6e-8``), typically far less (BLAS sums in short blocks), and the float64 sum over tiles adds
    no more. No float64 copy of the block is made.
    """
    m0 = Xb.mean(axis=0, dtype=np.float64)
    counts, means, G = _tiled_partial(Xb, codes, C, cols, m0)
    if not (np.all(np.isfinite(m0)) and np.all(np.isfinite(np.diagonal(G)))):
        check_finite(np.asarray(Xb, dtype=np.float64), "a block of rows of X")  # raises, locating it
    return counts, means, G


def _tiled_partial(Xb, codes, C, cols, off):
    """Counts, class means and the scatter panel ``cols`` of ``Z = Xb - off``, float32 tile by tile.

    ``off`` is a float32 scalar (small integers: every value of ``Z`` exact) or a float64
    vector (the block's mean: ``Z`` rounded to float32 once). Each tile's float32 products are
    added into float64 accumulators (``G``, the class sums ``S``); the scatter about the class
    means is ``G - sum_c s_c s_c^T / n_c``, in float64.
    """
    n, p = Xb.shape
    j0, j1 = cols or (0, p)
    counts = np.bincount(codes, minlength=C).astype(np.float64)
    onehot = _onehot(codes, C).astype(np.float32)
    G = np.zeros((p - j0, j1 - j0), order="F")  # lower part of sum z z^T, exact integers
    S = np.zeros((C, p))  # class sums of z, exact integers
    b = min(_PANEL, j1 - j0)
    diag = np.zeros((b, b), dtype=np.float32, order="F")
    below = np.empty((max(p - j0 - b, 0), b), dtype=np.float32)
    tile = np.empty((min(_EXACT_ROWS, n), p), dtype=np.float32)
    for i in range(0, n, _EXACT_ROWS):
        z = tile[: min(_EXACT_ROWS, n - i)]
        np.subtract(Xb[i : i + len(z)], off, out=z, casting="unsafe")  # exact for small integers
        # the lower triangle of z^T z by column panels (float32 scratch: one panel, not p x p)
        for j in range(j0, j1, b):
            k = min(j + b, j1)
            zj = z[:, j:k]
            d = ssyrk(1.0, zj.T, beta=0.0, c=diag[: k - j, : k - j], trans=0, lower=1, overwrite_c=1)
            G[j - j0 : k - j0, j - j0 : k - j0] += d  # the upper part of d stays 0
            if k < p:
                out = below[: p - k, : k - j]
                np.matmul(z[:, k:].T, zj, out=out)
                G[k - j0 :, j - j0 : k - j0] += out
        S += (z.T @ onehot[i : i + len(z)]).T  # <= 1024 * 128 in magnitude: exact in float32
    del diag, below, tile
    safe = np.where(counts > 0, counts, 1.0)[:, None]
    _rank_update(G, -(S.T / safe.T)[j0:], S[:, j0:j1])  # G - sum_c s_c s_c^T / n_c (lower triangle)
    return counts, off + S / safe, G


def _rank_update(W, A, B):
    """``W += A @ B`` in place (``W`` F-ordered ``p x p``, ``A`` p x C, ``B`` C x p): no p x p temporary."""
    if A.shape[1]:
        out = dgemm(1.0, A, B, beta=1.0, c=W, overwrite_c=1)
        if out is not W and not np.shares_memory(out, W):  # W was not F-ordered: f2py worked on a copy
            W[...] = out


#: side of the diagonal tiles :func:`_symmetrize_lower` mirrors with ``tril`` (small: ``tril``
#: makes temporaries; everything off these tiles is one transposed copy).
_MIRROR = 128


def _symmetrize_lower(W):
    """Copy the lower triangle of the square ``W`` onto its upper triangle, in place.

    One transposed copy of the strict lower triangle, tile column by tile column; only the small
    diagonal tiles go through ``tril`` (on whole ``p x p`` blocks its temporaries cost more than
    the copy, a noticeable share of the statistics).
    """
    p = W.shape[0]
    for j in range(0, p, _MIRROR):
        k = min(j + _MIRROR, p)
        D = W[j:k, j:k]
        # what tril(D) + tril(D, -1).T gives, without its temporaries: the lower triangle
        # mirrored, every entry plus 0.0 (the zeros that sum added: a -0.0 becomes 0.0)
        np.copyto(D, D.T, where=_upper_mask(k - j))
        D += 0.0
        W[j:k, k:] = W[k:, j:k].T


@functools.lru_cache(maxsize=4)
def _upper_mask(b):
    """The strict upper triangle of a ``b x b`` tile as a mask (read-only, shared; a masked copy
    costs half of the same copy through index arrays)."""
    mask = np.triu(np.ones((b, b), dtype=bool), 1)
    mask.flags.writeable = False
    return mask


def _merge(parts, *, inplace=False, cols=None):
    """Merge block partials exactly (Chan et al.'s pairwise update, per class).

    ``inplace=True`` accumulates into the first partial's scatter (a partial the caller owns;
    see ``block_reduce(merge_inplace=...)``): one ``p x p`` matrix less at the peak. ``cols``:
    the partials hold the panel ``cols`` of the scatter (see :func:`_block_partial`).
    """
    if len(parts) == 1 and inplace:  # one partial is its own merge (its class means as they are)
        return parts[0]
    counts = sum(p[0] for p in parts)
    C = len(counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sum(p[0][:, None] * p[1] for p in parts) / np.where(counts > 0, counts, 1)[:, None]
    W = parts[0][2] if inplace else np.array(parts[0][2], order="F")
    for p in parts[1:]:
        W += p[2]
    j0, j1 = cols or (0, W.shape[1])
    if len(parts) > 1:
        for c in range(C):
            D = np.stack([p[1][c] - means[c] for p in parts])  # blocks x p
            w = np.array([p[0][c] for p in parts])
            if W.flags.f_contiguous:
                _rank_update(W, (D * w[:, None]).T[j0:], D[:, j0:j1])
            else:
                W += (D * w[:, None]).T[j0:] @ D[:, j0:j1]
    return counts, means, W


def _finish(classes, counts, means, W):
    n = float(counts.sum())
    mean = (counts @ means) / n
    within = W  # ours: the reduction's result, never the caller's
    within /= n
    _symmetrize_lower(within)  # every partial and merge kept the lower triangle exact: mirror it once
    return ClassStatistics(
        classes=np.asarray(classes),
        counts=counts.astype(np.int64),
        means=means,
        mean=mean,
        within=within,
        n_samples=int(n),
    )


def class_statistics(X: ArrayLike, y: ArrayLike, *, classes: Any = None,
                     products: str = "float64", route: Any = None) -> ClassStatistics:
    """Class means and pooled within-class covariance of ``X`` in one pass.

    Parameters
    ----------
    X : ndarray or dask array of shape (n_samples, n_features)
        uint8, integer, float32 or float64; accumulated in float64. A Dask array is processed
        chunk by chunk (its rows may be chunked; columns are merged into one chunk) and never
        materialized. Another array library (PyTorch, CuPy...) computes on X's device in X's
        float dtype, block by block (see :mod:`pixsel._array_api`).
    y : array-like of shape (n_samples,)
        Class labels (a NumPy array, even when ``X`` is a Dask array; a list or an array of
        X's library otherwise).
    classes : array-like, optional
        The labels to expect; default ``np.unique(y)``.
    products : {"float64", "float32"}, default="float64"
        The precision of the products ``X^T X`` for float data (NumPy and Dask input).
        "float64": exact to rounding (relative ``~1e-16``). "float32": the data, centred in
        float64, are multiplied in float32 over tiles of 1024 rows and each tile's products
        added in float64; about twice as fast, with a relative error of the scatter around
        ``1e-7`` (at most ``1024 x 6e-8`` per tile), enough for selecting features, not for a
        certificate that compares objectives to ``1e-10``. uint8, int8 and bool images are
        always multiplied in float32, exactly (every product and tile sum is an integer below
        ``2^24``), whatever this says.
    route : Route or None, default None
        The :class:`pixsel._routes.Route` of the fit that calls (where its data lives: NumPy,
        host views of another library on a CPU, a device); None follows the arrays given
        (:func:`pixsel._routes.placement`).

    Returns
    -------
    ClassStatistics

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 1.], [2., 1.], [4., 5.], [6., 5.]])
    >>> st = class_statistics(X, [0, 0, 1, 1])
    >>> st.between
    array([4., 4.])
    >>> st.within
    array([[1., 0.],
           [0., 0.]])
    """
    check_options(products, "products", ("float64", "float32"), owner="class_statistics")
    xp, dev = get_namespace(X, y)
    where = placement(xp, dev, route=route)
    if where == "host":  # NumPy's kernel on host views, no copy
        yy = np.zeros(X.shape[0], dtype=np.intp) if y is None else y
        return call_on_host(class_statistics, xp, dev, X, yy, classes=classes, products=products)
    if where == "device":
        return _class_statistics_xp(xp, dev, X, y, classes)
    y = _check_Xy(X, y)
    classes, codes = class_codes(y, classes)
    C = len(classes)
    if _small_int_offset(X.dtype) is not None:
        # exact float32 products, no float64 copy: the whole chunk (or array) is one block
        part, block_bytes = _block_partial_small_int, 1 << 62
    elif products == "float32":
        part, block_bytes = _block_partial_float32, 1 << 62
    else:
        part, block_bytes = _block_partial, BLOCK_BYTES
    p = X.shape[1]
    # one block of rows: block_reduce would return its partial as it is (a single partial is its
    # own in-place merge), so the partial is taken directly
    one = single_block(part, X, codes, C, block_bytes=block_bytes, min_rows=256)
    if one is not None:
        counts, means, W = one
        _check_counts(classes, counts)
        return _finish(classes, counts, means, W)
    panels = _column_panels(p) if is_dask_array(X) else [(0, p)]
    W = None
    for cols in panels:  # one pass over X per panel (one panel unless p x p is large)
        cols = None if cols == (0, p) else cols
        counts, means, Wj = block_reduce(
            functools.partial(_panel_part, part, C, cols), functools.partial(_merge, cols=cols), X, codes,
            block_bytes=block_bytes, min_rows=256, merge_inplace=functools.partial(_merge, inplace=True, cols=cols),
        )
        if cols is None:
            W = Wj
        else:  # the panel's rows j0: of columns j0:j1, into the client's p x p
            if W is None:
                W = np.empty((p, p), order="F")
            W[cols[0] :, cols[0] : cols[1]] = Wj
            del Wj
    _check_counts(classes, counts)
    return _finish(classes, counts, means, W)


def _panel_part(part, C, cols, xb, cb):
    return part(xb, cb, C, cols)


#: on Dask, the scatter is computed in column panels of at most this many float64 bytes each,
#: one pass over X per panel: a worker holds two or three partials of one panel, not of p x p.
_PARTIAL_BYTES = 256 * 2**20


def _column_panels(p, limit=None):
    """Column ranges ``(j0, j1)`` whose lower panels ``(p - j0) x (j1 - j0)`` (float64) fit ``limit``.

    Widths are whole multiples of :data:`_PANEL` where possible; one panel ``(0, p)`` when the
    whole ``p x p`` fits (``p <= 5792`` at the default 256 MiB).

    Examples
    --------
    >>> _column_panels(4096)
    [(0, 4096)]
    >>> _column_panels(8192)
    [(0, 4096), (4096, 8192)]
    """
    limit = _PARTIAL_BYTES if limit is None else limit
    panels, j0 = [], 0
    while j0 < p:
        b = max(1, limit // (8 * (p - j0)))
        if _PANEL <= b < p - j0:
            b -= b % _PANEL
        j1 = min(p, j0 + b)
        panels.append((j0, j1))
        j0 = j1
    return panels


# --- any other array library (PyTorch, CuPy, array-api-strict): the same blocks, written
# --- against the array API standard, on X's device and in X's float dtype

def _prepare_xp(xp, dev, X, y, classes):
    """Shapes, the work dtype and the class codes (coded on the host, sent to the device once)."""
    if X.ndim != 2:
        raise ValueError(
            f"X must be 2-D (n_samples, n_features); got {X.ndim} dimension(s). "
            "Flatten images with X.reshape(len(X), -1)."
        )
    wd = float_dtype(xp, X, dev)
    y = np.zeros(X.shape[0], dtype=np.intp) if y is None else to_numpy(y)
    y = _check_Xy(np.empty((X.shape[0], 0)), y)  # the label checks; X's own were done above
    if X.shape[1] == 0:
        raise ValueError("X has no features.")
    classes, codes = class_codes(y, classes)
    return wd, classes, from_numpy(xp, codes, dev, dtype=xp.int64)


def _raise_not_finite(X):
    check_finite(to_numpy(X), "X")  # raises, locating the first one (an error path: the host copy is fine)
    raise ValueError("X contains values too large for its dtype (the sums overflowed); scale it.")


def _class_means_xp(xp, dev, X, y, classes):
    wd, classes, codes = _prepare_xp(xp, dev, X, y, classes)
    C = len(classes)

    def part(Xb, cb):
        H = one_hot(xp, cb, C, wd)
        return xp.sum(H, axis=0), (xp.astype(Xb, wd, copy=False).T @ H).T

    counts, sums = block_reduce(part, sum_partials, X, codes, block_bytes=_MEANS_BLOCK_BYTES)
    counts_np = to_numpy(counts, np.float64)
    _check_counts(classes, counts_np)
    if not bool(xp.all(xp.isfinite(sums))):
        _raise_not_finite(X)
    means = sums / counts[:, None]
    n = float(counts_np.sum())
    return ClassMeans(classes=classes, counts=counts_np.astype(np.int64), means=means,
                      mean=(counts @ means) / n, n_samples=int(n))


def _class_statistics_xp(xp, dev, X, y, classes):
    wd, classes, codes = _prepare_xp(xp, dev, X, y, classes)
    C = len(classes)

    def part(Xb, cb):  # as _block_partial: centre at the block mean, one R^T R, class correction
        H = one_hot(xp, cb, C, wd)
        counts = xp.sum(H, axis=0)
        Xf = xp.astype(Xb, wd, copy=False)
        m0 = xp.mean(Xf, axis=0)
        R = Xf - m0
        d = (R.T @ H).T / xp.where(counts > 0, counts, xp.ones_like(counts))[:, None]
        W = R.T @ R - (d.T * counts) @ d
        return counts, m0 + d, W

    def merge(parts):  # as _merge (Chan et al.), in the array's namespace
        counts = sum(p[0] for p in parts)
        safe = xp.where(counts > 0, counts, xp.ones_like(counts))
        means = sum(p[0][:, None] * p[1] for p in parts) / safe[:, None]
        W = sum(p[2] for p in parts)
        if len(parts) > 1:
            for c in range(C):
                D = xp.stack([p[1][c, :] - means[c, :] for p in parts])  # blocks x p
                w = xp.stack([p[0][c] for p in parts])
                W = W + (D * w[:, None]).T @ D
        return counts, means, W

    counts, means, W = block_reduce(part, merge, X, codes, block_bytes=BLOCK_BYTES, min_rows=256)
    counts_np = to_numpy(counts, np.float64)
    _check_counts(classes, counts_np)
    if not (bool(xp.all(xp.isfinite(means))) and bool(xp.all(xp.isfinite(W)))):
        _raise_not_finite(X)
    n = float(counts_np.sum())
    within = W / n
    return ClassStatistics(classes=np.asarray(classes), counts=counts_np.astype(np.int64),
                           means=means, mean=(counts @ means) / n, within=(within + within.T) / 2,
                           n_samples=int(n))


def covariance(X: ArrayLike, *, route: Any = None) -> Any:
    """The sample covariance (normalized by ``n - 1``) of ``X``: float64 NumPy for NumPy input
    (of 8-bit images, ``uint8``, ``int8`` or ``bool``, from :func:`class_statistics`' exact
    single-precision products, about twice as fast as :func:`numpy.cov` on a float64 copy);
    in X's library, on its device and in its float dtype for another library (``route``, the
    calling fit's :class:`pixsel._routes.Route`, is passed to :func:`class_statistics`)."""
    xp, _ = get_namespace(X)
    p = X.shape[1]
    if is_numpy(xp):
        X = np.asarray(X)
        if _small_int_offset(X.dtype) is not None and X.shape[0] > 1:
            # 8-bit images: class_statistics' exact single-precision products, twice np.cov's speed
            st = class_statistics(X, np.zeros(X.shape[0], dtype=np.intp))
            C = st.within * (st.n_samples / (st.n_samples - 1))
            return C.T if not C.flags.c_contiguous else C  # exactly symmetric: its transpose, in C order
        return np.cov(check_finite(np.asarray(X, dtype=np.float64)), rowvar=False).reshape(p, p)
    st = class_statistics(X, None, route=route)  # one class: the within scatter is the covariance / n
    return st.within * (st.n_samples / (st.n_samples - 1))
