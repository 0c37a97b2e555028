"""Declared parameter constraints: scikit-learn's constraint classes as pixsel reads them, and
:func:`check_params`, which every public estimator calls at the top of ``fit``.

Kept apart from :mod:`pixsel._validation` because these classes subclass scikit-learn's: the
kernels validate their arguments through :mod:`pixsel._validation` without importing
scikit-learn (a worker process of the parallel exact search imports the kernels only), and the
estimators, which are scikit-learn estimators anyway, reach these names through it on first use.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import _param_validation as _sk

__all__ = [
    "InvalidParameterError",
    "Interval",
    "RealNotInt",
    "StrOptions",
    "HasMethods",
    "N_FEATURES_TO_SELECT",
    "check_params",
]

# -- declarative parameter constraints ------------------------------------------------------------
#
# Every public estimator declares ``_parameter_constraints``, in scikit-learn's style: for each
# constructor parameter, the list of what it may be (or "no_validation"). :func:`check_params`,
# called once at the top of ``fit``, checks them and then the estimator's cross-parameter rules
# (its ``_check_conflicts`` method), before any data is read.
#
# The constraint classes below subclass scikit-learn's (from its private ``_param_validation``,
# imported here only) so that its common check ``check_param_validation`` reads pixsel's
# constraints; pixsel decides what they accept and how they read: bools are not ints, reals are
# finite, options are listed in the order they are declared.


class InvalidParameterError(_sk.InvalidParameterError):
    """A parameter of the wrong type or value: a ``ValueError`` and a ``TypeError``."""


#: floats, not ints (for a fraction beside an int count, as scikit-learn declares them)
RealNotInt = _sk.RealNotInt


class Interval(_sk.Interval):
    """Numbers of ``type`` (``numbers.Integral``, ``numbers.Real`` or :data:`RealNotInt`) between
    ``left`` and ``right`` (None: unbounded); ``closed`` is 'left', 'right', 'both' or 'neither'.

    Unlike scikit-learn's, a bool is not an int and a real must be finite.

    Examples
    --------
    >>> from numbers import Integral
    >>> c = Interval(Integral, 1, None, closed="left")
    >>> c.is_satisfied_by(3), c.is_satisfied_by(True), str(c)
    (True, False, 'an int in the range [1, inf)')
    """

    def is_satisfied_by(self, val):
        if isinstance(val, (bool, np.bool_)) or not isinstance(val, self.type):
            return False
        if not isinstance(val, numbers.Integral) and not np.isfinite(val):
            return False
        return val in self

    def __str__(self):  # the words of check_int and check_real
        kind = "an int" if self.type is numbers.Integral else "a float" if self.type is RealNotInt else "a real number"
        if self.left is None and self.right is None:
            return kind
        lb = "[" if self.closed in ("left", "both") else "("
        rb = "]" if self.closed in ("right", "both") else ")"
        lo = "-inf" if self.left is None else self.left
        hi = "inf" if self.right is None else self.right
        return f"{kind} in the range {lb}{lo}, {hi}{rb}"


class StrOptions(_sk.StrOptions):
    """One of the strings ``options`` (read in the order given).

    Examples
    --------
    >>> str(StrOptions(("forward", "backward")))
    "one of {'forward', 'backward'}"
    """

    def __init__(self, options):
        self.ordered = tuple(options)
        super().__init__(set(self.ordered))

    def is_satisfied_by(self, val):
        return isinstance(val, str) and val in self.options

    def __str__(self):
        if len(self.ordered) == 1:
            return repr(self.ordered[0])
        return "one of {" + ", ".join(repr(o) for o in self.ordered) + "}"


class HasMethods(_sk.HasMethods):
    """An object with the methods named (``HasMethods(["fit", "predict"])``)."""


#: ``n_features_to_select`` of every selector: a count, or a fraction of the features. The count's
#: range, ``[1, n_features]``, is checked on the data by :func:`resolve_k`, so that its message
#: says how many features there are.
N_FEATURES_TO_SELECT = [Interval(numbers.Integral, None, None, closed="neither"),
                        Interval(RealNotInt, 0, 1, closed="right")]

#: The placement constraints of ``PixelReconstructor`` and ``ColumnSubsetSelector`` (the parameters
#: of :func:`pixsel.scores.placement_constraints`) and the image shape they read.
PLACEMENT_PARAMETERS = {
    "always_select": ["array-like", None],
    "never_select": ["array-like", None],
    "regions": ["array-like", None],
    "max_per_region": [Interval(numbers.Integral, 0, None, closed="left"), dict, None],
    "min_per_region": [Interval(numbers.Integral, 0, None, closed="left"), dict, None],
    "min_distance": [Interval(numbers.Real, 0, None, closed="left"), None],
    "costs": ["array-like", None],
    "budget": [Interval(numbers.Real, 0, None, closed="left"), None],
    "image_shape": [tuple, None],
}


_TYPE_WORDS = {list: "a list", tuple: "a tuple", str: "a str", dict: "a dict", bool: "a bool"}


def _is_array_like(val):
    return (hasattr(val, "__len__") or hasattr(val, "shape") or hasattr(val, "__array__")) and not (
        isinstance(val, (str, bytes)) or np.isscalar(val) or (hasattr(val, "shape") and val.shape == ()))


def _satisfies(constraint, val):
    """Whether ``val`` meets one entry of a ``_parameter_constraints`` list."""
    if constraint is None:
        return val is None
    if constraint is callable:
        return callable(val)
    if isinstance(constraint, type):
        return isinstance(val, constraint) and not (constraint is not bool and isinstance(val, bool)
                                                    and issubclass(constraint, numbers.Number))
    if isinstance(constraint, str):
        if constraint == "boolean":
            return isinstance(val, (bool, np.bool_))
        if constraint == "array-like":
            return _is_array_like(val)
        if constraint == "random_state":
            return (val is None or isinstance(val, np.random.RandomState)
                    or (isinstance(val, numbers.Integral) and not isinstance(val, bool) and 0 <= val < 2**32))
        if constraint == "cv_object":
            return (val is None or (isinstance(val, numbers.Integral) and not isinstance(val, bool) and val >= 2)
                    or all(callable(getattr(val, m, None)) for m in ("split", "get_n_splits"))
                    or (hasattr(val, "__iter__") and not isinstance(val, str)))
        raise ValueError(f"Unknown parameter constraint {constraint!r}.")
    return constraint.is_satisfied_by(val)


def _words(constraint):
    """How one constraint reads in a message."""
    if constraint is None:
        return "None"
    if constraint is callable:
        return "a callable"
    if isinstance(constraint, type):
        return _TYPE_WORDS.get(constraint, f"an instance of {constraint.__name__!r}")
    if isinstance(constraint, str):
        return {"boolean": "a bool", "array-like": "an array-like",
                "random_state": "an int in the range [0, 4294967295], a numpy.random.RandomState instance or None",
                "cv_object": "an int in the range [2, inf), a cross-validation splitter, an iterable of "
                             "(train, test) splits or None"}[constraint]
    return str(constraint)


#: values whose acceptance depends on nothing but the value (immutable scalars: a constraint reads
#: their type and value only), remembered per class by :func:`check_params` once accepted
_PLAIN = frozenset({str, int, float, bool, type(None)})
_ACCEPTED: dict = {}
#: at most this many remembered values per class (a search over many values stays bounded)
_ACCEPTED_MAX = 4096


def check_params(estimator):
    """Check every constructor parameter of ``estimator`` against its ``_parameter_constraints``,
    then its cross-parameter rules (``estimator._check_conflicts()``, when it has one).

    Called once at the top of ``fit``, before any data is read (as scikit-learn's ``_fit_context``
    does). Raises :class:`InvalidParameterError` in the one message format, which ends with the
    estimator's ``_parameter_hints[name]`` when it has one (how to fix it); returns the
    estimator's class name (the ``owner`` of later messages).

    Examples
    --------
    >>> from numbers import Integral
    >>> class Est:
    ...     _parameter_constraints = {"k": [Interval(Integral, 1, None, closed="left")],
    ...                               "mode": [StrOptions(("top", "sample")), None]}
    ...     def __init__(self, k=1, mode="top"):
    ...         self.k, self.mode = k, mode
    ...     def get_params(self, deep=False):
    ...         return {"k": self.k, "mode": self.mode}
    >>> check_params(Est())
    'Est'
    >>> check_params(Est(k=0))
    Traceback (most recent call last):
    ...
    pixsel._constraints.InvalidParameterError: The 'k' parameter of Est must be an int in the range [1, inf). Got 0 instead.
    >>> check_params(Est(mode="all"))
    Traceback (most recent call last):
    ...
    pixsel._constraints.InvalidParameterError: The 'mode' parameter of Est must be one of {'top', 'sample'} or None. Got 'all' instead.
    """
    cls = type(estimator)
    owner = cls.__name__
    constraints = cls._parameter_constraints
    accepted = _ACCEPTED.setdefault(cls, set())
    for name, value in estimator.get_params(deep=False).items():
        key = (name, type(value), value) if type(value) in _PLAIN else None
        if key is not None and key in accepted:  # this class accepted this very value already
            continue
        allowed = constraints.get(name)
        if allowed is None:  # for contributors: scikit-learn's check_param_validation says the same
            raise TypeError(f"{owner} declares no constraint for its parameter {name!r} in _parameter_constraints.")
        if allowed == "no_validation" or any(_satisfies(c, value) for c in allowed):
            if key is not None and len(accepted) < _ACCEPTED_MAX:
                accepted.add(key)
            continue
        words = [_words(c) for c in allowed]
        what = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
        hint = getattr(estimator, "_parameter_hints", {}).get(name)
        raise InvalidParameterError(f"The {name!r} parameter of {owner} must be {what}. Got {value!r} instead."
                                    + (f" {hint}" if hint else ""))
    conflicts = getattr(estimator, "_check_conflicts", None)
    if conflicts is not None:
        conflicts()
    if getattr(estimator, "solver", None) == "exact":  # compiled branch and bounds: Numba is optional
        from ._routes import require_compiled

        require_compiled(f"{owner}(solver='exact')")
    return owner
