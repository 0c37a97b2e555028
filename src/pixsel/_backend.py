"""The estimators' backend plumbing, in one place below them and driven by the route.

An estimator's ``fit`` asks :func:`fit_route` for the :class:`~pixsel._routes.Route` of its
kernel family (scikit-learn's rule: under ``array_api_dispatch`` an array of another library is
computed where it lives; without it, or for NumPy, NumPy; a Dask array is read chunk by chunk),
validates with :func:`validate_fit`, calls the public kernels, and hands its fitted attributes
to :func:`store_on_route`. Everything that differs between NumPy, another library (on a CPU or
a device) and Dask lives here, so that the estimators in ``selection/``, ``decomposition/`` and
``gp/`` hold no backend branch:

* validation (:func:`validate_fit`): scikit-learn's checks in X's own library; the dtype policy
  of :mod:`pixsel._array_api` (integers become float64, float16 refused); a Dask ``X`` only
  checked for its shape (its chunks are checked where they are read);
* labels (:func:`codes_on_route`): coded on the host, the integer codes sent to X's device once;
* fitted arrays (:func:`store_on_route`, :func:`to_route`): NumPy arrays put on X's device,
  float64 where the device has it; ``classes_`` stay NumPy labels;
* the few device-aware steps the estimators share (:func:`any_nonzero`,
  :func:`positive_definite`, :func:`support_weights`, :func:`count_varying`,
  :func:`inverse_select`, :func:`gather_columns`).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data

from ._array_api import (
    _fix_hint,
    _is_array,
    _library,
    device_of,
    dispatch_enabled,
    float_dtype,
    from_numpy,
    get_namespace,
    has_float64,
    is_numpy,
    to_numpy,
)
from ._routes import choose
from ._routes import resize as _resize
from ._validation import as_float_array, check_finite, check_input, get_support_image, is_dask_array

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "fit_namespace",
    "fit_route",
    "resize",
    "transform_route",
    "check_same_namespace",
    "follow_x",
    "validate_fit",
    "codes_on_route",
    "to_route",
    "store_on_route",
    "any_nonzero",
    "positive_definite",
    "support_weights",
    "count_varying",
    "copy_transposed",
    "predict_on_support",
    "labels_of_scores",
    "flatten",
    "inverse_select",
    "gather_columns",
    "refuse",
    "check_chunks_finite",
    "scale_columns",
    "as_array",
    "fit_on_host",
    "transform_inputs",
    "ArrayAPISelectorMixin",
    "HostFitTransformerMixin",
]


# -- the route of a fit -------------------------------------------------------------------------
def fit_namespace(X, y=None, *, chunked=True):
    """``(xp, device, dask)`` that ``fit`` computes in: X's library under ``array_api_dispatch``,
    NumPy otherwise (scikit-learn's rule: without dispatch a tensor is converted); Dask arrays
    are read chunk by chunk (``chunked=False``: an estimator that reads X whole validates a
    Dask array as NumPy). Mixed libraries or devices: a message naming the fix."""
    if is_dask_array(X):
        return np, None, chunked
    if not dispatch_enabled():
        return np, None, False
    xp, dev = get_namespace(X)  # y follows X (validate_fit moves it there)
    return (np, None, False) if is_numpy(xp) else (xp, dev, False)


def _where(a):
    """``(library, device)`` of an array; a list or other array-like counts as NumPy."""
    if not _is_array(a) or _library(a) == "numpy":
        return "numpy", None
    return _library(a), device_of(a)


def follow_x(X, y):
    """``y`` (labels, a target or sample weights: small) in the library and on the device of
    ``X`` under ``array_api_dispatch``, scikit-learn's rule for the other inputs of ``fit``
    (everything follows X); ``y`` itself when it is there already, not an array, or X is NumPy
    or Dask."""
    if y is None or not _is_array(y) or not dispatch_enabled() or is_dask_array(X):
        return y
    (lx, dx), (ly, dy) = _where(X), _where(y)
    if (lx, dx) == (ly, dy):
        return y
    host = to_numpy(y)
    if lx == "numpy":
        return host
    xp, dev = get_namespace(X)
    return from_numpy(xp, host, dev, dtype=None)


def check_same_namespace(estimator, X, fitted, method):
    """scikit-learn's rule for ``predict``/``transform`` under ``array_api_dispatch``: ``X`` in
    the library and on the device of the fit (of the fitted array ``fitted``); a ``ValueError``
    that names the fix otherwise. No-op without dispatch, for a Dask ``X`` and when both are
    NumPy (or array-like)."""
    if fitted is None or not dispatch_enabled() or is_dask_array(X):
        return
    (lf, df), (lx, dx) = _where(fitted), _where(X)
    if (lf, df) == (lx, dx):
        return
    got = f"{lx}" + ("" if dx is None else f" on {dx!r}")
    fit = f"{lf}" + ("" if df is None else f" on {df!r}")
    raise ValueError(
        f"Inputs passed to {type(estimator).__name__}.{method}() must use the same namespace and "
        f"device as those passed to fit(): fitted on {fit}, got X of {got}. Convert X first: "
        f"{_fix_hint(lf, 'X', 'the training data')}, or fit again on this library."
    )


def fit_route(family, X, y=None, *, chunked=True, **sizes):
    """The :class:`~pixsel._routes.Route` of a ``fit`` of ``family`` on ``X`` (and ``y``).

    ``sizes`` (``n_samples``, ``n_features``, ``n_classes``, ``k``, ``algorithm``) are passed to
    :func:`pixsel._routes.choose`.

    Examples
    --------
    >>> import numpy as np
    >>> fit_route("scores", np.ones((3, 2))).backend
    'numpy'
    """
    xp, dev, dask = fit_namespace(X, y, chunked=chunked)
    return choose(family, xp=xp, device=dev, dask=dask, **sizes)


def resize(route, **sizes):
    """``route`` completed with the sizes known (``n_samples``, ``n_features``, ``n_classes``, ``k``,
    ``algorithm``): the implicit and compiled rows of the table need them; the placement is the
    one :func:`fit_route` found (:func:`pixsel._routes.resize`)."""
    return _resize(route, **sizes)


def transform_route(family, X, fitted):
    """The route of ``transform``: ``X`` and the fitted array ``fitted`` must come from one
    library on one device (a message naming the fix otherwise); a Dask ``X`` goes row block by
    row block through the NumPy code."""
    if is_dask_array(X):
        return choose(family, dask=True)
    xp, dev = get_namespace(X, fitted, names=["X", "the fitted arrays"])
    return choose(family, xp=xp, device=dev)


# -- validation ---------------------------------------------------------------------------------
_NO_Y = object()  # validate_fit called without y (an unsupervised fit)


def validate_fit(estimator, route, X, y=_NO_Y, *, dtype=None, y_to_host=True, dask_float=False,
                 as_float=False, **check_params):
    """scikit-learn's checks of ``X`` (and ``y``) on the route; returns ``(X, y)``.

    Parameters
    ----------
    estimator : BaseEstimator
        Receives ``n_features_in_`` (and ``feature_names_in_``).
    route : Route
    dtype : dtype, list or None
        The NumPy route's accepted dtypes (scikit-learn's ``check_array``); arrays of another
        dtype kind than numbers are converted to float64.
    y_to_host : bool
        Another library: bring ``y`` back as NumPy labels (False keeps it in X's library).
    dask_float : bool
        Dask: convert integer and boolean chunks to float64 lazily.
    as_float : bool
        NumPy: apply pixsel's dtype policy (:func:`pixsel._validation.as_float_array`).
    **check_params
        Passed to ``validate_data`` (``multi_output``, ``y_numeric``...).
    """
    given = y is not _NO_Y  # NumPy: a y passed as None is scikit-learn's "requires y" error
    if given:
        y = follow_x(X, y)  # y of another library or device: moved to X's (scikit-learn's rule)
    X = check_input(estimator, X)  # text refused, (n, h, w) stacks flattened, errors that name the fix
    if not given:
        y = None
    if route.backend == "dask":
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features); got {X.ndim} dimension(s).")
        if dask_float and X.dtype.kind in "uib":
            X = X.astype(np.float64)
        estimator.n_features_in_ = int(X.shape[1])
        return X, (None if y is None else np.asarray(y))
    if route.foreign:
        if y is None:
            X = validate_data(estimator, X, dtype=None, ensure_min_samples=2)
        else:
            X, y = validate_data(estimator, X, y, dtype=None, ensure_min_samples=2, **check_params)
            if y_to_host:
                y = to_numpy(y)
        return route.xp.astype(X, float_dtype(route.xp, X, route.device), copy=False), y
    if not check_params and (y is not None or not given) and _plain_rows(X, y, dtype):
        # what validate_data would do with these (its checks cost more than a small fit's
        # arithmetic): the feature count kept, no feature names; X's finiteness was checked above
        estimator.n_features_in_ = int(X.shape[1])
        estimator.__dict__.pop("feature_names_in_", None)
    elif not given:
        X = validate_data(estimator, X, dtype=dtype, ensure_min_samples=2)
    else:
        X, y = validate_data(estimator, X, y, dtype=dtype, ensure_min_samples=2, **check_params)
    if X.dtype.kind not in "uifb":  # e.g. object arrays of numbers
        X = X.astype(np.float64)
    return (as_float_array(X) if as_float else X), y


def _plain_rows(X, y, dtype):
    """True for the input scikit-learn's ``validate_data`` would pass through unchanged: a NumPy
    ``X`` of at least 2 rows and 1 column, of float32 / float64 (finite: :func:`check_input`
    checked it), integer or boolean type accepted by ``dtype``, and a 1-D integer, boolean or
    finite float ``y`` (or none) of one label per row. Anything else (lists, DataFrames, sparse
    or object arrays, column-vector ``y``, NaN labels...) gets scikit-learn's checks and messages."""
    if type(X) is not np.ndarray or X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        return False
    kind = X.dtype.kind
    if not (kind in "iub" or (kind == "f" and X.dtype.itemsize in (4, 8))):
        return False
    if dtype is not None:
        allowed = dtype if isinstance(dtype, (list, tuple)) else [dtype]
        if not any(not isinstance(d, str) and np.dtype(d) == X.dtype for d in allowed):
            return False
    if y is None:
        return True
    if type(y) is not np.ndarray or y.ndim != 1 or y.shape[0] != X.shape[0]:
        return False
    if y.dtype.kind in "iub":
        return True
    return y.dtype.kind == "f" and bool(np.isfinite(y).all())


def refuse(route, owner=None, *, foreign=None, dask=None):
    """Raise ``TypeError(message)`` when a family's method cannot run on the route: ``foreign``
    for arrays of another library, ``dask`` for a Dask array (messages that name the fix)."""
    if foreign is not None and route.foreign:
        raise TypeError(foreign)
    if dask is not None and route.backend == "dask":
        raise TypeError(dask)


def check_chunks_finite(route, X):
    """A Dask ``X`` read by nothing else: check every chunk (a NaN located at its row of X);
    other routes were checked by :func:`validate_fit`."""
    if route.backend == "dask":
        from .stats import block_reduce  # the one walk over row blocks

        block_reduce(check_finite, lambda parts: None, X)


# -- labels and fitted arrays -------------------------------------------------------------------
def codes_on_route(route, y, classes):
    """``(y_fit, classes_fit)``: on another library the labels are coded on the host and the
    integer codes sent to X's device once (``classes_fit = 0..C-1``); NumPy and Dask unchanged."""
    if not route.foreign:
        return y, classes
    codes = from_numpy(route.xp, np.searchsorted(classes, y), route.device, dtype=route.xp.int64)
    return codes, np.arange(len(classes))


def to_route(route, a, dtype=None):
    """The NumPy array ``a`` in the route's library and on its device (``a`` itself otherwise)."""
    if a is None or not route.foreign:
        return a
    return from_numpy(route.xp, a, route.device, dtype=dtype)


def store_on_route(estimator, route, *, floats_only=False, keep=("classes_",)):
    """Every fitted NumPy array attribute (name ending in ``_``, ``keep`` excepted) onto the
    route's device: floating arrays in float64 where the device has it (float32 otherwise),
    other arrays (masks, counts) in their dtype unless ``floats_only``. No-op on NumPy/Dask."""
    if not route.foreign:
        return
    xp, dev = route.xp, route.device
    hi = xp.float64 if has_float64(xp, dev) else xp.float32
    for name, value in list(vars(estimator).items()):
        if not (name.endswith("_") and name not in keep and isinstance(value, np.ndarray)):
            continue
        if value.dtype.kind == "f":
            setattr(estimator, name, from_numpy(xp, value, dev, dtype=hi))
        elif not floats_only:
            setattr(estimator, name, from_numpy(xp, value, dev))


# -- device-aware steps the estimators share ----------------------------------------------------
def any_nonzero(route, a) -> bool:
    """Whether ``a`` (in the route's library) has a nonzero entry: one boolean back."""
    return bool(np.any(a) if is_numpy(route.xp) else route.xp.any(a != 0))


def positive_definite(route, B) -> bool:
    """Whether the symmetric ``B`` has a Cholesky factor (in the route's library, on its device)."""
    try:
        (np.linalg.cholesky if is_numpy(route.xp) else route.xp.linalg.cholesky)(B)
    except Exception:
        return False
    return True


def support_weights(route, a, B, S):
    """``weights_on_support(a, B, S)[S]`` in the route's library (the discriminant on ``S``)."""
    from .spectral import weights_on_support

    if not route.foreign:
        return weights_on_support(a, B, S)[S]
    xp = route.xp
    return xp.take(weights_on_support(a, B, S), xp.asarray(S, device=route.device))


def count_varying(X) -> int:
    """How many columns of X are not constant (in X's library, one number back)."""
    xp, _ = get_namespace(X)
    if is_numpy(xp):
        return int(np.count_nonzero(np.ptp(X, axis=0)))
    return int(xp.sum(xp.astype(xp.max(X, axis=0) > xp.min(X, axis=0), xp.int64)))


def copy_transposed(a):
    """A C-ordered copy of ``a.T`` in a's library (NumPy's ``.T.copy()`` layout kept)."""
    xp, _ = get_namespace(a)
    return a.T.copy() if is_numpy(xp) else xp.asarray(a.T, copy=True)


def scale_columns(out, w):
    """``out * w`` with the weights ``w`` in out's floating dtype (NumPy, Dask or X's library)."""
    xp, _ = get_namespace(out, w, names=["X", "weights_"])
    if xp is np:
        if out.dtype.kind == "f":
            w = w.astype(out.dtype)
    else:
        w = xp.astype(w, out.dtype)
    return out * w


def as_array(X):
    """``X`` itself when it is an array of any library, else ``np.asarray(X)`` (lists)."""
    from ._array_api import _is_array

    return X if _is_array(X) and not isinstance(X, list) else np.asarray(X)


def predict_on_support(estimator, X, coef, intercept, method="decision_function"):
    """``X[:, S] @ coef[:, S].T + intercept`` for the fitted ``support_`` ``S``, in the library
    of the fitted ``coef`` (under ``array_api_dispatch`` ``X`` must be of the library of the
    fit: :func:`check_same_namespace`, for the caller's ``method``; on NumPy, in float64)."""
    check_same_namespace(estimator, X, coef, method)
    xp, dev = get_namespace(coef, names=["coef_"])
    if not is_numpy(xp):
        get_namespace(X, coef, names=["X", "coef_"])
        X = validate_data(estimator, X, dtype=None, reset=False)
        Xs, S = gather_columns(X, estimator._get_support_mask(), xp, dev)
        return xp.astype(Xs, coef.dtype) @ xp.take(coef, S, axis=1).T + intercept
    X = validate_data(estimator, X, dtype=[np.float64, np.float32], reset=False)
    S = estimator.support_
    return np.asarray(X[:, S], dtype=np.float64) @ coef[:, S].T + intercept


def labels_of_scores(scores, classes):
    """The class of largest score per row: NumPy labels, sent to the scores' device when numeric."""
    xp, dev = get_namespace(scores)
    labels = classes[to_numpy(xp.argmax(scores, axis=1))]
    return from_numpy(xp, labels, dev) if labels.dtype.kind in "uifb" else labels


def flatten(a):
    """``a`` as 1-D in its own library (NumPy's ``ravel``)."""
    xp, _ = get_namespace(a)
    return a.ravel() if is_numpy(xp) else xp.reshape(a, (-1,))


def gather_columns(X, support, xp, device):
    """``X[:, support]`` (a NumPy mask) with the standard's ``take``; returns the indices too."""
    S = xp.asarray(np.flatnonzero(support), device=device)
    return xp.take(X, S, axis=1), S


def inverse_select(X, support, fallback):
    """Put the selected columns of ``X`` back in place, zeros elsewhere, in X's library.

    NumPy input goes to ``fallback`` (scikit-learn's ``inverse_transform``); another library
    gathers the columns and a zero column (the standard has ``take``, not setitem by an index
    array)."""
    xp, dev = get_namespace(X)
    if is_numpy(xp):
        return fallback(X)
    pos = np.full(support.size, int(support.sum()), dtype=np.int64)
    pos[support] = np.arange(int(support.sum()))
    padded = xp.concat([X, xp.zeros((X.shape[0], 1), dtype=X.dtype, device=dev)], axis=1)
    return xp.take(padded, xp.asarray(pos, device=dev), axis=1)


# -- the mixins the estimators put first in their bases -----------------------------------------
class ArrayAPISelectorMixin:
    """What a selector needs to follow X under ``sklearn.set_config(array_api_dispatch=True)``.

    ``fit`` computes on the route of :func:`fit_route` and ends with :func:`store_on_route`;
    ``get_support`` returns NumPy, as scikit-learn's selectors do, and ``inverse_transform``
    answers in X's library. Put it first in the bases.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.array_api_support = True  # fit follows X's library and device (see fit_route)
        return tags

    def _get_support_mask(self):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        return to_numpy(self.support_)  # NumPy booleans, whatever the device of the fit

    get_support_image = get_support_image  # the support as an image of shape image_shape_

    def transform(self, X: ArrayLike) -> NDArray:
        """Keep the selected features of ``X`` (an image stack ``(n, h, w)`` is flattened first).

        Parameters
        ----------
        X : array of shape (n_samples, n_features) or (n_samples, height, width)

        Returns
        -------
        X_r : array of shape (n_samples, n_selected_features)
        """
        if hasattr(self, "support_"):  # unfitted: scikit-learn's NotFittedError below
            check_same_namespace(self, X, self.support_, "transform")
        return super().transform(check_input(self, X, reset=False))

    def inverse_transform(self, X: ArrayLike) -> NDArray:
        """Put the selected columns back in place, zeros elsewhere (in X's library and device).

        Parameters
        ----------
        X : array of shape (n_samples, n_selected_features)

        Returns
        -------
        X_r : array of shape (n_samples, n_features_in_)
        """
        return inverse_select(X, self._get_support_mask(), super().inverse_transform)


def fit_on_host(estimator, X, y, fit):
    """``fit(X, y)`` on the host with array-API dispatch off (scikit-learn's NumPy code), on a
    host copy of an ``X`` of another library (one copy of the training data); then every fitted
    floating array goes to X's device. Returns ``estimator``."""
    from sklearn import config_context

    X = check_input(estimator, X)  # text refused, (n, h, w) stacks flattened
    route = fit_route("projection", X)
    with config_context(array_api_dispatch=False):
        fit(to_numpy(X) if route.foreign else X, y)
    store_on_route(estimator, route, floats_only=True)
    return estimator


def transform_inputs(estimator, X, reference, *fitted):
    """``(X, fitted)`` ready for a host-fitted transformer's ``transform``: ``X`` validated and,
    with the fitted arrays (None kept), in X's work dtype and library when the model was fitted
    under ``array_api_dispatch`` (X and ``reference`` of one library on one device, a message
    naming the fix otherwise); float64 NumPy otherwise."""
    check_same_namespace(estimator, X, reference, "transform")
    X = check_input(estimator, X, reset=False)  # an image stack (n, h, w) is flattened
    route = transform_route("projection", X, reference)
    if route.foreign:  # one product in X's library, on its device
        xp = route.xp
        X = validate_data(estimator, X, dtype=None, reset=False)
        wd = float_dtype(xp, X, route.device)
        return xp.astype(X, wd, copy=False), [None if f is None else xp.astype(f, wd) for f in fitted]
    X = validate_data(estimator, X, dtype=[np.float64, np.float32], reset=False)
    return np.asarray(X, dtype=np.float64), list(fitted)


class HostFitTransformerMixin:
    """A transformer whose fit runs on the host (scikit-learn's dictionary learning and lasso
    have no array-API support): fit on a host copy of X, every fitted floating array on X's
    device, ``transform`` of new data in X's library (:func:`transform_route`). Put it first
    in the bases."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.array_api_support = True  # the fitted arrays and transform follow X (fit runs on the host)
        return tags
