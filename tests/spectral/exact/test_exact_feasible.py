"""Placement constraints (a budget, regions, a minimum distance) in exact_support.

Oracle: brute force over the feasible supports of size k (every constraint checked on the
support, every objective valued from scratch by eigenvalues): the search returns their best, its
bound is never below it (also when a node limit stops it, started from a feasible support), every
support it offers is feasible, and a problem with no feasible support is refused."""

import itertools

import numpy as np
import pytest

from pixsel.scores import PlacementConstraints, placement_constraints
from pixsel.spectral import exact_support
from pixsel.spectral.exact._feasible import Feasibility

from .test_exact_force import _problem  # the same random pairs (vector, factor, column subset)
from .test_exact_support import _value  # the textbook objective, one copy


def _constraints(rng, p, k, which, side=3):
    if which == "budget":
        costs = rng.uniform(1, 2, p)
        return dict(costs=costs, budget=float(np.sort(costs)[:k].sum() + rng.uniform(0, 1.5)))
    if which == "max":
        return dict(regions=rng.integers(0, 3, p), max_per_region={0: 1, 1: 2})
    if which == "min":
        return dict(regions=rng.integers(0, 3, p), min_per_region={0: 1, 1: 1})
    return dict(min_distance=1.5, image_shape=(side, p // side))


@pytest.mark.parametrize("which", ["budget", "max", "min", "distance"])
@pytest.mark.parametrize("kind", ["vector", "factor", "column-subset"])
def test_the_best_feasible_support(kind, which):
    rng = np.random.default_rng(len(kind) * 10 + len(which))
    stopped = 0
    for _ in range(6):
        p, k = 9, int(rng.integers(2, 5))
        A, B, criterion = _problem(rng, p, kind)
        F = [] if rng.random() < 0.5 else [int(rng.integers(p))]
        E = [j for j in [int(rng.integers(p))] if j not in F] if rng.random() < 0.5 else []
        kw = _constraints(rng, p, k, which)
        try:
            cons = placement_constraints(p, k, always_select=F or None, never_select=E or None, **kw)
        except ValueError:
            continue  # (the cheap checks refuse some draws outright)
        fe = Feasibility.from_placement(cons)
        feas = [S for S in itertools.combinations(range(p), k)
                if set(F) <= set(S) and not set(E) & set(S) and fe.admits(list(S))]
        if not feas:
            with pytest.raises(ValueError, match="satisfying the placement constraints"):
                exact_support(A, B, k, criterion=criterion, always_select=F or None, never_select=E or None,
                              constraints=cons)
            continue
        best, argbest = max((_value(A, B, S, criterion), S) for S in feas)
        res = exact_support(A, B, k, criterion=criterion, always_select=F or None, never_select=E or None,
                            constraints=cons)
        assert res.status == "optimal" and tuple(res.support.tolist()) == argbest
        np.testing.assert_allclose(res.objective, best, rtol=1e-9)
        assert res.upper_bound >= best * (1 - 1e-12)
        early = exact_support(A, B, k, criterion=criterion, always_select=F or None, never_select=E or None,
                              constraints=cons, initial=list(feas[-1]), node_limit=2)
        assert fe.admits(early.support) and set(F) <= set(early.support.tolist())
        assert early.upper_bound >= best * (1 - 1e-9) and early.objective <= best * (1 + 1e-12)
        stopped += early.status == "node_limit"
    assert stopped >= 1  # a stopped search's bound was checked, not only proved optima


def test_constraints_are_refused_where_the_search_cannot_hold_them():
    """Sparse PCA (the largest eigenvalue of a full matrix) has no node check for them; a budget no
    support meets (built directly, past placement_constraints' own check) ends in a clear error."""
    rng = np.random.default_rng(0)
    C = np.cov(rng.standard_normal((20, 6)).T)
    with pytest.raises(ValueError, match="largest eigenvalue of a full matrix"):
        exact_support(C, None, 3, constraints=placement_constraints(6, 3, costs=np.ones(6), budget=3.0))
    A, B, _ = _problem(rng, 6, "factor")
    tight = PlacementConstraints(n_pixels=6, always=np.zeros(0, np.intp), never=np.zeros(6, bool),
                                 costs=np.ones(6), budget=1.5)  # two pixels of cost 1: none fits 1.5
    with pytest.raises(ValueError, match="none exists"):
        exact_support(A, B, 2, criterion="trace", constraints=tight)
    with pytest.raises(ValueError, match="always_select features break them"):  # k = |F|: no search, still checked
        exact_support(A, B, 2, criterion="trace", constraints=tight, always_select=[0, 1])
