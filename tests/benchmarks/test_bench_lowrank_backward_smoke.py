"""Smoke run of bench_lowrank_backward --quick: it runs, writes its JSON, the two passes agree."""

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_lowrank_backward_quick(shared_data, tmp_path, run_script):
    shared_data("extyaleb_32x32.npz")  # skips when absent
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PIXSEL_DATA=str(shared_data.path("extyaleb_32x32.npz").parent))
    r = run_script(str(ROOT / "benchmarks" / "bench_lowrank_backward.py"), "--quick",
                   env=env, cwd=ROOT / "benchmarks")
    assert r.returncode == 0, r.stderr
    rec = json.loads((tmp_path / "lowrank_backward" / "lowrank_backward.json").read_text())
    assert rec["quick"] and rec["p"] == 256 and rec["n"] == 50
    for criterion in ("trace", "max-eig"):
        res = rec[criterion]
        assert res["same_order"]
        for name in ("dense", "nform"):
            runs = res[name]["runs"]
            assert len(runs) == 3 and res[name]["min"] <= res[name]["median"] <= res[name]["max"]
    assert "load average" in r.stdout and "speed-up of the median" in r.stdout
