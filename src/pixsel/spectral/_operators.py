"""Column access to a symmetric matrix that may never be formed.

The forward greedy kernels are *left-looking*: a step needs the diagonal of the matrix once and
one column per selected index. These small classes give that access for a dense matrix, the
identity, and the image-scale case ``Xc^T Xc / N + alpha I`` where only the data are stored
(a column then costs one ``O(N p)`` matrix-vector product and the ``p x p`` matrix is never
formed).
"""

from __future__ import annotations

import numpy as np

__all__ = ["DenseOperator", "IdentityOperator", "GramOperator"]


class DenseOperator:
    """A dense symmetric ``p x p`` matrix."""

    def __init__(self, B):
        self.matrix = np.asarray(B, dtype=np.float64)
        self.p = self.matrix.shape[0]

    def diag(self):
        return np.diag(self.matrix).copy()

    def column(self, j):
        return self.matrix[:, j].copy()

    def columns(self, idx):
        return self.matrix[:, idx]

    def submatrix(self, idx):
        return self.matrix[np.ix_(idx, idx)]


class IdentityOperator:
    """The ``p x p`` identity."""

    def __init__(self, p):
        self.p = int(p)

    def diag(self):
        return np.ones(self.p)

    def column(self, j):
        e = np.zeros(self.p)
        e[j] = 1.0
        return e

    def columns(self, idx):
        E = np.zeros((self.p, len(idx)))
        E[np.asarray(idx, dtype=np.intp), np.arange(len(idx))] = 1.0
        return E

    def submatrix(self, idx):
        return np.eye(len(idx))


class GramOperator:
    """``Xc^T Xc / n + alpha I`` used through ``Xc`` (shape ``(n, p)``), never formed.

    ``Xc`` is kept as given (float32 stays float32, halving memory); every column is returned in
    float64. Memory: the data plus ``O(p)``.
    """

    def __init__(self, Xc, alpha=0.0):
        self.Xc = Xc
        self.n, self.p = Xc.shape
        self.alpha = float(alpha)

    def diag(self):
        d = np.einsum("ij,ij->j", self.Xc, self.Xc, dtype=np.float64) / self.n
        return d + self.alpha

    def column(self, j):
        col = (self.Xc.T @ self.Xc[:, j]).astype(np.float64) / self.n
        col[j] += self.alpha
        return col

    def columns(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        cols = (self.Xc.T @ self.Xc[:, idx]).astype(np.float64) / self.n
        cols[idx, np.arange(len(idx))] += self.alpha
        return cols

    def submatrix(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        XS = self.Xc[:, idx].astype(np.float64)
        return XS.T @ XS / self.n + self.alpha * np.eye(len(idx))
