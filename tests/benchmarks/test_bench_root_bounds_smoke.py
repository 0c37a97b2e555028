"""bench_root_bounds --quick: both root bounds at or above the brute-force optimum, the pair bound
the tighter at the size its semidefinite relaxation was solved at."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run(shared_data, tmp_path, run_script):
    pytest.importorskip("clarabel")
    shared_data("usps_3v5_split.npz")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    out = tmp_path / "root"
    # one timed run of each bound (--repeat 1): the bounds' values are checked, not their times
    proc = run_script(str(ROOT / "benchmarks" / "bench_root_bounds.py"), "--quick", "--repeat", "1",
                      "--out", str(out), cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "load" in proc.stdout
    rec = json.loads((out / "bench_root_bounds.json").read_text())
    assert rec["incumbent"] == "brute force" and rec["sdp_status"] == "Solved"
    rows = {r["k"]: r for r in rec["rows"]}
    assert sorted(rows) == [3, 5, 7]
    for r in rows.values():
        assert r["perspective"] >= r["incumbent"] * (1 - 1e-12)
        assert r["pair"] >= r["incumbent"] * (1 - 1e-12)
        assert r["pair"] <= r["perspective"] * (1 + 1e-3)
    assert rows[rec["sdp_k"]]["pair_gap"] < rows[rec["sdp_k"]]["perspective_gap"] / 2
