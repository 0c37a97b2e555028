"""PathSelectorCV: the chosen k and every CV score against a brute-force per-k refit loop."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from pixsel import (
    CardinalSPLSSelector,
    PathSelectorCV,
    ScoreSelector,
    SparseLDASelector,
    SparsePCASelector,
    SPLSSelector,
)
from pixsel.selection._cv import _nested_order, _ShrinkageLDAStatistics


def _lda():
    return LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")


def _planted(seed=0, n=160, p=14, informative=(2, 5, 9), shift=0.8, common=0.3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.standard_normal((n, p)) + common * rng.standard_normal((n, 1))  # correlated columns
    X[:, list(informative)] += shift * y[:, None]
    return X, y


def _brute_force(selector, X, y, grid, cv, estimator=None, scoring=None, groups=None):
    """Explicit per-k refit of selector + model, scored by cross_val_score on the same folds."""
    est = _lda() if estimator is None else estimator
    return np.array([
        cross_val_score(make_pipeline(clone(selector).set_params(n_features_to_select=int(k)), clone(est)),
                        X, y, cv=cv, scoring=scoring, groups=groups)
        for k in grid
    ])  # (n_k, n_splits)


@pytest.mark.parametrize("reuse", [True, False])
def test_lda_path_scores_and_choice_equal_brute_force(reuse):
    X, y = _planted()
    grid = np.arange(1, X.shape[1] + 1)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    got = PathSelectorCV(SparseLDASelector(), k_grid=grid, cv=cv, reuse_statistics=reuse).fit(X, y)
    want = _brute_force(SparseLDASelector(), X, y, grid, cv)
    splits = np.array([got.cv_results_[f"split{i}_test_score"] for i in range(5)]).T
    np.testing.assert_allclose(splits, want, rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.cv_results_["mean_test_score"], want.mean(axis=1), rtol=0, atol=1e-10)
    assert got.n_features_to_select_ == grid[int(np.argmax(want.mean(axis=1)))]
    assert got.route_ == "path" and got.n_splits_ == 5
    # final refit at the chosen k on all the data
    ref = SparseLDASelector(got.n_features_to_select_).fit(X, y)
    np.testing.assert_array_equal(got.get_support(), ref.get_support())
    np.testing.assert_array_equal(got.transform(X), X[:, ref.get_support()])
    lda = _lda().fit(X[:, ref.get_support()], y)  # the downstream model on all the data
    for attr in ("coef_", "intercept_", "covariance_", "means_", "priors_", "classes_"):
        np.testing.assert_allclose(getattr(got.estimator_, attr), getattr(lda, attr), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got.estimator_.predict_proba(got.transform(X)), lda.predict_proba(X[:, ref.get_support()]),
                               rtol=1e-8, atol=1e-12)


def test_planted_support_is_chosen():
    # log-loss separates the k far better than accuracy; the one-SE rule recovers the planted
    # support on every seed (best-mean over-selects on 2 of 8)
    for seed in range(8):
        X, y = _planted(seed=seed, n=400, shift=1.0, common=0.0)
        got = PathSelectorCV(k_grid=range(1, 15), rule="one-se", scoring="neg_log_loss").fit(X, y)
        assert got.get_support(indices=True).tolist() == [2, 5, 9]


def test_multiclass_and_user_scorer_equal_brute_force():
    rng = np.random.default_rng(1)
    n, p = 150, 10
    y = rng.integers(0, 3, n)
    X = rng.standard_normal((n, p))
    X[:, 1] += y
    X[:, 7] -= 0.7 * (y == 2)
    grid = [1, 2, 3, 5, 10]
    cv = StratifiedKFold(3, shuffle=True, random_state=2)
    for scoring in (None, "neg_log_loss", "balanced_accuracy"):
        got = PathSelectorCV(SparseLDASelector(direction="forward"), k_grid=grid, cv=cv, scoring=scoring).fit(X, y)
        want = _brute_force(SparseLDASelector(direction="forward"), X, y, grid, cv, scoring=scoring)
        np.testing.assert_allclose(got.cv_results_["mean_test_score"], want.mean(axis=1), rtol=0, atol=1e-10)


def test_implicit_algorithm_equals_brute_force():
    """The implicit algorithm computes the path only to n_features_to_select: each fold's path
    must still reach the grid's largest k (it failed with k = 1 asked and path='full' ignored)."""
    rng = np.random.default_rng(3)
    n, p = 60, 40
    y = np.repeat(np.arange(4), n // 4)
    X = rng.standard_normal((n, p))
    X[:, 3] += y
    X[:, 11] -= 0.8 * (y == 2)
    grid = [1, 2, 5, 8]
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    sel = SparseLDASelector(algorithm="implicit")
    got = PathSelectorCV(sel, k_grid=grid, cv=cv).fit(X, y)
    want = _brute_force(sel, X, y, grid, cv)
    np.testing.assert_allclose(got.cv_results_["mean_test_score"], want.mean(axis=1), rtol=0, atol=1e-10)


@pytest.mark.parametrize(
    "selector, route",
    [
        (SparsePCASelector(direction="forward"), "path"),
        (ScoreSelector(criterion="fisher"), "ranking"),
        (ScoreSelector(criterion="variance", mode="sample", random_state=0), "refit"),
        (CardinalSPLSSelector(1, n_components=2), "refit"),
    ],
)
def test_other_selectors_equal_brute_force(selector, route):
    X, y = _planted(seed=5, n=120, p=8, informative=(2, 5))
    X[:, [2, 5]] *= 2.0  # variance carries signal for the unsupervised selectors
    grid = [1, 2, 4, 8]
    cv = StratifiedKFold(4, shuffle=True, random_state=1)
    est = LogisticRegression()
    got = PathSelectorCV(selector, k_grid=grid, cv=cv, estimator=est).fit(X, y)
    assert got.route_ == route
    want = _brute_force(selector, X, y, grid, cv, estimator=est)
    np.testing.assert_allclose(got.cv_results_["mean_test_score"], want.mean(axis=1), rtol=0, atol=1e-10)


def test_regression_default_ridge_equals_brute_force():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((90, 7))
    X[:, 3] *= 3
    y = X[:, 3] + 0.5 * rng.standard_normal(90)
    cv = KFold(3, shuffle=True, random_state=0)
    got = PathSelectorCV(SparsePCASelector(direction="forward"), k_grid=[1, 3, 7], cv=cv).fit(X, y)
    want = _brute_force(SparsePCASelector(direction="forward"), X, y, [1, 3, 7], cv, estimator=Ridge())
    np.testing.assert_allclose(got.cv_results_["mean_test_score"], want.mean(axis=1), rtol=0, atol=1e-10)
    assert not hasattr(got, "classes_")


@pytest.mark.parametrize("k", [1, 2, 4, 9])
def test_lda_statistics_equal_a_direct_fit(k):
    rng = np.random.default_rng(k)
    n, p = 70, 9
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
    X = rng.standard_normal((n, p)) * rng.uniform(0.1, 5, p)
    X[:, 4] = 1.5  # a constant column (StandardScaler keeps its scale at 1)
    X[y == "b", 0] += 1
    S = np.sort(rng.choice(p, k, replace=False))
    if k > 1:
        S[0] = 4
        S.sort()
    for classes in (("a", "b"), ("a", "b", "c")):
        m = np.isin(y, classes)
        stats = _ShrinkageLDAStatistics(X[m], y[m])
        fast = stats.estimator(S)
        ref = _lda().fit(X[m][:, S], y[m])
        for attr in ("coef_", "intercept_", "covariance_", "means_", "priors_"):
            np.testing.assert_allclose(getattr(fast, attr), getattr(ref, attr), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(fast.predict_proba(X[:, S]), ref.predict_proba(X[:, S]), rtol=1e-8, atol=1e-12)
        np.testing.assert_array_equal(fast.predict(X[:, S]), ref.predict(X[:, S]))
        assert stats.accuracy(S, X, y) == ref.score(X[:, S], y)


def _few_per_class(seed=0, C=6, per=8, p=40):
    """Few samples per class (as faces): the scorer forms its matrices from the samples."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(C), per)
    X = rng.standard_normal((len(y), p)) * rng.uniform(0.2, 3, p)
    X[:, :6] += 1.2 * rng.standard_normal((C, 6))[y]
    return X, y


@pytest.mark.parametrize("by_samples", [True, False])
@pytest.mark.parametrize("classes", [2, 5])
def test_path_decisions_equal_a_direct_fit(by_samples, classes):
    # nested supports along an order, k from 1 to beyond n (the Woodbury form when by samples)
    X, y = _few_per_class(seed=classes, C=classes, per=7, p=30)
    X[:, 11] = 2.0  # a constant column
    rng = np.random.default_rng(3)
    Xt = rng.standard_normal((25, X.shape[1])) * X.std(axis=0) + X.mean(axis=0)
    order = rng.permutation(X.shape[1])
    grid = np.array([1, 2, 3, 7, 13, 14, 15, 22, 30])  # n = 14 or 35
    stats = _ShrinkageLDAStatistics(X, y, by_samples=by_samples)
    for k, got in zip(grid, stats.path_decisions(order, grid, Xt)):
        S = np.sort(order[:k])
        ref = _lda().fit(X[:, S], y)
        np.testing.assert_allclose(got, ref.decision_function(Xt[:, S]), rtol=1e-7, atol=1e-9)
    yt = rng.integers(0, classes, len(Xt))
    accs = stats.path_accuracies(order, grid, Xt, yt)
    want = [_lda().fit(X[:, np.sort(order[:k])], y).score(Xt[:, np.sort(order[:k])], yt) for k in grid]
    np.testing.assert_array_equal(accs, want)


def test_nested_order():
    assert _nested_order([[4], [1, 4], [0, 1, 3, 4]]).tolist()[:2] == [4, 1]
    assert sorted(_nested_order([[4], [1, 4], [0, 1, 3, 4]]).tolist()[2:]) == [0, 3]
    assert _nested_order([[4], [1, 2]]) is None


@pytest.mark.parametrize("grid", [[1, 2, 3, 5, 8, 13, 21, 30, 40], list(range(1, 9)), [5, 20, 25]])
def test_few_samples_per_class_equal_brute_force(grid):
    # many classes, few samples each, k past the training size: the chosen k and every score
    # (the fold's forward path runs whole, to 11 steps, to 26 steps)
    X, y = _few_per_class(seed=1)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    # the folds read greedy supports (refine acts at the final refit only): the same per-k refits
    sel = SparseLDASelector(direction="forward", refine=False)
    got = PathSelectorCV(sel, k_grid=grid, cv=cv).fit(X, y)
    want = _brute_force(sel, X, y, grid, cv)
    splits = np.array([got.cv_results_[f"split{i}_test_score"] for i in range(4)]).T
    np.testing.assert_allclose(splits, want, rtol=0, atol=1e-10)
    assert got.n_features_to_select_ == grid[int(np.argmax(want.mean(axis=1)))]


def test_one_standard_error_rule():
    X, y = _planted(seed=7, n=200)
    cvsel = PathSelectorCV(k_grid=range(1, 15), rule="one-se").fit(X, y)
    r = cvsel.cv_results_
    best = int(np.argmax(r["mean_test_score"]))
    se = r["std_test_score"][best] / np.sqrt(cvsel.n_splits_)
    ok = r["mean_test_score"] >= r["mean_test_score"][best] - se
    assert cvsel.n_features_to_select_ == r["n_features"][np.flatnonzero(ok)[0]]
    assert cvsel.n_features_to_select_ <= PathSelectorCV(k_grid=range(1, 15)).fit(X, y).n_features_to_select_
    assert cvsel.best_index_ == best and r["rank_test_score"][best] == 1


def test_groups_and_any_splitter():
    X, y = _planted(seed=2, n=120)
    groups = np.repeat(np.arange(12), 10)
    cv = GroupKFold(4)
    got = PathSelectorCV(k_grid=[1, 3, 6], cv=cv).fit(X, y, groups=groups)
    want = _brute_force(SparseLDASelector(), X, y, [1, 3, 6], cv, groups=groups)
    np.testing.assert_allclose(got.cv_results_["mean_test_score"], want.mean(axis=1), rtol=0, atol=1e-10)
    # an iterable of splits works too
    splits = list(StratifiedKFold(3).split(X, y))
    a = PathSelectorCV(k_grid=[2, 4], cv=splits).fit(X, y).cv_results_["mean_test_score"]
    b = PathSelectorCV(k_grid=[2, 4], cv=3).fit(X, y).cv_results_["mean_test_score"]
    np.testing.assert_array_equal(a, b)


def test_n_jobs_gives_the_same_results():
    X, y = _planted(seed=4)
    a = PathSelectorCV(k_grid=range(1, 8), n_jobs=1).fit(X, y).cv_results_
    b = PathSelectorCV(k_grid=range(1, 8), n_jobs=2).fit(X, y).cv_results_
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])


def test_pipeline_and_grid_search():
    X, y = _planted(seed=6)
    pipe = make_pipeline(PathSelectorCV(k_grid=range(1, 6), cv=3), _lda())
    gs = GridSearchCV(pipe, {"pathselectorcv__rule": ["best", "one-se"]}, cv=3).fit(X, y)
    assert gs.best_estimator_[0].n_features_to_select_ in range(1, 6)
    assert gs.predict(X).shape == y.shape


def test_auto_grid():
    X, y = _planted(seed=1, p=20)
    cvsel = PathSelectorCV(cv=3).fit(X, y)
    np.testing.assert_array_equal(cvsel.cv_results_["n_features"], np.arange(1, 21))
    big = PathSelectorCV(cv=3)._grid(1024, "path", "PathSelectorCV")
    assert big[0] == 1 and big[-1] == 1024 and np.all(np.diff(big) > 0)
    assert np.array_equal(big[:32], np.arange(1, 33)) and len(big) <= 80
    assert np.all(big[33:] / big[32:-1] < 1.09)  # log-spaced above 32: steps of about 7 %
    refit = PathSelectorCV()._grid(1024, "refit", "PathSelectorCV")
    assert refit[0] == 1 and refit[-1] == 1024 and len(refit) <= 20


def test_does_not_modify_input():
    X, y = _planted()
    X0, y0 = X.copy(), y.copy()
    PathSelectorCV(k_grid=[1, 2]).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_too_few_samples_per_class():
    X, y = _planted(n=40)
    y = y.copy()
    y[:] = 0
    y[:3] = 1
    with pytest.raises(ValueError, match=r"smallest class of y \(label 1\) has 3 sample\(s\), fewer than the cv=5 folds.*Use cv=3"):
        PathSelectorCV(k_grid=[1]).fit(X, y)


def test_training_split_missing_a_class():
    X, y = _planted(n=40)
    order = np.argsort(y, kind="stable")
    with pytest.raises(ValueError, match=r"Training split 0 of PathSelectorCV has no sample of class 0"):
        PathSelectorCV(k_grid=[1], cv=KFold(2)).fit(X[order], y[order])


@pytest.mark.parametrize("grid, exc", [([0, 2], ValueError), ([2, 15], ValueError), ([], ValueError), ([1.5], TypeError)])
def test_k_grid_outside_range(grid, exc):
    X, y = _planted()
    with pytest.raises(exc, match=r"'k_grid' parameter of PathSelectorCV"):
        PathSelectorCV(k_grid=grid).fit(X, y)


def test_nan_scorer_raises():
    X, y = _planted()

    def nan_at_large_k(y_true, y_pred):
        return float("nan")

    with pytest.raises(ValueError, match=r"scorer returned nan on split 0 at k=1"):
        PathSelectorCV(k_grid=[1, 2], scoring=make_scorer(nan_at_large_k)).fit(X, y)


def test_spls_eta_selector_refused():
    X, y = _planted()
    with pytest.raises(TypeError, match="SPLSSelector sets its sparsity with eta"):
        PathSelectorCV(SPLSSelector(0.5), k_grid=[1]).fit(X, y)


def test_bad_rule():
    X, y = _planted()
    with pytest.raises(ValueError, match=r"The 'rule' parameter of PathSelectorCV must be one of"):
        PathSelectorCV(rule="1se").fit(X, y)


@parametrize_with_checks([PathSelectorCV(k_grid=[1, 2], cv=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_transform_of_a_dask_array_stays_lazy():
    da = pytest.importorskip("dask.array")
    X, y = _planted()
    got = PathSelectorCV(k_grid=range(1, 6), cv=3).fit(X, y)
    Xd = da.from_array(X, chunks=(37, X.shape[1]))
    lazy = got.transform(Xd)
    assert isinstance(lazy, da.Array) and lazy.chunks[0] == Xd.chunks[0]
    np.testing.assert_array_equal(lazy.compute(), got.transform(X))


def test_progress_reports_folds_and_steps():
    X, y = _few_per_class(seed=2)
    events = []
    grid = [1, 2, 5, 10, 20]
    PathSelectorCV(SparseLDASelector(), k_grid=grid, cv=3, progress=events.append).fit(X, y)
    folds = [e for e in events if e.stage == "fold"]
    assert [(e.fold, e.done, e.total, e.n_folds) for e in folds] == [(1, 1, 3, 3), (2, 2, 3, 3), (3, 3, 3, 3)]
    assert folds[0].seconds_left is not None and folds[-1].seconds_left == 0
    assert all(e.seconds_left is None for e in events[: events.index(folds[0])])
    for f in (1, 2, 3):
        mine = [e for e in events if e.fold == f]
        stages = [e.stage for e in mine]
        # the path steps, then every k of the grid scored, then the fold's end
        path = [e for e in mine if e.stage == "forward path"]
        scores = [e for e in mine if e.stage == "scores"]
        assert stages == ["forward path"] * len(path) + ["scores"] * len(grid) + ["fold"]
        assert [e.done for e in path] == list(range(1, len(path) + 1)) and path[-1].total >= grid[-1]
        assert [(e.done, e.total) for e in scores] == [(i, len(grid)) for i in range(1, len(grid) + 1)]
    refit = [e for e in events if e.fold is None]
    # the refit at the chosen k runs the default's beam (few images of many classes): its sizes are
    # reported after the forward pass's steps, under one name; the folds ran the forward pass alone
    assert refit and {e.stage for e in refit} == {"forward path, then beam of 3"} and events[-1] is refit[-1]
    k = refit[-1].total
    assert [e.done for e in refit] == list(range(1, k + 1)) * 2
    assert all(b.elapsed >= a.elapsed for a, b in zip(events, events[1:]))


def test_progress_lines_and_parallel_folds(capsys, monkeypatch):
    monkeypatch.setenv("PIXSEL_PROGRESS_INTERVAL", "0")
    X, y = _few_per_class(seed=3)
    cvsel = PathSelectorCV(SparseLDASelector(), k_grid=[1, 3, 9], cv=3, progress=True).fit(X, y)
    err = capsys.readouterr().err
    assert "PathSelectorCV folds: 3/3 fold 3 done" in err
    assert "PathSelectorCV fold 2/3: forward path" in err and "PathSelectorCV fold 3/3: scores: 3/3" in err
    assert cvsel.selector_.progress is False  # the selector keeps its own setting
    events = []
    PathSelectorCV(SparseLDASelector(), k_grid=[1, 3], cv=3, n_jobs=2, progress=events.append).fit(X, y)
    assert [e.done for e in events if e.stage == "fold"] == [1, 2, 3]
    assert not [e for e in events if e.fold is not None and e.stage != "fold"]  # steps stay in the workers


# -- rule='within', tol, random_state ----------------------------------------------------------


@pytest.mark.parametrize("tol", [0.0, 0.02, 0.2, 1.0])
def test_within_rule_equals_brute_force(tol):
    # an explicit grid that stops below p: the fold statistics are formed on the path's columns
    X, y = _planted(seed=3, n=200)
    grid = np.arange(1, 9)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    sel = SparseLDASelector(direction="forward", refine=False)
    got = PathSelectorCV(sel, k_grid=grid, cv=cv, rule="within", tol=tol).fit(X, y)
    mean = _brute_force(sel, X, y, grid, cv).mean(axis=1)
    np.testing.assert_allclose(got.cv_results_["mean_test_score"], mean, rtol=0, atol=1e-10)
    want = grid[np.flatnonzero(mean >= mean.max() - tol)[0]]
    assert got.n_features_to_select_ == want and got.best_index_ == int(np.argmax(mean))
    if tol == 0.0:  # the best k
        assert want == grid[int(np.argmax(mean))]
    if tol == 1.0:  # accuracy given up entirely: one feature
        assert want == 1
    assert got.selector_.n_features_to_select == want  # refitted once, at the chosen k
    np.testing.assert_array_equal(got.get_support(), clone(sel).set_params(n_features_to_select=want).fit(X, y).get_support())


@pytest.mark.parametrize("tol", [0.01, 0.05, 0.0])
def test_within_auto_grid_stops_where_the_curve_flattens(tol):
    # p = 150: the 'auto' grid's octaves are k <= 32, <= 64, <= 128, <= 150
    X, y = _planted(seed=5, n=240, p=150, informative=tuple(range(0, 150, 7)), shift=0.35)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    got = PathSelectorCV(cv=cv, rule="within", tol=tol).fit(X, y)
    full = PathSelectorCV()._grid(150, "path", "PathSelectorCV")
    ks, mean = got.cv_results_["n_features"], got.cv_results_["mean_test_score"]
    assert np.array_equal(ks, full[: len(ks)])  # a prefix of the 'auto' grid, whole octaves
    caps = [c for c in (32, 64, 128, 150) if c <= ks[-1]]
    assert ks[-1] in caps or ks[-1] == full[full <= caps[-1]][-1]
    # the octave scores are those of one pass over the same k (tested against brute force above)
    ref = PathSelectorCV(cv=cv, k_grid=ks).fit(X, y)
    np.testing.assert_allclose(mean, ref.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    # it stopped at the first octave whose best gained less than tol (or at the end of the grid)
    lows = [0, 32, 64, 128]
    gains = [mean[(ks > lo) & (ks <= hi)].max() - mean[ks <= lo].max()
             for lo, hi in zip(lows[1:], (64, 128, 150)) if hi <= ks[-1] or lo < ks[-1]]
    assert all(g >= tol for g in gains[:-1])
    assert ks[-1] == 150 or gains[-1] < tol
    assert got.n_features_to_select_ == ks[np.flatnonzero(mean >= mean.max() - tol)[0]]
    # the other rules score the whole grid
    assert np.array_equal(PathSelectorCV(cv=cv, rule="one-se").fit(X, y).cv_results_["n_features"], full)


def test_random_state_shuffles_an_int_cv():
    X, y = _planted(seed=2)
    grid = [1, 2, 3, 5, 8]
    got = PathSelectorCV(k_grid=grid, cv=3, random_state=4).fit(X, y)
    ref = PathSelectorCV(k_grid=grid, cv=StratifiedKFold(3, shuffle=True, random_state=4)).fit(X, y)
    plain = PathSelectorCV(k_grid=grid, cv=StratifiedKFold(3)).fit(X, y)
    for i in range(3):
        key = f"split{i}_test_score"
        np.testing.assert_array_equal(got.cv_results_[key], ref.cv_results_[key])
        np.testing.assert_array_equal(PathSelectorCV(k_grid=grid, cv=3).fit(X, y).cv_results_[key],
                                      plain.cv_results_[key])  # the default: not shuffled
    # a splitter keeps its own shuffling
    other = PathSelectorCV(k_grid=grid, cv=StratifiedKFold(3), random_state=4).fit(X, y)
    np.testing.assert_array_equal(other.cv_results_["mean_test_score"], plain.cv_results_["mean_test_score"])
    # regression: KFold, shuffled the same way
    yr = X[:, 2] + 0.1 * np.arange(len(y))
    got = PathSelectorCV(SparsePCASelector(), k_grid=grid, cv=3, random_state=1).fit(X, yr)
    ref = PathSelectorCV(SparsePCASelector(), k_grid=grid, cv=KFold(3, shuffle=True, random_state=1)).fit(X, yr)
    np.testing.assert_allclose(got.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"], rtol=0, atol=0)


def test_bad_tol():
    X, y = _planted()
    with pytest.raises(ValueError, match=r"The 'tol' parameter of PathSelectorCV"):
        PathSelectorCV(rule="within", tol=-0.1).fit(X, y)


def test_within_octaves_with_parallel_folds_and_progress():
    # p = 70: octaves k <= 32, <= 64, <= 70; parallel folds give the same k scored and scores
    X, y = _planted(seed=6, n=120, p=70)
    a = PathSelectorCV(rule="within", n_jobs=1).fit(X, y)
    b = PathSelectorCV(rule="within", n_jobs=2).fit(X, y)
    for key in a.cv_results_:
        np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key])
    assert a.n_features_to_select_ == b.n_features_to_select_
    records = []
    c = PathSelectorCV(rule="within", progress=records.append).fit(X, y)
    np.testing.assert_array_equal(c.cv_results_["mean_test_score"], a.cv_results_["mean_test_score"])
    folds = [r for r in records if r.stage == "fold"]
    assert [r.done for r in folds] == [1, 2, 3, 4, 5]  # each fold counted once, whatever the octaves
    assert any(r.stage == "scores" for r in records) and records[-1].fold is None  # then the refit
