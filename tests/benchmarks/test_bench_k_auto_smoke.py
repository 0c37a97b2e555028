"""Smoke test of bench_k_auto --quick: it runs, writes its JSON, both procedures applied their rule (one timed run
of each: the figures' three runs are the benchmark's own)."""

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_k_auto_quick(shared_data, tmp_path, run_script):
    shared_data("cmupie_32x32.npz")  # skips when absent
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PIXSEL_DATA=str(shared_data.path("cmupie_32x32.npz").parent))
    r = run_script(str(ROOT / "benchmarks" / "bench_k_auto.py"), "--quick", "--repeat", "1",
                   env=env, cwd=ROOT / "benchmarks")
    assert r.returncode == 0, r.stderr
    rec = json.loads((tmp_path / "k_auto" / "k_auto.json").read_text())
    assert rec["quick"] and rec["n"] == 420 and rec["classes"] == 10 and rec["repeat"] == 1
    lib = rec["library"]
    for name in ("before", "after"):
        assert len(lib[name]["runs"]) == 1 and lib[name]["min"] <= lib[name]["median"] <= lib[name]["max"]
        assert lib[name]["mean_accuracy"] >= lib[name]["best_mean_accuracy"] - 0.01 - 1e-12
        assert 1 <= lib[name]["k"] <= 256  # --quick: 16x16 images
    assert lib["before"]["largest_k_scored"] == 256 and lib["after"]["largest_k_scored"] <= 256
    cli = rec["cli"]["this"]  # this pixsel's command ("baseline" only with --baseline)
    assert 1 <= cli["auto"]["k"] <= 256 and len(cli["k20"]["runs"]) == 1
    assert cli["k20"]["min"] <= cli["k20"]["median"] <= cli["k20"]["max"] and cli["k20"]["cpu"]["median"] > 0
    assert "load average" in r.stdout and "speed-up of the median" in r.stdout
