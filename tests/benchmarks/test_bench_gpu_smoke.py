"""Smoke run of bench_gpu: without a GPU it skips cleanly (a JSON that records why, exit 0);
``--quick`` runs every row at a tiny size with PyTorch's CPU build standing in for the device
(the array-API kernels forced), checks each result and prints the host round trips per path."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _run(run_script, tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    return run_script(str(ROOT / "benchmarks" / "bench_gpu.py"), *args, "--threads", "1",
                      "--out", str(tmp_path), cwd=ROOT / "benchmarks", env=env)


def _has_gpu():
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:  # pragma: no cover
        return False


def test_without_gpu_skips_cleanly(tmp_path, run_script):
    if _has_gpu():  # pragma: no cover - only on a machine with a GPU
        pytest.skip("a GPU is present: the full run would measure it")
    proc = _run(run_script, tmp_path, "--no-tests")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "SKIPPED: no GPU found" in proc.stdout
    res = json.loads((tmp_path / "bench_gpu.json").read_text())
    assert res["skipped"] is True and "no GPU" in res["reason"]


def test_quick_runs_every_row(tmp_path, run_script):
    pytest.importorskip("torch")
    proc = _run(run_script, tmp_path, "--quick", "--no-tests")
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "bench_gpu.json").read_text())
    rows = [r for r in res["rows"] if not r.get("skipped")]
    assert len(rows) == 8  # six estimator / statistics rows and two path sizes
    device = res["libraries"][1]
    for r in rows:
        assert r["seconds"]["numpy"] > 0 and r["seconds"][device] > 0, r["task"]
        if r["kind"] == "path":
            assert r["ratio_to_inv"][device] > 0
    trips = {(t["path"], t["p"]): t["round_trips"] for t in res["round_trips"]}
    for (path, p), n in trips.items():  # the proxy: constant in p, far below one per step
        assert n == trips[(path, 128)] and n < 32, (path, p, n)
    assert "host round trips" in proc.stdout
