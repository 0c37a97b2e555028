"""Bounds on the best objective over all supports of a size ``k``.

``_nesting`` (the sparsity lower bound and the nesting bound of a path), ``_certificates``
(certified upper bounds for every ``k``: inclusion and dual certificates), ``_spca_bounds``
(the sparse PCA node bounds of the exact search: row bounds and the dual of the semidefinite
relaxation).
"""

from ._certificates import certify, dual_certificate, inclusion_bounds
from ._nesting import check_nesting_bound, nesting_ratios, sparsity_lower_bound
from ._spca_bounds import (
    accelerated_dual,
    generalize,
    row_bound,
    row_bounds_path,
    sdp_bounds_path,
    sdp_dual_bound,
    sdp_dual_value,
    spca_bounds_path,
    top_eigenvalue_bound,
)

__all__ = [
    "accelerated_dual",
    "certify",
    "check_nesting_bound",
    "dual_certificate",
    "generalize",
    "inclusion_bounds",
    "nesting_ratios",
    "row_bound",
    "row_bounds_path",
    "sdp_bounds_path",
    "sdp_dual_bound",
    "sdp_dual_value",
    "sparsity_lower_bound",
    "spca_bounds_path",
    "top_eigenvalue_bound",
]
