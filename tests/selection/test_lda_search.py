"""SparseLDASelector's searches beyond one greedy pass: swap refinement and excluded features.

Oracles: the refined support's objective is recomputed from scratch on the fitted pair and never
below the greedy support it starts from; without refinement the support is the greedy path's,
unchanged; excluded features never enter, and the path with them excluded is the path of the pair
restricted to the other features (the kernels run on the submatrices by hand); every conflict is
refused before any statistics are computed."""

import numpy as np
import pytest

from pixsel import SparseLDASelector
from pixsel.spectral import greedy_path, objective_on_support


def _data(seed=0, n_classes=4, n=120, p=24):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n // n_classes)
    means = rng.standard_normal((n_classes, p)) * 0.8
    X = means[y] + rng.standard_normal((n, p)) @ (np.eye(p) + 0.5 * rng.standard_normal((p, p)) / np.sqrt(p))
    return X, y


def _objective(sel, S):
    path = sel.forward_path_ if sel.forward_path_ is not None else sel.backward_path_
    # the path holds the searched pair: (A, B + A) for 'correlation', whose value is that pair's trace
    criterion = "trace" if sel.criterion_ == "correlation" else sel.criterion_
    return objective_on_support(path.A, path.B, S, criterion=criterion)


@pytest.mark.parametrize(("n_classes", "criterion"), [(2, "trace"), (4, "trace"), (4, "max-eig")])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_refine_never_below_the_greedy_support(n_classes, criterion, seed):
    X, y = _data(seed, n_classes)
    k = 6
    plain = SparseLDASelector(k, direction="forward", criterion=criterion, refine=False).fit(X, y)
    ref = SparseLDASelector(k, direction="forward", criterion=criterion, refine=True).fit(X, y)
    S0, S = plain.get_support(indices=True), ref.get_support(indices=True)
    assert len(S) == k
    f0, f = _objective(plain, S0), _objective(ref, S)
    assert f >= f0 * (1 - 1e-12)
    assert ref.objective_path_[k - 1] == pytest.approx(f, rel=1e-9)
    assert ref.n_swaps_ >= 0 and (ref.n_swaps_ > 0) == (set(S) != set(S0))
    # the path itself is the greedy one: other sizes are read from it unchanged
    np.testing.assert_array_equal(ref.forward_path_.order, plain.forward_path_.order)
    np.testing.assert_array_equal(ref.get_support_at(k - 1), plain.get_support_at(k - 1))


def test_refine_off_is_the_greedy_path_bit_for_bit():
    X, y = _data(3)
    sel = SparseLDASelector(5, beam_width=1, direction="forward", refine=False).fit(X, y)
    path = sel.forward_path_
    direct = greedy_path(path.A, path.B, criterion="trace", max_k=len(path.order))
    np.testing.assert_array_equal(path.order, direct.order)
    np.testing.assert_array_equal(path.objective, direct.objective)
    np.testing.assert_array_equal(sel.get_support(indices=True), np.sort(direct.order[:5]))
    assert not hasattr(sel, "n_swaps_")


def test_refine_with_forced_and_excluded_features():
    X, y = _data(4)
    sel = SparseLDASelector(6, direction="forward", refine=True, always_select=[0, 1], never_select=[2, 3, 4]).fit(X, y)
    S = set(sel.get_support(indices=True).tolist())
    assert {0, 1} <= S and not S & {2, 3, 4}


@pytest.mark.parametrize("direction", ["forward", "backward", "dual"])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_never_select_is_the_path_of_the_restricted_pair(direction, n_classes):
    X, y = _data(5, n_classes)
    E = [1, 7, 8, 20]
    sel = SparseLDASelector(5, beam_width=1, direction=direction, never_select=E).fit(X, y)
    assert not set(sel.get_support(indices=True).tolist()) & set(E)
    np.testing.assert_array_equal(sel.never_select_, E)
    R = np.setdiff1d(np.arange(X.shape[1]), E)
    for path in (sel.forward_path_, sel.backward_path_):
        if path is None:
            continue
        A, B = path.A, path.B
        AR = A[R]
        ref = greedy_path(AR, B[np.ix_(R, R)], direction=path.direction, criterion="trace",
                          max_k=None if path.direction == "backward" or len(path.order) == len(R) else len(path.order))
        np.testing.assert_array_equal(path.order, R[ref.order])
        np.testing.assert_allclose(path.objective, ref.objective)
        for k in (1, 3, 5):
            assert not set(path.support(k).tolist()) & set(E)


@pytest.mark.parametrize(("n_classes", "criterion"), [(2, "trace"), (4, "trace"), (4, "max-eig")])
def test_never_select_with_the_exact_solver_is_the_best_support_without_them(n_classes, criterion):
    """Oracle: every support of size k of the features left, valued from scratch on the fitted pair."""
    import itertools

    X, y = _data(13, n_classes, n=80, p=12)
    E, k = [0, 4, 9], 4
    sel = SparseLDASelector(k, solver="exact", criterion=criterion, never_select=E).fit(X, y)
    S = sel.get_support(indices=True)
    assert sel.status_ == "optimal" and not set(S.tolist()) & set(E)
    keep = np.setdiff1d(np.arange(12), E)
    best = max(_objective(sel, T) for T in itertools.combinations(keep, k))
    assert _objective(sel, S) == pytest.approx(best, rel=1e-9)
    assert sel.objective_path_[k - 1] == pytest.approx(best, rel=1e-9)
    assert sel.upper_bound_ >= best * (1 - 1e-9)
    # the optimum without them is never above the optimum over every feature
    free = SparseLDASelector(k, solver="exact", criterion=criterion).fit(X, y)
    assert best <= _objective(free, free.get_support(indices=True)) * (1 + 1e-9)


def test_greedy_path_never_select_with_always_select():
    X, y = _data(6)
    sel = SparseLDASelector(4, direction="forward").fit(X, y)
    A, B = sel.forward_path_.A, sel.forward_path_.B
    path = greedy_path(A, B, criterion="trace", max_k=8, always_select=[3], never_select=[0, 5])
    assert path.order[0] == 3 and not {0, 5} & set(path.order.tolist())
    R = np.setdiff1d(np.arange(A.shape[0]), [0, 5])
    ref = greedy_path(A[R], B[np.ix_(R, R)], criterion="trace", max_k=8, always_select=[int(np.searchsorted(R, 3))])
    np.testing.assert_array_equal(path.order, R[ref.order])


def _never_called():
    calls = []
    return calls, lambda done, total, what: calls.append(what)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"always_select": [1, 2], "never_select": [2, 3]}, "both always_select and never_select"),
        ({"never_select": list(range(20))}, "leaves 4 of the 24 features, fewer than the 5"),
        ({"refine": True, "solver": "exact"}, "Use refine=False with solver='exact'"),
        ({"never_select": list(range(20)), "solver": "exact"}, "leaves 4 of the 24 features, fewer than the 5"),
        ({"refine": True, "stability": 3}, "stability"),
        ({"refine": -1}, "refine"),
        ({"never_select": [30]}, "outside"),
    ],
)
def test_conflicts_are_refused_before_any_work(params, match):
    X, y = _data(7)
    calls, report = _never_called()
    with pytest.raises(ValueError, match=match):
        SparseLDASelector(5, progress=report, **params).fit(X, y)
    assert calls == []


def _correlated(seed, n_classes):
    """Strongly correlated features: draws where the greedy union is not a 1-swap optimum."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), 60 // n_classes)
    means = rng.standard_normal((n_classes, 24)) * 0.8
    return means[y] + rng.standard_normal((60, 24)) @ (np.eye(24) + 1.5 * rng.standard_normal((24, 24)) / np.sqrt(24)), y


# the draws' seeds where the swaps move (found by a scan of seeds 0-11; the test asserts they do)
@pytest.mark.parametrize(("n_classes", "criterion", "seed"),
                         [(2, "trace", 7), (4, "trace", 5), (4, "correlation", 0), (4, "max-eig", 0), (4, "trace", 1)])
def test_group_swaps_never_below_the_greedy_union(n_classes, criterion, seed):
    """``refine`` with groups exchanges whole groups at ``k``: never below the greedy union, the
    objective recomputed from scratch on the fitted pair, the other sizes the greedy group path's."""
    X, y = _correlated(seed, n_classes)
    groups = np.arange(24) % 8  # 8 groups of 3 scattered features
    k = 3
    kw = dict(groups=groups, criterion=criterion, direction="forward")
    plain = SparseLDASelector(k, refine=False, **kw).fit(X, y)
    ref = SparseLDASelector(k, refine=True, **kw).fit(X, y)
    S0, S = plain.get_support(indices=True), ref.get_support(indices=True)
    assert ref.group_support_.sum() == k and len(S) == 3 * k
    assert set(np.unique(groups[S])) == set(np.flatnonzero(ref.group_support_))
    f0, f = _objective(plain, S0), _objective(ref, S)
    assert f >= f0 * (1 - 1e-12)
    assert ref.objective_path_[k - 1] == pytest.approx(f, rel=1e-9)
    assert (ref.n_swaps_ > 0) == (set(S) != set(S0))
    assert ref.n_swaps_ > 0 or seed == 1  # seed 1: the greedy union is already a local optimum
    np.testing.assert_array_equal(ref.get_support_at(k - 1), plain.get_support_at(k - 1))
    # no exchange of one group for another, valued from scratch, beats the refined union
    chosen = sorted(np.flatnonzero(ref.group_support_))
    for i in chosen:
        for j in set(range(8)) - set(chosen):
            T = np.flatnonzero(np.isin(groups, [c for c in chosen if c != i] + [j]))
            assert _objective(ref, T) <= f * (1 + 1e-9)
    # 'auto' swaps single features only: with groups it is the greedy union
    auto = SparseLDASelector(k, **kw).fit(X, y)
    np.testing.assert_array_equal(auto.get_support(), plain.get_support())


@pytest.mark.parametrize(("n_classes", "seed"), [(2, 0), (4, 2)])  # draws where the beam beats the greedy union
def test_group_beam_never_below_the_greedy_union_and_exhaustive_is_the_best_union(n_classes, seed):
    from itertools import combinations

    X, y = _correlated(seed, n_classes)
    groups = np.arange(24) // 4  # 6 groups of 4 neighbouring features
    k = 3
    kw = dict(groups=groups, criterion="trace", direction="forward", refine=False)
    plain = SparseLDASelector(k, **kw).fit(X, y)
    beam = SparseLDASelector(k, beam_width=2, **kw).fit(X, y)
    assert beam.beam_width_ == 2 and beam.group_support_.sum() == k
    f = _objective(beam, beam.get_support(indices=True))
    assert f > _objective(plain, plain.get_support(indices=True)) * (1 + 1e-6)
    assert beam.objective_path_[k - 1] == pytest.approx(f, rel=1e-9)
    every = SparseLDASelector(k, beam_width=20, **kw).fit(X, y)  # C(6, t) <= 20: every union kept
    best = max(_objective(plain, np.flatnonzero(np.isin(groups, js))) for js in combinations(range(6), k))
    assert _objective(every, every.get_support(indices=True)) == pytest.approx(best, rel=1e-10)


@pytest.mark.parametrize("n_classes", [2, 4])
def test_beam_never_below_the_forward_pass(n_classes):
    X, y = _data(9, n_classes)
    k = 5
    fwd = SparseLDASelector(k, beam_width=1, direction="forward", refine=False).fit(X, y)
    one = SparseLDASelector(k, direction="forward", refine=False, beam_width=1).fit(X, y)
    np.testing.assert_array_equal(fwd.forward_path_.order, one.forward_path_.order)
    np.testing.assert_array_equal(fwd.objective_path_, one.objective_path_)
    beam = SparseLDASelector(k, direction="forward", refine=False, beam_width=5).fit(X, y)
    assert beam.beam_width_ == 5
    for j in range(1, k + 1):
        S = beam.get_support_at(j, indices=True)
        f = _objective(beam, S)
        assert beam.objective_path_[j - 1] == pytest.approx(f, rel=1e-9)
        assert f >= fwd.objective_path_[j - 1] * (1 - 1e-12)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"beam_width": 0}, r"'beam_width' parameter of SparseLDASelector must be 'auto' or an int in the range \[1, inf\)"),
        ({"beam_width": 3, "solver": "exact"}, "Use beam_width=1 with solver='exact'"),
        ({"beam_width": 3, "criterion": "max-eig"}, "criterion='trace' or beam_width=1"),
        ({"beam_width": 3, "criterion": "cv"}, "criterion='trace' or beam_width=1"),
        ({"beam_width": 3, "criterion": ["correlation", "max-eig"]}, "criterion='trace' or beam_width=1"),
        ({"beam_width": 3, "direction": "backward"}, "widens the forward pass"),
    ],
)
def test_bad_beams_are_refused_before_any_work(params, match):
    X, y = _data(10)
    calls, report = _never_called()
    with pytest.raises(ValueError, match=match):
        SparseLDASelector(5, progress=report, **params).fit(X, y)
    assert calls == []


def test_forced_features_split_over_additive_criteria_only():
    """The searches read the criterion's properties: an additive criterion (the trace, FastCan's
    correlation) conditions on the forced features and runs backward; the largest eigenvalue runs
    forward only, refused before any work otherwise."""
    X, y = _data(12)
    for criterion in ("trace", "correlation"):
        sel = SparseLDASelector(5, criterion=criterion, always_select=[3], direction="backward",
                                refine=False).fit(X, y)
        S = sel.get_support(indices=True)
        path = sel.backward_path_
        assert 3 in S and path is not None
        # both trace criteria: the trace of the searched pair (B the total covariance for 'correlation')
        assert sel.objective_path_[4] == pytest.approx(objective_on_support(path.A, path.B, S, criterion="trace"),
                                                       rel=1e-9)
    calls, report = _never_called()
    with pytest.raises(ValueError, match="criterion='max-eig' and more than two classes run forward only"):
        SparseLDASelector(5, criterion="max-eig", always_select=[3], direction="backward", progress=report).fit(X, y)
    assert calls == []


def test_a_refit_without_swaps_keeps_no_swap_count():
    X, y = _data(11)
    sel = SparseLDASelector(5, refine=True).fit(X, y)
    assert hasattr(sel, "n_swaps_")
    sel.set_params(refine=False).fit(X, y)
    assert not hasattr(sel, "n_swaps_")


def _fastcan_data(seed=0, n=200, p=30, C=5):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(C), n // C)
    X = rng.standard_normal((C, p))[y] * 0.7 + rng.standard_normal((n, p)) @ (
        np.eye(p) + 0.4 * rng.standard_normal((p, p)) / np.sqrt(p))
    return X, y


@pytest.mark.parametrize("seed", [0, 1])
def test_correlation_criterion_is_fastcans_greedy_search(seed):
    """Oracle: FastCan (scikit-learn-contrib) on the one-hot labels: the same pixels in the same
    order and the same sums of squared canonical correlations, unregularized."""
    fastcan = pytest.importorskip("fastcan")
    X, y = _fastcan_data(seed)
    Y = (y[:, None] == np.unique(y)[None, :]).astype(float)
    fc = fastcan.FastCan(10, verbose=0).fit(X, Y)
    sel = SparseLDASelector(10, beam_width=1, criterion="correlation", regularization="none", direction="forward",
                            refine=False).fit(X, y)
    np.testing.assert_array_equal(sel.forward_path_.order[:10], fc.indices_)
    np.testing.assert_allclose(sel.objective_path_[:10], np.cumsum(fc.scores_), rtol=1e-8)


def test_correlation_criterion_is_the_trace_with_the_total_covariance():
    X, y = _fastcan_data(2)
    sel = SparseLDASelector(6, beam_width=1, criterion="correlation", direction="forward", refine=True).fit(X, y)
    trace = SparseLDASelector(6, beam_width=1, criterion="trace", direction="forward", refine=False).fit(X, y)
    M, W = trace.forward_path_.A, trace.forward_path_.B  # the between factor and the regularized within
    T = W + M @ M.T
    np.testing.assert_allclose(sel.forward_path_.B, T, rtol=1e-12, atol=1e-12)
    S = sel.get_support(indices=True)
    f = objective_on_support(M, T, S, criterion="trace")
    assert sel.objective_path_[5] == pytest.approx(f, rel=1e-9)
    assert f <= min(6, len(np.unique(y)) - 1)  # squared canonical correlations: each at most 1
    assert f >= sel.forward_path_.objective[5] * (1 - 1e-12)  # the swaps never lower it
    # two classes: every criterion orders the supports alike
    Xb, yb = X[y < 2], y[y < 2]
    a = SparseLDASelector(4, criterion="correlation", refine=False).fit(Xb, yb)
    b = SparseLDASelector(4, criterion="trace", refine=False).fit(Xb, yb)
    np.testing.assert_array_equal(a.forward_path_.order, b.forward_path_.order)


@pytest.mark.parametrize("n_classes", [2, 5])
@pytest.mark.parametrize("refine", [False, "auto"])
@pytest.mark.parametrize("regularization", ["ledoit-wolf-floor", "auto"])
def test_beam_through_x_is_the_dense_beam(n_classes, refine, regularization):
    """``algorithm='implicit'`` runs the beam on the Gram operator of ``X`` (its columns read as the
    beam needs them): the dense beam's supports, objectives and discriminant, with and without the
    swaps after it."""
    X, y = _data(21, n_classes, n=60, p=80)  # fewer images than pixels, as on faces
    k = 6
    kw = dict(beam_width=3, refine=refine, regularization=regularization)
    dense = SparseLDASelector(k, algorithm="dense", **kw).fit(X, y)
    implicit = SparseLDASelector(k, algorithm="implicit", **kw).fit(X, y)
    assert implicit.algorithm_ == "implicit" and implicit.beam_width_ == 3
    for j in range(1, k + 1):
        np.testing.assert_array_equal(implicit.get_support_at(j, indices=True), dense.get_support_at(j, indices=True))
    np.testing.assert_allclose(implicit.objective_path_, dense.objective_path_[:k], rtol=1e-8)
    np.testing.assert_allclose(implicit.coef_, dense.coef_, rtol=1e-6, atol=1e-10)
    plain = SparseLDASelector(k, algorithm="implicit", refine=False, regularization=regularization).fit(X, y)
    assert implicit.objective_path_[k - 1] >= plain.objective_path_[k - 1] * (1 - 1e-12)


def test_beam_width_auto_is_a_beam_of_three_with_few_images_of_many_classes():
    """``beam_width='auto'``: width 3 where the beam runs on one fit's forward pass with more than
    two classes and fewer than 10 images a class, the same fit as ``beam_width=3``; the forward
    pass (width 1) with more images a class, with two classes and wherever the beam cannot run
    or the fit does not end at its support."""
    from pixsel import PathSelectorCV

    X, y = _data(31, 4, n=36)  # 9 images a class
    many = SparseLDASelector(5).fit(*_data(31, 4, n=40))  # 10 a class: the forward pass
    assert many.beam_width_ == 1
    auto = SparseLDASelector(5).fit(X, y)
    three = SparseLDASelector(5, beam_width=3).fit(X, y)
    assert auto.beam_width_ == 3
    np.testing.assert_array_equal(auto.get_support(indices=True), three.get_support(indices=True))
    assert auto.objective_path_[4] == three.objective_path_[4]
    for params, n_classes in [({}, 2), ({"criterion": "max-eig"}, 4), ({"direction": "dual"}, 4),
                              ({"path": "full"}, 4), ({"stability": 2, "random_state": 0}, 4),
                              ({"solver": "exact"}, 4), ({"criterion": "cv"}, 4),
                              ({"groups": np.arange(24) // 2}, 4)]:
        Xc, yc = _data(31, n_classes, n=36 if n_classes == 4 else 18)
        assert SparseLDASelector(3, **params).fit(Xc, yc).beam_width_ == 1, params
    # PathSelectorCV's folds read every k from the forward path: no beam there, the refit keeps it
    cv = PathSelectorCV(SparseLDASelector(), k_grid=[2, 4], cv=2).fit(X, y)
    assert cv.selector_.beam_width_ == 3


def test_beam_width_auto_runs_the_forward_pass_on_a_dask_array():
    """A Dask X: each beam step would be a pass over the chunks; 'auto' keeps the forward pass."""
    da = pytest.importorskip("dask.array")
    X, y = _data(32, 4, n=36)  # few images a class: a NumPy X would get the beam
    assert SparseLDASelector(4).fit(X, y).beam_width_ == 3
    sel = SparseLDASelector(4).fit(da.from_array(X, chunks=(12, 24)), y)
    assert sel.beam_width_ == 1
    plain = SparseLDASelector(4, beam_width=1).fit(X, y)
    np.testing.assert_array_equal(sel.get_support(indices=True), plain.get_support(indices=True))
