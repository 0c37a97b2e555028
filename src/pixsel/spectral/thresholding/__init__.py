"""Continuous baselines made sparse by thresholding, every prefix renormalized.

``_thresholding`` (Fisher and simple thresholding paths; the array-API twins in
``_thresholding_xp``) and ``_renormalize`` (variational renormalization of any pair).
"""

from ._renormalize import renormalize, simple_thresholding
from ._thresholding import fisher_thresholding_path, simple_thresholding_path

__all__ = ["fisher_thresholding_path", "renormalize", "simple_thresholding", "simple_thresholding_path"]
