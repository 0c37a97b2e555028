"""What a new user hits on real data: k > p, an existing --out, errors that name the fix, unknown
--param keys, Ctrl-C during an exact path, progress that is never silent, --split where it applies."""

import json
import os
import re
import signal
import subprocess
import sys

import numpy as np
import pytest

from pixsel.cli import build_parser, main


def _env(**extra):
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), MPLBACKEND="Agg", **extra)


def _error_line(err):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and ": error: " in lines[0] and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def good(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "good.npz"
    np.savez(path, X=rng.standard_normal((40, 16)), y=np.arange(40) % 2)
    return path


def test_k_larger_than_p_is_an_error_with_the_fix(good, tmp_path, capsys):
    assert main(["select", str(good), "-k", "17", "--out", str(tmp_path / "o")]) == 2
    line = _error_line(capsys.readouterr().err)
    assert "-k 17" in line and "16 features" in line and "between 1 and 16" in line
    assert not (tmp_path / "o").exists()
    # k = p is allowed, and the JSON records the k that was done
    assert main(["select", str(good), "-k", "16", "--out", str(tmp_path / "o"), "-q"]) == 0
    report = json.loads((tmp_path / "o" / "selection.json").read_text())
    assert report["k"] == 16 and len(report["indices"]) == 16 and "k_used" not in report


def test_existing_out_with_files_is_refused_unless_overwrite(good, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["select", str(good), "-k", "2", "--out", str(out), "-q"]) == 0
    first = (out / "selection.json").read_text()
    assert main(["select", str(good), "-k", "3", "--out", str(out), "-q"]) == 2
    line = _error_line(capsys.readouterr().err)
    assert "already holds files" in line and "selection.json" in line and "--overwrite" in line
    assert (out / "selection.json").read_text() == first  # untouched
    assert main(["select", str(good), "-k", "3", "--out", str(out), "-q", "--overwrite"]) == 0
    assert len(json.loads((out / "selection.json").read_text())["indices"]) == 3
    # an existing EMPTY folder is fine without --overwrite
    (tmp_path / "empty").mkdir()
    assert main(["select", str(good), "-k", "2", "--out", str(tmp_path / "empty"), "-q"]) == 0


@pytest.mark.parametrize("fill, needles", [
    ("nan", ["NaN", "SimpleImputer", "sample 3, feature 5"]),
    ("inf", ["infinite", "np.isfinite", "sample 3, feature 5"]),
    ("empty", ["no data", "at least 2 samples"]),
])
def test_bad_values_name_the_fix(tmp_path, capsys, fill, needles):
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((40, 16)), np.arange(40) % 2
    if fill == "empty":
        X, y = X[:0], y[:0]
    else:
        X[3, 5] = np.nan if fill == "nan" else np.inf
    path = tmp_path / "bad.npz"
    np.savez(path, X=X, y=y)
    assert main(["select", str(path), "-k", "2", "--out", str(tmp_path / "o")]) == 2
    line = _error_line(capsys.readouterr().err)
    assert "HistGradientBoosting" not in line
    for needle in needles:
        assert needle in line, line


@pytest.mark.parametrize("argv, cls, valid", [
    (["select", "{good}", "-k", "2"], "SparseLDASelector", ["direction", "regularization", "solver"]),
    (["select", "{good}", "-k", "2", "-m", "gspca"], "SparsePCASelector", ["certificate"]),
    (["project", "{good}", "-n", "2", "-m", "pca"], "PCA", ["whiten", "svd_solver"]),
])
def test_unknown_param_lists_the_valid_keys(good, tmp_path, capsys, argv, cls, valid):
    argv = [a.format(good=good) for a in argv] + ["--param", "foo=1", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    line = _error_line(capsys.readouterr().err)
    assert "unknown --param foo" in line and cls in line and "valid keys" in line
    for key in valid:
        assert key in line


def test_split_is_offered_where_it_applies():
    # --split picks a part of a train/test .npz; evaluate uses both parts (train to select and fit,
    # test to measure) and says so instead of offering it
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    with_split = {name for name, p in commands.items()
                  if any("--split" in a.option_strings for a in p._actions)}
    assert with_split == {"select", "path", "scores", "project"}
    assert "X_test" in commands["evaluate"].description
    from pixsel.cli import __doc__ as doc

    assert "``--split``" in doc and "select, path, scores, project" in doc


def test_a_long_fit_shows_more_than_one_update(tmp_path):
    # --progress in a pipe: plain lines, no cursor codes; a fit that outlasts the interval is never
    # silent: the fit's heartbeat, and the path's steps when they last (SparseLDASelector's own)
    rng = np.random.default_rng(0)
    path = tmp_path / "long.npz"
    # more samples than features: the dense form's whole two-class path (fewer would take the
    # implicit form's short forward pass, done before any update is due)
    np.savez(path, X=rng.standard_normal((400, 300)), y=np.arange(400) % 2)
    proc = subprocess.run([sys.executable, "-m", "pixsel", "select", str(path), "-k", "40", "--progress",
                           "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=300,
                          env=_env(PIXSEL_PROGRESS_INTERVAL="0.02"))
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("pixsel select: gslda fit")]
    assert len(lines) > 1, proc.stderr
    assert all("\r" not in ln and "\x1b" not in ln for ln in proc.stderr.splitlines())
    steps = [ln for ln in lines if re.match(r"pixsel select: gslda fit, \w+ path: step ", ln)]  # not the heartbeat
    # the last step counted is always shown (the forward pass asked for k = 40 stops at 2 k = 80)
    assert steps and re.match(r"pixsel select: gslda fit, \w+ path: step (79|80) of 80 \(", steps[-1]), lines
    assert lines[-1].startswith("pixsel select: gslda fit done (")
    assert any("still working" in ln for ln in proc.stderr.splitlines())


def test_ctrl_c_during_an_exact_path_exits_130_and_keeps_what_was_certified(tmp_path):
    # every k of 60 noise features: a search that runs for minutes
    rng = np.random.default_rng(0)
    path = tmp_path / "hard.npz"
    np.savez(path, X=rng.standard_normal((200, 60)), y=rng.integers(0, 2, 200))
    out = tmp_path / "o"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pixsel", "path", str(path), "--solver", "exact", "--progress", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(PIXSEL_PROGRESS_INTERVAL="0.5"),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        while True:  # the search's own progress line: it has started
            line = proc.stderr.readline()
            assert line, "the exact search printed no progress"
            if "nodes" in line:
                break
        assert "certified bound" in line and "relative gap" in line, line
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    report = json.loads((out / "path.json").read_text())
    assert report["status"] == "interrupted" and report["exact"]["search_status"] == "interrupted"
    assert (out / "path.png").stat().st_size > 0
