"""Closed-form projections of the sparse linear model (Gkioulekas and Zickler, NIPS 2011).

Conventions
-----------
Atoms are stored one per row, as in scikit-learn: ``atoms`` has shape ``(n_atoms, n_features)``
and the paper's dictionary is ``D = atoms.T`` (``N x K``). A linear projection ``L`` has shape
``(n_components, n_features)`` and maps a sample ``x`` to ``L @ x``.

Rank deficiency (defined behaviour)
-----------------------------------
The paper assumes ``D D^T`` (or ``K_DD``) has full rank. Here an eigenvalue ``lambda`` is treated
as exactly zero when ``lambda <= rtol * lambda_max`` (default ``rtol = max(K, N) * eps`` on the
singular values, i.e. the rule of ``numpy.linalg.matrix_rank``). For a zero eigenvalue the gain is
set to **zero**: the corresponding row of ``L`` (column of ``B``) is a zero vector. This is the
minimizer of objective (6) in that direction when ``sigma > 0`` (``f(0) = 0``), and the
minimum-norm minimizer when ``sigma = 0`` (a direction orthogonal to every atom does not change
``D^T S D``, so any gain is optimal and zero is the smallest). Hence asking for more components than
the rank of the dictionary is allowed: the trailing rows are zero and ``rank`` reports how many are
not. No division by zero is ever performed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from .._validation import check_finite, check_int, check_real, sign_flip
from ._spectrum import descending_eigh

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "SLMProjection",
    "slm_gain",
    "kernel_slm_gain",
    "slm_objective",
    "slm_projection",
    "kernel_slm_projection",
    "estimate_sigma_tau",
    "estimate_variances",
]


@dataclass
class SLMProjection:
    """Result of a sparse-linear-model projection.

    Attributes
    ----------
    components : ndarray of shape (n_components, n_features) or (n_atoms, n_components)
        ``L`` (linear case, rows are projections) or ``B`` (kernel case, columns are coefficient
        vectors on the atoms; a sample is mapped to ``K_D(x)^T B``).
    eigenvalues : ndarray of shape (n_components,)
        The ``n_components`` largest eigenvalues of ``D D^T`` (or ``K_DD``), zeros below the rank
        tolerance.
    gains : ndarray of shape (n_components,)
        ``f(lambda)`` of Eq. (8) (linear) or ``g(lambda)`` of Eq. (18) (kernel).
    rank : int
        Number of eigenvalues above the rank tolerance (``<= n_components`` non-zero rows).
    """

    components: np.ndarray
    eigenvalues: np.ndarray
    gains: np.ndarray
    rank: int


def _check_scales(sigma, tau):
    sigma = check_real(sigma, "sigma", low=0)
    tau = check_real(tau, "tau", low=0, low_open=True)
    return sigma, tau


def _gain(eigenvalues, sigma, tau, *, root):
    """``2 tau^2 l^(1/2 if root else 0) / (sigma^2 + 2 tau^2 l)`` for ``l > 0``, 0 elsewhere."""
    sigma, tau = _check_scales(sigma, tau)
    lam = np.asarray(eigenvalues, dtype=np.float64)
    out = np.zeros_like(lam)
    pos = lam > 0
    t2 = 2.0 * tau * tau
    numerator = t2 * np.sqrt(lam[pos]) if root else t2
    out[pos] = numerator / (sigma * sigma + t2 * lam[pos])
    return out


def slm_gain(eigenvalues: ArrayLike, sigma: float, tau: float) -> NDArray:
    """The gain ``f(lambda)`` of Eq. (8), written without cancellation.

    ``f(l)^2 = 4 tau^4 l / (sigma^4 + 4 tau^2 sigma^2 l + 4 tau^4 l^2)`` so
    ``f(l) = 2 tau^2 sqrt(l) / (sigma^2 + 2 tau^2 l)``; with ``sigma = 0`` this is ``1 / sqrt(l)``
    (Eq. 9). Non-positive eigenvalues get gain 0 (see the module notes).

    Examples
    --------
    >>> slm_gain([4.0, 0.0], sigma=0.0, tau=1.0)
    array([0.5, 0. ])
    >>> float(slm_gain([1.0], sigma=1.0, tau=1.0)[0])  # 2 / (1 + 2)
    0.6666666666666666
    """
    return _gain(eigenvalues, sigma, tau, root=True)


def kernel_slm_gain(eigenvalues: ArrayLike, sigma: float, tau: float) -> NDArray:
    """The gain ``g(lambda) = f(lambda) / sqrt(lambda)`` of Eq. (18); 0 for non-positive ``lambda``.

    Examples
    --------
    >>> kernel_slm_gain([4.0, 0.0], sigma=0.0, tau=1.0)
    array([0.25, 0.  ])
    """
    return _gain(eigenvalues, sigma, tau, root=False)


def slm_objective(L: ArrayLike, atoms: ArrayLike, sigma: float, tau: float) -> float:
    """Objective (6): ``4 tau^4 ||D^T S D - I||^2 + 4 tau^2 sigma^2 ||S D||^2 + sigma^4 ||S||^2``.

    ``S = L^T L`` and ``D = atoms.T``. This equals the expectation (4) of the squared difference
    between projected and sparse-code inner products under the sparse linear model (Laplace codes of
    scale ``tau``, white Gaussian noise of standard deviation ``sigma``).

    Parameters
    ----------
    L : ndarray of shape (n_components, n_features)
    atoms : ndarray of shape (n_atoms, n_features)
    sigma, tau : float

    Returns
    -------
    float
    """
    L = np.asarray(L, dtype=np.float64)
    D = np.asarray(atoms, dtype=np.float64).T
    P = L @ D  # (M, K)
    G = P.T @ P
    G[np.diag_indices_from(G)] -= 1.0
    SD = L.T @ P
    LLt = L @ L.T  # ||S||_F = ||L L^T||_F
    return float(
        4 * tau**4 * np.sum(G * G) + 4 * tau**2 * sigma**2 * np.sum(SD * SD) + sigma**4 * np.sum(LLt * LLt)
    )


def _top_eig_from_atoms(D_rows, n_components, rtol):
    """Top eigenpairs of ``D D^T = atoms.T @ atoms`` from a thin SVD of the atoms."""
    K, N = D_rows.shape
    if K == 0:
        return np.zeros(n_components), np.zeros((n_components, N)), 0
    _, s, Vt = sla.svd(D_rows, full_matrices=False, lapack_driver="gesdd")
    rtol = max(K, N) * np.finfo(np.float64).eps if rtol is None else rtol
    smax = s[0] if s.size else 0.0
    keep = s > rtol * smax if smax > 0 else np.zeros_like(s, dtype=bool)
    rank = int(np.count_nonzero(keep))
    lam = np.where(keep, s * s, 0.0)
    m = min(n_components, Vt.shape[0])
    vecs = np.zeros((n_components, N))
    vecs[:m] = sign_flip(Vt[:m])
    vals = np.zeros(n_components)
    vals[:m] = lam[:m]
    return vals, vecs, rank


def slm_projection(
    atoms: ArrayLike,
    n_components: int,
    *,
    sigma: float,
    tau: float,
    rtol: Any = None,
) -> SLMProjection:
    """Closed-form optimal linear projection of the sparse linear model, Eq. (7)-(9).

    ``L = diag(f(lambda_M)) V_M^T`` with ``(lambda_M, V_M)`` the ``M`` largest eigenpairs of
    ``D D^T``; ``sigma = 0`` gives the noiseless solution ``diag(lambda_M)^(-1/2) V_M^T``. The
    solution is unique up to a rotation of the rows (``L^T L`` is unique when the ``M``-th and
    ``M+1``-th eigenvalues differ); rows are returned in decreasing eigenvalue order with the sign
    rule "largest entry positive".

    Parameters
    ----------
    atoms : ndarray of shape (n_atoms, n_features)
        Dictionary atoms, one per row (``D = atoms.T``).
    n_components : int
        ``M``, at most ``n_features``. Components beyond the rank of ``D`` are zero rows.
    sigma : float
        Noise standard deviation, ``>= 0``.
    tau : float
        Laplace scale of the codes, ``> 0``.
    rtol : float, optional
        Relative tolerance on singular values below which an eigenvalue counts as zero.

    Returns
    -------
    SLMProjection
        ``components`` is ``L`` of shape ``(n_components, n_features)``.

    References
    ----------
    * I. Gkioulekas and T. Zickler, "Dimensionality reduction using the sparse linear model",
      Advances in Neural Information Processing Systems 24 (NIPS), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> atoms = np.array([[2.0, 0.0], [0.0, 1.0], [0.0, 1.0]])  # D D^T = diag(4, 2)
    >>> res = slm_projection(atoms, 1, sigma=0.0, tau=1.0)
    >>> res.components, res.eigenvalues
    (array([[0.5, 0. ]]), array([4.]))
    """
    atoms = check_finite(np.asarray(atoms, dtype=np.float64), "atoms")
    if atoms.ndim != 2:
        raise ValueError(f"atoms must be a 2-D array of shape (n_atoms, n_features); got shape {atoms.shape}.")
    N = atoms.shape[1]
    M = check_int(n_components, "n_components", low=1, high=N)
    sigma, tau = _check_scales(sigma, tau)
    vals, vecs, rank = _top_eig_from_atoms(atoms, M, rtol)
    gains = slm_gain(vals, sigma, tau)
    return SLMProjection(components=gains[:, None] * vecs, eigenvalues=vals, gains=gains, rank=min(rank, M))


def kernel_slm_projection(
    gram: ArrayLike,
    n_components: int,
    *,
    sigma: float,
    tau: float,
    rtol: Any = None,
    psd_tol: float = 1e-8,
) -> SLMProjection:
    """Kernel sparse-linear-model projection, Eq. (17)-(18).

    ``B = V_M diag(g(lambda_M))`` with ``(lambda_M, V_M)`` the ``M`` largest eigenpairs of the
    atoms' Gram matrix ``K_DD``; a sample ``x`` is mapped to ``B^T K_D(x)`` where
    ``K_D(x)_i = <d_i, Phi(x)>``. With a linear kernel this equals :func:`slm_projection` up to a
    rotation (tested).

    Parameters
    ----------
    gram : ndarray of shape (n_atoms, n_atoms)
        ``K_DD``, symmetric positive semidefinite. Eigenvalues more negative than
        ``-psd_tol * lambda_max`` raise a ``ValueError``; smaller negative ones (round-off) are
        treated as zero.
    n_components : int
        ``M``, at most ``n_atoms``. Components beyond the rank of ``K_DD`` are zero columns.
    sigma, tau : float
        Noise standard deviation (``>= 0``) and Laplace code scale (``> 0``).
    rtol : float, optional
        Relative eigenvalue tolerance for the rank (default ``n_atoms * eps``).

    Returns
    -------
    SLMProjection
        ``components`` is ``B`` of shape ``(n_atoms, n_components)``.

    References
    ----------
    * I. Gkioulekas and T. Zickler, "Dimensionality reduction using the sparse linear model",
      Advances in Neural Information Processing Systems 24 (NIPS), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> res = kernel_slm_projection(np.diag([4.0, 1.0]), 1, sigma=0.0, tau=1.0)
    >>> res.components.ravel(), res.eigenvalues
    (array([0.25, 0.  ]), array([4.]))
    """
    Kdd = np.asarray(gram, dtype=np.float64)
    if Kdd.ndim != 2 or Kdd.shape[0] != Kdd.shape[1]:
        raise ValueError(f"gram must be a square (n_atoms, n_atoms) matrix; got shape {Kdd.shape}.")
    check_finite(Kdd, "gram")
    K = Kdd.shape[0]
    M = check_int(n_components, "n_components", low=1, high=K)
    sigma, tau = _check_scales(sigma, tau)
    scale = float(np.max(np.abs(Kdd))) if Kdd.size else 0.0
    if not np.allclose(Kdd, Kdd.T, rtol=0, atol=1e-10 * max(scale, 1e-300)):
        raise ValueError(
            "gram must be symmetric; the largest asymmetry is "
            f"{float(np.max(np.abs(Kdd - Kdd.T))):.3g}. Pass (gram + gram.T) / 2 if that is intended."
        )
    rtol = K * np.finfo(np.float64).eps if rtol is None else rtol
    w, V, keep = descending_eigh(Kdd, rtol, psd_tol=psd_tol)
    rank = int(np.count_nonzero(keep))
    vals = np.where(keep, w, 0.0)[:M]
    vecs = sign_flip(V[:, :M].T).T
    gains = kernel_slm_gain(vals, sigma, tau)
    return SLMProjection(components=vecs * gains[None, :], eigenvalues=vals, gains=gains, rank=min(rank, M))


def estimate_sigma_tau(X: ArrayLike, codes: ArrayLike, atoms: ArrayLike) -> float:
    """Estimate the noise level ``sigma`` and the Laplace code scale ``tau`` from training codes.

    * ``tau`` is the maximum-likelihood scale of a zero-mean Laplace distribution fitted to all
      code entries: ``tau = mean(|a_ij|)``.
    * ``sigma`` is the maximum-likelihood standard deviation of white Gaussian noise fitted to the
      residuals ``X - codes @ atoms``: ``sigma^2 = mean((X - codes @ atoms)^2)``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    codes : ndarray of shape (n_samples, n_atoms)
    atoms : ndarray of shape (n_atoms, n_features)

    Returns
    -------
    sigma, tau : float
        ``tau`` is 0 only when every code is 0 (then the model is degenerate and the caller must
        say so).

    References
    ----------
    * I. Gkioulekas and T. Zickler, "Dimensionality reduction using the sparse linear model",
      Advances in Neural Information Processing Systems 24 (NIPS), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> estimate_sigma_tau(np.array([[1.0, 2.0]]), np.array([[2.0]]), np.array([[0.5, 1.0]]))
    (0.0, 2.0)
    """
    X = np.asarray(X, dtype=np.float64)
    A = np.asarray(codes, dtype=np.float64)
    R = X - A @ np.asarray(atoms, dtype=np.float64)
    return float(np.sqrt(np.mean(R * R))), float(np.mean(np.abs(A)))


def estimate_variances(X: ArrayLike, codes: ArrayLike, atoms: ArrayLike) -> tuple[NDArray, NDArray]:
    """Per-atom code variances and per-pixel noise variances for the general model (section 3.1).

    Each atom gets its own Laplace scale ``tau_i = mean_n |a_ni|`` (the paper's section 5
    suggestion), hence code variance ``E[a_i^2] = 2 tau_i^2``; each pixel gets the residual variance
    ``s_j = mean_n (x_nj - (codes @ atoms)_nj)^2``.

    Returns
    -------
    code_var : ndarray of shape (n_atoms,)
    noise_var : ndarray of shape (n_features,)
    """
    X = np.asarray(X, dtype=np.float64)
    A = np.asarray(codes, dtype=np.float64)
    R = X - A @ np.asarray(atoms, dtype=np.float64)
    tau_i = np.mean(np.abs(A), axis=0)
    return 2.0 * tau_i**2, np.mean(R * R, axis=0)
