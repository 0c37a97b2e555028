"""ColumnSubsetSelector: the kernels' answer on centered data, planted duplicated pixels, bad input."""

from itertools import combinations

import numpy as np
import pytest

from pixsel.scores._column_subset import column_subset_objective, greedy_column_subset, pivoted_qr_columns
from pixsel.selection import ColumnSubsetSelector


def _planted(seed):
    """Three independent source pixels, each copied (with tiny noise) into five more pixels."""
    rng = np.random.default_rng(seed)
    src = rng.standard_normal((80, 3)) * [3.0, 2.0, 1.0]
    X = np.repeat(src, 6, axis=1) + 1e-3 * rng.standard_normal((80, 18)) + 5.0
    return X


@pytest.mark.parametrize("method", ["greedy", "qr"])
@pytest.mark.parametrize("seed", range(3))
def test_one_pixel_per_planted_group(method, seed):
    """The three chosen pixels come from the three groups (a score would take copies of the
    largest source), and they keep all but noise of the centered mass."""
    X = _planted(seed)
    X0 = X.copy()
    sel = ColumnSubsetSelector(3, method=method).fit(X)
    groups = sel.get_support(indices=True) // 6
    assert sorted(groups.tolist()) == [0, 1, 2]
    assert sel.objective_path_[-1] > 0.9999 and np.array_equal(X, X0)
    assert sorted(sel.ranking_[sel.order_].tolist()) == [1, 2, 3] and (sel.ranking_ == 4).sum() == 15


@pytest.mark.parametrize("seed", range(3))
def test_selector_runs_the_kernels_on_centered_data(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, 15)) + rng.uniform(-5, 5, 15)
    A = X - X.mean(axis=0)
    order, mass = greedy_column_subset(A.T @ A, 6)
    sel = ColumnSubsetSelector(6).fit(X)
    assert sel.order_.tolist() == order.tolist()
    assert np.allclose(sel.objective_path_, mass / np.sum(A**2))
    assert ColumnSubsetSelector(6, method="qr").fit(X).order_.tolist() == pivoted_qr_columns(A, 6).tolist()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [12, 30, 90])
def test_same_pixels_order_and_path_as_the_gram_matrix_greedy(seed, n):
    """Oracle: the selector (n-form kernel) against the p-form greedy on the Gram matrix, fewer and
    more images than pixels, low rank and full rank, with constant pixels (no gain: taken last, by
    lowest index, once every other pixel is in the span)."""
    rng = np.random.default_rng(seed)
    h, w = 6, 8
    rank = 5 if seed % 2 else min(n, h * w)
    X = (rng.standard_normal((n, rank)) @ rng.standard_normal((rank, h * w))
         + 0.01 * rng.standard_normal((n, h * w)) + rng.uniform(-3, 3, h * w))
    X[:, [3, 17]] = 7.0  # constant pixels
    A = X - X.mean(axis=0)
    k = min(n - 2, 20)  # with one residual direction left every pixel ties: no unique answer there
    order, mass = greedy_column_subset(A.T @ A, k)
    sel = ColumnSubsetSelector(k).fit(X.reshape(n, h, w))
    assert sel.order_.tolist() == order.tolist()
    np.testing.assert_allclose(sel.objective_path_, mass / np.sum(A**2), rtol=1e-9, atol=1e-12)
    assert sel.image_shape_ == (h, w) and sel.get_support_image().sum() == k


def test_many_pixels_rank_on_the_rounded_gram_with_the_exact_greedy_path_and_masses():
    """From 512 pixels, more images than pixels: the ranking runs on A^T A in single precision; on
    correlated images the path is the p-form greedy's on the exact Gram matrix, its masses exact."""
    from scipy.ndimage import gaussian_filter

    from pixsel.scores import placement_gram

    rng = np.random.default_rng(5)
    X = gaussian_filter(rng.standard_normal((700, 24, 24)), sigma=(0, 2.0, 2.0)) + 0.01 * rng.standard_normal((700, 24, 24))
    A = X.reshape(700, -1) - X.reshape(700, -1).mean(axis=0)
    assert placement_gram(A)[1] > 0
    order, mass = greedy_column_subset(A.T @ A, 30)
    sel = ColumnSubsetSelector(30).fit(X)
    assert sel.order_.tolist() == order.tolist()
    np.testing.assert_allclose(sel.objective_path_, mass / np.sum(A**2), rtol=1e-9)
    G = A.T @ A
    assert sel.objective_path_[-1] == pytest.approx(column_subset_objective(G, order) / np.trace(G), rel=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_qr_path_is_the_kept_mass_of_each_prefix(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((25, 40)) @ np.diag(rng.uniform(0.1, 3.0, 40))
    A = X - X.mean(axis=0)
    G = A.T @ A
    sel = ColumnSubsetSelector(10, method="qr").fit(X)
    want = [column_subset_objective(G, sel.order_[: t + 1]) / np.trace(G) for t in range(10)]
    np.testing.assert_allclose(sel.objective_path_, want, rtol=1e-9)


def test_bad_method_says_what_is_allowed():
    with pytest.raises(ValueError, match="method"):
        ColumnSubsetSelector(2, method="svd").fit(np.ones((5, 3)))


# -- solver='exact' --------------------------------------------------------------------------


def _brute_kept_mass(X, k):
    A = X - X.mean(axis=0)
    G = A.T @ A
    return max(column_subset_objective(G, list(S)) for S in combinations(range(X.shape[1]), k)) / np.trace(G)


@pytest.fixture(scope="module")
def small_images():
    rng = np.random.default_rng(3)
    return rng.standard_normal((120, 9)) @ rng.standard_normal((9, 9)) + 0.1 * rng.standard_normal((120, 9))


@pytest.mark.parametrize("method", ["greedy", "qr"])
def test_exact_solver_is_the_brute_force_optimum(small_images, method):
    """Oracle: every k of a 9-pixel problem against all the supports of that size; the bound is
    never below the optimum, the path's last entry is the support's kept mass."""
    X = small_images
    A = X - X.mean(axis=0)
    G = A.T @ A
    for k in range(1, 10):
        best = _brute_kept_mass(X, k)
        sel = ColumnSubsetSelector(k, method=method, solver="exact").fit(X)
        assert sel.status_ == "optimal" and sel.gap_ == 0.0
        assert sel.objective_path_[-1] == pytest.approx(best, rel=1e-10)
        assert column_subset_objective(G, sel.order_) / np.trace(G) == pytest.approx(best, rel=1e-10)
        assert sel.upper_bound_ >= best - 1e-12
        assert sorted(sel.order_.tolist()) == sel.get_support(indices=True).tolist()
        assert sorted(sel.ranking_[sel.order_].tolist()) == list(range(1, k + 1))
        assert np.all(np.diff(sel.objective_path_) >= -1e-12)


def test_exact_beats_greedy_where_greedy_is_not_optimal(small_images):
    """A planted case where the greedy is suboptimal: the exact support is strictly better."""
    X = small_images
    gaps = []
    for k in range(2, 8):
        greedy = ColumnSubsetSelector(k).fit(X).objective_path_[-1]
        exact = ColumnSubsetSelector(k, solver="exact").fit(X).objective_path_[-1]
        assert exact >= greedy - 1e-12
        gaps.append(exact - greedy)
    assert max(gaps) > 1e-4


def test_stopped_exact_search_keeps_a_valid_bound_and_warns(small_images):
    from sklearn.exceptions import ConvergenceWarning

    X = small_images
    best = _brute_kept_mass(X, 4)
    with pytest.warns(ConvergenceWarning, match="before proving optimality"):
        sel = ColumnSubsetSelector(4, solver="exact", node_limit=0).fit(X)
    assert sel.status_ == "node_limit"
    assert sel.objective_path_[-1] <= best + 1e-12 <= sel.upper_bound_ + 2e-12
    assert sel.gap_ == pytest.approx((sel.upper_bound_ - sel.objective_path_[-1]) / sel.objective_path_[-1])


@pytest.mark.parametrize("make", [lambda X: X[:5], lambda X: np.column_stack([X, np.ones(len(X))])],
                         ids=["fewer images than pixels", "constant pixel"])
def test_exact_refuses_a_singular_covariance_before_the_search(small_images, make):
    X = make(small_images)
    with pytest.raises(ValueError, match=r"solver='exact'\) needs the pixel covariance to be positive definite.*"
                                         r"solver='greedy'"):
        ColumnSubsetSelector(3, solver="exact").fit(X)
    ColumnSubsetSelector(3).fit(X)  # the greedy takes it


@pytest.mark.parametrize("solver", ["greedy", "exact"])
def test_installed_and_excluded_pixels(solver):
    """always_select / never_select: the installed pixels first, in the order given, none excluded;
    with the exact solver the certified support is the brute-force best among the supports that
    contain the installed pixels and avoid the excluded ones (which is not the unconstrained best)."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((60, 9)) @ rng.standard_normal((9, 9))
    X0 = X.copy()
    A = X - X.mean(axis=0)
    G = A.T @ A
    F, E, k = [7, 2], [0, 5], 4
    sel = ColumnSubsetSelector(k, solver=solver, always_select=F, never_select=E).fit(X)
    assert sel.order_[:2].tolist() == F and not set(E) & set(sel.order_.tolist()) and np.array_equal(X, X0)
    assert sel.always_select_.tolist() == [2, 7] and sel.never_select_.tolist() == E
    free = [j for j in range(9) if j not in F + E]
    best = max(column_subset_objective(G, [*F, *T]) for T in combinations(free, k - 2)) / np.trace(G)
    np.testing.assert_allclose(sel.objective_path_[-1], column_subset_objective(G, sel.order_) / np.trace(G))
    if solver == "exact":
        assert sel.status_ == "optimal"
        np.testing.assert_allclose(sel.objective_path_[-1], best, rtol=1e-10)
        assert sel.upper_bound_ >= best - 1e-12
        free_best = max(column_subset_objective(G, list(S)) for S in combinations(range(9), k)) / np.trace(G)
        assert best < free_best
    else:
        assert sel.objective_path_[-1] <= best + 1e-12


def test_installed_and_excluded_pixels_bad_input():
    X = np.random.default_rng(0).standard_normal((40, 8))
    for kw, msg in [(dict(always_select=[0, 1, 2]), "are more than k=2"),
                    (dict(always_select=[1], never_select=[1]), "in both always_select and never_select"),
                    (dict(never_select=list(range(7))), "fewer than k=2"),
                    (dict(method="qr", never_select=[0]), "method='qr' takes no placement constraint"),
                    (dict(min_distance=2.0), "image_shape")]:
        with pytest.raises(ValueError, match=msg):
            ColumnSubsetSelector(2, **kw).fit(X)


def _regions_data():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((200, 6)) @ rng.standard_normal((6, 16)) + 0.3 * rng.standard_normal((200, 16))
    return X.reshape(200, 4, 4)


_ROWS, _COLS = np.divmod(np.arange(16), 4)
_REGIONS = (_ROWS >= 2) * 2 + (_COLS >= 2)  # four 2 x 2 quadrants
_COSTS = 1 + _COLS / 3.0


def _admits(S, kw):
    S = list(S)
    if "min_distance" in kw and any(np.hypot(_ROWS[i] - _ROWS[j], _COLS[i] - _COLS[j]) < kw["min_distance"]
                                    for i, j in combinations(S, 2)):
        return False
    counts = np.bincount(_REGIONS[S], minlength=4)
    if "max_per_region" in kw and counts.max() > kw["max_per_region"]:
        return False
    if "min_per_region" in kw and any(counts[r] < m for r, m in kw["min_per_region"].items()):
        return False
    if set(kw.get("always_select", [])) - set(S) or set(kw.get("never_select", [])) & set(S):
        return False
    return "budget" not in kw or _COSTS[S].sum() <= kw["budget"] + 1e-9


@pytest.mark.parametrize("kw", [dict(min_distance=2.0), dict(max_per_region=1), dict(min_per_region={0: 2}),
                                dict(budget=4.0), dict(budget=4.5, always_select=[0], never_select=[5]),
                                dict(min_distance=1.5, always_select=[5])])
def test_exact_placement_under_budget_regions_and_distance(kw):
    """The exact solver under each constraint: the brute-force best feasible placement (here below the
    unconstrained best, so the constraint binds), at least the constrained greedy's; the greedy's
    placement feasible too."""
    X = _regions_data()
    A = X.reshape(200, 16) - X.reshape(200, 16).mean(axis=0)
    G = A.T @ A
    extra = dict(kw)
    if "max_per_region" in kw or "min_per_region" in kw:
        extra["regions"] = _REGIONS.reshape(4, 4)
    if "budget" in kw:
        extra["costs"] = _COSTS
    for k in (3, 4):
        best = max(column_subset_objective(G, list(S)) for S in combinations(range(16), k) if _admits(S, kw))
        ex = ColumnSubsetSelector(k, solver="exact", **extra).fit(X)
        gr = ColumnSubsetSelector(k, **extra).fit(X)
        assert ex.status_ == "optimal" and _admits(ex.order_, kw) and _admits(gr.order_, kw)
        np.testing.assert_allclose(ex.objective_path_[-1], best / np.trace(G), rtol=1e-10)
        assert ex.objective_path_[-1] >= gr.objective_path_[-1] - 1e-12
    assert best < max(column_subset_objective(G, list(S)) for S in combinations(range(16), 4)) - 1e-9
