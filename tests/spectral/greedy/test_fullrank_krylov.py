"""The certified Krylov route of the full-rank greedy (sparse PCA) against dense and brute force."""

import numpy as np
import pytest

from pixsel.spectral.greedy._fullrank import fullrank_greedy_path
from pixsel.spectral.greedy._fullrank_krylov import _top2_krylov


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


def test_compiled_thin_products_match_numpy():
    """The fused Numba products of the Krylov path equal NumPy's on 1-5 vectors and a row subset."""
    from pixsel.spectral.greedy import _fullrank_jit as jit

    rng = np.random.default_rng(7)
    G = rng.standard_normal((40, 40))
    Gs = G + G.T
    rows = np.array([3, 0, 17, 39], dtype=np.intp)
    for n in (1, 25):
        for m in (1, 2, 3, 5):
            QT = rng.standard_normal((m, n))
            out = np.empty((m, n))
            jit.lead_block_matmul(G, n, QT, out)
            np.testing.assert_allclose(out, QT @ G[:n, :n].T, rtol=1e-12, atol=1e-12)
            out = np.full((m, n), np.nan)
            jit.lead_block_symmatmul(Gs, n, QT, out)
            np.testing.assert_allclose(out, QT @ Gs[:n, :n], rtol=1e-12, atol=1e-12)
            out = np.empty((m, len(rows)))
            jit.rows_matmul(G, rows, n, QT, out)
            np.testing.assert_allclose(out, QT @ G[rows, :n].T, rtol=1e-12, atol=1e-12)


def test_compiled_and_numpy_forward_paths_agree():
    """The compiled products change only rounding: same order, objectives to 1e-12."""
    from pixsel.spectral.greedy._fullrank_krylov import forward_krylov
    from pixsel.spectral._operators import DenseOperator

    A = _spiked(np.random.default_rng(8), 80, 160, [40.0, 12.0, 6.0])
    o1, f1, i1 = forward_krylov(DenseOperator(A), 80)
    o0, f0, i0 = forward_krylov(DenseOperator(A), 80, compiled=False)
    assert i1["n_krylov"] > 0
    np.testing.assert_array_equal(o1, o0)
    np.testing.assert_allclose(f1, f0, rtol=1e-12)


@pytest.mark.parametrize("t0", [1, 2, 7])
def test_forward_path_from_a_start_support_is_the_greedy_continuation(t0):
    """``start``: every later step is the exact argmax over the additions to the current support."""
    from pixsel.spectral.greedy._fullrank_krylov import forward_krylov
    from pixsel.spectral._operators import DenseOperator

    rng = np.random.default_rng(30 + t0)
    p = 30
    A = _spiked(rng, p, 90, [20.0, 9.0])
    start = rng.choice(p, t0, replace=False)
    order, objective, _ = forward_krylov(DenseOperator(A), p, start=start)
    np.testing.assert_array_equal(order[:t0], start)
    assert np.all(np.isnan(objective[: t0 - 1]))
    S = list(start)
    assert objective[t0 - 1] == pytest.approx(np.linalg.eigvalsh(A[np.ix_(S, S)])[-1], rel=1e-12)
    for t in range(t0, p):
        vals = [-np.inf if i in S else np.linalg.eigvalsh(A[np.ix_(S + [i], S + [i])])[-1] for i in range(p)]
        best = int(np.argmax(vals))
        assert order[t] == best and objective[t] == pytest.approx(vals[best], rel=1e-11)
        S.append(best)


def test_carried_ritz_start_changes_only_the_cost():
    """Starting each step's Krylov subspace from the previous step's top Ritz vectors (n_carry)
    gives the same exact greedy order, with fewer passes over A_SS."""
    from pixsel.spectral.greedy._fullrank_krylov import forward_krylov
    from pixsel.spectral._operators import DenseOperator

    A = _spiked(np.random.default_rng(12), 90, 150, [35.0, 15.0, 9.0, 4.0])
    o6, f6, i6 = forward_krylov(DenseOperator(A), 90, n_carry=6)
    o0, f0, i0 = forward_krylov(DenseOperator(A), 90, n_carry=0)
    assert i6["n_krylov"] > 0
    np.testing.assert_array_equal(o6, o0)
    np.testing.assert_allclose(f6, f0, rtol=1e-12)
