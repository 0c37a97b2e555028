"""LPP / NPE / SR-LPP / smooth LPP / kernel LPP against small dense reference computations."""

import numpy as np
import pytest
import scipy.linalg as sla

from pixsel.projection import (
    kernel_lpp,
    knn_graph,
    lle_weights,
    lpp,
    npe,
    smooth_lpp,
    spatial_laplacian,
    spectral_regression_lpp,
)


def _data(seed=0, n=30, p=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p))
    return X - X.mean(axis=0)


def _dense_knn(X, k, t):
    """Loop reference: heat-kernel weights on a symmetric kNN graph."""
    n = len(X)
    W = np.zeros((n, n))
    for i in range(n):
        d = [(np.sum((X[i] - X[j]) ** 2), j) for j in range(n) if j != i]
        d.sort()
        for dist, j in d[:k]:
            w = np.exp(-dist / t)
            W[i, j] = max(W[i, j], w)
            W[j, i] = max(W[j, i], w)
    return W


def _ridge(B, reg):
    return B + reg * np.trace(B) / len(B) * np.eye(len(B))


def _span_equal(A, B, atol=1e-6):
    """Row spaces equal, and each row equal up to sign when eigenvalues are distinct."""
    s = np.sign(np.sum(A * B, axis=1))
    np.testing.assert_allclose(A * s[:, None], B, rtol=1e-6, atol=atol)


def test_knn_graph_matches_loop_reference_and_breaks_ties_by_index():
    X = _data(1, n=25)
    W, nb = knn_graph(X, 4, weight="heat", t=3.0)
    np.testing.assert_allclose(W.toarray(), _dense_knn(X, 4, 3.0), rtol=1e-12)
    # ties: four points equidistant from the origin, the lowest indices win
    Xt = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    _, nb = knn_graph(Xt, 2, weight="binary")
    np.testing.assert_array_equal(nb[0], [1, 2])
    with pytest.raises(ValueError, match="n_neighbors"):
        knn_graph(Xt, 5)


def test_knn_graph_ties_at_the_boundary_follow_the_lowest_index():
    # an integer grid with duplicates: many distances tie exactly, also at the k-th neighbour
    g = np.array([[i, j] for i in range(5) for j in range(4)], dtype=float)
    X = np.vstack([g, g[[3, 7, 11]]])
    for k in (1, 3, 4, 6):
        _, nb = knn_graph(X, k, weight="binary")
        for i in range(len(X)):
            d = np.sum((X - X[i]) ** 2, axis=1)
            d[i] = np.inf
            np.testing.assert_array_equal(nb[i], np.argsort(d, kind="stable")[:k])


def test_lpp_matches_dense_generalized_eigenproblem():
    X = _data(2)
    W, _ = knn_graph(X, 5, t=2.0)
    Wd = _dense_knn(X, 5, 2.0)
    Dg = np.diag(Wd.sum(axis=1))
    A = X.T @ (Dg - Wd) @ X
    B = _ridge(X.T @ Dg @ X, 1e-6)
    lam, V = sla.eigh(A, B)
    comps, w = lpp(X, W, 3, reg=1e-6)
    np.testing.assert_allclose(w, lam[:3], rtol=1e-8)
    _span_equal(comps, V[:, :3].T)
    # generalized eigen-equation residual
    for a, l in zip(comps, w):
        np.testing.assert_allclose(A @ a, l * (B @ a), atol=1e-8 * np.abs(A).max())


def test_npe_matches_dense_reference():
    X = _data(3)
    _, nb = knn_graph(X, 4, weight="binary")
    Wl = lle_weights(X, nb, reg=1e-3).toarray()
    # loop reference for the weights
    for i in range(len(X)):
        Z = X[nb[i]] - X[i]
        C = Z @ Z.T
        C += 1e-3 * np.trace(C) * np.eye(4)
        w = np.linalg.solve(C, np.ones(4))
        np.testing.assert_allclose(Wl[i, nb[i]], w / w.sum(), rtol=1e-10)
    np.testing.assert_allclose(Wl.sum(axis=1), 1.0)
    Mm = (np.eye(len(X)) - Wl).T @ (np.eye(len(X)) - Wl)
    lam, V = sla.eigh(X.T @ Mm @ X, _ridge(X.T @ X, 1e-6))
    comps, w = npe(X, lle_weights(X, nb, reg=1e-3), 2, reg=1e-6)
    np.testing.assert_allclose(w, lam[:2], rtol=1e-8)
    _span_equal(comps, V[:, :2].T)


def test_spectral_regression_matches_dense_reference():
    X = _data(4, n=40, p=6)
    W, _ = knn_graph(X, 5, t=2.0)
    Wd = W.toarray()
    Dg = np.diag(Wd.sum(axis=1))
    lam, Y = sla.eigh(Wd, Dg)  # W y = lambda D y
    Y = Y[:, ::-1][:, 1:3]
    alpha = 0.05
    lam_r = alpha * np.sum(X * X) / X.shape[1]
    A_ref = np.linalg.solve(X.T @ X + lam_r * np.eye(6), X.T @ Y)
    comps, w = spectral_regression_lpp(X, W, 2, alpha=alpha)
    np.testing.assert_allclose(w, lam[::-1][1:3], rtol=1e-8)
    # eigh(W, D) normalizes y^T D y = 1, as does D^-1/2 u with unit u
    _span_equal(comps, A_ref.T)
    # dual form (more features than samples) agrees with the primal
    Xw = _data(5, n=8, p=12)
    Ww, _ = knn_graph(Xw, 3, t=5.0)
    comps_w, _ = spectral_regression_lpp(Xw, Ww, 2, alpha=0.1)
    Wd = Ww.toarray()
    _, Yw = sla.eigh(Wd, np.diag(Wd.sum(axis=1)))
    Yw = Yw[:, ::-1][:, 1:3]
    lr = 0.1 * np.sum(Xw * Xw) / 12
    _span_equal(comps_w, np.linalg.solve(Xw.T @ Xw + lr * np.eye(12), Xw.T @ Yw).T)


def test_smooth_lpp_reduces_to_lpp_and_smooths():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 16))
    X -= X.mean(axis=0)
    W, _ = knn_graph(X, 5)
    c0, w0 = smooth_lpp(X, W, 3, image_shape=(4, 4), alpha=0.0)
    c_lpp, w_lpp = lpp(X, W, 3)
    np.testing.assert_allclose(w0, w_lpp, rtol=1e-10)
    _span_equal(c0, c_lpp)
    Lap = spatial_laplacian((4, 4)).toarray()
    # dense reference of the discrete Laplacian: 4-neighbours, Neumann boundary
    ref = np.zeros((16, 16))
    for r in range(4):
        for c in range(4):
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                if 0 <= r + dr < 4 and 0 <= c + dc < 4:
                    ref[r * 4 + c, (r + dr) * 4 + c + dc] = -1
                    ref[r * 4 + c, r * 4 + c] += 1
    np.testing.assert_array_equal(Lap, ref)
    c1, _ = smooth_lpp(X, W, 3, image_shape=(4, 4), alpha=10.0)

    def rough(c):
        return np.sum((c @ Lap) ** 2, axis=1) / np.sum(c * c, axis=1)

    assert np.mean(rough(c1)) < np.mean(rough(c0))
    with pytest.raises(ValueError, match="pixels"):
        smooth_lpp(X, W, 2, image_shape=(3, 3))


def test_kernel_lpp_with_linear_kernel_equals_lpp():
    X = _data(7, n=30, p=4)
    W, _ = knn_graph(X, 5)
    comps, w = lpp(X, W, 3)
    coef, wk = kernel_lpp(X @ X.T, W, 3)
    np.testing.assert_allclose(wk, w, rtol=1e-7)
    Y, Yk = X @ comps.T, (X @ X.T) @ coef
    s = np.sign(np.sum(Y * Yk, axis=0))
    np.testing.assert_allclose(Yk * s, Y, rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="rank"):
        kernel_lpp(X @ X.T, W, 5)  # rank 4


def test_manifold_kernels_do_not_modify_inputs():
    X = _data(8)
    Xc = X.copy()
    W, nb = knn_graph(X, 4)
    Wc = W.copy()
    lpp(X, W, 2)
    npe(X, lle_weights(X, nb), 2)
    spectral_regression_lpp(X, W, 2)
    np.testing.assert_array_equal(X, Xc)
    assert (W != Wc).nnz == 0


def test_lpp_npe_with_more_features_than_samples_live_in_the_data_range():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(15, 40))
    X -= X.mean(axis=0)  # rank 14
    W, nb = knn_graph(X, 4)
    _, _, Vt = np.linalg.svd(X, full_matrices=False)
    V = Vt[:14].T
    for comps, w in (lpp(X, W, 3), npe(X, lle_weights(X, nb), 3)):
        # components lie in the row space of X (no null-space directions)
        np.testing.assert_allclose(comps - (comps @ V) @ V.T, 0.0, atol=1e-10)
        assert np.all(w > 1e-8)  # no spurious zero eigenvalues 0 / ridge
    # dense reference in PCA coordinates
    Z = X @ V
    Wd = W.toarray()
    Dg = np.diag(Wd.sum(axis=1))
    lam, B = sla.eigh(Z.T @ (Dg - Wd) @ Z, _ridge(Z.T @ Dg @ Z, 1e-6))
    comps, w = lpp(X, W, 3)
    np.testing.assert_allclose(w, lam[:3], rtol=1e-8)
    _span_equal(comps, (V @ B[:, :3]).T)
    with pytest.raises(ValueError, match="rank"):
        lpp(X, W, 20)
