"""Expectation propagation for binary GP classification with the probit likelihood.

Rasmussen & Williams, *Gaussian Processes for Machine Learning* (GPML, 2006):
Algorithm 3.5 (EP sites, log marginal likelihood ``log Z_EP``), Algorithm 3.6 (predictions),
eq. (5.27) / Algorithm 5.2 (gradient of ``log Z_EP`` with respect to the kernel hyperparameters
at the EP fixed point). Labels are ``y in {-1, +1}``, the likelihood ``p(y|f) = Phi(y f)``.

Two sweep orders reach the same fixed point:

* ``'sequential'``: Algorithm 3.5 verbatim, one site at a time with a rank-one update of the
  posterior covariance ``Sigma`` (O(n^2) per site, a Python loop over sites);
* ``'parallel'``: every site updated from the same posterior, then ``Sigma`` recomputed once by
  a Cholesky factorization (O(n^3) per sweep in BLAS), damped in the natural parameters. Much
  faster on a few hundred points; the default of the estimator.

Pure NumPy/SciPy: no scikit-learn, no I/O.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
from scipy.special import log_ndtr

from .._validation import check_options

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import ArrayLike, NDArray

    from ._kernels import SquaredExponential

__all__ = ["EPState", "ep_binary_probit", "ep_log_marginal", "ep_log_marginal_grad", "ep_predict"]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


def _probit_tilted(y, mu_cav, var_cav):
    """Moments of the tilted distribution ``Phi(y f) N(f | mu_cav, var_cav)`` (GPML eq. 3.58).

    Returns ``(log_Zhat, mu_hat, var_hat)``.
    """
    s = np.sqrt(1.0 + var_cav)
    z = y * mu_cav / s
    log_Z = log_ndtr(z)
    ratio = np.exp(-0.5 * z * z - _LOG_SQRT_2PI - log_Z)  # N(z) / Phi(z), stable for z << 0
    mu_hat = mu_cav + y * var_cav * ratio / s
    var_hat = var_cav - var_cav**2 * ratio / (1.0 + var_cav) * (z + ratio)
    return log_Z, mu_hat, var_hat


@dataclass
class EPState:
    """The EP approximation at convergence (site parameters and the factorization).

    Attributes
    ----------
    tau, nu : ndarray of shape (n,)
        Site precisions ``tau~`` and precision-times-means ``nu~``.
    mu, var : ndarray of shape (n,)
        Approximate posterior means and variances of the latent ``f`` at the training points.
    L : ndarray of shape (n, n)
        Lower Cholesky factor of ``B = I + S^1/2 K S^1/2`` with ``S = diag(tau)``.
    log_Z : float
        ``log Z_EP``, the EP approximation of the log marginal likelihood.
    n_sweeps : int
    converged : bool
    """

    tau: np.ndarray
    nu: np.ndarray
    mu: np.ndarray
    var: np.ndarray
    L: np.ndarray
    log_Z: float
    n_sweeps: int
    converged: bool


def _posterior(K, tau, nu, full=False):
    """``L = chol(I + S^1/2 K S^1/2)``, ``V = L \\ S^1/2 K``, ``Sigma = K - V^T V``, ``mu = Sigma nu``.

    Returns ``(L, Sigma, mu)`` with ``Sigma`` the full matrix when ``full`` and only its diagonal
    otherwise (the parallel sweep needs no more, which saves the O(n^3) product ``V^T V``).
    """
    sW = np.sqrt(tau)
    n = len(tau)
    Bm = np.eye(n) + sW[:, None] * K * sW[None, :]
    L = sla.cholesky(Bm, lower=True, check_finite=False)
    V = sla.solve_triangular(L, sW[:, None] * K, lower=True, check_finite=False)
    if full:
        Sigma = K - V.T @ V
        return L, Sigma, Sigma @ nu
    d = np.diag(K) - np.einsum("ij,ij->j", V, V)
    mu = K @ nu - V.T @ (V @ nu)
    return L, d, mu


def ep_log_marginal(
    K: ArrayLike,
    y: ArrayLike,
    tau: ArrayLike,
    nu: ArrayLike,
    L: ArrayLike,
    d: ArrayLike,
    mu: ArrayLike,
) -> float:
    """``log Z_EP`` (GPML Algorithm 3.5, lines 17-19, zero prior mean).

    ``d`` and ``mu`` are the diagonal of the posterior covariance and the posterior mean.
    """
    tau_c = 1.0 / d - tau
    nu_c = mu / d - nu
    mu_c = nu_c / tau_c
    log_Zhat, _, _ = _probit_tilted(y, mu_c, 1.0 / tau_c)
    t1 = 0.5 * np.sum(np.log1p(tau / tau_c)) - np.sum(np.log(np.diag(L)))
    t2 = 0.5 * (nu @ mu) - 0.5 * np.sum(nu**2 / (tau_c + tau))
    t3 = 0.5 * np.sum(tau_c / (tau + tau_c) * mu_c * (tau * mu_c - 2.0 * nu))
    return float(t1 + t2 + t3 + np.sum(log_Zhat))


def ep_binary_probit(
    K: ArrayLike,
    y: ArrayLike,
    *,
    init: Any = None,
    algorithm: Literal["parallel", "sequential"] = "parallel",
    damping: float = 0.5,
    tol: float = 1e-6,
    max_sweeps: int = 200,
    method: Literal["parallel", "sequential"] | None = None,
) -> EPState:
    """Run EP for binary probit GP classification (GPML Algorithm 3.5).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Prior covariance of the latent function at the training inputs.
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    init : tuple (tau, nu) or None
        Site parameters to start from (warm start); zeros when None.
    algorithm : {'parallel', 'sequential'}
        Update all sites at once from the current marginals (damped), or one after the other
        with a rank-one update of the posterior (Algorithm 3.5). Both aim at the same EP fixed
        point.
    damping : float in (0, 1]
        Step of the parallel update in the natural parameters (1 = undamped). Ignored by the
        sequential sweep, which is undamped as in Algorithm 3.5.
    tol : float
        Convergence when the largest change of a site parameter in a sweep is below ``tol``.
    max_sweeps : int
    method : {'parallel', 'sequential'} or None
        Deprecated alias of ``algorithm`` (pixsel's switch vocabulary: ``algorithm`` says how
        the same answer is computed).

    Returns
    -------
    EPState

    Examples
    --------
    One training point: EP is exact, ``Z = Phi(0) = 1/2`` under a zero-mean prior.

    >>> import numpy as np
    >>> st = ep_binary_probit(np.array([[2.0]]), np.array([1.0]))
    >>> round(float(np.exp(st.log_Z)), 6)
    0.5
    """
    if method is not None:
        warnings.warn(
            "ep_binary_probit(method=...) was renamed algorithm=...; pass algorithm instead.",
            FutureWarning,
            stacklevel=2,
        )
        algorithm = method
    check_options(algorithm, "algorithm", ("parallel", "sequential"), owner="ep_binary_probit")
    K = np.asarray(K, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    if init is None:
        tau = np.zeros(n)
        nu = np.zeros(n)
    else:
        tau = np.array(init[0], dtype=np.float64)
        nu = np.array(init[1], dtype=np.float64)
    seq = algorithm == "sequential"
    L, Sigma, mu = _posterior(K, tau, nu, full=seq)
    converged = False
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):  # noqa: B007 - the count is read after the loop
        tau_old, nu_old = tau.copy(), nu.copy()
        if algorithm == "sequential":
            for i in range(n):
                tau_ci = 1.0 / Sigma[i, i] - tau[i]
                nu_ci = mu[i] / Sigma[i, i] - nu[i]
                _, mu_hat, var_hat = _probit_tilted(y[i], nu_ci / tau_ci, 1.0 / tau_ci)
                dtau = 1.0 / var_hat - tau_ci - tau[i]
                tau[i] += dtau
                nu[i] = mu_hat / var_hat - nu_ci
                si = Sigma[:, i].copy()
                Sigma -= np.outer(si, si) / (1.0 / dtau + si[i]) if dtau != 0 else 0.0
                mu = Sigma @ nu
        else:  # 'parallel'
            d = Sigma  # the diagonal only
            tau_c = 1.0 / d - tau
            nu_c = mu / d - nu
            ok = tau_c > 0
            _, mu_hat, var_hat = _probit_tilted(y[ok], nu_c[ok] / tau_c[ok], 1.0 / tau_c[ok])
            tau_new = tau.copy()
            nu_new = nu.copy()
            tau_new[ok] = np.maximum(1.0 / var_hat - tau_c[ok], 0.0)
            nu_new[ok] = mu_hat / var_hat - nu_c[ok]
            tau = (1.0 - damping) * tau + damping * tau_new
            nu = (1.0 - damping) * nu + damping * nu_new
        L, Sigma, mu = _posterior(K, tau, nu, full=seq)  # re-factorize (Algorithm 3.5 line 13)
        change = max(np.max(np.abs(tau - tau_old)), np.max(np.abs(nu - nu_old)))
        if change < tol:
            converged = True
            break
    d = np.diag(Sigma).copy() if seq else Sigma
    log_Z = ep_log_marginal(K, y, tau, nu, L, d, mu)
    return EPState(tau=tau, nu=nu, mu=mu, var=d, L=L, log_Z=log_Z,
                   n_sweeps=sweeps, converged=converged)


def ep_log_marginal_grad(
    kernel: SquaredExponential,
    theta: ArrayLike,
    X: ArrayLike,
    K: ArrayLike,
    state: EPState,
) -> NDArray:
    """Gradient of ``log Z_EP`` w.r.t. the log-hyperparameters at the EP fixed point (eq. 5.27).

    ``d log Z / d theta_j = 1/2 tr((b b^T - S^1/2 B^-1 S^1/2) dK/dtheta_j)`` with
    ``b = (I - S^1/2 B^-1 S^1/2 K) nu~``.
    """
    sW = np.sqrt(state.tau)
    L = state.L
    Li = sla.solve_triangular(L, np.diag(sW), lower=True, check_finite=False)
    R = Li.T @ Li  # S^1/2 B^-1 S^1/2
    b = state.nu - R @ (K @ state.nu)
    M = np.outer(b, b) - R
    M = (M + M.T) / 2.0
    return 0.5 * kernel.grad_contract(theta, X, K, M)


def ep_predict(
    K: ArrayLike,
    Ks: ArrayLike,
    kss: ArrayLike,
    y: ArrayLike,
    state: EPState,
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Predictive latent mean/variance and ``log p(y*=+1)`` (GPML Algorithm 3.6).

    Parameters
    ----------
    K : ndarray of shape (n, n)
    Ks : ndarray of shape (n, m)
        Cross-covariances training x test.
    kss : ndarray of shape (m,)
        Prior variances at the test points.

    Returns
    -------
    f_mean, f_var, log_p_pos, log_p_neg : ndarrays of shape (m,)
    """
    sW = np.sqrt(state.tau)
    L = state.L
    z = sW * sla.cho_solve((L, True), sW * (K @ state.nu), check_finite=False)
    f_mean = Ks.T @ (state.nu - z)
    v = sla.solve_triangular(L, sW[:, None] * Ks, lower=True, check_finite=False)
    f_var = np.maximum(kss - np.sum(v * v, axis=0), 0.0)
    t = f_mean / np.sqrt(1.0 + f_var)
    return f_mean, f_var, log_ndtr(t), log_ndtr(-t)

