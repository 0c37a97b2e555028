"""The declarative validator of pixsel._validation: what it accepts, how it reads, when it runs."""

from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from pixsel import SparseLDASelector
from pixsel._validation import (
    N_FEATURES_TO_SELECT,
    InvalidParameterError,
    Interval,
    RealNotInt,
    StrOptions,
    check_params,
)


class _Est(BaseEstimator):
    _parameter_constraints = {
        "k": N_FEATURES_TO_SELECT,
        "eta": [Interval(Real, 0, 1, closed="neither")],
        "mode": [StrOptions(("top", "sample")), None],
        "flag": ["boolean"],
        "seed": ["random_state"],
        "cv": ["cv_object"],
    }
    _parameter_hints = {"mode": "Use 'top' for the best scores."}

    def __init__(self, k=1, eta=0.5, mode="top", flag=False, seed=None, cv=3):
        self.k, self.eta, self.mode, self.flag, self.seed, self.cv = k, eta, mode, flag, seed, cv

    def _check_conflicts(self):
        if self.flag and self.mode == "sample":
            raise ValueError("flag and mode='sample' cannot run together.")


@pytest.mark.parametrize("params", [{}, {"k": np.int64(3)}, {"k": 0.25}, {"eta": np.float32(0.1)}, {"mode": None},
                                    {"flag": np.True_}, {"seed": np.random.RandomState(0)}, {"cv": [([0], [1])]}])
def test_valid_values_pass(params):
    assert check_params(_Est(**params)) == "_Est"


@pytest.mark.parametrize(("params", "words"), [
    ({"k": True}, "must be an int or a float in the range (0, 1]. Got True instead."),
    ({"k": 1.5}, "must be an int or a float in the range (0, 1]. Got 1.5 instead."),
    ({"eta": 1}, "must be a real number in the range (0, 1). Got 1 instead."),
    ({"eta": float("nan")}, "Got nan instead."),
    ({"mode": "all"}, "must be one of {'top', 'sample'} or None. Got 'all' instead. Use 'top' for the best scores."),
    ({"flag": 1}, "must be a bool. Got 1 instead."),
    ({"seed": -1}, "must be an int in the range [0, 4294967295]"),
    ({"cv": 1}, "must be an int in the range [2, inf)"),
])
def test_invalid_values_read_in_one_format(params, words):
    name = next(iter(params))
    with pytest.raises(InvalidParameterError) as info:
        check_params(_Est(**params))
    assert str(info.value).startswith(f"The '{name}' parameter of _Est must be ")
    assert words in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_conflicts_run_after_the_parameters():
    with pytest.raises(ValueError, match="cannot run together"):
        check_params(_Est(flag=True, mode="sample"))
    with pytest.raises(InvalidParameterError, match="'eta'"):  # a bad value is reported first
        check_params(_Est(flag=True, mode="sample", eta=2.0))


def test_values_accepted_once_are_remembered_and_bad_ones_still_refused():
    """check_params remembers the immutable values a class accepted (a refit pays no check for
    them); a bad value of the same parameter is refused as before, and a value of another type
    that compares equal (True == 1) is checked on its own."""
    est = _Est(eta=0.5, flag=True)
    assert check_params(est) == "_Est"
    assert check_params(est) == "_Est"
    with pytest.raises(InvalidParameterError, match="'eta' parameter of _Est"):
        check_params(_Est(eta=2.0))
    with pytest.raises(InvalidParameterError, match="'flag' parameter of _Est"):
        check_params(_Est(flag=1))  # equal to True, but an int is not a bool
    with pytest.raises(InvalidParameterError, match="'direction' parameter of SparseLDASelector"):
        check_params(SparseLDASelector(3).set_params(direction="sideways"))


def test_a_parameter_without_a_constraint_is_a_contributor_error():
    class Undeclared(_Est):
        def __init__(self, k=1, extra=0):
            self.k, self.extra = k, extra

    with pytest.raises(TypeError, match="declares no constraint for its parameter 'extra'"):
        check_params(Undeclared())


def test_the_estimators_state_the_words_of_the_old_checks():
    assert str(Interval(Integral, 1, None, closed="left")) == "an int in the range [1, inf)"
    assert str(Interval(RealNotInt, 0, 1, closed="right")) == "a float in the range (0, 1]"
    with pytest.raises(InvalidParameterError, match=r"The 'direction' parameter of SparseLDASelector must be one of "
                                                    r"\{'forward', 'backward', 'dual', 'cv', 'auto'\}\. Got 'both'"):
        SparseLDASelector(direction="both").fit(np.zeros((4, 2)), [0, 0, 1, 1])


@pytest.mark.parametrize("values", [[3], [0, 2, 7], np.array([1, 4], dtype=np.int32), [7, 2, 0], [5, 1, 5], [9]])
def test_index_set_sorted_input_reads_as_np_unique(values):
    """A sorted, unique index list skips np.unique: the same indices and dtype as the general
    path; unsorted lists are sorted, repeats and indices out of range still refused."""
    from pixsel._validation import index_set

    v = np.asarray(values)
    if v.max() >= 8:
        with pytest.raises(ValueError, match="outside"):
            index_set(values, 8, "support", owner="t")
        return
    if len(np.unique(v)) < len(v):
        with pytest.raises(ValueError, match="repeats"):
            index_set(values, 8, "support", owner="t")
        return
    got = index_set(values, 8, "support", owner="t")
    assert got.dtype == np.intp
    np.testing.assert_array_equal(got, np.unique(v))
    assert not np.shares_memory(got, v)  # a copy, never the caller's array


def test_check_int_and_check_real_messages_name_the_value_given():
    """The messages (written only on failure) name the parameter, the range and the value as given."""
    from pixsel._validation import check_int, check_real

    with pytest.raises(ValueError, match=r"^The 'k' parameter of Sel must be an int in the range \[1, 5\]\. "
                                         r"Got np\.int64\(7\) instead\.$"):
        check_int(np.int64(7), "k", low=1, high=5, owner="Sel")
    with pytest.raises(TypeError, match=r"must be an int in the range \[0, inf\)\. Got 2\.5 instead\."):
        check_int(2.5, "sweeps", low=0)
    with pytest.raises(ValueError, match=r"^The 'tol' parameter must be a real number in the range \(0, 1\]\. "
                                         r"Got np\.float32\(nan\) instead\.$"):
        check_real(np.float32("nan"), "tol", low=0, high=1, low_open=True)
    with pytest.raises(TypeError, match=r"range \[-inf, inf\]\. Got 'a' instead\."):
        check_real("a", "x")
    with pytest.raises(ValueError, match=r"Got 0 instead"):
        check_real(0, "tol", low=0, low_open=True)
    assert check_int(np.int32(3), "k", low=1, high=5) == 3 and check_real(1, "x", high=1) == 1.0
