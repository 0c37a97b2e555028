"""The figure of :class:`pixsel.selection.PathSelectorCV`: CV score vs k next to the objective path."""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

__all__ = ["plot_cv_path"]


def plot_cv_path(
    cv_results: dict[str, Any],
    n_features: int,
    *,
    objective: ArrayLike | None = None,
    rule: str | None = None,
    score_name: str = "CV score",
    title: str | None = None,
) -> Figure:
    """Cross-validated score against k with its +/- one-std band, the chosen k marked, and (when
    given) the selector's objective path beside it.

    Parameters
    ----------
    cv_results : dict
        ``PathSelectorCV.cv_results_`` (``n_features``, ``mean_test_score``, ``std_test_score``).
    n_features : int
        The chosen k (``PathSelectorCV.n_features_to_select_``).
    objective : ndarray of shape (n_k,), default=None
        The objective per k = 1, 2, ... (e.g. ``selector_.objective_path_``); ``None``: one panel.
    rule : str, default=None
        Shown in the legend of the chosen k ('best', 'one-se').
    score_name : str, default='CV score'
    title : str, default=None

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> res = {"n_features": [1, 2, 3], "mean_test_score": [0.7, 0.9, 0.88],
    ...        "std_test_score": [0.05, 0.02, 0.03]}
    >>> fig = plot_cv_path(res, 2, objective=[1.0, 2.5, 2.9])
    >>> len(fig.axes)
    2
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import StrMethodFormatter

    k = np.asarray(cv_results["n_features"])
    mean = np.asarray(cv_results["mean_test_score"], dtype=float)
    std = np.asarray(cv_results["std_test_score"], dtype=float)
    panels = 1 if objective is None else 2
    fig = Figure(figsize=(5.2 * panels, 3.8))
    axes = np.atleast_1d(fig.subplots(1, panels))
    ax = axes[0]
    ax.fill_between(k, mean - std, mean + std, color="C0", alpha=0.2, lw=0, label="mean ± std over folds")
    ax.plot(k, mean, "-", color="C0", lw=1.5, marker="o" if len(k) <= 40 else None, ms=3, label="mean")
    i = int(np.flatnonzero(k == n_features)[0])
    label = f"chosen k = {n_features}" + (f" ({rule})" if rule else "")
    ax.axvline(n_features, color="C3", lw=1, ls="--")
    ax.plot([n_features], [mean[i]], "o", color="C3", ms=7, label=label)
    best = int(np.argmax(mean))
    if k[best] != n_features:
        ax.plot([k[best]], [mean[best]], "s", color="C2", ms=6, label=f"best mean, k = {k[best]}")
    ax.set_xlabel("k (number of selected features)")
    ax.set_ylabel(score_name)
    if len(k) > 1 and k[-1] / k[0] > 50:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:g}"))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("cross-validated score along the path", fontsize=10)
    if objective is not None:
        obj = np.asarray(objective, dtype=float)
        kk = np.arange(1, len(obj) + 1)
        ax2 = axes[1]
        ax2.plot(kk, obj, color="0.2", lw=1.5)
        ax2.axvline(n_features, color="C3", lw=1, ls="--")
        if n_features <= len(obj):
            ax2.plot([n_features], [obj[n_features - 1]], "o", color="C3", ms=7, label=f"k = {n_features}")
            ax2.legend(fontsize=8, loc="lower right")
        ax2.set_xlabel("k (number of selected features)")
        ax2.set_ylabel("objective f(S)")
        if ax.get_xscale() == "log":
            ax2.set_xscale("log")
            ax2.xaxis.set_major_formatter(StrMethodFormatter("{x:g}"))
        ax2.grid(alpha=0.3)
        ax2.set_title("selector objective path", fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig
