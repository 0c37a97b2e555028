"""PathSelectorCV: choose k by cross-validation over the whole path, one selector fit per fold.

A pixsel path selector computes the selection for every ``k`` in one fit. Cross-validating
"how many features" therefore costs one selector fit per training fold (not one per ``k`` per
fold, as with ``RFECV`` or ``SequentialFeatureSelector``); only the downstream model is scored
at each ``k`` of the grid. For the default downstream model, shrinkage LDA, even that is done
without refitting: the per-class statistics of the fold are formed once for all features and
each ``k`` only reads a ``k x k`` block and solves it (:class:`_ShrinkageLDAStatistics`). When
the supports are nested (a forward path, a ranking), the Ledoit-Wolf intensities of every ``k``
come from running sums along the path and the columns are put in path order once; with fewer
training samples than ``k`` the covariance is solved in its ``n x n`` (Woodbury) form. The
scores are those of a direct scikit-learn fit on the same columns (tested).

What a fit costs: one selector fit per fold (whose forward path reaches the largest ``k`` of
the grid, no further), the scoring of every ``k`` of the grid (about ``k^3 / 3 + C k^2`` or,
with ``k > n``, ``n^2 k`` per ``k``), and the final refit at the chosen ``k``. The large ``k`` set
the price of scoring, so the default grid samples them by ratio (see ``k_grid``); with
``rule='within'`` it stops where the curve has flattened. The class statistics of a fold are
formed for the features of its path only (the grid's largest ``k`` columns, not all ``p``).

How the supports of a fold are read, by selector (``route_``):

* ``'path'``: selectors with ``get_support_at`` (:class:`SparseLDASelector`,
  :class:`SparsePCASelector`): one fit with ``n_features_to_select = max(k_grid)``, then
  ``get_support_at(k)`` for every ``k`` (greedy supports; the exact solver or ``refine`` only
  act at the final refit);
* ``'ranking'``: score selectors in ``mode='top'`` (:class:`ScoreSelector`,
  :class:`SubspaceScoreSelector`): one fit, the ``k`` best scores for every ``k``;
* ``'refit'``: selectors whose supports are not nested and that have an
  ``n_features_to_select`` parameter (:class:`CardinalSPLSSelector`, score selectors in
  ``mode='sample'``): the selector is refitted for every ``k`` of the grid (``len(k_grid)`` fits
  per fold; the default grid is then short);
* :class:`SPLSSelector` (sparsity set by ``eta``, not by a number of features) and other
  estimators without ``n_features_to_select`` are refused with an error that says what to use.
"""

from __future__ import annotations

import numbers
import time
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.feature_selection import SelectorMixin
from sklearn.linear_model import Ridge
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.parallel import Parallel, delayed
from joblib import effective_n_jobs
from sklearn.utils.validation import check_is_fitted, validate_data

from .._lazy import dask_rows
from .._progress import StepProgress, step_progress
from .._validation import HasMethods, Interval, StrOptions, check_input, check_int, check_params, index_set
from ._base import ImageSelectorMixin
from ._lda import SparseLDASelector
from ._scores import ScoreSelector, SubspaceScoreSelector
from ._shrinkage_scores import _nested_order, _ShrinkageLDAStatistics

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["FoldProgress", "PathSelectorCV"]

_RULES = ("best", "one-se", "within")
#: The 'auto' grid: every k up to _DENSE_AUTO, then _LOG_AUTO log-spaced values up to p (steps
#: of about 7 % at p = 1024). Scoring a k costs about k^2 n or k^3, so the large k, not the
#: small ones, set the price of a grid: they are sampled by ratio.
_DENSE_AUTO = 32
_LOG_AUTO = 48
#: rule='within' on the 'auto' grid: the folds' paths are computed to this k first (and to p only
#: when the octaves scored reach further)
_PATH_REACH = 256
_CLASSIFICATION = ("binary", "multiclass")


def _default_estimator(classification):
    if classification:
        return LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")
    return Ridge()


def _is_default_lda(est):
    """True for ``LinearDiscriminantAnalysis(solver='lsqr', shrinkage='auto')`` (any n_components)."""
    if type(est) is not LinearDiscriminantAnalysis:
        return False
    ref = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").get_params()
    got = est.get_params()
    got.pop("n_components"), ref.pop("n_components")
    return got == ref


def _route(selector, owner):
    """How a fold's supports are read from this selector: 'path', 'ranking' or 'refit'."""
    if "n_features_to_select" not in selector.get_params(deep=False):
        raise TypeError(
            f"{owner} chooses the number of features of a selector that has an "
            f"'n_features_to_select' parameter; {type(selector).__name__} has none (SPLSSelector sets "
            "its sparsity with eta: cross-validate eta with sklearn.model_selection.GridSearchCV "
            "instead, or use CardinalSPLSSelector)."
        )
    if hasattr(selector, "get_support_at"):
        return "path"
    if isinstance(selector, (ScoreSelector, SubspaceScoreSelector)) and selector.mode == "top":
        return "ranking"
    return "refit"


def _ranking_supports(sel, grid):
    imp = getattr(sel, "importances_", None)
    if imp is None:
        imp = sel.scores_
    order = np.argsort(-np.asarray(imp, dtype=np.float64), kind="stable")  # ties: lowest index
    return [np.sort(order[:k]) for k in grid]


def _path_fit_params(selector, k_max, n_features):
    """The parameters of a fold's fit whose path reaches ``k_max``, and no further than needed.

    A :class:`SparseLDASelector` at ``path='auto'`` runs its forward pass to ``max(2 k, k + 10)``
    (more than two classes), so asking for about ``k_max / 2`` reads every k of the grid and
    spares the weights of a ``k_max``-feature support (an eigenproblem of size ``k_max``); when
    that pass would reach ``n_features`` anyway, ``path='full'`` with ``k = 1`` gives the same
    path without any such eigenproblem. Selectors whose support at ``n_features_to_select`` is
    not the greedy one (exact solver, refine, stability) or whose k is not a feature count
    (groups, forced features) are fitted at ``k_max`` as before."""
    params = selector.get_params(deep=False)
    # refine='auto' and beam_width='auto' (SparseLDASelector's defaults) search at n_features_to_select
    # only: the folds read every k from the greedy path, so they run without them (the final refit keeps them)
    auto_refine = isinstance(selector, SparseLDASelector) and params.get("refine") == "auto"
    auto_beam = isinstance(selector, SparseLDASelector) and params.get("beam_width") == "auto"
    plain = (params.get("path") == "auto" and params.get("solver", "greedy") == "greedy"
             and (auto_refine or not params.get("refine", False)) and params.get("stability") is None
             and params.get("always_select") is None and params.get("groups") is None
             and params.get("patch_size") is None)
    off = {**({"refine": False} if auto_refine else {}), **({"beam_width": 1} if auto_beam else {})}
    if not plain:
        return {"n_features_to_select": k_max, **off}
    k0 = max(1, min(-(-k_max // 2), k_max - 10))
    if max(2 * k0, k0 + 10) >= n_features:
        return {"n_features_to_select": 1, "path": "full", **off}
    return {"n_features_to_select": k0, **off}


class FoldProgress(NamedTuple):
    """What a callable ``progress`` of :class:`PathSelectorCV` receives, after every step.

    ``fold`` (1 to ``n_folds``; None for the final refit on all the data) is where the work
    stands; ``stage`` is ``'forward path'`` / ``'backward path'`` (a step of the selector's
    path), ``'refit'`` (a selector fitted at one k, when it has no path), ``'scores'`` (a k of
    the grid scored) or ``'fold'`` (a fold finished: ``done`` folds of ``total``); ``done`` of
    ``total`` counts the steps of that stage. ``elapsed`` is the seconds since ``fit`` began,
    ``seconds_left`` the estimate for the folds left (None until a fold has finished)."""

    fold: int | None
    n_folds: int
    stage: str
    done: int
    total: int
    elapsed: float
    seconds_left: float | None


class _FoldReporter:
    """Turns the steps of the folds into :class:`FoldProgress` records for a callable, or into
    progress lines / bars (:func:`pixsel._progress.step_progress`: one counter over the folds,
    one per stage of the fold at work)."""

    def __init__(self, owner, n_folds, progress, *, steps):
        self.owner, self.n_folds, self.t0 = owner, n_folds, time.monotonic()
        self.sink = progress if callable(progress) else None
        self.draw = bool(progress) and self.sink is None
        self.finished = 0
        # the folds' own heartbeat only when their steps are not shown (folds in other processes)
        self._folds = StepProgress(n_folds, f"{owner} folds", delay=1.0, interval=1.0,
                                   heartbeat=not steps) if self.draw else None
        self._stage, self._key = None, None

    def seconds_left(self):
        if not self.finished:
            return None
        return (time.monotonic() - self.t0) / self.finished * (self.n_folds - self.finished)

    def step(self, fold, stage, done, total):
        if self.sink is not None:
            self.sink(FoldProgress(fold, self.n_folds, stage, int(done), int(total),
                                   time.monotonic() - self.t0, self.seconds_left()))
        elif self.draw:
            if (fold, stage) != self._key:
                self._close_stage()
                where = "refit" if fold is None else f"fold {fold}/{self.n_folds}"
                self._stage = step_progress(total, f"{self.owner} {where}: {stage}", delay=1.0, interval=1.0)
                self._key = (fold, stage)
            self._stage.callback(done, total)

    def fold_done(self, fold):
        self.finished += 1
        self._close_stage()
        if self.sink is not None:
            self.step(fold, "fold", self.finished, self.n_folds)
        elif self.draw:
            self._folds.update(1, f"fold {fold}")

    def for_fold(self, fold):
        """``report(stage, done, total)`` for the steps inside ``fold``."""
        return lambda stage, done, total: self.step(fold, stage, done, total)

    def _close_stage(self):
        if self._stage is not None:
            self._stage.close()
            self._stage, self._key = None, None

    def close(self):
        self._close_stage()
        if self._folds is not None:
            self._folds.close()


def _with_progress(selector, report):
    """The selector reporting its path steps to ``report`` (when it has a ``progress`` parameter)."""
    if report is not None and "progress" in selector.get_params(deep=False):
        selector.set_params(progress=lambda done, total, what: report(what, done, total))
    return selector


def _fit_fold(selector, route, estimator, scorer, fast, grid, X, y, train, test, report=None):
    """Scores of the downstream model at every k of the grid on one split (one selector fit).

    ``report(stage, done, total)``, when given, receives the selector's path steps and each k
    scored."""
    t0 = time.perf_counter()
    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    scores = np.empty(len(grid))
    if route == "refit":
        for i, k in enumerate(grid):
            sel = clone(selector).set_params(n_features_to_select=int(k)).fit(Xtr, ytr)
            est = clone(estimator).fit(sel.transform(Xtr), ytr)
            scores[i] = scorer(est, sel.transform(Xte), yte)
            if report is not None:
                report("refit", i + 1, len(grid))
        return scores, time.perf_counter() - t0
    supports = _fold_supports(selector, route, grid, Xtr, ytr, report)
    return _score_supports(supports, estimator, scorer, fast, grid, Xtr, ytr, Xte, yte, report), time.perf_counter() - t0


def _fold_supports(selector, route, grid, Xtr, ytr, report=None):
    """The supports of every k of the grid on one training split: one fit of the selector (its
    path or its ranking), whose path reaches the grid's largest k."""
    fit = (_path_fit_params(selector, int(grid[-1]), Xtr.shape[1]) if route == "path"
           else {"n_features_to_select": int(grid[-1])})
    sel = _with_progress(clone(selector).set_params(**fit), report).fit(Xtr, ytr)
    k_max = int(grid[-1])
    if route == "path" and fit["n_features_to_select"] < k_max and len(sel.objective_path_) < k_max:
        # the route chosen inside fit computed a shorter path (the implicit algorithm stops at
        # n_features_to_select): fit again to the grid's largest k
        sel = _with_progress(clone(selector).set_params(n_features_to_select=k_max), report).fit(Xtr, ytr)
    if route == "path":
        return [sel.get_support_at(int(k), indices=True) for k in grid]
    return _ranking_supports(sel, grid)


def _score_part(supports, estimator, scorer, fast, grid, X, y, train, test, report=None):
    """``_score_supports`` on one split, with the seconds it took."""
    t0 = time.perf_counter()
    scores = _score_supports(supports, estimator, scorer, fast, grid, X[train], y[train], X[test], y[test], report)
    return scores, time.perf_counter() - t0


def _score_supports(supports, estimator, scorer, fast, grid, Xtr, ytr, Xte, yte, report=None):
    """The downstream model's test scores on the supports of the k of ``grid`` (one split)."""
    scores = np.empty(len(grid))
    scored = None if report is None else (lambda done, total: report("scores", done, total))
    if fast:
        order = _nested_order(supports) if scorer is None else None
        if order is not None:  # a forward path or a ranking: every k from running sums
            # the class statistics of the path's features only (column by column, as those of
            # all features): a p x p matrix per class would cost more than every k scored
            o = np.asarray(order[: int(grid[-1])], dtype=np.intp)
            stats = _ShrinkageLDAStatistics(Xtr[:, o], ytr)
            Xo = np.asarray(Xte[:, o], dtype=np.float64)
            return stats.path_accuracies(np.arange(len(o)), grid, Xo, yte, callback=scored)
        stats = _ShrinkageLDAStatistics(Xtr, ytr)
        Xte = np.asarray(Xte, dtype=np.float64)
    for i, S in enumerate(supports):
        if fast and scorer is None:
            scores[i] = stats.accuracy(S, Xte, yte)
        else:
            est = stats.estimator(S) if fast else clone(estimator).fit(Xtr[:, S], ytr)
            scores[i] = scorer(est, Xte[:, S], yte)
        if scored is not None:
            scored(i + 1, len(grid))
    return scores


class PathSelectorCV(ImageSelectorMixin, MetaEstimatorMixin, SelectorMixin, BaseEstimator):
    """Choose the number of features k by cross-validation, with one selector fit per fold.

    On every training fold the selector is fitted once (its path gives the selection for every
    k), the downstream ``estimator`` is fitted on the selected columns and scored on the test
    fold at every k of ``k_grid``; ``n_features_to_select_`` is the k of best mean score (or the smallest k
    within one standard error, or within ``tol``, of it), and the selector is refitted once, at that k, on
    all the data.
    See the module docstring for which selectors have a path (``route_``).

    Parameters
    ----------
    selector : estimator, default=None
        A pixsel selector with an ``n_features_to_select`` parameter (its value is ignored).
        ``None``: ``SparseLDASelector()``. A :class:`SparseLDASelector` at ``direction='auto'``
        (its default) runs the forward pass in the folds and the refit (``selector_`` shows
        ``direction='forward'``): choosing k is already a cross-validation, and one of the pass
        inside every fold would multiply the cost by the number of folds; pass
        ``direction='cv'`` for that nested choice.
    k_grid : 'auto' or array-like of int, default='auto'
        The values of k scored. ``'auto'``: every k from 1 to ``min(p, 32)`` and 48
        log-spaced values above up to ``p`` (at most 80 values; steps of about 7 % at ``p =
        1024``), when the supports come from a path or a ranking; 20 log-spaced values
        from 1 to ``p`` when the selector must be refitted for every k. With ``rule='within'``
        (and a path or a ranking) the 'auto' grid is scored octave by octave (k up to 32, then
        up to 64, 128, ...) and stops after the first octave whose best mean score exceeds the
        best before it by less than ``tol``: once doubling k no longer buys ``tol``, the large k
        (which set the price of scoring) are not scored, and the rule picks among the k
        scored. This is a stopping heuristic: a curve that rises again by more than ``tol``
        after a flat octave is not seen (pass an explicit grid to score every k you list).
        The folds' paths then reach ``k = 256`` first, and ``p`` only when the octaves go
        further.
        Explicit values must lie in ``[1, n_features]``; they are sorted and duplicates dropped.
    estimator : estimator, default=None
        The downstream model scored at each k. ``None``: shrinkage LDA
        (``LinearDiscriminantAnalysis(solver='lsqr', shrinkage='auto')``) for class labels,
        ``Ridge()`` for a continuous target.
    scoring : str, callable or None, default=None
        A scikit-learn scorer; ``None`` uses the estimator's ``score`` (accuracy for
        classifiers, R^2 for regressors). A scorer that returns NaN raises a ``ValueError``
        naming the split and the k.
    cv : int, cross-validation generator or iterable, default=5
        As in scikit-learn (an int means ``StratifiedKFold`` for class labels, ``KFold``
        otherwise). With an int, every class needs at least ``cv`` samples.
    rule : {'best', 'one-se', 'within'}, default='best'
        ``'best'``: the k of largest mean score (the smallest such k on ties). ``'one-se'``:
        the smallest k whose mean score is within one standard error
        (``std / sqrt(n_splits)`` of the best k's split scores) of the best mean.
        ``'within'``: the smallest k whose mean score is at least the best mean minus ``tol``
        (few features when the curve is flat; see ``k_grid`` for where its 'auto' grid stops).
    tol : float, default=0.01
        With ``rule='within'``: the mean score given up, at most, for fewer features (in the
        scorer's units: 0.01 is one point of accuracy). Ignored by the other rules.
    random_state : int, RandomState instance or None, default=None
        With an int ``cv``: ``None`` keeps the folds in the order of the samples (as
        scikit-learn's ``StratifiedKFold`` / ``KFold``); otherwise the samples are shuffled
        before they are split, with this seed. Images read from a folder come sorted (by
        person, pose or lighting), and unshuffled folds may each miss some of them. Ignored
        when ``cv`` is a splitter or an iterable (shuffle there).
    reuse_statistics : bool, default=True
        With the default downstream model (or an identical ``LinearDiscriminantAnalysis``), score
        every k from per-fold class statistics formed once, instead of refitting the LDA at
        each k (same numbers up to rounding; computed in float64).
    n_jobs : int or None, default=None
        Folds run in parallel with joblib.
    progress : bool or callable, default=False
        Report each fold (fold ``i`` of ``n``, with the time left) and the steps inside it (the
        selector's path steps, then the k of the grid scored), and the final refit's path:
        ``True`` shows them (bars on a terminal, plain lines elsewhere); a callable is called
        with a :class:`FoldProgress` record after every step. The steps inside a fold are
        reported when the folds run in this process (``n_jobs=None`` or 1); with parallel
        folds only the finished folds are.

    Attributes
    ----------
    n_features_to_select_ : int
        The chosen k (the name every selector gives its k).

        .. versionchanged:: 0.2
           Renamed from ``n_features_`` (no alias).
    selector_ : estimator
        The selector refitted on all the data with ``n_features_to_select = n_features_to_select_``.
    estimator_ : estimator
        The downstream model fitted on the selected features of all the data. With the default
        shrinkage LDA and ``reuse_statistics``, it is formed from the class statistics the
        scores were read from (a fitted ``LinearDiscriminantAnalysis``, equal to a direct fit
        up to rounding).
    support_ : ndarray of shape (n_features,) of bool
        The features ``selector_`` selects (``get_support()``).
    ranking_ : ndarray of shape (n_features,) of int
        ``selector_.ranking_``, only when the selector ranks the features.
    image_shape_ : tuple or None
        ``(h, w)`` or ``(h, w, c)`` when ``X`` was an image stack (flattened in C order;
        ``transform`` takes the stack or the rows, ``get_support_image()`` gives the mask in
        this shape); None after a fit on 2-D rows.
    cv_results_ : dict of ndarrays
        In scikit-learn's format (as ``RFECV``): ``n_features`` (the k scored: the grid, or its
        octaves up to where the curve flattened with ``rule='within'``), ``mean_test_score``,
        ``std_test_score``, ``rank_test_score`` and ``split{i}_test_score``, one entry per k.
    best_index_ : int
        Index of the best mean score in ``cv_results_`` (the chosen k is at this index with
        ``rule='best'``, or ``'within'`` and ``tol=0``).
    route_ : {'path', 'ranking', 'refit'}
        How each fold's supports were obtained.
    n_splits_ : int
    fold_times_ : ndarray of shape (n_splits_,)
        Seconds spent in each fold (selector fit and scoring).
    classes_ : ndarray of shape (n_classes,)
        Only for class labels.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` has string feature names.

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Fast pixel/part selection with sparse eigenvectors",
      IEEE International Conference on Computer Vision (ICCV), 2007.
    * T. Hastie, R. Tibshirani and J. Friedman, "The elements of statistical learning", 2nd edition,
      Springer, 2009, section 7.10 (the one-standard-error rule).

    Examples
    --------
    >>> from pixsel.selection import PathSelectorCV
    >>> from pixsel.datasets import load_digits_pair
    >>> d = load_digits_pair(3, 5)
    >>> cvsel = PathSelectorCV(k_grid=range(1, 21)).fit(d.X, d.y)
    >>> 1 <= cvsel.n_features_to_select_ <= 20, cvsel.transform(d.X).shape[1] == cvsel.n_features_to_select_
    (True, True)
    >>> sorted(cvsel.cv_results_)[:3]
    ['mean_test_score', 'n_features', 'rank_test_score']
    """

    _parameter_constraints: dict = {
        "selector": [HasMethods(["fit", "get_params"]), None],
        "k_grid": [StrOptions(("auto",)), "array-like"],
        "estimator": [HasMethods(["fit"]), None],
        "scoring": [str, callable, None],
        "cv": ["cv_object"],
        "rule": [StrOptions(_RULES)],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "reuse_statistics": ["boolean"],
        "n_jobs": [Integral, None],
        "progress": ["boolean", callable],
    }

    def __init__(
        self,
        selector: Any | None = None,
        *,
        k_grid: str = "auto",
        estimator: Any | None = None,
        scoring: str | Callable[..., Any] | None = None,
        cv: int = 5,
        rule: Literal["best", "one-se", "within"] = "best",
        tol: float = 0.01,
        random_state: int | np.random.RandomState | None = None,
        reuse_statistics: bool = True,
        n_jobs: int | None = None,
        progress: bool | Callable[[FoldProgress], Any] = False,
    ) -> None:
        self.selector = selector
        self.k_grid = k_grid
        self.estimator = estimator
        self.scoring = scoring
        self.cv = cv
        self.rule = rule
        self.tol = tol
        self.random_state = random_state
        self.reuse_statistics = reuse_statistics
        self.n_jobs = n_jobs
        self.progress = progress

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def _check_conflicts(self):
        if self.selector is not None:
            _route(self.selector, type(self).__name__)  # a selector without n_features_to_select

    def _grid(self, p, route, owner):
        if isinstance(self.k_grid, str):  # 'auto'
            if route == "refit":
                return np.unique(np.round(np.geomspace(1, p, 20)).astype(int))
            dense = np.arange(1, min(p, _DENSE_AUTO) + 1)
            tail = np.round(np.geomspace(_DENSE_AUTO, p, _LOG_AUTO + 1)).astype(int) if p > _DENSE_AUTO else []
            return np.unique(np.concatenate([dense, tail])).astype(int)
        values = np.asarray(self.k_grid).ravel()
        if values.size == 0:
            raise ValueError(f"The 'k_grid' parameter of {owner} must hold at least one k in [1, {p}]. Got an empty grid.")
        try:
            return np.unique([check_int(v.item() if isinstance(v, np.generic) else v, "k_grid", low=1,
                                        high=p, owner=owner) for v in values])
        except ValueError as exc:
            raise ValueError(f"{exc} X has n_features = {p}.") from None

    def fit(self, X: ArrayLike, y: ArrayLike, groups: ArrayLike | None = None) -> Self:
        """Cross-validate the downstream score at every k of the grid, choose k, refit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), (n_samples, h, w) or (n_samples, h, w, c)
            An image stack is flattened in C order (the selector sees the rows; a colour stack's
            pixels are not grouped). Never modified. At least 2 features (with one there is no k
            to choose).
        y : array-like of shape (n_samples,)
            Class labels or a continuous target.
        groups : array-like of shape (n_samples,), default=None
            Group labels for a group splitter (``GroupKFold``...).

        Returns
        -------
        self
        """
        owner = check_params(self)
        X = check_input(self, X)  # text refused, (n, h, w[, c]) stacks flattened, image_shape_ kept
        X, y = validate_data(self, X, y, dtype=None, ensure_min_samples=2)
        if X.dtype.kind not in "uifb":
            X = X.astype(np.float64)
        n, p = X.shape
        if p < 2:
            raise ValueError(
                f"{owner} chooses the number of features k among n_features; X has n_features = {p}, "
                "so there is no k to choose. Pass X with at least 2 features (or use the feature as is)."
            )
        classification = type_of_target(y) in _CLASSIFICATION
        selector = SparseLDASelector() if self.selector is None else self.selector
        if isinstance(selector, SparseLDASelector) and selector.get_params(deep=False)["direction"] == "auto":
            # choosing k is itself a cross-validation: 'auto' runs the forward pass here (a
            # direction cross-validated inside every fold would multiply the cost by the folds)
            selector = clone(selector).set_params(direction="forward")
        route = _route(selector, owner)
        # the 'auto' grid stops at the features the selector can reach (never_select excludes some)
        excluded = index_set(selector.get_params(deep=False).get("never_select"), p, "never_select",
                             owner=type(selector).__name__)
        grid = self._grid(p - len(excluded) if isinstance(self.k_grid, str) else p, route, owner)
        estimator = _default_estimator(classification) if self.estimator is None else self.estimator
        is_clf = is_classifier(estimator)
        fast = bool(self.reuse_statistics) and route != "refit" and _is_default_lda(estimator)
        scorer = check_scoring(estimator, scoring=self.scoring)
        if is_clf:
            self.classes_ = np.unique(y)
        cv = check_cv(self.cv, y, classifier=is_clf)
        if isinstance(self.cv, numbers.Integral) and self.random_state is not None:
            cv.shuffle, cv.random_state = True, self.random_state  # StratifiedKFold / KFold of check_cv
        if is_clf and isinstance(self.cv, numbers.Integral):
            _, counts = np.unique(y, return_counts=True)
            if counts.min() < cv.get_n_splits():
                small = self.classes_[np.argmin(counts)].tolist()
                raise ValueError(
                    f"The smallest class of y (label {small!r}) has {counts.min()} sample(s), fewer than "
                    f"the cv={cv.get_n_splits()} folds of {owner}: every fold must hold every class. "
                    f"Use cv={max(2, counts.min())} or fewer folds, or more samples of that class."
                )
        splits = list(cv.split(X, y, groups))
        if is_clf:
            for i, (train, _) in enumerate(splits):
                missing = np.setdiff1d(self.classes_, y[train])
                if missing.size:
                    raise ValueError(
                        f"Training split {i} of {owner} has no sample of class {missing[0].tolist()!r}; use a "
                        "stratified splitter (StratifiedKFold, StratifiedGroupKFold) or fewer folds."
                    )
        # the default scoring of the fast LDA path is computed directly (accuracy, as LDA.score)
        fold_scorer = None if (fast and self.scoring is None) else scorer
        inner = bool(self.progress) and effective_n_jobs(self.n_jobs) == 1  # steps: only from this process
        reporter = _FoldReporter(owner, len(splits), self.progress, steps=inner) if self.progress else None
        parts = self._octaves(grid, route)
        try:
            if len(parts) == 1:
                jobs = (delayed(_fit_fold)(selector, route, estimator, fold_scorer, fast, grid, X, y, train, test,
                                           report=reporter.for_fold(i + 1) if inner else None)
                        for i, (train, test) in enumerate(splits))
                results = []
                for i, result in enumerate(Parallel(n_jobs=self.n_jobs, return_as="generator")(jobs)):
                    results.append(result)
                    if reporter is not None:
                        reporter.fold_done(i + 1)
            else:
                results, grid = self._by_octave(parts, selector, route, estimator, fold_scorer, fast, X, y,
                                                splits, reporter, inner)
            self._choose(results, grid, splits, route)
            refit = clone(selector).set_params(n_features_to_select=self.n_features_to_select_)
            self.selector_ = _with_progress(refit, None if reporter is None else reporter.for_fold(None)).fit(X, y)
        finally:
            if reporter is not None:
                reporter.close()
        if reporter is not None and "progress" in refit.get_params(deep=False):
            self.selector_.set_params(progress=selector.get_params(deep=False)["progress"])  # the user's, not ours
        self.support_ = np.asarray(self.selector_.get_support(), dtype=bool)
        if hasattr(self.selector_, "ranking_"):
            self.ranking_ = self.selector_.ranking_
        else:  # a refit with a selector that does not rank leaves no ranking of an earlier fit
            vars(self).pop("ranking_", None)
        Xs = self.selector_.transform(X)
        if fast:  # the LDA the scores were read from, on all the data (a direct fit's lstsq is an SVD)
            Xs = np.asarray(Xs, dtype=np.float64)
            self.estimator_ = _ShrinkageLDAStatistics(Xs, y).estimator(np.arange(Xs.shape[1]))
        else:
            self.estimator_ = clone(estimator).fit(Xs, y)
        return self

    def _octaves(self, grid, route):
        """The parts of the grid scored in turn: the whole grid, or with ``rule='within'`` and the
        'auto' grid of a path or a ranking, its octaves (k up to 32, then up to 64, 128...)."""
        if not (self.rule == "within" and isinstance(self.k_grid, str) and route != "refit"):
            return [grid]
        caps = [_DENSE_AUTO]
        while caps[-1] < grid[-1]:
            caps.append(2 * caps[-1])
        parts = [grid[(grid > lo) & (grid <= hi)] for lo, hi in zip([0] + caps[:-1], caps)]
        return [part for part in parts if len(part)]

    def _by_octave(self, parts, selector, route, estimator, scorer, fast, X, y, splits, reporter, inner):
        """The folds' scores octave by octave, until the curve has flattened (``rule='within'``).

        Each training split's path is computed once up to ``k = 256`` (a forward path's steps
        grow with k: the path to ``p`` is computed, once more, only when the octaves reach past
        256); the octaves are then scored in turn on every split. Returns the ``(scores,
        seconds)`` of every split and the k scored."""
        grid = np.concatenate(parts)
        results = [(np.zeros(0), 0.0) for _ in splits]
        supports, reach, start = None, 0, 0
        for j, part in enumerate(parts):
            if part[-1] > reach:  # the splits' paths (again, further) to the next reach
                reach = int(grid[-1]) if reach else int(min(grid[-1], max(part[-1], _PATH_REACH)))
                upto = grid[grid <= reach]
                t0 = time.perf_counter()
                jobs = (delayed(_fold_supports)(selector, route, upto, X[train], y[train],
                                                report=reporter.for_fold(i + 1) if inner else None)
                        for i, (train, _) in enumerate(splits))
                supports = list(Parallel(n_jobs=self.n_jobs)(jobs))
                paths = (time.perf_counter() - t0) / len(splits)
                results = [(sc, sec + paths) for sc, sec in results]
            at = slice(start, start + len(part))
            start += len(part)
            jobs = (delayed(_score_part)(supports[i][at], estimator, scorer, fast, part, X, y, train, test,
                                         report=reporter.for_fold(i + 1) if inner else None)
                    for i, (train, test) in enumerate(splits))
            for i, (sc, sec) in enumerate(Parallel(n_jobs=self.n_jobs, return_as="generator")(jobs)):
                results[i] = (np.concatenate([results[i][0], sc]), results[i][1] + sec)
                if reporter is not None and j == 0:
                    reporter.fold_done(i + 1)
            if self._flattened(results, len(part)):
                break
        return results, grid[:start]

    def _flattened(self, results, n_last):
        """True when the last octave scored raised the best mean score by less than ``tol``."""
        if self.rule != "within" or not isinstance(self.k_grid, str):
            return False
        mean = np.mean([r[0] for r in results], axis=0)
        if len(mean) == n_last:  # the first octave: nothing to compare with
            return False
        return bool(mean[-n_last:].max() - mean[:-n_last].max() < self.tol)

    def _choose(self, results, grid, splits, route):
        """``cv_results_``, ``best_index_``, ``n_features_to_select_``... from the folds' scores."""
        scores = np.array([r[0] for r in results]).reshape(len(splits), len(grid))
        bad = np.argwhere(~np.isfinite(scores))
        if bad.size:
            i, j = bad[0]
            raise ValueError(
                f"The scorer returned {scores[i, j]} on split {i} at k={grid[j]} ({len(bad)} non-finite "
                f"score(s) in all). Check that every test fold can be scored (e.g. roc_auc needs both "
                "classes in each test fold: use a stratified splitter) or pass another scoring."
            )
        mean, std = scores.mean(axis=0), scores.std(axis=0)
        best = int(np.argmax(mean))
        if self.rule == "best":
            chosen = best
        elif self.rule == "within":
            chosen = int(np.flatnonzero(mean >= mean[best] - self.tol)[0])
        else:
            se = std[best] / np.sqrt(len(splits))
            chosen = int(np.flatnonzero(mean >= mean[best] - se)[0])
        self.cv_results_ = {
            "n_features": grid.copy(),
            "mean_test_score": mean,
            "std_test_score": std,
            "rank_test_score": rankdata(-mean, method="min").astype(np.int32),
            **{f"split{i}_test_score": scores[i] for i in range(len(splits))},
        }
        self.best_index_ = best
        self.n_features_to_select_ = int(grid[chosen])
        self.route_ = route
        self.n_splits_ = len(splits)
        self.fold_times_ = np.array([r[1] for r in results])

    def _get_support_mask(self):
        check_is_fitted(self)
        return self.support_

    @dask_rows
    def transform(self, X: ArrayLike) -> NDArray:
        """The selected features of ``X`` (as the refitted ``selector_`` transforms them).

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features), or an image stack
            ``(n_samples, h, w)`` / ``(n_samples, h, w, c)`` of the fit's ``image_shape_``. A Dask
            array stays lazy: each row chunk is transformed where it lives.

        Returns
        -------
        X_new : ndarray or dask array of shape (n_samples, n_selected)
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)  # text refused, (n, h, w[, c]) stacks flattened
        X = validate_data(self, X, dtype=None, reset=False)
        return self.selector_.transform(X)
