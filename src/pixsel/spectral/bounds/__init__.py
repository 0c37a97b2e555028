"""Bounds on the best objective over all supports of a size ``k``.

``_nesting`` (the sparsity lower bound and the nesting bound of a path), ``_certificates``
(certified upper bounds for every ``k``: inclusion and dual certificates), ``_spca_bounds``
(the sparse PCA node bounds of the exact search: row bounds and the dual of the semidefinite
relaxation), ``_perspective`` (two-class sparse LDA: the perspective / Boolean relaxation of
k-sparse ridge regression, valid at every dual point).
"""

from ._certificates import certify, dual_certificate, inclusion_bounds
from ._nesting import check_nesting_bound, nesting_ratios, sparsity_lower_bound
from ._spca_bounds import spca_bounds_path

# The node bounds of the exact search (pixsel.spectral.exact) and their pieces, for it, tests and
# benchmarks; not in __all__.
from ._perspective import perspective_bound as perspective_bound
from ._perspective import perspective_bounds_path as perspective_bounds_path
from ._perspective import perspective_diagonal as perspective_diagonal
from ._perspective import perspective_dual_value as perspective_dual_value
from ._sdp_root import mixed_split_bound, pair_bound, sdp_decomposition, sdp_root_bound, strongest_pairs  # noqa: F401
from ._spca_bounds import accelerated_dual as accelerated_dual
from ._spca_bounds import generalize as generalize
from ._spca_bounds import row_bound as row_bound
from ._spca_bounds import row_bounds_path as row_bounds_path
from ._spca_bounds import sdp_bounds_path as sdp_bounds_path
from ._spca_bounds import sdp_dual_bound as sdp_dual_bound
from ._spca_bounds import sdp_dual_value as sdp_dual_value
from ._spca_bounds import top_eigenvalue_bound as top_eigenvalue_bound

__all__ = [
    "certify",
    "dual_certificate",
    "inclusion_bounds",
    "sparsity_lower_bound",
    "nesting_ratios",
    "check_nesting_bound",
    "spca_bounds_path",
]
