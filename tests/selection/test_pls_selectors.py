import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import RidgeClassifier
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from pixsel import CardinalSPLSSelector, SPLSSelector
from pixsel.pls import cardinal_counts, simpls


@parametrize_with_checks([CardinalSPLSSelector(1, n_components=2), SPLSSelector(0.5, n_components=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _regression(seed=0, n=80, p=60, q=3, n_true=6):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 3))
    X = rng.normal(size=(n, p))
    X[:, :n_true] += 3.0 * Z @ rng.normal(size=(3, n_true))
    Y = Z @ rng.normal(size=(3, q)) + 0.1 * rng.normal(size=(n, q))
    return X, Y


@pytest.fixture(scope="module")
def digits():
    return load_digits(return_X_y=True)


def test_planted_truth_and_prediction_is_simpls_on_support():
    X, Y = _regression()
    sel = CardinalSPLSSelector(6, n_components=3).fit(X, Y)
    assert sel.get_support(indices=True).tolist() == list(range(6))
    assert sel.target_ == "continuous"
    fit = simpls(X[:, :6], Y, 3)
    np.testing.assert_allclose(sel.predict(X), fit.predict(X[:, :6]), rtol=1e-10, atol=1e-10)
    assert sel.predict(X).shape == Y.shape
    sel1 = CardinalSPLSSelector(6, n_components=3).fit(X, Y[:, 0])
    assert sel1.predict(X).shape == (80,)


def test_classes_are_one_hot_and_predict_labels(digits):
    X, y = digits
    labels = np.array(list("abcdefghij"))[y]
    sel = CardinalSPLSSelector(30, n_components=5).fit(X, labels)
    assert sel.target_ == "classes" and sel.classes_.tolist() == list("abcdefghij")
    assert sel.coef_.shape == (10, 64)
    assert np.mean(sel.predict(X) == labels) > 0.7
    # the one-hot target gives exactly the same selection as passing it as continuous
    onehot = (y[:, None] == np.arange(10)).astype(float)
    sel2 = CardinalSPLSSelector(30, n_components=5, target="continuous").fit(X, onehot)
    np.testing.assert_array_equal(sel.support_, sel2.support_)


@pytest.mark.parametrize("n", [1, 2, 5, 13, 40, 61])
@pytest.mark.parametrize("K", [1, 3, 7])
def test_exact_cardinality_and_history(digits, n, K):
    X, y = digits
    sel = CardinalSPLSSelector(n, n_components=K).fit(X, y)
    assert sel.n_features_selected_ == n == sel.n_features_to_select_ == sel.transform(X).shape[1]
    assert [len(h) for h in sel.selection_history_] == cardinal_counts(n, K).tolist()
    for k, h in enumerate(sel.selection_history_, start=1):
        assert np.all(sel.iteration_added_[h] == k)
    assert np.count_nonzero(sel.iteration_added_) == n
    assert np.all(sel.coef_[:, ~sel.support_] == 0)


def test_all_non_constant_features_selects_all():
    X, Y = _regression(p=20)
    sel = CardinalSPLSSelector(20, n_components=3).fit(X, Y)
    assert sel.support_.all()
    assert CardinalSPLSSelector(1.0).fit(X, Y).support_.all()
    assert CardinalSPLSSelector(0.25).fit(X, Y).n_features_selected_ == 5


def test_deterministic_clone_and_inputs_unmodified(digits):
    X, y = digits
    Xu = X.astype(np.uint8)
    X0, y0 = Xu.copy(), y.copy()
    est = CardinalSPLSSelector(10, n_components=4)
    a = clone(est).fit(Xu, y)
    b = clone(est).fit(Xu, y)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert [h.tolist() for h in a.selection_history_] == [h.tolist() for h in b.selection_history_]
    np.testing.assert_array_equal(Xu, X0)
    np.testing.assert_array_equal(y, y0)
    assert est.get_params()["n_features_to_select"] == 10
    # float32 input gives the same selection (computations are float64)
    c = clone(est).fit(X.astype(np.float32), y)
    np.testing.assert_array_equal(a.support_, c.support_)


def test_spls_eta_reports_number_selected(digits):
    X, y = digits
    sizes = []
    for eta in (0.2, 0.5, 0.8):
        sel = SPLSSelector(eta, n_components=3).fit(X, y)
        assert sel.n_features_selected_ == sel.support_.sum() == np.count_nonzero(sel.iteration_added_)
        sizes.append(sel.n_features_selected_)
    assert sizes[0] > sizes[-1]


def test_bad_input_clear_errors(digits):
    X, y = digits  # 8 of the 64 digit pixels... some columns are constant
    p = X.shape[1]
    n_const = int(np.sum(np.ptp(X, axis=0) == 0))
    assert n_const > 0
    with pytest.warns(UserWarning, match=f"all {p} features are selected"):  # as SelectKBest (issue 13)
        with pytest.raises(ValueError, match=f"{n_const} of the {p} columns of X are constant"):
            CardinalSPLSSelector(p + 1).fit(X, y)
    with pytest.raises(ValueError, match=f"{n_const} of the {p} columns of X are constant"):
        CardinalSPLSSelector(p).fit(X, y)
    with pytest.raises(ValueError, match=r"'n_components' parameter of CardinalSPLSSelector .* \[1, inf\)"):
        CardinalSPLSSelector(3, n_components=0).fit(X[:10], y[:10])
    assert CardinalSPLSSelector(3, n_components=10).fit(X[:10], y[:10]).n_iterations_ == 9  # capped (issue 13)
    Xn = X.astype(float)
    Xn[5, 7] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        CardinalSPLSSelector(3).fit(Xn, y)
    with pytest.raises(ValueError, match="single class"):
        SPLSSelector(0.5).fit(X, np.zeros(len(X), dtype=int))
    with pytest.raises(ValueError, match=r"'eta' parameter of SPLSSelector .* \(0, 1\)"):
        SPLSSelector(1.5).fit(X, y)
    with pytest.raises(ValueError, match="'target' parameter"):
        CardinalSPLSSelector(3, target="labels").fit(X, y)
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 10))
    with pytest.raises(ValueError, match="exceeds the number of PLS components"):
        CardinalSPLSSelector(10, n_components=4, target="continuous").fit(Xr, Xr @ rng.normal(size=(10, 3)))


def test_convergence_warning():
    X, Y = _regression(q=4)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        sel = CardinalSPLSSelector(10, n_components=3, max_iter=1, tol=0.0).fit(X, Y)
    assert sel.n_iter_ == 1


def test_in_a_pipeline(digits):
    X, y = digits
    pipe = make_pipeline(CardinalSPLSSelector(20, n_components=4), RidgeClassifier())
    assert pipe.fit(X, y).score(X, y) > 0.8
