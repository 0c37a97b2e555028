"""Greedy paths through a Gram operator: no ``p x p`` matrix (images at full resolution).

``_implicit`` holds the NumPy kernel (column access through
:class:`pixsel.stats.CenteredGramOperator`), ``_implicit_xp`` the operator on another array
library's device.
"""

from ._implicit import implicit_greedy_path, use_implicit
from ._implicit_xp import DeviceGramOperator, gram_operator

__all__ = ["DeviceGramOperator", "gram_operator", "implicit_greedy_path", "use_implicit"]
