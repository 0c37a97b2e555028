"""The backward pass of SparseLDASelector in the n-dimensional form (n < p) against the dense pass."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

import pixsel.selection._lda as lda_module
from pixsel import SparseLDASelector
from pixsel.config import compiled_kernels, lowrank_backward
from pixsel.stats import class_statistics, regularize, regularized_factor


@pytest.fixture(scope="module")
def digits_small():
    """40 digits of 4 classes (n = 40 < p = 64), the pixels scaled to [0, 1]."""
    X, y = load_digits(return_X_y=True)
    keep = np.concatenate([np.flatnonzero(y == c)[:10] for c in (0, 3, 5, 8)])
    return X[keep] / 16.0, y[keep]


@pytest.fixture(scope="module")
def random_small():
    rng = np.random.default_rng(7)
    y = np.repeat(np.arange(3), 6)
    X = rng.standard_normal((18, 45)) + 0.8 * rng.standard_normal((3, 45))[y]
    return X, y


@pytest.mark.parametrize("regularization", ["rda", "auto", 0.3, "ledoit-wolf", "ledoit-wolf-floor"])
def test_regularized_factor_gives_the_formed_B(digits_small, regularization):
    X, y = digits_small
    st = class_statistics(X, y)
    B, info = regularize(st.within, regularization, X=X, y=y, means=st.means, classes=st.classes)
    U, lam = regularized_factor(X, y, st.means, st.classes, info)
    assert U.shape == (X.shape[1], X.shape[0]) and lam > 0
    np.testing.assert_allclose(lam * np.eye(X.shape[1]) + U @ U.T, B, rtol=0, atol=1e-12 * np.abs(B).max())


def test_regularized_factor_none_without_ridge(digits_small):
    X, y = digits_small
    st = class_statistics(X, y)
    _, info = regularize(st.within, "none")
    assert regularized_factor(X, y, st.means, st.classes, info) is None


@pytest.mark.parametrize("data", ["digits_small", "random_small"])
@pytest.mark.parametrize("criterion,regularization,two", [
    ("trace", "rda", False), ("max-eig", "auto", False), ("trace", "ledoit-wolf", False),
    ("max-eig", 0.3, False), ("trace", "rda", True), ("trace", "auto", True),
    # B + A = lam I + [U M] [U M]^T: the correlation criterion (the default with more than two classes)
    ("correlation", "rda", False), ("auto", "auto", False), ("correlation", "rda", True),
])
def test_nform_backward_equals_dense(request, monkeypatch, data, criterion, regularization, two):
    X, y = request.getfixturevalue(data)
    if two:
        keep = y <= np.unique(y)[1]
        X, y = X[keep], y[keep]
    assert X.shape[0] < X.shape[1]
    params = dict(n_features_to_select=5, direction="backward", criterion=criterion, regularization=regularization)
    calls = []
    real = lda_module.lowrank_backward_path
    monkeypatch.setattr(lda_module, "lowrank_backward_path", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    nform = SparseLDASelector(**params).fit(X, y)
    assert len(calls) == 1 and nform.backward_path_.info["B"] == "lowrank"
    with lowrank_backward(False):
        dense = SparseLDASelector(**params).fit(X, y)
    assert len(calls) == 1 and dense.backward_path_.info.get("B") != "lowrank"
    np.testing.assert_array_equal(nform.backward_path_.order, dense.backward_path_.order)
    np.testing.assert_array_equal(nform.support_, dense.support_)
    np.testing.assert_allclose(nform.objective_path_, dense.objective_path_, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(nform.coef_, dense.coef_, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("criterion", ["trace", "max-eig"])
def test_nform_backward_equals_dense_compiled(digits_small, criterion):
    """The compiled loops of both forms (the size rule overridden): the same order."""
    X, y = digits_small
    params = dict(n_features_to_select=5, direction="backward", criterion=criterion, regularization="auto")
    with compiled_kernels(True):
        nform = SparseLDASelector(**params).fit(X, y)
        with lowrank_backward(False):
            dense = SparseLDASelector(**params).fit(X, y)
    assert nform.backward_path_.info["B"] == "lowrank" and dense.backward_path_.info.get("B") != "lowrank"
    np.testing.assert_array_equal(nform.backward_path_.order, dense.backward_path_.order)
    np.testing.assert_allclose(nform.objective_path_, dense.objective_path_, rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("direction", ["dual", "cv"])
def test_dual_and_cv_use_nform(digits_small, direction):
    X, y = digits_small
    nform = SparseLDASelector(6, direction=direction, criterion="trace").fit(X, y)
    assert nform.backward_path_.info["B"] == "lowrank"
    with lowrank_backward(False):
        dense = SparseLDASelector(6, direction=direction, criterion="trace").fit(X, y)
    assert dense.backward_path_.info.get("B") != "lowrank"
    np.testing.assert_array_equal(nform.support_, dense.support_)
    np.testing.assert_allclose(nform.objective_path_, dense.objective_path_, rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("params", [
    dict(regularization="none", n_samples=80),  # no ridge (n > p so B is invertible)
    dict(criterion="correlation", n_samples=38),  # n + 3 columns of M >= p: B + A has full rank
    dict(always_select=[20]),
    dict(never_select=[20]),
    dict(n_samples=80),  # n >= p
])
def test_dense_where_b_is_not_of_that_form(params):
    params = dict(params)
    rng = np.random.default_rng(3)
    n = params.pop("n_samples", 30)
    y = np.arange(n) % 3
    X = rng.standard_normal((n, 40)) + rng.standard_normal((3, 40))[y]
    kw = dict(direction="backward", criterion="trace")
    kw.update(params)
    sel = SparseLDASelector(4, **kw).fit(X, y)
    assert sel.backward_path_.info.get("B") != "lowrank"


@pytest.mark.parametrize("compiled", [False, True])
def test_nform_follows_the_route(digits_small, monkeypatch, compiled):
    """The n-form's compiled loop runs exactly when the fit's route chose the compiled kernels."""
    import pixsel.spectral.greedy._lowrank_jit as jit

    X, y = digits_small
    calls = []
    real = jit.lowrank_backward_steps
    monkeypatch.setattr(jit, "lowrank_backward_steps", lambda *a: calls.append(1) or real(*a))
    with compiled_kernels(compiled):
        sel = SparseLDASelector(5, direction="backward", criterion="trace", regularization="auto").fit(X, y)
    assert sel.backward_path_.info["B"] == "lowrank"
    assert bool(calls) == compiled
    before = len(calls)  # no switch: the size rule's route
    sel = SparseLDASelector(5, direction="backward", criterion="trace", regularization="auto").fit(X, y)
    assert sel.route_ in ("compiled", "numpy")
    assert (len(calls) > before) == (sel.route_ == "compiled")
