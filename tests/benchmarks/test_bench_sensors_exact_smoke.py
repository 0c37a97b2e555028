"""Smoke run (--quick) of bench_sensors_exact and bench_kmeans_vs_random: the rows are consistent
(the certified bound above the best support found and below the principal components' mass, the
exact search never below the greedy), the JSON and the figure are written (no timing asserted)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _run(run_script, script, tmp_path, *args):
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / script), "--quick", *args, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def test_sensors_exact_quick(shared_data, tmp_path, run_script):
    pytest.importorskip("pysensors")
    shared_data.path("brodatz_112_640x640.npz")
    proc = _run(run_script, "bench_sensors_exact.py", tmp_path, "--max-k", "4")
    res = json.loads((tmp_path / "bench_sensors_exact" / "bench_sensors_exact.json").read_text())
    rows = res["rows"]
    assert [r["k"] for r in rows] == [1, 2, 3, 4]
    for r in rows:
        assert r["exact"] <= r["bound"] + 1e-12 and r["bound"] <= r["pca"] * (1 + 1e-8)
        assert r["exact"] >= r["greedy"] - 1e-12  # the search starts from the greedy support
        if r["status"] == "optimal":
            assert r["exact"] >= max(r["pysensors_qr"], r["pixsel_qr"]) - 1e-12
        assert (r["status"] == "optimal") == (r["gap"] == 0.0)
    assert all(b["exact"] > a["exact"] for a, b in zip(rows, rows[1:]))
    assert "load average at start" in proc.stdout and "goal (every k <= 4" in proc.stdout
    assert (tmp_path / "bench_sensors_exact" / "bench_sensors_exact.png").stat().st_size > 10_000


def test_sensors_exact_quick_with_installed_and_excluded_pixels(shared_data, tmp_path, run_script, load_benchmark):
    """--installed and --exclude-border: every placement holds the installed pixels and no border
    pixel, the sizes start above the installed count, the certified placement is at least the
    constrained greedy's and, at k = 3, the brute-force best of the constrained placements (which
    is not the unconstrained best: the constraints bind)."""
    from itertools import combinations

    shared_data.path("brodatz_112_640x640.npz")
    proc = _run(run_script, "bench_sensors_exact.py", tmp_path, "--max-k", "4", "--installed", "14,21",
                "--exclude-border")
    res = json.loads((tmp_path / "bench_sensors_exact" / "bench_sensors_exact.json").read_text())
    rows = res["rows"]
    assert [r["k"] for r in rows] == [3, 4] and res["installed"] == [14, 21] and len(res["excluded"]) == 20
    for r in rows:
        assert r["status"] == "optimal" and r["greedy"] - 1e-12 <= r["exact"] <= r["pca"] + 1e-12
    assert "installed [14, 21], 20 border pixels excluded" in proc.stdout and "under the constraints" in proc.stdout
    bench = load_benchmark("bench_sensors_exact")
    A = bench.patches(6, 100)  # the --quick patches
    inner = [j for j in range(36) if j not in res["excluded"] and j not in (14, 21)]
    best = max(bench.kept_mass(A, [14, 21, j]) for j in inner)
    assert abs(rows[0]["exact"] - best) < 1e-9
    assert best < max(bench.kept_mass(A, list(S)) for S in combinations(range(36), 3))


def test_sensors_exact_quick_with_a_minimum_distance(shared_data, tmp_path, run_script):
    """--min-distance: the benchmark asserts every certified placement's pixels at least that far
    apart; the sizes are certified and at least the constrained greedy's kept mass."""
    shared_data.path("brodatz_112_640x640.npz")
    _run(run_script, "bench_sensors_exact.py", tmp_path, "--max-k", "3", "--min-distance", "2")
    res = json.loads((tmp_path / "bench_sensors_exact" / "bench_sensors_exact.json").read_text())
    assert res["min_distance"] == 2.0 and [r["k"] for r in res["rows"]] == [1, 2, 3]
    assert all(r["status"] == "optimal" and r["exact"] >= r["greedy"] - 1e-12 for r in res["rows"])


def test_kmeans_vs_random_quick(shared_data, tmp_path, run_script):
    shared_data.path("uci_sonar.npz")
    proc = _run(run_script, "bench_kmeans_vs_random.py", tmp_path, "--ks", "5", "10", "--max-test", "300")
    res = json.loads((tmp_path / "bench_kmeans_vs_random" / "bench_kmeans_vs_random.json").read_text())
    assert set(res["datasets"]) == {"sonar", "digits"}
    for d in res["datasets"].values():
        for r in d["rows"].values():
            assert len(r["css"]) == len(r["random"]) == 2
            assert -0.5 <= r["css_median"] <= 1 and -0.5 <= r["random_median"] <= 1
            assert r["at_or_above"] == (r["css_median"] >= r["random_median"] - 1e-12)
    digits = res["datasets"]["digits"]["rows"]
    assert digits["10"]["css_median"] > digits["10"]["random_median"]  # real clusters: the selection helps
    assert "cells with the median at or above random" in proc.stdout and "load average at end" in proc.stdout


@pytest.mark.parametrize("budget, n, floor", [(580.0, 15, 5.0), (60.0, 15, 5.0), (20.0, 6, 5.0), (3.0, 1, 5.0)])
def test_sensors_exact_plan_spends_the_budget_smallest_size_first(budget, n, floor, load_benchmark):
    mod = load_benchmark("bench_sensors_exact")
    for plan in ("halves", "equal"):
        left, limits = budget, []
        for i in range(n):  # every size uses its whole share (none certified early)
            limits.append(mod.plan_limit(left, n - 1 - i, plan, floor))
            left -= limits[-1]
        assert sum(limits) == pytest.approx(budget) and min(limits) >= 0
        if plan == "equal":
            assert limits == pytest.approx([budget / n] * n)
        elif budget >= floor * n:
            assert min(limits) >= floor * (1 - 1e-12)  # every size keeps its floor
            assert limits == sorted(limits, reverse=True) and limits[0] == pytest.approx(floor + (budget - floor * n) / 2)
    # a size certified early leaves its time: the next share grows with what is left
    assert mod.plan_limit(400.0, 5, "halves", 5.0) > mod.plan_limit(300.0, 5, "halves", 5.0)
