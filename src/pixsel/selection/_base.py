"""The path-selector base shared by :class:`SparseLDASelector` and :class:`SparsePCASelector`.

Both selectors compute greedy *paths* (one support for every ``k``) and select
``n_features_to_select`` from them, as scikit-learn's ``_BaseSparsePCA`` carries what its sparse
PCA estimators share. The base resolves ``k`` (:func:`pixsel._validation.resolve_k`), keeps, for
every ``k``, the better of the forward and backward passes (the *dual pick*, ties to the backward
pass), stores ``objective_path_``, answers :meth:`~_PathSelector.get_support_at`, and hands the
support at ``k`` to the exact solver when ``solver='exact'`` (:mod:`._exact_fit`).

Switch vocabulary
-----------------
Every pixsel estimator names its switches with one vocabulary:

``solver``
    *Which answer* is returned: ``'greedy'`` (the nested greedy path) or ``'exact'`` (the
    certified optimum of :func:`pixsel.spectral.exact_support`, started from the greedy support).
``algorithm``
    *How the same answer is computed*, as in scikit-learn (``NearestNeighbors(algorithm=...)``):
    ``'dense'`` (forms the ``p x p`` matrix) or ``'implicit'`` (works through ``X``);
    ``coding_algorithm`` / ``fit_algorithm`` of the sparse-linear-model projection are the
    scikit-learn lasso and dictionary-learning algorithms passed through.
``direction``
    The greedy pass(es): ``'forward'``, ``'backward'`` or ``'dual'`` (both, the better kept per k).
``criterion``
    The objective maximized (``'max-eig'`` / ``'trace'``; the score of :class:`ScoreSelector`).
``mode``
    How scores become a selection (``'top'`` k, weighted ``'sample'`` or ``'distinct'`` draws).

``method`` and ``strategy`` name no pixsel switch; ``method`` appears only where a SciPy or
scikit-image argument of that name is passed through (``scipy.optimize.minimize``,
``skimage.feature.local_binary_pattern``). The EP sweep of :mod:`pixsel.gp` is therefore
``ep_binary_probit(algorithm=...)`` / ``GaussianProcessProbitClassifier(ep_algorithm=...)``
(the former ``method`` / ``ep_method`` still work, with a ``FutureWarning``).
"""

from __future__ import annotations

import numbers
from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._array_api import to_numpy
from .._backend import ArrayAPISelectorMixin, resize
from .._lazy import DaskSelectorMixin
from .._progress import step_progress
from .._validation import (
    N_FEATURES_TO_SELECT, check_forced, Interval, StrOptions, check_input, check_int, get_support_image, image_stack, resolve_k,
)
from ..scores import cluster_stability_order, correlation_clusters
from ..spectral import best_objective, pick_path
from ..stats import covariance
from ._exact_fit import SOLVERS, _exact_fit_attributes

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["ImageSelectorMixin"]

ALGORITHMS = ("auto", "dense", "implicit")


#: The values of the path selectors' ``path`` parameter.
PATHS = ("auto", "full")

#: The ``_parameter_constraints`` the path selectors share (see :func:`pixsel._constraints.check_params`).
PATH_CONSTRAINTS = {
    "n_features_to_select": N_FEATURES_TO_SELECT,
    "algorithm": [StrOptions(ALGORITHMS)],
    "solver": [StrOptions(SOLVERS)],
    "time_limit": [Interval(Real, 0, None, closed="left"), None],
    "node_limit": [Interval(Integral, 0, None, closed="left"), None],
    "gap_tol": [Interval(Real, 0, None, closed="left")],
    "progress": ["boolean", callable],
    "groups": ["array-like", StrOptions(("channels",)), None],
    "patch_size": ["array-like", None],
    "stability": [Interval(Integral, 2, None, closed="left"), None],
    "stability_correlation": [Interval(Real, 0, 1, closed="right"), None],
    "random_state": ["random_state"],
    "always_select": ["array-like", None],
}

#: How to fix the path selectors' parameters (the end of their messages).
PATH_HINTS = {
    "groups": "An array holds one group id per feature.",
    "patch_size": "Pass a pair of ints (rows, columns).",
    "always_select": "Pass the indices of the forced features, e.g. always_select=[0, 5].",
    "stability_correlation": "Pass the smallest absolute correlation inside a cluster, e.g. 0.9, or None "
                             "(plain stability selection).",
}


def forward_length(n_features, k, n_classes, path, direction="forward"):
    """Where a forward pass asked for ``k`` stops (None: the whole path), by the ``path`` rule.

    ``path='full'``: the whole path. ``'auto'``: ``min(p, max(2 k, k + 10))`` steps, so that a
    fit asked for ``k`` costs ``O(p k^2)`` after the statistics (the whole path costs ``O(p^3)``,
    and on small problems ``p`` steps of interpreted loop) and
    :meth:`~_PathSelector.get_support_at` still reads the sizes around ``k``; but with two classes
    a ``direction`` that runs the backward pass too (``'backward'``, ``'dual'``, ``'cv'``) keeps the
    whole forward path, so that both passes meet at every ``k`` (the papers' dual path).

    Examples
    --------
    >>> forward_length(1024, 50, 38, "auto"), forward_length(1024, 50, 2, "auto")
    (100, 100)
    >>> forward_length(1024, 50, 2, "auto", "dual"), forward_length(1024, 50, 38, "auto", "dual")
    (None, 100)
    >>> forward_length(1024, 3, 38, "auto"), forward_length(20, 15, 38, "auto"), forward_length(1024, 3, 38, "full")
    (13, None, None)
    """
    if path == "full" or (n_classes <= 2 and direction in ("backward", "dual", "cv")):
        return None
    stop = max(2 * int(k), int(k) + 10)
    return None if stop >= n_features else stop


class _PassProgress:
    """Progress of the greedy passes of one fit: one step counter per pass (quiet when disabled).

    ``progress`` is the estimator's parameter: False (nothing), True (drawn by
    :func:`pixsel._progress.step_progress`) or a callable, called as ``progress(done, total,
    what)`` after each step of the pass ``what`` (``'forward path'``, ...), which draws nothing
    itself (the CLI renders these calls).
    """

    def __init__(self, owner, progress):
        self.owner, self.enabled, self._open = owner, bool(progress), []
        self.report = progress if callable(progress) else None

    def __call__(self, what):
        """The ``callback(done, total)`` for the pass ``what`` (None when disabled)."""
        if not self.enabled:
            return None
        if self.report is not None:
            report = self.report
            return lambda done, total: report(done, total, what)
        steps = None

        def callback(done, total):
            nonlocal steps
            if steps is None:
                steps = step_progress(total, f"{self.owner} {what}", delay=1.0, interval=1.0)
                self._open.append(steps)
            if hasattr(steps, "callback"):
                steps.callback(done, total)
            elif done > steps.n:
                steps.update(done - steps.n)

        return callback

    def close(self):
        for steps in self._open:
            steps.close()
        self._open = []


@contextmanager
def path_progress(est):
    """Context giving ``progress(what) -> callback`` for the passes of ``est.fit``."""
    bar = _PassProgress(type(est).__name__, getattr(est, "progress", False))
    try:
        yield bar
    finally:
        bar.close()


def half_samples(y, n_samples, rng):
    """Indices of a random half of the samples, drawn without replacement (stratified by ``y``).

    Every class keeps half its samples (at least one), as in the subsamples of stability
    selection (Meinshausen and Buehlmann, "Stability selection", JRSS-B, 2010); without labels
    a plain half of ``n_samples``.
    """
    if y is None:
        return np.sort(rng.choice(n_samples, max(2, n_samples // 2), replace=False))
    y = np.asarray(y)
    parts = [rng.choice(idx, max(1, len(idx) // 2), replace=False)
             for idx in (np.flatnonzero(y == c) for c in np.unique(y))]
    return np.sort(np.concatenate(parts))


def entry_ranking(path, n_features):
    """``ranking[i]``: the step at which feature ``i`` enters ``path`` (1 = first).

    A backward path's features enter in the reverse order of their removal; features a
    forward pass stopped before reaching share the rank ``len(path.order) + 1``. On a path over
    groups (``path.codes``) every feature has the rank of its group.
    """
    order = np.asarray(path.order)
    entry = order[::-1] if path.direction == "backward" else order
    codes = getattr(path, "codes", None)
    size = n_features if codes is None else int(path.n_groups)
    ranking = np.full(size, len(entry) + 1, dtype=np.intp)
    ranking[entry] = np.arange(1, len(entry) + 1)
    return ranking if codes is None else ranking[np.asarray(codes)]


class ImageSelectorMixin:
    """Image stacks in every public selector: put it first in the bases.

    ``fit`` flattens a grey stack ``(n_samples, h, w)`` or a colour stack ``(n_samples, h, w, c)``
    in C order (:func:`pixsel._validation.image_stack`, reached through
    :func:`pixsel._validation.check_input` or, in the path selectors, :meth:`_flatten_images`) and
    keeps its shape in ``image_shape_`` (None after a fit on 2-D rows); ``transform`` takes the
    stack (of that shape) or the flattened rows; ``get_support_image()`` is ``get_support()``
    reshaped to ``image_shape_``. One mechanism for every selector, so that a stack means the
    same features everywhere.
    """

    get_support_image = get_support_image

    def _flatten_images(self, X):
        """``(X_2d, image_shape)`` of a stack (``image_shape`` None for 2-D ``X``); sets nothing."""
        if not hasattr(X, "ndim"):
            X = np.asarray(X)
        return image_stack(X, type(self).__name__)

    def transform(self, X: ArrayLike) -> NDArray:
        """Reduce ``X`` to the selected features (an image stack is flattened first, C order).

        Parameters
        ----------
        X : array of shape (n_samples, n_features_in_), (n_samples, h, w) or (n_samples, h, w, c)
            A stack must have the images' shape of the fit (``image_shape_``).

        Returns
        -------
        X_r : array of shape (n_samples, n_selected_features)
        """
        return super().transform(check_input(self, X, reset=False))


class _PathSelector(ImageSelectorMixin, ArrayAPISelectorMixin, DaskSelectorMixin, SelectorMixin, BaseEstimator):
    """Selection of ``n_features_to_select`` read from greedy paths, for every ``k`` at once.

    Subclasses validate, compute their statistics and paths, then call :meth:`_set_paths` and,
    with ``solver='exact'``, :meth:`_solve_exact`. Under ``array_api_dispatch`` the paths (``p``
    indices and objectives) are host metadata and the fitted arrays go to X's device
    (:class:`pixsel._backend.ArrayAPISelectorMixin`).
    """

    _parameter_hints = PATH_HINTS

    # -- parameters ---------------------------------------------------------------------------
    @classmethod
    def _get_param_names(cls):
        """scikit-learn's parameter names (read from the signature of ``__init__``), read once per
        class: ``get_params`` runs at every fit (:func:`pixsel._constraints.check_params`) and
        every ``clone``, and ``inspect.signature`` costs more than a small fit's validation."""
        names = cls.__dict__.get("_param_names_read")
        if names is None:
            names = super()._get_param_names()
            cls._param_names_read = names  # on this class only (a subclass reads its own __init__)
        return list(names)

    def _check_conflicts(self):
        """The options that cannot run together, refused before any data is read (called by
        :func:`pixsel._constraints.check_params` after the parameters' own constraints)."""
        owner = type(self).__name__
        grouped = (self.groups is not None and not isinstance(self.groups, str)) or self.patch_size is not None
        if self.stability_correlation is not None and self.stability is None:
            raise ValueError(f"{owner}: stability_correlation pools the counts of stability selection; pass "
                             "stability=N (e.g. 20) with it, or stability_correlation=None.")
        if self.stability is not None:
            if self.solver == "exact":
                raise ValueError(f"{owner}: stability selection reads greedy paths; use solver='greedy' "
                                 "with stability, or stability=None with solver='exact'.")
            if grouped:
                raise ValueError(f"{owner}: stability counts single features; use it without groups, "
                                 "patch_size or a colour image stack (flatten X to (n_samples, n_features)).")
        if self.always_select is not None and np.asarray(self.always_select).size:
            if grouped:
                raise ValueError(f"{owner}: always_select forces single features; use it without groups, "
                                 "patch_size or a colour image stack (flatten X to (n_samples, n_features)).")
            if self.stability is not None:
                raise ValueError(f"{owner}: always_select cannot be combined with stability (the forced features "
                                 "would be counted in every resample); use stability=None.")
            k, n_forced = self.n_features_to_select, np.unique(np.asarray(self.always_select)).size
            if isinstance(k, numbers.Integral) and 1 <= k < n_forced:  # a fraction is checked on the data
                raise ValueError(f"{owner}: n_features_to_select={k} is smaller than the {n_forced} features of "
                                 f"always_select (k counts the forced features); ask for at least {n_forced} "
                                 "features or force fewer.")
        if self.algorithm == "implicit":
            self._check_implicit(owner)

    def _check_implicit(self, owner):
        """What ``algorithm='implicit'`` cannot run (given, or chosen by ``'auto'`` on the data)."""
        if self.stability is not None:
            raise ValueError(f"{owner}: stability needs algorithm='dense' (the resampled paths are "
                             "dense fits); pass algorithm='dense' or stability=None.")
        if self.always_select is not None and np.asarray(self.always_select).size:
            raise ValueError(f"{owner}: always_select needs algorithm='dense' (the forced features condition the "
                             "p x p statistics); pass algorithm='dense'.")

    def _resolve_k(self, n_features):
        return resolve_k(self.n_features_to_select, n_features, type(self).__name__, cap=True)

    def _sized_route(self, route, X, *, algorithm=None, groups=False, **sizes):
        """The route of ``route``'s data with the sizes known (``algorithm='auto'`` resolved by
        the route table, :func:`pixsel._routes.choose`); ``algorithm`` overrides the parameter
        (groups of features run on the dense statistics); ``forward_steps`` among the sizes: the
        fit runs a forward pass of that many steps alone (:func:`pixsel._routes.implicit_pays`);
        ``groups``: the fit's paths run over groups of features (their compiled rule)."""
        n, p = X.shape
        algorithm = self.algorithm if algorithm is None else algorithm
        # the compiled rule of the search the fit runs: the exact search's, or that of the paths over groups
        search = "exact" if getattr(self, "solver", None) == "exact" else ("groups" if groups else None)
        return resize(route, n_samples=int(n), n_features=int(p), algorithm=algorithm, search=search, **sizes)

    def _settle_route(self, ran):
        """``route_`` as the fit ran it: a ``'compiled'`` route whose greedy search ran no Numba loop
        (its steps have none, e.g. the forward pass of the trace criterion) is reported as
        ``'numpy'``, its reason saying so; not with ``solver='exact'``, whose search has only a
        compiled engine. A ``'numpy'`` route whose search ran a Numba loop all the same (inside
        :func:`pixsel.config.compiled_kernels`, which overrides the route) is reported as
        ``'compiled'``. ``ran``: the fit's :func:`pixsel._routes.record_compiled` record."""
        if self.route_ == "compiled" and not ran[0] and self.solver != "exact":
            self.route_ = "numpy"
            self.route_reason_ = (f"{self.route_reason_} where the search has them; this one has none, so "
                                  "its steps ran as NumPy and BLAS products")
        elif self.route_ == "numpy" and ran[0]:
            self.route_ = "compiled"
            self.route_reason_ = (f"{self.route_reason_}; but the compiled kernels were forced "
                                  "(pixsel.config.compiled_kernels(True)), and they ran")

    def _resolve_forced(self, n_features, k, owner, *, grouping=None, n_resamples=0, implicit=False):
        """``always_select_`` (sorted indices, empty for None), checked against ``k`` and what the
        data decided: the groups of a colour stack, the implicit algorithm chosen by ``'auto'``
        (the options themselves were checked by :meth:`_check_conflicts`)."""
        F = check_forced(self.always_select, n_features, owner=owner)
        self.always_select_ = F
        if not len(F):
            return F
        if grouping is not None:
            raise ValueError(f"{owner}: always_select forces single features; use it without groups, patch_size "
                             "or a colour image stack (flatten X to (n_samples, n_features)).")
        if implicit:
            raise ValueError(f"{owner}: always_select needs algorithm='dense' (the forced features condition the "
                             "p x p statistics); pass algorithm='dense'.")
        if k < len(F):
            raise ValueError(f"{owner}: n_features_to_select={k} is smaller than the {len(F)} features of "
                             f"always_select (k counts the forced features); ask for at least {len(F)} "
                             "features or force fewer.")
        return F

    # -- fitted paths -------------------------------------------------------------------------
    def _set_paths(self, forward, backward, k, direction):
        """Store the paths, ``objective_path_`` and the greedy selection at ``k``."""
        self.forward_path_, self.backward_path_ = forward, backward
        self.direction_ = direction
        self.objective_path_ = best_objective(forward, backward)
        self.n_features_to_select_ = k
        self.support_ = self._mask_at(k)
        self.ranking_ = entry_ranking(self._ranking_path(k), self.n_features_in_)

    def _ranking_path(self, k):
        """The path ``ranking_`` is read from: the one picked at ``k``, or the backward path when
        its support at ``k`` is the same set (the backward path orders every feature, and a tie
        of the two objectives at ``k`` flipped by rounding then changes nothing)."""
        best, backward = self._best_path(k), self.backward_path_
        if best is not backward and backward is not None and len(backward.objective) >= k:
            if np.array_equal(np.sort(backward.support(k)), np.sort(best.support(k))):
                return backward
        return best

    # -- stability --------------------------------------------------------------------------
    def _check_stability(self, owner):
        """The number of resampled paths (0 when ``stability`` is None; checked by :meth:`_check_conflicts`)."""
        return 0 if self.stability is None else int(self.stability)

    def _stabilize(self, X, y, k, n_resamples, route):
        """``selection_frequencies_`` over ``n_resamples`` half-sample paths; ``support_`` becomes
        the ``k`` most frequent features (ties to the earlier entry in the full-data path), or,
        with ``stability_correlation``, the ``k`` most frequent clusters of correlated features
        (:func:`pixsel.scores.cluster_stability_order`).

        Returns True when the support was replaced (the caller recomputes what depends on it).
        """
        for name in ("stability_clusters_", "cluster_frequencies_"):  # none left from an earlier fit
            self.__dict__.pop(name, None)
        if not n_resamples:
            return False
        if not isinstance(X, np.ndarray):
            raise ValueError(
                f"{type(self).__name__}: stability selection resamples rows of a NumPy array; got "
                f"{type(X).__module__}.{type(X).__name__}. Convert X with np.asarray (or use stability=None)."
            )
        rng = check_random_state(self.random_state)
        sub = clone(self).set_params(stability=None, progress=False, n_features_to_select=k, **self._resample_params())
        threshold = self.stability_correlation
        if threshold is not None:
            sub.set_params(stability_correlation=None)
        supports = np.zeros((n_resamples, X.shape[1]), dtype=bool)
        for r in range(n_resamples):
            idx = half_samples(y, X.shape[0], rng)
            fitted = sub.fit(X[idx], None if y is None else np.asarray(y)[idx])
            supports[r] = np.asarray(to_numpy(fitted.support_), dtype=bool)
        if threshold is None:
            freq = supports.sum(axis=0) / n_resamples
            order = np.lexsort((self.ranking_, -freq))  # most frequent first, then earlier entry
        else:  # clusters of the full data's correlations pool their members' counts
            labels = correlation_clusters(covariance(X), threshold)
            order, freq, self.cluster_frequencies_ = cluster_stability_order(supports, labels, self.ranking_)
            self.stability_clusters_ = labels
        support = np.zeros(X.shape[1], dtype=bool)
        support[order[:k]] = True
        self.selection_frequencies_ = freq
        self.scores_ = freq
        self.support_ = support
        return True

    def _resample_params(self):
        """Parameters the resampled fits of ``stability`` override (a choice already made in ``fit``)."""
        return {}

    def _best_path(self, k):
        return pick_path(self.forward_path_, self.backward_path_, k)

    def _mask_at(self, k):
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self._best_path(k).support(k)] = True
        return mask

    def _solve_exact(self, A, B, k, *, criterion="max-eig", route=None):
        """Replace ``support_`` by the certified optimum at ``k`` (``status_``, ``gap_``...).

        The search is branchy host work: device statistics are brought to the host once. ``route``
        is the fit's (the search completes it instead of asking the route table again)."""
        self.support_ = _exact_fit_attributes(
            self, A, B, k, criterion=criterion, initial=np.flatnonzero(to_numpy(self.support_)), route=route
        )
        return self.support_

    def get_support_at(self, k: int, indices: bool = False) -> NDArray:
        """The selection for any ``k`` read from the fitted path(s), without refitting.

        At ``k = n_features_to_select_`` this is the fitted ``support_`` (the certified or refined
        one when asked for); ``k`` can go up to ``len(objective_path_)``: ``n_features_in_``, or
        where the forward pass stopped when only a forward pass was run (``n_features_to_select_``
        with the implicit algorithm or a beam; ``max(2 k, k + 10)`` otherwise, unless the
        selector's ``path='full'``).

        With ``always_select``, every support contains the forced features and ``k`` (which
        counts them) must be at least their number.

        Parameters
        ----------
        k : int in [max(1, len(always_select_)), len(objective_path_)]
        indices : bool, default=False
            Return sorted indices instead of a boolean mask.

        Returns
        -------
        ndarray of shape (n_features_in_,) of bool, or ndarray of shape (k,) of int
        """
        check_is_fitted(self)
        forced = int(getattr(self, "always_select_", np.zeros(0)).shape[0])  # on X's device after a dispatched fit
        if isinstance(k, numbers.Integral) and not isinstance(k, bool) and 1 <= k < forced:
            raise ValueError(f"{type(self).__name__}: every support contains the {forced} features of "
                             f"always_select (k counts them); ask for k >= {forced}, not {k}.")
        computed = int(self.objective_path_.shape[0])
        total = int(getattr(self, "n_groups_", self.n_features_in_))  # the candidates: features or groups
        if isinstance(k, numbers.Integral) and not isinstance(k, bool) and computed < k <= total:
            how = (f"fit with path='full' for every k up to {total}" if getattr(self, "path", None) == "auto"
                   else f"refit with n_features_to_select={k}")
            raise ValueError(f"{type(self).__name__}: the path of this fit stopped at k = {computed}; ask for "
                             f"k <= {computed}, or {how}.")
        k = check_int(k, "k", low=1, high=computed, owner=type(self).__name__)
        mask = to_numpy(self.support_).copy() if k == self.n_features_to_select_ else self._mask_at(k)
        return np.flatnonzero(mask) if indices else mask
