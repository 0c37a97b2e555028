"""What the kernel transformers of :mod:`pixsel.decomposition` share."""

from __future__ import annotations

from sklearn.metrics.pairwise import pairwise_kernels

__all__ = []


class _KernelMixin:
    """``_pairwise(X, Y)``: the kernel matrix named by ``kernel``, ``gamma``, ``degree``,
    ``coef0`` and ``kernel_params`` (the parameter names of scikit-learn's ``KernelPCA``)."""

    def _pairwise(self, X, Y):
        params = dict(self.kernel_params or {})
        if not callable(self.kernel):
            params.update(gamma=self.gamma, degree=self.degree, coef0=self.coef0)
        return pairwise_kernels(X, Y, metric=self.kernel, filter_params=True, **params)
