"""Greedy paths on explicit matrices, one kernel per form of ``A``.

* a vector ``a`` (``A = a a^T``, two-class LDA): the blocked rank-one elimination
  (``_rank_one``; its Numba panel loop ``_rank_one_jit``, its array-API twin ``_rank_one_xp``);
* a factor ``M`` (``A = M M^T``, multiclass LDA): the left-looking multiclass path
  (``_multiclass``, ``_multiclass_jit``, ``_multiclass_xp``);
  with fewer images than pixels, its backward pass in the n-dimensional form
  ``B = lam I + U U^T`` (``_lowrank``, ``_lowrank_jit``: an ``n x n`` inverse, not yet called by
  the door);
* a full symmetric ``A`` (sparse PCA, general pairs): the full-rank paths by secular equations
  and certified Krylov updates (``_fullrank``, ``_fullrank_dense``, ``_fullrank_krylov``,
  ``_fullrank_jit``, ``_fullrank_xp``; the primitives in ``_secular`` and ``_secular_jit``);
* the local improvement of one sparse PCA support (``_refine``, ``_refine_jit``) and the swap
  refinement of any support (``_swap``, its one-pass sweep ``_swap_jit``), the beam search (``_beam``) and excluded features (``_exclude``);
* the unblocked ``O(p^3)`` reference of the rank-one path, for tests (``_reference``);
* what every step shares (``_steps``): the pivot tolerance, the criterion value and the
  left-looking forward loop that the multiclass and the implicit kernels both run.

The door that picks among them is :func:`pixsel.spectral.greedy_path`.
"""

from ._reference import greedy_path_reference

# The family's kernels, for its door (pixsel.spectral.greedy_path) and the other spectral
# families only (rank_one_greedy_path and refine_support are exported by pixsel.spectral);
# tests import them from their private modules.
from ._refine import refine_support as refine_support
from ._fullrank import fullrank_greedy_path as fullrank_greedy_path
from ._fullrank_xp import fullrank_path_xp as fullrank_path_xp
from ._multiclass import multiclass_greedy_path as multiclass_greedy_path
from ._multiclass_xp import multiclass_path_xp as multiclass_path_xp
from ._rank_one import prefix_objectives as prefix_objectives
from ._rank_one import rank_one_path as rank_one_path
from ._rank_one_xp import check_form_pair_xp as check_form_pair_xp
from ._rank_one_xp import rank_one_greedy_path_xp as rank_one_greedy_path_xp
from ._rank_one_xp import rank_one_path_xp as rank_one_path_xp
from ._steps import left_looking_forward as left_looking_forward

# The textbook reference of the rank-one path (the benchmarks' naive baseline, the tests'
# oracle) is this package's own public name.
__all__ = ["greedy_path_reference"]
