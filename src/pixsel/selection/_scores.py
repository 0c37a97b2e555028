"""Score-based selectors: subspace scores and the classical baselines, by top score or sampling."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._array_api import get_namespace, to_numpy
from .._backend import (
    ArrayAPISelectorMixin,
    as_array,
    check_chunks_finite,
    fit_route,
    refuse,
    scale_columns,
    to_route,
    validate_fit,
)
from .._lazy import DaskSelectorMixin
from .._validation import N_FEATURES_TO_SELECT, Interval, StrOptions, check_int, check_params, resolve_k
from ..scores import (
    SCORES,
    fisher_score,
    importance,
    laplacian_score,
    sample_distinct_features,
    sample_features,
    subspace_scores,
    supervised_laplacian_score,
    top_features,
    uniform_score,
    variance_score,
)
from ._base import ImageSelectorMixin

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["SubspaceScoreSelector", "ScoreSelector"]

_MODES = ("top", "sample", "distinct")


class _ScoreSelectorBase(ImageSelectorMixin, ArrayAPISelectorMixin, DaskSelectorMixin, SelectorMixin, BaseEstimator):
    """Shared validation, selection by top score or by sampling, and the rescaled transform."""

    def _validate_X(self, X, y=None):
        """``(route, X, y)``: X (and y) validated on the route of the scores family (under
        ``array_api_dispatch`` they stay in X's library and on its device)."""
        route = fit_route("scores", X, y)
        X, y = validate_fit(self, route, X, *([] if y is None else [y]), y_to_host=False,
                            dask_float=True, as_float=True)
        return route, X, y

    def _select(self, imp, k, rng, route):
        """Set support_, ranking_, weights_, draw_counts_, probabilities_ from the importances.

        The selection itself is a sort or a draw over ``p`` numbers: done on the host, the
        importances brought back once; the fitted arrays go back to X's device (``get_support``
        returns NumPy booleans, as scikit-learn's selectors do)."""
        imp = to_numpy(imp, np.float64)
        p = len(imp)
        if self.mode == "sample":
            idx, counts, weights, prob = sample_features(imp, k, rng)
        else:  # k distinct features, unscaled
            idx, prob = (top_features(imp, k), None) if self.mode == "top" else sample_distinct_features(imp, k, rng)
            counts, weights = np.ones(len(idx), dtype=np.int64), np.ones(len(idx))
        mask = np.zeros(p, dtype=bool)
        mask[idx] = True
        ranking = np.empty(p, dtype=np.intp)  # 1 = highest importance, ties to the lowest index (top_features' rule)
        ranking[np.argsort(-imp, kind="stable")] = np.arange(1, p + 1)
        self.support_ = to_route(route, mask)  # on X's device; get_support() gives NumPy
        self.ranking_ = to_route(route, ranking)
        self.weights_ = to_route(route, weights)
        self.draw_counts_ = to_route(route, counts)
        self.probabilities_ = to_route(route, prob)
        self.n_features_to_select_ = k

    def transform(self, X: ArrayLike) -> NDArray:
        """Keep the selected features; in ``mode='sample'`` also rescale them.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features), or an image stack
            ``(n_samples, h, w)`` / ``(n_samples, h, w, c)`` of the fit's ``image_shape_``.

        Returns
        -------
        X_new : array of shape (n_samples, n_selected)
            The selected columns in increasing feature order. With ``mode='sample'`` a feature
            drawn several times appears **once**, multiplied by ``weights_`` =
            ``sqrt(draw_counts_ / (c p_i))``, so ``n_selected`` (``support_.sum()``) can be
            smaller than ``n_features_to_select`` and ``X_new X_new^T`` equals the sketch
            ``A S S^T A^T`` of all ``c`` draws exactly; ``draw_counts_`` says how often each
            column was drawn. With ``mode='top'`` or ``'distinct'`` the columns are returned
            unscaled.
        """
        out = super().transform(X)  # a Dask array stays lazy (DaskSelectorMixin)
        if self.mode == "sample":
            out = scale_columns(out, self.weights_)
        return out

    def inverse_transform(self, X: ArrayLike) -> NDArray:
        """Put the (unscaled) selected columns back in place; zeros elsewhere."""
        check_is_fitted(self)
        get_namespace(X, self.weights_, names=["X", "weights_"])  # one library, one device
        if self.mode == "sample":
            X = as_array(X) / self.weights_
        return super().inverse_transform(as_array(X))  # in X's library (ArrayAPISelectorMixin)


class SubspaceScoreSelector(_ScoreSelectorBase):
    """Unsupervised selection by subspace scores ``l_i + gamma r_i`` (Musco and Musco).

    Each feature is scored by its rank-``m`` leverage ``l_i = ||V_m[i, :]||^2`` plus ``gamma``
    times its residual variance ``r_i`` outside the top ``m`` principal directions of the
    column-centred data (see :mod:`pixsel.scores`). The scores then choose the features in one
    of three ways:

    * ``mode='distinct'`` (the default): ``n_features_to_select`` distinct features drawn without
      replacement, each draw with probability proportional to the score among the features not
      drawn yet; unscaled. High scores are favoured without taking only the highest, which on
      images are clumps of neighbouring pixels carrying nearly the same information.
    * ``mode='sample'``: ``c = n_features_to_select`` i.i.d. draws with probability ``p_i = v_i /
      sum(v)``, rescaled by ``1 / sqrt(c p_i)``, which keeps ``A S S^T A^T`` equal to ``A A^T``
      in expectation and makes the selection provably good for k-means with
      ``gamma='theory'`` (a draw may repeat a feature, so fewer than ``c`` columns come out).
    * ``mode='top'``: the ``n_features_to_select`` highest scores (ties to the lowest index), the
      rule of the paper's face experiments.

    ``'distinct'`` is the default because it is the best of the three on the documentation's
    quality benchmark (k-means on the selected pixels) and, with ``'sample'``, far ahead of
    ``'top'`` on Extended Yale B faces (1-NN), where the top scores fall below uniformly random
    pixels: see the Quality page and the subspace top-score finding of the documentation.

    Parameters
    ----------
    n_features_to_select : int or float, default=10
        ``mode='distinct'`` or ``'top'``: number of features; ``mode='sample'``: number of
        draws ``c``. An int in
        ``[1, n_features]`` or a float in ``(0, 1]`` (fraction of the features).
    rank : int, default=10
        ``m`` >= 1; capped to ``min(n_samples, n_features) - 1`` (at full rank every score is
        the same), the value used is ``rank_``. For ``gamma='theory'`` use
        ``rank = 2 * n_clusters`` (pixsel takes ``k = rank // 2``).
    gamma : {'balanced', 'theory'} or float, default='balanced'
        ``'balanced'``: ``sum l = gamma sum r`` (the paper's face-recognition setting);
        ``'theory'``: ``gamma = k / sum_{i >= k} sigma_i^2`` (the k-means guarantee); or a
        number ``>= 0``.
    mode : {'distinct', 'sample', 'top'}, default='distinct'
        How the scores choose (see above). ``'distinct'`` draws the features without replacement
        (:func:`pixsel.scores.sample_distinct_features`): exactly ``n_features_to_select``
        distinct features, favouring the high scores without taking only the highest; it needs
        that many features with a positive score (constant pixels never are). The draws depend
        on ``random_state``: fix it for a repeatable selection. ``'top'`` is deterministic.

        .. versionchanged:: 0.2
           The default was ``'top'``.
    center : bool, default=True
        Score the centred data (implicitly; the data are never copied).
    n_iter : int, default=4
        Block Krylov steps of the SVD.
    random_state : int, RandomState instance or None, default=None
        Seeds the Krylov start block and the draws.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Subspace scores (higher is better).
    leverage_, residual_ : ndarray of shape (n_features,)
    gamma_ : float
    rank_ : int
        The rank used: ``rank`` capped to ``min(n_samples, n_features) - 1``.
    singular_values_ : ndarray of shape (rank_,)
        Top singular values of the centred data.
    components_ : ndarray of shape (rank, n_features)
        Top right singular vectors (rows).
    support_ : ndarray of shape (n_features,) of bool
    ranking_ : ndarray of shape (n_features,) of int
        ``ranking_[i]``: the place of feature ``i`` in the order of decreasing score (1 = the
        highest; ties to the lower index). With ``mode='top'`` the support is ``ranking_ <=
        n_features_to_select_``; the sampling modes draw by the scores instead.
    weights_ : ndarray of shape (n_selected,)
        Per selected feature (increasing index), the factor ``transform`` applies: ones in
        ``'top'`` and ``'distinct'`` modes, ``sqrt(draw_counts_ / (c p_i))`` in ``'sample'`` mode.
    draw_counts_ : ndarray of shape (n_selected,)
        How many of the ``c`` draws hit each selected feature (ones in ``'top'`` and ``'distinct'`` modes).
    probabilities_ : ndarray of shape (n_features,) or None
        Sampling probabilities (the first draw's in ``'distinct'`` mode; None in ``'top'`` mode).
    n_features_to_select_ : int
    n_iter_ : int
        Krylov steps actually performed.
    n_features_in_ : int
    image_shape_ : tuple or None
        ``(h, w)`` or ``(h, w, c)`` when ``X`` was an image stack (flattened in C order: on a
        colour stack every channel value is a feature; ``get_support_image()`` gives the mask in
        this shape); None after a fit on 2-D rows.

    Notes
    -----
    Array API: with ``sklearn.set_config(array_api_dispatch=True)`` a PyTorch, CuPy or
    array-api-strict ``X`` is scored on its own device (the statistics, the Krylov SVD and the
    scores run there; float32 stays float32 in the passes over the data) and every fitted array
    stays in X's library and on its device; ``get_support()`` returns NumPy booleans, as
    scikit-learn's selectors do. Without dispatch, such an ``X`` is converted to NumPy.

    References
    ----------
    * C. Musco and C. Musco, "Subspace scores for feature selection in computer vision", manuscript,
      Massachusetts Institute of Technology.
    * M. B. Cohen, S. Elder, C. Musco, C. Musco and M. Persu, "Dimensionality reduction for k-means
      clustering and low rank approximation", ACM Symposium on Theory of Computing (STOC), 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.selection import SubspaceScoreSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 20)) * np.linspace(0.1, 2, 20)
    >>> sel = SubspaceScoreSelector(5, rank=3, random_state=0).fit(X)
    >>> sel.transform(X).shape
    (100, 5)
    >>> round(float(sel.leverage_.sum()), 6)
    3.0
    """

    _parameter_constraints: dict = {
        "n_features_to_select": N_FEATURES_TO_SELECT,
        "rank": [Interval(Integral, 1, None, closed="left")],
        "gamma": [StrOptions(("balanced", "theory")), Interval(Real, 0, None, closed="left")],
        "mode": [StrOptions(_MODES)],
        "center": ["boolean"],
        "n_iter": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_features_to_select: int | float = 10,
        *,
        rank: int = 10,
        gamma: Literal["balanced", "theory"] | float = "balanced",
        mode: Literal["top", "sample", "distinct"] = "distinct",
        center: bool = True,
        n_iter: int = 4,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.rank = rank
        self.gamma = gamma
        self.mode = mode
        self.center = center
        self.n_iter = n_iter
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Score every feature and select.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features), (n_samples, h, w) or (n_samples, h, w, c)
            uint8/integer (converted to float64), float32 or float64; an image stack is flattened
            in C order. Never modified.
        y : ignored

        Returns
        -------
        self
        """
        owner = check_params(self)
        n_iter = int(self.n_iter)
        route, X, _ = self._validate_X(X)
        n, p = X.shape
        limit = min(n, p) - 1
        rank = int(self.rank)
        if limit < 1:
            raise ValueError(
                f"{owner} needs at least 2 samples and 2 features: X has {n} sample(s) and {p} feature(s), "
                "so the best rank-1 subspace is all of X, every residual is zero and every leverage "
                "score is 1. Give more features or samples."
            )
        # capped to the data (as scikit-learn's PCA caps n_components), recorded in rank_
        rank = min(rank, limit)
        k = resolve_k(self.n_features_to_select, p, owner, cap=True)
        rng = check_random_state(self.random_state)
        self.rank_ = rank
        res = subspace_scores(X, rank, gamma=self.gamma, center=self.center,
                              n_iter=n_iter, random_state=rng)
        if not np.any(to_numpy(res.scores) > 0):
            raise ValueError(
                "Every feature of X is constant, so every subspace score is zero; remove constant "
                "features (sklearn.feature_selection.VarianceThreshold) or check the data."
            )
        self.scores_ = res.scores  # on X's device: the kernels follow their input
        self.leverage_ = res.leverage
        self.residual_ = res.residual
        self.gamma_ = float(res.gamma)
        self.singular_values_ = res.singular_values
        self.components_ = res.svd.components
        self.n_iter_ = res.svd.n_iter
        self._select(res.scores, k, rng, route)
        return self


_SCORE_NAMES = tuple(SCORES)
#: the ScoreSelector method that computes each score
_SCORE_STEPS = {"uniform": "_uniform", "variance": "_variance", "laplacian": "_laplacian",
                "supervised_laplacian": "_supervised_laplacian", "fisher": "_fisher"}


class ScoreSelector(_ScoreSelectorBase):
    """Selection by a classical feature score: uniform, variance, Laplacian, supervised
    Laplacian or Fisher.

    Scores where lower is better (the Laplacian scores ``L_r``) are turned into the
    non-negative importance ``max(0, 1 - L_r)`` (see :func:`pixsel.scores.importance`); ranking
    (``mode='top'``) and sampling (``mode='sample'`` or ``'distinct'``, as in
    :class:`SubspaceScoreSelector`) use
    the importance, so 'top' always means 'best'.

    Parameters
    ----------
    n_features_to_select : int or float, default=10
        ``k``, first like in every other selector (an int in ``[1, n_features]`` or a fraction
        in ``(0, 1]``).
    criterion : {'uniform', 'variance', 'laplacian', 'supervised_laplacian', 'fisher'}, \
default='variance'
        The score, keyword-only. (Not called ``score``: that name is scikit-learn's scoring
        method.) 'supervised_laplacian' and 'fisher' need ``y``. 'laplacian' builds a sparse kNN
        heat-kernel graph and needs NumPy input. 'uniform' with ``mode='top'`` keeps the first
        features (all tie).
    mode : {'top', 'sample', 'distinct'}, default='top'
    n_neighbors : int, default=5
        Neighbours of the Laplacian-score graph.
    heat_width : 'auto' or float, default='auto'
        Heat-kernel width ``t`` of the graph (``'auto'``: mean squared kNN distance).
    random_state : int, RandomState instance or None, default=None
        Seeds the draws.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The raw score (its direction in ``higher_is_better_``).
    importances_ : ndarray of shape (n_features,)
        Non-negative, higher is better.
    higher_is_better_ : bool
    support_, ranking_, weights_, draw_counts_, probabilities_, n_features_to_select_, n_features_in_, \
image_shape_
        As in :class:`SubspaceScoreSelector` (``ranking_`` orders the importances).

    Notes
    -----
    Array API: under ``array_api_dispatch`` the criteria 'uniform', 'variance', 'fisher' and
    'supervised_laplacian' run on X's library and device, as :class:`SubspaceScoreSelector`
    does; 'laplacian' (a scikit-learn neighbour graph) needs NumPy and says so.

    References
    ----------
    * X. He, D. Cai and P. Niyogi, "Laplacian score for feature selection", Advances in Neural
      Information Processing Systems 18 (NIPS), 2005.
    * R. O. Duda, P. E. Hart and D. G. Stork, "Pattern classification", 2nd edition, Wiley, 2001
      (the Fisher criterion).
    * C. Musco and C. Musco, "Subspace scores for feature selection in computer vision", manuscript,
      Massachusetts Institute of Technology.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.selection import ScoreSelector
    >>> X = np.array([[0.0, 1.0, 5.0], [1.0, 1.0, 0.0], [2.0, 1.0, 5.0], [3.0, 1.0, 0.0]])
    >>> ScoreSelector(1, criterion="fisher").fit(X, [0, 1, 0, 1]).get_support(indices=True).tolist()
    [2]
    >>> ScoreSelector(1, criterion="variance").fit(X).get_support(indices=True).tolist()
    [2]
    """

    _parameter_constraints: dict = {
        "n_features_to_select": N_FEATURES_TO_SELECT,
        "criterion": [StrOptions(_SCORE_NAMES)],
        "mode": [StrOptions(_MODES)],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "heat_width": [StrOptions(("auto",)), Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_features_to_select: int | float = 10,
        *,
        criterion: Literal["uniform", "variance", "laplacian", "supervised_laplacian", "fisher"] = "variance",
        mode: Literal["top", "sample", "distinct"] = "top",
        n_neighbors: int = 5,
        heat_width: str = "auto",
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.criterion = criterion
        self.mode = mode
        self.n_neighbors = n_neighbors
        self.heat_width = heat_width
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Score every feature and select.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features), (n_samples, h, w) or (n_samples, h, w, c)
            An image stack is flattened in C order. Never modified.
        y : array-like of shape (n_samples,), default=None
            Labels; required by 'supervised_laplacian' and 'fisher'.

        Returns
        -------
        self
        """
        owner = type(self).__name__
        if isinstance(self.n_features_to_select, str):
            raise TypeError(
                f"The first parameter of {owner} is n_features_to_select (as in every selector); got "
                f"{self.n_features_to_select!r}. Pass the score by keyword: "
                f"{owner}(k, criterion={self.n_features_to_select!r})."
            )
        check_params(self)
        spec = SCORES[self.criterion]
        if spec.supervised and y is None:
            raise ValueError(
                f"criterion={self.criterion!r} is supervised: pass the labels, {owner}(...).fit(X, y)."
            )
        route, X, y = self._validate_X(X, y if spec.supervised else None)
        n, p = X.shape
        k = resolve_k(self.n_features_to_select, p, owner, cap=True)
        if spec.supervised:
            if len(np.unique(to_numpy(y))) < 2:
                raise ValueError(f"criterion={self.criterion!r} needs at least 2 classes in y; got 1.")
        s = getattr(self, _SCORE_STEPS[self.criterion])(X, y, route, owner)
        imp = importance(self.criterion, s)
        self.scores_ = s
        self.importances_ = imp
        self.higher_is_better_ = spec.higher_is_better
        rng = check_random_state(self.random_state)
        self._select(imp, k, rng, route)
        return self

    # one method per score: ``_SCORE_STEPS`` maps the public names to them (the one place that does)
    def _uniform(self, X, y, route, owner):
        check_chunks_finite(route, X)  # nothing else reads a lazy X: a NaN located at its row
        return uniform_score(X)

    def _variance(self, X, y, route, owner):
        return variance_score(X)

    def _laplacian(self, X, y, route, owner):
        refuse(
            route,
            foreign=(
                "criterion='laplacian' builds a nearest-neighbour graph with scikit-learn and "
                f"runs on NumPy only; X is a {type(X).__module__.split('.')[0]} array. Pass "
                "NumPy data (or turn array_api_dispatch off), or use 'supervised_laplacian', "
                "'fisher' or 'variance', which run on any array library."
            ),
            dask=(
                "criterion='laplacian' needs the neighbour graph of all samples: pass a NumPy "
                "array (X.compute()), or use 'supervised_laplacian', which runs on Dask."
            ),
        )
        nn = check_int(self.n_neighbors, "n_neighbors", low=1, high=X.shape[0] - 1, owner=owner)  # at most n - 1
        t = self.heat_width if isinstance(self.heat_width, str) else float(self.heat_width)
        return laplacian_score(X, nn, t=t)

    def _supervised_laplacian(self, X, y, route, owner):
        return supervised_laplacian_score(X, y)

    def _fisher(self, X, y, route, owner):
        return fisher_score(X, y)
