"""bench_exact_spca's plan of the hour: the neighbours' supports and the re-plan, checked on small problems.

The hour itself is a benchmark; what is tested here is that its two helpers never report a value
that no support has (every raised incumbent is the largest eigenvalue of its support, never above
the brute-force optimum), that they raise a planted poor incumbent, and that the re-plan spends
the time on the sizes near the goal first.
"""

import itertools
import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench(load_benchmark):
    return load_benchmark("bench_exact_spca")


def _lam(A, S):
    return float(np.linalg.eigvalsh(A[np.ix_(S, S)])[-1])


def _brute(A, k):
    return max(((_lam(A, list(S)), list(S)) for S in itertools.combinations(range(A.shape[0]), k)))


def _row(A, k, S, status="time_limit", bound=None):
    v = _lam(A, S)
    bound = v * 1.05 if bound is None else bound
    return {"k": k, "status": status, "objective": v, "support": list(S), "upper_bound": bound, "best_bound": bound,
            "best_gap_pct": 100 * (bound - v) / v, "gap_pct": 100 * (bound - v) / v, "time_s": 0.0,
            "time_total_s": 0.0, "nodes": 0}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_neighbours_raise_a_poor_incumbent_and_never_pass_the_optimum(bench, seed):
    rng = np.random.default_rng(seed)
    p = 10
    F = rng.normal(size=(40, p)) + rng.normal(size=(40, 1))  # correlated columns
    A = np.cov(F, rowvar=False)
    opt = {k: _brute(A, k) for k in (2, 3, 4)}
    worst3 = min(itertools.combinations(range(p), 3), key=lambda S: _lam(A, list(S)))
    rows = {2: _row(A, 2, opt[2][1], "optimal", opt[2][0]), 3: _row(A, 3, list(worst3)),
            4: _row(A, 4, opt[4][1], "optimal", opt[4][0])}
    before = rows[3]["objective"]
    raised = bench.from_neighbours(A, rows)
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
    assert r["best_gap_pct"] == pytest.approx(100 * (r["best_bound"] - r["objective"]) / r["objective"])
    # the certified sizes are sources only; a second call changes nothing
    assert rows[2]["objective"] == pytest.approx(opt[2][0]) and rows[4]["objective"] == pytest.approx(opt[4][0])
    assert bench.from_neighbours(A, rows) == {}


def test_replan_searches_the_sizes_near_the_goal_first(bench, monkeypatch):
    calls = []

    def fake_solve(A, k, bounds, limit, initial=None):
        calls.append((k, limit, list(initial)))
        return {"status": "time_limit", "time_s": 0.0, "nodes": 1, "objective": 0.0, "upper_bound": np.inf,
                "gap_pct": np.inf, "support": list(initial)}

    monkeypatch.setattr(bench, "solve", fake_solve)
    monkeypatch.setattr(bench, "from_neighbours", lambda A, rows: {})
    gaps = {26: 0.06, 27: 0.13, 30: 0.7, 31: 1.04, 40: 1.4}
    rows = {k: {"k": k, "status": "time_limit", "objective": 1.0, "support": [k], "upper_bound": 1 + g / 100,
                "best_bound": 1 + g / 100, "best_gap_pct": g, "gap_pct": g, "time_s": 0.0, "time_total_s": 0.0,
                "nodes": 0} for k, g in gaps.items()}
    done = bench.replan(None, rows, 100.0, 0.1)
    # k = 26 is within the goal; below 1 % first (by gap), then the rest; each size once
    assert done == [27, 30, 31, 40] and [c[0] for c in calls] == done
    assert all(c[2] == [c[0]] for c in calls)  # from the size's best support
    first = calls[0][1]
    assert first == pytest.approx(100.0 * (1 / 0.13) / (1 / 0.13 + 1 / 0.7), rel=0.05)  # its 1 / gap share of round one
    assert {k: r["best_gap_pct"] for k, r in rows.items()} == pytest.approx(gaps)  # a solve that found nothing changes nothing


@pytest.mark.slow
def test_exact_spca_quick(tmp_path, run_script):
    if not (Path(os.environ.get("PIXSEL_DATA", ROOT.parent / "shared" / "data")) / "extyaleb_32x32.npz").is_file():
        pytest.skip("the shared data sets are not available (PIXSEL_DATA)")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_exact_spca.py"), "--quick", "--parts", "1024,classic",
                      cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "SUMMARY" in proc.stdout and "from the neighbours' supports" in proc.stdout
    assert "pitprops |  13 |   13/13" in proc.stdout
