"""Layer 2: sparse generalized eigenproblems (greedy paths, bounds, thresholding)."""

from ._greedy_reference import greedy_path_reference
from ._exact import ExactResult, exact_support, tighten_path_bound
from ._path import SparsePath, objective_on_support, weights_on_support

greedy_path = greedy_path_reference  # replaced by the blocked kernel

__all__ = [
    "ExactResult",
    "exact_support",
    "tighten_path_bound",
    "SparsePath",
    "greedy_path",
    "greedy_path_reference",
    "objective_on_support",
    "weights_on_support",
]
