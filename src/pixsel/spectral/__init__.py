"""Layer 2: sparse generalized eigenproblems (greedy paths, bounds, thresholding)."""

from ._bounds import check_nesting_bound, nesting_ratios, sparsity_lower_bound
from ._greedy import greedy_path
from ._greedy_reference import greedy_path_reference
from ._path import SparsePath, objective_on_support, weights_on_support
from ._thresholding import fisher_thresholding_path, simple_thresholding_path

__all__ = [
    "SparsePath",
    "check_nesting_bound",
    "fisher_thresholding_path",
    "greedy_path",
    "greedy_path_reference",
    "nesting_ratios",
    "objective_on_support",
    "simple_thresholding_path",
    "sparsity_lower_bound",
    "weights_on_support",
]
