import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.utils.estimator_checks import parametrize_with_checks

from pixsel.decomposition import GreedySparsePCA


@parametrize_with_checks([GreedySparsePCA(n_components=1, n_nonzero_coefs=1), GreedySparsePCA()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(seed=0, n=150, p=12):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, p)) @ (np.eye(p) + 0.5 * rng.standard_normal((p, p)))


@pytest.mark.parametrize("direction", ["forward", "backward", "dual"])
def test_exact_cardinality_and_unit_norm(direction):
    X = _data()
    est = GreedySparsePCA(n_components=4, n_nonzero_coefs=5, direction=direction).fit(X)
    assert np.count_nonzero(est.components_, axis=1).tolist() == [5, 5, 5, 5]
    np.testing.assert_allclose(np.linalg.norm(est.components_, axis=1), 1.0)
    assert np.all(est.upper_bound_ >= est.component_variance_ - 1e-9)


def test_full_cardinality_reproduces_pca():
    X = _data(1)
    est = GreedySparsePCA(n_components=3, n_nonzero_coefs=12).fit(X)
    pca = PCA(3).fit(X)
    np.testing.assert_allclose(np.abs(est.components_ @ pca.components_.T), np.eye(3), atol=1e-8)
    np.testing.assert_allclose(est.explained_variance_, pca.explained_variance_, rtol=1e-8)
    np.testing.assert_allclose(est.explained_variance_ratio_, pca.explained_variance_ratio_, rtol=1e-8)


def test_adjusted_variance_is_variance_of_projection():
    """The adjusted variances sum to the variance captured by the span of the components."""
    X = _data(2)
    est = GreedySparsePCA(n_components=3, n_nonzero_coefs=4).fit(X)
    Xc = X - X.mean(0)
    Q, _ = np.linalg.qr(est.components_.T)
    captured = np.linalg.norm(Xc @ Q, "fro") ** 2 / (len(X) - 1)
    # variance of the scores' span, a lower bound of the subspace variance, never above the total
    assert est.explained_variance_.sum() <= captured + 1e-9
    assert est.explained_variance_[0] == pytest.approx(est.component_variance_[0], rel=1e-10)
    Z = est.transform(X)
    assert est.explained_variance_[0] == pytest.approx(Z[:, 0].var(ddof=1), rel=1e-10)


def test_deflation_orthogonalizes_in_covariance():
    X = _data(3)
    est = GreedySparsePCA(n_components=2, n_nonzero_coefs=4).fit(X)
    C = np.cov(X, rowvar=False)
    v1, v2 = est.components_
    P = np.eye(12) - np.outer(v1, v1)
    assert v1 @ (P @ C @ P) @ v2 == pytest.approx(0.0, abs=1e-10)
