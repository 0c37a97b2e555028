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
    tol: float | None = None,
    score_name: str = "CV score",
    score_range: tuple[float, float] | None = None,
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
        Shown in the legend of the chosen k ('best', 'one-se', 'within').
    tol : float, default=None
        The tolerance of a 'within' rule: a dotted line at the best mean minus ``tol``, under
        which no k was chosen.
    score_name : str, default='CV score'
    score_range : (float, float), default=None
        The values the score can take (``(0, 1)`` for an accuracy): the band is clipped to it.
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

    from ._figures import log_k_axis

    k = np.asarray(cv_results["n_features"])
    mean = np.asarray(cv_results["mean_test_score"], dtype=float)
    std = np.asarray(cv_results["std_test_score"], dtype=float)
    panels = 1 if objective is None else 2
    fig = Figure(figsize=(5.2 * panels, 3.8))
    axes = np.atleast_1d(fig.subplots(1, panels))
    ax = axes[0]
    lo, hi = mean - std, mean + std
    if score_range is not None:  # an accuracy of 1.02 does not exist
        lo, hi = np.clip(lo, *score_range), np.clip(hi, *score_range)
    ax.fill_between(k, lo, hi, color="C0", alpha=0.2, lw=0, label="mean ± std over folds")
    ax.plot(k, mean, "-", color="C0", lw=1.5, marker="o" if len(k) <= 40 else None, ms=3, label="mean")
    i = int(np.flatnonzero(k == n_features)[0])
    words = {"within": f"smallest k within {tol:g} of the best" if tol is not None else "within",
             "one-se": "smallest k within one standard error", "best": "best mean"}
    label = f"chosen k = {n_features}" + (f" ({words.get(rule, rule)})" if rule else "")
    if tol is not None:
        ax.axhline(mean.max() - tol, color="0.4", lw=0.8, ls=":", label=f"best mean - {tol:g}")
    ax.axvline(n_features, color="C3", lw=1, ls="--")
    ax.plot([n_features], [mean[i]], "o", color="C3", ms=7, label=label)
    best = int(np.argmax(mean))
    if k[best] != n_features:
        ax.plot([k[best]], [mean[best]], "s", color="C2", ms=6, label=f"best mean, k = {k[best]}")
    ax.set_xlabel("k (number of selected features)")
    ax.set_ylabel(score_name)
    if len(k) > 1 and k[-1] / k[0] > 50:
        log_k_axis(ax, k)
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
            log_k_axis(ax2, k)
        ax2.grid(alpha=0.3)
        ax2.set_title("selector objective path", fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig
