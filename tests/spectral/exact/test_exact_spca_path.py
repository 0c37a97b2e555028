"""exact_spca_path: every size of a sparse PCA problem under one time limit, planned from the gaps.

Oracles: brute force over every support on small problems (the optimum of each size, which no
reported objective may pass and no certified bound may fall below), the value of the support a
result holds (recomputed from scratch), and a planted poor incumbent that the neighbours' supports
must raise. The plan's order is checked with the search replaced by a recorder.
"""

import itertools

import numpy as np
import pytest

from pixsel.spectral import exact_spca_path
from pixsel.spectral.exact import _spca_path


def _lam(A, S):
    return float(np.linalg.eigvalsh(A[np.ix_(list(S), list(S))])[-1])


def _brute(A, k):
    return max((_lam(A, S), list(S)) for S in itertools.combinations(range(A.shape[0]), k))


def _correlated(seed, p=10, n=40):
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, p)) + rng.normal(size=(n, 1))  # correlated columns, as neighbouring pixels
    return np.cov(F, rowvar=False)


def _brownian(p):
    t = np.arange(1, p + 1, dtype=float)
    return np.minimum.outer(t, t) / p  # a random walk's covariance: every pixel correlated with the next


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("A", [_correlated(0), _correlated(1, p=9), _brownian(9)], ids=["random0", "random1", "brownian"])
def test_every_size_certified_and_equal_to_brute_force(A, n_jobs):
    A0 = A.copy()
    p = A.shape[0]
    path = exact_spca_path(A, p, time_limit=60, n_jobs=n_jobs)
    np.testing.assert_array_equal(A, A0)  # the caller's array is not modified
    assert path.max_k == p and path.search_status == "optimal" and path.certified.all()
    for k in range(1, p + 1):
        opt, _ = _brute(A, k)
        S = path.support(k)
        assert len(S) == k == len(set(S.tolist()))
        assert path.objective[k - 1] == pytest.approx(_lam(A, S), rel=1e-12)  # the value of the support it holds
        assert path.objective[k - 1] == pytest.approx(opt, rel=1e-9)
        assert path.upper_bound[k - 1] == pytest.approx(opt, rel=1e-9)
    assert np.all(np.diff(path.upper_bound) >= -1e-9 * path.upper_bound[1:])  # monotone in k
    assert sum(path.info["nodes"]) == path.n_nodes and len(path.info["time_s"]) == p
    assert set(path.info["root_bounds"]) == set(range(1, p + 1))
    for k, root in path.info["root_bounds"].items():  # every root bound is certified
        assert min(root.values()) >= _brute(A, k)[0] * (1 - 1e-9)


def test_open_sizes_keep_certified_bounds_and_the_plan_records_its_work():
    """A time limit far too short to prove anything past the first sizes: every size still holds a
    support, a bound no lower than the brute-force optimum, and its status says why it stopped."""
    A = _correlated(3, p=16, n=30)
    max_k = 7
    path = exact_spca_path(A, max_k, time_limit=0.02, first_limit=1e-4)
    for k in range(1, max_k + 1):
        opt, _ = _brute(A, k)
        S = path.support(k)
        assert len(S) == k and path.objective[k - 1] == pytest.approx(_lam(A, S), rel=1e-12)
        assert path.objective[k - 1] <= opt * (1 + 1e-12)
        assert path.upper_bound[k - 1] >= opt * (1 - 1e-9)  # a certified bound never below the optimum
        assert path.status[k - 1] in ("optimal", "time_limit")
        if path.status[k - 1] == "optimal":
            assert path.objective[k - 1] == pytest.approx(opt, rel=1e-9)
    assert path.search_status in ("optimal", "time_limit")


def test_ctrl_c_returns_what_the_plan_holds():
    """Ctrl-C (here raised by the callback after the first size) ends the plan: the sizes not yet
    searched keep the greedy path's support and a certified bound, status 'interrupted'."""
    A = _correlated(4, p=11)
    states = []

    def stop(state):
        states.append(state)
        raise KeyboardInterrupt

    path = exact_spca_path(A, 5, time_limit=30, callback=stop)
    assert len(states) == 1 and states[0].incumbent > 0 and states[0].gap >= 0
    assert path.search_status == "interrupted"
    assert path.status[0] == "optimal" and (path.status[1:] == "interrupted").all()
    for k in range(1, 6):
        opt, _ = _brute(A, k)
        assert path.objective[k - 1] == pytest.approx(_lam(A, path.support(k)), rel=1e-12)
        assert path.objective[k - 1] <= opt * (1 + 1e-12) and path.upper_bound[k - 1] >= opt * (1 - 1e-9)


def test_ctrl_c_stops_the_searches_under_way_on_other_threads(monkeypatch):
    """With two threads, Ctrl-C (raised by the callback after the first size, in its thread) also
    stops the search another thread is running: it ends at its next node with status
    'interrupted' instead of running out its time, and every size keeps a certified bound."""
    A = _correlated(4, p=11)
    real = _spca_path.spca_size
    started = []

    def long_search(A_, k, limit, initial, spectrum, halt):
        started.append(k)
        if k > 1:  # a search that would run for its whole limit, unless the plan halts it
            assert halt.wait(timeout=120), "the plan never halted the search under way"
        return real(A_, k, limit, initial, spectrum, halt)

    def stop(state):
        raise KeyboardInterrupt

    monkeypatch.setattr(_spca_path, "spca_size", long_search)
    path = exact_spca_path(A, 5, time_limit=600, n_jobs=2, callback=stop)
    assert sorted(started) == [1, 2]  # two at once; no size handed out after Ctrl-C
    assert path.search_status == "interrupted"
    assert path.status[0] == "optimal" and (path.status[1:] == "interrupted").all()
    assert path.info["nodes"][1] <= 1  # size 2 stopped at its first node
    for k in range(1, 6):
        opt, _ = _brute(A, k)
        assert path.objective[k - 1] == pytest.approx(_lam(A, path.support(k)), rel=1e-12)
        assert path.objective[k - 1] <= opt * (1 + 1e-12) and path.upper_bound[k - 1] >= opt * (1 - 1e-9)


def test_n_jobs_zero_names_the_fix():
    with pytest.raises(ValueError, match="n_jobs"):
        exact_spca_path(_correlated(0), 3, time_limit=5, n_jobs=0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_neighbours_raise_a_poor_incumbent_and_never_pass_the_optimum(seed):
    A = _correlated(seed)
    p = A.shape[0]
    opt = {k: _brute(A, k) for k in (2, 3, 4)}
    worst3 = min(itertools.combinations(range(p), 3), key=lambda S: _lam(A, S))
    rows = {2: {"status": "optimal", "objective": opt[2][0], "support": opt[2][1]},
            3: {"status": "time_limit", "objective": _lam(A, worst3), "support": list(worst3)},
            4: {"status": "optimal", "objective": opt[4][0], "support": opt[4][1]}}
    before = rows[3]["objective"]
    raised = _spca_path.from_neighbours(A, rows)
    r = rows[3]
    assert 3 in raised and raised[3][0] == pytest.approx(before) and raised[3][1] == pytest.approx(r["objective"])
    assert r["objective"] > before
    assert r["objective"] == pytest.approx(_lam(A, r["support"]), rel=1e-12)  # the value of the support it holds
    assert len(set(r["support"])) == 3
    assert r["objective"] <= opt[3][0] * (1 + 1e-12)  # never above the brute-force optimum
    # at least as good as the better neighbour candidate (refine_support never returns a worse one)
    drop = max(_lam(A, [s for s in opt[4][1] if s != i]) for i in opt[4][1])
    add = max(_lam(A, opt[2][1] + [j]) for j in range(p) if j not in opt[2][1])
    assert r["objective"] >= max(drop, add) * (1 - 1e-12)
    # the certified sizes are sources only; a second call changes nothing
    assert rows[2]["objective"] == pytest.approx(opt[2][0]) and rows[4]["objective"] == pytest.approx(opt[4][0])
    assert _spca_path.from_neighbours(A, rows) == {}


def test_replan_order_takes_the_sizes_near_the_goal_first():
    gaps = {26: 0.0006, 27: 0.0013, 30: 0.007, 31: 0.0104, 40: 0.014, 41: 0.0}
    # k = 26 and 41 are within the goal; below 1 % first (by gap), then the rest
    assert _spca_path.replan_order(gaps, 1e-3) == [[27, 30], [31, 40]]


def test_the_time_left_goes_to_the_open_sizes_by_their_gaps(monkeypatch):
    """The re-plan searches the open sizes smallest gap first, from their best support, each with
    its ``1 / gap`` share of the time left; sizes within the goal are not searched again."""
    A = _correlated(5, p=12)
    calls = []
    real = _spca_path.spca_size

    def recording(A_, k, time_limit, initial, spectrum, halt):
        calls.append((k, time_limit, list(initial)))
        if len(calls) <= 6:  # the first pass: stop at once, leaving each size open with its root bounds
            return real(A_, k, 0.0, initial, spectrum, halt)
        return real(A_, k, time_limit, initial, spectrum, halt)

    monkeypatch.setattr(_spca_path, "spca_size", recording)
    monkeypatch.setattr(_spca_path, "from_neighbours", lambda A, rows, deadline=None: {})
    path = exact_spca_path(A, 6, time_limit=40, first_limit=0.01, goal=1e-3)
    first = calls[:6]
    # the first pass: every size once, in order, from the greedy support improved by swaps
    assert [c[0] for c in first] == list(range(1, 7)) and all(len(c[2]) == c[0] for c in first)
    assert all(c[1] <= 0.01 for c in first)
    again = calls[6:]
    assert [c[0] for c in again] == [k for k, _ in path.info["replanned"]]
    assert all(c[2] is not None and len(c[2]) == c[0] for c in again)  # from the size's best support
    assert len({c[0] for c in again}) == len(again)  # each size once
    assert again, "a size left open by one node should be searched again"
    assert again[0][1] <= 40 * 0.95  # a share of the time left, not the whole limit
    # the second searches, run to their end, prove every size they take up
    assert all(path.certified[k - 1] or path.relative_gap[k - 1] <= 1e-3 for k in range(1, 7))
    assert all(path.certified[k - 1] for k, _ in path.info["replanned"])


def test_sizes_past_the_time_limit_keep_the_greedy_support_and_a_certified_bound(monkeypatch):
    """A limit spent before a size's turn (here by the set-up alone) searches nothing more: each
    size keeps the greedy support and its root bounds, never below the optimum, status
    ``'time_limit'``; the plan does not overrun its limit by a search per size."""
    A = _correlated(3, p=9)
    calls = []
    monkeypatch.setattr(_spca_path, "spca_size", lambda *a: calls.append(a))
    path = exact_spca_path(A, 5, time_limit=1e-6)
    assert calls == []
    assert path.status.tolist() == ["time_limit"] * 5 and path.info["nodes"] == [0] * 5
    for k in range(1, 6):
        S = path.supports[k - 1]
        assert len(S) == k and path.objective[k - 1] == pytest.approx(_lam(A, S), rel=1e-12)
        assert path.upper_bound[k - 1] >= _brute(A, k)[0] * (1 - 1e-12)


@pytest.mark.parametrize("kwargs, match", [
    ({"time_limit": 0}, "time_limit"),
    ({"time_limit": 5, "max_k": 11}, "max_k"),
    ({"time_limit": 5, "goal": -0.1}, "goal"),
    ({"time_limit": 5, "first_limit": 0}, "first_limit"),
])
def test_bad_parameters_name_the_fix(kwargs, match):
    with pytest.raises(ValueError, match=match):
        exact_spca_path(_correlated(0), **kwargs)


def test_a_missing_time_limit_names_the_fix():
    with pytest.raises(TypeError, match="time_limit=SECONDS"):
        exact_spca_path(_correlated(0), 3, time_limit=None)


def test_indefinite_or_non_finite_input_is_refused():
    A = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="positive semi-definite"):
        exact_spca_path(A, 1, time_limit=1)
    with pytest.raises(ValueError):
        exact_spca_path(np.full((3, 3), np.nan), 1, time_limit=1)
