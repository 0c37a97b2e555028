"""The former name of :mod:`pixsel.experiments` (kept so existing scripts keep importing).

Everything here is :mod:`pixsel.experiments`; the two figure functions are
:func:`pixsel.viz.plot_evaluation` (was ``plot_curves``) and :func:`pixsel.viz.plot_images`.
"""

from ..experiments import *
from ..experiments import __all__ as _experiments_all
from ..viz import plot_evaluation as plot_curves
from ..viz import plot_images

__all__ = [*_experiments_all, "plot_curves", "plot_images"]
