"""The perspective (Boolean) relaxation bound of two-class sparse LDA, against brute force."""

from itertools import combinations

import numpy as np
import pytest

from pixsel.spectral.bounds._perspective import (
    _project_capped_simplex,
    perspective_bound,
    perspective_bounds_path,
    perspective_diagonal,
    perspective_dual_value,
    refine_diagonal,
)


def _all_values(oracle, a, B):
    """f(S) of every non-empty support, from scratch (the textbook oracle), keyed by frozenset."""
    p = a.size
    return {frozenset(S): oracle.value(a, B, S) for r in range(1, p + 1) for S in combinations(range(p), r)}


def _restricted_best(values, k, fixed_in, allowed):
    fixed, allowed = set(fixed_in), set(allowed)
    return max(v for S, v in values.items() if len(S) == k and fixed <= S <= allowed)


def _random_problems(oracle, seed, p):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(p)
    # correlated columns (a Brownian-type covariance) and a random SPD matrix
    X = np.cumsum(rng.standard_normal((3 * p, p)), axis=1)
    Bc = np.cov(X, rowvar=False) + 1e-3 * np.eye(p)
    return [(a, oracle.spd(rng, p)), (a, Bc), (rng.standard_normal(p) * rng.uniform(0.1, 3, p), oracle.cov(rng, p, 2 * p))]


@pytest.mark.parametrize("seed", range(3))
def test_never_below_brute_force(oracle, seed):
    p = 8
    for a, B in _random_problems(oracle, seed, p):
        values = _all_values(oracle, a, B)
        d = perspective_diagonal(B)
        assert np.all(d > 0)
        assert np.linalg.eigvalsh(B - np.diag(d))[0] >= -1e-12 * np.abs(B).max()
        for k in range(1, p + 1):
            best = _restricted_best(values, k, (), range(p))
            bound, info = perspective_bound(a, B, k, iters=30)
            assert bound >= best * (1 - 1e-12), (seed, k)
            # the relaxation's primal value is below its dual bound (weak duality)
            assert info["relaxation"] <= bound * (1 + 1e-9)
            assert info["z"].sum() == pytest.approx(k)
        # k = p: the relaxation is exact (z = 1)
        assert perspective_bound(a, B, p, iters=5)[0] == pytest.approx(oracle.value(a, B, range(p)), rel=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_any_dual_point_is_a_bound(oracle, seed):
    """g(v) bounds opt(k) at every v, not just at the relaxation's solution."""
    rng = np.random.default_rng(seed)
    p = 7
    for a, B in _random_problems(oracle, seed, p):
        d = perspective_diagonal(B)
        C = B - np.diag(d)
        for k in (1, 3, 5):
            best = oracle.best(a, B, k)
            for _ in range(20):
                v = rng.standard_normal(p) * rng.uniform(0, 3)
                assert perspective_dual_value(a, C, d, v, k) >= best * (1 - 1e-12)
            # and with a smaller diagonal (still B - D PSD)
            assert perspective_dual_value(a, B - np.diag(0.3 * d), 0.3 * d, np.zeros(p), k) >= best * (1 - 1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_node_bound_with_fixed_and_excluded_variables(oracle, seed):
    rng = np.random.default_rng(seed)
    p = 8
    for a, B in _random_problems(oracle, seed, p):
        values = _all_values(oracle, a, B)
        for _ in range(3):
            allowed = np.sort(rng.choice(p, rng.integers(4, p + 1), replace=False))
            fixed = rng.choice(allowed, rng.integers(0, 3), replace=False)
            for k in range(max(len(fixed), 1), len(allowed) + 1):
                best = _restricted_best(values, k, fixed.tolist(), allowed.tolist())
                bound, info = perspective_bound(a, B, k, fixed_in=fixed, allowed=allowed, iters=25)
                assert bound >= best * (1 - 1e-12)
                z = info["z"]
                assert np.all(z[fixed] == 1.0)
                assert np.all(z[np.setdiff1d(np.arange(p), allowed)] == 0.0)
                assert bound <= values[frozenset(allowed.tolist())] * (1 + 1e-6)  # at most inclusion


def test_diagonal_B_is_exact(oracle):
    """B diagonal: C = 0 up to the margin and the bound is the sum of the k largest a_i^2 / b_i."""
    rng = np.random.default_rng(5)
    p = 9
    a = rng.standard_normal(p)
    b = rng.uniform(0.5, 2.0, p)
    B = np.diag(b)
    for k in range(1, p + 1):
        exact = np.sort(a * a / b)[::-1][:k].sum()
        assert perspective_bound(a, B, k, iters=50)[0] == pytest.approx(exact, rel=1e-6)
        assert oracle.best(a, B, k) == pytest.approx(exact, rel=1e-12)


def test_tighter_than_inclusion_on_pixels(oracle, usps_pixel_pair):
    """Real pixels (USPS 3 vs 5): never below brute force, and below f(all) at small k."""
    for offset in (0, 30):
        a, B = usps_pixel_pair(11, offset)
        f_all = oracle.value(a, B, range(11))
        for k in (2, 4, 6, 9):
            best = oracle.best(a, B, k)
            bound = perspective_bound(a, B, k, iters=60)[0]
            assert best * (1 - 1e-12) <= bound
            if k <= 4:
                assert bound < f_all


def test_bad_input():
    B = np.eye(3)
    with pytest.raises(ValueError, match="fixed_in must lie inside allowed"):
        perspective_bound(np.ones(3), B, 2, fixed_in=[0], allowed=[1, 2])
    with pytest.raises(ValueError, match="k must be between"):
        perspective_bound(np.ones(3), B, 4)


def test_inputs_not_modified():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(5)
    B = np.cov(rng.standard_normal((20, 5)), rowvar=False)
    a0, B0 = a.copy(), B.copy()
    perspective_bound(a, B, 2, iters=5)
    assert np.array_equal(a, a0) and np.array_equal(B, B0)


def test_capped_simplex_projection_against_bisection():
    rng = np.random.default_rng(3)
    for t in range(300):
        n = int(rng.integers(1, 12))
        y = rng.standard_normal(n) * rng.uniform(0.1, 5)
        k = float(rng.uniform(0, n)) if t % 2 else int(rng.integers(0, n + 1))
        z = _project_capped_simplex(y, k)
        assert z.sum() == pytest.approx(k, abs=1e-9) and z.min() >= 0 and z.max() <= 1
        lo, hi = y.min() - 1, y.max()
        for _ in range(200):
            tau = (lo + hi) / 2
            lo, hi = (tau, hi) if np.clip(y - tau, 0, 1).sum() > k else (lo, tau)
        np.testing.assert_allclose(z, np.clip(y - (lo + hi) / 2, 0, 1), atol=1e-7)


def test_everything_fixed(oracle):
    rng = np.random.default_rng(2)
    a, B = rng.standard_normal(5), oracle.spd(rng, 5)
    bound = perspective_bound(a, B, 3, fixed_in=[0, 2, 4], allowed=[0, 1, 2, 4])[0]
    assert bound >= oracle.value(a, B, [0, 2, 4]) * (1 - 1e-12)
    assert perspective_bound(a, B, 2, fixed_in=[1, 3], allowed=[1, 3])[0] == pytest.approx(
        oracle.value(a, B, [1, 3]), rel=1e-9)


@pytest.mark.parametrize("seed", range(2))
def test_refined_diagonal_and_path(oracle, seed):
    """The refined diagonal stays in the cone, its bound never falls below brute force and never
    rises above the starting one; the path's bounds match the single-size ones."""
    p = 8
    for a, B in _random_problems(oracle, seed, p):
        values = _all_values(oracle, a, B)
        best = [_restricted_best(values, k, (), range(p)) for k in range(1, p + 1)]
        d0 = perspective_diagonal(B)
        for k in (2, 4):
            d1, b1 = refine_diagonal(a, B, d0, k, rounds=4, iters=30)
            assert np.linalg.eigvalsh(B - np.diag(d1))[0] > 0
            assert best[k - 1] * (1 - 1e-12) <= b1 <= perspective_bound(a, B, k, d=d0, iters=30)[0] * (1 + 1e-9)
        sizes = [7, 5, 3, 1]
        path = perspective_bounds_path(a, B, sizes, iters=30, refine=3, incumbents=[best[k - 1] for k in sizes])
        for k, b in zip(sizes, path):
            assert best[k - 1] * (1 - 1e-12) <= b <= perspective_bound(a, B, k, iters=30)[0] * (1 + 1e-9)
        # a deadline in the past skips every size
        assert np.all(np.isinf(perspective_bounds_path(a, B, sizes, deadline=0.0)))
