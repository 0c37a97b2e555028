"""Continuous baselines made sparse by thresholding, every prefix renormalized.

``_thresholding`` (Fisher and simple thresholding paths, one array-API implementation for NumPy
and device arrays) and ``_renormalize`` (variational renormalization of any pair).
"""

# The four thresholding functions are exported by :mod:`pixsel.spectral`.
__all__: list[str] = []
