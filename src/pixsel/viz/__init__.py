"""Figures (matplotlib, Agg backend): masks over images, objective paths, curves."""

from ._figures import plot_curves, plot_masks, plot_paths

__all__ = ["plot_masks", "plot_paths", "plot_curves"]
