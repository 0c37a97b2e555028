"""Figures (matplotlib, Agg backend): masks over images, objective paths, curves."""

from ._choose_k import plot_cv_path
from ._figures import plot_curves, plot_masks, plot_paths

__all__ = ["plot_masks", "plot_paths", "plot_curves", "plot_cv_path"]
