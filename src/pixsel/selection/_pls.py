"""Sparse PLS selectors: cardinal SPLS (exactly n features) and SPLS-eta (threshold eta).

Both select features for a continuous response (one or several columns) or for class labels,
which are encoded one-hot and centred (a PLS-DA target). The fitted SIMPLS model on the selected
features is kept, so the selector also predicts: :meth:`predict` takes all ``n_features_in_``
columns and uses only the selected ones.

Array API: under ``sklearn.set_config(array_api_dispatch=True)`` an ``X`` of PyTorch, CuPy or
array-api-strict is fitted on its device (:mod:`pixsel.pls._spls`, in X's float dtype); the
target is encoded on the host and sent there once; every fitted array is on X's device
(``classes_`` excepted); ``get_support`` returns NumPy booleans.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from .._backend import (
    ArrayAPISelectorMixin,
    copy_transposed,
    count_varying,
    fit_route,
    flatten,
    labels_of_scores,
    predict_on_support,
    store_on_route,
    to_route,
    validate_fit,
)
from .._lazy import DaskSelectorMixin
from .._validation import N_FEATURES_TO_SELECT, Interval, StrOptions, check_input, check_params, resolve_k
from ..pls import cardinal_spls, spls_eta
from ._base import ImageSelectorMixin

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["CardinalSPLSSelector", "SPLSSelector"]

_TARGETS = ("auto", "continuous", "classes")


def _encode_target(y, target, owner):
    """Resolve ``target`` and return ``(target_, Y, classes)``; ``Y`` is 2-D float64."""
    y = np.asarray(y)
    if target == "auto":
        kind = type_of_target(y, input_name="y", raise_unknown=True)
        target = "classes" if kind in ("binary", "multiclass") else "continuous"
    if target == "classes":
        if y.ndim != 1 and not (y.ndim == 2 and y.shape[1] == 1):
            raise ValueError(
                f"{owner} with target='classes' needs 1-D class labels; got y of shape {y.shape}. "
                "Pass target='continuous' for several continuous responses."
            )
        y = y.ravel()
        classes, inv = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(
                f"{owner}: y has a single class ({classes[0]!r}); selection needs at least 2 classes."
            )
        Y = np.zeros((len(y), len(classes)))
        Y[np.arange(len(y)), inv] = 1.0
        return "classes", Y, classes
    if y.dtype.kind not in "uifb":
        raise ValueError(
            f"{owner} with target='continuous' needs numeric y; got dtype {y.dtype}. Pass "
            "target='classes' for class labels."
        )
    Y = y.astype(np.float64).reshape(len(y), -1)
    if not np.all(np.isfinite(Y)):
        raise ValueError(f"{owner}: y contains NaN or infinite values; impute or drop those samples.")
    return "continuous", Y, None


class _BaseSPLS(ImageSelectorMixin, ArrayAPISelectorMixin, DaskSelectorMixin, SelectorMixin, BaseEstimator):
    """Validation, target encoding, fitted attributes and prediction shared by both selectors."""

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "target": [StrOptions(_TARGETS)],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def _validate(self, X, y):
        owner = type(self).__name__
        route = fit_route("pls", X, y)
        X, y = validate_fit(self, route, X, y, dtype=[np.float64, np.float32], multi_output=True,
                            y_numeric=False)
        n, p = X.shape
        # capped to the data, min(n_samples - 1, n_features), as recorded in n_iterations_
        K = min(int(self.n_components), n - 1, p)
        target, Y, classes = _encode_target(y, self.target, owner)
        self.target_ = target
        self._y_ndim = np.ndim(y)
        if classes is not None:
            self.classes_ = classes
        Y = to_route(route, Y, dtype=X.dtype)  # the target encoded on the host, sent once
        return X, Y, K, route

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Select features (by the rule the class describes) and fit SIMPLS on them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), (n_samples, h, w) or (n_samples, h, w, c)
            An image stack is flattened in C order (every channel value a feature). Never modified.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Class labels or continuous responses (see ``target``).

        Returns
        -------
        self
        """
        owner = check_params(self)
        X, Y, K, route = self._validate(X, y)
        res = self._select(X, Y, K, owner, route)
        self.n_iterations_ = K
        return self._store(res, X.shape[1], route)

    def _select(self, X, Y, K, owner, route=None):
        """Check the subclass's own parameters, run its kernel on ``X, Y`` with ``K`` components."""
        raise NotImplementedError

    def _store(self, res, p, route):
        owner = type(self).__name__
        if not np.all(res.converged):
            bad = np.flatnonzero(~res.converged) + 1
            warnings.warn(
                f"{owner}: the alternating c/w optimization did not converge within "
                f"max_iter={self.max_iter} for component(s) {bad.tolist()}; increase max_iter or tol.",
                ConvergenceWarning,
                stacklevel=3,
            )
        mask = np.zeros(p, dtype=bool)
        mask[res.support] = True
        self.support_ = mask
        self.n_features_selected_ = int(len(res.support))
        self.selection_history_ = [h.copy() for h in res.history]
        added = np.zeros(p, dtype=np.int64)
        for k, h in enumerate(res.history, start=1):
            added[h] = k
        self.iteration_added_ = added
        self.coef_ = copy_transposed(res.coef)
        self.intercept_ = res.y_mean - res.x_mean @ res.coef
        self.x_rotations_ = res.model.x_rotations
        self.x_loadings_ = res.model.x_loadings
        self.y_loadings_ = res.model.y_loadings
        self.n_components_ = int(res.model.n_components)
        self.n_iter_per_component_ = res.n_iter.copy()
        self.n_iter_ = int(res.n_iter.max())
        store_on_route(self, route)
        return self

    def decision_function(self, X: ArrayLike) -> NDArray:
        """PLS predictions of the (one-hot, for classes) response, from the selected features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_), or an image stack of the fit's shape
            All original features; only the selected ones are used.

        Returns
        -------
        ndarray of shape (n_samples, n_targets)
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)  # an image stack is flattened as in fit
        return predict_on_support(self, X, self.coef_, self.intercept_)

    def predict(self, X: ArrayLike) -> NDArray:
        """Predict with the SIMPLS model fitted on the selected features.

        Class labels (the largest one-hot score) when ``target_ == 'classes'``, otherwise the
        continuous response (1-D when ``y`` was 1-D).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_), or an image stack of the fit's shape

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)  # an image stack is flattened as in fit
        scores = predict_on_support(self, X, self.coef_, self.intercept_, "predict")
        if self.target_ == "classes":
            return labels_of_scores(scores, self.classes_)  # labels are host metadata
        return flatten(scores) if self._y_ndim == 1 else scores


_COMMON_PARAMS_DOC = """
    n_components : int, default=5
        Number of latent components ``K`` (iterations of the algorithm); capped to
        ``min(n_samples - 1, n_features)``, the value used is ``n_iterations_``. The paper finds ``K`` between
        3 and 10 adequate.
    target : {'auto', 'continuous', 'classes'}, default='auto'
        How ``y`` is read. ``'classes'`` encodes labels one-hot (centred with the data, as PLS-DA
        does); ``'continuous'`` uses ``y`` (1-D or 2-D) as the response; ``'auto'`` picks
        ``'classes'`` when scikit-learn's ``type_of_target`` says binary or multiclass (integer or
        string labels) and ``'continuous'`` otherwise.
    max_iter : int, default=100
        Limit of the alternating ``c``/``w`` optimization per component (several responses
        only; one response needs a single step). A ``ConvergenceWarning`` says when it is hit.
    tol : float, default=1e-6
        Relative change of ``c`` at which the alternating optimization stops.
"""

_COMMON_ATTRS_DOC = """
    support_ : ndarray of shape (n_features_in_,) of bool
        Mask of the selected features.
    n_features_selected_ : int
    selection_history_ : list of ndarray of int
        ``selection_history_[k]``: the features added at iteration ``k + 1``, by decreasing
        thresholded weight.
    iteration_added_ : ndarray of shape (n_features_in_,) of int
        The iteration (1 to ``n_components``) at which each feature was added; 0 if never.
    coef_ : ndarray of shape (n_targets, n_features_in_)
        SIMPLS regression coefficients on the selected features, zero elsewhere.
    intercept_ : ndarray of shape (n_targets,)
    x_rotations_, x_loadings_ : ndarray of shape (n_features_selected_, n_components_)
        SIMPLS weights and loadings of the final model on the selected features (index order).
    y_loadings_ : ndarray of shape (n_targets, n_components_)
    n_components_ : int
        Components of the final model, ``min(n_components, n_features_selected_)``.
    n_iterations_ : int
        ``K`` actually run: ``n_components`` capped to the data.
    n_iter_ : int
        The most alternating iterations used by any component.
    n_iter_per_component_ : ndarray of shape (n_components,)
        Alternating iterations used per component.
    target_ : {'continuous', 'classes'}
    classes_ : ndarray
        Only when ``target_ == 'classes'``.
    n_features_in_ : int
    image_shape_ : tuple or None
        ``(h, w)`` or ``(h, w, c)`` when ``X`` was an image stack (flattened in C order;
        ``transform`` and ``predict`` take the stack or the rows, ``get_support_image()`` gives
        the mask in this shape); None after a fit on 2-D rows.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` has string feature names.
"""


class CardinalSPLSSelector(_BaseSPLS):
    __doc__ = (
        """Cardinal sparse PLS: select exactly ``n_features_to_select`` features.

    Algorithm 1 of Zhang, Kiranyaz and Gabbouj (ICIP 2014): ``K`` SIMPLS-style iterations; at
    iteration ``k`` the ``n^(k)`` strongest not-yet-selected features of the sparse PLS direction
    are added (already selected ones are not penalized, Eq. 8), with ``n^(k)`` decreasing with
    ``k`` (Eq. 9, apportioned by largest remainders so that they sum to exactly ``n``; ties go to
    the lowest feature index), and the selected columns are deflated by the loadings of a SIMPLS
    fit on them. See :func:`pixsel.pls.cardinal_spls` for the exact rules.

    Computations are in float64 (float32 and integer input are converted, never modified).

    Parameters
    ----------
    n_features_to_select : int or float, default=10
        ``n``: an int (above ``n_features``: all features, with a warning, as scikit-learn's
        ``SelectKBest`` does; constant columns are never selected, so at most
        the number of non-constant ones), or a float in ``(0, 1]`` for a fraction of the features.
"""
        + _COMMON_PARAMS_DOC
        + """
    Attributes
    ----------
    n_features_to_select_ : int
        The resolved ``n``."""
        + _COMMON_ATTRS_DOC
        + """
    References
    ----------
    * H. Zhang, S. Kiranyaz and M. Gabbouj, "Cardinal sparse partial least square feature selection
      and its application in face recognition", IEEE International Conference on Image Processing
      (ICIP), 2014.
    * H. Chun and S. Keles, "Sparse partial least squares regression for simultaneous dimension
      reduction and variable selection", Journal of the Royal Statistical Society: Series B, 72(1),
      2010. doi:10.1111/j.1467-9868.2009.00723.x

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from pixsel.selection import CardinalSPLSSelector
    >>> X, y = load_digits(return_X_y=True)
    >>> sel = CardinalSPLSSelector(20, n_components=4).fit(X, y)
    >>> sel.transform(X).shape, [len(h) for h in sel.selection_history_]
    ((1797, 20), [8, 6, 4, 2])
    >>> bool((sel.predict(X) == y).mean() > 0.5)
    True
    """
    )

    _parameter_constraints: dict = {**_BaseSPLS._parameter_constraints, "n_features_to_select": N_FEATURES_TO_SELECT}

    def __init__(
        self,
        n_features_to_select: int | float = 10,
        *,
        n_components: int = 5,
        target: Literal["auto", "continuous", "classes"] = "auto",
        max_iter: int = 100,
        tol: float = 1e-6,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.n_components = n_components
        self.target = target
        self.max_iter = max_iter
        self.tol = tol

    def _select(self, X, Y, K, owner, route=None):
        """Cardinal SPLS: exactly ``n_features_to_select`` features."""
        p = X.shape[1]
        n = resolve_k(self.n_features_to_select, p, owner, cap=True)
        m = count_varying(X)
        if n > m:
            raise ValueError(
                f"{owner}: cannot select {n} features: {p - m} of the {p} columns of X are constant "
                f"and are never selected, which leaves {m}. Lower n_features_to_select to at most "
                f"{m} or drop the constant columns (sklearn.feature_selection.VarianceThreshold)."
            )
        res = cardinal_spls(X, Y, n, K, max_iter=self.max_iter, tol=self.tol, route=route)
        self.n_features_to_select_ = n
        return res


class SPLSSelector(_BaseSPLS):
    __doc__ = (
        """SPLS-eta (Chun and Keles, 2010): sparse PLS with the soft threshold ``eta``.

    ``K`` SIMPLS-style iterations with ``kappa = 1/2``; each direction is soft-thresholded at
    ``eta`` times its largest entry (Eq. 5 of Zhang et al.), the active set is the union of the
    non-zeros, and SIMPLS is refitted on it. The number of features selected,
    ``n_features_selected_``, is only indirectly controlled by ``eta`` (larger is sparser); use
    :class:`CardinalSPLSSelector` to ask for a number. See :func:`pixsel.pls.spls_eta`.

    Computations are in float64 (float32 and integer input are converted, never modified).

    Parameters
    ----------
    eta : float in (0, 1), default=0.5
        Threshold level.
"""
        + _COMMON_PARAMS_DOC
        + """
    Attributes
    ----------"""
        + _COMMON_ATTRS_DOC
        + """
    References
    ----------
    * H. Chun and S. Keles, "Sparse partial least squares regression for simultaneous dimension
      reduction and variable selection", Journal of the Royal Statistical Society: Series B, 72(1),
      2010. doi:10.1111/j.1467-9868.2009.00723.x
    * H. Zhang, S. Kiranyaz and M. Gabbouj, "Cardinal sparse partial least square feature selection
      and its application in face recognition", IEEE International Conference on Image Processing
      (ICIP), 2014.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from pixsel.selection import SPLSSelector
    >>> X, y = load_digits(return_X_y=True)
    >>> sel = SPLSSelector(0.5, n_components=3).fit(X, y)
    >>> 0 < sel.n_features_selected_ < 64
    True
    """
    )

    _parameter_constraints: dict = {**_BaseSPLS._parameter_constraints,
                                    "eta": [Interval(Real, 0, 1, closed="neither")]}

    def __init__(
        self,
        eta: float = 0.5,
        *,
        n_components: int = 5,
        target: Literal["auto", "continuous", "classes"] = "auto",
        max_iter: int = 100,
        tol: float = 1e-6,
    ) -> None:
        self.eta = eta
        self.n_components = n_components
        self.target = target
        self.max_iter = max_iter
        self.tol = tol

    def _select(self, X, Y, K, owner, route=None):
        """SPLS-eta: the features that survive the soft threshold ``eta``."""
        eta = float(self.eta)
        if not count_varying(X):
            raise ValueError(f"{owner}: every column of X is constant; there is nothing to select.")
        return spls_eta(X, Y, eta, K, max_iter=self.max_iter, tol=self.tol, route=route)
