"""The squared-exponential covariance with cheap hyperparameter gradients (pure NumPy).

``k(x, x') = sf2 * exp(-1/2 sum_d (x_d - x'_d)^2 / ell_d^2)`` with log-hyperparameters
``theta = [log sf, log ell]`` (one common length-scale, "iso") or
``theta = [log sf, log ell_1, ..., log ell_p]`` (one length-scale per feature, "ARD").

Marginal-likelihood gradients only ever need the *contraction* ``sum_ij M_ij dK_ij/dtheta_j`` of
the derivative matrices with a symmetric ``M`` (and, for the Laplace approximation, products
``dK/dtheta_j @ v``). For the ARD kernel ``dK/dlog ell_d = K o D_d`` with
``(D_d)_ij = (x_id - x_jd)^2 / ell_d^2``, so with ``G = M o K``::

    sum_ij G_ij (x_id - x_jd)^2 = 2 * (G 1)^T x_d^2 - 2 x_d^T G x_d,

one matrix product for all ``d`` at once: O(n^2 p) time and O(n^2 + n p) memory, instead of the
O(n^2 p) *memory* of the ``(n, n, p)`` gradient tensor that generic GP code materializes.
"""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["SquaredExponential"]


class SquaredExponential:
    """Squared-exponential kernel with signal variance and iso or ARD length-scales.

    Parameters
    ----------
    ard : bool
        One length-scale per feature (``True``) or one common length-scale (``False``).
    n_features : int
        Number of input features (needed for the ARD parameter count).
    """

    def __init__(self, ard: bool, n_features: int) -> None:
        self.ard = bool(ard)
        self.n_features = int(n_features)

    @property
    def n_params(self):
        return 1 + (self.n_features if self.ard else 1)

    def split(self, theta: ArrayLike) -> tuple[float, NDArray]:
        """``(sf2, ell)`` from log-hyperparameters; ``ell`` has shape (p,) or ()."""
        theta = np.asarray(theta, dtype=np.float64)
        sf2 = np.exp(2.0 * theta[0])
        ell = np.exp(theta[1:]) if self.ard else np.exp(theta[1])
        return sf2, ell

    def _scaled(self, X, ell):
        return np.asarray(X, dtype=np.float64) / ell

    def __call__(self, theta, X, Z=None):
        """Covariance matrix ``K(X, Z)`` (``Z = X`` when omitted)."""
        sf2, ell = self.split(theta)
        A = self._scaled(X, ell)
        Bm = A if Z is None else self._scaled(Z, ell)
        sq = (A * A).sum(1)[:, None] + (Bm * Bm).sum(1)[None, :] - 2.0 * A @ Bm.T
        np.maximum(sq, 0.0, out=sq)
        K = sf2 * np.exp(-0.5 * sq)
        if Z is None:
            K = (K + K.T) / 2.0
            K[np.diag_indices_from(K)] = sf2
        return K

    def diag(self, theta: ArrayLike, X: ArrayLike) -> NDArray:
        sf2, _ = self.split(theta)
        return np.full(len(X), sf2)

    def grad_contract(self, theta: ArrayLike, X: ArrayLike, K: ArrayLike, M: ArrayLike) -> NDArray:
        """``g_j = sum_ik M_ik dK_ik / dtheta_j`` for every hyperparameter (``M`` symmetric)."""
        sf2, ell = self.split(theta)
        G = M * K
        A = self._scaled(X, ell)
        g = np.empty(self.n_params)
        g[0] = 2.0 * G.sum()
        r = G.sum(1)
        per_dim = 2.0 * (r @ (A * A)) - 2.0 * np.einsum("id,id->d", A, G @ A)
        g[1:] = per_dim if self.ard else per_dim.sum()
        return g

    def grad_matvec(self, theta: ArrayLike, X: ArrayLike, K: ArrayLike, v: ArrayLike) -> NDArray:
        """Columns ``dK/dtheta_j @ v``, shape (n, n_params)."""
        sf2, ell = self.split(theta)
        A = self._scaled(X, ell)
        Kv = K @ v
        KAv = K @ (A * v[:, None])
        KA2v = K @ (A * A * v[:, None])
        per_dim = (A * A) * Kv[:, None] - 2.0 * A * KAv + KA2v
        out = np.empty((len(v), self.n_params))
        out[:, 0] = 2.0 * Kv
        if self.ard:
            out[:, 1:] = per_dim
        else:
            out[:, 1] = per_dim.sum(1)
        return out
