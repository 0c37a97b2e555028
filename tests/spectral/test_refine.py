import numpy as np
import pytest

from pixsel.spectral import greedy_path
from pixsel.spectral._refine import refine_support


@pytest.mark.parametrize("seed", range(4))
def test_never_worse_same_size_and_exact_value(oracle, seed):
    rng = np.random.default_rng(seed)
    p = 10
    A = np.cov(rng.standard_normal((30, p)) @ (np.eye(p) + 0.6 * rng.standard_normal((p, p))), rowvar=False)
    path = greedy_path(A, form="full")
    for k in (2, 4, 7):
        start = rng.choice(p, k, replace=False)
        S, value, info = refine_support(A, start)
        assert len(S) == k and len(set(S)) == k
        assert value == pytest.approx(oracle.value(A, None, S), rel=1e-12)
        assert value >= oracle.value(A, None, start) * (1 - 1e-12)
        S2, v2, _ = refine_support(A, path.support(k))
        assert v2 >= path.objective[k - 1] * (1 - 1e-12)
        assert v2 <= oracle.best(A, None, k) * (1 + 1e-12)


def test_swap_escapes_a_bad_start():
    A = np.array([[1.0, 0.9, 0.0, 0.0], [0.9, 1.0, 0.0, 0.0], [0.0, 0.0, 1.5, 0.0], [0.0, 0.0, 0.0, 0.1]])
    S, value, info = refine_support(A, [1, 3])
    assert S.tolist() == [0, 1] and value == pytest.approx(1.9)


@pytest.mark.parametrize("seed", range(3))
def test_exchange_lower_bounds_are_certified(seed):
    """Every Rayleigh-Ritz screening value is <= the exact lambda_max of its exchanged support."""
    from pixsel.spectral._refine import _exchange_bounds

    rng = np.random.default_rng(seed)
    p, k = 16, 6
    A = np.cov(rng.standard_normal((40, p)) @ (np.eye(p) + 0.5 * rng.standard_normal((p, p))), rowvar=False)
    S = np.sort(rng.choice(p, k, replace=False))
    theta, V = np.linalg.eigh(A[np.ix_(S, S)])
    bounds = _exchange_bounds(A, S, theta, V, n_exchange=4, max_exchange=3)
    assert len(bounds) == 4 * 4 + 6 * 6 + 4 * 4
    gaps = []
    for lb, R, J in bounds:
        T = np.sort(np.concatenate([np.setdiff1d(S, R), J]))
        exact = np.linalg.eigvalsh(A[np.ix_(T, T)])[-1]
        assert lb <= exact * (1 + 1e-12)
        gaps.append(exact - lb)
    assert min(gaps) < 0.05 * theta[-1]  # and it is informative, not a trivial bound


def test_group_moves_beat_single_swaps_on_faces(shared_data):
    """Extended Yale B at 16 x 16, k = 30: grow-and-shrink escapes the 1-swap local optimum."""
    d = shared_data("extyaleb_32x32.npz")
    X = d["X"].astype(np.float64).reshape(-1, 32, 32)[:600, ::2, ::2].reshape(600, -1)
    A = np.cov(X, rowvar=False)
    A0 = A.copy()
    k = 30
    start = greedy_path(A, form="full", max_k=k, certificate=None).support(k)
    _, v_swap, _ = refine_support(A, start, n_exchange=0, max_grow=0)
    S, v, info = refine_support(A, start)
    assert v > v_swap * (1 + 1e-6) and info["n_grow_shrink"] >= 1
    assert v == pytest.approx(np.linalg.eigvalsh(A[np.ix_(S, S)])[-1], rel=1e-12)
    np.testing.assert_array_equal(A, A0)  # caller's matrix untouched


def test_deterministic_and_input_untouched():
    rng = np.random.default_rng(11)
    p = 30
    A = np.cov(rng.standard_normal((60, p)) @ (np.eye(p) + 0.4 * rng.standard_normal((p, p))), rowvar=False)
    A0 = A.copy()
    start = np.arange(0, p, 3)
    S1, v1, i1 = refine_support(A, start)
    S2, v2, i2 = refine_support(A, start)
    assert S1.tolist() == S2.tolist() and v1 == v2 and i1 == i2
    np.testing.assert_array_equal(A, A0)
