"""SparseLDASelector(direction='cv'): for every k, the greedy pass whose pixels classify held-out
folds better."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import StratifiedKFold

from pixsel.selection import SparseLDASelector


def _suppressor(seed, n=200, extra=6):
    """Pixels 0 and 1 share a large nuisance ``z``; pixel 1 also carries the class, so the pair
    separates the classes almost perfectly while each alone hardly does. Pixels 2.. separate
    moderately on their own. Forward selection starts from a moderate pixel and never reaches
    the pair at k = 2; backward elimination keeps the pair."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    z = 2.0 * rng.standard_normal(n)
    X = np.empty((n, 2 + extra))
    X[:, 0] = z + 0.3 * rng.standard_normal(n)
    X[:, 1] = z + 1.0 * y + 0.3 * rng.standard_normal(n)
    X[:, 2:] = rng.standard_normal((n, extra)) + 0.8 * y[:, None]
    return X, y


def _classes(seed, n_per=24, C=4, p=14):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(C), n_per)
    X = rng.standard_normal((len(y), p))
    X[:, :C] += 1.5 * np.eye(C)[y]
    X[:, C] += 0.7 * y
    return X, y


#: the planted pair is a contrast of tiny variance, which 'rda' (the default) shrinks away on purpose
AUTO = {"regularization": "auto", "refine": False}  # the passes as computed, no swaps at k


def _lda():
    return LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")


@pytest.mark.parametrize("seed", range(3))
def test_chooses_the_backward_pass_where_forward_misses_the_pair(seed):
    X, y = _suppressor(seed)
    fwd = SparseLDASelector(2, direction="forward", **AUTO).fit(X, y)
    bwd = SparseLDASelector(2, direction="backward", **AUTO).fit(X, y)
    # the construction does what it says: forward misses the pair, backward keeps it, and the
    # pair classifies new samples far better
    assert set(bwd.get_support(indices=True)) == {0, 1}
    assert set(fwd.get_support(indices=True)) != {0, 1}
    Xt, yt = _suppressor(1000 + seed, n=2000)
    acc = {name: _lda().fit(X[:, s.get_support()], y).score(Xt[:, s.get_support()], yt)
           for name, s in (("fwd", fwd), ("bwd", bwd))}
    assert acc["bwd"] > acc["fwd"] + 0.1
    sel = SparseLDASelector(2, direction="cv", **AUTO).fit(X, y)
    assert sel.direction_by_k_[1] == "backward" and sel.direction_ == "cv"
    assert set(sel.get_support(indices=True)) == {0, 1}
    assert sel.objective_path_[1] == pytest.approx(bwd.backward_path_.objective[1])
    assert clone(sel).get_params()["direction"] == "cv"  # the parameter is left as given


@pytest.mark.parametrize("make", [_suppressor, _classes])
def test_direction_scores_are_the_by_hand_loop(make):
    """Oracle: shrinkage LDA fitted on every fold's supports of both passes; the scores are the
    pooled held-out accuracies, and each k reads the backward pass only where it classifies more
    held-out samples right by over two standard deviations of the paired count (McNemar)."""
    X, y = make(0)
    k = 3
    cv = StratifiedKFold(3)
    sel = SparseLDASelector(k, direction="cv", cv=cv, **AUTO).fit(X, y)
    K = len(sel.direction_by_k_)
    assert K == k
    right = np.zeros((2, K, len(y)), dtype=bool)
    for train, test in cv.split(X, y):
        f = SparseLDASelector(k, direction="dual", **AUTO).fit(X[train], y[train])
        for d, path in enumerate((f.forward_path_, f.backward_path_)):
            for j in range(1, K + 1):
                S = np.sort(path.support(j))
                pred = _lda().fit(X[np.ix_(train, S)], y[train]).predict(X[np.ix_(test, S)])
                right[d, j - 1, test] = pred == y[test]
    np.testing.assert_array_equal(sel.direction_scores_, right.mean(axis=2))
    b = np.sum(right[1] & ~right[0], axis=1)
    f = np.sum(right[0] & ~right[1], axis=1)
    expected = np.where(b - f > 2 * np.sqrt(b + f), "backward", "forward")
    assert sel.direction_by_k_ == tuple(expected)
    if make is _suppressor:  # the planted pair: backward wins clearly at k = 2
        assert expected[1] == "backward"
    for j in range(1, K + 1):  # every k reads the chosen pass, with its objective
        path = sel.backward_path_ if expected[j - 1] == "backward" else sel.forward_path_
        assert np.array_equal(sel.get_support_at(j, indices=True), np.sort(path.support(j)))
        assert sel.objective_path_[j - 1] == path.objective[j - 1]
    # beyond the sizes scored, the larger objective (as direction='dual')
    dual = SparseLDASelector(k, direction="dual", **AUTO).fit(X, y)
    if X.shape[1] > K:
        assert np.array_equal(sel.get_support_at(K + 1), dual.get_support_at(K + 1))


def test_forced_features_and_criterion_cv_together():
    X, y = _classes(1)
    sel = SparseLDASelector(5, direction="cv", criterion="cv", always_select=[7]).fit(X, y)
    assert sel.criterion_ in ("trace", "max-eig") and sel.best_params_["criterion"] == sel.criterion_
    assert np.isfinite(sel.direction_scores_).all()  # one forced feature: every size scored
    for j in range(1, len(sel.direction_by_k_) + 1):
        assert 7 in sel.get_support_at(j, indices=True)
    sel2 = SparseLDASelector(5, direction="cv", always_select=[7, 8]).fit(X, y)
    assert np.isnan(sel2.direction_scores_[:, 0]).all()  # k = 1 holds fewer than the forced two
    assert np.isfinite(sel2.direction_scores_[:, 1:]).all()


def test_stability_uses_the_direction_chosen_at_k(count_calls):
    X, y = _suppressor(0)
    calls = count_calls(SparseLDASelector, "_cross_validate_direction")
    sel = SparseLDASelector(2, direction="cv", stability=4, random_state=0, **AUTO).fit(X, y)
    assert len(calls) == 1  # no cross-validation per resample
    assert sel._resample_params() == {"direction": "backward", "beam_width": 1}
    assert sel.selection_frequencies_[[0, 1]].min() > 0.5


def test_implicit_algorithm_runs_forward_only():
    X, y = _classes(2)
    sel = SparseLDASelector(4, direction="cv", algorithm="implicit").fit(X, y)
    ref = SparseLDASelector(4, direction="forward", algorithm="implicit").fit(X, y)
    assert sel.direction_ == "forward" and not hasattr(sel, "direction_by_k_")
    assert np.array_equal(sel.get_support(), ref.get_support())


def test_refit_without_cv_drops_the_choice():
    X, y = _classes(3)
    sel = SparseLDASelector(4, direction="cv").fit(X, y)
    assert hasattr(sel, "direction_by_k_")
    sel.set_params(direction="forward").fit(X, y)
    assert not hasattr(sel, "direction_by_k_") and not hasattr(sel, "direction_scores_")


def test_bad_input():
    X, y = _classes(0, n_per=2)
    with pytest.raises(ValueError, match="cv=3 folds needs at least 3 samples of every class.*Use cv=2"):
        SparseLDASelector(3, direction="cv").fit(X, y)
    X, y = _classes(0)
    with pytest.raises(ValueError, match="direction.*without groups"):
        SparseLDASelector(2, direction="cv", groups=np.arange(X.shape[1]) // 2).fit(X, y)
    with pytest.raises(ValueError, match="direction"):
        SparseLDASelector(2, direction="sideways").fit(X, y)
    Xc = X.copy()
    SparseLDASelector(3, direction="cv").fit(X, y)
    assert np.array_equal(X, Xc)  # the caller's array is not modified


def test_auto_runs_the_forward_pass_then_swaps():
    X, y = _classes(0)
    auto = SparseLDASelector(3).fit(X, y)
    # at least 10 images a class: beam_width='auto' keeps the forward pass
    forward = SparseLDASelector(3, direction="forward", refine=True).fit(X, y)
    assert auto.direction_ == "forward" and not hasattr(auto, "direction_by_k_")
    assert auto.beam_width_ == 1
    assert np.array_equal(auto.get_support(), forward.get_support())
    assert auto.n_swaps_ == forward.n_swaps_
    # the stability option's resamples run the greedy pass without swaps or beam, and so does its fit
    st = SparseLDASelector(3, stability=3, random_state=0).fit(X, y)
    assert st._resample_params() == {"direction": "forward", "refine": False, "beam_width": 1}
    assert st.beam_width_ == 1


def test_progress_reports_the_folds_then_the_passes():
    X, y = _classes(4)
    calls = []
    SparseLDASelector(3, direction="cv", progress=lambda done, total, what: calls.append((done, total, what))).fit(X, y)
    folds = [c for c in calls if c[2] == "direction cross-validation, folds"]
    assert folds == [(1, 3, folds[0][2]), (2, 3, folds[0][2]), (3, 3, folds[0][2])]
    whats = list(dict.fromkeys(c[2] for c in calls))
    assert whats == ["forward path", "backward path", "direction cross-validation, folds"]


def test_auto_runs_forward_with_two_classes():
    X, y = _suppressor(0)
    auto = SparseLDASelector(2).fit(X, y)
    assert auto.direction_ == "forward" and not hasattr(auto, "direction_by_k_")
    assert np.array_equal(auto.get_support(), SparseLDASelector(2, direction="forward").fit(X, y).get_support())


def test_path_selector_cv_runs_auto_forward_and_cv_nested():
    from pixsel.selection import PathSelectorCV

    X, y = _classes(5)
    auto = PathSelectorCV(SparseLDASelector(), k_grid=[2, 4, 6], cv=3).fit(X, y)
    fwd = PathSelectorCV(SparseLDASelector(direction="forward"), k_grid=[2, 4, 6], cv=3).fit(X, y)
    assert auto.selector_.direction_ == "forward" and auto.n_features_to_select_ == fwd.n_features_to_select_
    np.testing.assert_array_equal(auto.cv_results_["mean_test_score"], fwd.cv_results_["mean_test_score"])
    nested = PathSelectorCV(SparseLDASelector(direction="cv"), k_grid=[2, 4, 6], cv=3).fit(X, y)
    assert nested.selector_.direction_ == "cv"


