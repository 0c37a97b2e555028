"""Smoke run of bench_swap_update --quick: the search now beside the search at the git revision
``--before`` (colon, k = 5 and 10), each in fresh processes; the script asserts the same supports,
writes its JSON and prints the ratios (no timing asserted)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BEFORE = "4f2bf7d"  # the script's default revision: the search before the updated sweeps


def test_swap_update_quick(shared_data, tmp_path, run_script):
    shared_data.path("alon_colon.npz")  # skips when absent
    if shutil.which("git") is None or subprocess.run(
            ["git", "-C", str(ROOT), "cat-file", "-e", f"{BEFORE}^{{commit}}"], capture_output=True).returncode:
        pytest.skip(f"no git checkout holding {BEFORE}: the 'before' search cannot be read")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path),
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    r = run_script(str(ROOT / "benchmarks" / "bench_swap_update.py"), "--quick", "--rounds", "1", "--repeat", "1",
                   env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    rec = json.loads((tmp_path / "bench_swap_update" / "bench_swap_update.json").read_text())
    assert rec["before"] == BEFORE and [(row["data"], row["k"]) for row in rec["rows"]] == [("colon", 5), ("colon", 10)]
    for row in rec["rows"]:
        assert row["now"]["supports"] == row["before"]["supports"] and len(row["now"]["supports"]) == 1
        assert len(row["now"]["supports"][0]) == row["k"] and row["fit_ratio"] > 0
    assert "load average before" in r.stdout and "same support True" in r.stdout
