"""Layer 2: sparse generalized eigenproblems ``max x^T A x / x^T B x`` with ``card(x) = k``.

``A`` is a vector ``a`` (two-class LDA, ``A = a a^T``), a factor ``M`` (multiclass LDA,
``A = M M^T``), a symmetric matrix (sparse PCA, general pairs) or a Gram operator used through
the data; ``B`` is positive definite (``None``: the identity). One entry per family:

Greedy paths (one support per ``k``)
    * :func:`greedy_path` -- the forward or backward greedy path; it picks the kernel for the
      form of ``A`` and the route (NumPy, compiled, array API on a device, implicit).
    * :class:`SparsePath` -- the result: order, objective, supports and weights per ``k``.
    * :func:`refine_support` -- improve one sparse PCA support by swaps (never worse).
    * :func:`swap_refine` -- improve one LDA support (two classes, trace, max-eig) by swaps.
    * :func:`greedy_sparse_component` -- GSPCA's sparse component of exactly ``k`` loadings.
    * :func:`leading_component` -- the top eigenpair of a covariance on a support.
    * :func:`group_greedy_path` -- the greedy path over groups of features (patches, pixels).

Exact search (certified optimum)
    * :func:`exact_support` -- the best support of one size ``k`` by branch and bound.
    * :func:`exact_path` -- the certified best support of every size.
    * :func:`exact_group_support` -- the best ``k`` groups by branch and bound.
    * :class:`ExactResult`, :class:`ExactPath` -- their results with the proved bounds.

Bounds and certificates
    * :func:`certify` -- certified upper bounds on the best objective of every ``k``.
    * :func:`sparsity_lower_bound` -- the value the ``k`` largest ``|a_i|`` at least reach.
    * :func:`nesting_ratios`, :func:`check_nesting_bound` -- how far a greedy path can be from
      the optimum by nesting.

Thresholding baselines
    * :func:`fisher_thresholding_path`, :func:`simple_thresholding_path` -- rank then evaluate
      every prefix exactly.
    * :func:`renormalize`, :func:`simple_thresholding` -- renormalize a support's weights.

On a support
    * :func:`objective_on_support`, :func:`weights_on_support` -- the criterion and the
      optimal weights of a pair on a given support.

The kernels behind them live in the family sub-packages (:mod:`pixsel.spectral.greedy`,
:mod:`pixsel.spectral.implicit`, :mod:`pixsel.spectral.exact`, :mod:`pixsel.spectral.bounds`,
:mod:`pixsel.spectral.thresholding`); the search internals and the test references are
importable from here and from there (for tests and benchmarks) but are not part of
``__all__``.
"""

from ._components import greedy_sparse_component, leading_component
from ._dispatch import greedy_path
from ._groups import exact_group_support, group_greedy_path
from ._path import SparsePath, objective_on_support, weights_on_support
from .bounds import certify, check_nesting_bound, nesting_ratios, sparsity_lower_bound
from .exact import ExactPath, ExactResult, exact_path, exact_support
from .greedy import refine_support
from .greedy._swap import swap_refine  # after the door: the swap reuses the exact search's formulas
from .thresholding import fisher_thresholding_path, renormalize, simple_thresholding, simple_thresholding_path

# Internals, importable for the estimators, tests and benchmarks; not in __all__.
from ._components import DIRECTIONS as DIRECTIONS
from ._forms import infer_form as infer_form
from ._groups import check_groups as check_groups
from ._path import best_objective as best_objective
from ._path import pick_path as pick_path
from .bounds import dual_certificate as dual_certificate
from .bounds import inclusion_bounds as inclusion_bounds
from .exact import SearchState as SearchState
from .exact import plain_search as plain_search
from .exact import tighten_path_bound as tighten_path_bound
from .greedy import greedy_path_reference as greedy_path_reference
from .greedy import rank_one_greedy_path as rank_one_greedy_path
from .implicit import implicit_greedy_path as implicit_greedy_path

__all__ = [
    "greedy_path",
    "SparsePath",
    "refine_support",
    "swap_refine",
    "greedy_sparse_component",
    "leading_component",
    "group_greedy_path",
    "exact_support",
    "exact_path",
    "exact_group_support",
    "ExactResult",
    "ExactPath",
    "certify",
    "sparsity_lower_bound",
    "nesting_ratios",
    "check_nesting_bound",
    "fisher_thresholding_path",
    "simple_thresholding_path",
    "renormalize",
    "simple_thresholding",
    "objective_on_support",
    "weights_on_support",
]
