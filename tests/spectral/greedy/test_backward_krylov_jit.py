"""The compiled backward Krylov path against the NumPy route, the secular route and brute force."""

import numpy as np
import pytest
import scipy.linalg as sla

from pixsel.spectral.greedy import _fullrank_jit as jit
from pixsel.spectral.greedy._fullrank import fullrank_greedy_path
from pixsel.spectral.greedy._fullrank_krylov import _Deleted, _top2_krylov, backward_krylov


def _brute_backward(A, steps):
    """The first ``steps`` deletions of the exact greedy backward path (ties to the lowest index)."""
    S = list(range(A.shape[0]))
    out = []
    for _ in range(steps):
        vals = [np.linalg.eigvalsh(A[np.ix_(S[:q] + S[q + 1 :], S[:q] + S[q + 1 :])])[-1] for q in range(len(S))]
        q = int(np.argmax(vals))
        out.append((S[q], vals[q]))
        del S[q]
    return out


# n < p, n > p and n = p; each path takes hundreds of Krylov steps (the NumPy route dominates the
# time: 0.4-0.8 s per case here, 0.8-2.2 s at p = 70-140)
@pytest.mark.parametrize("seed,p,n", [(0, 48, 28), (1, 60, 200), (2, 72, 72), (3, 84, 30)])
def test_compiled_backward_matches_numpy_route_on_random_spd(seed, p, n, oracle):
    """Whole path: the compiled route gives the NumPy route's order and objectives."""
    A = oracle.cov(np.random.default_rng(seed), p, n)
    o1, f1, i1 = backward_krylov(A)
    o0, f0, _ = backward_krylov(A, compiled=False)
    assert i1["n_krylov"] > p  # the Krylov route did the work, not the dense fallback
    np.testing.assert_array_equal(o1, o0)
    np.testing.assert_allclose(f1, f0, rtol=1e-11)


def test_compiled_backward_matches_numpy_secular_and_brute_force_on_a_planted_support(oracle):
    """Planted sparse spike: same order and objectives as NumPy and the full-spectrum route; the
    first steps are the exact argmax (brute force); the planted features are deleted last."""
    rng = np.random.default_rng(4)
    p, k = 80, 8
    A, support = oracle.spike(rng, p, 400, k, 60.0)
    o1, f1, _ = backward_krylov(A)
    o0, f0, _ = backward_krylov(A, compiled=False)
    sec = fullrank_greedy_path(A, direction="backward", method="secular")
    os_, fs = sec.order, sec.objective
    np.testing.assert_array_equal(o1, o0)
    np.testing.assert_array_equal(o1, os_)
    np.testing.assert_allclose(f1, f0, rtol=1e-11)
    np.testing.assert_allclose(f1, fs, rtol=1e-10)
    assert set(o1[-k:].tolist()) == set(support.tolist())
    for t, (j, v) in enumerate(_brute_backward(A, 10)):
        assert o1[t] == j and f1[p - 2 - t] == pytest.approx(v, rel=1e-11)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_backward_near_and_exact_ties(seed):
    """Duplicated features (exact ties, which rounding decides in either route) and features
    differing by 1e-9 (near ties): the objectives equal the NumPy route's, and every step of
    the compiled route deletes an argmax of the exact values up to rounding (brute force)."""
    rng = np.random.default_rng(seed)
    p0, n = 30, 200
    X = rng.standard_normal((n, p0)) + 3.0 * rng.standard_normal((n, 1)) * rng.uniform(0, 1, p0)
    X = np.hstack([X, X[:, :6], X[:, 6:12] * (1 + 1e-9)])
    A = np.cov(X, rowvar=False)
    p = A.shape[0]
    o1, f1, _ = backward_krylov(A)
    o0, f0, _ = backward_krylov(A, compiled=False)
    np.testing.assert_allclose(f1, f0, rtol=1e-11)
    S = list(range(p))
    for t in range(p - 1):
        vals = [np.linalg.eigvalsh(A[np.ix_(S[:q] + S[q + 1 :], S[:q] + S[q + 1 :])])[-1] for q in range(len(S))]
        q = S.index(o1[t])
        assert vals[q] >= max(vals) * (1 - 1e-12)
        assert f1[p - 2 - t] == pytest.approx(vals[q], rel=1e-11)
        del S[q]


@pytest.mark.parametrize("s,r", [(9, 0), (9, 8), (40, 17), (41, 40)])
def test_deleted_krylov_matches_numpy_iteration(s, r, oracle):
    """One compiled deleted-row iteration: the NumPy iteration's Ritz values, vectors zero at
    ``r``, orthonormal, with the residuals they report (certified)."""
    rng = np.random.default_rng(s + r)
    A = oracle.cov(rng, s, 3 * s)
    w, V = sla.eigh(A)
    U, MU = V[:, :-3:-1].copy(), A @ V[:, :-3:-1]
    B = np.zeros((s + 5, s + 5))  # a larger buffer: only the leading block is read
    B[:s, :s] = A
    st, mu, UT, MUT, e1, e = jit.deleted_top2_krylov(
        B, s, r, U.T.copy(), MU.T.copy(), 1e-9, 1e-6, 60, 24, w[-2] + 1e-12, -np.inf
    )
    assert st == 1
    keep = np.delete(np.arange(s), r)
    D = A[np.ix_(keep, keep)]
    Q, Rq = np.linalg.qr(U[keep])
    W0 = sla.solve_triangular(Rq, (MU[keep] - np.outer(A[keep, r], U[r])).T, trans="T").T
    mu0 = _top2_krylov(_Deleted(A, r), Q, W0, 1e-9, 1e-6)[0]
    np.testing.assert_allclose(mu, mu0, rtol=1e-12)
    np.testing.assert_allclose(mu, np.linalg.eigvalsh(D)[:-3:-1], rtol=1e-12)
    assert np.all(UT[:, r] == 0.0) and np.all(MUT[:, r] == 0.0)
    Un, MUn = UT.T[keep], MUT.T[keep]
    np.testing.assert_allclose(Un.T @ Un, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(MUn, D @ Un, atol=1e-10)
    assert np.linalg.norm(D @ Un[:, 0] - mu[0] * Un[:, 0]) <= e1 and np.linalg.norm(D @ Un - Un * mu) <= e


def test_swap_delete_moves_the_last_row_and_column(oracle):
    rng = np.random.default_rng(5)
    A = oracle.cov(rng, 12, 30)
    for r in (0, 4, 11):
        B = A.copy()
        jit.swap_delete(B, 12, r)
        idx = np.arange(12)
        idx[r] = 11
        np.testing.assert_array_equal(B[:11, :11], A[np.ix_(idx[:11], idx[:11])])


@pytest.mark.parametrize("s,r", [(30, 3), (60, 59)])
def test_deleted_krylov_early_stop_is_a_certified_upper_bound(s, r, oracle):
    """``status == 2``: the iteration stopped because Temple's bound, which is an upper bound on
    ``theta_1`` of the deleted matrix, fell below ``stop_below``."""
    rng = np.random.default_rng(s)
    A = oracle.cov(rng, s, 3 * s)
    w, V = sla.eigh(A)
    U, MU = V[:, :-3:-1].copy(), A @ V[:, :-3:-1]
    keep = np.delete(np.arange(s), r)
    top = np.linalg.eigvalsh(A[np.ix_(keep, keep)])[-1]
    th2_up = w[-2] * (1 + 1e-12)  # >= theta_2 of the deleted matrix (interlacing)
    stop = top * (1 + 1e-3)  # reachable: the iteration must stop early, before converging
    st, mu, UT, MUT, e1, e = jit.deleted_top2_krylov(A.copy(), s, r, U.T.copy(), MU.T.copy(), 1e-13, 1e-13, 60, 24, th2_up, stop)
    assert st == 2
    hi = mu[0] + e1 * e1 / (mu[0] - th2_up)
    assert mu[0] <= top * (1 + 1e-13) and top <= hi * (1 + 1e-13) and hi < stop
    st, *_ = jit.deleted_top2_krylov(A.copy(), s, r, U.T.copy(), MU.T.copy(), 1e-9, 1e-6, 60, 24, th2_up, top * (1 - 1e-6))
    assert st == 1  # never below a value under theta_1: converges instead
