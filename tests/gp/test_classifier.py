import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.utils.estimator_checks import parametrize_with_checks

from pixsel.gp import GaussianProcessProbitClassifier


def _blobs(n, seed):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, 3)) + 1.6 * y[:, None] * np.array([1.0, 0.5, 0.0])
    return X, y


@parametrize_with_checks([GaussianProcessProbitClassifier("laplace", optimizer=None, random_state=0)])
def test_sklearn_compatible(estimator, check):
    # Laplace and optimizer=None keep the checks fast; EP and the hyperparameter search are tested below
    check(estimator)


def test_ep_matches_sklearn_laplace_on_an_easy_problem():
    X, y = _blobs(120, 0)
    Xt, yt = _blobs(300, 1)
    ep = GaussianProcessProbitClassifier("ep", n_restarts=1, random_state=0).fit(X, y)
    sk = GaussianProcessClassifier(ConstantKernel() * RBF(), random_state=0).fit(X, y)
    err_ep = np.mean(ep.predict(Xt) != yt)
    err_sk = np.mean(sk.predict(Xt) != yt)
    assert err_ep < 0.25 and abs(err_ep - err_sk) < 0.03  # Bayes error ~0.19
    assert np.mean(ep.predict(Xt) == sk.predict(Xt)) > 0.95
    proba = ep.predict_proba(Xt)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    np.testing.assert_allclose(np.exp(ep.predict_log_proba(Xt)), proba)
    assert ep.log_marginal_likelihood_value_ == max(r["lml"] for r in ep.restarts_)


def test_restarts_never_lower_the_evidence_and_inputs_are_untouched():
    X, y = _blobs(60, 2)
    X0, y0 = X.copy(), y.copy()
    one = GaussianProcessProbitClassifier("laplace", n_restarts=0, random_state=0).fit(X, y)
    three = GaussianProcessProbitClassifier("laplace", n_restarts=2, random_state=0).fit(X, y)
    assert len(three.restarts_) == 3 and three.restarts_[0]["theta0"].tolist() == one.restarts_[0]["theta0"].tolist()
    assert three.log_marginal_likelihood_value_ >= one.log_marginal_likelihood_value_ - 1e-9
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize("approx", ["ep", "laplace"])
def test_ard_relevance_finds_the_informative_feature(approx):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = (X[:, 2] + 0.5 * rng.normal(size=60) > 0).astype(int)
    gp = GaussianProcessProbitClassifier(approx, ard=True, n_restarts=0, max_iter=20, random_state=0).fit(X, y)
    assert gp.relevance_.shape == (4,)
    assert int(np.argmax(gp.relevance_)) == 2
    assert gp.length_scale_.shape == (4,)


def test_time_budget_stops_and_keeps_a_usable_model():
    X, y = _blobs(80, 3)
    gp = GaussianProcessProbitClassifier("ep", n_restarts=3, max_time=1e-9, random_state=0).fit(X, y)
    assert gp.stopped_by_time_
    assert gp.predict(X).shape == (80,)


def test_bad_input_messages():
    X, y = _blobs(30, 0)
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        GaussianProcessProbitClassifier().fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="The 'approximation' parameter of GaussianProcessProbitClassifier"):
        GaussianProcessProbitClassifier("vb").fit(X, y)
    with pytest.raises(ValueError, match="The 'n_restarts' parameter"):
        GaussianProcessProbitClassifier(n_restarts=-1).fit(X, y)


def test_ep_method_is_a_deprecated_alias_of_ep_algorithm():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    kw = dict(n_restarts=0, max_iter=5, random_state=0)
    want = GaussianProcessProbitClassifier(ep_algorithm="sequential", **kw).fit(X, y)
    with pytest.warns(FutureWarning, match="renamed ep_algorithm"):
        got = GaussianProcessProbitClassifier(ep_method="sequential", **kw).fit(X, y)
    np.testing.assert_allclose(got.theta_, want.theta_)
    with pytest.raises(ValueError, match="'ep_algorithm' parameter"):
        GaussianProcessProbitClassifier(ep_algorithm="serial", **kw).fit(X, y)
