"""The compiled phases of the forward Krylov path against the NumPy route and plain NumPy."""

import numpy as np
import pytest
import scipy.linalg as sla

from pixsel.spectral.greedy import _fullrank_jit as jit
from pixsel.spectral.greedy._fullrank_krylov import _top2_krylov, forward_krylov
from pixsel.spectral._operators import DenseOperator
from pixsel.spectral.greedy._secular import arrow4_max, eig2_max


@pytest.mark.parametrize("seed,p,n", [(0, 70, 40), (1, 90, 300), (2, 120, 120)])
def test_compiled_path_matches_numpy_route_on_random_spd(seed, p, n, oracle):
    """Whole path (k = 1..p): the compiled phases give the NumPy route's order and objectives."""
    A = oracle.cov(np.random.default_rng(seed), p, n)
    o1, f1, i1 = forward_krylov(DenseOperator(A), p)
    o0, f0, i0 = forward_krylov(DenseOperator(A), p, compiled=False)
    assert i1["n_krylov"] > p // 2  # the Krylov route did the work, not the dense fallback
    np.testing.assert_array_equal(o1, o0)
    np.testing.assert_allclose(f1, f0, rtol=1e-11)


def test_compiled_path_matches_numpy_route_and_brute_force_on_a_planted_support(oracle):
    """Planted sparse spike: same order and objectives as NumPy; the first steps are the exact
    argmax (brute force) and pick the planted features."""
    rng = np.random.default_rng(4)
    p, k = 80, 8
    A, support = oracle.spike(rng, p, 400, k, 60.0)
    o1, f1, _ = forward_krylov(DenseOperator(A), p)
    o0, f0, _ = forward_krylov(DenseOperator(A), p, compiled=False)
    np.testing.assert_array_equal(o1, o0)
    np.testing.assert_allclose(f1, f0, rtol=1e-11)
    assert set(o1[:k].tolist()) == set(support.tolist())
    S = []
    for t in range(12):
        vals = [-np.inf if i in S else np.linalg.eigvalsh(A[np.ix_(S + [i], S + [i])])[-1] for i in range(p)]
        best = int(np.argmax(vals))
        assert o1[t] == best and f1[t] == pytest.approx(vals[best], rel=1e-11)
        S.append(best)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 25, 26, 27])
def test_symmetric_pass_two_rows_at_a_time_matches_numpy(n):
    """Odd and even sizes (the last row alone), one to five vectors, lower triangle only."""
    rng = np.random.default_rng(n)
    G = rng.standard_normal((30, 30))
    Gs = np.tril(G + G.T)  # the upper triangle is never read: zeros there would show
    full = Gs + np.tril(Gs, -1).T
    for m in (1, 2, 3, 5):
        QT = rng.standard_normal((m, n))
        out = np.full((m, n), np.nan)
        jit.lead_block_symmatmul(Gs, n, QT, out)
        np.testing.assert_allclose(out, QT @ full[:n, :n], rtol=1e-12, atol=1e-12)


def _state(A, S):
    """The state the path keeps for A_SS (as its dense_state): mu, U, MU, eps, gamma."""
    M = A[np.ix_(S, S)]
    t = len(S)
    w, V = sla.eigh(M, subset_by_index=[t - 3, t - 1])
    w, V = w[::-1], V[:, ::-1]
    U, mu = V[:, :2], w[:2]
    MU = M @ U
    eps = float(np.linalg.norm(MU - U * mu))
    return mu, U, MU, eps, w[2] + eps + 1e-12 * (abs(w[0]) + abs(w[2]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_screen_candidates_keeps_the_numpy_survivors(seed, oracle):
    """The compiled screening (b formed only where it can matter) keeps exactly the NumPy
    route's survivors, with the same bounds on every row that can survive."""
    rng = np.random.default_rng(seed)
    p, t = 150, 40
    A = oracle.cov(rng, p, 100) if seed else oracle.spike(rng, p, 300, 20, 30.0)[0]
    S = [int(i) for i in np.argsort(-np.diag(A))[:t]]
    cand = np.setdiff1d(np.arange(p), S)
    Acols = np.ascontiguousarray(A[:, S])
    mu, U, MU, eps, gamma = _state(A, S)
    c = np.diag(A)[cand].copy()
    bnorm2 = (Acols[cand] ** 2).sum(axis=1)
    # the NumPy route's expressions
    b = Acols[cand] @ U
    lower = np.maximum(eig2_max(mu[0], b[:, 0], c), mu[0])
    upper = eig2_max(max(mu[0], gamma), np.sqrt(bnorm2), c) * (1 + 1e-12) + 1e-12 * np.abs(c) + eps
    tol_s = 1e-10 * (np.maximum(np.abs(upper), abs(mu[0])) + np.sqrt(bnorm2)).max()
    hard = np.flatnonzero(upper >= lower.max() - tol_s)
    beta = np.sqrt(np.maximum(bnorm2[hard] - b[hard, 0] ** 2 - b[hard, 1] ** 2, 0.0))
    upper[hard] = np.minimum(upper[hard], arrow4_max(mu[0], mu[1], gamma, c[hard], b[hard, 0], b[hard, 1], beta) + eps)
    lower = np.minimum(lower, upper)
    surv = np.flatnonzero(upper >= lower.max() - tol_s)

    bT, lo_j, up_j, tol_j, surv_j = jit.screen_candidates(
        Acols, cand.astype(np.intp), t, np.ascontiguousarray(U.T), mu[0], mu[1], gamma, eps, c, bnorm2
    )
    np.testing.assert_array_equal(surv_j, surv)
    assert tol_j == tol_s
    np.testing.assert_allclose(up_j[hard], upper[hard], rtol=1e-13)
    np.testing.assert_allclose(lo_j[hard], lower[hard], rtol=1e-13)
    np.testing.assert_allclose(bT[:, hard].T, b[hard], rtol=1e-10, atol=1e-12 * np.abs(b).max())
    skipped = np.isneginf(lo_j)
    assert skipped.any()  # the pruning had rows to skip
    assert np.all(up_j[skipped] < lower.max() - tol_s)  # only rows that could not survive


@pytest.mark.parametrize("t", [5, 40, 121])
def test_bordered_top2_krylov_matches_the_numpy_iteration(t, oracle):
    """Same Ritz values as _top2_krylov from the same start; residuals certified; the carried
    vectors orthonormal with their images; only row t of G is written."""
    rng = np.random.default_rng(t)
    A = oracle.cov(rng, t + 1, 3 * t + 10)
    G = np.zeros((t + 8, t + 8))
    G[:t, :t] = A[:t, :t]
    w, V = np.linalg.eigh(A[:t, :t])
    q = min(6, t)
    Vk = V[:, ::-1][:, :q]
    Wk = A[:t, :t] @ Vk
    sc = abs(w[-1]) + np.linalg.norm(A[t, :t])
    ok, mu, UT, MUT, e1, e, VcT, WcT = jit.bordered_top2_krylov(
        G, t, np.ascontiguousarray(A[t]), A[t, t], np.ascontiguousarray(Vk.T), np.ascontiguousarray(Wk.T),
        1e-9 * sc, 1e-5 * sc, 60, 24, 6,
    )
    assert ok
    V0 = np.zeros((t + 1, q + 1))
    V0[:t, :q] = Vk
    V0[t, q] = 1.0
    mu0, U0, MU0, e10, e0 = _top2_krylov(A, V0, A @ V0, 1e-9 * sc, 1e-5 * sc)
    np.testing.assert_allclose(mu, mu0, rtol=1e-12)
    exact = np.linalg.eigvalsh(A)[::-1][:2]
    np.testing.assert_allclose(mu, exact, rtol=1e-9)
    assert e1 <= 1e-9 * sc and e <= 1e-5 * sc
    U = UT.T
    assert np.linalg.norm(A @ U[:, 0] - mu[0] * U[:, 0]) <= e1
    assert np.linalg.norm(A @ U - U * mu) <= e
    np.testing.assert_allclose(np.abs(U.T @ U0), np.eye(2), atol=1e-6)
    np.testing.assert_allclose(VcT @ VcT.T, np.eye(len(VcT)), atol=1e-12)
    np.testing.assert_allclose(WcT, VcT @ A, atol=1e-10 * sc)
    np.testing.assert_array_equal(G[t, : t + 1], A[t, : t + 1])
    assert not G[:t, t].any() and not G[t + 1 :].any()


def test_add_feature_matches_numpy_bookkeeping():
    rng = np.random.default_rng(3)
    p, t, nrows = 20, 4, 13
    Acols, G, rowsq = rng.standard_normal((p, 8)), rng.standard_normal((8, 8)), rng.random(p)
    rows, order = rng.permutation(p).astype(np.intp), rng.permutation(p)[:8].astype(np.intp)
    col = rng.standard_normal(p)
    A2, G2, r2 = Acols.copy(), G.copy(), rowsq.copy()
    A2[:nrows, t] = col[rows[:nrows]]
    G2[t, : t + 1] = G2[: t + 1, t] = col[order[: t + 1]]
    r2 += col * col
    jit.add_feature(Acols, rows, nrows, G, order, t, col, rowsq)
    np.testing.assert_array_equal(Acols, A2)
    np.testing.assert_array_equal(G, G2)
    np.testing.assert_allclose(rowsq, r2, rtol=1e-15)
