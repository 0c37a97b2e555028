import numpy as np
import pytest

from pixsel.spectral.greedy._fullrank import fullrank_greedy_path
from pixsel.spectral.greedy._multiclass import multiclass_greedy_path


def _sym(rng, p, psd=True, rank=None):
    W = rng.standard_normal((p, rank or p + 3))
    A = W @ W.T / W.shape[1]
    if not psd:
        A = A - 0.7 * np.eye(p)
    return A


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
@pytest.mark.parametrize("useB", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_greedy_oracle(oracle, direction, criterion, useB, seed):
    rng = np.random.default_rng(seed)
    p = 9
    A = _sym(rng, p, psd=seed == 0)
    B = oracle.spd(rng, p) if useB else None
    path = fullrank_greedy_path(A, B, direction=direction, criterion=criterion)
    order, obj = oracle.greedy(A, B, direction, criterion)
    np.testing.assert_array_equal(path.order, order)
    np.testing.assert_allclose(path.objective, obj, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_rank_deficient_A(oracle, direction):
    rng = np.random.default_rng(11)
    p = 10
    A = _sym(rng, p, rank=3)
    for B in (None, oracle.spd(rng, p)):
        path = fullrank_greedy_path(A, B, direction=direction)
        order, obj = oracle.greedy(A, B, direction)
        np.testing.assert_allclose(path.objective, obj, rtol=1e-9, atol=1e-10)
        np.testing.assert_array_equal(path.order, order)


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_agrees_with_low_rank_form(oracle, direction, criterion):
    rng = np.random.default_rng(8)
    p, r = 14, 3
    M = rng.standard_normal((p, r))
    B = oracle.spd(rng, p)
    low = multiclass_greedy_path(M, B, direction=direction, criterion=criterion)
    full = fullrank_greedy_path(M @ M.T, B, direction=direction, criterion=criterion)
    np.testing.assert_array_equal(low.order, full.order)
    np.testing.assert_allclose(low.objective, full.objective, rtol=1e-8, atol=1e-10)


def test_full_support_is_plain_pca():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 12)) @ rng.standard_normal((12, 12))
    A = np.cov(X, rowvar=False)
    top = np.linalg.eigvalsh(A)[-1]
    for d in ("forward", "backward"):
        assert fullrank_greedy_path(A, direction=d).objective[-1] == pytest.approx(top, rel=1e-10)


def test_larger_problem_screening_is_exact():
    """p = 60: greedy from the secular kernel equals the from-scratch greedy for 12 steps."""
    rng = np.random.default_rng(3)
    p = 60
    X = rng.standard_normal((80, p)) @ (np.eye(p) + 0.3 * rng.standard_normal((p, p)))
    A = np.cov(X, rowvar=False)
    path = fullrank_greedy_path(A, max_k=12)
    S = []
    for t in range(12):
        vals = [
            -np.inf if i in S else np.linalg.eigvalsh(A[np.ix_(S + [i], S + [i])])[-1] for i in range(p)
        ]
        S.append(int(np.argmax(vals)))
        assert path.objective[t] == pytest.approx(max(vals), rel=1e-11)
    assert path.order.tolist() == S
    assert path.info["n_secular"] < 12 * p / 2  # the screening discarded most candidates


@pytest.mark.parametrize("seed", [0, 4])
def test_partial_and_secular_methods_agree(seed):
    rng = np.random.default_rng(seed)
    p = 40
    A = np.cov(rng.standard_normal((50, p)) @ (np.eye(p) + 0.2 * rng.standard_normal((p, p))), rowvar=False)
    a = fullrank_greedy_path(A, max_k=25)
    for method in ("secular", "partial"):
        b = fullrank_greedy_path(A, max_k=25, method=method)
        np.testing.assert_array_equal(a.order, b.order)
        np.testing.assert_allclose(a.objective, b.objective, rtol=1e-10)
    assert a.info["n_krylov"] > 0
    assert b.info["n_partial_eigh"] > 0


def test_many_survivors_fall_back_to_secular(oracle):
    """Identical diagonal and symmetric couplings: many candidates tie and survive."""
    p = 9
    A = np.eye(p) + 0.1 * np.ones((p, p))
    path = fullrank_greedy_path(A)
    order, obj = oracle.greedy(A, None, "forward")
    np.testing.assert_allclose(path.objective, obj, rtol=1e-10)
    np.testing.assert_array_equal(path.order, order)


def test_unknown_method_is_rejected():
    with pytest.raises(ValueError, match="'method' parameter"):
        fullrank_greedy_path(np.eye(3), method="lanczos")
