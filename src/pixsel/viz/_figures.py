"""Figures. Every function returns a :class:`matplotlib.figure.Figure`; saving is the caller's job.

The figures are built with matplotlib's object API (``Figure().subplots()``), not with pyplot:
no backend is chosen, no global figure registry is touched, and importing or calling ``viz``
never changes how the rest of the process draws. Save with :func:`pixsel.io.save_figure`
(atomic) or ``fig.savefig``; to show one in a notebook or a window, display it or hand it to
pyplot yourself.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "plot_masks",
    "plot_paths",
    "plot_curves",
    "plot_evaluation",
    "plot_images",
    "plot_score_maps",
    "plot_scatter",
    "score_image",
]

# line style per path family (the first word of a curve's name, lower case)
_PATH_STYLES = {"forward": "-", "backward": "--", "fisher": ":", "simple": "-."}


def _figure(figsize):
    from matplotlib.figure import Figure

    return Figure(figsize=figsize)


def _gray(image):
    img = np.asarray(image, dtype=np.float64)
    lo, hi = float(img.min()), float(img.max())
    return (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)


def plot_masks(backgrounds, masks, image_shape, *, titles=None, bg_titles=None, color=(1.0, 0.15, 0.1)):
    """Selected pixels drawn over background images (e.g. the class means).

    Parameters
    ----------
    backgrounds : list of ndarray of shape (n_features,)
        One panel row per background image.
    masks : list of ndarray of shape (n_features,) of bool
        One column per mask.
    image_shape : tuple (height, width)
    titles : list of str, optional
        Column titles (one per mask).
    bg_titles : list of str, optional
        Row labels (one per background).
    color : RGB tuple
        Colour of the selected pixels.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_masks([np.arange(4.0)], [np.array([True, False, False, True])], (2, 2), titles=["k = 2"])
    >>> len(fig.axes), fig.axes[0].get_title()
    (1, 'k = 2')
    """
    rows, cols = len(backgrounds), len(masks)
    fig = _figure((2.2 * cols, 2.3 * rows))
    axes = fig.subplots(rows, cols, squeeze=False)
    for r, bg in enumerate(backgrounds):
        gray = _gray(np.asarray(bg, dtype=float).reshape(image_shape))
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


def plot_paths(curves, *, upper_bound=None, lower_bound=None, title=None, ylabel="objective f(S)",
               xlabel="k (number of selected features)", figsize=(6, 4)):
    """Objective vs k for several paths.

    Parameters
    ----------
    curves : dict str -> array of shape (p,)
        Path name -> objective at k = 1..p. Names starting with forward, backward, fisher or
        simple (any case) get that family's line style.
    upper_bound, lower_bound : array of shape (p,), optional
        A certified upper bound and the worst-case lower bound (Eq. 5), drawn in gray.
    title, ylabel, xlabel : str
    figsize : tuple

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_paths({"forward": [1.0, 2.0, 2.5]}, lower_bound=[0.5, 1.0, 2.5])
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['forward', 'worst-case lower bound Eq.(5)']
    """
    fig = _figure(figsize)
    ax = fig.subplots()
    for name, y in curves.items():
        k = np.arange(1, len(y) + 1)
        style = _PATH_STYLES.get(str(name).split()[0].lower() if str(name).split() else "", "-")
        ax.plot(k, y, style, label=name, lw=1.5)
    if upper_bound is not None:
        ax.plot(np.arange(1, len(upper_bound) + 1), upper_bound, color="0.4", lw=1, label="certified upper bound")
    if lower_bound is not None:
        ax.plot(np.arange(1, len(lower_bound) + 1), lower_bound, color="0.7", lw=1, label="worst-case lower bound Eq.(5)")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig


def plot_curves(x, curves, *, xlabel, ylabel, title=None, logx=False):
    """Generic metric curves against one shared x.

    Parameters
    ----------
    x : sequence of float
    curves : dict str -> sequence of float
        Curve name (the legend label) -> values aligned with ``x``.
    xlabel, ylabel, title : str
    logx : bool
        Logarithmic x axis.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_curves([1, 2, 4], {"linear": [0.6, 0.8, 0.9]}, xlabel="k", ylabel="accuracy")
    >>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
    ('k', 'accuracy')
    """
    fig = _figure((6, 4))
    ax = fig.subplots()
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


def plot_evaluation(results, *, title=None, logx=True):
    """Test error, test information and (GP) log marginal likelihood vs k for several evaluations.

    Parameters
    ----------
    results : list of EvaluationResult
        From :func:`pixsel.experiments.evaluate_selection` (or anything with the attributes
        ``method``, ``classifier``, ``ks``, ``error``, ``information``,
        ``log_marginal_likelihood``, ``chance_error`` and ``label_entropy``). One line per
        result, labelled ``method/classifier``; the log-likelihood panel only appears when some
        result has one.
    title : str, optional
    logx : bool, default=True

    Returns
    -------
    matplotlib.figure.Figure
    """
    has_lml = any(np.any(np.isfinite(r.log_marginal_likelihood)) for r in results)
    fig = _figure((13 if has_lml else 9, 3.6))
    ax = fig.subplots(1, 3 if has_lml else 2, squeeze=False)[0]
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
    """A grid of images (class means, relevance maps, loadings), optionally with marked pixels.

    Parameters
    ----------
    images : list of ndarray of shape (n_features,)
    titles : list of str
    image_shape : tuple (height, width)
    marks : list of (list of int or None), optional
        Per image, flat pixel indices drawn as red dots.
    cmap : str
    ncols : int, optional
        Images per row (default: all in one row).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_images([np.arange(4.0), np.ones(4)], ["a", "b"], (2, 2), marks=[[3], None])
    >>> [ax.get_title() for ax in fig.axes]
    ['a', 'b']
    """
    n = len(images)
    ncols = ncols or n
    nrows = int(np.ceil(n / ncols))
    fig = _figure((2.3 * ncols, 2.5 * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False)
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


def score_image(values, image_shape):
    """Per-feature importances as an image in [0, 1] (lighter = more important).

    ``+inf`` (e.g. a Fisher score with zero within-class variance) counts as the most important
    value; a constant map is all zeros.

    Parameters
    ----------
    values : array-like of shape (n_features,)
    image_shape : tuple (height, width)

    Returns
    -------
    ndarray of shape image_shape

    Examples
    --------
    >>> import numpy as np
    >>> score_image([0.0, 1.0, np.inf, 0.5], (2, 2)).tolist()
    [[0.0, 1.0], [1.0, 0.5]]
    """
    v = np.array(values, dtype=np.float64)
    fin = np.isfinite(v)
    v[~fin] = float(v[fin].max()) if fin.any() else 1.0
    lo, hi = float(v.min()), float(v.max())
    return ((v - lo) / (hi - lo) if hi > lo else np.zeros_like(v)).reshape(image_shape)


def plot_score_maps(maps, image_shape, *, titles=None):
    """Feature-score maps side by side (the subspace-score paper's Fig. 8).

    Parameters
    ----------
    maps : dict str -> array of shape (n_features,)
        Score name -> importance per feature (higher = more important); each map is scaled to
        [0, 1] by :func:`score_image`.
    image_shape : tuple (height, width)
    titles : dict str -> str, optional
        Panel title per score name (default: the name).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_score_maps({"variance": np.arange(4.0)}, (2, 2), titles={"variance": "var"})
    >>> fig.axes[0].get_title()
    'var'
    """
    names = list(maps)
    fig = _figure((2.3 * len(names), 2.6))
    axes = fig.subplots(1, len(names), squeeze=False)[0]
    for ax, name in zip(axes, names):
        ax.imshow(score_image(maps[name], image_shape), cmap="gray", interpolation="nearest")
        ax.set_title((titles or {}).get(name, name), fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.tight_layout()
    return fig


def plot_scatter(Y, labels=None, *, title=None, xlabel="component 1", ylabel="component 2"):
    """A 2-D embedding, coloured by label (with a legend for at most 20 labels).

    Parameters
    ----------
    Y : ndarray of shape (n_samples, >= 2)
        The first two columns are drawn.
    labels : array-like of shape (n_samples,), optional
    title, xlabel, ylabel : str

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_scatter(np.eye(3)[:, :2], [0, 1, 1], title="pca")
    >>> fig.axes[0].get_legend().get_title().get_text()
    'label'
    """
    Y = np.asarray(Y)
    fig = _figure((5.5, 5))
    ax = fig.subplots()
    c = None if labels is None else np.asarray(labels)
    sc = ax.scatter(Y[:, 0], Y[:, 1], c=c, s=6, cmap="tab20" if c is not None else None)
    if c is not None and len(np.unique(c)) <= 20:
        ax.legend(*sc.legend_elements(), fontsize=6, loc="best", title="label")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig
