"""Exact sparse generalized eigenproblems by branch and bound, with certified bounds.

Problem: ``max f(S)`` over supports ``|S| = k`` where ``f(S) = lambda_max(A_SS, B_SS)``
(``'max-eig'``) or ``tr(B_SS^{-1} A_SS)`` (``'trace'``). For a vector ``a`` (two-class LDA)
``f(S) = a_S^T B_SS^{-1} a_S``; for a factor ``M`` (``A = M M^T``, ``p x r``) the generalized
eigenvalues on ``S`` are those of ``G_S = M_S^T B_SS^{-1} M_S`` (``r x r``).

Search tree. A node is a pair ``(I, U)`` with ``I`` (fixed in) contained in ``U`` (fixed in plus
undecided); every support of the subtree satisfies ``I <= S <= U``. By the generalized
inclusion principle (Moghaddam, Weiss and Avidan 2006, Theorem 1, Eq. 7-8) ``f`` is monotone under inclusion, so
``f(U)`` bounds every completion (the *inclusion bound*, the only bound of their exact search, ESLDA).

Factor problems (vectors and ``p x r`` factors) keep, along a depth-first dive, the inverse
``P = B_UU^{-1}``, ``W = P M_U`` and ``G_U = M_U^T W`` (backward side) and the Schur complement
``R = B_FF - B_FI B_II^{-1} B_IF`` with ``Rm = M_F - B_FI B_II^{-1} M_I`` and ``G_I``
(forward side, ``F = U - I``). Excluding ``j`` is a rank-one downdate of ``P`` (``f(U - j) =
f(U) - |W_j|^2 / P_jj`` for the trace and for vectors), including ``j`` is one pivoted-Cholesky
step on ``R``; no node of a dive is factorized from scratch. Nodes popped from the best-first
queue are refactorized once (which also resets rounding). Two cardinality-aware bounds are
tried besides the inclusion bound, both ``O(|U|^2)`` from the kept matrices:

* forward: ``f(I + J) - f(I) <= sum_{j in J} g_j / mu`` where ``g_j = |Rm_j|^2 / R_jj`` are the
  single-variable gains given ``I`` and ``mu <= lambda_min`` of the correlation matrix of
  ``R_FF`` (Gershgorin on its inverse ``D^{1/2} P_FF D^{1/2}``), so the best ``k - |I|`` gains
  bound the completion (Weyl's inequality makes this valid for ``'max-eig'`` too);
* backward (vectors and ``'trace'``): removing ``J`` from ``U`` loses at least
  ``sum_{j in J} delta_j / nu`` with ``delta_j = |W_j|^2 / P_jj`` and ``nu >= lambda_max`` of the
  correlation matrix of ``P_FF`` (Gershgorin), so the ``|U| - k`` smallest losses bound it.

The same bounds fix variables without branching: ``j`` is fixed in when every support without
it is bounded below the incumbent, fixed out when every support with it is. Nodes are explored
best-first by bound, each popped node followed by a depth-first dive so that incumbents improve
early. Branching variable: the free ``j`` whose exclusion lowers the inclusion bound most
(largest ``|W_j|^2 / P_jj``); its include child is dived into, its exclude child queued. Of the
three rules measured (``exact_support(branch_rule=...)``; benchmarks/bench_exact_ablation.py)
this was fastest.

Full symmetric ``A`` (``'max-eig'``) uses the inclusion bound tested by a Cholesky
factorization of ``theta B_UU - A_UU`` (``theta`` = incumbent): it succeeds exactly when
``lambda_max(A_UU, B_UU) < theta``, so nodes below the incumbent are discarded without any
eigenvalue computation; before it the row bounds (``bounds='cardinality'``) and, with
``bounds='sdp'``, the semidefinite-relaxation dual bound are tried, and every bound computed at
a node lowers its key, so a stopped search reports the tightest bound it proved; the node's
eigendecomposition also values every single exclusion (secular equation), and variables whose
exclusion cannot beat the incumbent are fixed in (``exact_support(fixing=...)``). For sparse
PCA the incumbent is the greedy support improved by :func:`~pixsel.spectral.refine_support`.
A positive semi-definite full ``A`` with ``'trace'`` is factored once (``A = M M^T``) and solved
as a factor problem.

Additive problems (vectors and ``'trace'``): a branch and bound still open after 0.25 s is
joined by one of :func:`exact_path`'s compiled searches restricted to size ``k`` -- the
enumeration of every support of size ``k`` for ``3 <= k <= p - 2``, the tree with size ``k``
alone open at ``k = 2`` -- sharing the time 1:1 and the incumbent; the first to finish proves
the optimum (``_solve._Partner``).

Sparse PCA (``B = I``) node bounds -- row (Gershgorin / Frobenius / trace from the ``k``
largest entries per row) and the dual bound of d'Aspremont et al.'s semidefinite relaxation,
where every dual point certifies -- live in :mod:`pixsel.spectral.bounds` as plain functions
(:func:`row_bound`, :func:`sdp_dual_bound`, :func:`spca_bounds_path` for every ``k`` at once);
``exact_support(bounds=...)`` chooses among the named sets of :data:`BOUND_SETS`.

Modules: ``_search`` (incumbent, queue, limits, progress records through a callback),
``_factor`` (vector / factor branch and bound), ``_full`` (full-matrix branch and bound),
``_plain`` (ESLDA's depth-first search, :func:`plain_search`), ``_allk`` (the certified
path of every size in one tree, :func:`exact_path`), ``_spca_path`` (sparse PCA of every size
past ``exact_path``'s 256 features, the time planned from the gaps, :func:`exact_spca_path`), ``_batch`` (the paths of a stack of small
pairs in one compiled loop, :func:`exact_path_batch`), ``_result`` (the result
and progress types), ``_solve`` (the validated public functions), ``_exclude`` (``never_select``:
the search on the pair restricted to the other features, mapped back).
"""

from ._allk import MAX_FEATURES
from ._solve import BOUND_SETS

# The family's functions and results (exact_support, exact_path, exact_path_batch, plain_search
# and their result types) are exported once, by :mod:`pixsel.spectral`; the named bound sets of
# ``exact_support(bounds=...)`` and the most features :func:`exact_path` searches (past it, sparse PCA
# runs :func:`exact_spca_path`) are this package's own public names. The search internals are
# imported from the private modules where they live.
__all__ = ["BOUND_SETS", "MAX_FEATURES"]
