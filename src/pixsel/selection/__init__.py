"""Layer 3: scikit-learn selectors."""

from ._lda import SparseLDASelector
from ._scores import ScoreSelector, SubspaceScoreSelector

__all__ = ["SparseLDASelector", "SubspaceScoreSelector", "ScoreSelector"]
