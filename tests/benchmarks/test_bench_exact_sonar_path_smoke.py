"""Smoke run (--quick) of bench_exact_sonar_path: it runs, certifies what it claims, writes JSON."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_sonar_path_quick(shared_data, tmp_path, run_script):
    shared_data("uci_sonar.npz")  # skips with a clear message where the data is absent
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    out = tmp_path / "sonar"
    proc = run_script(str(ROOT / "benchmarks" / "bench_exact_sonar_path.py"), "--quick", "--out", str(out),
                      cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rec = json.loads((out / "sonar_path.json").read_text())
    ex = rec["exact_path"]
    obj, ub = np.array(ex["objective"]), np.array(ex["upper_bound"])
    assert len(obj) == 60 and np.all(ub >= obj)
    assert ex["status"][0] == ex["status"][1] == ex["status"][-1] == "optimal"  # closed forms
    greedy = np.maximum(rec["forward"], rec["backward"])
    assert np.all(obj >= greedy - 1e-9)  # seeded by the greedy supports
    assert rec["regression_map_error"] < 1e-6  # LDA == ridge regression of the class indicator
    assert "SUMMARY exact_path" in proc.stdout
    assert (out / "sonar_path.png").is_file()
