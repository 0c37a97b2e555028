"""The figure of the stability option: selection frequencies as an image, the selection marked."""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

__all__ = ["plot_selection_frequencies"]


def plot_selection_frequencies(
    frequencies: ArrayLike,
    image_shape: tuple[int, int],
    *,
    support: ArrayLike | None = None,
    title: str | None = None,
) -> Figure:
    """How often each pixel was selected over resampled fits, as an image on a fixed 0-1 scale.

    Read it before reading the selected pixels as *the* important ones: pixels near 1 are
    chosen whatever the draw of the training images; a selection made of pixels at 0.2-0.5 is
    one of many near-equivalent selections (neighbouring or correlated pixels trade places
    from one draw to the next), so no single pixel in it carries meaning on its own.

    Parameters
    ----------
    frequencies : array-like of shape (n_features,)
        Values in [0, 1], e.g. ``selection_frequencies_`` of a selector fitted with ``stability``.
    image_shape : tuple (height, width)
    support : array-like of shape (n_features,) of bool, optional
        The selection, outlined on the image (e.g. ``selector.get_support()``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_selection_frequencies(np.linspace(0, 1, 16), (4, 4), support=np.arange(16) > 12)
    >>> len(fig.axes), fig.axes[0].get_title()
    (2, 'selection frequency')
    """
    from matplotlib.figure import Figure

    freq = np.asarray(frequencies, dtype=np.float64)
    h, w = (int(v) for v in image_shape)
    if freq.ndim != 1 or freq.size != h * w:
        raise ValueError(
            f"frequencies must be a vector of image_shape's {h} x {w} = {h * w} pixels; got shape "
            f"{freq.shape}. Pass the selector's selection_frequencies_ and the images' (height, width)."
        )
    fig = Figure(figsize=(4.6, 4.2), layout="constrained")
    ax = fig.add_subplot()
    im = ax.imshow(freq.reshape(h, w), cmap="viridis", vmin=0.0, vmax=1.0, interpolation="nearest")
    if support is not None:
        mask = np.asarray(support, dtype=bool).reshape(h, w)
        r, c = np.nonzero(mask)
        ax.scatter(c, r, s=max(4.0, 600.0 / max(h, w)), facecolors="none", edgecolors="#d55e00",
                   linewidths=0.8, label="selected")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.01), fontsize=7, frameon=False)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title or "selection frequency")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="fraction of resampled fits")
    return fig
