import numpy as np
import pytest

from pixsel.spectral import greedy_path
from pixsel.spectral._forms import infer_form


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_dispatch_forms_match_oracle(oracle, direction):
    rng = np.random.default_rng(0)
    p = 8
    B = oracle.spd(rng, p)
    a = rng.standard_normal(p)
    M = rng.standard_normal((p, 3))
    A = M @ M.T + 0.2 * np.eye(p)
    for Aform, form in ((a, "vector"), (M, "factor"), (A, "full")):
        path = greedy_path(Aform, B, direction=direction)
        order, obj = oracle.greedy(Aform, B, direction)
        assert path.info["form"] == form
        np.testing.assert_array_equal(path.order, order)
        np.testing.assert_allclose(path.objective, obj, rtol=1e-9)


def test_vector_factor_full_agree():
    rng = np.random.default_rng(1)
    p = 12
    a = rng.standard_normal(p)
    W = rng.standard_normal((p, 20))
    B = W @ W.T / 20 + 0.1 * np.eye(p)
    for d in ("forward", "backward"):
        v = greedy_path(a, B, direction=d)
        f = greedy_path(a[:, None], B, direction=d)
        full = greedy_path(np.outer(a, a), B, direction=d, form="full")
        np.testing.assert_array_equal(v.order, f.order)
        np.testing.assert_array_equal(v.order, full.order)
        np.testing.assert_allclose(v.objective, full.objective, rtol=1e-8)


@pytest.mark.parametrize("form", ["vector", "factor", "full"])
def test_float32_agrees_with_float64(form):
    rng = np.random.default_rng(2)
    p = 15
    X = rng.standard_normal((60, p)).astype(np.float32)
    A = {"vector": X[:30].mean(0) - X[30:].mean(0), "factor": X[:4].T, "full": np.cov(X, rowvar=False)}[form]
    B = np.cov(X, rowvar=False).astype(np.float32) + np.float32(0.1) * np.eye(p, dtype=np.float32)
    if form == "full":
        B = None
    p32 = greedy_path(A.astype(np.float32), B, form=form)
    p64 = greedy_path(A.astype(np.float64), None if B is None else B.astype(np.float64), form=form)
    np.testing.assert_array_equal(p32.order, p64.order)
    np.testing.assert_allclose(p32.objective, p64.objective, rtol=1e-5)


def test_max_k_and_errors():
    A = np.diag([1.0, 3.0, 2.0])
    assert greedy_path(A, max_k=2).order.tolist() == [1, 0]  # ties -> lowest index
    with pytest.raises(ValueError, match="max_k"):
        greedy_path(A, direction="backward", max_k=2)
    with pytest.raises(ValueError, match="'direction' parameter of greedy_path"):
        greedy_path(A, direction="up")
    with pytest.raises(ValueError, match="shape"):
        greedy_path(A, np.eye(2))
    with pytest.raises(ValueError, match="symmetric"):
        greedy_path(A, np.triu(np.ones((3, 3))) + np.eye(3))
    with pytest.raises(ValueError, match="NaN"):
        greedy_path(np.array([1.0, np.nan]))
    assert infer_form(np.arange(6.0).reshape(3, 2)) == "factor"


def test_certificate_is_opt_in_and_certified_when_asked(oracle):
    rng = np.random.default_rng(9)
    A = np.cov(rng.standard_normal((30, 7)), rowvar=False)
    for d in ("forward", "backward"):
        path = greedy_path(A, direction=d, certificate="auto")
        assert path.upper_bound is not None and path.upper_bound.shape == (7,)
        assert path.info["proved_optimal"] is not None  # p <= 256: the dual certificate ran
        assert np.all(path.gap >= -1e-9)
        for k in (2, 4):
            assert path.upper_bound[k - 1] >= oracle.best(A, None, k) * (1 - 1e-12)
    assert greedy_path(A).upper_bound is None  # default: kernel speed, no bounds
    assert greedy_path(A, certificate=None).upper_bound is None
    with pytest.raises(ValueError, match="'certificate' parameter of greedy_path"):
        greedy_path(A, certificate="yes")


def test_singular_B_forward_has_infinite_bound_and_backward_asks_for_regularization():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((4, 8))
    B = X.T @ X / 4
    a = X.T @ rng.standard_normal(4) / 4
    path = greedy_path(a, B, certificate="inclusion")
    assert np.all(np.isfinite(path.objective)) and np.all(np.isinf(path.upper_bound))
    with pytest.raises(ValueError, match="regulariz"):
        greedy_path(a, B, direction="backward")
    with pytest.raises(TypeError, match="binary kernel"):
        greedy_path(np.eye(3), block_size=2)
    assert greedy_path(a, B, block_size=2).order.tolist() == path.order.tolist()


def _data(seed=4, n=30, p=12):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.standard_normal((n, p)) + 2.0 * np.eye(3, p)[y]
    return X, y


def test_gram_operator_b_takes_the_implicit_route_same_path_as_the_kernel():
    from pixsel.spectral import implicit_greedy_path
    from pixsel.stats import gram_operator

    X, y = _data()
    B = gram_operator(X, y).with_alpha(0.05)
    for a in (B.class_means.between_factor, B.class_means.between_factor[:, 0]):
        want = implicit_greedy_path(a, B, max_k=5)
        got = greedy_path(a, B, max_k=5)
        assert type(got) is type(want) and got.info["kind"] == "lda"
        np.testing.assert_array_equal(got.order, want.order)
        np.testing.assert_array_equal(got.objective, want.objective)  # the same kernel, bit for bit


def test_gram_operator_a_is_implicit_sparse_pca_equal_to_the_dense_path(oracle):
    from pixsel.stats import gram_operator

    X, _ = _data(seed=6)
    C = np.cov(X, rowvar=False, bias=True)  # the operator's Xc^T Xc / N
    got = greedy_path(gram_operator(X), max_k=6)
    order, obj = oracle.greedy(C, None, "forward")
    assert got.info["kind"] == "pca"
    np.testing.assert_array_equal(got.order, order[:6])
    np.testing.assert_allclose(got.objective, obj[:6], rtol=1e-9)


def test_gram_operator_errors_say_how_to_fix_the_call():
    from pixsel.stats import gram_operator

    X, y = _data()
    B = gram_operator(X, y).with_alpha(0.05)
    a = B.class_means.between_factor
    with pytest.raises(ValueError, match="forward selection only"):
        greedy_path(a, B, direction="backward", max_k=3)
    with pytest.raises(ValueError, match="needs max_k"):
        greedy_path(a, B)
    with pytest.raises(ValueError, match="certificate=None"):
        greedy_path(a, B, max_k=3, certificate="inclusion")
    with pytest.raises(TypeError, match="block_size"):
        greedy_path(a, B, max_k=3, check_every=2)
