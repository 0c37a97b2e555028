"""pixsel: sparse, cardinality-constrained feature selection for images.

The public API is listed in ``__all__``; everything else is private. The layers are public
subpackages too: ``pixsel.stats``, ``pixsel.spectral``, ``pixsel.pls``, ``pixsel.scores``,
``pixsel.projection``, ``pixsel.gp``, ``pixsel.experiments``, ``pixsel.features``,
``pixsel.datasets``, ``pixsel.viz``, ``pixsel.io``.
"""

__version__ = "0.1.0"

from .decomposition import GreedySparsePCA, SparseLinearModelProjection  # noqa: E402
from .selection import (  # noqa: E402
    CardinalSPLSSelector,
    PathSelectorCV,
    PathSet,
    ScoreSelector,
    SparseLDASelector,
    SparsePCASelector,
    SPLSSelector,
    SubspaceScoreSelector,
    lda_paths,
    pca_paths,
)

__all__ = [
    "__version__",
    "SparseLDASelector",
    "SparsePCASelector",
    "CardinalSPLSSelector",
    "SPLSSelector",
    "SubspaceScoreSelector",
    "ScoreSelector",
    "PathSelectorCV",
    "GreedySparsePCA",
    "SparseLinearModelProjection",
    "PathSet",
    "lda_paths",
    "pca_paths",
]
