"""Layer 3: scikit-learn selectors."""

from ._lda import SparseLDASelector
from ._spca import SparsePCASelector

__all__ = ["SparseLDASelector", "SparsePCASelector"]
