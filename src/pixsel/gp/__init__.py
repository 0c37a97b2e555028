"""Binary Gaussian-process classification with the probit likelihood (EP and Laplace).

Kernels (pure NumPy/SciPy): :func:`ep_binary_probit`, :func:`ep_predict`,
:func:`laplace_binary_probit`, :func:`laplace_predict`, the squared-exponential covariance
:class:`SquaredExponential`; the estimator :class:`GaussianProcessProbitClassifier` fits the
hyperparameters by the approximate marginal likelihood with optimizer restarts.
"""

from ._classifier import GaussianProcessProbitClassifier
from ._ep import EPState, ep_binary_probit, ep_log_marginal, ep_predict
from ._kernels import SquaredExponential
from ._laplace import LaplaceState, laplace_binary_probit, laplace_predict

# what a user calls and the states it returns; the gradients the classifier's optimizer reads
# are imported from their private modules
__all__ = [
    "GaussianProcessProbitClassifier",
    "SquaredExponential",
    "EPState",
    "LaplaceState",
    "ep_binary_probit",
    "ep_log_marginal",
    "ep_predict",
    "laplace_binary_probit",
    "laplace_predict",
]
