"""Bounds on the best objective over all supports of a size ``k``.

``_nesting`` (the sparsity lower bound and the nesting bound of a path), ``_certificates``
(certified upper bounds for every ``k``: inclusion and dual certificates), ``_spca_bounds``
(the sparse PCA node bounds of the exact search: row bounds and the dual of the semidefinite
relaxation), ``_perspective`` (two-class sparse LDA: the perspective / Boolean relaxation of
k-sparse ridge regression, valid at every dual point).
"""

from ._certificates import dual_certificate, inclusion_bounds
from ._spca_bounds import row_bound, sdp_dual_bound, spca_bounds_path

# For the other spectral families only (the greedy door and the exact search); certify and the
# nesting bounds are exported by pixsel.spectral, the rest is imported from its private module.
from ._certificates import certify as certify
from ._perspective import perspective_bound
from ._sdp_root import mixed_split_bound, pair_bound, sdp_decomposition, sdp_root_bound, strongest_pairs
from ._spca_bounds import accelerated_dual as accelerated_dual
from ._spca_bounds import generalize as generalize
from ._spca_bounds import top_eigenvalue_bound as top_eigenvalue_bound

# The individual bounds, for studies of the bounds themselves.
__all__ = [
    "dual_certificate",
    "inclusion_bounds",
    "row_bound",
    "sdp_dual_bound",
    "spca_bounds_path",
    "perspective_bound",
    "pair_bound",
    "sdp_root_bound",
    "sdp_decomposition",
    "mixed_split_bound",
    "strongest_pairs",
]
