"""Forced features (``always_select``) in exact_support, for the objectives that add up over features.

Oracle: the brute-force optimum over the supports of size k that contain the forced set F (and
avoid an excluded set E), every one valued from scratch by eigenvalues; the certified bound is
never below it, also when a node limit stops the search early; the reduction itself (the Schur
complements of ``_force.forced_pair``) reproduces ``f(F + T) - f(F)`` on every support; bad input
is refused before any search runs."""

import itertools

import numpy as np
import pytest

from pixsel.spectral import criterion_named, exact_support
from pixsel.spectral.exact._force import forced_pair

from .test_exact_support import _value  # the textbook objective, one copy


def _best(A, B, k, F, E, criterion):
    """max over the supports of size k that contain F and avoid E (brute force), and the argmax."""
    free = [j for j in range(len(B)) if j not in set(F) | set(E)]
    return max((_value(A, B, [*F, *T], criterion), tuple(sorted([*F, *T])))
               for T in itertools.combinations(free, k - len(F)))


def _problem(rng, p, form):
    X = rng.standard_normal((p + 3, p))
    B = X.T @ X / (p + 3) + 0.05 * np.eye(p)
    if form == "vector":
        return rng.standard_normal(p), B, "max-eig"
    if form == "factor":
        return rng.standard_normal((p, 3)), B, "trace"
    if form == "psd":
        Y = rng.standard_normal((p, p))
        return Y @ Y.T / p, B, "trace"
    # the column subset: the pair (C C^T, C) of a covariance, its kept mass
    Y = rng.standard_normal((4 * p, p)) @ rng.standard_normal((p, p))
    A, B, _ = criterion_named("column-subset").pair(np.cov(Y.T))
    return A, B, "trace"


FORMS = ["vector", "factor", "psd", "column-subset"]


@pytest.mark.parametrize("form", FORMS)
def test_the_best_support_that_contains_the_forced_features(form):
    rng = np.random.default_rng(len(form))
    for _ in range(10):
        p = int(rng.integers(6, 10))
        A, B, criterion = _problem(rng, p, form)
        F = sorted(rng.choice(p, int(rng.integers(1, 4)), replace=False).tolist())
        rest = [j for j in range(p) if j not in F]
        E = sorted(rng.choice(rest, int(rng.integers(0, 3)), replace=False).tolist())
        k = int(rng.integers(len(F) + 1, min(p - len(E), len(F) + 4) + 1))
        best, argbest = _best(A, B, k, F, E, criterion)
        res = exact_support(A, B, k, criterion=criterion, always_select=F, never_select=E or None)
        assert res.status == "optimal" and res.certified
        assert tuple(res.support.tolist()) == argbest
        np.testing.assert_allclose(res.objective, best, rtol=1e-9)
        assert res.upper_bound >= best * (1 - 1e-12)
        np.testing.assert_array_equal(res.info["always_select"], F)
        assert not np.any(res.weights[np.setdiff1d(np.arange(p), res.support)])
    # a forced feature outside the unconstrained optimum: the answer moves to a support with it,
    # no better than the unconstrained one (so the check above is not the plain search's)
    rng = np.random.default_rng(99)
    A, B, criterion = _problem(rng, 8, form)
    free_best = exact_support(A, B, 3, criterion=criterion)
    F = [j for j in range(8) if j not in free_best.support][:1]
    forced = exact_support(A, B, 3, criterion=criterion, always_select=F)
    assert F[0] in forced.support and forced.objective <= free_best.objective


@pytest.mark.parametrize("form", FORMS)
def test_a_stopped_search_keeps_a_certified_bound(form):
    """node_limit=1: the search stops early, and the bound (the reduced search's plus f(F)) is still
    at or above the brute-force optimum, the support contains F."""
    rng = np.random.default_rng(7 + len(form))
    statuses = set()
    for _ in range(6):
        p = 9
        A, B, criterion = _problem(rng, p, form)
        F = sorted(rng.choice(p, 2, replace=False).tolist())
        k = 5
        best, _ = _best(A, B, k, F, [], criterion)
        res = exact_support(A, B, k, criterion=criterion, always_select=F, node_limit=1)
        assert set(F) <= set(res.support.tolist()) and len(res.support) == k
        assert res.upper_bound >= best * (1 - 1e-12) and res.objective <= best * (1 + 1e-12)
        assert res.gap == pytest.approx(res.upper_bound - res.objective)
        statuses.add(res.status)
    assert "node_limit" in statuses  # the bound checked is a stopped search's, not only a proved optimum's


@pytest.mark.parametrize("form", FORMS)
def test_the_reduction_adds_up_on_every_support(form):
    """f(F + T) = f(F) + tr of the reduced pair on T, for every T (the Schur complements)."""
    rng = np.random.default_rng(3 + len(form))
    p = 7
    A, B, criterion = _problem(rng, p, form)
    if A.ndim == 1:
        M = A[:, None]
    elif A.shape[0] != A.shape[1]:
        M = A
    else:
        vals, vecs = np.linalg.eigh(A)
        M = vecs * np.sqrt(np.maximum(vals, 0.0))
    F = np.array([1, 4])
    R = np.setdiff1d(np.arange(p), F)
    Mp, Bp, fF = forced_pair(M, B, F, R, "test")
    assert fF == pytest.approx(_value(A, B, F, criterion), rel=1e-10)
    for t in (1, 2, 3):
        for T in itertools.combinations(range(len(R)), t):
            whole = _value(A, B, [*F, *R[list(T)]], criterion)
            np.testing.assert_allclose(fF + _value(Mp, Bp, T, "trace"), whole, rtol=1e-9)


def test_all_forced_and_bad_input():
    rng = np.random.default_rng(0)
    A, B, _ = _problem(rng, 6, "factor")
    res = exact_support(A, B, 2, criterion="trace", always_select=[4, 1])  # k = |F|: no search
    assert res.support.tolist() == [1, 4] and res.status == "optimal" and res.n_nodes == 0
    assert res.objective == pytest.approx(_value(A, B, [1, 4], "trace"))
    calls = []
    bad = [
        (dict(always_select=[0, 1, 2], k=2), "more than k = 2"),
        (dict(always_select=[0], never_select=[0, 3], k=2), "both always_select and never_select"),
        (dict(always_select=[7], k=2), "outside [0, 5]"),
        (dict(always_select=[0], k=2, initial=[1, 2]), "contain every always_select feature"),
    ]
    for kw, msg in bad:
        kw = {"criterion": "trace", **kw}
        k = kw.pop("k")
        with pytest.raises(ValueError, match=msg.replace("[", r"\[").replace("]", r"\]")):
            exact_support(A, B, k, callback=calls.append, **kw)
    assert calls == []  # refused before any search
    Bs = B.copy()
    Bs[np.ix_([0, 1], [0, 1])] = [[1.0, 1.0], [1.0, 1.0]]  # B_FF singular: B is refused before any reduction
    with pytest.raises(ValueError, match="positive definite"):
        exact_support(A, Bs, 3, criterion="trace", always_select=[0, 1])


MAX_EIG_FORMS = ["factor", "psd", "spca", "indefinite"]


def _max_eig_problem(rng, p, form):
    X = rng.standard_normal((p + 3, p))
    B = X.T @ X / (p + 3) + 0.05 * np.eye(p)
    Y = rng.standard_normal((p, p))
    if form == "factor":
        return rng.standard_normal((p, 3)), B
    if form == "psd":
        return Y @ Y.T / p, B
    if form == "spca":
        return Y @ Y.T / p, None
    return (Y + Y.T) / 2, B


@pytest.mark.parametrize("form", MAX_EIG_FORMS)
def test_the_largest_eigenvalue_with_forced_features_fixed_at_the_root(form):
    """'max-eig' of a matrix pair does not split over the forced features: the search fixes them in
    at its root. The support is the brute-force best of those that contain F (and avoid E), the
    bound never below it, also when a node limit stops the search."""
    rng = np.random.default_rng(11 + len(form))
    statuses = set()
    for _ in range(8):
        p = int(rng.integers(6, 10))
        A, B = _max_eig_problem(rng, p, form)
        Bf = np.eye(p) if B is None else B
        F = sorted(rng.choice(p, int(rng.integers(1, 3)), replace=False).tolist())
        rest = [j for j in range(p) if j not in F]
        E = sorted(rng.choice(rest, int(rng.integers(0, 3)), replace=False).tolist())
        k = int(rng.integers(len(F) + 1, min(p - len(E), len(F) + 4) + 1))
        best, argbest = _best(A, Bf, k, F, E, "max-eig")
        res = exact_support(A, B, k, criterion="max-eig", always_select=F, never_select=E or None)
        assert res.status == "optimal" and tuple(res.support.tolist()) == argbest
        np.testing.assert_allclose(res.objective, best, rtol=1e-9)
        np.testing.assert_array_equal(res.info["always_select"], F)
        stopped = exact_support(A, B, k, criterion="max-eig", always_select=F, never_select=E or None, node_limit=1)
        assert set(F) <= set(stopped.support.tolist()) and not set(E) & set(stopped.support.tolist())
        assert stopped.upper_bound >= best - 1e-9 * abs(best)
        statuses.add(stopped.status)
    assert "node_limit" in statuses
