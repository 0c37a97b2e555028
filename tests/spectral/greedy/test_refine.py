import numpy as np
import pytest

from pixsel.spectral import greedy_path
from pixsel.spectral.greedy._refine import refine_support


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
    from pixsel.spectral.greedy._refine import _exchange_bounds

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


# ------------------------------------------------------------------ the screened 1-swap sweep
def _cov(rng, p, n=None, mix=0.6):
    n = 3 * p if n is None else n
    return np.cov(rng.standard_normal((n, p)) @ (np.eye(p) + mix * rng.standard_normal((p, p))), rowvar=False)


def _lmax(A, T):
    return np.linalg.eigvalsh(A[np.ix_(T, T)])[-1]


@pytest.mark.parametrize("seed", range(5))
def test_swap_upper_bounds_hold_for_every_swap(seed):
    """Every (i, j) swap's exact lambda_max is below its screening bound; the estimate is close."""
    from pixsel.spectral.greedy._refine import _remove_values, _swap_bounds

    rng = np.random.default_rng(seed)
    p, k = 14, int(rng.integers(1, 9))
    A = _cov(rng, p)
    S = np.sort(rng.choice(p, k, replace=False))
    theta, V = np.linalg.eigh(A[np.ix_(S, S)])
    out, add, upper, lower = _swap_bounds(A, S, theta, V, _remove_values(theta, V))
    np.testing.assert_allclose(add, [_lmax(A, np.append(S, j)) for j in out], rtol=1e-10)
    f = theta[-1]
    exact = np.array([[_lmax(A, np.append(np.delete(S, i), j)) for j in out] for i in range(k)])
    assert np.all(exact <= upper * (1 + 1e-12))
    # the estimate is the Rayleigh quotient of a vector supported on S - i + j: below the exact value
    assert np.all(lower <= exact + 1e-9 * f)
    if k > 1:
        assert np.any(upper <= f)  # it screens something out


@pytest.mark.parametrize("seed", range(4))
def test_second_root_bounds_the_second_eigenvalue(seed):
    from pixsel.spectral.greedy._refine import _second_root

    rng = np.random.default_rng(seed)
    for k in (1, 2, 7):
        theta = np.sort(rng.standard_normal(k))
        b = rng.standard_normal((6, k))
        b[0, -1] = 0.0  # the top pole decoupled: the second eigenvalue may be theta_1 itself
        c = rng.standard_normal(6)
        mu = _second_root(theta, b, c)
        for r in range(6):
            M = np.diag(np.append(theta, c[r]))
            M[-1, :k] = M[:k, -1] = b[r]
            second = np.linalg.eigvalsh(M)[-2]
            assert second <= mu[r] + 1e-12 and mu[r] <= second + 1e-8 * (1 + abs(second))


@pytest.mark.parametrize("seed", range(10))
def test_screened_refine_is_a_certified_1swap_optimum_and_never_worse(oracle, seed):
    """Brute force over every 1-swap: a complete sweep leaves none that improves."""
    rng = np.random.default_rng(100 + seed)
    p = 12
    A = _cov(rng, p, mix=0.8)
    for k in (2, 5, 8):
        start = np.sort(rng.choice(p, k, replace=False))
        S, value, info = refine_support(A, start, n_exchange=0, max_grow=0)
        assert len(S) == k and value == pytest.approx(_lmax(A, S), rel=1e-12)
        assert value >= _lmax(A, start) * (1 - 1e-12)
        assert value <= oracle.best(A, None, k) * (1 + 1e-12)
        if info["swap_sweep_complete"]:
            outside = np.setdiff1d(np.arange(p), S)
            best_swap = max(_lmax(A, np.append(np.delete(S, i), j)) for i in range(k) for j in outside)
            assert best_swap <= value * (1 + 1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_screened_equals_unscreened_refinement_where_both_reach_the_optimum(oracle, seed):
    """Both refinements (all phases) on small problems: never worse than the start, and where the
    unscreened one reaches the brute-force optimum the screened one reaches the same value."""
    rng = np.random.default_rng(200 + seed)
    p = 11
    A = _cov(rng, p, mix=0.7)
    path = greedy_path(A, form="full")
    for k in (3, 6):
        _, v_new, _ = refine_support(A, path.support(k))
        _, v_old, _ = refine_support(A, path.support(k), screen=False)
        best = oracle.best(A, None, k)
        assert v_new >= path.objective[k - 1] * (1 - 1e-12)
        if v_old >= best * (1 - 1e-12):
            assert v_new == pytest.approx(v_old, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_screened_grow_shrink_finds_the_unscreened_move(seed):
    """Screening the additions and pruning shrinks never changes the grow-and-shrink result."""
    from pixsel.spectral.greedy._refine import _grow_shrink_move

    rng = np.random.default_rng(300 + seed)
    p, k = 24, 6
    A = _cov(rng, p, mix=0.5)
    S = np.sort(rng.choice(p, k, replace=False))
    f = _lmax(A, S)
    m_new, _ = _grow_shrink_move(A, S, f, 8, screen=True)
    m_old, _ = _grow_shrink_move(A, S, f, 8, screen=False)
    assert (m_new is None) == (m_old is None)
    if m_new is not None:
        assert m_new[0].tolist() == m_old[0].tolist() and m_new[1] == pytest.approx(m_old[1], rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_krylov_grow_and_screened_removals_equal_the_plain_moves(seed):
    """The forward-path additions (from k = 8) and the screened removals make the same greedy
    choices as one eigh per addition and every removal's secular equation."""
    import pixsel.spectral.greedy._refine as rf

    rng = np.random.default_rng(500 + seed)
    p, k = 60, 12
    A = _cov(rng, p, mix=0.4)
    S = np.sort(rng.choice(p, k, replace=False))
    f = _lmax(A, S)
    assert k >= rf._KRYLOV_GROW
    got, _ = rf._grow_shrink_move(A, S, f, 8, screen=True)
    ref, _ = rf._grow_shrink_move(A, S, f, 8, screen=False)
    assert got is not None and ref is not None
    assert got[0].tolist() == ref[0].tolist() and got[1] == pytest.approx(ref[1], rel=1e-12)


def test_screened_removal_values_keep_the_argmax():
    from pixsel.spectral.greedy._refine import _remove_values

    rng = np.random.default_rng(9)
    for k in (2, 5, 30):
        A = _cov(rng, k)
        theta, V = np.linalg.eigh(A)
        full = _remove_values(theta, V)
        scr = _remove_values(theta, V, screen=True)
        exact = [_lmax(A, np.delete(np.arange(k), i)) for i in range(k)]
        np.testing.assert_allclose(full, exact, rtol=1e-10)
        assert np.argmax(scr) == np.argmax(full) and scr.max() == full.max()
        assert np.all((scr == full) | (scr == -np.inf)) and (k < 30 or np.sum(scr > -np.inf) < k)


# ------------------------------------------- certified shortcuts against the exact evaluations
def _exact_route(monkeypatch):
    """Switch off every certified shortcut: each candidate support gets its exact eigenvalue."""
    import pixsel.spectral.greedy._refine as rf

    swap_data = rf._swap_data
    monkeypatch.setattr(rf, "_exceeds", lambda A, T, thr: rf._lam(A, T))
    monkeypatch.setattr(rf, "_certified_top", lambda *args, **kwargs: None)
    monkeypatch.setattr(rf, "_swap_data", lambda A, S, theta, V, rem, thr=None: swap_data(A, S, theta, V, rem))


def _planted(rng, p, k, strength=3.0):
    """A covariance with a planted sparse leading direction on ``k`` random features."""
    A = _cov(rng, p, mix=0.5)
    u = np.zeros(p)
    idx = rng.choice(p, k, replace=False)
    u[idx] = rng.standard_normal(k)
    u /= np.linalg.norm(u)
    return A + strength * np.trace(A) / p * np.outer(u, u)


@pytest.mark.parametrize("seed", range(6))
def test_certified_route_equals_the_exact_route(monkeypatch, seed):
    """The Cholesky rejections, Kato-Temple swap checks and lazily solved second roots take the
    same decisions as exact eigenvalues everywhere: same support, same value, same counts."""
    rng = np.random.default_rng(700 + seed)
    p = 40
    cases = [(_cov(rng, p, mix=0.6), 5), (_cov(rng, p, mix=0.3), 12), (_planted(rng, p, 8), 8), (_planted(rng, p, 15), 15)]
    got = []
    for A, k in cases:
        start = np.sort(rng.choice(p, k, replace=False))
        got.append((A, start, refine_support(A, start)))
    with monkeypatch.context() as mp:
        _exact_route(mp)
        for A, start, (S, v, info) in got:
            S_ref, v_ref, info_ref = refine_support(A, start)
            assert S.tolist() == S_ref.tolist()
            assert v == pytest.approx(v_ref, rel=1e-12)
            assert info == info_ref
            assert v >= _lmax(A, start) * (1 - 1e-12)
            assert v == pytest.approx(_lmax(A, S), rel=1e-12)


def test_certified_route_equals_the_exact_route_on_faces(monkeypatch, shared_data):
    """Extended Yale B at 16 x 16 from the greedy path (planted-like structure, many near ties)."""
    d = shared_data("extyaleb_32x32.npz")
    X = d["X"].astype(np.float64).reshape(-1, 32, 32)[:600, ::2, ::2].reshape(600, -1)
    A = np.cov(X, rowvar=False)
    path = greedy_path(A, form="full", max_k=30, certificate=None)
    got = {k: refine_support(A, path.support(k)) for k in (10, 30)}
    with monkeypatch.context() as mp:
        _exact_route(mp)
        for k, (S, v, info) in got.items():
            S_ref, v_ref, info_ref = refine_support(A, path.support(k))
            assert S.tolist() == S_ref.tolist() and info == info_ref
            assert v == pytest.approx(v_ref, rel=1e-12) and v >= path.objective[k - 1] * (1 - 1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_cholesky_rejection_is_certified(seed):
    """``_exceeds`` returns None only when lambda_max(A_T) is below the threshold, even just below it."""
    from pixsel.spectral.greedy._refine import _exceeds

    rng = np.random.default_rng(800 + seed)
    p = 50
    A = _cov(rng, p)
    for k in (1, 3, 20, 50):
        T = np.sort(rng.choice(p, k, replace=False))
        lam = _lmax(A, T)
        for rel in (-1e-3, -1e-9, -1e-13, 0.0, 1e-13, 1e-9, 1e-3):
            thr = lam * (1 - rel)  # rel > 0: the threshold is below the value
            v = _exceeds(A, T, thr)
            if v is None:
                assert lam < thr
            else:
                assert v == pytest.approx(lam, rel=1e-12)
        assert _exceeds(A, T, lam * (1 + 1e-6)) is None  # a clear rejection is found


@pytest.mark.parametrize("seed", range(5))
def test_kato_temple_decisions_are_certified(seed):
    """``_certified_top``: True only above f, False only below f, given a true bound on lambda_2."""
    from pixsel.spectral.greedy._refine import _certified_top

    rng = np.random.default_rng(900 + seed)
    n = 30
    M = _cov(rng, n)
    w, Q = np.linalg.eigh(M)
    x0 = Q[:, -1] + 0.05 * rng.standard_normal(n)
    n_decided = 0
    for rel in (-1e-2, -1e-6, -1e-11, 1e-11, 1e-6, 1e-2):
        f = w[-1] * (1 + rel)
        dec = _certified_top(M, x0, w[-2], f, 1e-12 * w[-1])
        if dec is not None:
            n_decided += 1
            better, bound = dec
            assert better == (w[-1] > f)
            assert (bound <= w[-1] * (1 + 1e-12)) if better else (bound >= w[-1] * (1 - 1e-12))
    assert n_decided >= 2  # the clear cases are decided without an eigh


@pytest.mark.parametrize("seed", range(6))
def test_memoized_grow_shrink_equals_fresh_removals(seed):
    """Reusing the end support of an earlier group's removals gives the same move as running
    every group's greedy removals from scratch (one full eigh and every removal value a step)."""
    from pixsel.spectral.greedy._fullrank_krylov import forward_krylov
    from pixsel.spectral._operators import DenseOperator
    from pixsel.spectral.greedy._refine import _grow_shrink_move, _remove_values

    rng = np.random.default_rng(1000 + seed)
    p, k = 50, 10
    if seed % 2:  # a planted direction, a random start
        A = _planted(rng, p, 14, strength=1.0)
        S = np.sort(rng.choice(p, k, replace=False))
    else:  # the greedy path's support: the removals of the small groups give S back (memo hits)
        A = _cov(rng, p, mix=0.5)
        S = greedy_path(A, form="full", max_k=k, certificate=None).support(k)
    f = _lmax(A, S)
    move, _ = _grow_shrink_move(A, S, f, 8, screen=True)
    adds = forward_krylov(DenseOperator(A), k + 8, start=S)[0][k:]
    best, best_T = f, None
    for m in (1, 2, 4, 8):
        U = np.sort(np.concatenate([S, adds[:m]]))
        for _ in range(m):
            theta, V = np.linalg.eigh(A[np.ix_(U, U)])
            U = np.delete(U, int(np.argmax(_remove_values(theta, V))))
        v = _lmax(A, U)
        if v > best * (1 + 1e-12):
            best, best_T = v, U
    assert (move is None) == (best_T is None)
    if move is not None:
        assert move[0].tolist() == best_T.tolist() and move[1] == pytest.approx(best, rel=1e-12)


def _deletion_cases(rng, seed):
    """Covariances of 2, 3, 12 and 60 features for the deleted-row roots; with ``seed = 3`` a
    feature uncorrelated with the rest (``w_1 = 0`` on its row)."""
    for k in (2, 3, 12, 60):
        A = _cov(rng, k, mix=0.3 + 0.2 * seed)
        if seed == 3 and k > 2:
            A[0, 1:] = A[1:, 0] = 0.0
            A[0, 0] = 0.5 * np.linalg.eigvalsh(A[1:, 1:])[-1]
        yield A


@pytest.mark.parametrize("seed", range(4))
def test_two_pole_deleted_root_equals_newton_and_the_exact_value(seed):
    """``deleted_top_rows`` (the two-pole iteration) gives the same removal values as the Newton
    solver and as ``eigvalsh`` of every ``A_{S-i}``, including decoupled rows (``w_1 = 0``)."""
    from pixsel.spectral.greedy._refine import _remove_values
    from pixsel.spectral.greedy._refine_jit import deleted_top_rows
    from pixsel.spectral.greedy._secular import secular_deleted

    for A in _deletion_cases(np.random.default_rng(1100 + seed), seed):
        k = A.shape[0]
        theta, V = np.linalg.eigh(A)
        exact = np.array([_lmax(A, np.delete(np.arange(k), i)) for i in range(k)])
        np.testing.assert_allclose(_remove_values(theta, V), exact, rtol=1e-12)
        w2 = V * V
        th1, th2 = theta[-1], theta[-2]
        lo, hi = np.full(k, th2), th1 - (th1 - th2) * w2[:, -1]
        new = deleted_top_rows(theta, np.ascontiguousarray(w2), lo, hi, 100)
        np.testing.assert_allclose(new, secular_deleted(theta, w2, lo, hi), rtol=1e-13)


@pytest.mark.parametrize("seed", range(4))
def test_numpy_two_pole_deleted_root_equals_the_exact_value(seed):
    """``deleted_top`` on the NumPy route (the vectorized two-pole iteration) gives ``eigvalsh`` of
    every ``A_{S-i}``, including decoupled rows (``w_1 = 0``, Newton's), a double top eigenvalue
    (no gap) and closed brackets; it agrees with the Newton solver."""
    from pixsel._routes import compiled_kernels
    from pixsel.spectral.greedy._secular import deleted_top, secular_deleted

    rng = np.random.default_rng(1200 + seed)
    for A in _deletion_cases(rng, seed):
        if seed == 2 and A.shape[0] > 3:  # two uncoupled copies of a block: every eigenvalue double, no gap
            h = A.shape[0] // 2
            A = np.zeros((2 * h, 2 * h))
            A[:h, :h] = A[h:, h:] = _cov(rng, h, mix=0.5)
        m = A.shape[0]
        theta, V = np.linalg.eigh(A)
        exact = np.array([_lmax(A, np.delete(np.arange(m), i)) for i in range(m)])
        w2 = V * V
        th1, th2 = theta[-1], theta[-2]
        lo, hi = np.full(m, th2), np.maximum(th1 - (th1 - th2) * w2[:, -1], th2)
        with compiled_kernels(False):
            got = deleted_top(theta, w2, lo, hi)
            newton = secular_deleted(theta, w2, lo, hi, compiled=False)
        scale = abs(theta).max()
        np.testing.assert_allclose(got, exact, rtol=1e-12, atol=1e-13 * scale)
        np.testing.assert_allclose(got, newton, rtol=1e-13, atol=1e-14 * scale)
