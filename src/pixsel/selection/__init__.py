"""Layer 3: scikit-learn selectors."""

from ._lda import SparseLDASelector

__all__ = ["SparseLDASelector"]
