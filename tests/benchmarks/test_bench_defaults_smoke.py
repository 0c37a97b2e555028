"""Smoke run (--quick) of bench_defaults: it runs, every estimator gets a row, and the checks
that do not depend on timing hold (no timing asserted; abess is not in the test environment)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_quick(shared_data, tmp_path, run_script):
    shared_data.path("extyaleb_32x32.npz")
    shared_data.path("usps_3v5_split.npz")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    only = ["SparsePCASelector", "GreedySparsePCA", "ScoreSelector", "SubspaceScoreSelector", "SparseLDASelector",
            "CardinalSPLSSelector", "SPLSSelector"]
    proc = run_script(str(ROOT / "benchmarks" / "bench_defaults.py"), "--quick", "--repeat", "1", "--only", *only,
                      cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "defaults" / "defaults.json").read_text())
    assert [r["estimator"].split("(")[0] for r in res["rows"]] == only
    lda = next(r for r in res["rows"] if r["estimator"].startswith("SparseLDASelector"))
    # the forward pass is the faster option; on these digits it gives the dual default's support
    assert lda["fast_same_answer"] is True and lda["shape"] == [200, 256]
    assert "defaults > 100 x slower" in proc.stdout
