"""Excluded features (``never_select``) in exact_support and exact_path.

Oracle: the brute-force optimum over the supports that avoid the excluded set (every support of
size k of the other features, valued from scratch by eigenvalues); the certified bound is never
below it, also when a node limit stops the search; bad input is refused before any search runs
(the callback, called at the end of every search, is never called)."""

import itertools

import numpy as np
import pytest

from pixsel.spectral import exact_path, exact_support

from .test_exact_support import _value  # the textbook objective, one copy


def _best_outside(A, B, k, E, criterion):
    """max over the supports of size k that contain no feature of E (brute force)."""
    keep = [j for j in range(len(B)) if j not in set(E)]
    return max(_value(A, B, S, criterion) for S in itertools.combinations(keep, k))


def _problem(rng, p, form, r=2):
    X = rng.standard_normal((p + 3, p))
    B = X.T @ X / (p + 3) + 0.05 * np.eye(p)
    if form == "vector":
        A = rng.standard_normal(p)
    elif form == "factor":
        A = rng.standard_normal((p, r))
    elif form == "psd":
        Y = rng.standard_normal((p, p))
        A = Y @ Y.T / p
    else:
        Y = rng.standard_normal((p, p))
        A = (Y + Y.T) / 2
    return A, B


CASES = [("vector", "max-eig"), ("factor", "max-eig"), ("factor", "trace"), ("psd", "trace"),
         ("indefinite", "max-eig")]


@pytest.mark.parametrize(("form", "criterion"), CASES)
def test_exact_support_is_the_best_support_without_the_excluded(form, criterion):
    rng = np.random.default_rng(len(form) * 7 + len(criterion))
    for _ in range(12):
        p = int(rng.integers(5, 10))
        E = np.sort(rng.choice(p, size=int(rng.integers(1, p - 2)), replace=False))
        k = int(rng.integers(1, p - len(E) + 1))
        A, B = _problem(rng, p, form)
        res = exact_support(A, B, k, criterion=criterion, never_select=E)
        best = _best_outside(A, B, k, E, criterion)
        assert res.status == "optimal"
        assert len(res.support) == k and not set(res.support.tolist()) & set(E.tolist())
        assert res.objective == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert _value(A, B, res.support, criterion) == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert res.upper_bound >= best - 1e-9 * abs(best)
        assert res.weights.shape == (p,) and np.all(res.weights[E] == 0)
        np.testing.assert_array_equal(res.info["never_select"], E)


def test_a_factor_that_becomes_square_stays_a_factor():
    """p = 7 features, a 7 x 5 factor, 2 excluded: the rows left form a 5 x 5 block, which is
    not the full matrix (the search gets one zero column more)."""
    rng = np.random.default_rng(3)
    A, B = _problem(rng, 7, "factor", r=5)
    E = [1, 4]
    for criterion in ("max-eig", "trace"):
        for k in (2, 3):
            res = exact_support(A, B, k, criterion=criterion, never_select=E)
            assert res.objective == pytest.approx(_best_outside(A, B, k, E, criterion), rel=1e-9)
    path = exact_path(A, B, criterion="trace", never_select=E)
    for k in range(1, 6):
        assert path.objective[k - 1] == pytest.approx(_best_outside(A, B, k, E, "trace"), rel=1e-9)


def test_empty_never_select_is_the_plain_search():
    rng = np.random.default_rng(5)
    A, B = _problem(rng, 8, "factor")
    plain, empty = exact_support(A, B, 3), exact_support(A, B, 3, never_select=[])
    np.testing.assert_array_equal(plain.support, empty.support)
    assert "never_select" not in empty.info


@pytest.mark.parametrize(("form", "criterion"), [("vector", "max-eig"), ("factor", "trace"), ("psd", "max-eig")])
def test_stopped_bound_never_below_the_optimum_without_the_excluded(form, criterion):
    rng = np.random.default_rng(11)
    for _ in range(6):
        p, E = 11, [0, 3, 9]
        k = int(rng.integers(3, 7))
        A, B = _problem(rng, p, form, r=3)
        best = _best_outside(A, B, k, E, criterion)
        for limit in (0, 1, 3):
            res = exact_support(A, B, k, criterion=criterion, node_limit=limit, never_select=E)
            assert res.status in ("node_limit", "optimal")
            assert res.upper_bound >= best * (1 - 1e-9) - 1e-12
            assert res.objective <= best * (1 + 1e-9) + 1e-12
            assert not set(res.support.tolist()) & set(E)


def test_initial_is_read_in_the_original_indices():
    rng = np.random.default_rng(2)
    A, B = _problem(rng, 9, "vector")
    E = [0, 2]
    res = exact_support(A, B, 3, never_select=E, initial=[1, 5, 8])
    assert res.objective == pytest.approx(_best_outside(A, B, 3, E, "max-eig"), rel=1e-9)
    # the incumbent it started from was offered in the original indices: a node limit of 0 returns it
    # unless the search improved it, and it is never an excluded feature
    stopped = exact_support(A, B, 3, never_select=E, initial=[1, 5, 8], node_limit=0)
    assert stopped.objective >= _value(A, B, [1, 5, 8], "max-eig") * (1 - 1e-12)


@pytest.mark.parametrize(("form", "criterion"), [("vector", "max-eig"), ("factor", "max-eig"), ("factor", "trace"),
                                                 ("indefinite", "max-eig")])
def test_exact_path_every_size_without_the_excluded(form, criterion):
    rng = np.random.default_rng(len(form) + 3 * len(criterion))
    for _ in range(3):
        p = 9
        E = np.sort(rng.choice(p, size=3, replace=False))
        A, B = _problem(rng, p, form, r=3)
        path = exact_path(A, B, criterion=criterion, never_select=E)
        assert path.max_k == p - len(E) and path.search_status == "optimal"
        for k in range(1, path.max_k + 1):
            S = path.support(k)
            assert len(S) == k and not set(S.tolist()) & set(E.tolist())
            best = _best_outside(A, B, k, E, criterion)
            assert path.objective[k - 1] == pytest.approx(best, rel=1e-9, abs=1e-12)
            assert path.upper_bound[k - 1] >= best - 1e-9 * abs(best)
        np.testing.assert_array_equal(path.info["never_select"], E)
    short = exact_path(A, B, criterion=criterion, never_select=E, max_k=3, initial=[[np.setdiff1d(np.arange(p), E)[0]]])
    assert short.max_k == 3
    np.testing.assert_allclose(short.objective, path.objective[:3], rtol=1e-9)


def test_exact_path_stopped_bounds_never_below_the_optimum():
    rng = np.random.default_rng(8)
    A, B = _problem(rng, 10, "vector")
    E = [2, 5]
    path = exact_path(A, B, never_select=E, node_limit=2)
    for k in range(1, path.max_k + 1):
        assert path.upper_bound[k - 1] >= _best_outside(A, B, k, E, "max-eig") * (1 - 1e-9)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda A, B, cb: exact_support(A, B, 5, never_select=[0, 1, 2, 3], callback=cb),
         "leaves 4 of the 8 features, fewer than the 5"),
        (lambda A, B, cb: exact_support(A, B, 2, never_select=[8], callback=cb), "outside"),
        (lambda A, B, cb: exact_support(A, B, 2, never_select=[1, 1], callback=cb), "repeats"),
        (lambda A, B, cb: exact_support(A, B, 2, never_select=list(range(8)), callback=cb), "fewer than the 2"),
        (lambda A, B, cb: exact_support(A, B, 2, never_select=[3], initial=[3, 4], callback=cb),
         "initial contains the never_select features"),
        (lambda A, B, cb: exact_support(A, B, 2, never_select=[3], initial=[4, 9], callback=cb),
         r"initial must hold distinct indices in \[0, 7\]"),
        (lambda A, B, cb: exact_support(A, B, 2, never_select=[3], initial=[4, 5, 6], callback=cb),
         r"initial must hold 2 distinct indices in \[0, 7\]; got \[4, 5, 6\]"),
        (lambda A, B, cb: exact_path(A, B, max_k=6, never_select=[0, 1, 2], callback=cb),
         "leaves 5 of the 8 features, fewer than the 6"),
        (lambda A, B, cb: exact_path(A, B, never_select=[0], initial=[[0, 1]], callback=cb),
         "initial contains the never_select features"),
    ],
)
def test_bad_input_is_refused_before_any_search(call, match):
    rng = np.random.default_rng(0)
    A, B = _problem(rng, 8, "vector")
    calls = []
    with pytest.raises(ValueError, match=match):
        call(A, B, calls.append)
    assert calls == []
