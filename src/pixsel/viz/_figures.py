"""Figures. Every function returns a :class:`matplotlib.figure.Figure`; saving is the caller's job.

The figures are built with matplotlib's object API (``Figure().subplots()``), not with pyplot:
no backend is chosen, no global figure registry is touched, and importing or calling ``viz``
never changes how the rest of the process draws. Save with :func:`pixsel.io.save_figure`
(atomic) or ``fig.savefig``; to show one in a notebook or a window, display it or hand it to
pyplot yourself.
"""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "plot_masks",
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
]

#: Okabe and Ito's colour-blind-safe palette (black first: bounds and references are grey)
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

#: colour of selected pixels in masks (Okabe-Ito vermillion: red, and distinct from grey for everyone)
SELECTED = (0.835, 0.369, 0.0)

# line style per path family (the first word of a curve's name, lower case)
_PATH_STYLES = {"forward": "-", "backward": "--", "fisher": ":", "simple": "-."}

_METHOD_WORDS = {
    "forward": "greedy forward selection",
    "backward": "greedy backward elimination",
    "dual": "greedy sparse LDA (best of forward and backward)",
    "gslda": "greedy sparse LDA (best of forward and backward)",
    "gspca": "greedy sparse PCA",
    "fisher": "thresholded Fisher discriminant",
    "simple": "simple thresholding (largest single-feature scores)",
    "f_classif": "ANOVA F-test ranking",
    "mutual_info": "mutual-information ranking",
    "rfe_svc": "recursive elimination with a linear SVM",
    "l1_logistic": "L1-penalized logistic regression",
    "sfs_lda": "sequential forward selection with LDA",
    "soft_ard": "Gaussian process with one length-scale per pixel",
    "subspace": "subspace scores",
    "cardinal-spls": "cardinal sparse PLS",
    "spls": "SPLS-eta",
}


def method_label(name: str) -> str:
    """A method's name in words, for legends and titles (unknown names are returned as they are).

    Examples
    --------
    >>> method_label("fisher"), method_label("my own")
    ('thresholded Fisher discriminant', 'my own')
    """
    return _METHOD_WORDS.get(str(name), str(name))


def log_k_axis(ax, ks: Sequence[float], axis: str = "x") -> None:
    """A logarithmic k axis whose ticks label the values drawn: every k when there are at most
    12 of them, else 1, 2, 5, 10, 20, 50, ... inside their range (never only the powers of ten).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> _ = ax.plot([1, 2, 5, 10], [0.5, 0.6, 0.7, 0.8])
    >>> log_k_axis(ax, [1, 2, 5, 10])
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['1', '2', '5', '10']
    >>> log_k_axis(ax, range(1, 1025))
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['1', '2', '5', '10', '20', '50', '100', '200', '500', '1024']
    """
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator, StrMethodFormatter

    ks = np.unique(np.asarray(ks, dtype=float))
    ks = ks[ks > 0]
    if ks.size == 0:
        return
    if ks.size > 12:
        lo, hi = ks.min(), ks.max()
        decades = 10.0 ** np.arange(np.floor(np.log10(lo)), np.ceil(np.log10(hi)) + 1)
        nice = np.outer(decades, [1, 2, 5]).ravel()
        # the ends too, and no nice tick so close to one that their labels would overlap
        ks = nice[(nice >= lo * 1.4) & (nice <= hi / 1.4)]
        ks = np.unique(np.concatenate([ks, [lo, hi]]))
    a = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    a.set_major_locator(FixedLocator(ks))
    a.set_major_formatter(StrMethodFormatter("{x:g}"))
    a.set_minor_locator(NullLocator())
    a.set_minor_formatter(NullFormatter())


def _colorbar(fig, im, ax, label):
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label(label, fontsize=8)
    cb.ax.tick_params(labelsize=7)
    return cb


def _figure(figsize):
    from matplotlib.figure import Figure

    return Figure(figsize=figsize)


def _to_unit(img, lo, hi):
    """``img`` scaled from ``[lo, hi]`` to [0, 1] (zeros when the range is empty)."""
    return (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)


def _faded(unit):
    """A colour image in [0, 1] mostly greyed and faded towards white: the context, while the
    chosen pixels carry the colour."""
    grey = unit.mean(axis=2, keepdims=True)
    return 0.5 + 0.45 * (0.35 * unit + 0.65 * grey)


def _wrap(text, width):
    """``text`` with each of its lines wrapped at ``width`` characters."""
    import textwrap

    return "\n".join(textwrap.fill(line, width) or line for line in str(text).split("\n"))


def _gray(image):
    img = np.asarray(image, dtype=np.float64)
    return _to_unit(img, float(img.min()), float(img.max()))


def _path_style(name):
    """The line style of a path's family (its name's first word: forward, backward, ...)."""
    return _PATH_STYLES.get(str(name).split()[0].lower() if str(name).split() else "", "-")


def _mask_panel_labels(ax, r, c, titles, bg_titles):
    """No ticks; the column title on the top row and the row label on the left column."""
    ax.set_xticks([])
    ax.set_yticks([])
    if r == 0 and titles is not None:
        ax.set_title(titles[c], fontsize=9)
    if c == 0 and bg_titles is not None:
        ax.set_ylabel(bg_titles[r], fontsize=9)


def _edge(ax, pixels):
    """A thin black line along the border of the chosen ``pixels`` (a boolean image)."""
    from matplotlib.collections import LineCollection

    padded = np.pad(pixels, 1)
    segments = []
    for i, j in np.argwhere(pixels):
        for di, dj, seg in ((-1, 0, [(j - .5, i - .5), (j + .5, i - .5)]), (1, 0, [(j - .5, i + .5), (j + .5, i + .5)]),
                            (0, -1, [(j - .5, i - .5), (j - .5, i + .5)]), (0, 1, [(j + .5, i - .5), (j + .5, i + .5)])):
            if not padded[i + 1 + di, j + 1 + dj]:
                segments.append(seg)
    if segments:
        ax.add_collection(LineCollection(segments, colors="black", linewidths=0.7))


def _finish_masks(fig, handles, cols, suptitle):
    """The legend of :func:`plot_masks` (``handles``) below its ``cols`` columns, and its title."""
    fig.legend(handles=handles, loc="lower center", ncol=1 if cols == 1 else 2, fontsize=8, frameon=False)
    if suptitle:
        fig.suptitle(suptitle, fontsize=10)
    return fig


def _colour_masks(fig, axes, backgrounds, masks, image_shape, titles, bg_titles, color, suptitle, label, cols):
    """:func:`plot_masks` for colour images ``(h, w, c)``: a pixel counts as chosen when any of
    its channels is. The backgrounds (scaled together to [0, 1]) are faded towards white, so that
    the chosen pixels, filled with ``color`` and edged in black, stand out on any image."""
    from matplotlib.patches import Patch

    imgs = [np.asarray(bg, dtype=float).reshape(image_shape)[..., :3] for bg in backgrounds]
    lo, hi = min(float(i.min()) for i in imgs), max(float(i.max()) for i in imgs)
    for r, img in enumerate(imgs):
        unit = _to_unit(img, lo, hi)
        pale = _faded(unit)
        for c, mask in enumerate(masks):
            ax = axes[r, c]
            pixels = np.asarray(mask, dtype=bool).reshape(image_shape).any(axis=2)
            rgb = pale.copy()
            rgb[pixels] = color
            ax.imshow(rgb, interpolation="nearest")
            _edge(ax, pixels)
            _mask_panel_labels(ax, r, c, titles, bg_titles)
    handles = [Patch(facecolor=color, edgecolor="black", label=label or "selected pixels (all channels)"),
               Patch(facecolor=(0.78, 0.76, 0.74), edgecolor="none",
                     label="faded colours: " + ("image named at left" if bg_titles is not None else "mean image"))]
    return _finish_masks(fig, handles, cols, suptitle)


def plot_masks(
    backgrounds: ArrayLike,
    masks: ArrayLike,
    image_shape: tuple[int, int],
    *,
    titles: Any = None,
    bg_titles: Any = None,
    color: str = SELECTED,
    suptitle: Any = None,
    label: str | None = None,
) -> Figure:
    """Selected pixels drawn over background images (e.g. the class means), with a legend.

    Parameters
    ----------
    backgrounds : list of ndarray of shape (n_features,)
        One panel row per background image.
    masks : list of ndarray of shape (n_features,) of bool
        One column per mask.
    image_shape : tuple (height, width) or (height, width, channels)
        For colour images the backgrounds are drawn in faded colour and the selected pixels (any
        of their channels selected) filled with ``color`` and edged in black.
    titles : list of str, optional
        Column titles (one per mask).
    bg_titles : list of str, optional
        Row labels (one per background).
    color : RGB tuple
        Colour of the selected pixels (default: vermillion, told apart from grey by colour-blind
        readers too); the legend says "selected pixels".
    suptitle : str, optional
        A title over all panels.
    label : str, optional
        The legend of the selected pixels (default: "selected pixels", for colour images
        "selected pixels (all channels)"; say "pixels with a selected channel" when single
        channel values were selected).

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
    from matplotlib.patches import Patch

    rows, cols = len(backgrounds), len(masks)
    # square panels of 2.4 in, kept apart (0.2 in between columns, 0.35 in between rows) so that
    # neighbouring images never touch; the figure is sized to them, so no slot has slack
    panel, gap_w, gap_h = 2.4, 0.2, 0.35
    if titles is not None:  # wrapped to the panel's width: a long title is never clipped
        titles = [_wrap(t, 46 if cols == 1 else 32) for t in titles]
    n_lines = max((str(t).count("\n") + 1 for t in titles), default=1) if titles is not None else 1
    left, right, bottom = 0.35, 0.1, 0.65
    width = max(cols * panel + (cols - 1) * gap_w + left + right, 3.6)
    if suptitle:  # wrapped to the figure's width (about 11 characters an inch at 10 points)
        suptitle = _wrap(suptitle, int(11 * width))
    top = 0.2 + 0.16 * n_lines + (0.12 + 0.18 * (str(suptitle).count("\n") + 1) if suptitle else 0)
    height = rows * panel + (rows - 1) * gap_h + bottom + top
    fig = _figure((width, height))
    axes = fig.subplots(rows, cols, squeeze=False)
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height,
                        wspace=gap_w / panel, hspace=gap_h / panel)
    if len(image_shape) == 3:  # colour: the chosen pixels outlined on the colour backgrounds
        return _colour_masks(fig, axes, backgrounds, masks, tuple(image_shape), titles, bg_titles, color, suptitle,
                             label, cols)
    for r, bg in enumerate(backgrounds):
        gray = _gray(np.asarray(bg, dtype=float).reshape(image_shape))
        for c, mask in enumerate(masks):
            rgb = np.repeat(gray[..., None], 3, axis=2)
            m = np.asarray(mask, dtype=bool).reshape(image_shape)
            rgb[m] = color
            ax = axes[r, c]
            ax.imshow(rgb, interpolation="nearest")
            _mask_panel_labels(ax, r, c, titles, bg_titles)
    handles = [Patch(facecolor=color, edgecolor="none", label=label or "selected pixels"),
               Patch(facecolor="0.5", edgecolor="none", label="grey: " + (
                   "image named at left" if bg_titles is not None else "mean image"))]
    return _finish_masks(fig, handles, cols, suptitle)


def plot_paths(
    curves: ArrayLike,
    *,
    upper_bound: Any = None,
    lower_bound: Any = None,
    title: str | None = None,
    ylabel: str = "objective f(S)",
    xlabel: str = "k (number of selected features)",
    figsize: tuple[float, float] = (6, 4),
) -> Figure:
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
    >>> [t.get_text().split(":")[0] for t in fig.legends[0].get_texts()]
    ['greedy forward selection', 'worst-case guarantee (Moghaddam et al. 2007, Eq. 5)']
    """
    # the legend goes under the axes (never over the curves): the figure grows by its height
    n_entries = len(curves) + 2 * (upper_bound is not None) + 2 * (lower_bound is not None)
    legend_h = 0.2 * n_entries + 0.15
    fig = _figure((figsize[0], figsize[1] + legend_h))
    ax = fig.subplots()
    for i, (name, y) in enumerate(curves.items()):
        k = np.arange(1, len(y) + 1)
        style = _path_style(name)
        ax.plot(k, y, style, label=method_label(name), lw=1.6, color=PALETTE[i % len(PALETTE)])
    if upper_bound is not None:
        ax.plot(np.arange(1, len(upper_bound) + 1), upper_bound, color="0.3", lw=1, ls=(0, (5, 2)),
                label="certified upper bound: no k features score more\n(flat where the bound is the value of "
                      "all features)")
    if lower_bound is not None:
        ax.plot(np.arange(1, len(lower_bound) + 1), lower_bound, color="0.55", lw=1, ls=(0, (1, 1.5)),
                label="worst-case guarantee (Moghaddam et al. 2007, Eq. 5): the best k features\n"
                      "score at least this; a floor for any data, far below real paths")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, legend_h / (figsize[1] + legend_h), 1, 1))
    return fig


def plot_exact_path(
    greedy: dict[str, ArrayLike],
    objective: ArrayLike,
    upper_bound: ArrayLike,
    status: ArrayLike,
    *,
    title: str | None = None,
    ylabel: str = "objective f(S)",
    xlabel: str = "k (number of selected features)",
    figsize: tuple[float, float] = (6.5, 5.5),
) -> Figure:
    """Greedy paths, the certified optimum and its upper bound per k, and the gap per k.

    Top panel: the greedy curves, the best support found by the exact search (filled circles
    where it is proved optimal, open where the search stopped first) and the certified upper
    bound, the band between them shaded. Bottom panel: the relative gap (bound over best found,
    in %) and how far the better greedy curve is below the best found (in %), per k.

    Parameters
    ----------
    greedy : dict str -> array of shape (max_k,) or longer
        Greedy curves by name (``'forward'``, ``'backward'``: worded legends); cut to ``max_k``.
    objective, upper_bound : array of shape (max_k,)
        The exact path's best objective and certified bound per k (:class:`pixsel.spectral.ExactPath`).
    status : array of str of shape (max_k,)
        Per k, the status words of :class:`pixsel.spectral.ExactPath`: ``'optimal'`` or
        ``'gap_reached'`` (proved) or why the search ended first (``'time_limit'``,
        ``'node_limit'``, ``'interrupted'``; the ``'stopped'`` of earlier versions reads the same).
    title, ylabel, xlabel : str
    figsize : tuple

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_exact_path({"forward": [1.0, 1.8, 2.5]}, [1.0, 2.0, 2.5], [1.0, 2.2, 2.5],
    ...                       ["optimal", "time_limit", "optimal"])
    >>> texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    >>> texts[1], texts[-1]
    ('best found, search stopped (not proved)', 'certified upper bound (no k features do better)')
    """
    objective = np.asarray(objective, dtype=float)
    upper_bound = np.asarray(upper_bound, dtype=float)
    proved = np.isin(np.asarray(status), ("optimal", "gap_reached"))
    k = np.arange(1, len(objective) + 1)
    fig = _figure(figsize)
    ax, ax2 = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2.2, 1]})
    best_greedy = None
    ax.fill_between(k, objective, upper_bound, color="0.8", alpha=0.6, lw=0)
    # the exact markers sit under the greedy curves, which are drawn last (thin, dashed where they
    # coincide with the optimum) so that no curve hides another
    ax.plot(k, objective, "-", color="black", lw=0.8, zorder=2)
    ax.plot(k[proved], objective[proved], "o", color="0.25", ms=3.5, zorder=2,
            label="certified optimum (exact search)")
    ax.plot(k[~proved], objective[~proved], "o", mfc="white", mec="black", ms=3.5, zorder=2,
            label="best found, search stopped (not proved)")
    for i, (name, y) in enumerate(greedy.items()):
        y = np.asarray(y, dtype=float)[: len(k)]
        best_greedy = y if best_greedy is None else np.maximum(best_greedy, y)
        style = _path_style(name)
        ax.plot(k, y, style, label=method_label(name), lw=1.3, color=PALETTE[i % len(PALETTE)], zorder=4 + i)
    ax.plot(k, upper_bound, color="0.35", lw=1, label="certified upper bound (no k features do better)")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(_wrap(title, int(12 * figsize[0])), fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.where(objective != 0, 100 * (upper_bound - objective) / np.abs(objective), 0.0)
        # differences of a few ulps (a greedy curve equal to the optimum, rounded another way) are
        # drawn as 0, not as spikes of an autoscaled 1e-14 % axis
        ax2.bar(k, _above_rounding(gap), color="0.55", width=0.8, label="certified gap of the best found (%)")
        if best_greedy is not None:
            short = np.where(objective != 0, 100 * (objective - best_greedy) / np.abs(objective), 0.0)
            ax2.plot(k, _above_rounding(short), "d-", color=PALETTE[1], ms=3, lw=1,
                     label="better greedy curve below the best found (%)")
    ax2.set_xlabel(xlabel)
    ax2.set_ylabel("% of the best found")
    ax2.set_ylim(bottom=0)  # both are non-negative percentages
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _above_rounding(percent, floor=1e-9):
    """``percent`` with negatives and rounding-sized values (below ``floor`` %) set to 0."""
    percent = np.asarray(percent, dtype=float)
    return np.where(percent > floor, percent, 0.0)


def plot_curves(
    x: Sequence[float],
    curves: dict[str, Any],
    *,
    xlabel: str,
    ylabel: str,
    title: str | None = None,
    logx: bool = False,
) -> Figure:
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
    for i, (name, y) in enumerate(curves.items()):
        ax.plot(x, y, "o-", label=name, ms=3, color=PALETTE[i % len(PALETTE)])
    if logx:
        log_k_axis(ax, x)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig


def plot_evaluation(results: list[Any], *, title: str | None = None, logx: bool = True) -> Figure:
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
    fig = _figure((13 if has_lml else 10, 4.6))
    ax = fig.subplots(1, 3 if has_lml else 2, squeeze=False)[0]
    for i, r in enumerate(results):
        label = f"{method_label(r.method)}, {r.classifier} classifier"
        kw = dict(marker="o", ms=3, label=label, color=PALETTE[i % len(PALETTE)])
        ax[0].plot(r.ks, r.error, **kw)
        if np.any(np.isfinite(r.information)):
            ax[1].plot(r.ks, r.information, **kw)
        if has_lml and np.any(np.isfinite(r.log_marginal_likelihood)):
            ax[2].plot(r.ks, r.log_marginal_likelihood, **kw)
    if results:
        ax[0].axhline(results[0].chance_error, color="gray", ls=":", lw=1, label="chance (majority class)")
        ax[1].axhline(results[0].label_entropy, color="gray", ls=":", lw=1, label="ideal (label entropy)")
    ax[0].set_ylabel("test error")
    ax[1].set_ylabel("test information (bits)")
    if has_lml:
        ax[2].set_ylabel("log marginal likelihood")
    for a in ax:
        a.set_xlabel("k (selected pixels)")
        if logx:
            log_k_axis(a, [k for r in results for k in r.ks])
        a.grid(alpha=0.3)
    # one legend under the panels: long method names never cover the curves or the axis labels
    handles, labels = ax[0].get_legend_handles_labels()
    h1, l1 = ax[1].get_legend_handles_labels()
    handles, labels = handles + h1[len(results):], labels + l1[len(results):]
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 2), fontsize=8, frameon=False)
    if title:
        fig.suptitle(title)
    rows = int(np.ceil(len(labels) / 2))
    fig.tight_layout(rect=(0, 0.08 + 0.06 * rows, 1, 1))
    return fig


def plot_images(
    images: ArrayLike,
    titles: list[str],
    image_shape: tuple[int, int] | None,
    *,
    marks: Any = None,
    cmap: str = "gray",
    ncols: Any = None,
) -> Figure:
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


def score_image(values: ArrayLike, image_shape: tuple[int, int]) -> NDArray:
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


class _Scaled(np.ndarray):
    """A map already scaled to [0, 1] (with others: the channels of one score), drawn as it is."""

    def __new__(cls, values):
        return np.asarray(values, dtype=np.float64).view(cls)


def _channel_maps(maps, titles, image_shape, channels):
    """Colour images ``(h, w, c)``: one map per pixel (its channels' importances summed) or one per
    channel; returns the maps, their titles and the 2-D image shape."""
    h, w, c = image_shape
    names = ("red", "green", "blue") if c == 3 else tuple(f"channel {i + 1}" for i in range(c))
    out, out_titles = {}, {}
    for name, values in maps.items():
        v = np.array(values, dtype=np.float64).reshape(h, w, c)
        title = (titles or {}).get(name, name)
        if channels == "sum":
            with np.errstate(invalid="ignore"):
                out[name] = v.sum(axis=2).ravel()
            first, _, rest = title.partition("\n")
            out_titles[name] = f"{first}\nper pixel ({c} channels summed)" + (f", {rest}" if rest else "")
        else:  # scaled together: the channels of one score compare
            v = score_image(v.ravel(), (h, w, c))
            for i, channel in enumerate(names):
                out[f"{name}, {channel}"] = _Scaled(v[..., i].ravel())
                first, _, rest = title.partition("\n")
                out_titles[f"{name}, {channel}"] = f"{first}\n{channel} channel" + (f", {rest}" if rest else "")
    return out, out_titles, (h, w)


def plot_score_maps(
    maps: ArrayLike,
    image_shape: tuple[int, ...],
    *,
    titles: Any = None,
    suptitle: Any = None,
    cmap: str = "viridis",
    channels: str = "sum",
) -> Figure:
    """Feature-score maps side by side.

    The maps of C. Musco and C. Musco, "Subspace scores for feature selection in computer
    vision", Fig. 8.

    Parameters
    ----------
    maps : dict str -> array of shape (n_features,)
        Score name -> importance per feature (higher = more important); each map is scaled to
        [0, 1] by :func:`score_image`.
    image_shape : tuple (height, width) or (height, width, channels)
        For colour images (three values per pixel) see ``channels``.
    titles : dict str -> str, optional
        Panel title per score name (default: the name).
    suptitle : str, optional
    cmap : str, default='viridis'
        A perceptually uniform, colour-blind-safe map; one colorbar per panel says what the
        colours mean (importance scaled to 0 = least, 1 = most important pixel).
    channels : {'sum', 'each'}, default='sum'
        Colour images: one map per pixel, the importances of its channels summed (``'sum'``), or
        one map per channel (``'each'``: a panel per score and channel, titled by the channel).
        A score is never drawn as a colour picture.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_score_maps({"variance": np.arange(4.0)}, (2, 2), titles={"variance": "var"})
    >>> fig.axes[0].get_title()
    'var'
    >>> fig = plot_score_maps({"variance": np.arange(12.0)}, (2, 2, 3), channels="each")
    >>> [ax.get_title().split(chr(10))[1] for ax in fig.axes if ax.get_images()]
    ['red channel', 'green channel', 'blue channel']
    """
    if channels not in ("sum", "each"):
        raise ValueError(f"channels must be 'sum' or 'each'; got {channels!r}.")
    what = "pixel"
    if len(image_shape) == 3:
        maps, titles, image_shape = _channel_maps(maps, titles, tuple(image_shape), channels)
        what = "pixel" if channels == "sum" else "channel value"
    import textwrap

    names = list(maps)
    single = len(names) == 1
    ncols = min(len(names), 3 if channels == "each" and len(names) % 3 == 0 else 4)
    nrows = int(np.ceil(len(names) / ncols))
    fig = _figure((4.2, 3.8) if single else (3.0 * ncols, 2.9 * nrows + (0.4 if suptitle else 0)))
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(names):]:
        ax.axis("off")
    for ax, name in zip(axes, names):
        values = maps[name]
        img = np.asarray(values).reshape(image_shape) if isinstance(values, _Scaled) else score_image(values, image_shape)
        im = ax.imshow(img, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
        title = (titles or {}).get(name, name)
        if not single:  # a panel is about 36 characters wide: long lines are wrapped, never clipped
            title = "\n".join(textwrap.fill(line, 36) for line in str(title).split("\n"))
        ax.set_title(title, fontsize=10 if single else 8)
        ax.set_xticks([])
        ax.set_yticks([])
        cb = _colorbar(fig, im, ax, f"importance per {what}\n(0: least, 1: most important)" if what == "pixel"
                       else "importance per channel value\n(0-1 over the 3 channels)")
        cb.set_ticks([0, 0.5, 1])
    if suptitle:
        fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    return fig


def plot_scatter(
    Y: ArrayLike,
    labels: Any = None,
    *,
    title: str | None = None,
    xlabel: str = "component 1",
    ylabel: str = "component 2",
    class_names: Any = None,
) -> Figure:
    """A 2-D embedding, coloured by class.

    Up to 8 classes: colour-blind-safe colours, one marker each, and a legend; 9 to 20 classes:
    20 distinct colours and a legend beside the axes; more: a colour per class from a
    perceptually uniform map and a colourbar that names the classes (no colour repeats).

    Parameters
    ----------
    Y : ndarray of shape (n_samples, >= 2)
        The first two columns are drawn.
    labels : array-like of shape (n_samples,), optional
    title, xlabel, ylabel : str
    class_names : list of str, optional
        Legend names, in the order of ``numpy.unique(labels)`` (default: the label values).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_scatter(np.eye(3)[:, :2], [0, 1, 1], title="pca")
    >>> fig.axes[0].get_legend().get_title().get_text()
    'class'
    >>> fig = plot_scatter(np.random.default_rng(0).normal(size=(80, 2)), np.arange(80) % 40)
    >>> fig.axes[1].get_ylabel()  # a colourbar names the 40 classes
    'class (40)'
    """
    from matplotlib import colormaps

    Y = np.asarray(Y)
    labels = None if labels is None else np.asarray(labels)
    n_classes = 0 if labels is None else len(np.unique(labels))
    fig = _figure((6, 5.2) if n_classes <= 8 else (7.4, 5.2))
    ax = fig.subplots()
    if labels is None:
        ax.scatter(Y[:, 0], Y[:, 1], s=8, color=PALETTE[0])
    elif n_classes > 20:
        from matplotlib.colors import BoundaryNorm

        classes, codes = np.unique(labels, return_inverse=True)
        names = class_names if class_names is not None and len(class_names) == len(classes) else [
            str(c) for c in classes]
        cmap = colormaps["turbo"].resampled(n_classes)
        norm = BoundaryNorm(np.arange(n_classes + 1) - 0.5, n_classes)
        sc = ax.scatter(Y[:, 0], Y[:, 1], c=codes, cmap=cmap, norm=norm, s=12, alpha=0.85, linewidths=0)
        cb = fig.colorbar(sc, ax=ax, fraction=0.05, pad=0.02)
        step = max(1, int(np.ceil(n_classes / 20)))
        cb.set_ticks(np.arange(0, n_classes, step))
        cb.set_ticklabels([names[i] for i in range(0, n_classes, step)], fontsize=7)
        cb.ax.set_ylabel(f"class ({n_classes})", fontsize=9)
    else:
        classes = np.unique(labels)
        names = class_names if class_names is not None and len(class_names) == len(classes) else [
            str(c) for c in classes]
        markers = "os^DvP*X"
        colors = PALETTE if n_classes <= len(PALETTE) else colormaps["tab20"].colors
        for i, c in enumerate(classes):
            keep = labels == c
            ax.scatter(Y[keep, 0], Y[keep, 1], s=10, color=colors[i], marker=markers[i % len(markers)],
                       alpha=0.8, linewidths=0, label=names[i])
        if n_classes <= len(PALETTE):
            ax.legend(fontsize=9, loc="best", title="class", markerscale=1.8, title_fontsize=9)
        else:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="class", markerscale=1.5,
                      title_fontsize=8, ncol=1 if n_classes <= 12 else 2, frameon=False)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig
