"""Binary Gaussian-process classification with the probit likelihood (EP and Laplace).

Kernels (pure NumPy/SciPy): :func:`ep_binary_probit`, :func:`ep_predict`,
:func:`laplace_binary_probit`, :func:`laplace_predict`, the squared-exponential covariance
:class:`SquaredExponential`; the estimator :class:`GaussianProcessProbitClassifier` fits the
hyperparameters by the approximate marginal likelihood with optimizer restarts.
"""

from ._classifier import GaussianProcessProbitClassifier
from ._ep import EPState, ep_binary_probit, ep_log_marginal, ep_log_marginal_grad, ep_predict
from ._kernels import SquaredExponential
from ._laplace import LaplaceState, laplace_binary_probit, laplace_log_marginal_grad, laplace_predict

__all__ = [
    "GaussianProcessProbitClassifier",
    "SquaredExponential",
    "EPState",
    "ep_binary_probit",
    "ep_log_marginal",
    "ep_log_marginal_grad",
    "ep_predict",
    "LaplaceState",
    "laplace_binary_probit",
    "laplace_log_marginal_grad",
    "laplace_predict",
]
