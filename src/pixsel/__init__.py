"""pixsel: sparse, cardinality-constrained feature selection for images.

The public API is listed in ``__all__``; everything else is private.
"""

__version__ = "0.1.0"

from .selection import SparseLDASelector  # noqa: E402

__all__ = ["__version__", "SparseLDASelector"]
