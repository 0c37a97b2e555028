"""Leverage, residual and subspace scores against a dense SVD; gamma settings."""

import numpy as np
import pytest

from pixsel.scores import subspace_scores
from pixsel.scores._subspace import leverage_residual, resolve_gamma


def _data(n=70, p=25, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 6)) @ rng.standard_normal((6, p)) * 3 \
        + rng.standard_normal((n, p)) + 10.0


def _dense_oracle(A, m):
    Ac = A - A.mean(axis=0)
    _, s, Vt = np.linalg.svd(Ac, full_matrices=False)
    Vm = Vt[:m].T
    lev = np.sum(Vm ** 2, axis=1)
    R = Ac - Ac @ Vm @ Vm.T  # the residual matrix, formed here only for the oracle
    res = np.sum(R ** 2, axis=0)
    return lev, res, s


@pytest.mark.parametrize("m", [1, 4, 10])
def test_leverage_residual_match_dense_svd(m):
    A = _data()
    out = subspace_scores(A, m, gamma="balanced", n_iter=8, random_state=0)
    lev, res, s = _dense_oracle(A, m)
    np.testing.assert_allclose(out.leverage, lev, atol=1e-8)
    np.testing.assert_allclose(out.residual, res, rtol=1e-7, atol=1e-8 * res.max())
    np.testing.assert_allclose(out.leverage.sum(), m, rtol=1e-12)
    np.testing.assert_allclose(out.singular_values, s[:m], rtol=1e-9)


def test_gamma_settings():
    A = _data(seed=1)
    m = 6
    lev, res, s = _dense_oracle(A, m)
    bal = subspace_scores(A, m, gamma="balanced", n_iter=8, random_state=0)
    np.testing.assert_allclose(bal.gamma, m / res.sum(), rtol=1e-7)
    np.testing.assert_allclose(bal.leverage.sum(), bal.gamma * bal.residual.sum(), rtol=1e-10)
    th = subspace_scores(A, m, gamma="theory", n_iter=8, random_state=0)
    k = m // 2
    np.testing.assert_allclose(th.gamma, k / np.sum(s[k - 1:] ** 2), rtol=1e-8)  # i >= k, 1-based
    num = subspace_scores(A, m, gamma=0.5, n_iter=8, random_state=0)
    assert num.gamma == 0.5
    np.testing.assert_allclose(num.scores, lev + 0.5 * res, rtol=1e-6, atol=1e-8)


def test_gamma_zero_is_leverage_and_large_gamma_ranks_like_residual():
    A = _data(seed=2)
    g0 = subspace_scores(A, 3, gamma=0.0, random_state=0)
    np.testing.assert_array_equal(g0.scores, g0.leverage)
    big = subspace_scores(A, 3, gamma=1e9, random_state=0)
    assert np.array_equal(np.argsort(big.scores), np.argsort(big.residual))


def test_resolve_gamma_degenerate_rank_warns():
    lev = np.array([0.5, 0.5])
    with pytest.warns(UserWarning, match="rank at most"):
        assert resolve_gamma("balanced", lev, np.zeros(2), np.array([3.0]), 9.0) == 0.0


def test_leverage_residual_identity_variance():
    """gamma = 1 on Sigma V replaces the leverage part: ||Sigma_m V_i||^2 + r_i = ||A_i||^2."""
    A = _data(seed=3)
    out = subspace_scores(A, 4, random_state=0)
    Vt, s = out.svd.components, out.singular_values
    explained = np.sum((Vt * s[:, None]) ** 2, axis=0)
    np.testing.assert_allclose(explained + out.residual, out.svd.column_sq_norms, rtol=1e-9)
    lev, res = leverage_residual(Vt, s, out.svd.column_sq_norms)
    np.testing.assert_array_equal(lev, out.leverage)


def test_constant_columns_score_zero():
    A = _data(seed=4)
    A[:, [0, 7]] = 5.0
    out = subspace_scores(A, 3, random_state=0)
    np.testing.assert_allclose(out.scores[[0, 7]], 0.0, atol=1e-12)


def test_dask_equals_numpy():
    import dask.array as da
    A = _data(n=90, seed=5)
    rn = subspace_scores(A, 4, gamma="theory", random_state=1)
    rd = subspace_scores(da.from_array(A, chunks=(20, 25)), 4, gamma="theory", random_state=1)
    np.testing.assert_allclose(rd.scores, rn.scores, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(rd.gamma, rn.gamma, rtol=1e-9)


def test_constant_columns_zero_when_krylov_not_exhausted():
    """p much larger than the Krylov space: constant pixels still get exactly zero scores."""
    rng = np.random.default_rng(9)
    A = rng.standard_normal((40, 300))
    A[:, [0, 5, 299]] = -1.0
    out = subspace_scores(A, 3, n_iter=2, block_size=4, random_state=0)
    assert out.svd.krylov_dim < 300
    assert np.all(out.leverage[[0, 5, 299]] == 0.0)
    assert np.all(out.scores[[0, 5, 299]] == 0.0)
