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
