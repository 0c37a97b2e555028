"""Smoke run of bench_array_api at a tiny size: it runs, times every library present side by
side, and writes ratios to NumPy."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_array_api_bench_tiny(tmp_path, run_script):
    pytest.importorskip("torch")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_array_api.py"), "--quick", "--n", "300",
                      "--p", "64", "--path-p", "64", "--select-p", "16", "--out", str(tmp_path), cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "bench_array_api.json").read_text())
    assert {"numpy", "array-api-strict", "torch-cpu"} <= set(res["libraries"])
    fit = res["ratio_to_numpy"]["SubspaceScoreSelector.fit float64"]
    assert fit["torch-cpu"] > 0 and fit["array-api-strict"] > 0
    assert "class_statistics float32" in proc.stdout
