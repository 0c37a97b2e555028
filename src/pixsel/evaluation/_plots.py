"""Figures of evaluation results (matplotlib, Agg; no file I/O here: see ``pixsel.io``)."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_curves", "plot_images"]


def _figure(*args, **kwargs):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(*args, **kwargs)


def plot_curves(results, *, title=None, logx=True):
    """Test error, test information and (GP) log marginal likelihood vs k for several results.

    One line per result, labelled ``method/classifier``. Returns the figure.
    """
    has_lml = any(np.any(np.isfinite(r.log_marginal_likelihood)) for r in results)
    fig, axes = _figure(1, 3 if has_lml else 2, figsize=(13 if has_lml else 9, 3.6), squeeze=False)
    ax = axes[0]
    for r in results:
        label = f"{r.method}/{r.classifier}"
        ax[0].plot(r.ks, r.error, marker="o", ms=3, label=label)
        if np.any(np.isfinite(r.information)):
            ax[1].plot(r.ks, r.information, marker="o", ms=3, label=label)
        if has_lml and np.any(np.isfinite(r.log_marginal_likelihood)):
            ax[2].plot(r.ks, r.log_marginal_likelihood, marker="o", ms=3, label=label)
    if results:
        ax[0].axhline(results[0].chance_error, color="gray", ls=":", lw=1, label="chance")
        ax[1].axhline(results[0].label_entropy, color="gray", ls=":", lw=1, label="ideal")
    ax[0].set_ylabel("test error")
    ax[1].set_ylabel("test information (bits)")
    if has_lml:
        ax[2].set_ylabel("log marginal likelihood")
    for a in ax:
        a.set_xlabel("k (selected pixels)")
        if logx:
            a.set_xscale("log")
        a.grid(alpha=0.3)
    ax[0].legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_images(images, titles, image_shape, *, marks=None, cmap="gray", ncols=None):
    """A row of images (e.g. class means, relevance maps, loadings); ``marks`` = per-image
    list of flat pixel indices drawn as red dots."""
    n = len(images)
    ncols = ncols or n
    nrows = int(np.ceil(n / ncols))
    fig, axes = _figure(nrows, ncols, figsize=(2.3 * ncols, 2.5 * nrows), squeeze=False)
    for i, ax in enumerate(axes.ravel()):
        ax.axis("off")
        if i >= n:
            continue
        ax.imshow(np.asarray(images[i]).reshape(image_shape), cmap=cmap, interpolation="nearest")
        ax.set_title(titles[i], fontsize=8)
        if marks is not None and marks[i] is not None and len(marks[i]):
            r, c = np.unravel_index(np.asarray(marks[i]), image_shape)
            ax.plot(c, r, "r.", ms=6 if len(marks[i]) > 1 else 12)
    fig.tight_layout()
    return fig
