"""Form inference and the one (A, B) pair check (pixsel._validation.check_pair)."""

import numpy as np
import pytest

from pixsel._validation import check_pair, check_square_symmetric, check_symmetric_blocked
from pixsel.spectral._forms import infer_form
from pixsel.spectral._forms import as_factor, as_full, check_form_pair


def test_infer_form_reads_shape_and_symmetry():
    rng = np.random.default_rng(0)
    Y = rng.standard_normal((5, 5))
    assert infer_form(rng.standard_normal(5)) == "vector"
    assert infer_form(rng.standard_normal((5, 2))) == "factor"
    assert infer_form(Y @ Y.T) == "full"
    assert infer_form(Y) == "factor"  # square but not symmetric: a square factor
    with pytest.raises(ValueError, match="vector of shape"):
        infer_form(np.ones((2, 2, 2)))


def test_infer_form_tolerance_matches_allclose_rule():
    """Blocked test == np.allclose(A, A.T, rtol=1e-10, atol=1e-12 max|A|), also for large p."""
    rng = np.random.default_rng(1)
    for p in (3, 300):
        Y = rng.standard_normal((p, p))
        A = Y @ Y.T
        for eps in (0.0, 1e-14, 1e-11, 1e-9, 1e-6):
            E = np.zeros((p, p))
            E[p - 1, 0] = eps * np.abs(A).max()
            M = A + E
            want = np.allclose(M, M.T, rtol=1e-10, atol=1e-12 * np.abs(M).max())
            assert (infer_form(M) == "full") == want


def test_as_full_and_as_factor():
    a = np.array([1.0, 2.0])
    np.testing.assert_array_equal(as_full(a, "vector"), np.outer(a, a))
    M = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(as_full(M, "factor"), M @ M.T)
    assert as_factor(a, "vector").shape == (2, 1)


def test_check_symmetric_blocked_same_rule_as_check_square_symmetric():
    rng = np.random.default_rng(2)
    p = 700  # several row blocks
    Y = rng.standard_normal((p, p))
    B = Y @ Y.T
    for eps in (0.0, 1e-9, 1e-7):
        M = B.copy()
        M[0, p - 1] += eps * np.abs(B).max()
        try:
            check_square_symmetric(M)
            ok = True
        except ValueError:
            ok = False
        if ok:
            assert check_symmetric_blocked(M) is M  # float64: no copy
        else:
            with pytest.raises(ValueError, match="symmetric"):
                check_symmetric_blocked(M)
    for value in (np.nan, np.inf, -np.inf):  # a non-finite entry in a later block, symmetric or not
        bad = B.copy()
        bad[p - 1, 3] = value
        with pytest.raises(ValueError, match="NaN"):
            check_symmetric_blocked(bad)
        bad[3, p - 1] = value
        with pytest.raises(ValueError, match="NaN"):
            check_symmetric_blocked(bad)


@pytest.mark.parametrize(
    "A, B, form, error, match",
    [
        (np.ones((3, 1)), np.eye(3), "vector", ValueError, "1-D array"),
        (np.array(["x", "y"]), None, "vector", TypeError, "real numbers"),
        (np.ones(3), np.eye(2), "vector", ValueError, r"same features.*shape \(3, 3\)"),
        (np.ones((3, 2)), np.eye(2), "factor", ValueError, "same features"),
        (np.ones((3, 0)), None, "factor", ValueError, "no columns"),
        (np.triu(np.ones((3, 3))), None, "full", ValueError, "symmetric"),
        (np.ones(3), np.triu(np.ones((3, 3))), "vector", ValueError, "symmetric"),
        (np.ones(3), np.full((3, 3), np.inf), "vector", ValueError, "NaN or infinite"),
        (np.ones(3), np.ones(3), "vector", ValueError, "square"),
        (np.zeros(0), None, "vector", ValueError, "at least one feature"),
    ],
)
def test_check_pair_errors(A, B, form, error, match):
    with pytest.raises(error, match=match):
        check_pair(A, B, form=form, owner="f")


def test_check_pair_converts_without_touching_the_caller():
    a32 = np.arange(3, dtype=np.float32)
    B = np.eye(3)
    a, B2 = check_pair(a32, B)
    assert a.dtype == np.float64 and a32.dtype == np.float32
    assert B2 is B  # already float64 and symmetric: no copy
    assert check_pair(np.ones(2), None)[1] is None
    with pytest.raises(TypeError, match="real numbers"):
        check_pair(np.ones(2), None, identity_ok=False)


def test_check_form_pair_resolves_auto():
    A, B, form = check_form_pair(np.ones((4, 2)), np.eye(4))
    assert form == "factor" and B.shape == (4, 4)
    with pytest.raises(ValueError, match="'form' parameter of g"):
        check_form_pair(np.ones(3), form="matrix", owner="g")
    with pytest.raises(ValueError, match="NaN"):
        check_form_pair(np.array([[1.0, np.nan], [np.nan, 1.0]]))
