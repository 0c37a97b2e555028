"""Smoke run (--quick --rows cli) of bench_multiclass's ``pixsel select`` row: the command runs,
selects 20 pixels, and its progress lines arrive from the start (the 'before' commit skipped)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_multiclass_cli_row_quick(tmp_path, run_script):
    if not (Path(os.environ.get("PIXSEL_DATA", ROOT.parent / "shared" / "data")) / "brodatz_112_640x640.npz").is_file():
        pytest.skip("the shared data sets are not available (PIXSEL_DATA)")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_multiclass.py"), "--quick", "--repeat", "1", "--rows", "cli",
                      "--before-repeat", "0", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    row = json.loads((tmp_path / "multiclass" / "multiclass.json").read_text())["cli"]
    now = row["versions"]["now"]
    assert row["same_support"] and now["select"]["runs"] == 1 and now["select"]["median"] > 0
    lines = [ln for _, ln in now["progress_sample"]]
    assert now["progress_lines"] == len(lines) >= 6
    # the forward pass through X (then, with few images of many classes, the beam's sizes, under one name)
    assert lines[0].startswith("pixsel select: reading ") and any(
        "forward path (implicit)" in ln and "step 20 of 20" in ln for ln in lines)
    assert lines[-1].startswith("pixsel select: writing") or "still working" in lines[-1]
    assert "load average" in proc.stdout and "(exit)" in proc.stdout
