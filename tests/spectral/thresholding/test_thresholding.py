"""Tests of the thresholding baselines (Fisher and simple thresholding, renormalized)."""

from itertools import combinations

import numpy as np
import pytest
import scipy.linalg as sla

from pixsel.spectral import (
    fisher_thresholding_path,
    greedy_path,
    objective_on_support,
    simple_thresholding_path,
)


def random_pair(seed, p):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((2 * p + 3, p)) * rng.uniform(0.5, 2.0, p)
    return rng.standard_normal(p), X.T @ X / (2 * p + 3)


@pytest.mark.parametrize("seed", range(5))
def test_fisher_ranks_the_fisher_direction_and_prefixes_are_exact(seed):
    a, B = random_pair(seed, 12)
    path = fisher_thresholding_path(a, B)
    z = np.linalg.solve(B, a)
    np.testing.assert_array_equal(path.order, np.argsort(-np.abs(z), kind="stable"))
    assert path.direction == "fisher"
    for k in range(1, 13):
        assert path.objective[k - 1] == pytest.approx(objective_on_support(a, B, path.order[:k]), rel=1e-10)
        np.testing.assert_array_equal(path.support(k), np.sort(path.order[:k]))
    np.testing.assert_allclose(path.info["scores"], z, rtol=1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_simple_ranks_the_whitened_eigenvector_and_prefixes_are_exact(seed):
    a, B = random_pair(10 + seed, 12)
    path = simple_thresholding_path(a, B)
    s, U = np.linalg.eigh(B)
    B_isqrt = U @ np.diag(s**-0.5) @ U.T
    C = B_isqrt @ np.outer(a, a) @ B_isqrt
    v = np.linalg.eigh(C)[1][:, -1]
    np.testing.assert_array_equal(path.order, np.argsort(-np.abs(v), kind="stable"))
    assert path.direction == "simple"
    for k in range(1, 13):
        assert path.objective[k - 1] == pytest.approx(objective_on_support(a, B, path.order[:k]), rel=1e-10)
    # mapping v back gives the Fisher direction for rank-one A (the docstring's remark)
    back = B_isqrt @ path.info["scores"]
    z = np.linalg.solve(B, a)
    np.testing.assert_allclose(back / np.linalg.norm(back), z / np.linalg.norm(z) * np.sign(back @ z), atol=1e-10)


def test_identity_b_all_methods_agree_with_the_optimum():
    """Limit case B = I: f(S) = ||a_S||^2, every ranking is by |a| and optimal."""
    a = np.random.default_rng(3).standard_normal(9)
    best = np.cumsum(np.sort(a**2)[::-1])
    for path in (fisher_thresholding_path(a, np.eye(9)), simple_thresholding_path(a, np.eye(9)), greedy_path(a, np.eye(9))):
        np.testing.assert_allclose(path.objective, best, rtol=1e-12)


def test_diagonal_b_simple_thresholding_is_optimal_fisher_is_not():
    """Diagonal B: f is separable in a_i^2/B_ii, which ST ranks (|a_i|/sqrt(B_ii)); Fisher ranks
    |a_i|/B_ii and can be suboptimal."""
    a = np.array([1.0, 2.0, 0.5, 3.0, 0.1])
    B = np.diag([1.0, 8.0, 1.0, 4.0, 0.01])
    st_path = simple_thresholding_path(a, B)
    fi_path = fisher_thresholding_path(a, B)
    for k in range(1, 6):
        best = max(objective_on_support(a, B, S) for S in combinations(range(5), k))
        assert st_path.objective[k - 1] == pytest.approx(best, rel=1e-12)
        assert fi_path.objective[k - 1] <= best * (1 + 1e-12)
    assert fi_path.objective[0] < st_path.objective[0]  # Fisher picks feature 4 first (|a|/B = 10)


def test_simple_thresholding_accepts_a_matrix_or_a_factor():
    rng = np.random.default_rng(4)
    a, B = random_pair(4, 8)
    vec = simple_thresholding_path(a, B)
    mat = simple_thresholding_path(np.outer(a, a), B)
    fac = simple_thresholding_path(a[:, None], B)
    for path in (mat, fac):
        np.testing.assert_array_equal(path.order, vec.order)
        np.testing.assert_allclose(path.objective, vec.objective, rtol=1e-9)
    # a full-rank A: prefixes are generalized eigenvalues
    M = rng.standard_normal((8, 3))
    path = simple_thresholding_path(M @ M.T, B)
    for k in (1, 4, 8):
        S = path.order[:k]
        expected = sla.eigh((M @ M.T)[np.ix_(S, S)], B[np.ix_(S, S)], eigvals_only=True)[-1]
        assert path.objective[k - 1] == pytest.approx(expected, rel=1e-10)


def test_float32_and_callers_arrays_unchanged():
    a, B = random_pair(6, 10)
    a32, B32 = a.astype(np.float32), B.astype(np.float32)
    a0, B0 = a32.copy(), B32.copy()
    for fn in (fisher_thresholding_path, simple_thresholding_path):
        path = fn(a32, B32)
        assert path.objective.dtype == np.float64
        ref = fn(a32.astype(np.float64), B32.astype(np.float64))
        np.testing.assert_array_equal(path.order, ref.order)
    np.testing.assert_array_equal(a32, a0)
    np.testing.assert_array_equal(B32, B0)


@pytest.mark.parametrize("fn", [fisher_thresholding_path, simple_thresholding_path])
def test_singular_b_and_bad_input(fn):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((3, 6))
    with pytest.raises(ValueError, match="regularization='auto'"):
        fn(rng.standard_normal(6), X.T @ X)
    with pytest.raises(ValueError, match="NaN or infinite"):
        fn(np.array([np.nan, 1.0]), np.eye(2))
    with pytest.raises(ValueError, match="square"):
        fn(np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="same features"):
        fn(np.ones(3), np.eye(2))
