"""Second-order class statistics in one pass over the samples, for NumPy and Dask arrays.

Conventions (all float64, all "maximum-likelihood" scatter normalized by ``n``):

* class means ``m_c`` and the overall mean ``m``;
* the pooled within-class covariance ``B = (1/n) sum_c sum_{i in c} (x_i - m_c)(x_i - m_c)^T``;
* the between-class covariance ``S_b = sum_c pi_c (m_c - m)(m_c - m)^T = M M^T`` with the factor
  ``M`` of shape ``(p, C - 1)``;
* the total covariance ``T = (1/n) sum_i (x_i - m)(x_i - m)^T = B + S_b`` exactly.

For two classes ``a = m_1 - m_0`` and ``S_b = pi_0 pi_1 a a^T``.

The samples are visited block by block (a block of rows at a time, or a Dask chunk). Each block
contributes its class counts, its class means and its within-class scatter about its *own* class
means; blocks are merged with the parallel-variance identity of Chan, Golub and LeVeque, which is
exact and avoids the cancellation of ``X^T X - n m m^T`` on uint8 images with large means. NumPy
and Dask input go through the very same code, so they agree to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_finite, is_dask_array

__all__ = ["ClassStatistics", "class_statistics"]

#: bytes of the float64 working block for in-memory arrays (rows per block = this / (8 p)).
_BLOCK_BYTES = 64 * 2**20


@dataclass(frozen=True)
class ClassStatistics:
    """Second-order statistics of labelled data (see the module docstring for conventions).

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
        Sorted class labels.
    counts : ndarray of shape (n_classes,)
        Number of samples per class.
    means : ndarray of shape (n_classes, n_features)
        Class means.
    mean : ndarray of shape (n_features,)
        Overall mean.
    within : ndarray of shape (n_features, n_features)
        Pooled within-class covariance ``B`` (not regularized).
    n_samples : int
    """

    classes: np.ndarray
    counts: np.ndarray
    means: np.ndarray
    mean: np.ndarray
    within: np.ndarray
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
        return self.means[1] - self.means[0]

    @property
    def between_factor(self) -> np.ndarray:
        """``M`` of shape ``(p, C - 1)`` with ``M @ M.T`` the between-class covariance."""
        pi = self.priors
        D = (self.means - self.mean).T * np.sqrt(pi)  # p x C, D @ sqrt(pi) = 0
        u = np.sqrt(pi)[:, None]
        # orthonormal basis of the complement of u in R^C (columns 1.. of a QR with u first)
        Q, _ = np.linalg.qr(np.hstack([u, np.eye(len(pi))[:, :-1]]))
        return D @ Q[:, 1:]

    @property
    def between_covariance(self) -> np.ndarray:
        M = self.between_factor
        return M @ M.T

    @property
    def total(self) -> np.ndarray:
        """Total covariance ``T = B + M M^T`` (normalized by ``n``)."""
        return self.within + self.between_covariance


def _block_partial(Xb, yb, classes):
    """Counts, class means and within-class scatter (about the block's class means) of one block.

    One float64 working copy ``R = X_b - m_b`` (the block's overall mean ``m_b``; conversion and
    centring in a single pass, never touching the caller's array), one SYRK ``R^T R``, then the
    class correction ``- sum_c n_c d_c d_c^T`` with ``d_c`` the class means of ``R``: the exact
    identity ``sum_{i in c} (r_i - d_c)(r_i - d_c)^T = sum_{i in c} r_i r_i^T - n_c d_c d_c^T``,
    whose cancellation is harmless once the large common mean is removed.
    """
    Xb = np.asarray(Xb)
    yb = np.asarray(yb)
    C = len(classes)
    idx = np.searchsorted(classes, yb)
    if np.any(idx >= C) or np.any(classes[np.minimum(idx, C - 1)] != yb):
        raise ValueError("y holds labels that are not in 'classes'.")
    counts = np.bincount(idx, minlength=C).astype(np.float64)
    m0 = Xb.mean(axis=0, dtype=np.float64)
    R = np.empty(Xb.shape, dtype=np.float64)
    np.subtract(Xb, m0, out=R)
    onehot = np.zeros((len(idx), C))
    onehot[np.arange(len(idx)), idx] = 1.0
    # (R^T 1_c)^T: OpenBLAS is slow on the short-and-wide product 1_c^T R, fast on this one
    d = (R.T @ onehot).T / np.where(counts > 0, counts, 1.0)[:, None]
    W = R.T @ R  # NumPy dispatches A.T @ A to a symmetric rank-k update
    W -= (d.T * counts) @ d
    if not (np.all(np.isfinite(m0)) and np.all(np.isfinite(np.diagonal(W)))):
        check_finite(np.asarray(Xb, dtype=np.float64), "a block of rows of X")  # raises, locating it
    return counts, m0 + d, W


def _merge(parts):
    """Merge block partials exactly (Chan et al.'s pairwise update, per class)."""
    counts = sum(p[0] for p in parts)
    C = len(counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sum(p[0][:, None] * p[1] for p in parts) / np.where(counts > 0, counts, 1)[:, None]
    W = sum(p[2] for p in parts)
    for c in range(C):
        D = np.stack([p[1][c] - means[c] for p in parts])  # blocks x p
        w = np.array([p[0][c] for p in parts])
        W += (D * w[:, None]).T @ D
    return counts, means, W


def _finish(classes, counts, means, W):
    n = float(counts.sum())
    mean = (counts @ means) / n
    within = W / n
    within = (within + within.T) / 2
    return ClassStatistics(
        classes=np.asarray(classes),
        counts=counts.astype(np.int64),
        means=means,
        mean=mean,
        within=within,
        n_samples=int(n),
    )


def class_statistics(X, y, *, classes=None):
    """Class means and pooled within-class covariance of ``X`` in one pass.

    Parameters
    ----------
    X : ndarray or dask array of shape (n_samples, n_features)
        uint8, integer, float32 or float64; accumulated in float64. A Dask array is processed
        chunk by chunk (its rows may be chunked; columns are merged into one chunk) and never
        materialized.
    y : array-like of shape (n_samples,)
        Class labels (a NumPy array, even when ``X`` is a Dask array).
    classes : array-like, optional
        The labels to expect; default ``np.unique(y)``.

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
    classes = np.unique(y) if classes is None else np.asarray(classes)

    if is_dask_array(X):
        import dask
        import dask.array as da

        X = X.rechunk({1: -1})
        yd = da.from_array(y, chunks=(X.chunks[0],))
        xblocks = X.to_delayed().ravel()
        yblocks = yd.to_delayed().ravel()
        part = dask.delayed(_block_partial, pure=True)
        merge = dask.delayed(_merge, pure=True)
        parts = [part(xb, yb, classes) for xb, yb in zip(xblocks, yblocks)]
        # tree reduction: bounded memory, parallel merges (at least one merge, even for one chunk)
        parts = [merge(parts[i : i + 8]) for i in range(0, len(parts), 8)]
        while len(parts) > 1:
            parts = [merge(parts[i : i + 8]) for i in range(0, len(parts), 8)]
        (counts, means, W) = dask.compute(parts[0])[0]
    else:
        X = np.asarray(X)
        if X.dtype.kind not in "uifb":
            raise TypeError(f"X must hold numbers; got dtype {X.dtype}.")
        rows = max(256, _BLOCK_BYTES // (8 * max(X.shape[1], 1)))
        parts = [
            _block_partial(X[i : i + rows], y[i : i + rows], classes) for i in range(0, X.shape[0], rows)
        ]
        counts, means, W = _merge(parts)
    missing = classes[counts == 0]
    if len(missing):
        raise ValueError(f"No samples of class(es) {missing.tolist()} in y.")
    return _finish(classes, counts, means, W)
