"""Baseline scores against direct dense formulas on tiny data."""

import numpy as np

from pixsel.scores import (
    fisher_score,
    importance,
    laplacian_score,
    supervised_laplacian_score,
    variance_score,
)
from pixsel.scores._baselines import laplacian_score_from_graph
from pixsel.stats import heat_kernel_knn_graph


def _dense_knn_heat(X, k, t):
    """Textbook construction: all pairwise distances, k nearest, heat kernel, max-symmetrised."""
    n = len(X)
    D2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    W = np.zeros((n, n))
    for i in range(n):
        d = D2[i].copy()
        d[i] = np.inf
        nn = np.argsort(d, kind="stable")[:k]
        W[i, nn] = np.exp(-D2[i, nn] / t)
    return np.maximum(W, W.T)


def _dense_laplacian_score(X, S):
    """He, Cai and Niyogi's formula with explicit D, L and D-weighted centring."""
    d = S.sum(axis=1)
    D = np.diag(d)
    L = D - S
    one = np.ones(len(X))
    out = []
    for f in X.T:
        ft = f - (f @ D @ one) / (one @ D @ one) * one
        out.append((ft @ L @ ft) / (ft @ D @ ft))
    return np.array(out)


def _tiny(seed=0, n=25, p=6):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, p)) + rng.integers(0, 3, size=(n, 1)) * np.linspace(0, 2, p)


def test_sparse_graph_equals_dense_graph():
    X = _tiny()
    S, t = heat_kernel_knn_graph(X, 4)
    dense = _dense_knn_heat(X, 4, t)
    np.testing.assert_allclose(S.toarray(), dense, rtol=1e-12)
    assert S.nnz <= 2 * 4 * len(X)
    # 'auto' width: mean squared distance over the directed kNN edges
    D2 = np.sort(np.sum((X[:, None] - X[None]) ** 2, axis=2), axis=1)[:, 1:5]
    np.testing.assert_allclose(t, D2.mean(), rtol=1e-12)


def test_laplacian_score_matches_dense_formula():
    X = _tiny(1)
    S, t = heat_kernel_knn_graph(X, 5, t=2.0)
    dense = _dense_laplacian_score(X, _dense_knn_heat(X, 5, 2.0))
    np.testing.assert_allclose(laplacian_score(X, 5, t=2.0), dense, rtol=1e-9)
    np.testing.assert_allclose(laplacian_score_from_graph(X, S.toarray()), dense, rtol=1e-9)


def test_laplacian_score_shift_invariant_and_constant_is_inf():
    X = _tiny(2)
    X[:, 3] = 7.0
    S, _ = heat_kernel_knn_graph(X, 4)
    a = laplacian_score_from_graph(X, S)
    b = laplacian_score_from_graph(X + 1e4, S)
    assert np.isinf(a[3])
    fin = np.isfinite(a)
    np.testing.assert_allclose(a[fin], b[fin], rtol=1e-7)
    assert importance("laplacian", a)[3] == 0.0


def test_supervised_laplacian_matches_dense_formula():
    X = _tiny(3, n=20)
    y = np.array([0, 1, 2, 1] * 5)
    S = (y[:, None] == y[None, :]).astype(float)  # same-label edges, self-loops included
    np.testing.assert_allclose(supervised_laplacian_score(X, y), _dense_laplacian_score(X, S),
                               rtol=1e-9)


def test_fisher_matches_definition():
    X = _tiny(4, n=30)
    y = np.repeat([0, 1, 2], 10)[np.random.default_rng(0).permutation(30)]
    mu = X.mean(0)
    between = sum((y == c).sum() * (X[y == c].mean(0) - mu) ** 2 for c in range(3))
    within = sum((y == c).sum() * X[y == c].var(0) for c in range(3))
    np.testing.assert_allclose(fisher_score(X, y), between / within, rtol=1e-9)


def test_fisher_degenerate_features():
    X = np.array([[1.0, 0.0, 2.0], [1.0, 0.0, 3.0], [1.0, 5.0, 2.0], [1.0, 5.0, 3.0]])
    y = [0, 0, 1, 1]
    f = fisher_score(X, y)
    assert f[0] == 0.0 and np.isinf(f[1]) and f[2] == 0.0


def test_variance_and_dask_agree():
    import dask.array as da
    X = _tiny(5, n=40)
    y = np.arange(40) % 4
    np.testing.assert_allclose(variance_score(X), X.var(0), rtol=1e-12)
    dX = da.from_array(X, chunks=(15, 6))
    np.testing.assert_allclose(variance_score(dX), X.var(0), rtol=1e-12)
    np.testing.assert_allclose(fisher_score(dX, y), fisher_score(X, y), rtol=1e-10)
    np.testing.assert_allclose(supervised_laplacian_score(dX, y), supervised_laplacian_score(X, y),
                               rtol=1e-10)


def test_does_not_modify_input():
    X = _tiny(6)
    before = X.copy()
    laplacian_score(X, 3)
    fisher_score(X, np.arange(len(X)) % 2)
    np.testing.assert_array_equal(X, before)


def test_scores_from_statistics_equal_scores_from_data():
    """The kernels on statistics give the data-level scores exactly (one class_sums pass serves both)."""
    import dask.array as da

    from pixsel.scores._baselines import (
        fisher_score_from_sums,
        laplacian_score_from_moments,
        supervised_laplacian_score_from_sums,
    )
    from pixsel.stats import class_sums, graph_moments, heat_kernel_knn_graph

    rng = np.random.default_rng(12)
    X = rng.standard_normal((60, 7)) + np.arange(7)
    y = rng.integers(0, 3, 60)
    X[y == 1, 2] += 4.0
    cs = class_sums(da.from_array(X, chunks=(17, 7)), y)
    np.testing.assert_allclose(fisher_score_from_sums(cs), fisher_score(X, y), rtol=1e-10)
    np.testing.assert_allclose(supervised_laplacian_score_from_sums(cs), supervised_laplacian_score(X, y),
                               rtol=1e-10)
    assert np.argmax(fisher_score_from_sums(cs)) == 2
    S, _ = heat_kernel_knn_graph(X, 5)
    assert np.array_equal(laplacian_score_from_moments(graph_moments(X, S)), laplacian_score(X, 5))
