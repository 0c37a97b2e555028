"""exact_path on several worker processes (n_jobs > 1) against brute force and the one-process search.

The sizes become independent tasks (an enumeration of one size, or a window of the tree) on
worker processes; every size must still get its brute-force optimum, a stopped parallel search
must never bound a size below its optimum, and the caller's arrays stay untouched."""

import math
import multiprocessing
import time

import numpy as np
import pytest
from joblib.externals import loky

from pixsel.spectral import exact_path
from pixsel.spectral.exact import _allk, _allk_enum, _allk_parallel

from .test_exact_path import _below, _value, banded_lda, enumerate_all, random_problems

@pytest.fixture(autouse=True)
def parallel_from_any_size(monkeypatch):
    """The workers start from any number of features here (by default from 24: below, one process
    is faster), so that brute force can check them."""
    monkeypatch.setattr(_allk, "_PARALLEL_MIN_FEATURES", 0)


class _SharedPool:
    """Stands in for loky's ``ProcessPoolExecutor`` in run_parallel: the module's pool of that
    many workers, started once (each fresh worker imports NumPy and pixsel and loads the compiled
    kernels, about 1.5 s of CPU, more than most searches here take), left running by
    ``shutdown``. Every task is done or cancelled before run_parallel returns, so a search finds
    the pool idle, as a fresh one; test_same_optima_as_one_process runs on a fresh pool of its own
    and checks that it is shut down."""

    pools = {}

    def __init__(self, max_workers):
        pool = self.pools.get(max_workers)
        if pool is None or pool._flags.broken:  # a broken pool (a worker died) is replaced
            pool = self.pools[max_workers] = _REAL_POOL(max_workers=max_workers)
        self._pool = pool

    def submit(self, fn, *args, **kwargs):
        return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait=True):
        pass


_REAL_POOL = loky.ProcessPoolExecutor


@pytest.fixture(scope="module")
def _shared_pools():
    yield _SharedPool.pools
    for pool in _SharedPool.pools.values():
        pool.shutdown(wait=True)
    _SharedPool.pools.clear()


@pytest.fixture(autouse=True)
def shared_pool(monkeypatch, _shared_pools):
    """The module's searches share their worker processes (see _SharedPool)."""
    monkeypatch.setattr(loky, "ProcessPoolExecutor", _SharedPool)


def _kinds(res):
    return [(t["kind"], len(t["sizes"])) for t in res.info["parallel"]["tasks"]]


@pytest.mark.parametrize("form,criterion", [("vector", "max-eig"), ("factor", "trace"), ("factor", "max-eig"),
                                            ("psd", "max-eig")])
def test_windows_on_workers_match_brute_force(form, criterion):
    """Below 24 features only the tree runs: its windows on two workers, every size optimal."""
    rng = np.random.default_rng([len(form), len(criterion)])
    for p, A, B, Bf, opt in random_problems(rng, 1, 9, 12, form, criterion):
        res = exact_path(A, B, criterion=criterion, n_jobs=2)
        assert res.info["parallel"]["n_jobs"] == 2
        assert res.search_status == "optimal" and np.all(res.status == "optimal")
        np.testing.assert_allclose(res.objective, opt, rtol=1e-8, atol=1e-10)
        assert {kind for kind, _ in _kinds(res)} == {"tree"}
        for k in range(1, p + 1):
            assert math.isclose(_value(A, Bf, res.support(k), criterion), opt[k - 1], rel_tol=1e-8, abs_tol=1e-10)


def test_one_size_enumerations_and_second_routes_match_brute_force(monkeypatch):
    """The enumeration forced on (a block of size 3, then one size per task), three workers: the
    sizes are shared between one-size enumerations and windows (and, timing permitting, second
    routes); every size still gets its brute-force optimum."""
    monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    monkeypatch.setattr(_allk_parallel, "_BLOCK_MAX", 3)
    rng = np.random.default_rng(40)
    seen = set()
    for _ in range(2):
        p = 12
        a, B = banded_lda(rng, p, 16, 0.02)
        a0, B0 = a.copy(), B.copy()
        opt = enumerate_all(a, B, "max-eig")
        res = exact_path(a, B, n_jobs=3)
        assert np.array_equal(a, a0) and np.array_equal(B, B0)
        assert res.search_status == "optimal" and np.all(res.status == "optimal")
        np.testing.assert_allclose(res.objective, opt, rtol=1e-8)
        np.testing.assert_allclose(res.upper_bound, res.objective)
        seen.update(_kinds(res))
        tasks = res.info["parallel"]["tasks"]
        # every open size (not 1, 2 or p: closed forms) was certified by a completed task
        done = set().union(*(t["sizes"] for t in tasks if t["status"] == "optimal"))
        assert done >= set(range(3, p))
    assert ("enum", 1) in seen and ("tree", 4) in seen


def test_probes_from_the_top_on_workers_match_brute_force(monkeypatch):
    """Every fresh window forced to the tree and predicted worth a probe: each window's largest
    size is enumerated alone first, so the probes certify every size above the first enumeration
    from the top down, with its brute-force optimum."""
    monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    monkeypatch.setattr(_allk_parallel, "_BLOCK_MAX", 3)
    monkeypatch.setattr(_allk_parallel._Coordinator, "_pick", lambda self, e, window, primary: "tree")
    monkeypatch.setattr(_allk_parallel._Coordinator, "_tree_cost", lambda self, window: 10.0)
    rng = np.random.default_rng(41)
    for _ in range(1):
        p = 13
        a, B = banded_lda(rng, p, 16, 0.02)
        opt = enumerate_all(a, B, "max-eig")
        res = exact_path(a, B, n_jobs=2)
        assert res.search_status == "optimal" and np.all(res.status == "optimal")
        np.testing.assert_allclose(res.objective, opt, rtol=1e-8)
        assert sorted(res.info["enumeration"]["from_top"]) == list(range(4, p))
        probes = [t for t in res.info["parallel"]["tasks"] if t["kind"] == "enum" and t["sizes"] != [3]]
        assert all(len(t["sizes"]) == 1 and t["status"] == "optimal" for t in probes)


def test_probe_from_the_top_on_the_coordinator():
    """A window predicted to take PROBE_MIN_S or more gets a probe of its largest size (budget:
    the window's predicted seconds per size); one that overruns gives its size back and ends the
    probing, and the window goes to the tree."""
    co = _allk_parallel._Coordinator(_Search(), np.arange(12), 2, True)
    co.K0, co.block_started, co.flags_path = 3, True, "unused"
    co.running = {}
    co.certified = {3, 4}
    co.enum_times = {3: 100.0, 4: 200.0}  # the enumeration from the bottom: far dearer
    co.window_times = [(12, 10.0)]  # the next window: 10 s, 2.5 s per size
    spec = co.next_task()
    assert spec["kind"] == "enum" and spec["sizes"] == [11] and spec["off"] == list(range(1, 11))
    assert spec["probe"] and spec["time_left"] == pytest.approx(2.5)
    co.running = {}
    co.search.offer = lambda value, S: None
    co.merge(spec, {"kind": "enum", "sizes": [11], "status": "time_limit", "found": {}, "nodes": 5,
                    "counters": (1, 1), "seconds": 2.5, "ub": None})
    assert 11 not in co.covered and not co.probing and co.held[11] == set()
    spec = co.next_task()
    assert spec["kind"] == "tree" and spec["sizes"] == [8, 9, 10, 11] and not spec["probe"]
    co.window_times = [(12, 0.1)]  # a cheap window is not probed
    co.probing, co.covered = True, set()
    for j in range(5, 12):
        co.held[j] = set()
    assert co.next_task()["kind"] == "tree"


def test_same_optima_as_one_process(monkeypatch):
    """p = 30 (the block of the enumeration, one-size tasks and windows) on two workers of a pool
    of the call's own, which no worker process outlives."""
    monkeypatch.setattr(loky, "ProcessPoolExecutor", _REAL_POOL)
    rng = np.random.default_rng(8)
    p = 30
    X = rng.standard_normal((2 * p, p)) @ rng.standard_normal((p, p)) * 0.3 + rng.standard_normal((2 * p, p))
    B = np.cov(X.T) + 0.1 * np.eye(p)
    a = rng.standard_normal(p)
    one = exact_path(a, B)
    before = set(multiprocessing.active_children())
    two = exact_path(a, B, n_jobs=2)
    assert set(multiprocessing.active_children()) <= before  # the call's workers are gone
    assert np.all(one.status == "optimal") and np.all(two.status == "optimal")
    np.testing.assert_allclose(two.objective, one.objective, rtol=1e-9)
    # the enumeration took part; how far it got depends on which worker finished first (1 of 4
    # runs on a busy machine stopped it at 2 sizes, the tree's windows having closed the rest)
    assert two.info["enumeration"]["max_size"] >= 1


def _hard_pair(seed=1, p=40):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((60, p)).cumsum(axis=1)
    B = X.T @ X / 60 + 0.01 * np.eye(p)
    return rng.standard_normal(p), B


def test_stopped_parallel_search_keeps_valid_bounds():
    """A time limit that stops the workers: every bound at or above the optimum the one-process
    search certifies; the certified sizes at their optima; monotone caps. (The one-process search
    takes seconds here, so both limits stop the workers mid-search.)"""
    a, B = _hard_pair()
    ref = exact_path(a, B)
    assert np.all(ref.status == "optimal")
    for limit in (0.0, 0.3):
        res = exact_path(a, B, n_jobs=2, time_limit=limit)
        assert res.search_status in ("time_limit", "optimal")
        # one vocabulary: a size not proved says why the search ended
        assert set(res.status.tolist()) <= {"optimal", res.search_status}
        assert not np.any(_below(res.upper_bound, ref.objective))
        assert np.all(res.objective <= ref.objective * (1 + 1e-9) + 1e-12)
        proved = res.status == "optimal"
        np.testing.assert_allclose(res.objective[proved], ref.objective[proved], rtol=1e-8)
        cap = np.maximum(res.upper_bound[1:], res.objective[1:])
        assert np.all(res.upper_bound[:-1] <= cap * (1 + 1e-12) + 1e-12)


def test_ctrl_c_in_the_coordinator_returns_a_certified_partial_path(monkeypatch):
    """Ctrl-C (a KeyboardInterrupt from the progress callback) stops every worker; the result is
    'interrupted' with valid bounds."""
    monkeypatch.setattr(_allk_parallel, "_REPORT_EVERY", 0.0)
    a, B = _hard_pair(seed=2)
    ref = exact_path(a, B)
    calls = []

    def interrupt(state):
        calls.append(state)
        if len(calls) == 2:
            raise KeyboardInterrupt

    res = exact_path(a, B, n_jobs=2, callback=interrupt)
    assert res.search_status in ("interrupted", "optimal")
    assert set(res.status.tolist()) <= {"optimal", "interrupted"}
    assert not np.any(_below(res.upper_bound, ref.objective))
    assert np.all(res.upper_bound >= res.objective)


def test_progress_and_node_limit_and_bad_n_jobs(monkeypatch):
    a, B = _hard_pair(seed=3, p=26)
    states = []
    res = exact_path(a, B, n_jobs=2, callback=states.append)
    assert states and states[-1].gap == 0.0 and states[-1].nodes == res.n_nodes
    # a node limit keeps the search on one process (reproducible), and so do small problems
    limited = exact_path(a, B, n_jobs=2, node_limit=5)
    assert limited.info["parallel"]["n_jobs"] == 1
    monkeypatch.setattr(_allk, "_PARALLEL_MIN_FEATURES", 27)
    small = exact_path(a, B, n_jobs=2)
    assert small.info["parallel"]["n_jobs"] == 1
    np.testing.assert_allclose(small.objective, res.objective, rtol=1e-9)
    with pytest.raises(ValueError, match="n_jobs"):
        exact_path(a, B, n_jobs=0)
    with pytest.raises(TypeError, match="n_jobs"):
        exact_path(a, B, n_jobs=1.5)
    assert _allk_parallel.effective_jobs(-1, "exact_path") >= 1
    assert _allk_parallel.effective_jobs(None, "exact_path") == 1


def test_schedule_prefers_the_cheaper_stream():
    """The rule on synthetic timings: a one-size enumeration predicted cheaper than a size of the
    next window goes first; unknown costs go to the stream with nothing running."""

    class S:  # the fields the coordinator reads
        p, r, max_k = 60, 1, 59
        out = np.zeros(61, bool)

    co = _allk_parallel._Coordinator(S(), np.arange(60), 2, True)
    co.running = {}
    assert co._pick(12, [56, 57, 58, 59], True) == "enum"  # nothing known, nothing running
    co.running = {object(): {"kind": "enum", "sizes": [3, 4, 5, 6, 7], "t_start": time.perf_counter()}}
    assert co._pick(12, [56, 57, 58, 59], True) == "tree"
    co.enum_times = {10: 30.0, 11: 60.0}  # size 12: predicted 120 s
    co.window_times = [(24, 50.0), (20, 330.0)]  # next window: 330 * 6.6 / 4 s per size
    assert co._enum_cost(12) == pytest.approx(120.0)
    assert co._pick(12, [16, 17, 18, 19], True) == "enum"
    assert co._tree_cost([16, 17, 18, 19]) == pytest.approx(330.0 * 6.6 / 4)
    assert co._tree_cost([12, 13, 14, 15]) == pytest.approx(330.0 * 6.6**2 / 4)  # two windows below
    co.window_times = [(28, 10.0), (24, 20.0)]  # next window: 40 / 4 s per size
    assert co._pick(12, [20, 21, 22, 23], True) == "tree"
    co.block, co.enum_times = (7, 2.0), {}
    work = _allk_enum.enumeration_work
    assert co._enum_cost(9) == pytest.approx(2.0 * work(60, 1, 9) / work(60, 1, 7))


class _FakeKernel:
    """A kernel that stays open for ``n`` steps (or raises Ctrl-C at step ``interrupt_at``)."""

    def __init__(self, n, interrupt_at=None, on_step=None):
        self.left, self.interrupt_at, self.on_step = n, interrupt_at, on_step
        self.steps = 0
        self.inc = np.zeros(8)

    @property
    def open(self):
        return self.left > 0

    def step(self, budget):
        self.steps += 1
        if self.steps == self.interrupt_at:
            raise KeyboardInterrupt
        self.left -= 1
        if self.on_step is not None:
            self.on_step(self.steps)


def test_worker_loop_statuses():
    """The worker's loop: done, deadline, the coordinator's stop, every size certified elsewhere
    (cancelled), a window switching a size certified elsewhere off, and Ctrl-C in the worker."""
    sizes = np.array([3, 4])
    flags = np.zeros(8, np.int8)
    drive = _allk_parallel._drive
    assert drive(_FakeKernel(3), 1, sizes, flags, None, True) == "optimal"
    assert drive(_FakeKernel(3), 1, sizes, flags, time.perf_counter() - 1.0, True) == "time_limit"
    assert drive(_FakeKernel(3, interrupt_at=2), 1, sizes, flags, None, True) == "interrupted"
    kern = _FakeKernel(5, on_step=lambda s: flags.__setitem__(3, 1) if s == 1 else None)
    assert drive(kern, 1, sizes, flags, None, True) == "optimal"
    assert kern.inc[3] == np.inf and kern.inc[4] == 0.0  # size 3 switched off, size 4 still searched
    flags[4] = 1
    kern = _FakeKernel(5)
    assert drive(kern, 1, sizes, flags, None, True) == "cancelled" and kern.steps == 1
    flags[:] = 0
    flags[0] = 1
    assert drive(_FakeKernel(5), 1, sizes, flags, None, False) == "interrupted"


class _Search:
    """The fields of a search the coordinator reads."""

    p, r, max_k, additive = 12, 1, 12, True
    time_limit, t0 = None, 0.0

    def __init__(self):
        self.out = np.zeros(13, bool)
        self.out[[1, 2, 12]] = True  # closed forms
        self.inc = np.zeros(13)
        self.sup = [None] * 13
        self.M = np.ones((12, 1))
        self.B = np.eye(12)


def test_second_route_goes_to_the_cheaper_stream():
    """Every size held: a free worker enumerates the lowest size held only by a window, or gives
    the sizes held only by enumerations a window, whichever is predicted cheaper; certified sizes
    and sizes held by both streams get nothing."""
    co = _allk_parallel._Coordinator(_Search(), np.arange(12), 3, True)
    co.K0, co.block_started, co.flags_path = 3, True, "unused"
    now = time.perf_counter()
    co.running = {1: {"kind": "tree", "sizes": [5, 6, 7, 8], "t_start": now},
                  2: {"kind": "enum", "sizes": [9], "t_start": now},
                  3: {"kind": "enum", "sizes": [10], "t_start": now},
                  4: {"kind": "tree", "sizes": [10, 11], "t_start": now}}
    co.covered = set(range(3, 12))
    co.certified = {3, 4}
    for j in range(3, 12):
        co.held[j] = set()
    for spec in co.running.values():
        for j in spec["sizes"]:
            co.held[j].add(spec["kind"])
    co.enum_times = {3: 0.001, 4: 0.002}  # enumerating size 5 alone: about 0.004 s
    co.window_times = [(10, 100.0)]  # a window below it: 100 s for its one size
    spec = co.next_task()
    assert spec["kind"] == "enum" and spec["sizes"] == [5] and spec["K"] == 5 and spec["off"] == [1, 2, 3, 4]
    assert co.held[5] == {"tree", "enum"}
    co.enum_times = {3: 100.0, 4: 200.0}
    co.window_times = [(12, 0.01)]
    spec = co.next_task()  # size 6 is next for the enumeration, but the window is cheaper
    assert spec["kind"] == "tree" and spec["sizes"] == [9]
    co.certified.update(range(5, 12))
    assert co.next_task() is None  # nothing open


def test_first_window_hands_its_worker_to_the_enumerations(monkeypatch):
    """Under a time limit the first window stops after its share of the time (here at once); its
    sizes go back to one-size enumerations and no window starts again: every size is still the
    optimum of the one-process search, certified."""
    monkeypatch.setattr(_allk, "_ENUM_MIN_FEATURES", 0)
    monkeypatch.setattr(_allk_parallel, "_BLOCK_MAX", 3)
    monkeypatch.setattr(_allk_parallel, "FIRST_WINDOW_SHARE", 0.0)
    rng = np.random.default_rng(8)
    a, B = banded_lda(rng, 20, 24, 0.01)
    serial = exact_path(a, B, max_k=10)
    assert np.all(serial.status == "optimal")
    res = exact_path(a, B, max_k=10, n_jobs=2, time_limit=120.0)
    tasks = res.info["parallel"]["tasks"]
    trees = [t for t in tasks if t["kind"] == "tree"]
    assert trees and trees[0]["status"] == "time_limit" and len(trees) == 1
    assert {tuple(t["sizes"]) for t in tasks if t["kind"] == "enum" and t["status"] == "optimal"} >= {(j,) for j in range(4, 11)}
    assert np.all(res.status == "optimal")
    np.testing.assert_allclose(res.objective, serial.objective, rtol=1e-9)
