"""exact_support's compiled partner searches beside the branch and bound (additive problems).

Each partner (the enumeration of size ``k``, the tree of ``exact_path`` with size ``k`` alone) is
forced from the first node (``_PARTNER_AFTER = 0``) and checked against brute force, including
the bound of a stopped tree; the gates (time before it starts, ``k``, node limits, non-additive
problems), the time limit and Ctrl-C are checked on their own."""

import numpy as np
import pytest

import pixsel.spectral.exact._solve as solve_mod
from pixsel.spectral import exact_support, objective_on_support
from pixsel.spectral.exact import _allk_enum, _allk_numba

from .test_exact_support import _pair, _value, brute_force


@pytest.fixture
def forced(monkeypatch):
    """The enumeration partner at every k, from the first node."""
    monkeypatch.setattr(solve_mod, "_PARTNER_AFTER", 0.0)
    monkeypatch.setattr(solve_mod, "_ENUM_MAX_FRACTION", 1.0)


@pytest.fixture
def forced_tree(monkeypatch):
    """The tree partner at every k, from the first node."""
    monkeypatch.setattr(solve_mod, "_PARTNER_AFTER", 0.0)
    monkeypatch.setattr(solve_mod, "_ENUM_MAX_FRACTION", 0.0)


def _hard_vector(rng, p):
    """Brownian-type columns: a correlated B on which the branch and bound needs many nodes."""
    X = np.cumsum(rng.standard_normal((p + 10, p)), axis=1)
    return rng.standard_normal(p), X.T @ X / (p + 10) + 1e-3 * np.eye(p)


def _forced_solves(tag, form, criterion, k_low):
    """25 random problems of the form (p <= 12, k = k_low..p - 2), each solved with the forced
    partner: every solve is optimal with the brute-force optimum; yields ``(result, k, best)``."""
    rng = np.random.default_rng(hash((form, criterion, tag)) % 2**32)
    for _ in range(25):
        p = int(rng.integers(5, 13))
        k = int(rng.integers(k_low, p - 1))
        A, B = _pair(rng, p, form, rank=int(rng.integers(1, 4)))
        Bf = np.eye(p) if B is None else B
        res = exact_support(A, B, k, criterion=criterion)
        best = brute_force(A, Bf, k, criterion)
        assert res.status == "optimal"
        assert _value(A, Bf, res.support, criterion) == pytest.approx(best, rel=1e-9, abs=1e-12)
        yield res, k, best


@pytest.mark.parametrize("form,criterion", [("vector", "max-eig"), ("factor", "trace"), ("psd", "trace")])
def test_forced_enumeration_matches_brute_force(forced, form, criterion):
    """Every additive form, p <= 12, k = 3..p - 2: optimal with the brute-force optimum, and the
    enumeration started (it ran before the branch and bound's first node was done)."""
    completed = 0
    for res, k, best in _forced_solves("enum", form, criterion, 3):
        assert len(set(res.support.tolist())) == k
        assert res.objective == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert res.gap <= 1e-9 * max(1.0, abs(best))
        info = res.info["partner"]
        assert info["started"]
        completed += info["completed"]
        assert res.n_nodes >= info["nodes"]
    assert completed >= 5  # the enumeration, not only the branch and bound, proves optima


def test_forced_enumeration_with_gap_tol_and_initial(forced):
    """A tolerance or a given start changes nothing in what the enumeration proves."""
    rng = np.random.default_rng(3)
    for _ in range(10):
        p, k = 11, int(rng.integers(3, 8))
        a, B = _hard_vector(rng, p)
        best = brute_force(a, B, k, "max-eig")
        res = exact_support(a, B, k, gap_tol=0.02)
        assert res.status in ("optimal", "gap_reached")
        assert res.objective >= best / 1.02 - 1e-12
        assert res.upper_bound >= best * (1 - 1e-9)
        res = exact_support(a, B, k, initial=np.arange(k))
        assert res.status == "optimal"
        assert res.objective == pytest.approx(best, rel=1e-9)


def test_enumeration_certifies_what_the_branch_and_bound_cannot(monkeypatch):
    """At the default gates: a correlated p = 48 problem of size 6, on which the branch and bound
    alone needs about 24,000 nodes (6 s), is certified by the enumeration it starts after 0.25 s."""
    rng = np.random.default_rng(9)
    a, B = _hard_vector(rng, 48)
    res = exact_support(a, B, 6, time_limit=60)
    assert res.status == "optimal" and res.info["partner"]["completed"]
    assert res.objective == pytest.approx(objective_on_support(a, B, res.support), rel=1e-12)
    for _ in range(300):  # no support of a random sample beats it
        S = rng.choice(48, 6, replace=False)
        assert objective_on_support(a, B, S) <= res.objective * (1 + 1e-9)
    monkeypatch.setattr(solve_mod, "_USE_PARTNER", False)
    alone = exact_support(a, B, 6, node_limit=2000)
    assert alone.status == "node_limit" and "partner" not in alone.info
    assert alone.objective <= res.objective * (1 + 1e-9)


def test_gates():
    """No partner where the branch and bound finishes first, under a node limit, or for a
    non-additive problem; the enumeration from k = 3 to p - 2, the tree at k = 2."""
    rng = np.random.default_rng(4)
    a, B = _hard_vector(rng, 12)
    assert not exact_support(a, B, 3).info.get("partner", {}).get("started", False)
    a, B = _hard_vector(rng, 40)
    assert "partner" not in exact_support(a, B, 6, node_limit=50).info
    A, B = _pair(rng, 40, "psd")
    assert "partner" not in exact_support(A, B, 5, time_limit=0.5).info  # 'max-eig' of a full A
    M = rng.standard_normal((40, 3))
    assert "partner" not in exact_support(M, B, 5, time_limit=0.5).info  # 'max-eig' of rank 3
    search = type("S", (), {"node_limit": None, "feasible": None, "forced": None})()
    choose = solve_mod._Partner.choose
    assert choose(M, np.eye(40), 5, search) == "enumeration"
    assert choose(M, np.eye(40), 38, search) == "enumeration"
    assert choose(M, np.eye(40), 2, search) == "tree"
    assert choose(M[:, :1], np.eye(40), 1, search) is None and choose(M[:, :1], np.eye(40), 39, search) is None
    assert choose(np.ones((400, 1)), np.eye(400), 150, search) is None  # the tree's arrays would not fit


@pytest.mark.parametrize("form,criterion", [("vector", "max-eig"), ("factor", "trace")])
def test_forced_tree_matches_brute_force(forced_tree, form, criterion):
    """The tree partner, every k = 2..p - 2: optimal with the brute-force optimum."""
    completed = 0
    for res, _, _ in _forced_solves("tree", form, criterion, 2):
        assert res.info["partner"]["kind"] == "tree" and res.info["partner"]["started"]
        completed += res.info["partner"]["completed"]
    assert completed >= 5


def test_stopped_tree_bound_never_below_the_optimum(forced_tree, monkeypatch):
    """A solve stopped while the tree partner is open (after 1..12 of its nodes) reports the
    smaller of the two certified bounds: never below the brute-force optimum."""
    import pixsel.spectral.exact._search as search_mod

    monkeypatch.setattr(_allk_numba, "CHUNK", 1)
    rng = np.random.default_rng(12)
    original = _allk_numba.PathKernel.step
    stopped_open = 0
    for trial in range(24):
        steps = []

        def step(self, budget, n=1 + trial % 12):
            steps.append(budget)
            if len(steps) > n:
                raise search_mod.Stop("time_limit")
            return original(self, budget)

        monkeypatch.setattr(_allk_numba.PathKernel, "step", step)
        p = 13
        k = int(rng.integers(3, 10))
        a, B = _hard_vector(rng, p)
        best = brute_force(a, B, k, "max-eig")
        res = exact_support(a, B, k)
        assert res.status in ("time_limit", "optimal")
        assert res.upper_bound >= best * (1 - 1e-9)
        assert res.objective <= best * (1 + 1e-9)
        info = res.info["partner"]
        stopped_open += res.status == "time_limit" and info["started"] and not info["completed"]
    assert stopped_open >= 8


def test_time_limit_and_interrupt_during_the_enumeration(forced, monkeypatch):
    """The time limit holds while the enumeration runs; Ctrl-C inside it returns the incumbent
    with a certified bound and status 'interrupted'."""
    rng = np.random.default_rng(9)
    a, B = _hard_vector(rng, 60)
    res = exact_support(a, B, 10, time_limit=0.5)
    assert res.status == "time_limit" and res.time < 3.0
    assert res.upper_bound >= res.objective
    assert res.info["partner"]["started"] and not res.info["partner"]["completed"]


    monkeypatch.setattr(solve_mod, "_ENUM_MAX_FRACTION", 1.0)
    calls = []
    original = _allk_enum.EnumKernel.step

    def step(self, budget):
        calls.append(budget)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return original(self, budget)

    monkeypatch.setattr(_allk_enum.EnumKernel, "step", step)
    monkeypatch.setattr(_allk_enum, "CHUNK", 1)  # one node per step: the second one is interrupted
    a, B = _hard_vector(rng, 14)
    best = brute_force(a, B, 7, "max-eig")
    res = exact_support(a, B, 7)
    assert len(calls) == 2 and res.status == "interrupted"
    assert res.upper_bound >= best * (1 - 1e-9)
    assert res.objective == pytest.approx(objective_on_support(a, B, res.support))


def test_partner_time_excludes_compilation(forced, monkeypatch):
    """The partner's first turn runs its kernel once on a small problem (compiling it, or loading
    it from the cache), and those seconds are charged to neither search: the partner is given the
    branch and bound's measured time, so a cold cache must not hold it back (a 1 s stand-in for
    the compilation here; the enumeration itself takes milliseconds)."""
    import time

    calls = []
    warm = solve_mod._warm_partner

    def slow_warm(kind):
        calls.append(kind)
        warm(kind)
        time.sleep(1.0)

    monkeypatch.setattr(solve_mod, "_warm_partner", slow_warm)
    a, B = _hard_vector(np.random.default_rng(5), 10)
    res = exact_support(a, B, 4)
    assert calls == ["enumeration"]
    info = res.info["partner"]
    assert info["started"] and info["time_s"] < 1.0
    assert res.status == "optimal"
    assert res.objective == pytest.approx(brute_force(a, B, 4, "max-eig"), rel=1e-9)


def test_warm_partner_runs_each_kind_once(monkeypatch):
    """Both kinds of partner kernel run to completion on the warm-up problem, once per process."""
    monkeypatch.setattr(solve_mod, "_PARTNERS_READY", set())
    built = []
    for mod, name in ((_allk_enum, "EnumKernel"), (_allk_numba.PathKernel, "of_sizes")):
        orig = getattr(mod, name)

        def spy(*args, _orig=orig, _name=name, **kwargs):
            kern = _orig(*args, **kwargs)
            built.append((_name, kern))
            return kern

        monkeypatch.setattr(mod, name, spy)
    for kind in ("enumeration", "tree", "enumeration", "tree"):
        solve_mod._warm_partner(kind)
    assert [name for name, _ in built] == ["EnumKernel", "of_sizes"]
    assert not any(kern.open for _, kern in built)
    assert solve_mod._PARTNERS_READY == {"enumeration", "tree"}


# ------------------------------------------------------------------ a minimum distance (conflicts)
def _conflicts(rng, p):
    """A random symmetric conflict graph (about a third of the pairs)."""
    C = np.triu(rng.random((p, p)) < 0.35, 1)
    return C | C.T


@pytest.mark.parametrize("gram", [False, True])
@pytest.mark.parametrize("r", [1, 3])
def test_enumeration_skips_conflicting_pairs(r, gram):
    """The enumeration kernel with a conflict matrix, against brute force over the conflict-free
    supports: every size up to K (vectors and trace of factors, Brownian and random pairs, any
    order, resumed a node at a time or in chunks); every support it reports is conflict-free."""
    import itertools

    rng = np.random.default_rng(60 + r)
    for trial in range(16):
        p = int(rng.integers(5, 12))
        X = rng.standard_normal((p + 3, p)).cumsum(axis=1 if trial % 2 else 0)
        B = X.T @ X / (p + 3) + 0.02 * np.eye(p)
        M = rng.standard_normal((p, r))
        conf = _conflicts(rng, p)
        K = int(rng.integers(2, p))
        kern = _allk_enum.EnumKernel(M, B, K, rng.permutation(p), np.full(K + 1, -np.inf), conflict=conf, gram=gram)
        while kern.open:
            kern.step(1 if trial % 2 else 64)
        found = kern.improved()
        for j in range(1, K + 1):
            free = [S for S in itertools.combinations(range(p), j) if not conf[np.ix_(S, S)].any()]
            if not free:
                assert not np.isfinite(kern.inc[j]) and j not in found
                continue
            best = max(_value(M[:, 0] if r == 1 else M, B, list(S), "trace") for S in free)
            np.testing.assert_allclose(kern.inc[j], best, rtol=1e-9)
            S = found[j][1]
            assert len(np.unique(S)) == j and not conf[np.ix_(S, S)].any()


def test_forced_enumeration_under_a_minimum_distance(forced):
    """exact_support with a minimum distance alone runs the enumeration beside the branch and
    bound (before, none ran under placement constraints): the brute-force best feasible support
    on 5 x 4 images, the partner started and, in some solves, the one that proves the optimum;
    a budget beside the distance keeps the partner off."""
    import itertools

    from pixsel.scores import placement_constraints
    from pixsel.spectral.exact._feasible import Feasibility

    rng = np.random.default_rng(8)
    completed = 0
    for trial in range(12):
        p, k = 20, int(rng.integers(3, 6))
        a, B = _hard_vector(rng, p)
        A = a if trial % 2 else np.column_stack([a, rng.standard_normal(p)])
        criterion = "max-eig" if trial % 2 else "trace"
        cons = placement_constraints(p, k, min_distance=1.5, image_shape=(5, 4))
        fe = Feasibility.from_placement(cons)
        feas = [S for S in itertools.combinations(range(p), k) if fe.admits(list(S))]
        best, arg = max((_value(A, B, list(S), criterion), S) for S in feas)
        res = exact_support(A, B, k, criterion=criterion, constraints=cons)
        assert res.status == "optimal" and tuple(res.support.tolist()) == arg
        assert res.objective == pytest.approx(best, rel=1e-9)
        info = res.info["partner"]
        assert info["started"]
        completed += info["completed"]
    assert completed >= 3
    both = placement_constraints(20, 3, min_distance=1.5, image_shape=(5, 4), costs=np.ones(20), budget=3.0)
    res = exact_support(*_hard_vector(rng, 20), 3, constraints=both)
    assert "partner" not in res.info


# ------------------------------------------------------------------ the Gram mode (factors of many columns)
@pytest.mark.parametrize("r", [1, 3, 12])
def test_gram_mode_is_the_residual_mode(r):
    """The enumeration keeping the Gram matrix of the residual rows (``p x p``) walks the same tree as
    the one keeping the residual (``p x r``): every size's optimum (against brute force), the same
    nodes, pair evaluations and pruned subtrees, with and without a good incumbent, resumed a node
    at a time or in chunks; the rule picks it for factors of many columns."""
    import itertools

    rng = np.random.default_rng(70 + r)
    for trial in range(10):
        p = int(rng.integers(5, 12))
        X = rng.standard_normal((p + 3, p)).cumsum(axis=1 if trial % 2 else 0)
        B = X.T @ X / (p + 3) + 0.02 * np.eye(p)
        M = rng.standard_normal((p, r))
        K = int(rng.integers(3, p))
        order = rng.permutation(p)
        opt = [max(_value(M, B, list(S), "trace") for S in itertools.combinations(range(p), j))
               for j in range(1, K + 1)]
        inc = np.full(K + 1, -np.inf)
        if trial % 3 == 0:  # a good incumbent makes the pruning bite
            inc[1:] = np.array(opt) * (1 - 1e-6)
        kerns = [_allk_enum.EnumKernel(M, B, K, order, inc, gram=g) for g in (False, True)]
        for kern in kerns:
            while kern.open:
                kern.step(1 if trial % 2 else 64)
        plain, gram = kerns
        assert gram.gram and not plain.gram
        np.testing.assert_array_equal(gram.state[1:], plain.state[1:])  # nodes, pairs, pruned subtrees
        for j in range(1, K + 1):
            np.testing.assert_allclose(gram.inc[j], opt[j - 1], rtol=1e-9)
    assert _allk_enum.gram_mode(100, 100) and not _allk_enum.gram_mode(100, 1) and not _allk_enum.gram_mode(100, 9)


def test_column_subset_partner_runs_in_gram_mode(forced):
    """The column subset's pair (``A = C C^T``, ``B = C``; its factor has ``p`` columns): the
    enumeration partner in the Gram mode, from the first node, finds the brute-force optimum."""
    import itertools

    from pixsel.spectral._criteria import criterion_named

    rng = np.random.default_rng(5)
    X = rng.standard_normal((60, 14)).cumsum(axis=1)
    C = X.T @ X / 60
    A, Bc, _ = criterion_named("column-subset").pair(C)
    for k in (3, 4, 5):
        best = max(_value(A, Bc, list(S), "trace") for S in itertools.combinations(range(14), k))
        res = exact_support(A, Bc, k, criterion=criterion_named("column-subset"))
        assert res.status == "optimal" and res.info["partner"]["started"]
        assert res.objective == pytest.approx(best, rel=1e-9)
