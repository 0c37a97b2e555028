"""Sparse PLS oracles: a textbook implementation that forms M = Z Z^T and the deflated X1
explicitly (as the R package spls does), the one-response limit (top |X^T y|), exact
cardinality with the stated rounding and tie rules, planted truth, and bad input."""

import itertools

import numpy as np
import pytest

from pixsel.pls import cardinal_counts, cardinal_spls, simpls, spls_eta


# ----------------------------------------------------------------------------- reference
def _reference(X, Y, K, threshold, max_iter=500):
    """Algorithm 1 written the slow, literal way: explicit X1, explicit M, R's spls.dv loop."""
    Xc, Yc = X - X.mean(0), Y - Y.mean(0)
    p = X.shape[1]
    X1 = Xc.copy()
    A = []
    history = []
    for k in range(1, K + 1):
        Z = X1.T @ Yc
        M = Z @ Z.T
        c = 10.0 * np.ones(p)
        for _ in range(max_iter):
            a = M @ c
            a /= np.linalg.norm(a)
            c_new, added = threshold(M @ a, np.isin(np.arange(p), A), k)
            if np.max(np.abs(c_new - c)) <= 1e-12 * np.max(np.abs(c_new)):
                break
            c = c_new
        added = [i for i in added if i not in A]
        history.append(added)
        A = sorted(set(A) | set(added))
        fit = simpls(Xc[:, A], Yc, min(k, len(A)))
        P = fit.x_loadings
        X1 = Xc.copy()
        X1[:, A] = Xc[:, A] @ (np.eye(len(A)) - P @ np.linalg.solve(P.T @ P, P.T))
    return np.array(A), history, fit


def _eta_threshold(eta):
    def thr(v, selected, k):
        a = np.abs(v)
        c = np.sign(v) * np.maximum(a - eta * a.max(), 0.0)
        nz = np.flatnonzero(c)
        return c, list(nz[np.argsort(-a[nz], kind="stable")])

    return thr


def _cardinal_threshold(n, K):
    counts = cardinal_counts(n, K)

    def thr(v, selected, k):
        n_k = counts[k - 1]
        cand = np.flatnonzero(~selected)
        order = cand[np.argsort(-np.abs(v[cand]), kind="stable")]  # full stable sort
        chosen = order[:n_k]
        s = np.abs(v[order[n_k]]) if n_k < len(order) else 0.0
        c = np.where(selected, v, 0.0)
        c[chosen] = np.sign(v[chosen]) * (np.abs(v[chosen]) - s)
        return c, list(chosen)

    return thr


def _sim(seed, n=60, p=40, q=3, n_true=8, noise=0.5):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 4))
    X = rng.normal(size=(n, p))
    X[:, :n_true] += 2.0 * Z @ rng.normal(size=(4, n_true))
    Y = Z @ rng.normal(size=(4, q)) + noise * rng.normal(size=(n, q))
    return X, Y


# ----------------------------------------------------------------------------- counts
@pytest.mark.parametrize("K", range(1, 13))
def test_cardinal_counts_sum_and_rounding(K):
    for n in range(120):
        counts = cardinal_counts(n, K)
        quota = np.array([2 * (K - k + 1) * n / (K * (K + 1)) for k in range(1, K + 1)])
        assert counts.sum() == n
        assert np.all((counts == np.floor(quota)) | (counts == np.ceil(quota)))
        assert np.all(counts >= 0) and np.all(np.diff(counts) <= 0)
        nearest = np.floor(quota + 0.5).astype(int)  # Eq.(9), round half up
        if nearest.sum() == n:
            np.testing.assert_array_equal(counts, nearest)
        # brute force: among all floor/ceil choices summing to n, Hamilton minimizes the
        # largest rounding error (checked on small K)
        if K <= 6 and n <= 40:
            best = min(
                max(abs(c - qq) for c, qq in zip(choice, quota))
                for choice in itertools.product(*[(int(np.floor(qq)), int(np.ceil(qq))) for qq in quota])
                if sum(choice) == n
            )
            assert np.max(np.abs(counts - quota)) <= best + 1e-12


def test_eq9_rounding_does_not_always_sum_to_n():
    # the case the module docstring cites: nearest-integer rounding gives 4 for n = 3, K = 3
    quota = np.array([1.5, 1.0, 0.5])
    assert np.floor(quota + 0.5).sum() == 4
    assert cardinal_counts(3, 3).tolist() == [2, 1, 0]
    # and short of n: n = 7, K = 5 rounds to 2 + 2 + 1 + 1 + 0 = 6
    quota = np.array([2 * (5 - k + 1) * 7 / 30 for k in range(1, 6)])
    assert np.floor(quota + 0.5).sum() == 6
    assert cardinal_counts(7, 5).tolist() == [2, 2, 1, 1, 1]


# ----------------------------------------------------------------------------- oracles
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n, K", [(5, 1), (10, 3), (13, 4), (7, 5)])
def test_cardinal_matches_literal_reference(seed, n, K):
    X, Y = _sim(seed)
    res = cardinal_spls(X, Y, n, K, tol=1e-12, max_iter=500)
    A, history, fit = _reference(X, Y, K, _cardinal_threshold(n, K))
    np.testing.assert_array_equal(res.support, A)
    assert [h.tolist() for h in res.history] == [list(map(int, h)) for h in history]
    np.testing.assert_allclose(res.coef[A], fit.coef, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("eta, K", [(0.3, 1), (0.5, 3), (0.8, 4)])
def test_spls_eta_matches_literal_reference(seed, eta, K):
    X, Y = _sim(seed)
    res = spls_eta(X, Y, eta, K, tol=1e-12, max_iter=500)
    A, history, fit = _reference(X, Y, K, _eta_threshold(eta))
    np.testing.assert_array_equal(res.support, A)
    assert [h.tolist() for h in res.history] == [list(map(int, h)) for h in history]
    np.testing.assert_allclose(res.coef[A], fit.coef, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("K", [1, 3, 6])
def test_one_response_limit_is_top_covariance(K):
    # with one response M w is proportional to X^T y and only the A rows of Z are deflated,
    # so cardinal SPLS keeps the n features of largest |cov(x_i, y)|
    X, Y = _sim(7, q=1)
    Z = (X - X.mean(0)).T @ (Y - Y.mean(0))
    for n in (1, 6, 17):
        res = cardinal_spls(X, Y[:, 0], n, K)
        np.testing.assert_array_equal(res.support, np.sort(np.argsort(-np.abs(Z[:, 0]), kind="stable")[:n]))


def test_spls_eta_first_component_is_eq5():
    X, Y = _sim(8, q=1)
    Z = ((X - X.mean(0)).T @ (Y - Y.mean(0)))[:, 0]
    for eta in (0.1, 0.4, 0.9):
        res = spls_eta(X, Y, eta, 1)
        np.testing.assert_array_equal(res.support, np.flatnonzero(np.abs(Z) > eta * np.abs(Z).max()))


# ----------------------------------------------------------------------------- cardinality
@pytest.mark.parametrize("q", [1, 4])
def test_exact_cardinality_many_n_K(q):
    X, Y = _sim(9, n=30, p=25, q=q)
    for K in (1, 2, 3, 5, 8):
        for n in (1, 2, 3, 4, 7, 11, 24, 25):
            res = cardinal_spls(X, Y, n, K)
            assert res.n_selected == n
            counts = cardinal_counts(n, K)
            assert [len(h) for h in res.history] == counts.tolist()
            allh = np.concatenate(res.history)
            assert len(np.unique(allh)) == n
            np.testing.assert_array_equal(np.sort(allh), res.support)
            assert res.model.n_components == min(K, n)


def test_n_equals_p_selects_all():
    X, Y = _sim(10, n=30, p=12)
    res = cardinal_spls(X, Y, 12, 4)
    np.testing.assert_array_equal(res.support, np.arange(12))


def test_ties_go_to_lowest_index():
    from pixsel.pls._spls import _top_n

    a = np.array([1.0, 3.0, 2.0, 3.0, 3.0, 0.5, 2.0])
    chosen, s = _top_n(a, 2)
    assert chosen.tolist() == [1, 3] and s == 3.0  # three-way tie at 3: lowest indices
    chosen, s = _top_n(a, 4)
    assert chosen.tolist() == [1, 3, 4, 2] and s == 2.0
    chosen, s = _top_n(a, 7)
    assert chosen.tolist() == [1, 3, 4, 2, 6, 0, 5] and s == 0.0
    # end to end: a duplicated best column is taken together with its twin, never instead of it
    X, Y = _sim(11, q=1, p=10)
    Z = ((X - X.mean(0)).T @ (Y - Y.mean(0)))[:, 0]
    top = int(np.argmax(np.abs(Z)))
    X2 = np.hstack([X, X[:, [top]]])
    assert cardinal_spls(X2, Y, 2, 1).support.tolist() == [top, 10]


def test_planted_truth_recovered():
    hits = []
    for seed in range(5):
        X, Y = _sim(seed, n=80, p=200, q=3, n_true=10, noise=0.1)
        res = cardinal_spls(X, Y, 10, 3)
        hits.append(np.mean(res.support < 10))
    assert min(hits) >= 0.9 and np.mean(hits) >= 0.95


def test_deterministic_and_inputs_unmodified():
    X, Y = _sim(12)
    X0, Y0 = X.copy(), Y.copy()
    a = cardinal_spls(X, Y, 9, 3)
    b = cardinal_spls(X, Y, 9, 3)
    np.testing.assert_array_equal(a.support, b.support)
    np.testing.assert_array_equal(a.coef, b.coef)
    spls_eta(X, Y, 0.5, 3)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(Y, Y0)


def test_eta_controls_sparsity_monotonically_for_one_component():
    X, Y = _sim(13)
    sizes = [spls_eta(X, Y, eta, 1).n_selected for eta in (0.1, 0.3, 0.5, 0.7, 0.9)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]


# ----------------------------------------------------------------------------- bad input
def test_bad_input_errors():
    X, Y = _sim(14, n=30, p=10)
    with pytest.raises(ValueError, match=r"'n_features' parameter .* range \[1, 10\]"):
        cardinal_spls(X, Y, 11, 2)
    with pytest.raises(ValueError, match=r"'n_components' parameter .* range \[1, 10\]"):
        cardinal_spls(X, Y, 3, 11)
    with pytest.raises(ValueError, match=r"'eta' parameter .* \(0, 1\)"):
        spls_eta(X, Y, 1.0, 2)
    Xn = X.copy()
    Xn[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cardinal_spls(Xn, Y, 3, 2)
    with pytest.raises(ValueError, match="Y is constant"):
        cardinal_spls(X, np.ones(30), 3, 2)


def test_constant_columns_never_selected():
    X, Y = _sim(15, n=30, p=10)
    X[:, [2, 5]] = 7.0
    res = cardinal_spls(X, Y, 8, 3)
    assert 2 not in res.support and 5 not in res.support
    with pytest.raises(ValueError, match="2 of the 10 columns are constant"):
        cardinal_spls(X, Y, 9, 3)


def test_K_above_rank_raises():
    rng = np.random.default_rng(16)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 12))  # rank 2
    Y = X @ rng.normal(size=(12, 3)) + rng.normal(size=(40, 3))
    with pytest.raises(ValueError, match="exceeds the number of PLS components"):
        cardinal_spls(X, Y, 12, 4)
    assert cardinal_spls(X, Y, 12, 2).n_selected == 12
