"""Smoke test of bench_groups --quick: it runs, every method selected its k, the group paths ran."""

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_groups_quick(shared_data, tmp_path, run_script):
    shared_data("extyaleb_32x32.npz")  # skips when absent
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path))
    r = run_script(str(ROOT / "benchmarks" / "bench_groups.py"), "--quick", env=env, cwd=ROOT / "benchmarks")
    assert r.returncode == 0, r.stderr
    rec = json.loads((tmp_path / "groups" / "groups.json").read_text())
    assert rec["quick"] and {row["task"] for row in rec["accuracy"]} == {"colour patches", "face parts (4 x 4)"}
    for row in rec["accuracy"]:
        for method in ("groups", "swaps", "beam", "single"):
            assert len(row[method]) == 3 and all(0.0 <= a <= 1.0 for a in row[method])
        assert row["values"] == row["k"] * (3 if row["task"] == "colour patches" else 16)
    assert len(rec["timing"]) == 4 and all(t["ratio"] > 0 for t in rec["timing"])
    assert rec["exact"]["status"] == "optimal"
    assert rec["exact"]["upper_bound"] == rec["exact"]["objective"]
    assert "uptime" in r.stdout and "goal <= 2" in r.stdout and "beam of 3" in r.stdout
    assert all(len(row["seconds"]["beam"]) == 3 for row in rec["accuracy"])
    assert len(rec["swaps"]) == 2 and all(r["speed_up"] > 0 for r in rec["swaps"])
    assert (tmp_path / "groups" / "fig_groups_accuracy.png").is_file()
