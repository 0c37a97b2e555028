"""Smoke run (--quick) of bench_placement_gram: both routes run, the single-precision one is taken,
the placements and errors are recorded and sane (no timing asserted)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_placement_gram_quick(shared_data, tmp_path, run_script):
    shared_data.path("extyaleb_32x32.npz")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_placement_gram.py"), "--quick", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "bench_placement_gram" / "bench_placement_gram.json").read_text())
    rows = res["datasets"]["yaleb"]
    assert set(rows) == {"5", "10"}
    for row in rows.values():
        assert row["exact"]["gram"]["median"] > 0 and row["single"]["gram"]["median"] > 0
        assert abs(row["mass_rel_diff"]) < 1e-4  # each kept mass computed exactly from its own columns
        for e in row["error"].values():
            assert 0 < e < 1
    assert rows["10"]["error"]["single"] < rows["5"]["error"]["single"]
    for row in rows.values():  # k <= p / 8: ColumnSubsetSelector's greedy path measured as well
        assert row["greedy"]["exact"]["median"] > 0 and isinstance(row["greedy"]["same_order"], bool)
    assert "load average at start" in proc.stdout and "single/exact" in proc.stdout
