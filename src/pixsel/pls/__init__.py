"""Layer 2: partial least squares kernels (SIMPLS, SPLS-eta, cardinal SPLS).

Pure NumPy functions on arrays; the scikit-learn-compatible selectors that wrap them are
:class:`pixsel.selection.CardinalSPLSSelector` and :class:`pixsel.selection.SPLSSelector`.
"""

from ._simpls import SIMPLSResult, simpls
from ._spls import SPLSResult, cardinal_counts, cardinal_spls, spls_eta

__all__ = ["SIMPLSResult", "SPLSResult", "cardinal_counts", "cardinal_spls", "simpls", "spls_eta"]
