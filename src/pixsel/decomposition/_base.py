"""What the kernel transformers of :mod:`pixsel.decomposition` share."""

from __future__ import annotations

from numbers import Real

from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels

from .._validation import Interval, StrOptions

__all__ = []

#: The ``_parameter_constraints`` of the kernel parameters (those of scikit-learn's ``KernelPCA``).
KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions(tuple(PAIRWISE_KERNEL_FUNCTIONS)), callable],
    "gamma": [Interval(Real, 0, None, closed="left"), None],
    "degree": [Interval(Real, 0, None, closed="left")],
    "coef0": [Interval(Real, None, None, closed="neither")],
    "kernel_params": [dict, None],
}


class _KernelMixin:
    """``_pairwise(X, Y)``: the kernel matrix named by ``kernel``, ``gamma``, ``degree``,
    ``coef0`` and ``kernel_params`` (the parameter names of scikit-learn's ``KernelPCA``)."""

    def _pairwise(self, X, Y):
        params = dict(self.kernel_params or {})
        if not callable(self.kernel):
            params.update(gamma=self.gamma, degree=self.degree, coef0=self.coef0)
        return pairwise_kernels(X, Y, metric=self.kernel, filter_params=True, **params)
