"""Layer 2: sparse generalized eigenproblems (greedy paths, bounds, thresholding)."""

from ._bounds import check_nesting_bound, nesting_ratios, sparsity_lower_bound
from ._certificates import certify, dual_certificate, inclusion_bounds
from ._dispatch import greedy_path  # vector -> rank_one_greedy_path, factor -> multiclass, matrix -> full rank
from ._forms import infer_form
from ._rank_one import rank_one_greedy_path
from ._greedy_reference import greedy_path_reference
from .exact import ExactPath, ExactResult, SearchState, exact_path, exact_support, plain_search, tighten_path_bound
from ._implicit import implicit_greedy_path
from ._path import SparsePath, objective_on_support, weights_on_support
from ._refine import refine_support
from ._renormalize import renormalize, simple_thresholding
from ._thresholding import fisher_thresholding_path, simple_thresholding_path

__all__ = [
    "ExactPath",
    "ExactResult",
    "exact_path",
    "SearchState",
    "infer_form",
    "rank_one_greedy_path",
    "exact_support",
    "plain_search",
    "tighten_path_bound",
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
    "certify",
    "dual_certificate",
    "inclusion_bounds",
    "implicit_greedy_path",
    "renormalize",
    "simple_thresholding",
    "refine_support",
]
