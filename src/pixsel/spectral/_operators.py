"""Column access to a symmetric matrix that may never be formed.

The forward greedy kernels are *left-looking*: a step needs the diagonal of the matrix once and
one column per selected index. These small classes give that access for a dense matrix and the
identity; the image-scale operator ``Xc^T Xc / N`` that is never formed is the statistics
layer's (the centred Gram operator of the implicit path).
"""

from __future__ import annotations

import numpy as np

__all__ = ["DenseOperator", "IdentityOperator"]


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
