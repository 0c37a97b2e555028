"""Smoke run of bench_cluster_stats --quick: a store, the threaded scheduler and a 2-process cluster."""

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_bench_cluster_stats_quick(tmp_path, run_script):
    pytest.importorskip("zarr")
    pytest.importorskip("psutil")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path))
    r = run_script(str(ROOT / "benchmarks" / "bench_cluster_stats.py"), "--quick", env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "cluster / threads time ratio:" in r.stdout
    rec = json.loads((tmp_path / "bench_cluster_stats" / "bench_cluster_stats.json").read_text())
    assert rec["n"] == 4000 and rec["chunks"] == 8
    assert rec["subset_max_rel_diff"] <= 1e-10 and rec["full_max_rel_diff"] <= 1e-10
    assert rec["worker_peak_bytes"] > 0 and rec["cluster_seconds"] > 0
    assert not any(p.name.startswith("bench-cluster-") for p in (tmp_path / "bench_cluster_stats").iterdir())
