"""pixsel: sparse, cardinality-constrained feature selection for images.

The public API is listed in ``__all__``; everything else is private.
"""

__version__ = "0.1.0"

from .selection import (  # noqa: E402
    CardinalSPLSSelector,
    ScoreSelector,
    SparseLDASelector,
    SparsePCASelector,
    SPLSSelector,
    SubspaceScoreSelector,
)

__all__ = [
    "__version__",
    "SparseLDASelector",
    "SparsePCASelector",
    "CardinalSPLSSelector",
    "SPLSSelector",
    "SubspaceScoreSelector",
    "ScoreSelector",
]
