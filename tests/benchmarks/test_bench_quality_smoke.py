"""Smoke run (--quick) of bench_quality: every requested selector gets a row or a reported
failure, the summary tables print, the JSON and the figure are written (no timing asserted)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_quality_quick(shared_data, tmp_path):
    shared_data.path("uci_sonar.npz")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    only = ["f_classif", "pixsel LDA trace dual", "pixsel ColumnSubset greedy", "variance", "no such selector"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_quality.py"), "--quick", "--ks", "3", "5",
         "--only", *only],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "quality" / "quality.json").read_text())
    sonar = res["datasets"]["sonar"]
    assert sonar["ks"] == [3, 5] and sonar["splits"] == 2 and sonar["failed"] == {}
    acc = sonar["accuracy"]
    assert {"f_classif", "pixsel LDA trace dual", "random", "all pixels"} <= set(acc)
    for name in ("f_classif", "pixsel LDA trace dual"):
        cell = acc[name]["lda"]["5"]
        assert cell["n"] == 2 and 0.5 < cell["mean"] <= 1.0  # two splits scored, better than chance
    assert {"variance", "pixsel ColumnSubset greedy", "PCA", "random"} <= set(sonar["clustering"])
    assert 0 <= sonar["jaccard"]["f_classif"] <= 1
    assert (tmp_path / "quality" / "quality_sonar.png").stat().st_size > 10_000
    assert "| sonar | pixsel LDA (default) |" in proc.stdout and "uptime at end" in proc.stdout
    assert "Summary of pixsel LDA (default)" in proc.stdout and "| **all** |" in proc.stdout
    # --replot redraws and reprints from the JSON without fitting; a second run of the same
    # splits adds only the rows the first lacks
    replot = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_quality.py"), "--replot",
         str(tmp_path / "quality" / "quality.json"), str(tmp_path / "quality" / "quality.json"),
         "--out", str(tmp_path / "rp")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert replot.returncode == 0, replot.stderr[-3000:]
    assert "| sonar | 2 | " in replot.stdout and "load at start of run 0 (" in replot.stdout
    merged = json.loads((tmp_path / "rp" / "quality.json").read_text())["datasets"]["sonar"]
    assert merged["accuracy"]["f_classif"] == acc["f_classif"] and len(merged["runs"]) == 2
    # an unsupervised row of a later run on the same splits is merged with its k-means scores
    first = json.loads((tmp_path / "quality" / "quality.json").read_text())
    later = json.loads((tmp_path / "quality" / "quality.json").read_text())
    moved = first["datasets"]["sonar"]["clustering"].pop("variance")
    (tmp_path / "first_unsup.json").write_text(json.dumps(first))
    (tmp_path / "later_unsup.json").write_text(json.dumps(later))
    replot = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_quality.py"), "--replot",
         str(tmp_path / "first_unsup.json"), str(tmp_path / "later_unsup.json"), "--out", str(tmp_path / "rp3")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert replot.returncode == 0, replot.stderr[-3000:]
    merged = json.loads((tmp_path / "rp3" / "quality.json").read_text())["datasets"]["sonar"]
    assert merged["clustering"]["variance"] == moved and "run 1 (variance)" in replot.stdout
    assert (tmp_path / "rp" / "quality_sonar.png").is_file()
    # a bootstrap Jaccard is read on the first split alone: a run with another split count
    # fills in the Jaccard a row of the first lacks (and says which run gave it); its
    # accuracies, and a row the first lacks, are not merged
    first = json.loads((tmp_path / "quality" / "quality.json").read_text())
    del first["datasets"]["sonar"]["jaccard"]["f_classif"]
    (tmp_path / "first.json").write_text(json.dumps(first))
    other = json.loads((tmp_path / "quality" / "quality.json").read_text())
    other["datasets"]["sonar"].update(splits=1, jaccard={"f_classif": 0.42, "mRMR": 0.5, "variance": 0.0})
    other["datasets"]["sonar"]["accuracy"]["mRMR"] = acc["f_classif"]
    (tmp_path / "other.json").write_text(json.dumps(other))
    replot = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_quality.py"), "--replot",
         str(tmp_path / "first.json"), str(tmp_path / "other.json"), "--out", str(tmp_path / "rp2")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert replot.returncode == 0, replot.stderr[-3000:]
    merged = json.loads((tmp_path / "rp2" / "quality.json").read_text())["datasets"]["sonar"]
    assert merged["jaccard"]["f_classif"] == 0.42
    assert "mRMR" not in merged["accuracy"] and "mRMR" not in merged["jaccard"]
    assert merged["jaccard"]["variance"] == sonar["jaccard"]["variance"]  # the first run's stays
    assert "run 1 (Jaccard of f_classif)" in replot.stdout


def test_quality_stability_figure(tmp_path):
    """--stability-figure fits the default with stability=50 on the first split and draws the
    frequencies (scikit-learn's digits: no shared file)."""
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_quality.py"), "--stability-figure", "digits",
         "--out", str(tmp_path / "st")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "stability=50" in proc.stdout and "chosen at least once:" in proc.stdout
    counts = proc.stdout.split("chosen at least once: ")[1].split()
    assert 25 <= int(counts[0]) <= 64 and counts[2] == "64"  # at least the k selected, at most every pixel
    assert (tmp_path / "st" / "quality_stability_digits.png").stat().st_size > 10_000
