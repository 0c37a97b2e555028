"""What a transformer needs to follow X under ``sklearn.set_config(array_api_dispatch=True)`` when
its fit can only run on the host (scikit-learn's dictionary learning and lasso have no array-API
support): fit on a host copy of X, then every fitted array on X's device, and ``transform`` of
new data in X's library on its device."""

from __future__ import annotations

import numpy as np

from .._array_api import dispatch_enabled, from_numpy, get_namespace, has_float64, is_numpy, to_numpy
from .._validation import is_dask_array

__all__ = []


class _HostFitTransformerMixin:
    """Fit on the host, fitted arrays and ``transform`` on X's device. Put it first in the bases.

    ``fit`` calls :meth:`_fit_namespace` (``(xp, device)`` of X under dispatch, NumPy otherwise),
    fits on ``to_numpy(X)`` (one host copy of the training data) and ends with
    :meth:`_arrays_to_device`; ``transform`` asks :meth:`_transform_namespace` and, for another
    library, computes in it (the estimator's ``_transform_xp``).
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.array_api_support = True  # the fitted arrays and transform follow X (fit runs on the host)
        return tags

    @staticmethod
    def _fit_namespace(X):
        """``(xp, device)`` of X under ``array_api_dispatch`` (another library), else ``(np, None)``."""
        if is_dask_array(X) or not dispatch_enabled():
            return np, None
        xp, dev = get_namespace(X)
        return (np, None) if is_numpy(xp) else (xp, dev)

    @staticmethod
    def _host_copy(xp, X):
        """X as NumPy for the host-only fit (X itself for NumPy)."""
        return X if is_numpy(xp) else to_numpy(X)

    def _arrays_to_device(self, xp, dev):
        """Every fitted floating array onto X's device (float64 where the device has it)."""
        if is_numpy(xp):
            return
        hi = xp.float64 if has_float64(xp, dev) else xp.float32
        for name, value in list(vars(self).items()):
            if name.endswith("_") and isinstance(value, np.ndarray) and value.dtype.kind == "f":
                setattr(self, name, from_numpy(xp, value, dev, dtype=hi))

    def _transform_namespace(self, X, fitted):
        """``(xp, device)`` of ``X`` for ``transform``; X and the fitted array ``fitted`` must come
        from one library on one device (a message naming the fix otherwise)."""
        if is_dask_array(X):
            return np, None
        xp, dev = get_namespace(X, fitted, names=["X", "the fitted arrays"])
        return (np, None) if is_numpy(xp) else (xp, dev)
