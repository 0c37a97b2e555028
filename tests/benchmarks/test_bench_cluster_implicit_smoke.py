"""Smoke run of bench_cluster_implicit --quick: a Zarr store of Brodatz patches, a 2-process cluster."""

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_cluster_implicit_quick(shared_data, tmp_path, run_script):
    pytest.importorskip("zarr")
    pytest.importorskip("distributed")
    shared_data.path("brodatz_112_640x640.npz")  # skips when absent
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path))
    r = run_script(str(ROOT / "benchmarks" / "bench_cluster_implicit.py"), "--quick", env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "fit / (passes x pass)" in r.stdout and "same order True" in r.stdout
    rec = json.loads((tmp_path / "bench_cluster_implicit" / "bench_cluster_implicit.json").read_text())
    assert rec["p"] == 4096 and rec["k"] == 20 and rec["numpy_max_rel_diff"] <= 1e-10
    assert 3 <= rec["passes"] <= 3 + rec["k"] and rec["column_passes"] < rec["k"]  # blocking saves passes
    assert not any(p.name.startswith("bench-cluster-implicit-") for p in (tmp_path / "bench_cluster_implicit").iterdir())
