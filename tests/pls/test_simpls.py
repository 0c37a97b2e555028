"""SIMPLS oracles: scikit-learn's NIPALS for one response, least squares at full rank, and
SIMPLS's defining identities (orthonormal scores, R^T P = I, deflated cross-covariance) for
several responses."""

import numpy as np
import pytest
from sklearn.cross_decomposition import PLSRegression

from pixsel.pls import simpls


def _data(seed, n=40, p=12, q=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + 3.0
    Y = X @ rng.normal(size=(p, q)) + rng.normal(size=(n, q)) - 1.0
    return X, Y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("K", [1, 2, 4, 7])
def test_one_response_matches_sklearn_nipals(seed, K):
    X, Y = _data(seed)
    fit = simpls(X, Y[:, 0], K)
    sk = PLSRegression(n_components=K, scale=False, tol=1e-14, max_iter=5000).fit(X, Y[:, 0])
    scale = np.abs(sk.coef_).max()
    np.testing.assert_allclose(fit.coef[:, 0], sk.coef_[0], rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(fit.predict(X)[:, 0], sk.predict(X), rtol=1e-10, atol=1e-9)
    # NIPALS scores are orthogonal but not normalized: same directions up to scale and sign
    T_sk = sk.x_scores_ / np.linalg.norm(sk.x_scores_, axis=0)
    np.testing.assert_allclose(np.abs(np.sum(T_sk * fit.x_scores, axis=0)), 1.0, atol=1e-8)


@pytest.mark.parametrize("q", [2, 5])
def test_multi_response_identities(q):
    X, Y = _data(3, n=50, p=15, q=q)
    K = 6
    fit = simpls(X, Y, K)
    Xc, Yc = X - X.mean(0), Y - Y.mean(0)
    R, T, P, Q = fit.x_rotations, fit.x_scores, fit.x_loadings, fit.y_loadings
    np.testing.assert_allclose(T, Xc @ R, atol=1e-10)  # weights apply to the original X
    np.testing.assert_allclose(T.T @ T, np.eye(K), atol=1e-10)  # orthonormal scores
    np.testing.assert_allclose(P, Xc.T @ T, atol=1e-10)
    np.testing.assert_allclose(Q, Yc.T @ T, atol=1e-10)
    np.testing.assert_allclose(R.T @ P, np.eye(K), atol=1e-10)  # r_a^T p_b = t_a^T t_b
    np.testing.assert_allclose(fit.coef, R @ Q.T, atol=1e-12)
    # each weight is the dominant left singular vector of S deflated by the previous loadings
    S0 = Xc.T @ Yc
    for a in range(K):
        if a:
            V = np.linalg.qr(P[:, :a])[0]
            S = S0 - V @ (V.T @ S0)
        else:
            S = S0
        u = np.linalg.svd(S)[0][:, 0]
        r = R[:, a] / np.linalg.norm(R[:, a])
        assert abs(abs(u @ r) - 1.0) < 1e-9
        # the deflated cross-covariance is orthogonal to all earlier loadings
        np.testing.assert_allclose(P[:, :a].T @ S, 0.0, atol=1e-8 * np.abs(S0).max())


def test_full_rank_is_least_squares():
    X, Y = _data(4, n=60, p=8, q=3)
    fit = simpls(X, Y, 8)
    Xc, Yc = X - X.mean(0), Y - Y.mean(0)
    B = np.linalg.lstsq(Xc, Yc, rcond=None)[0]
    np.testing.assert_allclose(fit.coef, B, rtol=1e-8, atol=1e-10)


def test_rank_deficient_raises_or_truncates():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 9))  # rank 2
    y = X @ rng.normal(size=9) + rng.normal(size=30)
    with pytest.raises(ValueError, match="exceeds the number of PLS components"):
        simpls(X, y, 4)
    assert simpls(X, y, 4, strict=False).n_components == 2


def test_bad_input_and_no_mutation():
    X, Y = _data(6, q=2)
    X0, Y0 = X.copy(), Y.copy()
    simpls(X, Y, 3)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(Y, Y0)
    with pytest.raises(ValueError, match=r"range \[1, 12\]"):
        simpls(X, Y, 13)
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        simpls(X, Y, 2)
