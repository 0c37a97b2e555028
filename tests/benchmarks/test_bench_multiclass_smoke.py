"""Smoke run (--quick) of bench_multiclass: it runs, checks its own work, and writes its rows."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_multiclass_quick(tmp_path, run_script):
    if not (Path(os.environ.get("PIXSEL_DATA", ROOT.parent / "shared" / "data")) / "extyaleb_32x32.npz").is_file():
        pytest.skip("the shared data sets are not available (PIXSEL_DATA)")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_multiclass.py"), "--quick", "--repeat", "1",
                      "--rows", "selector,cv", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "multiclass" / "multiclass.json").read_text())
    assert len(res["selector"]) == 4 and len(res["cv"]) == 2
    for row in res["selector"]:
        assert row["ratio_default"] > 0 and row["same_support_papers_vs_full"]
        if "same_support_as_before" in row:
            assert row["same_support_as_before"]  # the new kernels pick what the old ones picked
    assert all(0 < r["acc_pathselectorcv"] <= 1 and 0 < r["acc_before"] <= 1 for r in res["cv"])
    assert "load average" in proc.stdout and (tmp_path / "multiclass" / "multiclass.png").is_file()


@pytest.mark.parametrize("beam", ["1", "3"])
def test_multiclass_fastcan_rows_quick(tmp_path, run_script, beam):
    # the FastCan rows with and without the beams (--beam 1, the default, times no beam and must
    # not ask FastCan for one)
    pytest.importorskip("fastcan")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_multiclass.py"), "--quick", "--repeat", "1",
                      "--rows", "fastcan", "--fastcan-data", "digits", "--beam", beam, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads((tmp_path / "multiclass" / "multiclass.json").read_text())["fastcan"]
    assert [r["k"] for r in rows] == [5, 10]
    for row in rows:
        assert row["ratio"] > 0 and row["FastCan"]["runs"] >= 1
        assert ("beam" in row) == (beam == "3")
    assert "default <= 2 x FastCan's greedy fit" in proc.stdout
