"""Figures: every function returns a :class:`matplotlib.figure.Figure` built without pyplot,
except :func:`mask_picture`, a Pillow image drawn without Matplotlib.

No backend is forced: ``viz`` never calls ``matplotlib.use`` and never touches pyplot's figure
registry. Save a figure atomically with :func:`pixsel.io.save_figure`.
"""

from ._choose_k import plot_cv_path
from ._mask_picture import mask_picture
from ._stability import plot_selection_frequencies
from ._figures import (
    PALETTE,
    method_label,
    plot_curves,
    plot_evaluation,
    plot_exact_path,
    plot_images,
    plot_masks,
    plot_paths,
    plot_scatter,
    plot_score_maps,
    score_image,
)

__all__ = [
    "plot_masks",
    "mask_picture",
    "plot_paths",
    "plot_exact_path",
    "plot_curves",
    "plot_evaluation",
    "plot_images",
    "plot_score_maps",
    "plot_scatter",
    "score_image",
    "method_label",
    "PALETTE",
    "plot_cv_path",
    "plot_selection_frequencies",
]
