"""Smoke run (--quick) of bench_xp_twins: every twin it lists exists and is timed beside its NumPy
kernel on the same NumPy input, and the two gave the same answer (the script asserts it too)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_xp_twins_quick(tmp_path, run_script):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_xp_twins.py"), "--quick", "--out", str(tmp_path),
                      cwd=ROOT / "benchmarks", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "load average" in proc.stdout
    res = json.loads((tmp_path / "bench_xp_twins.json").read_text())
    assert set(res["twins"]) and all((ROOT / "src" / key).is_file() for key in res["twins"])
    assert {row["twin"] for row in res["rows"]} == set(res["twins"])  # every twin listed is timed
    for row in res["rows"]:
        assert row.get("same_path", row.get("same_columns")) is True
        assert row["ratio"] > 0 and row["numpy"]["min"] <= row["numpy"]["median"] <= row["numpy"]["max"]
