"""Smoke run (--quick --repeat 1) of bench_first_call: fresh processes, cold and warm caches, JSON and figure.

The script runs in the test process; the imports and fits it measures run in the fresh processes
it starts itself."""

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_first_call_quick(tmp_path, run_script):
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), MPLBACKEND="Agg")
    r = run_script(str(ROOT / "benchmarks" / "bench_first_call.py"), "--quick", "--repeat", "1", env=env,
                   cwd=ROOT / "benchmarks")
    assert r.returncode == 0, r.stderr
    assert "load average" in r.stdout and "goal (first fit <= 2.0 s)" in r.stdout and "import: pixsel" in r.stdout
    out = tmp_path / "bench_first_call"
    rec = json.loads((out / "bench_first_call.json").read_text())
    assert set(rec["fits"]) == {"ScoreSelector"}
    for fit in rec["fits"].values():
        assert fit["cold"]["median"] > 0 and fit["warm"]["median"] > 0 and len(fit["cold"]["runs"]) == 1
    assert (out / "bench_first_call.png").stat().st_size > 0
