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
    * :func:`group_swap_refine` -- improve a union of groups by exchanging one group for another.
    * :func:`group_beam_search` -- the best few unions of groups of each size, grown side by side.
    * :func:`rank_one_greedy_path` -- the blocked two-class kernel itself (a vector ``a``).
    * :func:`lowrank_backward_path` -- the backward path of ``(M M^T, lam I + U U^T)`` in the
      ``n``-dimensional form, for ``n`` images of ``p > n`` pixels (no ``p x p`` matrix).
    * :func:`implicit_greedy_path` -- the forward path through a Gram operator, with no
      ``p x p`` matrix (images at full resolution).

Exact search (certified optimum)
    * :func:`exact_support` -- the best support of one size ``k`` by branch and bound.
    * :func:`exact_path` -- the certified best support of every size.
    * :func:`exact_spca_path` -- sparse PCA of every size on many features, the time planned from the gaps.
    * :func:`exact_group_support` -- the best ``k`` groups by branch and bound.
    * :func:`exact_path_batch` -- the certified paths of many small pairs in one compiled loop.
    * :func:`plain_search` -- the depth-first search of ESLDA with the inclusion bound only, a
      named baseline.
    * :class:`ExactResult`, :class:`ExactPath`, :class:`ExactPathBatch` -- their results with the
      proved bounds; :class:`SearchState` -- the progress record a search's callback receives.

Bounds and certificates
    * :func:`certify` -- certified upper bounds on the best objective of every ``k``.
    * :func:`sparsity_lower_bound` -- the value the ``k`` largest ``|a_i|`` at least reach.
    * :func:`nesting_ratios`, :func:`check_nesting_bound` -- how far a greedy path can be from
      the optimum by nesting.

Thresholding baselines
    * :func:`fisher_thresholding_path`, :func:`simple_thresholding_path` -- rank then evaluate
      every prefix exactly.
    * :func:`renormalize`, :func:`simple_thresholding` -- renormalize a support's weights.

Criteria
    * :func:`criterion_named` -- the criterion object for a name (``'trace'``, ``'max-eig'``,
      ``'correlation'``, ...): what a search maximizes, its properties and the pair it searches.

On a support
    * :func:`objective_on_support`, :func:`weights_on_support` -- the criterion and the
      optimal weights of a pair on a given support.

The kernels behind them live in the family sub-packages (:mod:`pixsel.spectral.greedy`,
:mod:`pixsel.spectral.implicit`, :mod:`pixsel.spectral.exact`, :mod:`pixsel.spectral.bounds`,
:mod:`pixsel.spectral.thresholding`). Each public name is exported once: the names above from
here; the few that only studies of the searches themselves call (the textbook reference of the
rank-one path, the individual bounds, the named bound sets) from their sub-package. The search
internals are imported from the private modules where they live.
"""

from ._components import greedy_sparse_component, leading_component
from ._criteria import criterion_named
from ._dispatch import greedy_path
from ._groups import exact_group_support, group_beam_search, group_greedy_path, group_swap_refine
from ._path import SparsePath, objective_on_support, weights_on_support
from .bounds._certificates import certify
from .bounds._nesting import check_nesting_bound, nesting_ratios, sparsity_lower_bound
from .exact._allk import ExactPath, exact_path
from .exact._batch import ExactPathBatch, exact_path_batch
from .exact._result import ExactResult, SearchState
from .exact._solve import exact_support, plain_search
from .exact._spca_path import exact_spca_path
from .greedy._lowrank import lowrank_backward_path
from .greedy._rank_one import rank_one_greedy_path
from .greedy._refine import refine_support
from .implicit._implicit import implicit_greedy_path
from .thresholding._renormalize import renormalize, simple_thresholding
from .thresholding._thresholding import fisher_thresholding_path, simple_thresholding_path
from .greedy._swap import swap_refine  # after the door: the swap reuses the exact search's formulas

# For the estimators of pixsel.selection and pixsel.decomposition (being folded into their
# parameter validation); not public.
from ._components import DIRECTIONS as DIRECTIONS
from ._groups import check_groups as check_groups
from ._path import best_objective as best_objective
from ._path import pick_path as pick_path

__all__ = [
    "greedy_path",
    "SparsePath",
    "rank_one_greedy_path",
    "lowrank_backward_path",
    "implicit_greedy_path",
    "refine_support",
    "swap_refine",
    "greedy_sparse_component",
    "leading_component",
    "group_greedy_path",
    "exact_support",
    "exact_path",
    "exact_spca_path",
    "exact_group_support",
    "group_swap_refine",
    "group_beam_search",
    "exact_path_batch",
    "plain_search",
    "ExactResult",
    "ExactPath",
    "ExactPathBatch",
    "SearchState",
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
    "criterion_named",
]
