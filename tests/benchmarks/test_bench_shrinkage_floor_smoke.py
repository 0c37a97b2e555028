"""Smoke run (--quick) of bench_shrinkage_floor: it runs on the digits, every row gets its cells,
and where the Ledoit-Wolf intensity is above the 2 % floor the default selects the same pixels as
'ledoit-wolf' (the floor changes nothing there)."""

import json
import os
from pathlib import Path

import pytest

from pixsel.stats import SHRINKAGE_FLOOR

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_shrinkage_floor_quick(tmp_path, run_script):
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_shrinkage_floor.py"), "--quick", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "bench_shrinkage_floor" / "bench_shrinkage_floor.json").read_text())
    digits = res["datasets"]["digits"]
    (s_lw,) = digits["intensities"]
    assert s_lw > SHRINKAGE_FLOOR  # the 8 x 8 digits: 3.6 %
    rows = ["ledoit-wolf", "ledoit-wolf-floor", "floor 1 %", "floor 2 %", "floor 3 %"]
    assert sorted(digits["accuracy"]) == sorted(rows)
    for r in rows:
        for k in ("5", "10"):
            assert len(digits["supports"][r][k]) == 1 and len(digits["supports"][r][k][0]) == int(k)
            assert all(len(digits["accuracy"][r][c][k]) == 1 for c in digits["accuracy"][r])
    assert digits["supports"]["ledoit-wolf-floor"] == digits["supports"]["ledoit-wolf"]
    assert digits["summary"]["ledoit-wolf-floor"] == [0.0, 0.0]
    assert "== digits: Ledoit-Wolf intensity per split" in proc.stdout
