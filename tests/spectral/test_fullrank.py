import numpy as np
import pytest

from pixsel.spectral._fullrank import fullrank_greedy_path
from pixsel.spectral._multiclass import multiclass_greedy_path


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


def test_closed_form_3x3_bound_is_an_upper_bound():
    from pixsel.spectral._fullrank import _arrow3_max

    rng = np.random.default_rng(0)
    n = 2000
    a = rng.standard_normal(n) * 3
    b = a - np.abs(rng.standard_normal(n)) * rng.choice([0, 1e-9, 1.0], n)  # near-double cases
    c, d, e = rng.standard_normal((3, n)) * rng.choice([1e-6, 1.0], (3, n))
    T = np.zeros((n, 3, 3))
    T[:, 0, 0], T[:, 1, 1], T[:, 2, 2] = a, b, c
    T[:, 0, 2] = T[:, 2, 0] = d
    T[:, 1, 2] = T[:, 2, 1] = e
    exact = np.linalg.eigvalsh(T)[:, -1]
    ub = _arrow3_max(a, b, c, d, e)
    assert np.all(ub >= exact)
    assert np.all(ub - exact <= 1e-6 * (np.abs(a) + np.abs(b) + np.abs(c) + np.hypot(d, e)))


def _spiked(rng, p, n, strengths):
    """Covariance with planted spikes of the given strengths on overlapping supports."""
    X = rng.standard_normal((n, p))
    for s in strengths:
        u = np.zeros(p)
        u[rng.choice(p, p // 3, replace=False)] = rng.standard_normal(p // 3)
        X += np.sqrt(s) * rng.standard_normal((n, 1)) * u / np.linalg.norm(u)
    return np.cov(X, rowvar=False)


@pytest.mark.parametrize("seed", [0, 1])
def test_krylov_path_brute_force_near_degenerate_top_pair(seed):
    """Two spikes of almost equal strength (theta_1 ~ theta_2): every step is the exact argmax."""
    rng = np.random.default_rng(seed)
    p = 36
    A = _spiked(rng, p, 200, [30.0, 29.0, 5.0])
    path = fullrank_greedy_path(A)
    assert path.info["n_krylov"] > 0
    S = []
    for t in range(p):
        vals = [-np.inf if i in S else np.linalg.eigvalsh(A[np.ix_(S + [i], S + [i])])[-1] for i in range(p)]
        best = int(np.argmax(vals))
        assert path.order[t] == best
        assert path.objective[t] == pytest.approx(vals[best], rel=1e-11)
        S.append(best)


def test_krylov_path_matches_dense_partial_path_full_length():
    """p = 100, whole path: the Krylov route gives the same order as one dense eigh per survivor."""
    rng = np.random.default_rng(5)
    A = _spiked(rng, 100, 200, [50.0, 20.0, 8.0])
    a = fullrank_greedy_path(A)
    b = fullrank_greedy_path(A, method="partial")
    np.testing.assert_array_equal(a.order, b.order)
    np.testing.assert_allclose(a.objective, b.objective, rtol=1e-11)
    assert a.info["n_krylov"] >= 90 and a.info["n_dense_steps"] < 10  # the cheap route did the work


def test_top2_krylov_certified_bounds():
    """Ritz values are lower bounds; Temple's bound with the interlacing gap is an upper bound."""
    from pixsel.spectral._fullrank import _top2_krylov

    rng = np.random.default_rng(2)
    for t in (5, 40, 120):
        A = _spiked(rng, t + 1, 3 * t, [20.0, 10.0])
        w_old = np.linalg.eigvalsh(A[:t, :t])
        w = np.linalg.eigvalsh(A)
        _, Vt = np.linalg.eigh(A[:t, :t])
        V0 = np.zeros((t + 1, 3))
        V0[:t, :2] = Vt[:, [-1, -2]]
        V0[t, 2] = 1.0
        mu, U, MU, e1, e = _top2_krylov(A, V0, A @ V0, 1e-9, 1e-5)
        np.testing.assert_allclose(U.T @ U, np.eye(2), atol=1e-12)
        np.testing.assert_allclose(MU, A @ U, atol=1e-9)
        assert mu[0] <= w[-1] * (1 + 1e-13) and mu[1] <= w[-2] * (1 + 1e-13)  # up to rounding
        assert np.linalg.norm(A @ U[:, 0] - mu[0] * U[:, 0]) <= e1 * (1 + 1e-9) and e1 <= 1e-9
        hi = mu[0] + e1**2 / (mu[0] - w_old[-1])  # theta_2(A) <= theta_1(A_SS): interlacing
        assert w[-1] <= hi * (1 + 1e-13)  # eigvalsh itself is accurate to ~ eps |A|


def test_krylov_backward_matches_secular_backward():
    """p = 60: the certified Krylov backward path equals the full-spectrum one."""
    rng = np.random.default_rng(7)
    A = _spiked(rng, 60, 120, [40.0, 38.0, 6.0])
    a = fullrank_greedy_path(A, direction="backward")
    b = fullrank_greedy_path(A, direction="backward", method="secular")
    np.testing.assert_array_equal(a.order, b.order)
    np.testing.assert_allclose(a.objective, b.objective, rtol=1e-11)
    assert a.info["n_krylov"] > 0


@pytest.mark.parametrize("seed", [0, 3])
def test_krylov_backward_brute_force(oracle, seed):
    rng = np.random.default_rng(seed)
    A = _spiked(rng, 11, 40, [8.0, 7.5])
    path = fullrank_greedy_path(A, direction="backward")
    order, obj = oracle.greedy(A, None, "backward")
    np.testing.assert_array_equal(path.order, order)
    np.testing.assert_allclose(path.objective, obj, rtol=1e-10)


def test_unknown_method_is_rejected():
    with pytest.raises(ValueError, match="'method' parameter"):
        fullrank_greedy_path(np.eye(3), method="lanczos")
