"""Layer 3: scikit-learn selectors."""

from ._lda import SparseLDASelector
from ._pls import CardinalSPLSSelector, SPLSSelector

__all__ = ["CardinalSPLSSelector", "SPLSSelector", "SparseLDASelector"]
