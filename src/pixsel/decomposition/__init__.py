"""Layer 3: transformers (sparse components, projections)."""

from ._manifold import (
    KernelLPP,
    LocalityPreservingProjection,
    NeighborhoodPreservingEmbedding,
    SpatiallySmoothLPP,
    SpectralRegressionLPP,
)
from ._slm import SparseLinearModelProjection

__all__ = [
    "SparseLinearModelProjection",
    "LocalityPreservingProjection",
    "NeighborhoodPreservingEmbedding",
    "SpectralRegressionLPP",
    "SpatiallySmoothLPP",
    "KernelLPP",
]
