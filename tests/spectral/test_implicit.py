import numpy as np
import pytest

from pixsel.spectral import greedy_path
from pixsel.spectral._implicit import implicit_greedy_path, use_implicit
from pixsel.stats import CenteredGramOperator, class_statistics


def _lda(X, y, max_k, alpha, criterion="max-eig"):
    B = CenteredGramOperator(X, y, alpha=alpha)
    cm = B.class_means
    return implicit_greedy_path(cm.between if cm.n_classes == 2 else cm.between_factor, B,
                                max_k=max_k, criterion=criterion)


def _data(rng, n=30, p=80, C=2, dtype=np.float64):
    y = np.arange(n) % C
    X = rng.standard_normal((n, p)) + 0.3 * rng.standard_normal((1, p))
    X[:, :5] += 1.5 * y[:, None] * rng.standard_normal(5)
    return X.astype(dtype), y


@pytest.mark.parametrize("C", [2, 4])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_lda_matches_dense_forward(C, criterion):
    rng = np.random.default_rng(C)
    X, y = _data(rng, C=C)
    X0 = X.copy()
    alpha = 0.05
    imp = _lda(X, y, 25, alpha, criterion)
    st = class_statistics(X, y)
    B = st.within + alpha * np.eye(X.shape[1])
    A = st.between if C == 2 else st.between_factor
    dense = greedy_path(A, B, criterion=criterion, max_k=25)
    np.testing.assert_array_equal(imp.order, dense.order)
    np.testing.assert_allclose(imp.objective, dense.objective, rtol=1e-8)
    np.testing.assert_array_equal(X, X0)
    w = imp.weights(5)
    np.testing.assert_allclose(np.abs(w), np.abs(dense.weights(5)) / np.linalg.norm(dense.weights(5)) * np.linalg.norm(w), rtol=1e-6, atol=1e-10)


def test_pca_matches_dense_forward():
    rng = np.random.default_rng(5)
    X, _ = _data(rng, n=25, p=60)
    imp = implicit_greedy_path(CenteredGramOperator(X), max_k=20)
    A = np.cov(X, rowvar=False, bias=True)
    dense = greedy_path(A, max_k=20)
    np.testing.assert_array_equal(imp.order, dense.order)
    np.testing.assert_allclose(imp.objective, dense.objective, rtol=1e-9)
    z = imp.weights(4)
    assert z @ A @ z == pytest.approx(dense.objective[3], rel=1e-9)


def test_float32_data_same_order():
    rng = np.random.default_rng(7)
    X, y = _data(rng, n=40, p=100)
    o64 = _lda(X, y, 10, 0.1).order
    o32 = _lda(X.astype(np.float32), y, 10, 0.1).order
    np.testing.assert_array_equal(o32, o64)


def test_rule_and_errors():
    assert use_implicit(100, 10000) and not use_implicit(20000, 10000)
    X = np.ones((4, 6))
    with pytest.raises(ValueError, match="max_k"):
        implicit_greedy_path(CenteredGramOperator(X), max_k=7)
    with pytest.raises(ValueError, match="max_k"):
        implicit_greedy_path(np.ones(6), CenteredGramOperator(X, alpha=1.0), max_k=7)
    with pytest.raises(TypeError, match="CenteredGramOperator"):
        implicit_greedy_path(X.T @ X, max_k=2)  # a dense matrix goes to greedy_path
    with pytest.raises(ValueError, match="must match"):
        implicit_greedy_path(np.ones(5), CenteredGramOperator(X, alpha=1.0), max_k=2)


@pytest.mark.parametrize("C", [None, 2, 3])
def test_implicit_paths_carry_certified_bounds(oracle, C):
    rng = np.random.default_rng(11)
    X, y = _data(rng, n=20, p=9, C=C or 2)
    if C is None:
        path = implicit_greedy_path(CenteredGramOperator(X), max_k=5)
    else:
        path = _lda(X, y, 5, 0.1)
    if C is None:
        A, B = np.cov(X, rowvar=False, bias=True), None
    else:
        st = class_statistics(X, y)
        A, B = (st.between if C == 2 else st.between_factor), st.within + 0.1 * np.eye(9)
    for k in range(1, 6):
        assert path.upper_bound[k - 1] >= oracle.best(A, B, k) * (1 - 1e-12)
