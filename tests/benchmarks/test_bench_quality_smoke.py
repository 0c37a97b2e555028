"""Smoke run (--quick) of bench_quality: every requested selector gets a row or a reported
failure, the summary tables print, the JSON and the figure are written (no timing asserted)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bench(run_script, tmp_path):
    """``bench(*args)`` runs bench_quality.py with ``args`` (results under ``tmp_path``, in this
    process: the test is about its output, not a process start); the finished run."""

    def run(*args):
        env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
        proc = run_script(ROOT / "benchmarks" / "bench_quality.py", *args, cwd=tmp_path, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc

    return run


def _replot(bench, tmp_path, out, *jsons):
    """``--replot`` of ``jsons`` into ``tmp_path / out``: its printout and the merged Sonar result."""
    proc = bench("--replot", *jsons, "--out", tmp_path / out)
    return proc.stdout, json.loads((tmp_path / out / "quality.json").read_text())["datasets"]["sonar"]


def _edited(tmp_path, name, edit):
    """A copy of the quick run's JSON, its Sonar result changed by ``edit``, written as ``name``."""
    record = json.loads((tmp_path / "quality" / "quality.json").read_text())
    edit(record["datasets"]["sonar"])
    (tmp_path / name).write_text(json.dumps(record))
    return tmp_path / name


def test_quality_quick(shared_data, tmp_path, bench):
    shared_data.path("uci_sonar.npz")
    only = ["f_classif", "pixsel LDA trace dual", "pixsel ColumnSubset greedy", "variance", "no such selector"]
    proc = bench("--quick", "--ks", "3", "5", "--only", *only)
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
    run = tmp_path / "quality" / "quality.json"
    out, merged = _replot(bench, tmp_path, "rp", run, run)
    assert "| sonar | 2 | " in out and "load at start of run 0 (" in out
    assert merged["accuracy"]["f_classif"] == acc["f_classif"] and len(merged["runs"]) == 2
    assert (tmp_path / "rp" / "quality_sonar.png").is_file()
    # an unsupervised row of a later run on the same splits is merged with its k-means scores
    first = _edited(tmp_path, "first_unsup.json", lambda r: r["clustering"].pop("variance"))
    out, merged = _replot(bench, tmp_path, "rp3", first, run)
    assert merged["clustering"]["variance"] == sonar["clustering"]["variance"] and "run 1 (variance)" in out
    # a bootstrap Jaccard is read on the first split alone: a run with another split count
    # fills in the Jaccard a row of the first lacks (and says which run gave it); its
    # accuracies, and a row the first lacks, are not merged
    first = _edited(tmp_path, "first.json", lambda r: r["jaccard"].pop("f_classif"))

    def other_split_count(r):
        r.update(splits=1, jaccard={"f_classif": 0.42, "mRMR": 0.5, "variance": 0.0})
        r["accuracy"]["mRMR"] = acc["f_classif"]

    out, merged = _replot(bench, tmp_path, "rp2", first, _edited(tmp_path, "other.json", other_split_count))
    assert merged["jaccard"]["f_classif"] == 0.42
    assert "mRMR" not in merged["accuracy"] and "mRMR" not in merged["jaccard"]
    assert merged["jaccard"]["variance"] == sonar["jaccard"]["variance"]  # the first run's stays
    assert "run 1 (Jaccard of f_classif)" in out
    # a row that failed in the first run is taken from a later run that fitted it (its failure
    # still reported), and every row is compared with FastCan beam=5 cell by cell when it ran
    def failed_beam(r):
        r["failed"]["FastCan beam=5"] = "ValueError: not enough candidates"

    def with_beam(r):
        r["accuracy"]["FastCan beam=5"] = acc["f_classif"]  # the beam read as f_classif's cells
        r["fit_time_median_s"]["FastCan beam=5"] = 1.0

    out, merged = _replot(bench, tmp_path, "rp4", _edited(tmp_path, "failed.json", failed_beam),
                          _edited(tmp_path, "beam.json", with_beam))
    assert merged["accuracy"]["FastCan beam=5"] == acc["f_classif"]
    assert "FastCan beam=5: ValueError: not enough candidates" in out and "run 1 (FastCan beam=5)" in out
    assert "Against FastCan beam=5, cell by cell" in out
    assert "| sonar | f_classif | 8/8 | +0.00 | +0.0 (lda, k=3) |" in out  # the same cells: no difference
    assert "| **all** | FastCan beam=5 | **8/8** |" in out


def test_quality_stability_figure(tmp_path, bench):
    """--stability-figure fits the default with stability=50 on the first split and draws the
    frequencies (scikit-learn's digits: no shared file)."""
    proc = bench("--stability-figure", "digits", "--out", tmp_path / "st")
    assert "stability=50" in proc.stdout and "chosen at least once:" in proc.stdout
    counts = proc.stdout.split("chosen at least once: ")[1].split()
    assert 25 <= int(counts[0]) <= 64 and counts[2] == "64"  # at least the k selected, at most every pixel
    assert (tmp_path / "st" / "quality_stability_digits.png").stat().st_size > 10_000
