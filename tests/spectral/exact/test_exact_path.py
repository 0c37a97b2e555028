"""exact_path (the certified all-k search) against a brute-force enumeration of every subset.

Every random pair is enumerated once (all sizes), with a textbook objective (eigenvalues of the
pair on S, not the solver's code); the solver must return the optimum of every size with status
'optimal', and a stopped solve (tiny node limits) must never report a bound below the optimum."""

import itertools
import json
import math
import time
import zlib

import numpy as np
import pytest

from pixsel.spectral import ExactPath, exact_path, exact_support
from pixsel.spectral.exact import _allk, _allk_enum, _allk_numba, _allk_parallel

from .test_exact_support import _value  # the textbook objective, one copy




_ENUMERATED = {}


def enumerate_all(A, B, criterion):
    """The optimum of every size 1..p by enumeration (a copy; each pair is enumerated once per
    process, as the engines and the parametrized variants of a test ask for the same pairs)."""
    A, B = np.asarray(A), np.asarray(B)
    key = (A.shape, A.tobytes(), B.shape, B.tobytes(), criterion)
    if key not in _ENUMERATED:
        p = len(B)
        _ENUMERATED[key] = np.array([
            max(_value(A, B, S, criterion) for S in itertools.combinations(range(p), k)) for k in range(1, p + 1)
        ])
    return _ENUMERATED[key].copy()


def _pair(rng, p, form):
    B = None
    if rng.random() >= 0.25:
        X = rng.standard_normal((p + 2, p))
        B = X.T @ X / (p + 2) + 0.05 * np.eye(p)
    if form == "vector":
        A = rng.standard_normal(p)
    elif form == "factor":
        A = rng.standard_normal((p, int(rng.integers(1, max(2, p // 2)))))
    elif form == "psd":
        Y = rng.standard_normal((p, p))
        A = Y @ Y.T / p
    else:
        Y = rng.standard_normal((p, p))
        A = (Y + Y.T) / 2
    return A, B


CASES = [
    ("vector", "max-eig", 30),
    ("factor", "max-eig", 25),
    ("factor", "trace", 25),
    ("psd", "max-eig", 25),
    ("psd", "trace", 25),
    ("indefinite", "max-eig", 25),
]


def random_problems(rng, n, p_low, p_high, form, criterion):
    """``n`` draws of ``(p, A, B, B or I, optimum of every size)`` (factor draws as wide as
    ``p`` are skipped, as the draws always were)."""
    for _ in range(n):
        p = int(rng.integers(p_low, p_high))
        A, B = _pair(rng, p, form)
        if form == "factor" and A.shape[1] == p:
            continue
        Bf = np.eye(p) if B is None else B
        yield p, A, B, Bf, enumerate_all(A, Bf, criterion)


def banded_lda(rng, p, n, ridge):
    """Two-class LDA on correlated, Brownian-like features: ``a`` (drawn first), then ``B`` from
    ``n`` cumulative-sum samples plus ``ridge`` on the diagonal."""
    a = rng.standard_normal(p)
    X = rng.standard_normal((n, p)).cumsum(axis=1)
    return a, X.T @ X / n + ridge * np.eye(p)


def _below(ub, opt):
    return ub < opt - 1e-9 * np.abs(opt) - 1e-12


@pytest.fixture(params=["compiled", "numpy", "enumeration"])
def engine(request, monkeypatch):
    """Both searches on every size (the compiled kernel and the NumPy one), and the enumeration of
    the small sizes (every size below p) in front of the compiled one."""
    monkeypatch.setattr(_allk, "_USE_NUMBA", request.param != "numpy")
    monkeypatch.setattr(_allk, "_USE_ENUM", request.param == "enumeration")
    if request.param == "enumeration":
        monkeypatch.setattr(_allk_enum, "WORK_BUDGET", math.inf)
        monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    return request.param


@pytest.mark.parametrize("form,criterion,n_pairs", CASES)
def test_every_size_matches_enumeration(form, criterion, n_pairs, engine):
    """155 random pairs in all per engine, p <= 10, every k; stopped solves keep valid bounds."""
    rng = np.random.default_rng([zlib.crc32(f"{form}/{criterion}".encode()), ["compiled", "numpy", "enumeration"].index(engine)])
    for p, A, B, Bf, opt in random_problems(rng, n_pairs if engine == "compiled" else n_pairs // 2, 2, 11, form,
                                            criterion):
        res = exact_path(A, B, criterion=criterion)
        assert res.search_status == "optimal"
        assert res.status.tolist() == ["optimal"] * p
        np.testing.assert_allclose(res.objective, opt, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(res.upper_bound, res.objective)
        for k in range(1, p + 1):
            S = res.support(k)
            assert len(S) == k and len(np.unique(S)) == k
            assert math.isclose(_value(A, Bf, S, criterion), res.objective[k - 1], rel_tol=1e-9, abs_tol=1e-12)
        for limit in (0, 1, 3):
            stopped = exact_path(A, B, criterion=criterion, node_limit=limit)
            assert not np.any(_below(stopped.upper_bound, opt))
            assert np.all(stopped.objective <= opt + 1e-9 * np.abs(opt) + 1e-12)
            proved = stopped.status == "optimal"
            np.testing.assert_allclose(stopped.objective[proved], opt[proved], rtol=1e-8, atol=1e-10)
            # a larger size's certificate caps the smaller ones (f is monotone under inclusion)
            cap = np.maximum(stopped.upper_bound[1:], stopped.objective[1:])
            assert np.all(stopped.upper_bound[:-1] <= cap * (1 + 1e-12) + 1e-12)


def test_vector_p13_and_max_k(engine):
    """Two-class LDA at p = 13 (8191 subsets), all k; and max_k stops the path early."""
    rng = np.random.default_rng(7)
    for _ in range(3):
        a, B = banded_lda(rng, 13, 20, 0.01)
        opt = enumerate_all(a, B, "max-eig")
        res = exact_path(a, B)
        np.testing.assert_allclose(res.objective, opt, rtol=1e-8)
        assert np.all(res.status == "optimal")
        short = exact_path(a, B, max_k=5)
        assert short.max_k == 5 and len(short.supports) == 5
        np.testing.assert_allclose(short.objective, opt[:5], rtol=1e-8)
        stopped = exact_path(a, B, node_limit=20)
        assert not np.any(_below(stopped.upper_bound, opt))


def test_stopped_sizes_capped_by_the_perspective_relaxation(engine):
    """A stopped two-class path bounds its open sizes by the perspective relaxation: never below
    the enumerated optimum, and below the whole set's value (the bound the search leaves) at the
    small sizes of a correlated problem."""
    rng = np.random.default_rng(11)
    a, B = banded_lda(rng, 12, 30, 0.01)
    opt = enumerate_all(a, B, "max-eig")
    f_all = _value(a, B, range(12), "max-eig")
    for limit in (0, 1, 5):
        stopped = exact_path(a, B, node_limit=limit)
        assert not np.any(_below(stopped.upper_bound, opt))
        info = stopped.info["perspective"]
        open_sizes = stopped.status != "optimal"
        assert info["sizes"] == np.count_nonzero(open_sizes)
        assert np.any(open_sizes)
        first = int(np.argmax(open_sizes))  # the smallest open size (k = 3 here)
        assert info["improved"] >= 1 and stopped.upper_bound[first] < 0.6 * f_all
    # factor problems are left to the search
    assert exact_path(rng.standard_normal((12, 2)), B, node_limit=0).info["perspective"]["sizes"] == 0


def test_agrees_with_exact_support():
    rng = np.random.default_rng(3)
    A, B = _pair(rng, 9, "psd")
    path = exact_path(A, B)
    for k in (2, 5, 8):
        res = exact_support(A, B, k)
        assert math.isclose(path.objective[k - 1], res.objective, rel_tol=1e-9)


def test_gap_tol_stays_within_tolerance():
    rng = np.random.default_rng(11)
    for _ in range(10):
        a = rng.standard_normal(10)
        X = rng.standard_normal((12, 10))
        B = X.T @ X / 12 + 0.05 * np.eye(10)
        opt = enumerate_all(a, B, "max-eig")
        res = exact_path(a, B, gap_tol=0.05)
        assert np.all(res.certified) and set(res.status.tolist()) <= {"optimal", "gap_reached"}
        assert res.search_status in ("optimal", "gap_reached")
        assert np.all(res.objective >= opt / 1.05 - 1e-12)
        assert not np.any(_below(res.upper_bound, opt))


def test_time_limit_zero_returns_a_certified_path(engine):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(12)
    B = np.eye(12) + 0.3 * np.ones((12, 12))
    res = exact_path(a, B, time_limit=0.0, node_limit=1)
    assert res.search_status in ("time_limit", "node_limit", "optimal")
    assert set(res.status.tolist()) <= {"optimal", res.search_status}
    assert np.all(res.upper_bound >= res.objective)
    assert res.status[-1] == "optimal"  # the whole set is the only support of size p


def test_callback_initial_and_result_record(engine):
    rng = np.random.default_rng(2)
    a = rng.standard_normal(11)
    B = np.eye(11)
    B0 = B.copy()
    a0 = a.copy()
    states = []
    res = exact_path(a, B, callback=states.append, initial=[[0, 1], [3]])
    assert isinstance(res, ExactPath)
    assert states and states[-1].nodes == res.n_nodes
    assert np.array_equal(a, a0) and np.array_equal(B, B0)  # the caller's arrays are untouched
    d = res.to_dict()
    json.dumps(d)
    assert d["status"] == ["optimal"] * 11 and d["k"][0] == 1
    assert np.all(res.relative_gap == 0) and np.all(res.certified)
    # B = I: the best k are the k largest |a_i|
    for k in range(1, 12):
        assert set(res.support(k)) == set(np.argsort(-np.abs(a))[:k])


def test_bad_input_messages():
    a = np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="max_k"):
        exact_path(a, None, max_k=4)
    with pytest.raises(ValueError, match="initial"):
        exact_path(a, None, initial=[[0, 5]])
    with pytest.raises(ValueError, match="positive definite"):
        exact_path(a, -np.eye(3))
    with pytest.raises(ValueError, match="positive semi-definite"):
        exact_path(np.diag([1.0, -1.0, 2.0]), None, criterion="trace")
    with pytest.raises(ValueError, match="time_limit"):
        exact_path(a, None, time_limit=-1)
    with pytest.raises(ValueError, match="k"):
        exact_path(a, None).support(0)
    with pytest.raises(ValueError, match="exact_support"):
        exact_path(np.ones(_allk.MAX_FEATURES + 1), None)


def test_enumeration_kernel_matches_brute_force():
    """The enumeration alone (any order of the features, resumed one node at a time, pruning on)
    against brute force: vectors and trace of factors, every size up to K."""
    rng = np.random.default_rng(17)
    for trial in range(24):
        p = int(rng.integers(4, 12))
        X = rng.standard_normal((p + 3, p)).cumsum(axis=1 if trial % 2 else 0)
        B = X.T @ X / (p + 3) + 0.02 * np.eye(p)
        r = 1 if trial % 3 else int(rng.integers(2, 4))
        M = rng.standard_normal((p, r))
        opt = enumerate_all(M[:, 0] if r == 1 else M, B, "trace")
        K = int(rng.integers(3, p))
        inc = np.full(K + 1, -np.inf)
        if trial % 4 == 0:  # a good incumbent makes the pruning bite
            inc[1 : K + 1] = opt[:K] * (1 - 1e-6)
        kern = _allk_enum.EnumKernel(M, B, K, rng.permutation(p), inc)
        while kern.open:
            kern.step(1 if trial % 2 else 64)
        found = kern.improved()
        for j in range(1, K + 1):
            np.testing.assert_allclose(kern.inc[j], opt[j - 1], rtol=1e-9)
            if j in found:
                S = found[j][1]
                assert len(np.unique(S)) == j
                assert math.isclose(_value(M[:, 0] if r == 1 else M, B, S, "trace"), opt[j - 1], rel_tol=1e-9)
        if trial % 4:
            assert sorted(found) == list(range(1, K + 1))


@pytest.mark.parametrize("kind", ["random", "brownian", "pixels"])
def test_enumeration_of_one_size_with_tight_incumbents(usps_pixel_pair, kind):
    """The enumeration of one size alone (the smaller ones switched off, as the path extends it),
    its incumbent started at the optimum minus a hair (1e-12 relative: the pair rows are screened
    against the incumbent before the exact loop, and the screen may only let more through), at
    the optimum, or absent: the optimum is found (or kept), and any support reported has the
    optimal value, on random, Brownian and real-pixel covariances."""
    rng = np.random.default_rng(zlib.crc32(kind.encode()))
    p = 11
    if kind == "random":
        a = rng.standard_normal(p)
        X = rng.standard_normal((p + 3, p))
        B = X.T @ X / (p + 3) + 0.02 * np.eye(p)
    elif kind == "brownian":
        a, B = banded_lda(rng, p, p + 4, 0.01)
    else:
        a, B = usps_pixel_pair(p, 40)
    opt = enumerate_all(a, B, "max-eig")
    for K in (3, 5, 7):
        for start in (opt[K - 1] * (1 - 1e-12), opt[K - 1], -np.inf):
            inc = np.full(K + 1, -np.inf)
            inc[1:K] = opt[: K - 1]
            inc[K] = start
            kern = _allk_enum.EnumKernel(a[:, None], B, K, rng.permutation(p), inc, off=range(1, K))
            while kern.open:
                kern.step(7)
            found = kern.improved()
            np.testing.assert_allclose(kern.inc[K], opt[K - 1], rtol=1e-9)
            if start < opt[K - 1]:  # a support beating the start must be reported, even by a hair
                assert K in found
            if K in found:  # (at the optimum itself rounding may raise it by a few ulps)
                S = found[K][1]
                assert len(np.unique(S)) == K
                assert math.isclose(_value(a, B, S, "max-eig"), opt[K - 1], rel_tol=1e-9)


def test_enumeration_with_sizes_switched_off_finds_the_others():
    """``off`` (the sizes an extension no longer needs): the remaining sizes still reach their
    brute-force optima with their supports, nothing is reported for the switched-off ones, and
    the switched-off sizes cost no more nodes than keeping them (usually far fewer)."""
    rng = np.random.default_rng(23)
    fewer = 0
    for trial in range(16):
        p = int(rng.integers(6, 13))
        X = rng.standard_normal((p + 3, p)).cumsum(axis=1 if trial % 2 else 0)
        B = X.T @ X / (p + 3) + 0.02 * np.eye(p)
        r = 1 if trial % 3 else 2
        M = rng.standard_normal((p, r))
        opt = enumerate_all(M[:, 0] if r == 1 else M, B, "trace")
        K = int(rng.integers(4, p))
        off = range(1, K - int(rng.integers(0, 2)))  # every size but K (or but K - 1 and K)
        order = rng.permutation(p)
        inc = np.full(K + 1, -np.inf)
        inc[1:K] = opt[: K - 1]  # as in an extension: the smaller sizes solved
        inc[len(off) + 1 :] = -np.inf  # the wanted ones not yet
        kern = _allk_enum.EnumKernel(M, B, K, order, inc, off=off)
        while kern.open:
            kern.step(1 if trial % 2 else 64)
        full = _allk_enum.EnumKernel(M, B, K, order, inc)
        while full.open:
            full.step(64)
        found = kern.improved()
        assert not set(found) & set(off)
        for j in range(1, K + 1):
            if j in off:
                assert kern.inc[j] == np.inf
                continue
            np.testing.assert_allclose(kern.inc[j], opt[j - 1], rtol=1e-9)
            S = found[j][1]
            assert math.isclose(_value(M[:, 0] if r == 1 else M, B, S, "trace"), opt[j - 1], rel_tol=1e-9)
        assert kern.n_nodes <= full.n_nodes
        fewer += kern.n_nodes < full.n_nodes
    assert fewer >= 4


def test_enumeration_size_follows_the_budget():
    assert _allk_enum.enumeration_size(60, 1, 60) == 7
    assert _allk_enum.enumeration_size(60, 1, 5) == 5
    assert _allk_enum.enumeration_size(60, 1, 60, budget=0) == 0
    assert _allk_enum.enumeration_size(10, 1, 10, budget=math.inf) == 9


def test_enumeration_under_limits(monkeypatch):
    """Limits that stop the enumeration leave every bound valid (the whole set bounds the open
    sizes); a completed one certifies its sizes, counted in nodes and in info."""
    monkeypatch.setattr(_allk_enum, "WORK_BUDGET", math.inf)
    monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    rng = np.random.default_rng(23)
    a, B = banded_lda(rng, 12, 15, 0.01)
    opt = enumerate_all(a, B, "max-eig")
    for limit in (1, 5, 40):
        res = exact_path(a, B, node_limit=limit)
        assert res.search_status == "node_limit" and res.n_nodes <= limit
        assert not np.any(_below(res.upper_bound, opt))
        assert np.all(res.objective <= opt * (1 + 1e-9))
        assert res.status[-1] == "optimal" and res.status[0] == "optimal"
    full = exact_path(a, B)
    assert full.info["enumeration"]["max_size"] == 11
    assert full.n_nodes == full.info["enumeration"]["nodes"] > 0
    np.testing.assert_allclose(full.objective, opt, rtol=1e-9)
    assert np.all(full.status == "optimal")


def test_tree_hands_its_time_to_the_enumeration(monkeypatch):
    """When the tree predicts that its next window will not finish, the enumeration of small sizes
    is extended first (here forced at every window): the sizes it adds are certified and equal the
    brute-force optima; with a node limit nothing is extended."""
    monkeypatch.setattr(_allk_enum, "WORK_BUDGET", 2e3)  # K = 3 at p = 14 by the budget alone
    monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    rng = np.random.default_rng(29)
    p = 14
    a, B = banded_lda(rng, p, p + 4, 0.01)
    assert _allk_enum.enumeration_size(p, 1, p) == 3
    opt = enumerate_all(a, B, "max-eig")
    wanted = _allk._extend_wanted
    calls = []

    def always(search, times):
        calls.append(wanted(search, times))  # the real rule is still evaluated (and says no here)
        return search.enum is not None and search.time_limit is not None and search.node_limit is None

    monkeypatch.setattr(_allk, "_extend_wanted", always)
    res = exact_path(a, B, time_limit=60.0)
    assert res.info["enumeration"]["max_size"] > 3 and res.info["enumeration"]["extended"] > 0
    np.testing.assert_allclose(res.objective, opt, rtol=1e-9)
    assert np.all(res.status == "optimal")
    assert not any(calls)
    other = exact_path(a, B, time_limit=60.0, node_limit=10**7)
    assert other.info["enumeration"]["max_size"] == 3 and other.info["enumeration"]["extended"] == 0
    np.testing.assert_allclose(other.objective, opt, rtol=1e-9)


@pytest.mark.parametrize("max_k", [9, 14])
def test_first_window_hands_over_to_the_enumeration(monkeypatch, max_k):
    """Under a time limit the first window of the tree gets a share of the time; past it (here at
    once: share 0, one node per chunk) the enumeration takes every size from the bottom, and
    every size is still the brute-force optimum, certified."""
    monkeypatch.setattr(_allk_enum, "WORK_BUDGET", 2e3)  # K = 3 at p = 14 by the budget alone
    monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    monkeypatch.setattr(_allk, "_FIRST_WINDOW_SHARE", 0.0)
    monkeypatch.setattr(_allk_numba, "CHUNK", 1)
    rng = np.random.default_rng(31)
    p = 14
    a, B = banded_lda(rng, p, p + 4, 0.01)
    opt = enumerate_all(a, B, "max-eig")[:max_k]
    res = exact_path(a, B, max_k=max_k, time_limit=60.0)
    assert "handover_s" in res.info["tree"]
    assert res.info["enumeration"]["max_size"] >= max_k - 1
    np.testing.assert_allclose(res.objective, opt, rtol=1e-9)
    assert np.all(res.status == "optimal")
    # without a time limit the window is never cut short
    res = exact_path(a, B, max_k=max_k)
    assert "handover_s" not in res.info["tree"]
    np.testing.assert_allclose(res.objective, opt, rtol=1e-9)


def test_first_window_far_from_the_top_is_left_to_the_enumeration(monkeypatch):
    """Under a time limit, a first window at or below half of the features gets no share: the
    enumeration takes every size from the bottom at once (the tree then gets what is left), and
    every size is the brute-force optimum, certified; above half, or without a time limit, the
    window is searched first as before."""
    monkeypatch.setattr(_allk_enum, "WORK_BUDGET", 2e3)  # K = 3 at p = 14 by the budget alone
    monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    rng = np.random.default_rng(37)
    p = 14
    a, B = banded_lda(rng, p, p + 4, 0.01)
    opt = enumerate_all(a, B, "max-eig")
    res = exact_path(a, B, max_k=7, time_limit=60.0)
    assert res.info["tree"].get("skipped_first_window") and res.info["tree"]["windows"] == 0
    assert res.info["enumeration"]["max_size"] >= 6
    assert set(res.info["enumeration"]["size_s"]) == set(range(4, res.info["enumeration"]["max_size"] + 1))
    np.testing.assert_allclose(res.objective, opt[:7], rtol=1e-9)
    assert np.all(res.status == "optimal")
    for kwargs in ({"max_k": 8, "time_limit": 60.0}, {"max_k": 7}):
        res = exact_path(a, B, **kwargs)
        assert not res.info["tree"].get("skipped_first_window")
        np.testing.assert_allclose(res.objective, opt[: kwargs["max_k"]], rtol=1e-9)
        assert np.all(res.status == "optimal")


def test_enumeration_and_tree_meet_in_the_middle(monkeypatch):
    """Without a time limit, the enumeration's next size goes before a window whenever it is
    predicted cheaper per size (here forced): the two meet, every size is certified with its
    brute-force optimum, and each size is closed once (by the enumeration or by a window)."""
    monkeypatch.setattr(_allk_enum, "WORK_BUDGET", 2e3)
    monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    rng = np.random.default_rng(31)
    cheaper = _allk._enum_cheaper
    for trial in range(4):
        p = 14
        a, B = banded_lda(rng, p, p + 4, 0.01)
        opt = enumerate_all(a, B, "max-eig")
        steps = []

        def forced(search, window, times, done, n=trial):
            cheaper(search, window, times, done)  # the real rule runs too
            ok = bool(window) and _allk._enum_next(search) is not None and len(steps) < 2 + 2 * n
            steps.append(ok)
            return ok

        monkeypatch.setattr(_allk, "_enum_cheaper", forced)
        res = exact_path(a, B)
        extended = res.info["enumeration"]["extended"]
        assert extended == sum(steps) and extended > 0
        assert res.info["enumeration"]["max_size"] == 3 + extended
        np.testing.assert_allclose(res.objective, opt, rtol=1e-9)
        assert np.all(res.status == "optimal")


@pytest.mark.parametrize("overrun", [False, True])
def test_probes_from_the_top_match_brute_force(monkeypatch, overrun):
    """Before every window the enumeration of its largest size alone is tried within the window's
    predicted seconds per size (forced from any window here): sizes it completes are closed from
    the top; one that overruns (a budget of one node per step, forced) ends the probing and the
    window goes on. Either way every size gets its brute-force optimum."""
    monkeypatch.setattr(_allk_enum, "WORK_BUDGET", 2e3)
    monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    monkeypatch.setattr(_allk_parallel, "PROBE_MIN_S", 0.0)
    if overrun:
        monkeypatch.setattr(_allk, "_window_prediction", lambda window, times, done: 0.0)
        monkeypatch.setattr(_allk_enum, "CHUNK", 1)
    else:  # no decision read from timings (a busy machine changed them): the tree's windows go on
        # after the enumeration's first sizes, and each probe gets a budget it cannot overrun
        probe = _allk._probe_from_top
        monkeypatch.setattr(_allk, "_probe_from_top", lambda search, window, budget: probe(search, window, 60.0))
        monkeypatch.setattr(_allk, "_enum_cheaper", lambda search, window, times, done: False)
    rng = np.random.default_rng(32)
    for _ in range(3):
        p = 14
        a, B = banded_lda(rng, p, p + 4, 0.01)
        opt = enumerate_all(a, B, "max-eig")
        res = exact_path(a, B)
        top = res.info["enumeration"]["from_top"]
        if overrun:
            assert top == []
        else:
            assert top and top == sorted(top, reverse=True) and min(top) > res.info["enumeration"]["max_size"]
        np.testing.assert_allclose(res.objective, opt, rtol=1e-9)
        assert np.all(res.status == "optimal")


def test_per_size_rule_compares_the_next_enumerated_size_with_a_window_size():
    """The enumeration goes first when its next size (last time times growth; before two are
    timed, times the growth of its work estimate) costs less than a size of the next window."""
    p = 60

    class S:
        node_limit, max_k, r = None, p, 1

    s = S()
    s.p = p
    s.out = np.zeros(p + 1, bool)
    s.out[:8] = True  # sizes 1..7 enumerated
    s.enum = {"K": 7, "times": [1.0]}
    growth = _allk_enum.enumeration_work(p, 1, 8) / _allk_enum.enumeration_work(p, 1, 7)
    assert 8 < growth < 10  # Sonar's shape: the estimate says 8.8
    assert _allk._enum_next(s) == (8, pytest.approx(growth))
    window = [20, 21, 22, 23]
    above = {24, 25, 26, 27}  # the last window certified 24..27: the next one is one step down
    assert not _allk._enum_cheaper(s, window, [], above)  # no window timed yet: the tree first
    assert _allk._enum_cheaper(s, window, [2.0, 30.0], above)  # 30 x 15 / 4 = 112 s per size > 8.8 s
    assert not _allk._enum_cheaper(s, window, [1.0, 2.0], above)  # 2 x 2 / 4 = 1 s per size
    assert not _allk._enum_cheaper(s, window, [30.0], above)  # one window: growth taken as 1, 7.5 s per size
    s.enum["times"] = [1.0, 4.0, 14.0]  # single sizes timed: growth 3.5, next 49 s
    assert _allk._enum_next(s) == (8, pytest.approx(49.0))
    assert not _allk._enum_cheaper(s, window, [10.0, 20.0], above)  # 40 s / 4 = 10 s per size
    assert not _allk._enum_cheaper(s, window, [20.0, 60.0], above)  # 180 s / 4 = 45 s per size < 49 s
    assert _allk._enum_cheaper(s, window, [20.0, 80.0], above)  # 320 s / 4 = 80 s per size
    s.out[8] = True  # size 8 closed by the tree: they have met
    assert _allk._enum_next(s) is None and not _allk._enum_cheaper(s, window, [1.0, 1000.0], above)
    s.out[8] = False
    s.node_limit = 10
    assert not _allk._enum_cheaper(s, window, [1.0, 1000.0], above)


def test_window_prediction_counts_the_steps_down_to_the_next_window():
    """The next window's prediction grows once per window of sizes between the lowest size a
    window certified and the top of the next one (sizes enumerated from the top in between); the
    windows' growth is the largest ratio between windows of at least half a second."""
    growth = _allk_parallel.window_growth
    assert growth([]) == 1.0 and growth([3.0]) == 1.0
    assert growth([0.1, 0.4, 1.9, 5.3, 11.3]) == pytest.approx(5.3 / 1.9)  # 0.4 / 0.1 is noise
    assert growth([2.0, 1.0]) == 1.0  # never below 1
    times = [1.0, 2.0, 6.0]  # growth 3
    assert _allk._window_prediction([23, 22, 21, 20], times, {24, 25}) == pytest.approx(18.0)
    assert _allk._window_prediction([19, 18, 17, 16], times, {24, 25}) == pytest.approx(54.0)  # two steps
    assert _allk._window_prediction([15, 14], times, {24}) == pytest.approx(6.0 * 27)  # three


def test_extension_rule_predicts_the_next_window():
    """The rule: the last window's time times its growth over the one before, against twice the time left."""

    class S:
        enum, node_limit, time_limit = {"K": 7}, None, 100.0

    s = S()
    s.t0 = time.perf_counter()  # about 100 s left
    assert not _allk._extend_wanted(s, [5.0])  # one window: no growth known
    assert not _allk._extend_wanted(s, [0.1, 0.5])  # the last window under a second
    assert not _allk._extend_wanted(s, [5.0, 15.0])  # 45 s predicted
    assert not _allk._extend_wanted(s, [5.0, 25.0])  # 125 s predicted: a near miss, the window goes on
    assert _allk._extend_wanted(s, [5.0, 50.0])  # 500 s predicted
    assert _allk._extend_wanted(s, [40.0, 30.0]) is False  # shrinking: 30 s predicted
    s.time_limit = None
    assert not _allk._extend_wanted(s, [5.0, 50.0])
    s.time_limit, s.enum = 100.0, None
    assert not _allk._extend_wanted(s, [5.0, 50.0])


def test_cardinality_gershgorin_bounds_every_principal_submatrix():
    """g[t] >= lambda_max and 2 - g[t] <= lambda_min of every t x t principal submatrix of the
    correlation matrix (the per-size nu and mu of the tree's bounds), checked by enumeration."""
    from pixsel.spectral.exact import _allk_numba

    _allk_numba._compiled_kernel()
    rng = np.random.default_rng(31)
    for trial in range(24):
        n = int(rng.integers(2, 16 if trial % 4 == 0 else 9))
        X = rng.standard_normal((n + 2, n)).cumsum(axis=1)
        P = np.zeros((n + 2, n + 2))
        m = 2 if trial % 2 else 0
        P[m : m + n, m : m + n] = X.T @ X + 0.01 * np.eye(n)
        P[:m, :m] = np.eye(m)
        tmax = int(rng.integers(1, n + 1)) if trial % 3 else n
        g = _allk_numba._card_gershgorin(P, m, n, tmax)
        Q = P[m : m + n, m : m + n]
        C = Q / np.sqrt(np.outer(np.diag(Q), np.diag(Q)))
        off = np.sort(np.abs(C - np.diag(np.diag(C))), axis=1)[:, ::-1]  # rows, descending
        ref = 1 + np.concatenate(([0.0], np.max(np.cumsum(off[:, : n - 1], axis=1), axis=0)))
        np.testing.assert_allclose(g[1 : tmax + 1], ref[:tmax], rtol=1e-12)
        for t in range(1, tmax + 1):
            ev = [np.linalg.eigvalsh(C[np.ix_(T, T)]) for T in itertools.combinations(range(n), t)]
            assert max(e[-1] for e in ev) <= g[t] + 1e-12
            assert min(e[0] for e in ev) >= 2 - g[t] - 1e-12


def test_one_status_vocabulary_and_the_deprecated_stop_reason():
    """Per size and for the whole path the words of ``exact_support`` (``STATUSES``): a size not
    proved says why the search ended; ``stop_reason`` still answers in its old words, with a
    FutureWarning, and the JSON summary carries both."""
    from pixsel.spectral.exact._result import STATUSES

    rng = np.random.default_rng(41)
    a = rng.standard_normal(12)
    X = rng.standard_normal((14, 12))
    B = X.T @ X / 14 + 0.05 * np.eye(12)
    done = exact_path(a, B)
    stopped = exact_path(a, B, node_limit=1)
    assert done.search_status == "optimal" and set(done.status.tolist()) == {"optimal"}
    assert stopped.search_status == "node_limit"
    assert set(stopped.status.tolist()) == {"optimal", "node_limit"}
    assert set(stopped.status.tolist()) <= set(STATUSES)
    np.testing.assert_array_equal(stopped.certified, stopped.status == "optimal")
    # the relative gap is (upper bound - objective) / |objective|, zero where proved
    np.testing.assert_allclose(stopped.relative_gap,
                               (stopped.upper_bound - stopped.objective) / np.abs(stopped.objective))
    assert np.all(stopped.relative_gap[stopped.certified] == 0) and np.any(stopped.relative_gap > 0)
    with pytest.warns(FutureWarning, match="search_status"):
        assert done.stop_reason == "completed"
    with pytest.warns(FutureWarning, match="search_status"):
        assert stopped.stop_reason == "node_limit"
    d = stopped.to_dict()
    assert d["search_status"] == "node_limit" and d["stop_reason"] == "node_limit"
    assert done.to_dict()["stop_reason"] == "completed" and d["status"] == stopped.status.tolist()


def test_compiled_kernels_run_once_per_kind_before_the_first_search(monkeypatch, count_calls):
    """The search plans from the seconds it measures, so the compiled kernels run once per
    process (on small problems of the same kind) before the first search times anything: two
    warm-up searches for an additive problem (the enumeration, the tree), one for another,
    none again; the results are those of brute force either way."""
    monkeypatch.setattr(_allk, "_KERNELS_READY", set())
    calls = count_calls(_allk, "exact_path")
    rng = np.random.default_rng(7)
    A, B = _pair(rng, 7, "vector")
    B = np.eye(7) if B is None else B
    first = _allk.exact_path(A, B)
    assert len(calls) == 1 + 2 and _allk._KERNELS_READY == {True}
    again = _allk.exact_path(A, B)
    assert len(calls) == 4
    np.testing.assert_allclose(first.objective, enumerate_all(A, B, "max-eig"), rtol=1e-9)
    np.testing.assert_array_equal(first.objective, again.objective)
    F = rng.standard_normal((7, 2))
    full = _allk.exact_path(F @ F.T, B, criterion="max-eig")  # not additive: the tree's kernels
    assert len(calls) == 4 + 1 + 1 and _allk._KERNELS_READY == {True, False}
    np.testing.assert_allclose(full.objective, enumerate_all(F @ F.T, B, "max-eig"), rtol=1e-9)
    _allk.exact_path(A, B, gap_tol=0.5)  # the NumPy search (gap_tol > 0): nothing compiled to run
    assert len(calls) == 7
