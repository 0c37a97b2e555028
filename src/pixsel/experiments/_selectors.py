"""Pixel selectors compared by :func:`evaluate_selection`: pixsel's paths and the usual alternatives.

Every selector returns a :class:`Selection`: one support per requested ``k`` and the time it
took. Path and ranking methods (pixsel's greedy paths, Fisher thresholding, univariate scores,
RFE, an l1 model, soft-ARD) compute every ``k`` at once, so their time is one number for all
``k``; ``SequentialFeatureSelector`` is refitted per ``k`` as a user would, so its time is per k.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .._threads import blas_limit

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = ["Selection", "SELECTORS", "select_pixels", "ranking_selection"]


@dataclass
class Selection:
    """Supports for several ``k`` and the selection time.

    Attributes
    ----------
    method : str
    supports : dict int -> ndarray
        Sorted selected feature indices per ``k``.
    time_total : float
        Seconds for all ``k`` (the sum of ``time_per_k`` for per-k methods).
    time_per_k : dict int -> float or None
        Per-``k`` seconds for methods refitted per ``k``; None for path/ranking methods.
    objective : dict int -> float
        For pixsel's paths and Fisher thresholding: the two-class Fisher objective
        ``a_S^T B_SS^-1 a_S`` of each support (the generalized Rayleigh quotient of Fig. 7 of
        "Fast Pixel/Part Selection with Sparse Eigenvectors", ICCV 2007).
    info : dict
    """

    method: str
    supports: dict
    time_total: float
    time_per_k: dict = field(default_factory=dict)
    objective: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)


def ranking_selection(
    method: str,
    ranking: ArrayLike,
    ks: Sequence[int],
    seconds: float = 0.0,
    info: dict[str, Any] | None = None,
) -> Selection:
    """A :class:`Selection` from a ranking (best first): the top ``k`` for each ``k``."""
    ranking = np.asarray(ranking, dtype=np.intp)
    return Selection(method=method, supports={k: np.sort(ranking[:k]) for k in ks}, time_total=float(seconds),
                     time_per_k={k: None for k in ks}, info=dict(info or {}))


def _fisher_problem(X, y, regularization="auto"):
    from ..stats import class_statistics, regularize

    st = class_statistics(X, y)
    B, reg = regularize(st.within, regularization, X=X, y=y, means=st.means, classes=st.classes)
    return st.between, B, reg


def _path_selection(name, direction):
    """pixsel's :class:`~pixsel.SparseLDASelector`: one fit gives every k (``get_support_at``)."""

    def run(X, y, ks, random_state=None, regularization="auto"):
        from ..selection import SparseLDASelector

        t0 = time.perf_counter()
        sel = SparseLDASelector(1, direction=direction, regularization=regularization, path="full").fit(X, y)
        secs = time.perf_counter() - t0
        supports = {k: sel.get_support_at(k, indices=True) for k in ks}
        objective = {k: float(sel.objective_path_[k - 1]) for k in ks}
        paths = {d: getattr(sel, f"{d}_path_") for d in ("forward", "backward")}
        info = {"regularization": sel.regularization_,
                "objective_path": {d: pth.objective for d, pth in paths.items() if pth is not None}}
        return Selection(name, supports, secs, {k: None for k in ks}, objective, info)

    return run


def fisher_ranking(a: ArrayLike, B: ArrayLike) -> NDArray:
    """Fisher thresholding: pixels ranked by ``|B^-1 a|`` (the LDA direction), largest first."""
    from ..spectral import fisher_thresholding_path

    return np.asarray(fisher_thresholding_path(a, B).order)


def _fisher(X, y, ks, random_state=None, regularization="auto"):
    from ..spectral import fisher_thresholding_path

    t0 = time.perf_counter()
    a, B, reg = _fisher_problem(X, y, regularization)
    path = fisher_thresholding_path(a, B)
    secs = time.perf_counter() - t0
    sel = ranking_selection("fisher", path.order, ks, secs, {"regularization": reg.to_dict(),
                                                            "objective_path": {"fisher": path.objective}})
    sel.objective = {k: float(path.objective[k - 1]) for k in ks}
    return sel


def _score_ranking(name, score_fn):
    def run(X, y, ks, random_state=None):
        t0 = time.perf_counter()
        scores = np.nan_to_num(np.asarray(score_fn(X, y, random_state), dtype=np.float64), nan=-np.inf)
        order = np.argsort(-scores, kind="stable")
        return ranking_selection(name, order, ks, time.perf_counter() - t0)

    return run


def _f_classif(X, y, rs):
    import warnings

    from sklearn.feature_selection import f_classif

    with warnings.catch_warnings():  # constant pixels: sklearn warns and returns NaN scores
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        return f_classif(X, y)[0]


def _mutual_info(X, y, rs):
    from sklearn.feature_selection import mutual_info_classif

    return mutual_info_classif(X, y, random_state=rs)


def _rfe_svc(X, y, ks, random_state=None):
    """RFE(LinearSVC) eliminates one feature at a time: its ranking is nested, fitted once."""
    from sklearn.feature_selection import RFE
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    t0 = time.perf_counter()
    Xs = StandardScaler().fit_transform(X)
    rfe = RFE(LinearSVC(C=1.0, max_iter=5000, random_state=random_state), n_features_to_select=1, step=1)
    _quiet_fit(rfe, Xs, y)
    order = np.argsort(rfe.ranking_, kind="stable")
    return ranking_selection("rfe_svc", order, ks, time.perf_counter() - t0,
                             {"note": "one RFE run to 1 feature; supports = top of ranking_ (nested)"})


def _l1_logistic(X, y, ks, random_state=None, C=0.1):
    """SelectFromModel(LogisticRegression(l1), max_features=k, threshold=-inf): top ``|coef|``."""
    from sklearn.feature_selection import SelectFromModel
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    t0 = time.perf_counter()
    Xs = StandardScaler().fit_transform(X)
    est = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=C, random_state=random_state)
    _quiet_fit(est, Xs, y)
    supports = {}
    for k in ks:
        sfm = SelectFromModel(est, prefit=True, max_features=k, threshold=-np.inf)
        supports[k] = np.flatnonzero(sfm.get_support())
    nnz = int(np.count_nonzero(est.coef_))
    return Selection("l1_logistic", supports, time.perf_counter() - t0,
                     {k: None for k in ks}, {},
                     {"C": C, "nonzero_coefficients": nnz,
                      "note": "supports beyond the nonzero coefficients are filled by |coef| = 0 ties (lowest index)"})


def _sfs_lda(X, y, ks, random_state=None, max_k=10, cv=5):
    """SequentialFeatureSelector(LDA(solver='lsqr')), refitted for each k <= max_k (skipped above: too slow).

    The 'lsqr' solver because the default SVD solver fails on cross-validation folds in which a
    candidate pixel is constant (common for image borders).
    """
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.feature_selection import SequentialFeatureSelector

    supports, per_k = {}, {}
    # LDA's SVD solver fails on a single constant column, so constant features are dropped first
    keep = np.flatnonzero(np.ptp(X, axis=0) > 0)
    for k in ks:
        if k > max_k or k >= len(keep):
            continue
        t0 = time.perf_counter()
        sfs = SequentialFeatureSelector(LinearDiscriminantAnalysis(solver="lsqr"), n_features_to_select=k, cv=cv)
        _quiet_fit(sfs, X[:, keep], y)
        per_k[k] = time.perf_counter() - t0
        supports[k] = keep[np.flatnonzero(sfs.get_support())]
    return Selection("sfs_lda", supports, float(sum(per_k.values())), per_k, {},
                     {"max_k": max_k, "cv": cv, "skipped_k": [k for k in ks if k not in supports]})


def _quiet_fit(est, X, y):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", FutureWarning)
        return est.fit(X, y)


def _soft_ard(X, y, ks, random_state=None, approximation="ep", max_time=None, max_iter=200, n_restarts=0):
    """Soft-ARD: a GP with one length-scale per pixel; pixels ranked by relevance (1 / ell)."""
    from ..gp import GaussianProcessProbitClassifier

    t0 = time.perf_counter()
    gp = GaussianProcessProbitClassifier(approximation, random_state=random_state, n_restarts=0).fit(X, y)
    gp_ard = GaussianProcessProbitClassifier(
        approximation, ard=True, n_restarts=n_restarts, max_iter=max_iter, max_time=max_time,
        length_scale_init=gp.length_scale_, signal_variance_init=gp.signal_variance_, random_state=random_state,
    ).fit(X, y)
    order = np.argsort(-gp_ard.relevance_, kind="stable")
    return ranking_selection(f"soft_ard_{approximation}", order, ks, time.perf_counter() - t0,
                             {"relevance": gp_ard.relevance_, "log_marginal_likelihood": gp_ard.log_marginal_likelihood_value_,
                              "n_eval": gp_ard.n_iter_, "stopped_by_time": gp_ard.stopped_by_time_,
                              "iso_fit_time": gp.fit_time_, "ard_fit_time": gp_ard.fit_time_})


#: name -> callable(X, y, ks, random_state=None, **params) -> Selection
SELECTORS = {
    "forward": _path_selection("forward", "forward"),
    "backward": _path_selection("backward", "backward"),
    "dual": _path_selection("dual", "dual"),
    "gslda": _path_selection("gslda", "dual"),
    "fisher": _fisher,
    "f_classif": _score_ranking("f_classif", _f_classif),
    "mutual_info": _score_ranking("mutual_info", _mutual_info),
    "rfe_svc": _rfe_svc,
    "l1_logistic": _l1_logistic,
    "sfs_lda": _sfs_lda,
    "soft_ard": _soft_ard,
}


def select_pixels(
    X: ArrayLike,
    y: ArrayLike,
    method: str,
    ks: Sequence[int],
    *,
    random_state: int | np.random.RandomState | None = None,
    n_blas_threads: int = 1,
    **params: Any,
) -> Selection:
    """Run the selector ``method`` (a key of :data:`SELECTORS`) for every ``k`` in ``ks``.

    ``n_blas_threads`` (default 1, ``None`` = leave the process setting) limits BLAS threads
    while the selector runs: the selectors fit many small models, for which one thread is as
    fast or faster, and far faster on a shared, oversubscribed machine.
    """
    if method not in SELECTORS:
        raise ValueError(
            f"The 'method' parameter must be one of {{{', '.join(repr(m) for m in SELECTORS)}}}. Got {method!r} instead."
        )
    with blas_limit(n_blas_threads):
        return SELECTORS[method](X, y, list(ks), random_state=random_state, **params)
