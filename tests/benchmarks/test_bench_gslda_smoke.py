"""Smoke runs (--quick) of the three GSLDA benchmarks: they run, agree with the kernel, write JSON."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_bench(name, tmp_path, extra_env=None):
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    env.update(extra_env or {})
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"bench_{name}.py"), "--quick"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout, json.loads((tmp_path / name / "results.json").read_text())


def test_scaling_quick(tmp_path):
    out, res = run_bench("gslda_scaling", tmp_path)
    assert "ratio" in out and [r["p"] for r in res["rows"]] == [64, 128]
    for r in res["rows"]:
        assert r["time_dual_s"] > 0 and r["time_inv_s"] > 0
        assert r["max_drift"] < 1e-10
    assert (tmp_path / "gslda_scaling" / "scaling.png").is_file()


def test_vs_naive_quick(tmp_path):
    out, res = run_bench("gslda_vs_naive", tmp_path)
    for r in res["rows"]:
        assert r["default_measured_in_full"]  # small sizes: (b) runs in full and agrees (asserted inside)
        assert r["speedup_vs_default"] > 1


def test_vs_sklearn_quick(tmp_path):
    from pixsel.datasets import data_dir

    if not (data_dir() / "usps_3v5_split.npz").is_file():
        pytest.skip("usps_3v5_split.npz not found (set PIXSEL_DATA to pixsel's shared data folder)")
    out, res = run_bench("gslda_vs_sklearn", tmp_path, {"PIXSEL_DATA": str(data_dir())})
    assert res["k"] == 2 and len(res["support_pixsel"]) == 2 and len(res["support_sklearn"]) == 2
    assert res["objective_pixsel"] > 0 and res["time_sklearn_s"] > res["time_pixsel_s"]
