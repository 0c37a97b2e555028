"""Greedy paths through a Gram operator: no ``p x p`` matrix (images at full resolution).

``_implicit`` holds the kernel: column access through an operator such as
:class:`pixsel.stats.CenteredGramOperator` (its twin on another library's device is
:class:`pixsel.stats.DeviceGramOperator`; :func:`pixsel.stats.gram_operator` picks one), the
path state on the host. When to take this route is decided by :func:`pixsel._routes.choose`
(its implicit row, :func:`pixsel._routes.implicit_pays`).
"""

# For the family's door (pixsel.spectral._dispatch); exported by :mod:`pixsel.spectral`.
from ._implicit import implicit_greedy_path as implicit_greedy_path

__all__: list[str] = []
