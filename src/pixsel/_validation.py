"""Input validation with one message format.

Every public function and estimator of pixsel validates its parameters through the helpers
here, so that a user always reads the same kind of message::

    The 'k' parameter of SparseLDASelector must be an int in the range [1, 256]. Got 0 instead.

and every data problem says how to fix it. Nothing here modifies the caller's arrays: when a
conversion is needed a new array is returned, and the dtype policy is explicit (see
:func:`as_float_array`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "check_int",
    "check_real",
    "check_options",
    "as_float_array",
    "check_finite",
    "check_input",
    "image_stack",
    "get_support_image",
    "check_square_symmetric",
    "check_symmetric_blocked",
    "check_pair",
    "is_dask_array",
    "resolve_k",
    "sign_flip",
    "MAX_SWAP_SWEEPS",
    "check_forced",
    "index_set",
    "check_excluded",
    "check_search",
]


# -- declarative parameter constraints ------------------------------------------------------------
#
# ``InvalidParameterError``, ``Interval``, ``RealNotInt``, ``StrOptions``, ``HasMethods``,
# ``N_FEATURES_TO_SELECT``, ``PLACEMENT_PARAMETERS`` and ``check_params`` live in :mod:`pixsel._constraints`, which imports
# scikit-learn; they are read from here on first use, so that the kernels that import this module
# do not import scikit-learn.
_CONSTRAINT_NAMES = frozenset(("InvalidParameterError", "Interval", "RealNotInt", "StrOptions", "HasMethods",
                               "N_FEATURES_TO_SELECT", "PLACEMENT_PARAMETERS", "check_params"))


def __getattr__(name):
    if name in _CONSTRAINT_NAMES:
        from . import _constraints

        return getattr(_constraints, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _owner(owner: str | None) -> str:
    return f" of {owner}" if owner else ""


def check_int(value, name, *, low=None, high=None, owner=None):
    """Return ``value`` as an int, or raise ``ValueError``/``TypeError`` in the standard format.

    Examples
    --------
    >>> check_int(3, "k", low=1, high=5)
    3
    >>> check_int(0, "k", low=1, high=5, owner="SparseLDASelector")
    Traceback (most recent call last):
    ...
    ValueError: The 'k' parameter of SparseLDASelector must be an int in the range [1, 5]. Got 0 instead.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(_int_message(value, name, low, high, owner))
    given, value = value, int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(_int_message(given, name, low, high, owner))
    return value


def _int_message(value, name, low, high, owner):
    """:func:`check_int`'s message (written only when it is raised)."""
    lo = "-inf" if low is None else str(low)
    hi = "inf" if high is None else str(high)
    rng = f"[{lo}, {hi}]" if high is not None else f"[{lo}, inf)"
    return f"The '{name}' parameter{_owner(owner)} must be an int in the range {rng}. Got {value!r} instead."


def check_real(value, name, *, low=None, high=None, low_open=False, high_open=False, owner=None):
    """Return ``value`` as a float within bounds, or raise in the standard format.

    Examples
    --------
    >>> check_real(0.5, "eta", low=0, high=1, low_open=True, high_open=True)
    0.5
    """
    def message():  # written only when it is raised
        lb = "(" if low_open else "["
        rb = ")" if high_open else "]"
        lo = "-inf" if low is None else f"{low}"
        hi = "inf" if high is None else f"{high}"
        return (f"The '{name}' parameter{_owner(owner)} must be a real number in the range "
                f"{lb}{lo}, {hi}{rb}. Got {given!r} instead.")

    given = value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(message())
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(message())
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(message())
    if high is not None and (value > high or (high_open and value == high)):
        raise ValueError(message())
    return value


def check_options(value, name, options, *, owner=None):
    """Raise unless ``value`` is one of ``options``.

    Examples
    --------
    >>> check_options("forward", "direction", ("forward", "backward"))
    'forward'
    """
    if not isinstance(value, str) or value not in options:
        opts = ", ".join(repr(o) for o in options)
        raise ValueError(
            f"The '{name}' parameter{_owner(owner)} must be one of {{{opts}}}. Got {value!r} instead."
        )
    return value


def is_dask_array(x) -> bool:
    """True for a ``dask.array.Array`` (without importing dask when it is not loaded)."""
    return type(x).__module__.split(".")[0] == "dask" and hasattr(x, "chunks")


class NonFiniteError(ValueError):
    """The ``ValueError`` of :func:`check_finite`; ``index`` locates the first bad entry.

    A block reduction catches it and raises it again with the row made global (the block's first
    row added), so a NaN in any chunk of a Dask array is reported where it is in ``X``.
    """

    def __init__(self, name, count, index):
        self.name, self.count, self.index = name, int(count), tuple(int(i) for i in index)
        super().__init__(
            f"{name} contains {self.count} NaN or infinite value(s), the first at index {self.index}. "
            "Remove or impute them (for example with sklearn.impute.SimpleImputer) before fitting."
        )


def check_classification_labels(y):
    """scikit-learn's ``check_classification_targets``, with the common case answered at once: 1-D
    integer or boolean labels are always binary or multiclass targets (its scan of ``y`` is then
    skipped); any other ``y`` goes through scikit-learn's check and its message.

    Examples
    --------
    >>> check_classification_labels(np.array([0, 1, 2]))
    >>> check_classification_labels(np.array([0.5, 1.5]))
    Traceback (most recent call last):
    ...
    ValueError: Unknown label type: continuous. ...
    """
    if isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "iub":
        return
    from sklearn.utils.multiclass import check_classification_targets

    check_classification_targets(y)


def check_finite(x, name="X"):
    """Raise a ``ValueError`` (:class:`NonFiniteError`) locating the first NaN or infinite entry."""
    x = np.asarray(x)
    if x.dtype.kind in "fc" and not np.isfinite(x).all():
        bad = np.argwhere(~np.isfinite(x))
        raise NonFiniteError(name, len(bad), bad[0])
    return x


def _is_text(arr) -> bool:
    """True when ``arr`` holds strings (a text dtype, or an object array with a str in it)."""
    if arr.dtype.kind in "US":
        return True
    if arr.dtype.kind == "O":
        return any(isinstance(v, (str, bytes)) for v in arr.ravel())
    return False


def image_stack(X, owner=None):
    """``(X_2d, image_shape)``: an image stack flattened in C order, or a 2-D ``X`` as it is.

    The one reshape of pixsel's estimators: a grey stack ``(n_samples, height, width)`` becomes
    ``(n_samples, height * width)`` with ``image_shape == (height, width)``; a colour stack
    ``(n_samples, height, width, channels)`` becomes ``(n_samples, height * width * channels)``
    (feature ``(i * width + j) * channels + ch``) with ``image_shape == (height, width,
    channels)``; anything else is returned unchanged with ``image_shape`` None. NumPy, Dask and
    array-API arrays are reshaped in their own library (a view where the library gives one: the
    caller's array is never written to). More than 4 dimensions is refused with the fix.

    Examples
    --------
    >>> import numpy as np
    >>> X2, shape = image_stack(np.zeros((5, 4, 3, 2)))
    >>> X2.shape, shape
    ((5, 24), (4, 3, 2))
    >>> image_stack(np.zeros((5, 7)))[1] is None
    True
    """
    ndim = getattr(X, "ndim", None)
    if ndim in (3, 4):
        n, *shape = (int(d) for d in X.shape)
        flat = (n, int(np.prod(shape)))
        if hasattr(X, "reshape"):
            return X.reshape(flat), tuple(shape)
        return X.__array_namespace__().reshape(X, flat), tuple(shape)  # array-API arrays without the method
    if ndim is not None and ndim > 4:
        who = f"{owner} takes" if owner else "pixsel takes"
        raise ValueError(
            f"{who} X of shape (n_samples, n_features), a grey image stack (n_samples, height, width) or a colour "
            f"stack (n_samples, height, width, channels); got {ndim} dimensions, shape {tuple(X.shape)}. "
            "Reshape X to one of these, e.g. X.reshape(len(X), -1)."
        )
    return X, None


def check_input(estimator, X, *, reset=True):
    """pixsel's checks of ``X`` before scikit-learn's; returns ``X`` (2-D when it was a stack).

    * an image stack of shape ``(n_samples, height, width)`` or ``(n_samples, height, width,
      channels)`` is flattened (:func:`image_stack`); on ``fit`` (``reset``) its shape is kept as
      ``estimator.image_shape_`` (None after a fit on 2-D rows), on ``transform`` a stack must
      have that shape (any stack of the right size is read when the fit was on rows);
    * text (numeric strings included) is refused, as scikit-learn's selectors refuse it: convert
      explicitly;
    * an empty ``X`` and NaN or infinite entries are refused with the fix.

    Anything that is not a NumPy array or a list (Dask, another array library, a DataFrame) is
    only flattened, and otherwise returned as it is, for scikit-learn's checks.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> est = SimpleNamespace()
    >>> check_input(est, np.zeros((3, 2, 4))).shape, est.image_shape_
    ((3, 8), (2, 4))
    >>> check_input(est, np.array([["1", "2"], ["3", "4"]]))
    Traceback (most recent call last):
    ...
    TypeError: SimpleNamespace: X holds text (dtype <U1); pixsel computes on numbers: convert it explicitly, e.g. X.astype(float).
    """
    owner = type(estimator).__name__
    if isinstance(X, (list, tuple)):
        try:
            X = np.asarray(X)
        except ValueError:  # ragged: scikit-learn's message
            return X
    if isinstance(X, np.ndarray) and _is_text(X):
        raise TypeError(f"{owner}: X holds text (dtype {X.dtype}); pixsel computes on numbers: convert it "
                        "explicitly, e.g. X.astype(float).")
    X, shape = image_stack(X, owner)
    if reset:
        if shape is not None or getattr(X, "ndim", None) == 2:
            estimator.image_shape_ = shape
    elif shape is not None:
        _check_image_shape(estimator, shape, owner)
    if not isinstance(X, np.ndarray):
        return X
    if X.ndim >= 1 and X.shape[0] == 0:
        raise ValueError(f"{owner}: X has no samples (shape {X.shape}); pass at least 2 samples, one per row.")
    if X.dtype.kind in "fc" and X.size and not np.isfinite(X.sum()) and not np.all(np.isfinite(X)):
        bad = np.argwhere(~np.isfinite(X))
        raise NonFiniteError(f"{owner}: X", len(bad), bad[0])
    return X


def _check_image_shape(estimator, shape, owner):
    """Raise unless the images ``shape`` of a ``transform`` are those of the fit (any shape goes
    after a fit on 2-D rows: the feature count is checked by scikit-learn)."""
    fitted = getattr(estimator, "image_shape_", None)
    if fitted is None or tuple(fitted) == tuple(shape):
        return
    fitted = tuple(fitted)
    if fitted[:2] != tuple(shape[:2]):
        fix = f"resize them to {fitted}"
    elif len(fitted) == 2:
        fix = f"convert them to grey, a stack of shape (n_samples, {fitted[0]}, {fitted[1]})"
    else:
        fix = f"pass a colour stack of shape (n_samples, {', '.join(map(str, fitted))})"
    raise ValueError(f"{owner} was fitted on images of shape {fitted}; X holds images of shape {tuple(shape)}: "
                     f"{fix}.")


def get_support_image(self, image_shape: tuple[int, ...] | None = None) -> np.ndarray:
    """The selected features as a boolean image of shape ``image_shape`` (default: ``image_shape_``).

    ``image_shape_`` is kept when the selector was fitted on an image stack: ``(height, width)``
    for a grey stack ``(n_samples, height, width)``, ``(height, width, channels)`` for a colour
    stack ``(n_samples, height, width, channels)`` (then the mask says which channel of each
    pixel is selected; ``mask.any(axis=2)`` gives the pixels). The mask is ``get_support()``
    reshaped in C order, as the stack was flattened.

    Parameters
    ----------
    image_shape : tuple of int, optional
        ``(height, width)`` or ``(height, width, channels)`` of the images, for a selector fitted
        on flattened images.

    Returns
    -------
    mask : ndarray of bool of shape image_shape
    """
    shape = image_shape if image_shape is not None else getattr(self, "image_shape_", None)
    if shape is None:
        raise ValueError(f"{type(self).__name__} was fitted on a 2-D X and does not know the image shape: "
                         "fit it on an image stack of shape (n_samples, height, width) or (n_samples, height, "
                         "width, channels), or pass image_shape=(height, width).")
    mask = self.get_support()
    if int(np.prod(shape)) != mask.size:
        raise ValueError(f"image_shape {tuple(shape)} has {int(np.prod(shape))} pixels; {type(self).__name__} "
                         f"was fitted on {mask.size} features.")
    return mask.reshape(shape)


def as_float_array(x, name="X", *, dtype=None):
    """Return a 2-D floating array, following pixsel's dtype policy.

    * float32 and float64 are kept as they are (no copy);
    * integer images (uint8, uint16, int...) and booleans are converted explicitly to float64;
    * anything else raises.

    The caller's array is never modified: a conversion always makes a new array.
    """
    arr = np.asarray(x)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got an array with "
            f"{arr.ndim} dimension(s). Flatten images with X.reshape(len(X), -1)."
        )
    if dtype is not None:
        return check_finite(arr.astype(dtype, copy=False), name)
    if arr.dtype in (np.float32, np.float64):
        return check_finite(arr, name)
    if arr.dtype.kind in "uib":
        return arr.astype(np.float64)
    if arr.dtype.kind == "f":  # float16, longdouble
        return check_finite(arr.astype(np.float64), name)
    raise TypeError(f"{name} must hold numbers; got dtype {arr.dtype}.")


def check_square_symmetric(B, name="B", *, rtol=1e-8):
    """Return ``B`` as a float64 symmetric matrix or raise a ValueError that says what is wrong."""
    B = np.asarray(B, dtype=np.float64)
    if B.ndim != 2 or B.shape[0] != B.shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {B.shape}.")
    check_finite(B, name)
    scale = max(float(np.max(np.abs(B))) if B.size else 0.0, np.finfo(float).tiny)
    if not np.allclose(B, B.T, rtol=0, atol=rtol * scale):
        raise ValueError(
            f"{name} must be symmetric; the largest asymmetry |{name} - {name}.T| is "
            f"{float(np.max(np.abs(B - B.T))):.3g}. Pass ({name} + {name}.T) / 2 if that is intended."
        )
    return B


def resolve_k(n_features_to_select, n_features, owner=None, name="n_features_to_select", *, cap=False):
    """An int in ``[1, n_features]``, or a float in ``(0, 1]`` read as a fraction of the features.

    With ``cap=True`` an int above ``n_features`` selects all the features with a
    ``UserWarning``, as scikit-learn's ``SelectKBest`` does (the estimators' default ``k = 10``
    then works on data with fewer features); without, it is an error.

    Examples
    --------
    >>> resolve_k(3, 10), resolve_k(0.25, 10)
    (3, 2)
    >>> resolve_k(11, 10, "SparseLDASelector")
    Traceback (most recent call last):
    ...
    ValueError: The 'n_features_to_select' parameter of SparseLDASelector must be an int in the range [1, 10]. Got 11 instead.
    """
    v = n_features_to_select
    if isinstance(v, numbers.Real) and not isinstance(v, (bool, numbers.Integral)):
        frac = check_real(v, name, low=0, high=1, low_open=True, owner=owner)
        return max(1, int(round(frac * n_features)))
    if cap and isinstance(v, numbers.Integral) and not isinstance(v, bool) and v > n_features >= 1:
        import warnings

        warnings.warn(
            f"{owner + ': ' if owner else ''}{name}={int(v)} is greater than n_features={n_features}; all "
            f"{n_features} features are selected. Pass {name} <= {n_features} to select fewer.",
            UserWarning,
            stacklevel=3,
        )
        return int(n_features)
    return check_int(v, name, low=1, high=n_features, owner=owner)


def sign_flip(V):
    """Fix the sign of a vector, or of each row of a matrix: its largest-magnitude entry is positive.

    Ties in magnitude go to the lowest index; an all-zero row is left as it is. A new array is
    returned (the input is not modified).

    Examples
    --------
    >>> import numpy as np
    >>> sign_flip(np.array([0.5, -2.0, 1.0])).tolist()
    [-0.5, 2.0, -1.0]
    >>> sign_flip(np.array([[1.0, -3.0], [0.0, 0.0]])).tolist()
    [[-1.0, 3.0], [0.0, 0.0]]
    """
    V = np.asarray(V)
    if V.size == 0:
        return V.copy()
    rows = V[None, :] if V.ndim == 1 else V
    idx = np.argmax(np.abs(rows), axis=1)
    s = np.sign(rows[np.arange(rows.shape[0]), idx])
    s[s == 0] = 1
    out = rows * s[:, None]
    return out[0] if V.ndim == 1 else out


def _max_asymmetry(M):
    """``max |M - M.T|`` and ``max |M|`` in cache-sized row blocks (no ``p x p`` temporaries);
    ``(nan, nan)`` when ``M`` holds a NaN or an infinity."""
    p = M.shape[0]
    rows = max(8, (1 << 17) // max(p, 1))  # temporaries of about 1 MB
    worst, scale = 0.0, 0.0
    for i0 in range(0, p, rows):
        blk = M[i0 : i0 + rows]
        top = float(np.abs(blk).max())  # NaN or inf when the block holds one (max propagates NaN)
        if not math.isfinite(top):
            return float("nan"), float("nan")
        scale = max(scale, top)
        mirror = M[:, i0 : i0 + rows].T
        if not (blk == mirror).all():  # an exactly symmetric block (as formed) adds nothing to worst
            worst = max(worst, float(np.abs(blk - mirror).max()))
    return worst, scale


def check_symmetric_blocked(M, name="B", *, rtol=1e-8):
    """:func:`check_square_symmetric` (same rule, same messages) without its ``p x p`` temporaries.

    ``np.allclose(M, M.T)`` allocates several ``p x p`` arrays; at ``p = 2048`` it took longer
    than a whole greedy path. This reads ``M`` in row blocks of about 1 MB instead. Returns ``M``
    as float64 (no copy when it already is).

    Examples
    --------
    >>> import numpy as np
    >>> check_symmetric_blocked(np.eye(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    M = np.asarray(M)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        return check_square_symmetric(M, name, rtol=rtol)
    M = M.astype(np.float64, copy=False)
    if M.size == 0:
        return M
    worst, scale = _max_asymmetry(M)
    if not worst <= rtol * max(scale, np.finfo(np.float64).tiny):  # also NaN: raise the message
        return check_square_symmetric(M, name, rtol=rtol)
    return M


def check_form_shape(shape, form):
    """Raise :func:`check_pair`'s message when ``A`` of ``shape`` cannot hold the ``form`` asked."""
    shape = tuple(shape)
    if form == "vector" and len(shape) != 1:
        raise ValueError(
            f"a must be a 1-D array of shape (n_features,) (for two classes, the difference of the "
            f"class means); got shape {shape}. Pass a.ravel() if it is a column."
        )
    if form == "factor" and len(shape) != 2:
        raise ValueError(f"A in factor form must be a 2-D array of shape (n_features, r); got shape {shape}.")
    if form == "full" and (len(shape) != 2 or shape[0] != shape[1]):
        raise ValueError(f"A in full form must be a symmetric p x p matrix; got shape {shape}.")


def check_same_features(B_shape, p, form):
    """Raise :func:`check_pair`'s message when a square ``B`` of ``B_shape`` is not ``p x p``."""
    if B_shape[0] != p:
        name, what = ("a", "entries") if form == "vector" else ("A", "rows")
        raise ValueError(
            f"{name} and B must describe the same features: {name} has {p} {what}, so B must have "
            f"shape ({p}, {p}); got {tuple(B_shape)}."
        )


def check_pair(A, B=None, *, form="vector", owner=None, identity_ok=True):
    """Validate a numerator ``A`` in a known form and a symmetric ``B`` (or None): one pass each.

    The one check of the ``(A, B)`` pairs of :mod:`pixsel.spectral`: real dtype, finite, shapes
    consistent, ``B`` square and symmetric (checked once, in row blocks, see
    :func:`check_symmetric_blocked`). float64 copies only when a conversion is needed; the
    caller's arrays are never written to.

    Parameters
    ----------
    A : array-like
        ``form='vector'``: shape (p,) (``A = a a^T``; for two classes the difference of the class
        means); ``'factor'``: shape (p, r) (``A = M M^T``); ``'full'``: symmetric (p, p).
    B : array-like of shape (p, p) or None
        Symmetric denominator; None means the identity and is returned as None.
    form : {'vector', 'factor', 'full'}
    owner : str or None
        The function named in the messages.
    identity_ok : bool, default True
        Whether ``B=None`` (the identity) is accepted.

    Returns
    -------
    A, B : ndarray (float64), ndarray (float64) or None

    Examples
    --------
    >>> import numpy as np
    >>> a, B = check_pair([1, 2], np.eye(2))
    >>> a.dtype, B.shape
    (dtype('float64'), (2, 2))
    >>> check_pair(np.ones(3), np.eye(2))
    Traceback (most recent call last):
    ...
    ValueError: a and B must describe the same features: a has 3 entries, so B must have shape (3, 3); got (2, 2).
    """
    A_arr = np.asarray(A)
    name = "a" if form == "vector" else "A"
    if A_arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got dtype {A_arr.dtype}.")
    check_form_shape(A_arr.shape, form)
    if form == "full":
        A_arr = check_symmetric_blocked(A_arr, "A")
    else:
        A_arr = check_finite(A_arr.astype(np.float64, copy=False), name)
    p = A_arr.shape[0]
    if p == 0:
        raise ValueError(f"{owner or 'This function'} needs at least one feature; got an empty {name}.")
    if form == "factor" and A_arr.shape[1] == 0:
        raise ValueError("The factor A has no columns: A = M M^T would be zero.")
    if B is None and identity_ok:
        return A_arr, None
    B_arr = np.asarray(B)
    if B_arr.dtype.kind not in "biuf":
        raise TypeError(f"B must hold real numbers; got dtype {B_arr.dtype}.")
    B_arr = check_symmetric_blocked(B_arr, "B")
    check_same_features(B_arr.shape, p, form)
    return A_arr, B_arr


# -- feature indices and the greedy searches' options (shared by the kernels and the estimators) --

#: Swap sweeps allowed by default (each takes the best swap of a sweep over all ``k (p - k)`` swaps)
MAX_SWAP_SWEEPS = 100


def check_forced(always_select, n_features, *, owner):
    """``always_select`` as sorted unique indices in ``[0, n_features)`` (empty for None).

    Raises a ``ValueError`` naming the fix for a non-integer, out-of-range or duplicated index.
    """
    return index_set(always_select, n_features, "always_select", owner=owner)


def index_set(values, n_features: int, name: str, *, owner: str) -> np.ndarray:
    """``values`` as sorted unique indices in ``[0, n_features)`` (empty for None); a
    ``ValueError`` naming the fix for a non-integer, out-of-range or repeated index."""
    if values is None:
        return np.zeros(0, dtype=np.intp)
    v = np.atleast_1d(np.asarray(values))
    if v.size == 0:
        return np.zeros(0, dtype=np.intp)
    if v.ndim != 1 or v.dtype.kind not in "iu":
        raise ValueError(f"{owner}: {name} must be a 1-D array of integer feature indices; got {v.dtype} of "
                         f"shape {v.shape}. Pass e.g. {name}=[0, 5].")
    bad = v[(v < 0) | (v >= n_features)]
    if bad.size:
        raise ValueError(f"{owner}: {name} has indices {bad.tolist()} outside [0, {n_features - 1}] (X has "
                         f"{n_features} features); pass indices of existing features.")
    if v.size == 1 or (v[1:] > v[:-1]).all():  # sorted and unique already: np.unique would return v
        return v.astype(np.intp)
    u, counts = np.unique(v, return_counts=True)
    if (counts > 1).any():
        raise ValueError(f"{owner}: {name} repeats indices {u[counts > 1].tolist()}; list each feature once.")
    return u.astype(np.intp)


def check_excluded(
    never_select: object,
    n_features: int,
    *,
    always_select: object = None,
    k: int | None = None,
    owner: str,
) -> np.ndarray:
    """``never_select`` as sorted indices, checked against the forced features and ``k``.

    Raises a ``ValueError`` before any work when an index is invalid, when a feature is both
    forced and excluded, or when fewer than ``k`` features are left.
    """
    E = index_set(never_select, n_features, "never_select", owner=owner)
    if not len(E):
        return E
    F = index_set(always_select, n_features, "always_select", owner=owner)
    both = np.intersect1d(E, F)
    if both.size:
        raise ValueError(f"{owner}: features {both.tolist()} are in both always_select and never_select; a feature "
                         "cannot be forced and excluded at once. Remove them from one of the two.")
    left = n_features - len(E)
    if k is not None and left < k:
        raise ValueError(f"{owner}: never_select leaves {left} of the {n_features} features, fewer than the {k} to "
                         f"select; exclude fewer features or ask for at most {left}.")
    if left == 0:
        raise ValueError(f"{owner}: never_select excludes every feature; leave at least one.")
    return E


def check_search(beam_width, refine, *, owner: str) -> tuple[int, int]:
    """``(beam_width, sweeps)`` checked: an int ``>= 1``, and ``refine`` as a number of swap
    sweeps (False/0: none, True: :data:`MAX_SWAP_SWEEPS`, an int ``>= 0``)."""
    if isinstance(beam_width, bool) or not isinstance(beam_width, numbers.Integral) or beam_width < 1:
        raise ValueError(f"The 'beam_width' parameter of {owner} must be an int >= 1 (1: the greedy forward "
                         f"pass). Got {beam_width!r} instead.")
    if isinstance(refine, bool) or refine is None:
        sweeps = MAX_SWAP_SWEEPS if refine else 0
    elif isinstance(refine, numbers.Integral) and refine >= 0:
        sweeps = int(refine)
    else:
        raise ValueError(f"The 'refine' parameter of {owner} must be a bool or an int >= 0 (the swap sweeps "
                         f"allowed). Got {refine!r} instead.")
    return int(beam_width), sweeps
