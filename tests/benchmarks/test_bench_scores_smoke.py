"""Smoke run (--quick) of the subspace-score speed benchmark: it runs and writes its JSON.

The k-means and face-recognition benchmarks' --quick runs took 17-25 s on the loaded shared
machine, over the 10 s budget for smoke tests, so they are run by hand (see docs/subspace-scores.md).
"""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_bench(run_script, name, tmp_path):
    from pixsel.datasets import data_dir

    env = dict(os.environ, PIXSEL_DATA=str(data_dir()), PYTHONPATH=str(ROOT / "src"),
               MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / f"bench_{name}.py"), "--quick",
                      "--out", str(tmp_path), cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_speed_quick(tmp_path, shared_data, run_script):
    shared_data.path("brodatz_112_640x640.npz")
    out = run_bench(run_script, "scores_speed", tmp_path)
    res = json.loads((tmp_path / "speed.json").read_text())
    assert res["p"] == 256 and res["ratio"] > 0 and "ratio scores / randomized_svd" in out
    assert res["max_rel_singular_value_error"] < 1e-3
    assert res["dask"]["max_rel_score_diff_vs_numpy"] < 1e-8
