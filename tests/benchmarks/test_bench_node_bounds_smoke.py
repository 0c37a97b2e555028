"""bench_node_bounds --quick: the walk of the enumeration's shallow levels partitions its work, and every
node bound lies at or above the best support of its subtree (the script asserts both); the JSON holds
the counts it prints."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run(shared_data, tmp_path, run_script):
    pytest.importorskip("clarabel")
    pytest.importorskip("numba")
    shared_data("usps_3v5_split.npz")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    out = tmp_path / "nodes"
    proc = run_script(str(ROOT / "benchmarks" / "bench_node_bounds.py"), "--quick", "--out", str(out),
                      cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "load" in proc.stdout and "add up to the whole enumeration" in proc.stdout
    rec = json.loads((out / "bench_node_bounds.json").read_text())
    assert [r["k"] for r in rec["results"]] == [6]
    for r in rec["results"]:
        pruned = sum(v["subtrees"] for v in r["pruned"].values())
        assert pruned + r["kept"]["subtrees"] <= r["opened"]
        assert 0.0 <= r["saved_fraction"] <= 1.0 and not r["fraction_is_upper_estimate"]
