"""The certified bound of a stopped search of an additive objective is capped by the inclusion
principle summed over the k largest generalized eigenvalues (for the column subset: the kept mass
of k principal components), and never falls below the brute-force optimum."""

from itertools import combinations

import numpy as np
import pytest

from pixsel.spectral import exact_path, exact_support
from pixsel.spectral._criteria import ColumnSubset, Trace


def _covariance(seed, p=9, n=60):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) @ rng.standard_normal((p, p)) + 0.2 * rng.standard_normal((n, p))
    X -= X.mean(axis=0)
    C = X.T @ X
    return C / np.trace(C)


def _brute(crit, A, B, p, k):
    return max(crit.value(A, B, S) for S in combinations(range(p), k))


@pytest.mark.parametrize("seed", range(3))
def test_stopped_single_size_bound_is_capped_and_valid(seed):
    C = _covariance(seed)
    crit = ColumnSubset()
    A, B, _ = crit.pair(C)
    pca = np.cumsum(np.sort(np.linalg.eigvalsh(C))[::-1])
    for k in (3, 5):
        best = _brute(crit, A, B, 9, k)
        res = exact_support(A, B, k, criterion=crit, node_limit=0)
        assert res.upper_bound >= best - 1e-12
        assert res.objective <= best + 1e-12
        assert res.status == "node_limit"  # stopped at the root: the bound is the cap, not f(all)
        assert res.upper_bound <= pca[k - 1] * (1 + 1e-8) + 1e-12 < 1.0
        finished = exact_support(A, B, k, criterion=crit)
        assert finished.status == "optimal" and finished.objective == pytest.approx(best, rel=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_stopped_path_bounds_are_capped_and_valid(seed):
    C = _covariance(seed, p=10)
    crit = ColumnSubset()
    A, B, _ = crit.pair(C)
    pca = np.cumsum(np.sort(np.linalg.eigvalsh(C))[::-1])
    path = exact_path(A, B, criterion=crit, node_limit=1)
    assert not path.certified.all()
    for k in range(1, 11):
        best = _brute(crit, A, B, 10, k)
        assert path.upper_bound[k - 1] >= best - 1e-12
        assert path.objective[k - 1] <= best + 1e-12
        if not path.certified[k - 1]:
            assert path.upper_bound[k - 1] <= pca[k - 1] * (1 + 1e-8) + 1e-12


def test_trace_of_a_factor_is_capped_too():
    """A plain 'trace' pair (factor M, B): the cap is the sum of the k largest eigenvalues of
    (M M^T, B), above the brute-force optimum."""
    rng = np.random.default_rng(4)
    M = rng.standard_normal((9, 3))
    G = rng.standard_normal((30, 9))
    B = G.T @ G / 30 + 0.1 * np.eye(9)
    gen = np.sort(np.linalg.eigvalsh(np.linalg.solve(np.linalg.cholesky(B), M) @ np.linalg.solve(
        np.linalg.cholesky(B), M).T))[::-1]
    for k in (2, 4):
        best = _brute(Trace(), M, B, 9, k)
        res = exact_support(M, B, k, criterion="trace", node_limit=0)
        assert res.upper_bound >= best - 1e-12
        if res.status != "optimal":
            assert res.upper_bound <= np.sum(gen[:k]) * (1 + 1e-8) + 1e-12
