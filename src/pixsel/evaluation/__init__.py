"""The former name of :mod:`pixsel.experiments` (kept so existing scripts keep importing).

Everything here is :mod:`pixsel.experiments`; the two figure functions are
:func:`pixsel.viz.plot_evaluation` (was ``plot_curves``) and :func:`pixsel.viz.plot_images`.
Each of these names is exported once, by those packages: this module declares no public name
of its own (``from pixsel.evaluation import evaluate_selection`` still works).
"""

from ..experiments import *  # the former name, for existing scripts
from ..viz import plot_evaluation as plot_curves  # noqa: F401
from ..viz import plot_images  # noqa: F401

__all__: list[str] = []
