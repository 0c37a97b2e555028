"""Smoke test of bench_choose_k --quick: it runs, writes its JSON, and every method chose a k."""

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_choose_k_quick(shared_data, tmp_path, run_script):
    shared_data("usps_3v5_split.npz")  # skips when absent
    shared_data("extyaleb_32x32.npz")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path))
    r = run_script(str(ROOT / "benchmarks" / "bench_choose_k.py"), "--quick", env=env, cwd=ROOT / "benchmarks")
    assert r.returncode == 0, r.stderr
    rec = json.loads((tmp_path / "choose_k" / "choose_k.json").read_text())
    assert rec["quick"] and len(rec["tasks"]) == 2
    for task in rec["tasks"]:
        assert task["p"] == 16
        for method in ("pixsel", "rfecv_lda", "sfs_lda"):
            assert 1 <= task[method]["k"] <= 16
            assert 0.0 <= task[method]["test_error"] < 0.5
    assert "RFECV(LDA, step=1)" in r.stdout and "pixsel, before" in r.stdout and "load average" in r.stdout
    assert all(t["pixsel_before"]["seconds"] > 0 for t in rec["tasks"])
    assert len(list((tmp_path / "choose_k").glob("fig_cv_path_*.png"))) == 2
