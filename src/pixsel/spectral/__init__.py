"""Layer 2: sparse generalized eigenproblems (greedy paths, bounds, thresholding)."""

from ._certificates import certify, dual_certificate, inclusion_bounds
from ._general import greedy_path  # vector -> blocked binary kernel, factor -> multiclass, matrix -> full rank
from ._greedy_reference import greedy_path_reference
from ._implicit import implicit_greedy_path
from ._path import SparsePath, objective_on_support, weights_on_support
from ._renormalize import renormalize, simple_thresholding

__all__ = [
    "SparsePath",
    "greedy_path",
    "greedy_path_reference",
    "objective_on_support",
    "weights_on_support",
    "certify",
    "dual_certificate",
    "inclusion_bounds",
    "implicit_greedy_path",
    "renormalize",
    "simple_thresholding",
]
