"""SparseLDASelector choosing its criterion or its ridge by cross-validation (criterion='cv', lists)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import StratifiedKFold

from pixsel.selection import SparseLDASelector
from pixsel.selection._lda import cv_sizes


def _one_pixel_per_class(seed, n_per=30, C=6, noise=24):
    """Class c is shifted on pixel c only; the other pixels are noise. The trace rewards the pixel
    of every class; the largest eigenvalue is that of one class's pixel, whatever is added."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(C), n_per)
    X = rng.standard_normal((len(y), C + noise))
    X[np.arange(len(y)), y] += 2.5
    return X, y


def _tiny_variance_noise(seed, n=40, p=120):
    """Pixels 0-4 carry the class difference (unit variance); the others are noise of tiny
    variance, whose chance mean differences look separable without a ridge."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.standard_normal((n, p))
    X[:, 5:] *= 1e-3
    X[:, :5] += 1.2 * y[:, None]
    return X, y


def _held_out(sel, seed, make, k):
    """Oracle: shrinkage LDA on the selection, scored on a large independent sample."""
    Xt, yt = make(1000 + seed, **({"n_per": 300} if make is _one_pixel_per_class else {"n": 600}))
    X, y = make(seed)
    S = sel.get_support(indices=True)
    return LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X[:, S], y).score(Xt[:, S], yt)


def test_cv_sizes():
    assert cv_sizes(100) == [25, 50, 100] and cv_sizes(7) == [2, 4, 7] and cv_sizes(2) == [1, 2]
    assert cv_sizes(1) == [1]


@pytest.mark.parametrize("seed", range(3))
def test_chooses_the_planted_better_criterion(seed):
    X, y = _one_pixel_per_class(seed)
    k = 6
    # the construction is planted under the 'rda' ridge; criterion='cv' runs no beam (its candidates
    # include the largest eigenvalue, whose gains do not add up), nor do these
    fixed = {c: SparseLDASelector(k, criterion=c, regularization="rda", beam_width=1).fit(X, y)
             for c in ("trace", "max-eig")}
    # the construction does what it says: the trace finds the six class pixels and classifies
    # new samples better than the largest eigenvalue's support
    assert set(fixed["trace"].get_support(indices=True)) == set(range(6))
    assert _held_out(fixed["trace"], seed, _one_pixel_per_class, k) > \
        _held_out(fixed["max-eig"], seed, _one_pixel_per_class, k) + 0.1
    sel = SparseLDASelector(k, criterion="cv", regularization="rda").fit(X, y)
    assert sel.criterion_ == "trace" and sel.best_params_ == {"criterion": "trace", "regularization": "rda"}
    res = sel.cv_results_
    assert [d["criterion"] for d in res["params"]] == ["trace", "max-eig"]
    assert res["mean_test_score"][0] > res["mean_test_score"][1]
    assert np.array_equal(res["rank_test_score"], [1, 2])
    # the refit is the fixed-criterion fit with the chosen value
    assert np.array_equal(sel.get_support(), fixed["trace"].get_support())
    assert np.array_equal(sel.objective_path_, fixed["trace"].objective_path_)


@pytest.mark.parametrize("seed", range(3))
def test_chooses_the_planted_better_ridge(seed):
    X, y = _tiny_variance_noise(seed)
    grid = [1e-9, 1.0]
    fixed = [SparseLDASelector(5, regularization=r).fit(X, y) for r in grid]
    assert len(set(fixed[0].get_support(indices=True)) - set(range(5))) >= 2  # no ridge: noise pixels
    assert set(fixed[1].get_support(indices=True)) == set(range(5))
    assert _held_out(fixed[1], seed, _tiny_variance_noise, 5) > _held_out(fixed[0], seed, _tiny_variance_noise, 5) + 0.05
    sel = SparseLDASelector(5, regularization=grid).fit(X, y)
    assert sel.best_params_["regularization"] == 1.0 and sel.regularization_["alpha"] == 1.0
    assert np.array_equal(sel.get_support(), fixed[1].get_support())
    assert len(sel.cv_results_["params"]) == 2  # two classes: one criterion, two ridges


def test_cv_scores_are_the_by_hand_loop():
    """Oracle: cv_results_ equals fitting every candidate on every fold by hand."""
    X, y = _one_pixel_per_class(0, n_per=12, C=4, noise=10)
    k = 4
    cv = StratifiedKFold(3)
    sel = SparseLDASelector(k, criterion="cv", regularization=["auto", 0.5], cv=cv).fit(X, y)
    for j, par in enumerate(sel.cv_results_["params"]):
        per_fold = []
        for train, test in cv.split(X, y):
            f = SparseLDASelector(k, **par).fit(X[train], y[train])
            accs = []
            for size in cv_sizes(k):
                S = f.get_support_at(size, indices=True)
                lda = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X[np.ix_(train, S)], y[train])
                accs.append(lda.score(X[np.ix_(test, S)], y[test]))
            per_fold.append(np.mean(accs))
        assert sel.cv_results_["mean_test_score"][j] == pytest.approx(np.mean(per_fold))
        assert sel.cv_results_["split2_test_score"][j] == pytest.approx(per_fold[2])
    best = int(np.argmax(sel.cv_results_["mean_test_score"]))
    assert sel.best_params_ == sel.cv_results_["params"][best]


@pytest.mark.parametrize("params", [{"criterion": ["max-eig"]}, {"criterion": ("trace",)},
                                    {"regularization": [0.3]}, {"criterion": ["max-eig", "max-eig"]}])
def test_one_value_grid_is_the_fixed_fit(params):
    X, y = _one_pixel_per_class(1, n_per=15)
    fixed = {k: (v[0] if isinstance(v, (list, tuple)) else v) for k, v in params.items()}
    a = SparseLDASelector(8, **params).fit(X, y)
    b = SparseLDASelector(8, **fixed).fit(X, y)
    assert a.cv_results_ is None and not hasattr(a, "best_params_")
    assert a.criterion_ == b.criterion_
    assert np.array_equal(a.get_support(), b.get_support())
    assert np.array_equal(a.objective_path_, b.objective_path_)
    assert a.regularization_ == b.regularization_


def test_two_classes_need_no_criterion_cv():
    X, y = _tiny_variance_noise(0)
    sel = SparseLDASelector(5, criterion="cv").fit(X, y)
    assert sel.cv_results_ is None and sel.criterion_ == "trace"


def test_stability_reuses_the_choice(count_calls):
    """The resampled paths take the cross-validated criterion: no cross-validation per resample."""
    X, y = _one_pixel_per_class(2, n_per=16)
    calls = count_calls(SparseLDASelector, "_cross_validate")
    sel = SparseLDASelector(6, criterion="cv", stability=4, random_state=0).fit(X, y)
    assert len(calls) == 1 and sel.selection_frequencies_.shape == (X.shape[1],)
    assert clone(sel).get_params()["criterion"] == "cv"  # the parameter is left as given


def test_bad_input():
    X, y = _one_pixel_per_class(0, n_per=4)
    with pytest.raises(ValueError, match="criterion.*empty list"):
        SparseLDASelector(3, criterion=[]).fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        SparseLDASelector(3, criterion=["trace", "sum"]).fit(X, y)
    with pytest.raises(ValueError, match="regularization.*empty list"):
        SparseLDASelector(3, regularization=[]).fit(X, y)
    with pytest.raises(ValueError, match="cv=5 folds needs at least 5 samples of every class.*Use cv=4"):
        SparseLDASelector(3, criterion="cv", cv=5).fit(X, y)
    with pytest.raises(ValueError, match="cv"):
        SparseLDASelector(3, criterion="cv", cv=1).fit(X, y)
    with pytest.raises(ValueError, match="without groups"):
        SparseLDASelector(3, criterion="cv", groups=np.arange(X.shape[1]) // 2).fit(X, y)
    Xc = X.copy()
    SparseLDASelector(3, criterion="cv", regularization=["auto", 1.0]).fit(X, y)
    assert np.array_equal(X, Xc)  # the caller's array is not modified
