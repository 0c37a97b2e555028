"""Smoke run (--quick) of bench_without_numba: a process with Numba and one without fit the digits,
the one without never imports Numba, and both select the same pixels."""

import json
import os
from pathlib import Path

import pytest

from pixsel._routes import HAVE_NUMBA

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not HAVE_NUMBA, reason="compares with Numba's kernels")]

ROOT = Path(__file__).resolve().parents[2]


def test_without_numba_quick(tmp_path, run_script):
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_without_numba.py"), "--quick", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "bench_without_numba" / "bench_without_numba.json").read_text())
    (row,) = res["rows"]
    assert row["same_pixels"] is True
    assert set(row["first"]) == {"numba", "none"} and all(t > 0 for t in row["first"].values())
    assert all(len(v) == 1 for v in row["next"].values())
    assert row["ratio"] == pytest.approx(row["median"]["none"] / row["median"]["numba"])
    assert "the same pixels in 1 of 1 cases" in proc.stdout
