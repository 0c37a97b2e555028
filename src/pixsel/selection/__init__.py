"""Layer 3: scikit-learn selectors."""

from ._lda import SparseLDASelector
from ._pls import CardinalSPLSSelector, SPLSSelector
from ._scores import ScoreSelector, SubspaceScoreSelector

__all__ = [
    "SparseLDASelector",
    "CardinalSPLSSelector",
    "SPLSSelector",
    "SubspaceScoreSelector",
    "ScoreSelector",
]
