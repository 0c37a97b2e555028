"""Layer 2: sparse generalized eigenproblems (greedy paths, bounds, thresholding)."""

from ._components import DIRECTIONS as DIRECTIONS  # the estimators' direction options, not in __all__
from ._components import greedy_sparse_component, leading_component
from ._dispatch import greedy_path  # vector -> rank_one_greedy_path, factor -> multiclass, matrix -> full rank
from ._forms import infer_form
from ._groups import check_groups as check_groups  # the selectors' groups check, not in __all__
from ._groups import exact_group_support, group_greedy_path
from ._path import SparsePath, best_objective, objective_on_support, pick_path, weights_on_support
from .bounds import certify, check_nesting_bound, dual_certificate, inclusion_bounds, nesting_ratios, sparsity_lower_bound
from .exact import ExactPath, ExactResult, SearchState, exact_path, exact_support, plain_search, tighten_path_bound
from .greedy import greedy_path_reference, rank_one_greedy_path, refine_support
from .implicit import implicit_greedy_path
from .thresholding import fisher_thresholding_path, renormalize, simple_thresholding, simple_thresholding_path

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
    "greedy_sparse_component",
    "leading_component",
    "pick_path",
    "best_objective",
    "group_greedy_path",
    "exact_group_support",
]
