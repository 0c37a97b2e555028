import itertools

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from pixsel import SparseLDASelector
from pixsel.datasets import load_digits_pair
from pixsel.spectral import objective_on_support
from pixsel.stats import class_statistics, regularize

@parametrize_with_checks([SparseLDASelector(n_features_to_select=1), SparseLDASelector(1, criterion="trace")])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def digits():
    return load_digits_pair(3, 5)


def test_objective_path_is_best_of_directions_and_recomputable(digits):
    sel = SparseLDASelector(5, direction="dual").fit(digits.X, digits.y)
    st = class_statistics(digits.X, digits.y)
    B, _ = regularize(st.within, "ledoit-wolf-floor", X=digits.X, y=digits.y, means=st.means,
                      classes=st.classes)  # the selector's default
    a = st.between
    p = digits.X.shape[1]
    assert sel.objective_path_.shape == (p,)
    for k in (1, 3, 5, 20, p):
        S = sel.get_support_at(k, indices=True)
        assert len(S) == k
        assert objective_on_support(a, B, S) == pytest.approx(sel.objective_path_[k - 1], rel=1e-9)
    assert np.all(sel.objective_path_ >= sel.forward_path_.objective - 1e-12)
    assert np.all(sel.objective_path_ >= sel.backward_path_.objective - 1e-12)
    # coef_ is the discriminant on the support: B_SS z = a_S
    S = sel.get_support(indices=True)
    assert np.allclose(B[np.ix_(S, S)] @ sel.coef_, a[S])


def test_best_single_pixel_is_brute_force_optimum(digits):
    sel = SparseLDASelector(1).fit(digits.X, digits.y)
    st = class_statistics(digits.X, digits.y)
    B, _ = regularize(st.within, "auto")
    gains = [objective_on_support(st.between, B, [i]) for i in range(B.shape[0])]
    assert sel.get_support(indices=True)[0] == int(np.argmax(gains))


def test_planted_support_recovered():
    rng = np.random.default_rng(0)
    n, p = 400, 30
    y = rng.integers(0, 2, n)
    X = rng.standard_normal((n, p))
    X[:, [4, 11, 23]] += 1.5 * y[:, None]
    sel = SparseLDASelector(3).fit(X, y)
    assert sel.get_support(indices=True).tolist() == [4, 11, 23]


def test_dual_pass_against_brute_force():
    # the dual pass is a heuristic: never above the optimum, exact at k = 1 (forward is exhaustive
    # there) and k = p, and close to the optimum on average even with strongly correlated pixels
    rng = np.random.default_rng(5)
    ratios = []
    for _trial in range(10):
        X = rng.standard_normal((80, 8)) @ rng.standard_normal((8, 8))
        y = rng.integers(0, 2, 80)
        X[y == 1] += rng.standard_normal(8) * 0.5
        sel = SparseLDASelector(3, direction="dual").fit(X, y)
        st = class_statistics(X, y)
        B, _ = regularize(st.within, "ledoit-wolf-floor", X=X, y=y, means=st.means, classes=st.classes)  # the default
        for k in range(1, 9):
            best = max(objective_on_support(st.between, B, S) for S in itertools.combinations(range(8), k))
            got = sel.objective_path_[k - 1]
            assert got <= best * (1 + 1e-9)
            if k in (1, 8):
                assert got == pytest.approx(best, rel=1e-9)
            ratios.append(got / best)
    assert np.mean(ratios) >= 0.95


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_single_direction(digits, direction):
    sel = SparseLDASelector(4, direction=direction).fit(digits.X, digits.y)
    path = sel.forward_path_ if direction == "forward" else sel.backward_path_
    assert (sel.backward_path_ if direction == "forward" else sel.forward_path_) is None
    assert np.array_equal(sel.objective_path_, path.objective)


def test_fraction_pipeline_gridsearch_clone(digits):
    sel = SparseLDASelector(0.25).fit(digits.X, digits.y)
    assert sel.n_features_to_select_ == 16
    pipe = make_pipeline(SparseLDASelector(), LinearSVC())
    gs = GridSearchCV(pipe, {"sparseldaselector__n_features_to_select": [2, 8]}, cv=3).fit(digits.X, digits.y)
    assert gs.best_params_["sparseldaselector__n_features_to_select"] in (2, 8)
    c = clone(SparseLDASelector(7, direction="forward", regularization=0.1))
    assert c.get_params()["n_features_to_select"] == 7 and c.get_params()["regularization"] == 0.1


def test_dask_input_matches_numpy(digits):
    import dask.array as da
    ref = SparseLDASelector(6).fit(digits.X, digits.y)
    got = SparseLDASelector(6).fit(da.from_array(digits.X, chunks=(100, 64)), digits.y)
    assert np.array_equal(ref.support_, got.support_)
    assert np.allclose(ref.objective_path_, got.objective_path_, rtol=1e-9)


def test_uint8_and_float32_inputs(digits):
    X8 = (digits.X * 15).astype(np.uint8)
    a = SparseLDASelector(5).fit(X8, digits.y)
    b = SparseLDASelector(5).fit(X8.astype(np.float64), digits.y)
    c = SparseLDASelector(5).fit(X8.astype(np.float32), digits.y)
    assert np.array_equal(a.support_, b.support_) and np.array_equal(a.support_, c.support_)


def test_bad_input_errors_and_no_mutation(digits):
    X = digits.X.copy()
    y = digits.y.copy()
    X0, y0 = X.copy(), y.copy()
    sel = SparseLDASelector(5)
    with pytest.raises(ValueError, match="range \\[1, 64\\]"):
        SparseLDASelector(0).fit(X, y)
    with pytest.warns(UserWarning, match="all 64 features are selected"):  # as SelectKBest (issue 13)
        assert SparseLDASelector(65).fit(X, y).get_support().sum() == 64
    with pytest.raises(ValueError, match="at least 2 classes; y has 1"):
        sel.fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="criterion"):
        SparseLDASelector(criterion="det").fit(X, y)
    with pytest.raises(ValueError, match="direction"):
        SparseLDASelector(direction="sideways").fit(X, y)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        sel.fit(Xn, y)
    Xi = X.copy()
    Xi[1, 2] = np.inf
    with pytest.raises(ValueError, match="infinity|inf"):
        sel.fit(Xi, y)
    with pytest.raises(ValueError, match="regularization"):
        SparseLDASelector(regularization="huge").fit(X, y)
    assert np.array_equal(X, X0) and np.array_equal(y, y0)


def test_constant_pixels_and_more_features_than_samples():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((20, 50))
    X[:, :5] = 3.0  # constant pixels: zero variance, zero mean difference
    y = np.array([0, 1] * 10)
    X[y == 1, 7] += 2.0
    for reg in ("auto", "rda", "ledoit-wolf", "ledoit-wolf-floor"):  # each keeps the rank-deficient B invertible
        sel = SparseLDASelector(3, regularization=reg).fit(X, y)
        r = sel.regularization_
        assert r["method"] == reg and r["alpha"] + r["shrinkage"] * r["mu"] > 0
        assert 7 in sel.get_support(indices=True)
        assert not set(sel.get_support(indices=True)) & set(range(5))
    assert SparseLDASelector(3).fit(X, y).regularization_["method"] == "ledoit-wolf-floor"  # the default
    with pytest.raises((ValueError, np.linalg.LinAlgError), match="regulari"):
        SparseLDASelector(3, regularization="none").fit(X, y)


@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_multiclass_path_is_the_low_rank_greedy(criterion):
    """Three or more classes: the objective is the criterion of (M M^T, B) on each support."""
    from itertools import combinations

    from pixsel.spectral.greedy._multiclass import multiclass_greedy_path

    rng = np.random.default_rng(0)
    y = np.arange(120) % 4
    X = rng.standard_normal((120, 8))
    X[:, [1, 5]] += y[:, None] * np.array([1.0, -0.7])
    sel = SparseLDASelector(3, beam_width=1, criterion=criterion, regularization=0.01).fit(X, y)
    st = class_statistics(X, y)
    B, _ = regularize(st.within, 0.01)
    M = st.between_factor

    def crit(S):
        G = M[S].T @ np.linalg.solve(B[np.ix_(S, S)], M[S])
        ev = np.linalg.eigvalsh(G)
        return ev.sum() if criterion == "trace" else ev[-1]

    for k in (1, 3, 8):
        S = sel.get_support_at(k, indices=True)
        assert crit(S) == pytest.approx(sel.objective_path_[k - 1], rel=1e-9)
    fwd = multiclass_greedy_path(M, B, criterion=criterion)
    np.testing.assert_array_equal(sel.forward_path_.order, fwd.order)
    assert {1, 5} <= set(sel.get_support(indices=True))
    best2 = max(crit(list(S)) for S in combinations(range(8), 2))
    assert sel.objective_path_[1] <= best2 + 1e-12


@pytest.mark.parametrize(("n_classes", "criterion"), [(2, "auto"), (5, "auto"), (5, "trace")])
def test_implicit_swaps_match_the_dense_swaps(n_classes, criterion):
    """refine on the implicit route reads the Gram operator's columns: the same moves, support,
    objective and discriminant as the swaps on the formed matrix."""
    rng = np.random.default_rng(5)
    n, p = 60, 90
    y = np.arange(n) % n_classes
    X = rng.standard_normal((n, p)) + 0.6 * rng.standard_normal((n_classes, p))[y]
    X[:, :30] += 2.5 * rng.standard_normal((n, 1))  # a correlated block: the greedy support is not a local optimum
    moved = 0
    kw = dict(criterion=criterion, regularization="rda", beam_width=1)  # a ridge under which these greedy supports move
    for k in (4, 7, 10):
        dense = SparseLDASelector(k, algorithm="dense", **kw).fit(X, y)
        imp = SparseLDASelector(k, algorithm="implicit", **kw).fit(X, y)
        assert imp.n_swaps_ == dense.n_swaps_
        np.testing.assert_array_equal(imp.support_, dense.support_)
        assert imp.objective_path_[k - 1] == pytest.approx(dense.objective_path_[k - 1], rel=1e-9)
        plain = SparseLDASelector(k, algorithm="implicit", refine=False, **kw).fit(X, y)
        assert imp.objective_path_[k - 1] >= plain.objective_path_[k - 1] * (1 - 1e-12)  # never below the path
        np.testing.assert_allclose(np.abs(imp.coef_), np.abs(dense.coef_), rtol=1e-6, atol=1e-12)
        moved += imp.n_swaps_
    assert moved > 0  # the check above compared real moves
    with pytest.raises(ValueError, match="needs an additive criterion"):  # the largest eigenvalue of 3 classes
        SparseLDASelector(4, algorithm="implicit", criterion="max-eig", refine=True).fit(X, np.arange(n) % 3)


@pytest.mark.parametrize(("n_classes", "criterion"), [(2, "auto"), (3, "auto"), (3, "trace")])
def test_implicit_algorithm_matches_dense_forward(n_classes, criterion):
    rng = np.random.default_rng(n_classes)
    n, p = 40, 120  # N < p: B is rank-deficient, the ridge keeps it invertible
    y = np.arange(n) % n_classes
    X = rng.standard_normal((n, p)).astype(np.float32)
    X[:, [5, 50, 99]] += 1.2 * y[:, None]
    X0 = X.copy()
    # the forward passes alone (refine=False); the swaps of both routes are compared below
    dense = SparseLDASelector(6, beam_width=1, direction="forward", algorithm="dense", refine=False, criterion=criterion).fit(X, y)
    imp = SparseLDASelector(6, beam_width=1, direction="forward", algorithm="implicit", refine=False, criterion=criterion).fit(X, y)
    # 'auto': with 3 classes the correlation criterion, searched implicitly on X's covariance about its mean
    assert imp.criterion_ == dense.criterion_ == ("correlation" if (n_classes, criterion) == (3, "auto") else "trace")
    assert imp.algorithm_ == "implicit" and dense.algorithm_ == "dense"
    assert np.array_equal(imp.forward_path_.order[:6], dense.forward_path_.order[:6])
    assert np.allclose(imp.objective_path_, dense.objective_path_[:6], rtol=1e-6)
    assert imp.regularization_["alpha"] == pytest.approx(dense.regularization_["alpha"], rel=1e-5)
    assert np.array_equal(imp.get_support_at(3), dense.get_support_at(3))
    assert np.allclose(imp.coef_, dense.coef_, rtol=1e-4)  # the same discriminant (B_SS^-1 a_S with two classes)
    assert np.array_equal(X, X0)
    with pytest.raises(ValueError, match="stopped at k = 6"):
        imp.get_support_at(7)  # the implicit path stops at n_features_to_select
    with pytest.raises(ValueError, match="forward selection only"):
        SparseLDASelector(6, direction="backward", algorithm="implicit").fit(X, y)


def test_auto_algorithm_goes_implicit_at_image_scale():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 5000)).astype(np.float32)
    y = np.arange(30) % 2
    X[y == 1, 1234] += 3.0
    sel = SparseLDASelector(2).fit(X, y)
    assert sel.algorithm_ == "implicit" and sel.direction_ == "forward"
    assert 1234 in sel.get_support(indices=True)


def test_auto_algorithm_runs_a_forward_pass_alone_through_x():
    """With fewer samples than features, a fit that runs the forward pass alone (the default
    search) takes the implicit form: the same pixels, discriminant and objectives as the dense form,
    without the p x p matrix; options that read that matrix keep the dense form."""
    rng = np.random.default_rng(3)
    n, p = 40, 600
    y = np.arange(n) % 5
    X = rng.standard_normal((n, p))
    X[:, [7, 70, 300]] += 1.5 * y[:, None]
    auto = SparseLDASelector(5).fit(X, y)
    dense = SparseLDASelector(5, algorithm="dense").fit(X, y)
    assert auto.algorithm_ == "implicit" and "forward pass of 5 steps" in auto.route_reason_
    assert dense.algorithm_ == "dense"
    assert np.array_equal(auto.get_support(indices=True), dense.get_support(indices=True))
    assert np.allclose(auto.objective_path_, dense.objective_path_[:5], rtol=1e-8)
    assert np.allclose(auto.coef_, dense.coef_, rtol=1e-6)
    two = SparseLDASelector(3).fit(X, y % 2)  # two classes: the dense form's whole path not needed either
    assert two.algorithm_ == "implicit"
    assert np.array_equal(two.get_support(indices=True),
                          SparseLDASelector(3, algorithm="dense").fit(X, y % 2).get_support(indices=True))
    for needs_matrix in ({"direction": "dual"}, {"path": "full"}, {"always_select": [0]}, {"never_select": [1]},
                         {"stability": 2, "random_state": 0}, {"criterion": "max-eig"}):
        assert SparseLDASelector(5, **needs_matrix).fit(X, y).algorithm_ == "dense", needs_matrix
    # the beam reads B through its columns too: the dense beam's support at k, through X
    beam = SparseLDASelector(5, beam_width=3).fit(X, y)
    assert beam.algorithm_ == "implicit" and beam.beam_width_ == 3
    dense_beam = SparseLDASelector(5, beam_width=3, algorithm="dense").fit(X, y)
    assert np.array_equal(beam.get_support(indices=True), dense_beam.get_support(indices=True))
    assert beam.objective_path_[4] == pytest.approx(dense_beam.objective_path_[4], rel=1e-8)
    assert SparseLDASelector(5, criterion="max-eig", refine=False).fit(X, y).algorithm_ == "implicit"


def test_ledoit_wolf_floor_is_the_ridge_of_its_intensity():
    """Many samples per class and pixels of unequal variance give a Ledoit-Wolf intensity below the
    floor: the default then shrinks by the floor, on the dense and the implicit form alike, and
    selects what the equivalent ridge ``s mu / (1 - s)`` selects (the same B up to a factor)."""
    from pixsel.stats import SHRINKAGE_FLOOR

    rng = np.random.default_rng(11)
    n, p, C = 600, 40, 4
    y = np.arange(n) % C
    X = rng.standard_normal((n, p)) * np.geomspace(0.05, 5.0, p)  # dark and bright pixels
    X[:, [2, 17, 30]] += 0.3 * y[:, None]
    lw = SparseLDASelector(5, regularization="ledoit-wolf").fit(X, y)
    assert lw.regularization_["shrinkage"] < SHRINKAGE_FLOOR
    dense = SparseLDASelector(5, algorithm="dense").fit(X, y)  # the default: the floor
    imp = SparseLDASelector(5, algorithm="implicit").fit(X, y)
    r = dense.regularization_
    assert r["method"] == "ledoit-wolf-floor" and r["shrinkage"] == SHRINKAGE_FLOOR
    assert imp.regularization_ == pytest.approx(r)
    ridge = SparseLDASelector(5, algorithm="dense", regularization=r["mu"] * SHRINKAGE_FLOOR / (1 - SHRINKAGE_FLOOR))
    ridge.fit(X, y)
    assert np.array_equal(dense.get_support(), ridge.get_support())
    assert np.array_equal(imp.get_support(), dense.get_support())
    trace = dict(algorithm="dense", criterion="trace")  # on (A, B_reg): the floor's B is (1 - s) times the ridge's
    t_floor = SparseLDASelector(5, **trace).fit(X, y)
    t_ridge = SparseLDASelector(5, regularization=ridge.regularization, **trace).fit(X, y)
    assert np.array_equal(t_floor.get_support(), t_ridge.get_support())
    np.testing.assert_allclose(t_floor.objective_path_ * (1 - SHRINKAGE_FLOOR), t_ridge.objective_path_, rtol=1e-8)


@pytest.mark.parametrize(("n_classes", "criterion", "reg"), [(2, "auto", "ledoit-wolf"), (5, "auto", "ledoit-wolf"),
                                                           (5, "trace", "ledoit-wolf-floor")])
def test_implicit_ledoit_wolf_is_the_dense_one(n_classes, criterion, reg):
    """regularization='ledoit-wolf' through X (the intensity from the n x n products, the operator
    (1 - s) B + s mu I, plus s M M^T for the correlation criterion's total covariance): the same
    intensity, pixels, objectives and discriminant as on the formed matrices."""
    rng = np.random.default_rng(n_classes)
    n, p = 40, 400  # the n x n products of the rows (n^2 p) and the passes cost 4 x less than n p^2
    y = np.arange(n) % n_classes
    X = rng.standard_normal((n, p)) + 0.8 * rng.standard_normal((n, 1))  # correlated pixels
    X[:, [3, 40, 120]] += 1.2 * y[:, None]
    kw = dict(regularization=reg, criterion=criterion)
    dense = SparseLDASelector(6, algorithm="dense", **kw).fit(X, y)
    imp = SparseLDASelector(6, algorithm="implicit", **kw).fit(X, y)
    auto = SparseLDASelector(6, **kw).fit(X, y)
    assert imp.algorithm_ == auto.algorithm_ == "implicit"
    assert 0 < imp.regularization_["shrinkage"] < 1
    assert imp.regularization_["shrinkage"] == pytest.approx(dense.regularization_["shrinkage"], rel=1e-10)
    assert imp.regularization_["mu"] == pytest.approx(dense.regularization_["mu"], rel=1e-10)
    assert np.array_equal(imp.forward_path_.order, dense.forward_path_.order[:6])
    assert np.allclose(imp.objective_path_, dense.objective_path_[:6], rtol=1e-8)
    assert np.array_equal(imp.get_support(), dense.get_support()) and np.array_equal(auto.support_, imp.support_)
    assert np.allclose(imp.coef_, dense.coef_, rtol=1e-6)
    da = pytest.importorskip("dask.array")  # the products chunk by chunk: the same intensity and pixels
    lazy = SparseLDASelector(6, algorithm="implicit", **kw).fit(da.from_array(X, chunks=(15, 100)), y)
    assert lazy.regularization_["shrinkage"] == pytest.approx(dense.regularization_["shrinkage"], rel=1e-10)
    assert np.array_equal(lazy.get_support(), dense.get_support())


@pytest.mark.parametrize("direction", ["auto", "dual"])
def test_two_class_forward_pass_is_greedy_paths(digits, direction, monkeypatch):
    """On the NumPy route the two-class forward pass runs greedy_path with check_input=False (the
    pair the fit formed), which skips its checks of the pair: the same path (order, objectives,
    info) as the checked call on that pair and route, and the progress callback told; Dask
    statistics go through the checked path."""
    import dask.array as da

    import pixsel.selection._lda as lda
    import pixsel.spectral._dispatch as dispatch
    from pixsel.spectral import greedy_path

    seen, calls, formed = [], [], []
    real, real_formed = lda.greedy_path, dispatch._formed_vector_path
    monkeypatch.setattr(lda, "greedy_path", lambda *a, **k: calls.append((a, k)) or real(*a, **k))

    def recording(a, B, **kwargs):
        formed.append((a, B))
        return real_formed(a, B, **kwargs)

    monkeypatch.setattr(dispatch, "_formed_vector_path", recording)
    sel = SparseLDASelector(6, direction=direction, progress=lambda *a: seen.append(a)).fit(digits.X, digits.y)
    forward = [(a, k) for a, k in calls if k.get("direction") == "forward"]
    assert len(forward) == 1 and forward[0][1]["check_input"] is False and len(formed) == 1  # the unchecked pass
    (a, B), kw = forward[0]
    want = greedy_path(a, B, criterion=kw["criterion"], max_k=kw["max_k"], route=kw["route"])
    np.testing.assert_array_equal(sel.forward_path_.order, want.order)
    np.testing.assert_array_equal(sel.forward_path_.objective, want.objective)
    assert sel.forward_path_.info == want.info
    assert seen  # progress reached the callback
    lazy = SparseLDASelector(6, direction=direction).fit(da.from_array(digits.X, chunks=(100, 64)), digits.y)
    assert len(formed) == 1  # Dask statistics: the checked path
    np.testing.assert_array_equal(lazy.forward_path_.order[:12], sel.forward_path_.order[:12])


def test_greedy_path_check_input_false_is_the_checked_path_and_checks_the_rest():
    """check_input=False on a formed two-class pair: the same path as the checked call; with an
    option that takes another entry point (forced features) or a pair it cannot vouch for (float32),
    greedy_path checks as always."""
    from pixsel.spectral import greedy_path

    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 12))
    B = X.T @ X / 40 + 0.1 * np.eye(12)
    a = rng.standard_normal(12)
    for max_k in (None, 5):
        fast = greedy_path(a, B, max_k=max_k, check_input=False)
        slow = greedy_path(a, B, max_k=max_k)
        np.testing.assert_array_equal(fast.order, slow.order)
        np.testing.assert_array_equal(fast.objective, slow.objective)
        assert fast.info == slow.info
    forced = greedy_path(a, B, always_select=[3], check_input=False)
    assert forced.order[0] == 3
    with pytest.raises(ValueError, match="symmetric"):
        greedy_path(a, (B + np.triu(B, 1)).astype(np.float32), check_input=False)
