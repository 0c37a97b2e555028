"""SparseLDASelector on many classes: the forward path as long as k asks, progress, bad input."""

import numpy as np
import pytest

from pixsel import SparseLDASelector
from pixsel.spectral.greedy._multiclass import multiclass_greedy_path
from pixsel.stats import class_statistics, regularize


def _classes(n_classes=6, n_per=12, p=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n_per)
    X = rng.standard_normal((len(y), p))
    X[:, :8] += rng.standard_normal((n_classes, 8))[y] * 1.5
    return X, y


@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_forward_stops_where_k_asks_and_full_gives_every_k(criterion):
    X, y = _classes()
    p = X.shape[1]
    short = SparseLDASelector(5, beam_width=1, direction="forward", criterion=criterion).fit(X, y)
    full = SparseLDASelector(5, beam_width=1, direction="forward", criterion=criterion, path="full").fit(X, y)
    assert len(short.forward_path_.order) == len(short.objective_path_) == 15  # max(2k, k + 10)
    assert len(full.objective_path_) == p
    np.testing.assert_array_equal(short.forward_path_.order, full.forward_path_.order[:15])
    np.testing.assert_allclose(short.objective_path_, full.objective_path_[:15])
    np.testing.assert_array_equal(short.get_support(), full.get_support())
    np.testing.assert_array_equal(short.get_support_at(12), full.get_support_at(12))
    with pytest.raises(ValueError, match=r"stopped at k = 15;.*path='full'"):
        short.get_support_at(16)
    with pytest.raises(ValueError, match=r"range \[1, 15\]"):
        short.get_support_at(p + 1)
    # the path is the kernel's (the whole greedy path, truncated)
    st = class_statistics(X, y)
    B, _ = regularize(st.within, "ledoit-wolf-floor", X=X, y=y, means=st.means, classes=st.classes)  # the default
    ref = multiclass_greedy_path(st.between_factor, B, criterion=criterion, method="eigh")
    np.testing.assert_array_equal(full.forward_path_.order, ref.order)


def test_dual_keeps_every_k_and_the_forward_pass_stops_near_k():
    X, y = _classes()
    dual = SparseLDASelector(5, direction="dual").fit(X, y)
    assert len(dual.forward_path_.order) == 15 and len(dual.backward_path_.order) == X.shape[1]
    assert len(dual.objective_path_) == X.shape[1]
    full = SparseLDASelector(5, direction="dual", path="full").fit(X, y)
    np.testing.assert_array_equal(dual.get_support(), full.get_support())
    np.testing.assert_allclose(dual.objective_path_[:15], full.objective_path_[:15])
    # two classes: the forward pass alone stops where more classes stop; with the backward pass
    # (the papers' dual path) both passes keep every k, and the shared prefix is the same
    two = SparseLDASelector(3, direction="forward", algorithm="dense").fit(X[y < 2], y[y < 2])
    assert len(two.objective_path_) == 13
    two_dual = SparseLDASelector(3, direction="dual").fit(X[y < 2], y[y < 2])
    assert len(two_dual.forward_path_.order) == len(two_dual.objective_path_) == X.shape[1]
    np.testing.assert_array_equal(two.forward_path_.order, two_dual.forward_path_.order[:13])
    with pytest.raises(ValueError, match="stopped at k = 13;.*path='full'"):
        two.get_support_at(14)
    # fewer samples than features: 'auto' runs the forward pass through X, to k; path='full' keeps the whole path
    X2, y2 = _classes(n_classes=2, p=200)
    short = SparseLDASelector(3, direction="forward").fit(X2, y2)
    whole = SparseLDASelector(3, direction="forward", path="full").fit(X2, y2)
    assert short.algorithm_ == "implicit" and len(short.objective_path_) == 3
    assert whole.algorithm_ == "dense" and len(whole.objective_path_) == 200
    np.testing.assert_array_equal(short.get_support_at(2), whole.get_support_at(2))
    with pytest.raises(ValueError, match="stopped at k = 3;.*path='full'"):
        short.get_support_at(4)
    with pytest.raises(ValueError, match="path"):
        SparseLDASelector(3, path="some").fit(X, y)


def test_progress_reports_the_path_steps(capsys, monkeypatch):
    X, y = _classes(p=60)
    import pixsel._progress as progress_module

    lines = []

    class Recorder:
        def __init__(self, total, desc, **kw):
            self.total, self.desc, self.n = total, desc, 0

        def update(self, n=1, what=None):
            self.n += n
            lines.append((self.desc, self.n, self.total))

        def close(self):
            pass

    monkeypatch.setattr("pixsel.selection._base.step_progress", Recorder)
    assert progress_module.step_progress is not Recorder
    SparseLDASelector(4, direction="dual", progress=True).fit(X, y)
    fwd = [n for d, n, t in lines if d.endswith("forward path")]
    bwd = [n for d, n, t in lines if d.endswith("backward path")]
    assert fwd == list(range(1, 15)) and bwd and bwd[-1] >= X.shape[1] - 1
    lines.clear()
    SparseLDASelector(4).fit(X, y)  # quiet by default
    assert lines == []
    assert capsys.readouterr().err == ""


def test_a_callable_progress_receives_every_step_of_each_pass_and_nothing_is_drawn(capsys):
    X, y = _classes(p=60)
    calls = []
    sel = SparseLDASelector(4, direction="dual", progress=lambda *a: calls.append(a)).fit(X, y)
    fwd = [(done, total) for done, total, what in calls if what == "forward path"]
    bwd = [(done, total) for done, total, what in calls if what == "backward path"]
    assert [d for d, _ in fwd] == list(range(1, 15)) and {t for _, t in fwd} == {14}
    assert bwd and bwd[-1][0] >= X.shape[1] - 1 and {t for _, t in bwd} == {X.shape[1]}
    assert {what for *_, what in calls} == {"forward path", "backward path"}
    assert capsys.readouterr().err == ""
    # the same support as a quiet fit
    assert np.array_equal(sel.get_support(), SparseLDASelector(4, direction="dual").fit(X, y).get_support())
    calls.clear()
    SparseLDASelector(5, algorithm="implicit", progress=lambda *a: calls.append(a)).fit(X, y)
    assert calls == [(i, 5, "forward path (implicit)") for i in range(1, 6)]


def test_bad_multiclass_input():
    X, y = _classes(n_classes=5, n_per=6)
    y1 = y.copy()
    y1[0] = 9  # a class with one sample: its scatter is zero, it still has a mean
    sel = SparseLDASelector(3).fit(X, y1)
    assert sel.support_.sum() == 3 and np.isfinite(sel.objective_path_).all()
    # C - 1 >= p: more classes than features (a square between factor reads as a full A)
    Xs = X[:, :3]
    sel = SparseLDASelector(2).fit(Xs, y)
    assert sel.support_.sum() == 2 and np.isfinite(sel.objective_path_).all()
    with pytest.raises(ValueError, match="2 classes"):
        SparseLDASelector(2).fit(X, np.zeros(len(y), dtype=int))


def test_implicit_progress_reports_each_step(monkeypatch):
    X, y = _classes(n_classes=4, n_per=6, p=80)
    steps = []

    class Recorder:
        def __init__(self, total, desc, **kw):
            self.total, self.desc, self.n = total, desc, 0

        def update(self, n=1, what=None):
            self.n += n
            steps.append((self.desc, self.n, self.total))

        def close(self):
            pass

    monkeypatch.setattr("pixsel.selection._base.step_progress", Recorder)
    sel = SparseLDASelector(5, algorithm="implicit", progress=True).fit(X, y)
    assert sel.algorithm_ == "implicit"
    assert [n for _, n, _ in steps] == [1, 2, 3, 4, 5] and all(t == 5 for *_, t in steps)


@pytest.mark.parametrize("by_samples", [0, 1000])
@pytest.mark.parametrize("k", [1, 3, 9])
def test_cv_scoring_statistics_equal_a_direct_fit_either_form(monkeypatch, by_samples, k):
    """PathSelectorCV's scorer, its covariances formed from the samples or per class: sklearn's
    LinearDiscriminantAnalysis(solver='lsqr', shrinkage='auto') fitted directly."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    import pixsel.selection._shrinkage_scores as cv

    monkeypatch.setattr(cv, "_BY_SAMPLES", by_samples)
    rng = np.random.default_rng(k)
    n_classes, p = 7, 11
    y = np.repeat(np.arange(n_classes), 5)[rng.permutation(35)]
    y[:3] = 6  # unequal class sizes
    X = rng.standard_normal((len(y), p)) * rng.uniform(0.1, 5, p)
    X[:, 4] = 1.5  # constant column
    X[:, :3] += y[:, None] * 0.3
    S = np.sort(rng.choice(p, k, replace=False))
    stats = cv._ShrinkageLDAStatistics(X, y)
    assert stats.by_samples == bool(by_samples)
    fast = stats.estimator(S)
    ref = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X[:, S], y)
    for attr in ("coef_", "intercept_", "covariance_", "means_", "priors_"):
        np.testing.assert_allclose(getattr(fast, attr), getattr(ref, attr), rtol=1e-9, atol=1e-12)
    assert stats.accuracy(S, X, y) == ref.score(X[:, S], y)


def test_cv_on_many_classes_with_a_class_absent_from_a_fold():
    """A class with fewer samples than folds: a clear error that says how to fix it (no hang)."""
    from pixsel import PathSelectorCV

    X, y = _classes(n_classes=5, n_per=8, p=30)
    y = y.copy()
    y[np.flatnonzero(y == 4)[1:]] = 3  # class 4 keeps one sample
    with pytest.raises(ValueError, match="every fold must hold every class"):
        PathSelectorCV(SparseLDASelector(), k_grid=range(1, 11), cv=3).fit(X, y)
