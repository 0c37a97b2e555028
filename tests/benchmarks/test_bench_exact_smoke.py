"""Smoke runs (--quick) of the exact-solver benchmarks: they run, certify, write JSON."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_bench(name, tmp_path, run_script=None):
    """The --quick run of bench_``name``: in this process with ``run_script``, else in a fresh one
    (the Monte Carlo script's process pool runs functions of its own ``__main__``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    out = tmp_path / name
    script, args = ROOT / "benchmarks" / f"bench_{name}.py", ["--quick", "--out", str(out)]
    if run_script is not None:
        proc = run_script(script, *args, cwd=tmp_path, env=env)
    else:
        proc = subprocess.run([sys.executable, str(script), *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout, out


def test_montecarlo_quick(tmp_path):
    stdout, out = run_bench("exact_montecarlo", tmp_path)
    res = json.loads((out / "montecarlo.json").read_text())
    assert res["pairs_done"] == 40 and res["check_max_relative_difference"] <= 1e-9
    assert all(r <= 1 + 1e-9 for r in res["mean_ratio_greedy"])  # greedy never beats the optimum
    assert all(r <= 1 + 1e-9 for r in res["mean_ratio_st"])
    assert res["mean_ratio_greedy"][-1] == pytest.approx(1.0)  # k = n
    assert (out / "montecarlo.png").is_file()


def test_speed_quick(tmp_path, run_script):
    stdout, out = run_bench("exact_speed", tmp_path, run_script)
    res = json.loads((out / "speed.json").read_text())
    for row in res["rows"]:
        assert row["best-first"]["status"] == "optimal"
        if row["plain"]["status"] == "optimal":
            assert row["plain"]["objective"] == pytest.approx(row["best-first"]["objective"], rel=1e-9)
    assert "SUMMARY" in stdout


def test_spca_quick(shared_data, tmp_path, run_script):
    """Face pixels certified, the large instance's bound below lambda_max, Pitprops' published optima."""
    shared_data.path("extyaleb_32x32.npz")  # skips when absent
    stdout, out = run_bench("exact_spca", tmp_path, run_script)
    res = json.loads((out / "exact_spca.json").read_text())
    assert res["yale80"]["5/cardinality"]["status"] == "optimal"
    objs = {round(r["objective"], 6) for key, r in res["yale80"].items() if r["status"] == "optimal" and key.startswith("5/")}
    assert len(objs) == 1  # every bound set certifies the same optimum
    assert sorted(int(k) for k in res["yale1024"]) == [1, 2, 3, 4]  # every size of the large instance
    for large in res["yale1024"].values():
        assert large["objective"] <= large["upper_bound"] <= large["lambda_max"] * (1 + 1e-12)
    assert res["yale1024"]["1"]["status"] == "optimal"  # one pixel: the largest variance
    assert "SUMMARY Yale B" in stdout and (out / "exact_spca.png").is_file()
    assert res["classic"]["pitprops"][4]["objective"] == pytest.approx(3.406, abs=1e-3)
