"""Variable fixing in the full-matrix search (exact_support(fixing=...)) and its deletion values.

The deletion values (``drop_values``: lambda_max with one variable removed, from the secular
equation) are checked against a fresh eigenvalue computation; the search with and without
fixing against brute-force enumeration, finished and stopped."""

import itertools

import numpy as np
import pytest

from pixsel.spectral import exact_support
from pixsel.spectral.exact._batch_numba import drop_values


def _value(A, B, S):
    S = list(S)
    Li = np.linalg.inv(np.linalg.cholesky(B[np.ix_(S, S)]))
    return float(np.linalg.eigvalsh(Li @ A[np.ix_(S, S)] @ Li.T)[-1])


def brute_force(A, B, k):
    return max(_value(A, B, S) for S in itertools.combinations(range(len(A)), k))


def _problem(rng, p, kind, identity):
    if kind == "psd":
        Y = rng.standard_normal((p, p + 2))
        A = Y @ Y.T / p + np.outer(np.ones(p), np.ones(p))  # a common factor: correlated, pixel-like
    else:
        Y = rng.standard_normal((p, p))
        A = (Y + Y.T) / 2
    if identity:
        return A, None
    X = rng.standard_normal((p + 3, p))
    return A, X.T @ X / (p + 3) + 0.1 * np.eye(p)


@pytest.mark.parametrize("identity", [True, False])
def test_drop_values_match_fresh_eigenvalues(identity):
    rng = np.random.default_rng(int(identity))
    for p in (2, 3, 7, 12):
        A, B = _problem(rng, p, "indefinite", identity)
        B = np.eye(p) if B is None else B
        L = np.linalg.cholesky(B)
        Li = np.linalg.inv(L)
        w, Y = np.linalg.eigh(Li @ A @ Li.T)
        X = Li.T @ Y  # B-orthonormal
        got = drop_values(w[::-1], X[:, ::-1], np.arange(p))
        want = [_value(A, B, [i for i in range(p) if i != j]) for j in range(p)]
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(w).max())


def test_drop_values_repeated_and_decoupled_eigenvalues():
    """A variable decoupled from the top eigenvector leaves lambda_max unchanged; a repeated top
    eigenvalue survives any single deletion."""
    A = np.diag([5.0, 1.0, 1.0])
    got = drop_values(np.array([5.0, 1.0, 1.0]), np.eye(3), np.arange(3))
    np.testing.assert_allclose(got, [1.0, 5.0, 5.0])
    got = drop_values(np.array([2.0, 2.0, 0.5]), np.eye(3), np.arange(3))
    np.testing.assert_allclose(got, [2.0, 2.0, 2.0])
    assert A[0, 0] == 5.0


@pytest.mark.parametrize("bounds", ["cardinality", "sdp"])
@pytest.mark.parametrize("kind", ["psd", "indefinite"])
@pytest.mark.parametrize("identity", [True, False])
def test_with_and_without_fixing_match_enumeration(bounds, kind, identity):
    rng = np.random.default_rng([len(bounds), len(kind), int(identity)])
    for _ in range(12):
        p = int(rng.integers(4, 11))
        k = int(rng.integers(2, p))
        A, B = _problem(rng, p, kind, identity)
        best = brute_force(A, np.eye(p) if B is None else B, k)
        for fixing in (True, False):
            res = exact_support(A, B, k, bounds=bounds, fixing=fixing)
            assert res.status == "optimal"
            assert res.objective == pytest.approx(best, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("bounds", ["cardinality", "sdp"])
def test_stopped_solves_with_fixing_never_below_optimum(bounds):
    rng = np.random.default_rng(21)
    for _ in range(8):
        p, k = 12, int(rng.integers(3, 10))
        A, B = _problem(rng, p, "psd", identity=bool(rng.integers(2)))
        best = brute_force(A, np.eye(p) if B is None else B, k)
        for limit in (0, 1, 2, 5):
            res = exact_support(A, B, k, bounds=bounds, fixing=True, node_limit=limit)
            assert res.upper_bound >= best * (1 - 1e-9) - 1e-12
            assert res.objective <= best * (1 + 1e-9) + 1e-12


def test_fixing_is_validated_loosely_and_ignored_for_vectors():
    a = np.array([1.0, 0.5, 0.2])
    assert exact_support(a, None, 2, fixing=False).status == "optimal"
    assert exact_support(np.diag([3.0, 2.0, 1.0]), None, 2, fixing=1).support.tolist() == [0, 1]
