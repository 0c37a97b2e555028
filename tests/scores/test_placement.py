"""The n-form greedy placement against the p-form kernel, brute force and a brute-force constrained greedy."""

from itertools import combinations

import numpy as np
import pytest

from pixsel.scores._column_subset import greedy_column_subset
from pixsel.scores._placement import greedy_placement, placement_constraints, refine_placement


def _kept_mass(A, S, c=1):
    """Textbook ``||P_S A||_F^2`` by least squares on the columns of the chosen pixels."""
    cols = [j * c + ch for j in S for ch in range(c)]
    if not cols:
        return 0.0
    C = A[:, cols]
    coef, *_ = np.linalg.lstsq(C, A, rcond=None)
    return float(np.sum((C @ coef) ** 2))


def _path(A, k, cons, *, per_cost=False, keep_z=False, block=1, gram=None, shrinkage=0.0, prior=None):
    """One greedy path from its own set-up (as each rule's path was run before they shared one)."""
    from pixsel.scores._placement import _greedy, _Start

    start = _Start(A, k, block, cons, gram, shrinkage, prior, None, keep_z=keep_z)
    return _greedy(start, k, None, keep_z=keep_z, per_cost=per_cost)


def _data(seed, n, p, rank=None):
    rng = np.random.default_rng(seed)
    if rank is None:
        A = rng.standard_normal((n, p)) @ np.diag(rng.uniform(0.2, 2.0, p))
    else:
        A = rng.standard_normal((n, rank)) @ rng.standard_normal((rank, p)) + 0.05 * rng.standard_normal((n, p))
    return A - A.mean(axis=0)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("shape", [(20, 60), (60, 15), (8, 30)])
def test_same_supports_and_objective_as_the_p_form_kernel(seed, shape):
    n, p = shape
    A = _data(seed, n, p, rank=6 if seed % 2 else None)
    k = min(p, n - 2, 12)  # with one residual dimension left, every column ties: no unique answer
    o1, f1 = greedy_column_subset(A.T @ A, k)
    o2, f2 = greedy_placement(A, k)
    assert o2.tolist() == o1.tolist()
    np.testing.assert_allclose(f2, f1, rtol=1e-9, atol=1e-9 * f1[-1])


@pytest.mark.parametrize("seed", range(6))
def test_greedy_takes_the_best_augmentation_and_brute_force_at_small_k(seed):
    """p = 10: at every step the kernel's pixel is the brute-force argmax of the kept mass, the
    objective is the textbook projection mass; the greedy never beats the best k-subset (k <= 3)
    and equals it at k = 1."""
    A = _data(seed, 7, 10)
    for k in (1, 2, 3):
        order, obj = greedy_placement(A, k)
        chosen = []
        for t, i in enumerate(order):
            mass = {j: _kept_mass(A, chosen + [j]) for j in range(10) if j not in chosen}
            assert mass[int(i)] == pytest.approx(max(mass.values()), rel=1e-9)
            chosen.append(int(i))
            assert obj[t] == pytest.approx(_kept_mass(A, chosen), rel=1e-9)
        best = max(_kept_mass(A, S) for S in combinations(range(10), k))
        assert obj[-1] <= best * (1 + 1e-9)
        if k == 1:
            assert obj[-1] == pytest.approx(best, rel=1e-12)


def test_columns_in_the_span_are_taken_last_by_lowest_index():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((10, 4)) @ rng.standard_normal((4, 8))
    A -= A.mean(axis=0)  # rank 4
    order, obj = greedy_placement(A, 8)
    o1, f1 = greedy_column_subset(A.T @ A, 8)
    assert order[:3].tolist() == o1[:3].tolist()  # the 4th step is a tie (one residual direction left)
    assert sorted(order.tolist()) == list(range(8))
    assert order[4:].tolist() == sorted(order[4:].tolist())  # no gain: lowest index first
    np.testing.assert_allclose(obj[3:], np.sum(A * A), rtol=1e-9)


@pytest.mark.parametrize("n", [9, 40])  # fewer images than columns, and more (the Gram form)
@pytest.mark.parametrize("seed", range(3))
def test_colour_pixels_gain_all_their_channels(seed, n):
    """block = 3: each step takes the pixel whose three columns together keep the most (brute force)."""
    A = _data(seed, n, 18)  # 6 pixels x 3 channels
    order, obj = greedy_placement(A, 4, block=3)
    chosen = []
    for t, i in enumerate(order):
        mass = {j: _kept_mass(A, chosen + [j], 3) for j in range(6) if j not in chosen}
        assert mass[int(i)] == pytest.approx(max(mass.values()), rel=1e-8)
        chosen.append(int(i))
        assert obj[t] == pytest.approx(_kept_mass(A, chosen, 3), rel=1e-8)


def test_block_of_one_equals_the_scalar_path_and_input_is_untouched():
    A = _data(0, 12, 30)
    before = A.copy()
    o, f = greedy_placement(A, 10, block=1)
    assert np.array_equal(A, before)
    assert o.tolist() == greedy_column_subset(A.T @ A, 10)[0].tolist()


# --- constraints: a brute-force constrained greedy as the oracle

def _oracle(A, k, *, shape, always=(), never=(), regions=None, caps=None, floors=None, dmin=0.0, costs=None,
            budget=np.inf, per_cost=False):
    """Step by step: the admissible pixels by direct checks, the best by brute-force kept mass
    (``per_cost``: by the gain of kept mass divided by the pixel's cost).

    A pixel is admissible when the constraints allow it and, after it, a packing of the pixels
    still to come (first the pixels the regions lack below their minima, region by region in
    label order, then the rest; cheapest first with costs, else in raster order) places them all
    within budget and meets every minimum.
    """
    caps = caps or {}
    floors = floors or {}
    h, w = shape
    p = h * w
    pos = np.array([(i // w, i % w) for i in range(p)], dtype=float)
    pack_order = sorted(range(p), key=lambda i: (costs[i], i)) if costs is not None else list(range(p))

    def free(j, chosen):
        if j in chosen or j in never:
            return False
        if regions is not None and sum(regions[i] == regions[j] for i in chosen) >= caps.get(regions[j], np.inf):
            return False
        return all(np.linalg.norm(pos[j] - pos[i]) >= dmin for i in chosen)

    def completes(chosen, rest):
        chosen = list(chosen)
        for r in sorted(floors):
            while sum(regions[i] == r for i in chosen) < floors[r] and rest > 0:
                nxt = next((j for j in pack_order if regions[j] == r and free(j, chosen)), None)
                if nxt is None:
                    return False
                chosen.append(nxt)
                rest -= 1
        if any(sum(regions[i] == r for i in chosen) < m for r, m in floors.items()):
            return False
        for _ in range(rest):
            nxt = next((j for j in pack_order if free(j, chosen)), None)
            if nxt is None:
                return False
            chosen.append(nxt)
        return costs is None or sum(costs[i] for i in chosen) <= budget * (1 + 1e-12)

    chosen = []
    for t in range(k):
        if t < len(always):
            chosen.append(always[t])
            continue
        cand = [j for j in range(p) if free(j, chosen) and completes(chosen + [j], k - t - 1)]
        mass = {j: _kept_mass(A, chosen + [j]) for j in cand}
        if per_cost:
            base = _kept_mass(A, chosen)
            mass = {j: (m - base) / costs[j] for j, m in mass.items()}
        best = max(mass.values())
        chosen.append(min(j for j in cand if mass[j] >= best - 1e-9 * abs(best)))
    return chosen


def _check_constraints_hold(order, *, shape, always=(), never=(), regions=None, caps=None, floors=None, dmin=0.0,
                            costs=None, budget=np.inf):
    h, w = shape
    order = [int(i) for i in order]
    assert len(set(order)) == len(order)
    assert order[: len(always)] == list(always)
    assert not set(order) & set(never)
    if regions is not None:
        for r in set(regions.tolist()):
            assert (floors or {}).get(r, 0) <= sum(regions[i] == r for i in order) <= (caps or {}).get(r, np.inf)
    for a, b in combinations(order, 2):
        assert np.hypot(a // w - b // w, a % w - b % w) >= dmin
    if costs is not None:
        assert sum(costs[i] for i in order) <= budget * (1 + 1e-12)


CASES = [
    dict(always=(7, 2)),
    dict(dmin=2.0),
    dict(dmin=1.2, costs="ramp", budget=12.0),
    dict(never=(0, 1, 5, 9)),
    dict(regions="halves", caps={0: 1, 1: 3}),
    dict(dmin=1.5),
    dict(dmin=2.0, always=(0,)),
    dict(costs="ramp", budget=10.0),
    dict(costs="ramp", budget=14.0, regions="halves", caps={0: 2, 1: 2}, never=(3,)),
    dict(always=(1,), never=(11,), dmin=1.2, regions="halves", caps={0: 2, 1: 3}),
    dict(regions="thirds", floors={0: 1, 1: 1, 2: 1}),
    dict(regions="thirds", floors={2: 3}),
    dict(regions="halves", floors={0: 2}, caps={0: 2, 1: 2}),  # exactly two per half
    dict(regions="thirds", floors={1: 2}, dmin=1.5),
    dict(regions="thirds", floors={0: 1, 2: 2}, costs="ramp", budget=11.0, always=(11,)),
    dict(regions="halves", floors={1: 3}, caps={0: 1}, never=(3, 7), dmin=1.0, always=(0,)),
]


def _resolve(case, p, shape, seed):
    case = dict(case)
    rng = np.random.default_rng(seed)
    if case.get("regions") == "halves":
        case["regions"] = (np.arange(p) % shape[1] >= shape[1] // 2).astype(int)
    elif case.get("regions") == "thirds":
        case["regions"] = np.arange(p) % shape[1] * 3 // shape[1]
    if case.get("costs") == "ramp":
        case["costs"] = rng.uniform(0.5, 4.0, p)
    return case


def _case_constraints(kw, p, k, shape):
    """The :func:`placement_constraints` of a resolved oracle case (``_resolve``'s keywords)."""
    return placement_constraints(p, k, image_shape=shape, always_select=list(kw.get("always", ())) or None,
                                 never_select=list(kw.get("never", ())) or None, regions=kw.get("regions"),
                                 max_per_region=kw.get("caps"), min_per_region=kw.get("floors"),
                                 min_distance=kw.get("dmin"), costs=kw.get("costs"), budget=kw.get("budget"))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_constrained_greedy_equals_the_brute_force_constrained_greedy(case, seed):
    shape = (3, 4)
    p = 12
    A = _data(seed, 8, p)
    kw = _resolve(CASES[case], p, shape, seed)
    k = 4
    cons = _case_constraints(kw, p, k, shape)
    order, obj = greedy_placement(A, k, constraints=cons)
    assert order.tolist() == _oracle(A, k, shape=shape, **kw)
    _check_constraints_hold(order, shape=shape, **kw)
    assert obj[-1] == pytest.approx(_kept_mass(A, order.tolist()), rel=1e-9)


BUDGETED = [i for i, case in enumerate(CASES) if "budget" in case]


@pytest.mark.parametrize("seed", range(12))  # the cost-ratio path is returned in three of these draws
@pytest.mark.parametrize("case", BUDGETED)
def test_budgeted_greedy_is_the_better_of_the_brute_force_greedies_by_gain_and_by_gain_per_cost(case, seed):
    """Under a budget each rule's path is its brute-force constrained greedy (the cost-ratio one
    ranking the same admissible pixels by gain / cost), and the path returned is the one of more
    kept mass (the plain one on a tie, or when no ``k`` admissible pixels exceed the budget)."""
    shape, p, k = (3, 4), 12, 4
    A = _data(seed, 8, p)
    kw = _resolve(CASES[case], p, shape, seed)
    cons = _case_constraints(kw, p, k, shape)
    plain = _oracle(A, k, shape=shape, **kw)
    ratio = _oracle(A, k, shape=shape, per_cost=True, **kw)
    assert _path(A, k, cons).order.tolist() == plain
    run = _path(A, k, cons, per_cost=True)
    assert run.order.tolist() == ratio
    _check_constraints_hold(ratio, shape=shape, **kw)
    assert run.total == pytest.approx(_kept_mass(A, ratio), rel=1e-9)
    pool = np.delete(kw["costs"], list(kw.get("never", ())))
    binds = np.sort(pool)[-k:].sum() > kw["budget"]
    better = ratio if binds and _kept_mass(A, ratio) > _kept_mass(A, plain) * (1 + 1e-9) else plain
    order, obj = greedy_placement(A, k, constraints=cons)
    assert order.tolist() == better
    assert obj[-1] == pytest.approx(_kept_mass(A, better), rel=1e-9)


def _independent(gains, n=30, seed=0):
    """Centred data whose columns are orthogonal with squared norms ``gains`` (the kept mass is additive)."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, len(gains))) - rng.standard_normal((n, 1)))
    X = Q - Q.mean(axis=0)
    X /= np.linalg.norm(X, axis=0)
    X = np.linalg.qr(X)[0]  # orthonormal and centred (the columns span a subspace orthogonal to ones)
    return X * np.sqrt(np.asarray(gains, dtype=float))


def test_a_costly_first_pixel_that_strands_the_plain_greedy_is_beaten_by_gain_per_cost():
    """Pixel 0 keeps 10 and costs 5, pixels 1 and 2 keep 8 and cost 3, pixels 3 and 4 keep 0.1 and
    0.05, cost 1; k = 2 within a budget of 6. By gain the greedy takes 0 and must then take a pixel of
    cost 1 (10.1), from which no single swap within the budget gains; by gain per cost it takes 1
    and 2 (16), the best pair (brute force)."""
    gains, costs = [10.0, 8.0, 8.0, 0.1, 0.05], np.array([5.0, 3.0, 3.0, 1.0, 1.0])
    A = _independent(gains)
    cons = placement_constraints(5, 2, costs=costs, budget=6.0)
    best = max((S for S in combinations(range(5), 2) if costs[list(S)].sum() <= 6.0),
               key=lambda S: _kept_mass(A, list(S)))
    order, obj = greedy_placement(A, 2, constraints=cons)
    assert sorted(order.tolist()) == sorted(best) == [1, 2] and obj[-1] == pytest.approx(16.0, rel=1e-9)
    res = refine_placement(A, 2, constraints=cons)
    assert res.per_cost and sorted(res.support.tolist()) == [1, 2]
    assert res.support_objective == pytest.approx(16.0, rel=1e-9)
    from pixsel.scores._placement import _swaps

    plain = _path(A, 2, cons, keep_z=True)  # the plain path's swaps stay at 10.1
    support, value, _, converged = _swaps(plain, 100)
    assert sorted(support.tolist()) == [0, 3] and value == pytest.approx(10.1, rel=1e-9) and converged
    # without a budget, or with one that no two pixels exceed, the rule is not used: the plain greedy
    for budget in (None, 8.0):
        res = refine_placement(A, 2, constraints=placement_constraints(5, 2, costs=costs, budget=budget))
        assert sorted(res.support.tolist()) == [0, 1] and not res.per_cost
    # one just below the two costliest pixels' 8 binds: the plain path is stranded again
    res = refine_placement(A, 2, constraints=placement_constraints(5, 2, costs=costs, budget=7.9))
    assert sorted(res.support.tolist()) == [1, 2] and res.per_cost


def test_pixels_of_no_cost_rank_first_by_gain_per_cost():
    """A free pixel has an unbounded gain per cost: the cost-ratio path takes the free ones first,
    the better of them first."""
    A = _independent([1.0, 2.0, 12.0, 5.0])
    costs = np.array([0.0, 0.0, 2.0, 1.0])
    cons = placement_constraints(4, 3, costs=costs, budget=3.0)
    assert _path(A, 3, cons, per_cost=True).order.tolist() == [1, 0, 2]
    assert _path(A, 3, cons).order.tolist() == [2, 3, 1]


@pytest.mark.parametrize("seed", range(40))
def test_constraints_hold_in_every_output(seed):
    rng = np.random.default_rng(100 + seed)
    shape = (6, 7)
    p = 42
    A = _data(seed, 15, p, rank=5)
    k = int(rng.integers(3, 9))
    regions = rng.integers(0, 3, p)
    caps = {r: int(rng.integers(2, 5)) for r in range(3)}
    costs = rng.uniform(0.1, 2.0, p)
    budget = float(np.sort(costs)[:k].sum() * rng.uniform(1.1, 3.0))
    dmin = float(rng.choice([0.0, 1.0, 1.5, 2.0]))
    never = rng.choice(p, 5, replace=False).tolist()
    always = [int(i) for i in rng.choice([j for j in range(p) if j not in never], 1)]
    kw = dict(always=tuple(always), never=tuple(never), regions=regions, caps=caps, dmin=dmin, costs=costs,
              budget=budget)
    try:
        cons = placement_constraints(p, k, image_shape=shape, always_select=always, never_select=never,
                                     regions=regions, max_per_region=caps, min_distance=dmin, costs=costs,
                                     budget=budget)
    except ValueError as err:  # an infeasible draw is refused with the fix, before any work
        assert "lower" in str(err) or "raise" in str(err)
        return
    order, _ = greedy_placement(A, k, constraints=cons)  # once feasible, the greedy always completes
    assert len(order) == k
    _check_constraints_hold(order, shape=shape, **kw)


def test_budget_alone_always_completes_and_is_exact():
    A = _data(1, 10, 20)
    costs = np.r_[np.full(10, 5.0), np.full(10, 1.0)]
    cons = placement_constraints(20, 6, costs=costs, budget=10.0)  # at most one expensive pixel
    order, _ = greedy_placement(A, 6, constraints=cons)
    assert costs[order].sum() <= 10.0 and (costs[order] == 5.0).sum() <= 1


# --- errors before any work, naming the fix

@pytest.mark.parametrize("kw, match", [
    (dict(always_select=[0, 1, 2, 3]), "more than k=3"),
    (dict(regions=np.zeros(16, int), max_per_region=2), "allow 2 pixels in all, fewer than k=3"),
    (dict(regions=np.arange(16).reshape(4, 4) % 2, max_per_region={0: 1, 1: 1}), "raise max_per_region"),
    (dict(min_distance=4.0), "min_distance=4 leaves room for only 2 of the k=3"),
    (dict(regions=np.zeros((3, 5), int), max_per_region=1), r"shape \(3, 5\); it must have shape \(4, 4\)"),
    (dict(costs=np.ones(16), budget=2.5), "raise the budget to at least 3"),
    (dict(always_select=[0, 1], min_distance=2.0), "closer than min_distance=2"),
    (dict(always_select=[0], never_select=[0]), "both always_select and never_select"),
    (dict(max_per_region=2), "without regions"),
    (dict(budget=3.0), "without costs"),
    (dict(never_select=np.arange(14)), "leaves 2 pixels"),
    (dict(regions=np.zeros(16, int), max_per_region={5: 1}), "not in regions"),
])
def test_infeasible_constraints_raise_before_work(kw, match):
    with pytest.raises(ValueError, match=match):
        placement_constraints(16, 3, image_shape=(4, 4), **kw)


def test_min_distance_needs_the_image_shape():
    with pytest.raises(ValueError, match="needs the image shape"):
        placement_constraints(16, 3, min_distance=2.0)


def test_more_images_than_pixels_with_a_singular_gram_matrix():
    """n > p, constant and duplicated pixels: the pivoted Cholesky factor has rank < p; same greedy."""
    rng = np.random.default_rng(7)
    A = rng.standard_normal((40, 20))
    A[:, [3, 11, 17]] = 0.0  # constant pixels, centred
    A[:, 5] = A[:, 2]  # a duplicate
    A -= A.mean(axis=0)
    o1, f1 = greedy_column_subset(A.T @ A, 12)
    o2, f2 = greedy_placement(A, 12)
    assert o2.tolist() == o1.tolist()
    np.testing.assert_allclose(f2, f1, rtol=1e-9)
    assert not {3, 11, 17} & set(o2.tolist())


# --- region minima: exact oracles (no minimum distance: the completion check is exact)

def _valid(S, *, p, regions, caps, floors, never=(), costs=None, budget=np.inf):
    if set(S) & set(never):
        return False
    for r in set(regions.tolist()):
        m = sum(regions[i] == r for i in S)
        if m > caps.get(r, np.inf) or m < floors.get(r, 0):
            return False
    return costs is None or sum(costs[i] for i in S) <= budget * (1 + 1e-12)


def _exact_oracle(A, k, *, p, always=(), **cons):
    """The constrained greedy with admissibility by brute force: pixel ``j`` is admissible when some
    set of the pixels still to come completes the placement (every constraint met)."""
    chosen = list(always)
    while len(chosen) < k:
        rest = k - len(chosen) - 1
        cand = []
        for j in range(p):
            if j in chosen:
                continue
            others = [i for i in range(p) if i not in chosen and i != j]
            if any(_valid(chosen + [j, *T], p=p, **cons) for T in combinations(others, rest)):
                cand.append(j)
        mass = {j: _kept_mass(A, chosen + [j]) for j in cand}
        best = max(mass.values())
        chosen.append(min(j for j in cand if mass[j] >= best * (1 - 1e-9)))
    return chosen


def _draw_regions(seed, p):
    rng = np.random.default_rng(500 + seed)
    regions = rng.permutation(np.arange(p) % 3)
    floors = {r: int(rng.integers(0, 3)) for r in range(3)}
    caps = {r: int(rng.integers(floors[r], 4)) for r in range(3) if rng.random() < 0.6}
    costs = rng.uniform(0.5, 3.0, p) if seed % 2 else None
    budget = float(np.sort(costs)[:5].sum() * rng.uniform(1.0, 1.6)) if costs is not None else np.inf
    never = tuple(int(i) for i in rng.choice(p, 2, replace=False))
    always = tuple(int(i) for i in rng.choice([j for j in range(p) if j not in never], int(rng.integers(0, 2)),
                                              replace=False))
    return dict(regions=regions, caps=caps, floors=floors, costs=costs, budget=budget, never=never), always


@pytest.mark.parametrize("seed", range(24))
def test_region_minima_greedy_equals_the_brute_force_greedy(seed):
    """Regions with minima (and maxima, never_select, installed sensors, costs and a budget): the
    kernel's pixel at every step is the best pixel that some completion admits (brute force), and
    the constraints are refused exactly when no k-subset meets them all."""
    p, k = 10, 5
    A = _data(seed, 9, p)
    cons, always = _draw_regions(seed, p)
    feasible = any(_valid(list(always) + list(T), p=p, **cons)
                   for T in combinations([i for i in range(p) if i not in always], k - len(always)))
    kw = dict(always_select=list(always) or None, never_select=list(cons["never"]), regions=cons["regions"],
              max_per_region=cons["caps"] or None, min_per_region=cons["floors"], costs=cons["costs"],
              budget=None if cons["costs"] is None else cons["budget"])
    if not feasible:
        with pytest.raises(ValueError, match="raise|lower"):
            placement_constraints(p, k, **kw)
        return
    order, obj = greedy_placement(A, k, constraints=placement_constraints(p, k, **kw))
    assert order.tolist() == _exact_oracle(A, k, p=p, always=always, **cons)
    assert _valid(order.tolist(), p=p, **cons) and order[: len(always)].tolist() == list(always)
    assert obj[-1] == pytest.approx(_kept_mass(A, order.tolist()), rel=1e-9)


def test_the_minima_change_the_answer():
    """Not a vacuous constraint: the unconstrained greedy leaves a region short; the constrained one fills
    it exactly, at the last steps it can, and keeps the unconstrained prefix until then."""
    A = _data(2, 12, 16)
    A[:, 12:] *= 0.05  # the last four pixels carry little: the greedy avoids them
    free, _ = greedy_placement(A, 5)
    regions = (np.arange(16) >= 12).astype(int)
    assert not set(free.tolist()) & set(range(12, 16))
    order, _ = greedy_placement(A, 5, constraints=placement_constraints(16, 5, regions=regions,
                                                                        min_per_region={1: 2}))
    assert order[:3].tolist() == free[:3].tolist() and set(order[3:].tolist()) <= set(range(12, 16))


@pytest.mark.parametrize("seed", range(30))
def test_exactly_n_per_region_holds_in_every_output(seed):
    """min_per_region = max_per_region = n, with a minimum distance and a budget: every feasible draw
    gives exactly n pixels in every region, the others are refused with the fix."""
    rng = np.random.default_rng(900 + seed)
    shape = (6, 6)
    p = 36
    A = _data(seed, 14, p, rank=4)
    regions = (np.arange(p) // 6 >= 3) * 2 + (np.arange(p) % 6 >= 3)  # four quadrants
    n = int(rng.integers(1, 3))
    k = 4 * n
    costs = rng.uniform(0.1, 2.0, p)
    budget = float(np.sort(costs)[:k].sum() * rng.uniform(1.0, 2.5))
    dmin = float(rng.choice([0.0, 1.0, 1.5, 2.0]))
    try:
        cons = placement_constraints(p, k, image_shape=shape, regions=regions, min_per_region=n, max_per_region=n,
                                     min_distance=dmin, costs=costs, budget=budget)
    except ValueError as err:
        assert "lower" in str(err) or "raise" in str(err)
        return
    order, _ = greedy_placement(A, k, constraints=cons)
    assert np.bincount(regions[order], minlength=4).tolist() == [n] * 4
    _check_constraints_hold(order, shape=shape, regions=regions, caps={r: n for r in range(4)},
                            floors={r: n for r in range(4)}, dmin=dmin, costs=costs, budget=budget)


@pytest.mark.parametrize("kw, match", [
    (dict(regions=np.arange(16) % 2, min_per_region=2), "need 4 pixels in all .* more than k=3: raise k to 4"),
    (dict(regions=np.arange(16) % 2, min_per_region={0: 2}, always_select=[1, 3]),
     r"need 4 pixels in all \(installed"),
    (dict(regions=np.arange(16) % 2, min_per_region={0: 2}, max_per_region={0: 1}),
     "allows at most 1 .*lower min_per_region"),
    (dict(regions=(np.arange(16) < 2).astype(int), min_per_region={1: 2}, never_select=[0]), "has only 1"),
    (dict(regions=np.arange(16) % 2, min_per_region={7: 1}), "min_per_region names region 7"),
    (dict(min_per_region=1), "min_per_region is given without regions"),
    (dict(regions=np.arange(16) % 2), "without max_per_region or min_per_region"),
    (dict(regions=np.arange(16) % 2, min_per_region=-1), "min_per_region must be an int >= 0"),
    (dict(regions=(np.arange(16) < 4).astype(int), min_per_region={1: 2}, min_distance=4.0),
     "min_distance=4 leaves 1 of the pixels the regions' minima"),
])
def test_infeasible_region_minima_raise_before_work(kw, match):
    with pytest.raises(ValueError, match=match):
        placement_constraints(16, 3, image_shape=(4, 4), **kw)


@pytest.mark.parametrize("shape", [(40, 12), (12, 40)])
def test_a_given_gram_matrix_gives_the_same_greedy(shape):
    """The smaller Gram matrix passed in (A^T A with n > p, A A^T otherwise) is the one the kernel computes."""
    A = _data(3, *shape)
    o1, f1 = greedy_placement(A, 8)
    G = A.T @ A if shape[0] > shape[1] else A @ A.T
    o2, f2 = greedy_placement(A, 8, gram=G)
    assert o2.tolist() == o1.tolist()
    np.testing.assert_allclose(f2, f1, rtol=1e-12)




# --- swaps after the greedy (refine_placement): brute force over all swaps and all k-subsets

def _swap_neighbours(S, p):
    for m in range(len(S)):
        for j in range(p):
            if j not in S:
                T = list(S)
                T[m] = j
                yield T


@pytest.mark.parametrize("shape", [(7, 10), (30, 9)])  # the n-form and the Gram form
def test_swaps_reach_a_local_optimum_at_or_above_the_greedy_and_often_the_optimum(shape):
    n, p = shape
    hits = 0
    for seed in range(8):
        A = _data(seed, n, p, rank=None if seed % 2 else 5)
        k = 3 + seed % 2
        before = A.copy()
        res = refine_placement(A, k)
        assert np.array_equal(A, before)
        order, obj = greedy_placement(A, k)
        assert res.order.tolist() == order.tolist()
        np.testing.assert_allclose(res.objective, obj, rtol=1e-12)
        assert res.converged
        assert sorted(set(res.support.tolist())) == sorted(res.support.tolist())
        f = _kept_mass(A, res.support.tolist())
        assert res.support_objective == pytest.approx(f, rel=1e-9)  # the closed form is the textbook mass
        assert f >= obj[-1] * (1 - 1e-12)
        assert res.n_swaps == 0 or f > obj[-1]
        for T in _swap_neighbours(res.support.tolist(), p):  # no single swap improves
            assert _kept_mass(A, T) <= f * (1 + 1e-9)
        best = max(_kept_mass(A, list(S)) for S in combinations(range(p), k))
        assert f <= best * (1 + 1e-9)
        hits += f >= best * (1 - 1e-9)
    assert hits >= 6  # a 1-swap local optimum is usually the global one at these sizes


@pytest.mark.parametrize("n", [8, 40])
def test_swaps_with_a_given_gram_matrix(n):
    A = _data(4, n, 12)
    G = A.T @ A if n > 12 else A @ A.T
    Gc = G.copy()
    full = refine_placement(A, 4)
    given = refine_placement(A, 4, gram=G)
    assert np.array_equal(G, Gc)
    assert given.support.tolist() == full.support.tolist()
    assert given.support_objective == pytest.approx(full.support_objective, rel=1e-10)


def test_max_swaps_stops_the_search():
    A = _data(6, 8, 14)
    full = refine_placement(A, 5)
    assert full.n_swaps == 3 and full.converged  # this draw takes three swaps
    none = refine_placement(A, 5, max_swaps=0)
    assert none.support.tolist() == none.order.tolist() and none.n_swaps == 0 and not none.converged
    one = refine_placement(A, 5, max_swaps=1)
    assert one.n_swaps == 1 and not one.converged
    assert none.support_objective < one.support_objective < full.support_objective
    assert one.support_objective == pytest.approx(_kept_mass(A, one.support.tolist()), rel=1e-9)
    with pytest.raises(ValueError, match="max_swaps must be an int >= 0"):
        refine_placement(A, 4, max_swaps=-1)


def test_swaps_do_not_run_on_colour_pixels():
    A = _data(2, 20, 18)
    res = refine_placement(A, 3, block=3)
    assert res.support.tolist() == res.order.tolist() and res.n_swaps == 0 and not res.converged


def _admissible(T, *, shape, **kw):
    try:
        _check_constraints_hold(T, shape=shape, **kw)
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_swaps_keep_every_constraint_and_no_admissible_swap_improves(case, seed):
    """The constrained cases of the greedy's oracle: the refined pixels meet every constraint
    (checked directly), keep the installed sensors first, and no admissible single swap (found by
    brute force) raises the kept mass."""
    shape, p, k = (3, 4), 12, 4
    A = _data(seed, 8, p)
    kw = _resolve(CASES[case], p, shape, seed)
    cons = _case_constraints(kw, p, k, shape)
    res = refine_placement(A, k, constraints=cons)
    S = res.support.tolist()
    _check_constraints_hold(S, shape=shape, **kw)
    f = _kept_mass(A, S)
    assert res.support_objective == pytest.approx(f, rel=1e-9)
    assert f >= res.objective[-1] * (1 - 1e-12)
    assert res.converged
    for T in _swap_neighbours(S, p):
        if _admissible(T, shape=shape, **kw):
            assert _kept_mass(A, T) <= f * (1 + 1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_swaps_keep_random_constraints(seed):
    rng = np.random.default_rng(300 + seed)
    shape, p = (6, 7), 42
    A = _data(seed, 15 if seed % 2 else 60, p, rank=5 if seed % 3 else None)
    k = int(rng.integers(3, 9))
    regions = rng.integers(0, 3, p)
    caps = {r: int(rng.integers(2, 5)) for r in range(3)}
    floors = {0: 1} if seed % 4 == 0 else None
    costs = rng.uniform(0.1, 2.0, p)
    budget = float(np.sort(costs)[:k].sum() * rng.uniform(1.1, 3.0))
    dmin = float(rng.choice([0.0, 1.0, 1.5, 2.0]))
    never = rng.choice(p, 5, replace=False).tolist()
    always = [int(i) for i in rng.choice([j for j in range(p) if j not in never], 1)]
    kw = dict(always=tuple(always), never=tuple(never), regions=regions, caps=caps, floors=floors, dmin=dmin,
              costs=costs, budget=budget)
    try:
        cons = placement_constraints(p, k, image_shape=shape, always_select=always, never_select=never,
                                     regions=regions, max_per_region=caps, min_per_region=floors, min_distance=dmin,
                                     costs=costs, budget=budget)
    except ValueError:
        return
    res = refine_placement(A, k, constraints=cons)
    _check_constraints_hold(res.support, shape=shape, **kw)
    assert res.support_objective == pytest.approx(_kept_mass(A, res.support.tolist()), rel=1e-8)
    assert res.support_objective >= res.objective[-1] * (1 - 1e-12)


def test_swaps_leave_installed_sensors_alone():
    A = _data(5, 9, 14)
    cons = placement_constraints(14, 3, always_select=[4, 0, 9])
    res = refine_placement(A, 3, constraints=cons)
    assert res.support.tolist() == [4, 0, 9] and res.n_swaps == 0 and res.converged
    cons = placement_constraints(14, 5, always_select=[4, 0])
    res = refine_placement(A, 5, constraints=cons)
    assert res.support[:2].tolist() == [4, 0]


def _textbook_swaps(A, S, admissible=lambda T: True, max_swaps=100, rtol=1e-9):
    """The search of refine_placement by brute force: the placed pixels visited in turn, each
    replaced by the admissible pixel of largest kept mass (lowest index on ties, by textbook
    least squares) when that raises the mass, until ``k`` visits in a row change nothing."""
    S, p = list(S), A.shape[1]
    f, n_swaps, idle, m = _kept_mass(A, S), 0, 0, 0
    while idle < len(S):
        cand = [T for T in (S[:m] + [j] + S[m + 1:] for j in range(p) if j not in S) if admissible(T)]
        mass = [_kept_mass(A, T) for T in cand]
        if cand and max(mass) - f > rtol * f:
            if n_swaps == max_swaps:
                return S, f, n_swaps, False
            S, f = cand[int(np.argmax(mass))], max(mass)
            n_swaps, idle = n_swaps + 1, -1
        idle, m = idle + 1, (m + 1) % len(S)
    return S, f, n_swaps, True


@pytest.mark.parametrize("shape", [(7, 12), (40, 10)])  # the n-form and the Gram form
@pytest.mark.parametrize("seed", [51, 53, 57, 58])  # draws that take 1 to 7 swaps in each form
def test_swaps_take_the_moves_of_the_textbook_search(shape, seed):
    """Every swap, in order, is the one the brute-force search takes from the same greedy path:
    the closed-form values and the updated state pick the same pixel at every visit."""
    n, p = shape
    A = _data(seed, n, p, rank=4)
    k = 4 + seed % 2
    for max_swaps in (100, 2):
        res = refine_placement(A, k, max_swaps=max_swaps)
        assert res.n_swaps >= 1
        S, f, n_swaps, converged = _textbook_swaps(A, res.order.tolist(), max_swaps=max_swaps)
        assert res.support.tolist() == S
        assert (res.n_swaps, res.converged) == (n_swaps, converged)
        assert res.support_objective == pytest.approx(f, rel=1e-9)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_constrained_swaps_take_the_moves_of_the_textbook_search(case):
    """The same under every constrained case (two low-rank draws each: most of them swap)."""
    shape, p, k = (3, 4), 12, 4
    kw = _resolve(CASES[case], p, shape, case)
    cons = _case_constraints(kw, p, k, shape)
    for seed in (case, case + 100):
        A = _data(seed, 8, p, rank=4)
        res = refine_placement(A, k, constraints=cons)
        S, f, n_swaps, _ = _textbook_swaps(A, res.order.tolist(), lambda T: _admissible(T, shape=shape, **kw))
        assert res.support.tolist() == S and res.n_swaps == n_swaps
        assert res.support_objective == pytest.approx(f, rel=1e-9)


@pytest.mark.parametrize("n", [9, 50])  # the n-form and the Gram form
def test_swap_state_updates_match_the_state_recomputed_from_the_factors(n, monkeypatch):
    """Oracle for the updated state: after each swap (no refresh), ``Y = F[S]^{-1}``, ``Ht = Y^T F^T``,
    ``Zt = Y^T F^T E`` (``E x`` checked against the dense ``G - F F^T``), the last row of ``K`` and
    ``F^T F``."""
    from pixsel.scores import _placement as P

    monkeypatch.setattr(P, "_REFRESH", 10 ** 9)
    p, k = 16, 5
    A = _data(6, n, p, rank=4)
    G = A.T @ A
    run = _path(A, k, None, keep_z=True)
    s = P._SwapSearch(run)
    assert s.fresh_enough()
    F = s.basis.F[:, :k]
    K0 = F.T @ (G - F @ F.T)
    np.testing.assert_allclose(s.Zt, s.Y.T @ K0, atol=1e-9 * np.abs(K0).max())  # K from the greedy's products
    x = np.random.default_rng(0).standard_normal(p)
    np.testing.assert_allclose(s.basis.residual_apply(x), (G - F @ F.T) @ x, rtol=1e-9, atol=1e-9 * np.abs(G).max())
    taken, m, idle = 0, 0, 0
    while idle < k and taken < 6:
        step = s.visit(m)
        if step is not None:
            s.take(m, *step)
            taken, idle = taken + 1, -1
            F = s.basis.F[:, :k]
            K = F.T @ (G - F @ F.T)
            Y = np.linalg.inv(F[s.members])
            scale = np.abs(K).max()
            np.testing.assert_allclose(s.Y, Y, atol=1e-9 * np.abs(Y).max())
            np.testing.assert_allclose(s.Ht, Y.T @ F.T, atol=1e-9 * np.abs(Y.T @ F.T).max())
            np.testing.assert_allclose(s.Zt, Y.T @ K, atol=1e-9 * np.abs(Y.T @ K).max())
            np.testing.assert_allclose(s.Kl, K[k - 1], atol=1e-9 * scale)
            np.testing.assert_allclose(s.FtF, F.T @ F, atol=1e-9 * np.abs(F.T @ F).max())
            assert s.f == pytest.approx(_kept_mass(A, s.members.tolist()), rel=1e-10)
        idle, m = idle + 1, (m + 1) % k
    assert taken >= 2  # this draw moves


def test_a_drifted_swap_state_is_recomputed_at_the_refresh():
    from pixsel.scores import _placement as P

    A = _data(3, 30, 12)
    run = _path(A, 4, None, keep_z=True)
    s = P._SwapSearch(run)
    assert s.fresh_enough()
    good = s.Zt.copy()
    assert s._probe_agrees()
    s.Zt[1, 3] += 1e-6 * np.abs(good).max()
    assert not s._probe_agrees()
    s.fresh = -1  # as if _REFRESH swaps had passed
    assert s.fresh_enough()
    np.testing.assert_allclose(s.Zt, good, atol=1e-10 * np.abs(good).max())


# --- shrinkage towards a prior covariance: the greedy and the swaps on G' = (1 - rho) A^T A + rho (n - 1) T


def _shrunk(A, shape, rho, seed=0):
    from pixsel.stats import DCTPrior

    lam = np.random.default_rng(seed).uniform(0.1, 3.0, shape)
    prior = DCTPrior(lam)
    T = prior.apply(np.eye(A.shape[1]))  # dense T = Phi diag(lam) Phi^T (symmetric)
    return prior, (1 - rho) * A.T @ A + rho * (A.shape[0] - 1) * T


def _shrunk_mass(G, S):
    """Textbook ``trace(G_{:,S} G_SS^{-1} G_{S,:})``."""
    S = list(S)
    return float(np.trace(G[:, S] @ np.linalg.solve(G[np.ix_(S, S)], G[S]))) if S else 0.0


def _brute_force_greedy(G, k, allowed=None):
    S = []
    for _ in range(k):
        cand = [j for j in range(len(G)) if j not in S and (allowed is None or allowed(S, j))]
        S.append(max(cand, key=lambda j: (_shrunk_mass(G, S + [j]), -j)))
    return S


@pytest.mark.parametrize("n", [6, 40])  # through A (n <= p) and with the Gram matrix (n > p)
@pytest.mark.parametrize("rho", [0.3, 0.9])
def test_shrunk_greedy_equals_the_brute_force_greedy_on_the_shrunk_gram_matrix(n, rho):
    A = _data(n, n, 20)
    prior, G = _shrunk(A, (4, 5), rho)
    before = A.copy()
    order, obj = greedy_placement(A, 5, shrinkage=rho, prior=prior)
    assert np.array_equal(A, before)
    assert order.tolist() == _brute_force_greedy(G, 5)
    np.testing.assert_allclose(obj, [_shrunk_mass(G, order[:t + 1]) for t in range(5)], rtol=1e-9)
    # the caller's products give the same path
    gram = A @ A.T if n <= 20 else A.T @ A
    o2, f2 = greedy_placement(A, 5, shrinkage=rho, prior=prior, gram=gram, prior_rows=prior.apply(A))
    assert o2.tolist() == order.tolist() and np.allclose(f2, obj)


def test_zero_shrinkage_is_the_plain_greedy():
    A = _data(3, 9, 20)
    prior, _ = _shrunk(A, (4, 5), 0.0)
    for kernel in (greedy_placement, refine_placement):
        a, b = kernel(A, 4, shrinkage=0.0, prior=prior), kernel(A, 4)
        if kernel is refine_placement:
            a, b = (a.order, a.support), (b.order, b.support)
        assert all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("n", [7, 30])
def test_shrunk_swaps_reach_a_local_optimum_of_the_shrunk_mass(n):
    swaps = 0
    for seed in range(5):
        A = _data(seed, n, 12, rank=None if seed % 2 else 4)
        prior, G = _shrunk(A, (3, 4), 0.1, seed)
        res = refine_placement(A, 3 + seed % 2, shrinkage=0.1, prior=prior)
        f = _shrunk_mass(G, res.support)
        assert res.support_objective == pytest.approx(f, rel=1e-9)  # the closed form is the textbook mass
        assert f >= res.objective[-1] * (1 - 1e-12)
        assert res.converged
        assert res.n_swaps == 0 or f > res.objective[-1]
        for T in _swap_neighbours(res.support.tolist(), 12):  # no single swap improves
            assert _shrunk_mass(G, T) <= f * (1 + 1e-9)
        swaps += res.n_swaps
    assert swaps >= 1  # the swaps ran (and moved the factors) in at least one draw


def test_shrunk_greedy_keeps_the_constraints():
    A = _data(4, 8, 20)
    prior, G = _shrunk(A, (4, 5), 0.6)
    labels = np.arange(20) % 3
    cons = placement_constraints(20, 5, regions=labels, max_per_region=2, never_select=[0, 7])

    def allowed(S, j):
        return j not in (0, 7) and sum(labels[i] == labels[j] for i in S) < 2

    order, _ = greedy_placement(A, 5, constraints=cons, shrinkage=0.6, prior=prior)
    assert order.tolist() == _brute_force_greedy(G, 5, allowed)


def test_shrinkage_needs_a_prior_grey_pixels_and_a_valid_intensity():
    A = _data(0, 6, 20)
    prior, _ = _shrunk(A, (4, 5), 0.5)
    with pytest.raises(ValueError, match="needs the prior"):
        greedy_placement(A, 3, shrinkage=0.5)
    with pytest.raises(ValueError, match="grey pixels"):
        greedy_placement(A, 3, block=2, shrinkage=0.5, prior=prior)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        greedy_placement(A, 3, shrinkage=1.5, prior=prior)


def test_first_step_numerators_from_the_pivoted_cholesky_factor():
    """Y^T Y = A^T (A A^T) A for centred data (A A^T singular), duplicated images (rank n - 2),
    and a zero matrix: the dropped trailing block of pstrf is only the rounding."""
    from pixsel.scores._placement import _outer_root

    rng = np.random.default_rng(3)
    dup = rng.standard_normal((9, 30))
    dup[5], dup[7] = dup[1], dup[2]
    for A in (_data(0, 12, 40), dup - dup.mean(axis=0), _data(1, 8, 40, rank=3), np.zeros((5, 7))):
        M = A @ A.T
        before = (A.copy(), M.copy())
        Y = _outer_root(A, M)
        assert np.array_equal(A, before[0]) and np.array_equal(M, before[1])
        expected = A.T @ M @ A
        np.testing.assert_allclose(Y.T @ Y, expected, atol=1e-10 * max(np.abs(expected).max(), 1.0))


@pytest.mark.parametrize("n", [6, 40])  # through A (n <= p) and with the Gram matrix (n > p)
def test_long_shrunk_path_equals_the_brute_force_greedy(n):
    """k = 14 of 20 pixels: many steps of the kept (G' F, F^T F) products, then the full path."""
    A = _data(n + 1, n, 20)
    prior, G = _shrunk(A, (4, 5), 0.7, seed=n)
    order, obj = greedy_placement(A, 14, shrinkage=0.7, prior=prior)
    assert order.tolist() == _brute_force_greedy(G, 14)
    np.testing.assert_allclose(obj, [_shrunk_mass(G, order[:t + 1]) for t in range(14)], rtol=1e-9)
    order, obj = greedy_placement(A, 20, shrinkage=0.7, prior=prior)  # every pixel: the whole trace of G'
    assert sorted(order.tolist()) == list(range(20))
    assert obj[-1] == pytest.approx(np.trace(G), rel=1e-9)


def test_greedy_with_duplicated_images_equals_the_p_form_kernel():
    """Duplicated images (A A^T of rank n - 2 after centring): the first step's numerators from the
    pivoted factor give the p-form kernel's path."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((10, 4)) @ rng.standard_normal((4, 30)) + 0.1 * rng.standard_normal((10, 30))
    X[8], X[9] = X[0], X[3]
    A = X - X.mean(axis=0)
    o1, f1 = greedy_column_subset(A.T @ A, 6)
    o2, f2 = greedy_placement(A, 6)
    assert o2.tolist() == o1.tolist()
    np.testing.assert_allclose(f2, f1, rtol=1e-9)


@pytest.mark.parametrize("n", [7, 30])
def test_shrunk_result_holds_the_columns_of_every_pixel_taken(n):
    """result.columns: G'[:, i] and T[:, i] of every pixel of the path and of the swaps (the dense
    matrices); None without shrinkage."""
    for seed in range(5):
        A = _data(seed, n, 12, rank=None if seed % 2 else 4)
        prior, G = _shrunk(A, (3, 4), 0.1, seed)
        res = refine_placement(A, 3 + seed % 2, shrinkage=0.1, prior=prior)
        T = prior.apply(np.eye(12))
        taken = set(res.order.tolist()) | set(res.support.tolist())
        assert taken <= set(res.columns)
        for i, (g, t) in res.columns.items():
            np.testing.assert_allclose(g, G[:, i], rtol=1e-10, atol=1e-10 * np.abs(G).max())
            np.testing.assert_allclose(t, T[:, i], rtol=1e-10, atol=1e-12)
        if res.n_swaps:
            break
    assert res.n_swaps  # a draw with swaps was checked
    assert refine_placement(A, 3).columns is None


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_in_place_rank_one_and_symmetric_products_are_the_textbook_ones(layout):
    """The BLAS helpers of the placement: ``X += alpha x y^T`` in place whatever the layout (a block of
    a column-major array, as the basis keeps its directions, included), and ``S x`` from one triangle."""
    from pixsel.scores._placement import _ger, _symv

    rng = np.random.default_rng(4)
    base = rng.standard_normal((7, 9))
    X = {"C": base.copy(), "F": np.asfortranarray(base)[:, :5], "strided": base.copy()[:, ::2]}[layout]
    before = X.copy()
    x, y = rng.standard_normal(X.shape[0]), rng.standard_normal(X.shape[1])
    _ger(X, x, y, -0.5)
    np.testing.assert_allclose(X, before - 0.5 * np.outer(x, y), rtol=1e-13, atol=1e-13)
    S = base @ base.T
    v = rng.standard_normal(7)
    for M in (S, np.asfortranarray(S)):
        np.testing.assert_allclose(_symv(M, v), S @ v, rtol=1e-12)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("m", [1, 2, 3])
def test_row_product_is_the_product(layout, m):
    """The greedy's data pass with fewer images than pixels (a matrix-vector product per row): ``V @ B``."""
    from pixsel.scores._placement import _rows_times

    rng = np.random.default_rng(m)
    base = rng.standard_normal((300, 74))
    B = {"C": base[:, :37].copy(), "F": np.asfortranarray(base[:, :37]), "strided": base[:, ::2]}[layout]
    V = rng.standard_normal((m, 300))
    before = B.copy()
    np.testing.assert_allclose(_rows_times(V, B), V @ B, rtol=1e-12, atol=1e-12 * np.abs(V).sum() * np.abs(B).max())
    assert np.array_equal(B, before)


# --- the first step's numerators known within bounds until they could win (fewer images than pixels)


def _bounded_data(seed, n=130, shape=(16, 25)):
    """Centred data with many images (the bounds' route) and its DCT prior: low rank plus noise,
    duplicated images, a pixel without variance, or rank 3 exactly."""
    from pixsel.stats import DCTPrior, dct_spectrum

    p = shape[0] * shape[1]
    rng = np.random.default_rng(seed)
    kind = seed % 4
    if kind == 0:
        X = rng.standard_normal((n, 6)) @ rng.standard_normal((6, p)) + 0.05 * rng.standard_normal((n, p))
    elif kind == 1:
        X = rng.standard_normal((n, p)).cumsum(axis=1)
        X[10:20] = X[:10]  # duplicated images: A A^T singular beyond the centring
    elif kind == 2:
        X = rng.standard_normal((n, p)) * rng.uniform(0.2, 2.0, p)
        X[:, 7] = 0.0
    else:
        X = rng.standard_normal((n, 3)) @ rng.standard_normal((3, p))
    A = X - X.mean(axis=0)
    return A, DCTPrior(dct_spectrum(A, shape))


@pytest.mark.parametrize("s, iters", [(1, 0), (5, 2), (16, 2), (30, 4), (130, 1)])
@pytest.mark.parametrize("seed", range(4))
def test_quadratic_bounds_hold_for_any_directions(seed, s, iters):
    """lo <= a_j^T M a_j <= hi for every column, however few directions or iterations (the bound on
    the rest holds for any orthonormal directions), for rank-deficient M and more directions than its
    rank; with enough directions to span M's range the bounds close (up to the margin)."""
    from pixsel.scores._placement import _quadratic_bounds

    A, _ = _bounded_data(seed)
    M = A @ A.T
    d = np.einsum("ij,ij->j", A, A)
    before = (A.copy(), M.copy())
    lo, hi = _quadratic_bounds(M, A, d, s, iters)
    assert np.array_equal(A, before[0]) and np.array_equal(M, before[1])
    exact = np.einsum("ij,ij->j", M @ A, A)
    tol = 1e-12 * np.abs(exact).max()
    assert np.all(lo <= exact + tol) and np.all(exact <= hi + tol) and np.all(lo >= 0)
    if s == 130:  # every direction of R^n: nothing left outside them
        np.testing.assert_allclose(hi - lo, 0.0, atol=1e-8 * np.linalg.norm(M) * d.max())


@pytest.mark.parametrize("s, iters", [(1, 0), (16, 2), (130, 1)])
@pytest.mark.parametrize("seed", range(4))
def test_quadratic_bounds_from_single_precision_products_still_hold(seed, s, iters):
    """With a single-precision copy of A the products run in single precision and the bounds widen
    by their rounding's bounds: still lo <= a_j^T M a_j <= hi at every column, and no wider than
    a few thousandths of the largest value beyond the double-precision bounds."""
    from pixsel.scores._placement import _quadratic_bounds

    A, _ = _bounded_data(seed)
    M = A @ A.T
    d = np.einsum("ij,ij->j", A, A)
    rows = A.astype(np.float32)
    lo, hi = _quadratic_bounds(M, A, d, s, iters, rows=rows)
    lo64, hi64 = _quadratic_bounds(M, A, d, s, iters)
    exact = np.einsum("ij,ij->j", M @ A, A)
    tol = 1e-12 * np.abs(exact).max()
    assert np.all(lo <= exact + tol) and np.all(exact <= hi + tol) and np.all(lo >= 0)
    assert np.all(hi - lo >= (hi64 - lo64) * (1 - 1e-9) - tol)  # never narrower than the exact products'
    assert np.max((hi - lo) - (hi64 - lo64)) <= 5e-3 * np.abs(exact).max()


@pytest.mark.parametrize("seed", range(8))
def test_first_step_bounds_hold_and_settle_to_the_exact_numerators(seed):
    """lo <= ||G'_j||^2 <= lo + width at every pixel; settling makes the best pixel's numerator exact,
    and settling all of them gives the exact numerators."""
    from pixsel.scores._placement import _ShrunkGram

    A, prior = _bounded_data(seed)
    before = A.copy()
    op = _ShrunkGram(A, None, 0.6, prior, None)
    assert op.bounded(5) and not op.bounded(7)  # at most p / 64 steps
    exact = op.column_sq()
    U, pending = op.column_sq_bounds()
    scale = np.abs(exact).max()
    assert np.all(U <= exact + 1e-12 * scale)
    assert np.all(exact <= U + pending.width + 1e-12 * scale)
    d = op.diag()
    live = d > 1e-10 * d.max()
    dd = np.where(live, d, 1.0)
    gain = U / dd
    pending.settle(gain, live, dd, U)
    best = int(np.argmax(np.where(live, exact / dd, -np.inf)))
    assert not pending.pending[best]
    assert gain[best] == pytest.approx(exact[best] / dd[best], rel=1e-12)
    pending.settle(np.full(U.size, -np.inf), np.ones(U.size, bool), np.ones(U.size), U)  # every pixel
    np.testing.assert_allclose(U, exact, rtol=1e-12, atol=1e-12 * scale)
    assert not pending.pending.any() and not pending.width.any()
    assert np.array_equal(A, before)


@pytest.mark.parametrize("seed", range(4))
def test_single_precision_rows_round_the_numerators_and_columns_only(seed):
    """A T in single precision: the operator reads a rounded copy of A for its passes and its
    exact start, its numerators and a step's columns within
    single precision's accuracy of the double-precision operator's; the data untouched."""
    from pixsel.scores._placement import _ShrunkGram

    A, prior = _bounded_data(seed)
    before = A.copy()
    ref = _ShrunkGram(A, None, 0.6, prior, None)
    op = _ShrunkGram(A, None, 0.6, prior, prior.apply(A).astype(np.float32))
    assert op.single and op.rows.dtype == np.float32 and not ref.single and ref.rows is A
    assert op.bounded(5) and not op.bounded(7)  # the same rule: at most p / 64 steps
    exact = ref.column_sq()
    np.testing.assert_allclose(op.column_sq(), exact, rtol=1e-5, atol=1e-6 * np.abs(exact).max())
    w = np.random.default_rng(seed).standard_normal((2, A.shape[0]))
    from pixsel.scores._placement import _rows_times

    want = w @ A
    np.testing.assert_allclose(_rows_times(w, op.rows), want, rtol=0, atol=1e-5 * np.abs(want).max())
    assert np.array_equal(A, before)


@pytest.mark.parametrize("settle_all, wide", [(1 / 4, False), (0.0, False), (1.0, True)])
@pytest.mark.parametrize("seed", range(8))
def test_bounded_first_step_gives_the_path_of_the_exact_one(seed, settle_all, wide, monkeypatch):
    """The greedy with the bounded numerators takes the pixels of the one with every numerator exact,
    unconstrained and under constraints, by gain and by gain per cost, and (at small k) those of the
    brute-force greedy on G'; with the numerators made exact one by one, all at once at the first
    step, or from bounds so wide (one direction) that many are."""
    from pixsel.scores import _placement
    from pixsel.scores._placement import _ShrunkGram

    monkeypatch.setattr(_placement, "_BOUND_MAX_STEPS", 1.0)  # the bounds at every k of these 400 pixels
    monkeypatch.setattr(_placement, "_SETTLE_ALL", settle_all)
    if wide:
        monkeypatch.setattr(_placement._quadratic_bounds, "__defaults__", (1, 0, None))
    A, prior = _bounded_data(seed)
    p = A.shape[1]
    labels = np.arange(p) % 5
    costs = 1.0 + 9.0 * np.random.default_rng(seed).uniform(size=p)
    cases = [dict(), dict(constraints=placement_constraints(p, 12, regions=labels, max_per_region=3)),
             dict(constraints=placement_constraints(p, 12, costs=costs, budget=40.0)),
             dict(constraints=placement_constraints(p, 12, always_select=[3, 200], never_select=np.arange(100, 160)))]
    free_costs = costs.copy()  # pixels of no cost, ranked first by gain: here the ones of least variance
    free_costs[np.argsort(np.einsum("ij,ij->j", A, A))[:40]] = 0.0
    ratio = [placement_constraints(p, 12, costs=costs, budget=40.0),
             placement_constraints(p, 12, costs=free_costs, budget=30.0)]

    def paths():  # every case, and the greedy by gain per cost under the budgets
        return ([greedy_placement(A, 12, shrinkage=0.7, prior=prior, **kw) for kw in cases]
                + [(r.order, r.objective) for r in (_path(A, 12, cons, shrinkage=0.7, prior=prior,
                                                                       per_cost=True) for cons in ratio)])

    runs = paths()
    with monkeypatch.context() as m:
        m.setattr(_ShrunkGram, "bounded", lambda self, k: False)  # every numerator exact from the start
        for (order, obj), (o2, f2) in zip(runs, paths()):
            assert order.tolist() == o2.tolist()
            np.testing.assert_allclose(obj, f2, rtol=1e-10)
    if seed < 2:
        G = (1 - 0.7) * A.T @ A + 0.7 * (A.shape[0] - 1) * prior.apply(np.eye(p))
        assert runs[0][0][:3].tolist() == _brute_force_greedy(G, 3)


def test_bounded_first_step_settles_few_numerators(monkeypatch):
    """On low-rank data most numerators stay bounds: the exact ones are a small part of the pixels."""
    from pixsel.scores import _placement

    monkeypatch.setattr(_placement, "_BOUND_MAX_STEPS", 1.0)
    A, prior = _bounded_data(0)
    settled = []
    real = _placement._PendingSq.settle

    def spy(self, gain, cand, d, u):
        real(self, gain, cand, d, u)
        settled.append(int((~self.pending).sum()))

    monkeypatch.setattr(_placement._PendingSq, "settle", spy)
    greedy_placement(A, 10, shrinkage=0.7, prior=prior)
    assert len(settled) == 10 and 0 < settled[-1] < A.shape[1] * _placement._SETTLE_ALL  # never all at once


def _separate(A, k, cons, *, max_swaps=None, **kw):
    """The rule with each path from its own set-up (the code before the paths shared one):
    ``(order, objective, per_cost)`` of the greedy, or with ``max_swaps`` also ``(support, value)``."""
    from pixsel.scores._placement import _budgeted, _swaps

    best = None
    for rule in (False, True) if _budgeted(cons, k) else (False,):
        keep_z = max_swaps is not None and max_swaps > 0
        run = _path(A, k, cons, per_cost=rule, keep_z=keep_z, **kw)
        support, value = (run.order.copy(), run.total) if max_swaps is None else _swaps(run, max_swaps)[:2]
        if best is None or value > best[4] + 1e-9 * abs(best[4]):
            best = (run.order, run.objective, rule, support, value)
    return best


def _shared_setup_cases(seed):
    """Budgets alone and with every other constraint, on 16 x 25 pixels (400), and their kwargs."""
    shape, p, k = (16, 25), 400, 12
    rng = np.random.default_rng(seed)
    costs = 1.0 + np.arange(p) % shape[1] / (shape[1] - 1)  # rising left to right, as in the benchmark
    if seed % 2:
        costs = rng.uniform(0.0, 3.0, p) * (rng.uniform(size=p) > 0.1)  # some pixels free
    cheap = float(np.sort(costs)[:k].sum())
    budget = cheap + 0.4 * (float(np.sort(costs)[-k:].sum()) - cheap)  # binds
    regions = np.arange(p) // shape[1] * 4 // shape[0]  # four bands of rows
    common = dict(image_shape=shape, costs=costs, budget=budget)
    return k, [dict(common),
               dict(common, regions=regions, max_per_region=4),
               dict(common, regions=regions, min_per_region={0: 2, 3: 3}),
               dict(common, regions=regions, min_per_region=3, max_per_region=3),
               dict(common, min_distance=2.0),
               dict(common, always_select=[30, 377], never_select=np.arange(100, 160)),
               dict(common, always_select=[5], never_select=[6, 7], regions=regions, max_per_region={1: 2},
                    min_per_region={2: 2}, min_distance=1.5)]


@pytest.mark.parametrize("data", ["random", "fewer images", "more images", "textures"])
@pytest.mark.parametrize("seed", range(2))
def test_budgeted_paths_from_one_setup_equal_paths_from_their_own(seed, data, monkeypatch):
    """Under a budget the two paths start from one set-up (operator, basis, initial numerators and
    their bounds computed once): the placements, objectives and rule equal those of each path from
    its own set-up, on random and on image-like data with fewer and with more images than pixels,
    with and without shrinkage and swaps, under a budget alone and with every other constraint; and
    the set-up runs once per fit, the second path making no numerator exact that the first made."""
    from pixsel.scores import _placement as P

    monkeypatch.setattr(P, "_BOUND_MAX_STEPS", 1.0)  # the bounded numerators at k = 12 of 400 pixels
    if data == "textures":
        A, prior = _bounded_data(seed)  # 130 images: the bounds' route with shrinkage
    else:
        n = {"random": 60, "fewer images": 160, "more images": 700}[data]
        A = _data(seed, n, 400, rank=None if data == "random" else 8)
        prior = _bounded_data(0)[1]
    before = A.copy()
    k, cases = _shared_setup_cases(seed)
    counts = {"setup": 0, "settled": []}
    real_init, real_settle = P._Start.__init__, P._PendingSq.settle

    def init(self, *a, **kw):
        counts["setup"] += 1
        real_init(self, *a, **kw)

    def settle(self, gain, cand, d, u, scale=None):
        was = self.pending.copy()
        real_settle(self, gain, cand, d, u, scale)
        counts["settled"].append((id(self), np.flatnonzero(was & ~self.pending)))

    for kw in cases:
        cons = placement_constraints(400, k, **kw)
        assert P._budgeted(cons, k)
        for shrinkage in (0.0, 0.6):
            sk = dict(shrinkage=shrinkage, prior=prior)
            want = _separate(A, k, cons, **sk)
            with monkeypatch.context() as m:
                m.setattr(P._Start, "__init__", init)
                m.setattr(P._PendingSq, "settle", settle)
                counts["setup"], counts["settled"] = 0, []
                for name in ("_shrunk_gram", "_outer_root", "_quadratic_bounds"):
                    real = getattr(P, name)
                    counts[name] = 0

                    def spy(*a, _real=real, _name=name, **kw2):
                        counts[_name] += 1
                        return _real(*a, **kw2)

                    m.setattr(P, name, spy)
                order, obj = greedy_placement(A, k, constraints=cons, **sk)
            assert counts["setup"] == 1 and counts["_shrunk_gram"] == 1
            assert counts["_outer_root"] + counts["_quadratic_bounds"] <= 1  # the numerators, once
            paths = {}
            for owner, J in counts["settled"]:
                paths.setdefault(owner, []).extend(J.tolist())
            made = [J for J in paths.values()]
            assert len(made) <= 2 and sum(len(J) for J in made) == len(set().union(*made))  # none twice
            if shrinkage and data == "textures" and "regions" not in kw and "min_distance" not in kw:
                assert made and len(made[0])  # the bounded route (no packing to rank every pixel) ran
            assert order.tolist() == want[0].tolist()
            np.testing.assert_allclose(obj, want[1], rtol=1e-12)
            for swaps in (0, 100):
                res = refine_placement(A, k, constraints=cons, max_swaps=swaps, **sk)
                ref = _separate(A, k, cons, max_swaps=swaps, **sk)
                assert res.order.tolist() == ref[0].tolist() and res.per_cost == ref[2]
                np.testing.assert_allclose(res.objective, ref[1], rtol=1e-12)
                assert res.support.tolist() == ref[3].tolist()
                assert res.support_objective == pytest.approx(ref[4], rel=1e-12)
    assert np.array_equal(A, before)


# --- the single-precision Gram matrix of many pixels, and the kept mass from exact columns


def _smooth_images(seed, n, shape, scale=1.0):
    """Images with neighbouring pixels correlated (a blurred random field plus a little noise)."""
    from scipy.ndimage import gaussian_filter

    rng = np.random.default_rng(seed)
    X = gaussian_filter(rng.standard_normal((n, *shape)), sigma=(0, 2.0, 2.0)) + 0.01 * rng.standard_normal((n, *shape))
    X = X.reshape(n, -1) * scale
    return X - X.mean(0)


@pytest.mark.parametrize("scale", [1.0, 1e20, 1e-20])
def test_placement_gram_is_a_rounded_gram_matrix_with_its_exact_diagonal(scale):
    from pixsel.scores import placement_gram
    from pixsel.scores._placement import SINGLE_GRAM_MIN_FEATURES, SINGLE_GRAM_RTOL

    A = _smooth_images(0, 600, (24, 24), scale)  # 576 features, more images: single precision
    assert A.shape[1] >= SINGLE_GRAM_MIN_FEATURES
    before = A.copy()
    G, rtol = placement_gram(A)
    exact = A.T @ A
    assert rtol == SINGLE_GRAM_RTOL and G.dtype == np.float64 and np.array_equal(A, before)
    top = np.max(np.diag(exact))
    err = np.max(np.abs(G - exact)) / top
    assert 0 < err < 0.1 * rtol  # rounded (not the exact product), well inside the accuracy it claims
    np.testing.assert_allclose(np.diag(G), np.diag(exact), rtol=1e-12)
    np.testing.assert_array_equal(G, G.T)
    # few features, or no more images than pixels: the exact product
    for B in (A[:, :100], A[:500]):
        G2, r2 = placement_gram(B)
        assert r2 == 0.0
        np.testing.assert_allclose(G2, B.T @ B, rtol=1e-12, atol=1e-12 * np.max(np.abs(B)) ** 2)
    Z, rz = placement_gram(np.zeros((600, 576)))
    assert rz == 0.0 and not Z.any()


@pytest.mark.parametrize("scale", [1.0, 1e20])
def test_placement_outer_gram_is_rounded_from_many_pixels_with_its_exact_diagonal(scale):
    """outer=True: A A^T, in single precision with fewer images than (at least 512) pixels."""
    from pixsel.scores import placement_gram
    from pixsel.scores._placement import SINGLE_GRAM_RTOL

    A = _smooth_images(2, 300, (24, 24), scale)  # 300 images of 576 pixels
    before = A.copy()
    M, rtol = placement_gram(A, outer=True)
    exact = A @ A.T
    assert M.shape == (300, 300) and M.dtype == np.float64 and np.array_equal(A, before)
    assert rtol == SINGLE_GRAM_RTOL
    err = np.max(np.abs(M - exact)) / np.max(np.diag(exact))
    assert 0 < err < 0.1 * rtol  # rounded, well inside the accuracy it claims
    np.testing.assert_allclose(np.diag(M), np.diag(exact), rtol=1e-12)
    np.testing.assert_array_equal(M, M.T)
    # few pixels, or more images than pixels: the exact product
    for B in (A[:, :100], np.vstack([A, A])):
        M2, r2 = placement_gram(B, outer=True)
        assert r2 == 0.0
        np.testing.assert_allclose(M2, B @ B.T, rtol=1e-12, atol=1e-12 * np.max(np.abs(B)) ** 2)


def test_greedy_on_the_single_precision_outer_gram_keeps_the_exact_path_and_masses():
    """The n-form greedy ranks on a rounded A A^T and reads its masses from A: on correlated
    pixels the same path as on the exact matrix, the same masses to rounding."""
    from pixsel.scores import placement_gram

    A = _smooth_images(3, 200, (24, 24))
    M, rtol = placement_gram(A, outer=True)
    assert rtol > 0
    for k in (5, 30):
        ref = refine_placement(A, k, gram=A @ A.T, max_swaps=50)
        got = refine_placement(A, k, gram=M, max_swaps=50)
        assert got.order.tolist() == ref.order.tolist() and sorted(got.support) == sorted(ref.support)
        np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
        np.testing.assert_allclose(got.support_objective, ref.support_objective, rtol=1e-10)


def test_kept_mass_of_every_prefix_is_the_pseudo_inverse_objective():
    from pixsel.scores import kept_mass
    from pixsel.scores._column_subset import column_subset_objective

    rng = np.random.default_rng(3)
    A = rng.standard_normal((30, 12)) @ rng.standard_normal((12, 20))  # rank 12 of 20 columns
    A[:, 5] = 2.0 * A[:, 1] - A[:, 7]  # a column inside the span of two others
    G = A.T @ A
    feats = [1, 7, 5, 0, 13, 2, 19]
    mass = kept_mass(G[:, feats], feats)
    want = [column_subset_objective(G, feats[:t + 1]) for t in range(len(feats))]
    np.testing.assert_allclose(mass, want, rtol=1e-10)
    assert mass[2] == mass[1]  # column 5 adds nothing once 1 and 7 are in


def test_greedy_and_swaps_on_the_single_precision_gram_match_the_exact_ones_on_correlated_pixels():
    from pixsel.scores import kept_mass, placement_gram
    from pixsel.scores._column_subset import column_subset_objective

    A = _smooth_images(1, 700, (24, 24))
    G, rtol = placement_gram(A)
    exact = A.T @ A
    for k in (5, 20, 60):
        ref = refine_placement(A, k, gram=exact, max_swaps=100)
        got = refine_placement(A, k, gram=G, max_swaps=100, gram_rtol=rtol)
        # the same path and placement here; in general a path whose gains tie within the rounding may
        # differ, so the kept masses are compared, each computed exactly from its own columns
        m_ref = kept_mass(exact[:, ref.order], ref.order)
        m_got = kept_mass(exact[:, got.order], got.order)
        np.testing.assert_allclose(m_got, m_ref, rtol=1e-6)
        np.testing.assert_allclose(m_got, got.objective, rtol=1e-5)  # the rounded masses, within the accuracy
        assert column_subset_objective(exact, got.support) >= column_subset_objective(exact, ref.support) * (1 - 1e-6)
        assert got.support_objective >= got.objective[-1]
