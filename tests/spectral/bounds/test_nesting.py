"""Tests of the paper-000 bounds: Eq. (5) sparsity lower bound and Eq. (6) nesting bound."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixsel.spectral import (
    SparsePath,
    check_nesting_bound,
    greedy_path,
    nesting_ratios,
    objective_on_support,
    sparsity_lower_bound,
)


def make_pair(seed, p, kind):
    rng = np.random.default_rng(seed)
    if kind == "sample":
        X = rng.standard_normal((p + 2, p)) * rng.uniform(0.1, 3.0, p)
        B = X.T @ X / (p + 2)
    elif kind == "ill":
        Q, _ = np.linalg.qr(rng.standard_normal((p, p)))
        B = (Q * np.logspace(0, rng.uniform(0, 8), p)) @ Q.T
        B = (B + B.T) / 2
    else:  # equicorrelated
        B = np.eye(p) + rng.uniform(0, 0.99) * np.ones((p, p))
    a = rng.standard_normal(p) * rng.uniform(0.01, 10.0, p)
    return a, B


def test_sparsity_bound_formula():
    a = np.array([3.0, -1.0, 2.0, 0.0])
    B = np.diag([1.0, 2.0, 4.0, 0.5])
    np.testing.assert_allclose(sparsity_lower_bound(a, B), np.array([9.0, 13.0, 14.0, 14.0]) / 4.0)


def test_sparsity_bound_is_tight_for_identity():
    """B = I: f(S) = ||a_S||^2, the bound is the optimum and the greedy path reaches it."""
    a = np.random.default_rng(0).standard_normal(10)
    bound = sparsity_lower_bound(a, np.eye(10))
    np.testing.assert_allclose(greedy_path(a, np.eye(10)).objective, bound, rtol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_sparsity_bound_below_the_optimum_brute_force(seed):
    a, B = make_pair(seed, 7, ("sample", "ill", "equi")[seed % 3])
    bound = sparsity_lower_bound(a, B)
    for k in range(1, 8):
        best = max(objective_on_support(a, B, S) for S in combinations(range(7), k))
        assert best >= bound[k - 1] * (1 - 1e-9)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(1, 14), kind=st.sampled_from(["sample", "ill", "equi"]))
def test_greedy_path_is_above_the_sparsity_bound(seed, p, kind):
    a, B = make_pair(seed, p, kind)
    bound = sparsity_lower_bound(a, B)
    forward = greedy_path(a, B, direction="forward").objective
    backward = greedy_path(a, B, direction="backward").objective
    assert np.all(forward >= bound * (1 - 1e-9))
    assert np.all(np.maximum(forward, backward) >= bound * (1 - 1e-9))  # the dual pass


def test_backward_alone_can_fall_below_the_sparsity_bound():
    """Documented limitation: the bound is about the best support, not every greedy one."""
    rng = np.random.default_rng(0)
    found = False
    for _seed in range(300):
        a, B = make_pair(int(rng.integers(2**32)), int(rng.integers(3, 12)), "ill")
        if np.any(greedy_path(a, B, direction="backward").objective < sparsity_lower_bound(a, B) * (1 - 1e-6)):
            found = True
            break
    assert found


def test_sparsity_bound_errors():
    with pytest.raises(ValueError, match="positive largest eigenvalue"):
        sparsity_lower_bound(np.ones(3), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="same features"):
        sparsity_lower_bound(np.ones(2), np.eye(3))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(2, 14))
def test_nesting_bound_holds_on_backward_paths_with_diagonal_b(seed, p):
    """Eq. (6) holds whenever f is separable (B diagonal, e.g. sparse PCA's B = I)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(p) * rng.uniform(0.01, 10.0, p)
    B = np.diag(rng.uniform(0.01, 10.0, p))
    path = greedy_path(a, B, direction="backward")
    assert check_nesting_bound(path)
    k = np.arange(1, p)
    assert np.all(nesting_ratios(path) >= k / (k + 1) * (1 - 1e-9))
    # the recursion: greedy keeps at least k/p of the full objective
    assert np.all(path.objective >= np.arange(1, p + 1) / p * path.objective[-1] * (1 - 1e-9))


def test_nesting_bound_fails_for_suppressor_pairs():
    """The paper's Eq. (6) does not hold for general binary SLDA: the check can say so."""
    a, B = np.array([1.0, -1.0]), np.array([[1.0, 0.9], [0.9, 1.0]])
    path = greedy_path(a, B, direction="backward")
    np.testing.assert_allclose(path.objective, [1.0, 20.0])
    np.testing.assert_allclose(nesting_ratios(path), [0.05])
    assert not check_nesting_bound(path)


def test_nesting_ratios_on_a_handmade_path():
    path = SparsePath(order=np.arange(4), objective=np.array([0.0, 0.0, 2.0, 3.0]), direction="backward", A=np.ones(4))
    np.testing.assert_allclose(nesting_ratios(path), [1.0, 0.0, 2.0 / 3.0])
    assert not check_nesting_bound(path)  # 0 < 2/3 * 2
    with pytest.raises(TypeError, match="SparsePath"):
        nesting_ratios(np.ones(3))
    with pytest.raises(ValueError, match="'rtol' parameter"):
        check_nesting_bound(path, rtol=-1.0)
