"""exact_path_batch (a stack of small pairs, one compiled loop) against brute-force enumeration.

Every pair is enumerated over every subset with a textbook objective (eigenvalues of the pair on
S, not the solver's code): the batch must return the optimum of every size, a support of that
size achieving it, and the greedy seeds' objectives must be those of ``greedy_path``."""

import itertools

import numpy as np
import pytest

from pixsel.spectral import ExactPathBatch, exact_path, exact_path_batch, greedy_path
from pixsel.spectral.exact import _batch, _batch_numba


def _value(A, B, S):
    S = list(S)
    Li = np.linalg.inv(np.linalg.cholesky(B[np.ix_(S, S)]))
    return float(np.linalg.eigvalsh(Li @ A[np.ix_(S, S)] @ Li.T)[-1])


def enumerate_all(A, B):
    p = len(A)
    return np.array([max(_value(A, B, S) for S in itertools.combinations(range(p), k)) for k in range(1, p + 1)])


def _stack(rng, N, p, kind):
    """N random pairs: A psd / indefinite / rank 1-2 / Brownian-like smooth; B SPD (some near
    singular) ."""
    As, Bs = [], []
    for n in range(N):
        if kind == "psd":
            Y = rng.standard_normal((p, p + 1))
            A = Y @ Y.T
        elif kind == "indefinite":
            Y = rng.standard_normal((p, p))
            A = (Y + Y.T) / 2
        elif kind == "lowrank":
            Y = rng.standard_normal((p, 1 + n % 2))
            A = Y @ Y.T
        else:  # smooth: sample covariance of a Gaussian-kernel process (nearly singular)
            i = np.arange(p)
            K = np.exp(-np.abs(i[:, None] - i[None, :]) ** 2 / rng.uniform(1, p))
            Z = rng.standard_normal((2 * p, p)) @ np.linalg.cholesky(K + 1e-9 * np.eye(p)).T
            A = Z.T @ Z / (2 * p)
        X = rng.standard_normal((p + 3, p))
        B = X.T @ X / (p + 3) + (1e-3 if n % 3 == 0 else 0.1) * np.eye(p)
        As.append((A + A.T) / 2)
        Bs.append(B)
    return np.stack(As), np.stack(Bs)


@pytest.mark.parametrize("kind", ["psd", "indefinite", "lowrank", "smooth"])
@pytest.mark.parametrize("p", [1, 2, 3, 5, 8, 10])
def test_every_size_matches_enumeration(kind, p):
    rng = np.random.default_rng(100 * p + len(kind))
    A, B = _stack(rng, 6, p, kind)
    A0, B0 = A.copy(), B.copy()
    res = exact_path_batch(A, B)
    assert isinstance(res, ExactPathBatch)
    assert np.array_equal(A, A0) and np.array_equal(B, B0)  # the caller's arrays untouched
    assert res.objective.shape == (6, p) and res.support_mask.shape == (6, p, p)
    for n in range(6):
        opt = enumerate_all(A[n], B[n])
        scale = np.abs(opt).max() + 1e-300
        np.testing.assert_allclose(res.objective[n], opt, rtol=1e-9, atol=1e-9 * scale)
        for k in range(1, p + 1):
            S = res.support(n, k)
            assert len(S) == k
            assert abs(_value(A[n], B[n], S) - opt[k - 1]) <= 1e-9 * scale
        # the seeds are feasible values, never above the optimum
        assert np.all(res.greedy_forward[n] <= opt + 1e-9 * scale)
        assert np.all(res.greedy_backward[n] <= opt + 1e-9 * scale)


def test_identity_B_is_sparse_pca():
    rng = np.random.default_rng(7)
    A, _ = _stack(rng, 4, 7, "psd")
    res = exact_path_batch(A)
    for n in range(4):
        np.testing.assert_allclose(res.objective[n], enumerate_all(A[n], np.eye(7)), rtol=1e-9)


def test_size_16_matches_exact_path_and_greedy_path():
    """At the Monte Carlo's size the batch must agree with the public single-pair solver, and its
    seeds with the public greedy paths (the GSLDA curve of the study)."""
    rng = np.random.default_rng(3)
    A, B = _stack(rng, 4, 16, "smooth")
    A[2:], _ = _stack(rng, 2, 16, "psd")
    res = exact_path_batch(A, B)
    for n in range(4):
        path = exact_path(A[n], B[n])
        assert all(path.status == "optimal")
        np.testing.assert_allclose(res.objective[n], path.objective, rtol=1e-9)
        fw = greedy_path(A[n], B[n], direction="forward").objective
        bw = greedy_path(A[n], B[n], direction="backward").objective
        np.testing.assert_allclose(res.greedy_forward[n], fw, rtol=1e-9)
        np.testing.assert_allclose(res.greedy_backward[n], bw, rtol=1e-9)
    assert np.all(res.n_nodes >= 0)


def test_search_does_work_beyond_the_seeds():
    """Pairs where greedy is not optimal exist in the stack, and the batch finds better supports:
    the search is not just returning its seeds."""
    rng = np.random.default_rng(11)
    A, B = _stack(rng, 40, 10, "indefinite")
    res = exact_path_batch(A, B)
    seeds = np.maximum(res.greedy_forward, res.greedy_backward)
    assert np.any(res.objective > seeds * (1 + 1e-6) + 1e-9)


def test_python_fallback_matches_compiled(monkeypatch):
    rng = np.random.default_rng(5)
    A, B = _stack(rng, 3, 6, "indefinite")
    compiled = exact_path_batch(A, B)
    monkeypatch.setattr(_batch_numba, "_COMPILED", False)
    monkeypatch.setattr(_batch, "_KENUM", 3)  # also walk the tree on a small pair
    plain = exact_path_batch(A, B)
    np.testing.assert_allclose(plain.objective, compiled.objective, rtol=1e-10)


def test_tree_alone_matches_enumeration(monkeypatch):
    """With no sizes enumerated beyond 2 every size above comes from the dropping tree."""
    monkeypatch.setattr(_batch, "_KENUM", 2)
    rng = np.random.default_rng(9)
    A, B = _stack(rng, 5, 9, "psd")
    res = exact_path_batch(A, B)
    for n in range(5):
        np.testing.assert_allclose(res.objective[n], enumerate_all(A[n], B[n]), rtol=1e-9)


@pytest.mark.parametrize(
    "A, B, match",
    [
        (np.eye(3), None, r"shape \(n_pairs, p, p\)"),
        (np.ones((2, 3, 4)), None, r"shape \(n_pairs, p, p\)"),
        (np.array([[[1.0, 2.0], [0.0, 1.0]]]), None, r"A\[0\] must be symmetric"),
        (np.array([[[1.0, np.nan], [np.nan, 1.0]]]), None, r"A must be finite; A\[0, 0, 1\]"),
        (np.stack([np.eye(2)] * 2), np.stack([np.eye(2), -np.eye(2)]), r"B\[1\] must be positive definite"),
        (np.stack([np.eye(2)] * 2), np.stack([np.eye(2)]), "same shape"),
        (np.zeros((1, 21, 21)), None, "at most 20 features"),
    ],
)
def test_bad_input(A, B, match):
    with pytest.raises(ValueError, match=match):
        exact_path_batch(A, B)


def test_bad_dtype_and_rtol():
    with pytest.raises(TypeError, match="real numbers"):
        exact_path_batch(np.array([[["a"]]]))
    with pytest.raises(ValueError, match="rtol"):
        exact_path_batch(np.eye(2)[None], rtol=-1.0)
