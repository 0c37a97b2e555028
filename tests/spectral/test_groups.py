"""Group greedy paths and the exact group search against brute force over groups."""

import numpy as np
import pytest

from pixsel.spectral import greedy_path, objective_on_support
from pixsel.spectral import _groups
from pixsel.spectral._groups import brute_force_groups, check_groups, exact_group_support, group_greedy_path

FORMS = ["vector", "factor", "full"]


@pytest.fixture(params=["default panel", "panel of 4"])
def panel(request, monkeypatch):
    """Run with the default panel (no update of the stored matrix at these sizes) and with a
    panel of 4 features (the stored matrix updated and compacted every few groups)."""
    if request.param == "panel of 4":
        monkeypatch.setattr(_groups, "_PANEL", 4)
    return request.param


def _problem(form, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((3 * p, p))
    B = X.T @ X / (3 * p) + 0.1 * np.eye(p)
    if form == "vector":
        return rng.standard_normal(p), B
    if form == "factor":
        return rng.standard_normal((p, 3)), B
    Y = rng.standard_normal((2 * p, p)) * rng.uniform(0.5, 2.0, p)
    return Y.T @ Y / (2 * p), None  # sparse PCA: B = I


def _brute_greedy(A, B, groups, direction, criterion):
    """The greedy path over groups by evaluating every candidate union from scratch."""
    labels = np.unique(groups)
    G = len(labels)

    def f(js):
        return objective_on_support(A, B, np.flatnonzero(np.isin(groups, labels[list(js)])), criterion=criterion)

    if direction == "forward":
        S, objs = [], []
        for _ in range(G):
            vals = [(f(S + [j]), j) for j in range(G) if j not in S]
            best = max(v for v, _ in vals)
            j = min(j for v, j in vals if v >= best - 1e-12 * abs(best))
            S.append(j)
            objs.append(best)
        return np.array(S), np.array(objs)
    S, removed, objs = list(range(G)), [], np.empty(G)
    objs[G - 1] = f(S)
    while len(S) > 1:
        vals = [(f([x for x in S if x != j]), j) for j in S]
        best = max(v for v, _ in vals)
        j = min(j for v, j in vals if v >= best - 1e-12 * abs(best))
        S.remove(j)
        removed.append(j)
        objs[len(S) - 1] = best
    return np.array(removed + S), objs


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_singletons_give_the_single_feature_paths(form, direction, criterion, panel):
    A, B = _problem(form, 14, 0)
    ref = greedy_path(A, B, direction=direction, criterion=criterion, form=form)
    path = group_greedy_path(A, B, groups=np.arange(14), direction=direction, criterion=criterion, form=form)
    np.testing.assert_array_equal(path.order, ref.order)
    np.testing.assert_allclose(path.objective, ref.objective, rtol=1e-9)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_group_path_is_the_brute_force_greedy_over_groups(form, direction, seed, panel):
    rng = np.random.default_rng(seed)
    A, B = _problem(form, 13, seed)
    groups = rng.integers(0, 6, 13)  # unequal sizes, ids need not be contiguous
    criterion = "trace" if seed == 3 else "max-eig"
    path = group_greedy_path(A, B, groups=groups, direction=direction, criterion=criterion)
    order, objs = _brute_greedy(A, B, groups, direction, criterion)
    np.testing.assert_array_equal(path.order, order)
    np.testing.assert_allclose(path.objective, objs, rtol=1e-9)
    # the objective at k is that of the union of the path's k groups
    for k in (1, len(objs) // 2, len(objs)):
        assert np.isclose(path.objective[k - 1], objective_on_support(A, B, path.support(k), criterion=criterion))
    assert path.n_features_path[-1] == 13


def test_forward_max_k_is_the_prefix_of_the_whole_path(panel):
    A, B = _problem("vector", 20, 4)
    groups = np.arange(20) // 4
    whole = group_greedy_path(A, B, groups=groups)
    part = group_greedy_path(A, B, groups=groups, max_k=2)
    np.testing.assert_array_equal(part.order, whole.order[:2])
    assert part.n_features_path.tolist() == [4, 8]


def test_a_dependent_group_gains_nothing(panel):
    """A group that repeats features already chosen adds a zero pivot (no division by it)."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 4))
    X = np.hstack([X, X[:, :2]])  # features 4, 5 duplicate 0, 1
    B = X.T @ X / 40
    a = rng.standard_normal(6)
    a[4:] = a[:2]
    path = group_greedy_path(a, B, groups=[0, 0, 1, 1, 2, 2])
    # whichever of groups 0 and 2 comes second adds nothing, so it comes last
    assert {path.order[0], path.order[-1]} == {0, 2} or {path.order[1], path.order[-1]} == {0, 2}
    assert path.objective[-1] == pytest.approx(path.objective[-2], rel=1e-9)
    assert path.objective[-2] > path.objective[-3]
    assert np.all(np.isfinite(path.objective))


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_exact_group_support_is_the_brute_force_optimum(form, k):
    rng = np.random.default_rng(10 + k)
    A, B = _problem(form, 14, k)
    groups = rng.integers(0, 7, 14)
    res = exact_group_support(A, B, groups, k)
    codes, best = brute_force_groups(A, B, groups, k)
    assert res.status == "optimal"
    assert np.isclose(res.objective, best, rtol=1e-10)
    assert np.isclose(res.upper_bound, best, rtol=1e-10)
    np.testing.assert_array_equal(res.groups, codes)
    labels = np.unique(groups)
    np.testing.assert_array_equal(res.support, np.flatnonzero(np.isin(groups, labels[codes])))


def test_exact_group_search_stopped_early_keeps_a_certified_bound():
    A, B = _problem("vector", 24, 7)
    groups = np.arange(24) // 2
    _, best = brute_force_groups(A, B, groups, 4)
    res = exact_group_support(A, B, groups, 4, node_limit=3)
    assert res.status == "node_limit"
    assert res.upper_bound >= best - 1e-12 >= res.objective - 1e-12


def test_bad_groups_say_how_to_fix_them():
    with pytest.raises(ValueError, match="one group id per feature: X has 3 features but groups has 2"):
        check_groups([0, 1], 3)
    with pytest.raises(ValueError, match="NaN"):
        check_groups([0.0, np.nan, 1.0], 3)
    with pytest.raises(ValueError, match="max_k"):
        group_greedy_path(np.ones(4), None, groups=[0, 0, 1, 1], max_k=3)


# ---------------------------------------------------------------------------- compiled group steps
def _both_routes(A, B, groups, **kw):
    """The group path by the NumPy loops and by the compiled steps, with the progress each reports."""
    from pixsel._routes import compiled_kernels

    out = []
    for compiled in (False, True):
        calls = []
        with compiled_kernels(compiled):
            path = group_greedy_path(A, B, groups=groups, callback=lambda i, n: calls.append((i, n)), **kw)
        out.append((path, calls))
    return out


@pytest.mark.parametrize("form,direction", [("vector", "forward"), ("vector", "backward"), ("full", "forward")])
@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_group_steps_are_the_numpy_loops(form, direction, seed, panel):
    """Same orders and objectives (to rounding) and the same progress, on unequal groups, with
    the stored matrix updated between panels (panel of 4) or not."""
    rng = np.random.default_rng(seed)
    A, B = _problem(form, 40, seed)
    groups = rng.integers(0, 16, 40)
    max_k = 8 if form == "full" else None
    (ref, ref_calls), (got, got_calls) = _both_routes(A, B, groups, direction=direction, max_k=max_k)
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
    assert got_calls == ref_calls


@pytest.mark.parametrize("form,direction", [("vector", "forward"), ("vector", "backward"), ("full", "forward")])
def test_compiled_group_steps_are_the_brute_force_greedy(form, direction):
    from pixsel._routes import compiled_kernels

    rng = np.random.default_rng(4)
    A, B = _problem(form, 12, 4)
    groups = rng.integers(0, 5, 12)
    with compiled_kernels(True):
        path = group_greedy_path(A, B, groups=groups, direction=direction)
    order, objs = _brute_greedy(A, B, groups, direction, "max-eig")
    np.testing.assert_array_equal(path.order, order)
    np.testing.assert_allclose(path.objective, objs, rtol=1e-9)


def test_compiled_dependent_group_gains_nothing():
    """A group repeating chosen features: zero pivots, the eigendecomposition fallback, as in NumPy."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 6))
    X = np.hstack([X, X[:, :3]])  # features 6, 7, 8 duplicate 0, 1, 2
    B = X.T @ X / 40
    a = rng.standard_normal(9)
    a[6:] = a[:3]
    groups = [0, 0, 1, 1, 2, 2, 3, 3, 3]  # group 3 is in the span of groups 0 and 1
    (ref, _), (got, _) = _both_routes(a, B, groups)  # forward: B is singular, backward needs its inverse
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
    # the last group is in the span of the others (0 or 3 last, whichever came second): no gain
    assert got.order[-1] in (0, 3) and got.objective[-1] == pytest.approx(got.objective[-2], rel=1e-9)
    assert np.all(np.isfinite(got.objective))


@pytest.fixture(scope="module")
def digits_stats():
    from sklearn.datasets import load_digits

    from pixsel import SparseLDASelector, SparsePCASelector

    X, y = load_digits(return_X_y=True)
    two = y < 2
    lda = SparseLDASelector(1, direction="forward").fit(X[two], y[two]).forward_path_
    pca = SparsePCASelector(1, refine=False).fit(X).forward_path_
    groups = (np.arange(64) // 8 // 2) * 4 + (np.arange(64) % 8) // 2  # 2 x 2 patches of the 8 x 8 digits
    return lda.A, lda.B, pca.A, groups


@pytest.mark.parametrize("which", ["binary LDA forward", "binary LDA backward", "sparse PCA forward"])
def test_compiled_group_steps_on_digit_patches(digits_stats, which):
    a, B, C, groups = digits_stats
    if which.startswith("sparse PCA"):
        (ref, _), (got, _) = _both_routes(C, None, groups, direction="forward", max_k=6)
    else:
        (ref, _), (got, _) = _both_routes(a, B, groups, direction=which.split()[-1])
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)


# ---------------------------------------------------------------------------- swap over groups
def _all_swaps_best(A, B, groups, chosen, criterion="max-eig"):
    """The best objective over every exchange of one chosen group for one outside (brute force)."""
    labels = np.unique(groups)
    out = [j for j in range(len(labels)) if j not in chosen]
    best = -np.inf
    for i in chosen:
        for j in out:
            js = [c for c in chosen if c != i] + [j]
            best = max(best, objective_on_support(A, B, np.flatnonzero(np.isin(groups, labels[js])), criterion=criterion))
    return best


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_group_swap_never_lowers_and_ends_at_a_swap_local_optimum(form, seed):
    rng = np.random.default_rng(20 + seed)
    A, B = _problem(form, 14, seed)
    groups = rng.integers(0, 7, 14)
    G = len(np.unique(groups))
    k = 3
    start = rng.choice(G, size=k, replace=False)  # a random start, usually not optimal
    res = _groups.group_swap_refine(A, B, groups, start)
    assert res.converged
    assert res.objective >= res.start_objective
    assert res.objective == pytest.approx(objective_on_support(A, B, res.support), rel=1e-12)
    assert _all_swaps_best(A, B, groups, list(res.groups)) <= res.objective * (1 + 1e-9)
    _, best = brute_force_groups(A, B, groups, k)
    assert res.objective <= best * (1 + 1e-12)


@pytest.mark.parametrize("form", FORMS)
def test_group_swap_reaches_the_optimum_where_one_swap_connects_every_union(form):
    """k = 1 and k = n_groups - 1: every union is one exchange from every other, so the 1-swap
    local optimum is the brute-force optimum, from any start."""
    rng = np.random.default_rng(7)
    A, B = _problem(form, 12, 7)
    groups = rng.integers(0, 5, 12)
    G = len(np.unique(groups))
    for k in (1, G - 1):
        codes, best = brute_force_groups(A, B, groups, k)
        # a start that is not the optimum: another single group, or the union without an optimal group
        start = np.setdiff1d(np.arange(G), codes)[:1] if k == 1 else np.delete(np.arange(G), codes[0])
        res = _groups.group_swap_refine(A, B, groups, start)
        assert res.n_swaps >= 1
        assert res.objective == pytest.approx(best, rel=1e-10)
        np.testing.assert_array_equal(res.groups, codes)


def test_group_swap_refines_a_greedy_union_and_checks_its_start():
    A, B = _problem("vector", 14, 3)
    groups = np.arange(14) // 2
    path = group_greedy_path(A, B, groups=groups)
    res = _groups.group_swap_refine(A, B, groups, path.groups_at(3))
    assert res.objective >= path.objective[2] * (1 - 1e-12)
    assert _groups.group_swap_refine(A, B, groups, path.groups_at(3), max_sweeps=0).n_swaps == 0
    with pytest.raises(ValueError, match="distinct group codes"):
        _groups.group_swap_refine(A, B, groups, [0, 0])
    with pytest.raises(ValueError, match="distinct group codes"):
        _groups.group_swap_refine(A, B, groups, [9])


# ---------------------------------------------------------------------------- beam over groups
@pytest.mark.parametrize("form", FORMS)
def test_group_beam_of_width_one_is_the_greedy_path(form):
    rng = np.random.default_rng(30)
    A, B = _problem(form, 14, 30)
    groups = rng.integers(0, 7, 14)
    path = group_greedy_path(A, B, groups=groups, max_k=4)
    res = _groups.group_beam_search(A, B, groups, 4, width=1)
    np.testing.assert_array_equal(res.groups, path.groups_at(4))
    np.testing.assert_allclose(res.objective_path, path.objective, rtol=1e-10)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("seed", [0, 1])
def test_group_beam_is_never_below_greedy_and_exhaustive_width_is_the_optimum(form, seed):
    from math import comb

    rng = np.random.default_rng(40 + seed)
    A, B = _problem(form, 13, seed)
    groups = rng.integers(0, 7, 13)
    G = len(np.unique(groups))
    k = 3
    path = group_greedy_path(A, B, groups=groups, max_k=k)
    narrow = _groups.group_beam_search(A, B, groups, k, width=2)
    assert np.all(narrow.objective_path >= path.objective * (1 - 1e-12))
    assert narrow.objective == pytest.approx(objective_on_support(A, B, narrow.support), rel=1e-12)
    wide = _groups.group_beam_search(A, B, groups, k, width=max(comb(G, t) for t in range(1, k + 1)))  # all kept
    codes, best = brute_force_groups(A, B, groups, k)
    assert wide.objective == pytest.approx(best, rel=1e-10)
    np.testing.assert_array_equal(wide.groups, codes)
    with pytest.raises(ValueError, match="width"):
        _groups.group_beam_search(A, B, groups, k, width=0)


# ---------------------------------------------------------------- additive objectives: block gains
def _additive_problem(seed):
    """A factor or a vector pair with unequal groups (the trace criterion adds up over features)."""
    rng = np.random.default_rng(seed)
    p = int(rng.integers(5, 14))
    G = int(rng.integers(2, p + 1))
    groups = np.concatenate([np.arange(G), rng.integers(0, G, p - G)])
    rng.shuffle(groups)
    X = rng.standard_normal((p + 3, p))
    B = X.T @ X / (p + 3) + 0.1 * np.eye(p)
    r = int(rng.integers(1, 4))
    A = rng.standard_normal(p) if r == 1 else rng.standard_normal((p, r))
    return A, B, groups, G, rng


@pytest.mark.parametrize("seed", range(12))
def test_additive_swaps_and_beams_match_their_stacked_oracle(seed):
    """With the trace criterion (or a vector) every candidate is valued from the union's block gains
    (one Cholesky per union); the stacked eigenproblem of each candidate union is the oracle: the
    same moves, unions and objectives."""
    A, B, groups, G, rng = _additive_problem(seed)
    k = int(rng.integers(1, G + 1))
    path = group_greedy_path(A, B, groups, criterion="trace", max_k=k)
    fast = _groups.group_swap_refine(A, B, groups, path.groups_at(k), criterion="trace")
    slow = _groups.group_swap_refine(A, B, groups, path.groups_at(k), criterion="trace", _fast=False)
    np.testing.assert_array_equal(fast.groups, slow.groups)
    assert fast.n_swaps == slow.n_swaps and fast.converged == slow.converged
    assert fast.objective == pytest.approx(slow.objective, rel=1e-10)
    # the local optimum is one: no exchange, valued from scratch, is better
    assert _all_swaps_best(A, B, groups, list(fast.groups), "trace") <= fast.objective * (1 + 1e-9)
    for width in (1, 2, 3):
        fb = _groups.group_beam_search(A, B, groups, k, width=width, criterion="trace")
        sb = _groups.group_beam_search(A, B, groups, k, width=width, criterion="trace", _fast=False)
        np.testing.assert_array_equal(fb.groups, sb.groups)
        np.testing.assert_allclose(fb.objective_path, sb.objective_path, rtol=1e-10)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_additive_exhaustive_beam_and_one_swap_sizes_are_the_brute_force_optimum(seed):
    from math import comb

    A, B, groups, G, _ = _additive_problem(100 + seed)
    for k in sorted({1, max(1, G - 1), min(2, G)}):
        codes, best = brute_force_groups(A, B, groups, k, criterion="trace")
        wide = _groups.group_beam_search(A, B, groups, k, width=max(comb(G, t) for t in range(1, k + 1)),
                                         criterion="trace")
        assert wide.objective == pytest.approx(best, rel=1e-10)
        if k in (1, G - 1):  # every union one exchange from every other: the local optimum is global
            start = np.arange(G)[:k] if not np.array_equal(np.arange(G)[:k], codes) else np.arange(G)[G - k:]
            res = _groups.group_swap_refine(A, B, groups, start, criterion="trace")
            assert res.objective == pytest.approx(best, rel=1e-10)


def test_additive_swaps_and_beams_with_the_identity_denominator():
    """``B = None`` (the identity) with a factor: the block gains read the identity's blocks."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((9, 2))
    groups = np.array([0, 1, 1, 2, 3, 3, 4, 4, 4])
    for k in (1, 2, 3):
        codes, best = brute_force_groups(A, None, groups, k, criterion="trace")
        start = np.arange(k) if not np.array_equal(np.arange(k), codes) else np.arange(5 - k, 5)
        fast = _groups.group_swap_refine(A, None, groups, start, criterion="trace")
        slow = _groups.group_swap_refine(A, None, groups, start, criterion="trace", _fast=False)
        np.testing.assert_array_equal(fast.groups, slow.groups)
        # with B = I the trace adds up over groups: the swaps reach the best union
        assert fast.objective == pytest.approx(best, rel=1e-12)
        assert _groups.group_beam_search(A, None, groups, k, width=1, criterion="trace").objective == \
            pytest.approx(best, rel=1e-12)


def test_group_beam_reads_a_given_greedy_path():
    """A caller's forward path (to k or further) is the beam's floor as the one it computes: the
    same result; a backward path or one that stops short is refused."""
    A, B, groups, G, rng = _additive_problem(7)
    k = max(1, G - 1)
    path = group_greedy_path(A, B, groups, criterion="trace")
    own = _groups.group_beam_search(A, B, groups, k, width=2, criterion="trace")
    given = _groups.group_beam_search(A, B, groups, k, width=2, criterion="trace", greedy=path)
    np.testing.assert_array_equal(given.groups, own.groups)
    np.testing.assert_array_equal(given.objective_path, own.objective_path)
    back = group_greedy_path(A, B, groups, criterion="trace", direction="backward")
    short = group_greedy_path(A, B, groups, criterion="trace", max_k=k - 1) if k > 1 else back
    for bad in (back, short):
        with pytest.raises(ValueError, match="forward group path"):
            _groups.group_beam_search(A, B, groups, k, width=2, criterion="trace", greedy=bad)
