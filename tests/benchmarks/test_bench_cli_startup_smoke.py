"""Smoke run of bench_cli_startup: fresh processes for each --help, the load printed, JSON written."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_cli_startup_runs(tmp_path):
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"))
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_cli_startup.py"), "--quick"],
                       capture_output=True, text=True, env=env, timeout=300, cwd=ROOT / "benchmarks")
    assert r.returncode == 0, r.stderr
    assert "load average" in r.stdout and "pixsel select --help" in r.stdout
    rec = json.loads((tmp_path / "cli_startup" / "cli_startup.json").read_text())
    assert set(rec["best_seconds"]) == {"python -c pass", "pixsel --help", "pixsel select --help",
                                        "pixsel evaluate --help"}
    assert all(t > 0 for t in rec["best_seconds"].values()) and len(rec["load_before"]) == 3
