"""Smoke run (--quick) of bench_sensors_classification: every row runs or says why, SSPOC placed the
sensors asked, the accuracies (LDA and SVM) are sane, the search of the test images is never below
the default's LDA accuracy and the goal line is printed (no timing asserted)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_sensors_classification_quick(tmp_path, run_script):
    pytest.importorskip("pysensors")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"))
    proc = run_script(str(ROOT / "benchmarks" / "bench_sensors_classification.py"), "--quick",
                      cwd=ROOT / "benchmarks", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "bench_sensors_classification" / "bench_sensors_classification.json").read_text())
    cases = {(c["n_class"], c["k"]): c for c in res["cases"]}
    assert set(cases) == {(10, 10), (2, 5)}
    for (n_class, k), case in cases.items():
        rows = case["rows"]
        assert not case["failed"], case["failed"]
        assert {"pixsel SparseLDASelector (default)", "SSPOC l1=0.1 (default), own classifier", "random pixels",
                "all 64 pixels"} <= set(rows)
        for row, v in rows.items():
            assert 0.0 <= v["accuracy"]["median"] <= 1.0, row
            assert 0.0 <= v["svm"]["median"] <= 1.0, row
            if "sensors" in v:
                assert len(set(v["sensors"])) == k, row  # every selector placed k distinct pixels
        # well above chance with k pixels
        chance = 1.0 / n_class
        assert rows["pixsel SparseLDASelector (default)"]["accuracy"]["median"] > chance + 0.3
        assert rows["pixsel SparseLDASelector (default)"]["svm"]["median"] > chance + 0.3
    # the goal's case only: pixels chosen on the test images, started from the default's among others
    assert "lda_test_search" not in cases[(2, 5)]
    search = cases[(10, 10)]["lda_test_search"]
    assert len(set(search["sensors"])) == 10
    assert search["accuracy"] >= cases[(10, 10)]["rows"]["pixsel SparseLDASelector (default)"]["accuracy"]["median"]
    assert search["accuracy"] <= 1.0
    assert isinstance(res["goal_met"], bool)
    assert "load average at start" in proc.stdout and "goal (>= 0.90 test accuracy" in proc.stdout
    assert "with the RBF SVM" in proc.stdout
