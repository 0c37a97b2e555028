"""Layer 3: transformers (sparse components, projections)."""

from ._greedy_spca import GreedySparsePCA
from ._manifold import (
    KernelLPP,
    LocalityPreservingProjection,
    NeighborhoodPreservingEmbedding,
    SpatiallySmoothLPP,
    SpectralRegressionLPP,
)
from ._slm import SparseLinearModelProjection

__all__ = [
    "GreedySparsePCA",
    "SparseLinearModelProjection",
    "LocalityPreservingProjection",
    "NeighborhoodPreservingEmbedding",
    "SpectralRegressionLPP",
    "SpatiallySmoothLPP",
    "KernelLPP",
]
