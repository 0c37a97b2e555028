"""Smoke runs of the sparse-PLS benchmarks at tiny sizes: they run, write JSON, and the numbers
are of the right kind (cardinal SPLS selects exactly k and recovers true features)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_bench(run_script, name, args, tmp_path):
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / f"bench_{name}.py"), *args, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_recall_one_rep(tmp_path, run_script):
    out = run_bench(run_script, "spls_recall", ["--reps", "1", "--readings", "std", "--sigmas", "0.5"], tmp_path)
    assert "cardinal SPLS" in out and "(0.869)" in out
    res = json.loads((tmp_path / "spls_recall" / "table1_std.json").read_text())
    cell = res["table"]["std"]["0.5"]["summary"]
    assert cell["cardinal SPLS"]["n_selected_mean"] == 200
    assert cell["cardinal SPLS"]["recall"] > 0.8
    assert cell["naive variance"]["n_selected_mean"] == 200
    assert (tmp_path / "spls_recall" / "table1_std.png").is_file()


def test_timing_tiny(tmp_path, run_script):
    out = run_bench(run_script, "spls_timing", ["--sizes", "600", "--k", "100"], tmp_path)
    assert "goal: cardinal SPLS <= 3x" in out
    res = json.loads((tmp_path / "spls_timing" / "table2.json").read_text())
    row = res["rows"]["600"]
    assert row["cardinal SPLS"]["n_selected"] == 100 and row["PLSRegression (reference)"]["ratio_to_pls"] == 1.0
    assert all(r["seconds"] > 0 for r in row.values())
