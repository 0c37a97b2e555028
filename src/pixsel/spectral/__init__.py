"""Layer 2: sparse generalized eigenproblems (greedy paths, bounds, thresholding)."""

from ._greedy import greedy_path
from ._greedy_reference import greedy_path_reference
from ._path import SparsePath, objective_on_support, weights_on_support


__all__ = [
    "SparsePath",
    "greedy_path",
    "greedy_path_reference",
    "objective_on_support",
    "weights_on_support",
]
