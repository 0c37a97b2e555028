"""Binary Gaussian-process classification with the probit likelihood (EP and Laplace).

Kernels (pure NumPy/SciPy): :func:`ep_binary_probit`, :func:`ep_predict`,
:func:`laplace_binary_probit`, :func:`laplace_predict`, the squared-exponential covariance
:class:`SquaredExponential`; the estimator :class:`GaussianProcessProbitClassifier` fits the
hyperparameters by the approximate marginal likelihood with optimizer restarts.
"""

from ._classifier import GaussianProcessProbitClassifier
from ._ep import ep_binary_probit, ep_log_marginal, ep_predict
from ._kernels import SquaredExponential
from ._laplace import laplace_binary_probit, laplace_predict

# importable here, off __all__ (see below)
from ._ep import EPState as EPState, ep_log_marginal_grad as ep_log_marginal_grad
from ._laplace import LaplaceState as LaplaceState, laplace_log_marginal_grad as laplace_log_marginal_grad

# what a user calls; the states they return (EPState, LaplaceState) and the gradients the
# classifier's optimizer reads stay importable from here, off the API page
__all__ = [
    "GaussianProcessProbitClassifier",
    "SquaredExponential",
    "ep_binary_probit",
    "ep_log_marginal",
    "ep_predict",
    "laplace_binary_probit",
    "laplace_predict",
]
