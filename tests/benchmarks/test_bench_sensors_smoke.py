"""Smoke run (--quick) of bench_sensors: every row runs or reports why, errors are sane, the JSON
and the figure are written (no timing asserted)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_sensors_quick(shared_data, tmp_path, run_script):
    pytest.importorskip("pysensors")
    shared_data.path("usps_full_16x16.npz")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_sensors.py"), "--quick", "--k", "5", "10",
                      cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "bench_sensors" / "bench_sensors.json").read_text())
    usps = res["datasets"]["usps"]
    assert set(usps) == {"5", "10"}
    for k in ("5", "10"):
        rows = usps[k]["rows"]
        assert {"pixsel", "pixsel greedy", "pixsel refine", "QR r=k", "random", "pixsel (centre <= k/5)",
                "pixsel refine (centre <= k/5)", "pixsel greedy (centre <= k/5)"} <= set(rows)
        for row, v in rows.items():
            assert 0 < v["error"]["median"] < 1.5, row
        # more sensors, smaller error; pixsel below random pixels
        assert rows["pixsel"]["error"]["median"] < rows["random"]["error"]["median"]
    assert usps["10"]["rows"]["pixsel"]["error"]["median"] < usps["5"]["rows"]["pixsel"]["error"]["median"]
    assert "load average at start" in proc.stdout and "pixsel/row: error" in proc.stdout
    assert "pixsel refine/row: error" in proc.stdout and "pixsel greedy/row: error" in proc.stdout
    assert "pixsel shrink/row: error" in proc.stdout
    assert {"pixsel shrink", "QR r=k, default model", "pixsel shrink (centre <= k/5)"} <= set(usps["5"]["rows"])
    assert (tmp_path / "bench_sensors" / "bench_sensors.png").stat().st_size > 10_000
