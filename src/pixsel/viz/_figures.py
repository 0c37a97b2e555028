"""Figures. Every function returns a matplotlib Figure; saving is the caller's (atomic) job."""

from __future__ import annotations

import numpy as np


def _plt():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo"):
        matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_masks(backgrounds, masks, image_shape, *, titles=None, bg_titles=None, color=(1.0, 0.15, 0.1)):
    """Selected pixels drawn over background images (e.g. the class means).

    Parameters
    ----------
    backgrounds : list of ndarray of shape (n_features,)
        One panel row per background image.
    masks : list of ndarray of shape (n_features,) of bool
        One column per mask.
    image_shape : tuple (height, width)
    """
    plt = _plt()
    rows, cols = len(backgrounds), len(masks)
    fig, axes = plt.subplots(rows, cols, figsize=(2.2 * cols, 2.3 * rows), squeeze=False)
    for r, bg in enumerate(backgrounds):
        img = np.asarray(bg, dtype=float).reshape(image_shape)
        lo, hi = float(img.min()), float(img.max())
        gray = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
        for c, mask in enumerate(masks):
            rgb = np.repeat(gray[..., None], 3, axis=2)
            m = np.asarray(mask, dtype=bool).reshape(image_shape)
            rgb[m] = color
            ax = axes[r, c]
            ax.imshow(rgb, interpolation="nearest")
            ax.set_xticks([])
            ax.set_yticks([])
            if r == 0 and titles is not None:
                ax.set_title(titles[c], fontsize=9)
            if c == 0 and bg_titles is not None:
                ax.set_ylabel(bg_titles[r], fontsize=9)
    fig.tight_layout()
    return fig


def plot_paths(curves, *, upper_bound=None, lower_bound=None, title=None, ylabel="objective f(S)"):
    """Objective vs k for several paths (``curves``: dict name -> array of length p)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    styles = {"forward": "-", "backward": "--", "fisher": ":", "simple": "-."}
    for name, y in curves.items():
        k = np.arange(1, len(y) + 1)
        ax.plot(k, y, styles.get(name, "-"), label=name, lw=1.5)
    if upper_bound is not None:
        ax.plot(np.arange(1, len(upper_bound) + 1), upper_bound, color="0.4", lw=1, label="certified upper bound")
    if lower_bound is not None:
        ax.plot(np.arange(1, len(lower_bound) + 1), lower_bound, color="0.7", lw=1, label="worst-case lower bound Eq.(5)")
    ax.set_xlabel("k (number of selected features)")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig


def plot_curves(x, curves, *, xlabel, ylabel, title=None, logx=False):
    """Generic metric curves (``curves``: dict name -> array aligned with ``x``)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, y in curves.items():
        ax.plot(x, y, "o-", label=name, ms=3)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig
