"""The general dictionary model of section 3.1: non-identical code and noise variances.

With independent, zero-mean codes of variances ``v_i = E[a_i^2]`` and independent zero-mean noise
of variances ``s_j = E[eps_j^2]``, the weights of problem (10)-(11) are rank one::

    W1 = v v^T,   W2 = 2 s v^T,   W3 = s s^T

so that ``X o sqrt(W)`` is a two-sided diagonal scaling. Writing ``P = L D diag(sqrt v)`` and
``Q = L diag(sqrt s)`` (both ``M x .``), objective (10) becomes a function of three ``M x M``
matrices::

    F(L) = ||P P^T||^2 - 2 tr(P diag(v) P^T) + sum(v^2) + 2 tr((Q Q^T)(P P^T)) + ||Q Q^T||^2

which we minimize over the factor ``L`` (the weighted low-rank problem) with L-BFGS and the exact
gradient, starting from the closed form of the equal-variance model with the average variances.
This is a direct factored (Burer-Monteiro) method rather than the EM of Srebro and Jaakkola (2003):
the weights here are exactly rank one, so every evaluation costs ``O(M N K)`` and no ``N x N`` or
``K x K`` matrix is formed. With equal variances ``v = 2 tau^2``, ``s = sigma^2`` the objective is
exactly (6) (tested) and the solver returns the closed form.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.optimize as sopt

from .._validation import check_finite, check_int, sign_flip
from ._slm import slm_projection

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["GeneralSLMResult", "general_slm_objective", "general_slm_projection"]


@dataclass
class GeneralSLMResult:
    """Result of :func:`general_slm_projection`.

    Attributes
    ----------
    components : ndarray of shape (n_components, n_features)
        ``L`` with orthogonal rows sorted by decreasing norm (canonical rotation).
    eigenvalues : ndarray of shape (n_components,)
        Eigenvalues of ``S = L^T L`` (the squared row norms), decreasing.
    objective : float
        Final value of objective (10).
    n_iter : int
    converged : bool
    message : str
    """

    components: np.ndarray
    eigenvalues: np.ndarray
    objective: float
    n_iter: int
    converged: bool
    message: str


def _check_var(v, n, name):
    v = check_finite(np.asarray(v, dtype=np.float64).ravel(), name)
    if v.shape[0] != n:
        raise ValueError(f"{name} must have length {n}; got {v.shape[0]}.")
    if np.any(v < 0):
        raise ValueError(f"{name} must be non-negative (they are variances); got min {v.min():.3g}.")
    return v


def _value_grad(L, E, sqrt_s, v):
    """Objective (10) and its gradient in ``L``. ``E = D diag(sqrt v)``."""
    P = L @ E  # (M, K)
    Q = L * sqrt_s[None, :]  # (M, N)
    G1 = P @ P.T
    G2 = Q @ Q.T
    Pv = P * v[None, :]
    f = np.sum(G1 * G1) - 2.0 * np.sum(Pv * P) + np.sum(v * v) + 2.0 * np.sum(G2 * G1) + np.sum(G2 * G2)
    gP = 4.0 * (G1 @ P) - 4.0 * Pv + 4.0 * (G2 @ P)
    gQ = 4.0 * (G1 @ Q) + 4.0 * (G2 @ Q)
    g = gP @ E.T + gQ * sqrt_s[None, :]
    return f, g


def general_slm_objective(
    L: ArrayLike,
    atoms: ArrayLike,
    code_var: ArrayLike,
    noise_var: ArrayLike | float,
) -> float:
    """Objective (10)-(11) for independent codes of variances ``code_var`` and noise ``noise_var``.

    ``||(D^T S D - I) o sqrt(W1)||^2 + ||(S D) o sqrt(W2)||^2 + ||S o sqrt(W3)||^2`` with
    ``W1 = v v^T``, ``W2 = 2 s v^T``, ``W3 = s s^T``. With ``v = 2 tau^2`` and ``s = sigma^2`` this
    is objective (6).
    """
    atoms = np.asarray(atoms, dtype=np.float64)
    K, N = atoms.shape
    v = _check_var(code_var, K, "code_var")
    s = _check_var(noise_var, N, "noise_var")
    E = atoms.T * np.sqrt(v)[None, :]
    return float(_value_grad(np.asarray(L, dtype=np.float64), E, np.sqrt(s), v)[0])


def general_slm_projection(
    atoms: ArrayLike,
    n_components: int,
    *,
    code_var: ArrayLike,
    noise_var: ArrayLike,
    init: Any = None,
    max_iter: int = 2000,
    tol: float = 1e-14,
) -> GeneralSLMResult:
    """Minimize the general-model objective (10) over ``L`` (weighted low-rank problem).

    Parameters
    ----------
    atoms : ndarray of shape (n_atoms, n_features)
        Dictionary, one atom per row (``D = atoms.T``).
    n_components : int
        ``M <= n_features``.
    code_var : array-like of shape (n_atoms,)
        ``E[a_i^2]`` (``2 tau_i^2`` for Laplace codes of scale ``tau_i``), non-negative.
    noise_var : array-like of shape (n_features,)
        ``E[eps_j^2]``, non-negative.
    init : ndarray of shape (n_components, n_features), optional
        Starting point; default: the closed form (7) with ``tau^2 = mean(code_var) / 2`` and
        ``sigma^2 = mean(noise_var)``.
    max_iter : int
        L-BFGS iterations.
    tol : float
        Relative tolerance on the objective (scaled by ``sum(code_var^2)``).

    Returns
    -------
    GeneralSLMResult
        The caller decides how to report ``converged=False`` (the estimator warns with
        ``ConvergenceWarning``).

    References
    ----------
    * I. Gkioulekas and T. Zickler, "Dimensionality reduction using the sparse linear model",
      Advances in Neural Information Processing Systems 24 (NIPS), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> atoms = np.random.default_rng(0).normal(size=(6, 4))
    >>> res = general_slm_projection(atoms, 2, code_var=np.full(6, 2.0), noise_var=np.full(4, 0.1))
    >>> res.converged, res.components.shape
    (True, (2, 4))
    """
    atoms = check_finite(np.asarray(atoms, dtype=np.float64), "atoms")
    if atoms.ndim != 2:
        raise ValueError(f"atoms must be a 2-D array of shape (n_atoms, n_features); got shape {atoms.shape}.")
    K, N = atoms.shape
    M = check_int(n_components, "n_components", low=1, high=N)
    max_iter = check_int(max_iter, "max_iter", low=1)
    v = _check_var(code_var, K, "code_var")
    s = _check_var(noise_var, N, "noise_var")
    scale = float(np.sum(v * v))
    if scale == 0.0:
        raise ValueError("code_var is identically zero: every code variance is 0, so there is nothing to preserve.")
    if init is None:
        tau = np.sqrt(np.mean(v) / 2.0)
        L0 = slm_projection(atoms, M, sigma=float(np.sqrt(np.mean(s))), tau=float(tau)).components
    else:
        L0 = check_finite(np.asarray(init, dtype=np.float64), "init")
        if L0.shape != (M, N):
            raise ValueError(f"init must have shape ({M}, {N}); got {L0.shape}.")
        L0 = L0.copy()
    E = atoms.T * np.sqrt(v)[None, :]
    sqrt_s = np.sqrt(s)

    def fun(x):
        f, g = _value_grad(x.reshape(M, N), E, sqrt_s, v)
        return f / scale, g.ravel() / scale

    res = sopt.minimize(
        fun,
        L0.ravel(),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "ftol": tol, "gtol": 1e-10, "maxcor": 30},
    )
    L = res.x.reshape(M, N)
    # canonical rotation: rows = eigenvectors of S scaled by the square roots of its eigenvalues
    w, U = np.linalg.eigh(L @ L.T)
    order = np.argsort(-w, kind="stable")
    L = sign_flip(U[:, order].T @ L)
    eig = np.sum(L * L, axis=1)
    return GeneralSLMResult(
        components=L,
        eigenvalues=eig,
        objective=float(res.fun * scale),
        n_iter=int(res.nit),
        converged=bool(res.success),
        message=str(res.message),
    )
