"""The CLI contract (issue 13): user errors exit 2 with ONE line saying how to fix the input, no
traceback unless --debug; Ctrl-C exits 130 and keeps a partial result marked "interrupted";
outputs are readable by others (0644 under umask 022); --help does not import the numerics."""

import json
import os
import signal
import stat
import subprocess
import sys

import numpy as np
import pytest

from pixsel.cli import main


def _cli(*args, timeout=300):
    """Run ``python -m pixsel ARGS`` in a subprocess; returns (exit code, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, "-m", "pixsel", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def data_npz(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "d.npz"
    np.savez(path, X=rng.standard_normal((40, 6)), y=np.arange(40) % 2)
    return path


def _one_line_error(err, *needles):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("pixsel ") and ": error: " in lines[0], err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_corrupt_npz_is_exit_2_in_one_line_and_debug_shows_the_traceback(tmp_path, capsys):
    # main() in this process: it prints the line and the traceback itself; the exit status of the
    # console command is main()'s (test_the_console_exit_runs_atexit_flushes_and_keeps_the_status)
    bad = tmp_path / "corrupt.npz"
    bad.write_bytes(b"PK\x03\x04 this is not a zip archive")
    assert main(["select", str(bad), "-k", "2", "--out", str(tmp_path / "o")]) == 2
    _one_line_error(capsys.readouterr().err, "corrupt", "numpy.savez")
    code = main(["select", str(bad), "-k", "2", "--out", str(tmp_path / "o"), "--debug"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" in err and err.rstrip().splitlines()[-1].startswith("pixsel select: error:")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv, needles", [
    # --out naming an existing file
    (["--out", "{file}"], ["exists and is not a folder", "--out"]),
    # --out below a file: cannot be made
    (["--out", "{file}/sub"], ["--out"]),
    # a limit of the exact search without --solver exact is not silently ignored
    (["--time-limit", "5"], ["--time-limit", "--solver exact"]),
    (["--node-limit", "5", "--gap-tol", "0.1"], ["--node-limit", "--gap-tol", "--solver exact"]),
    # a method without an exact solver
    (["--method", "subspace", "--solver", "exact"], ["gslda", "gspca"]),
    # k out of range: the standard parameter message
    (["-k", "0"], ["-k must be", "[1, 6]"]),
])
def test_user_errors_exit_2_with_one_line(data_npz, tmp_path, capsys, argv, needles):
    file = tmp_path / "taken.txt"
    file.write_text("keep me")
    argv = [a.format(file=file) for a in argv]
    base = ["select", str(data_npz), "-k", "2", "--out", str(tmp_path / "o")]
    if "-k" in argv:
        base = base[:2] + base[4:]
    assert main(base + argv) == 2
    _one_line_error(capsys.readouterr().err, *needles)
    assert file.read_text() == "keep me" and not (tmp_path / "o").exists()


def test_unwritable_out_is_exit_2(data_npz, tmp_path, capsys, monkeypatch):
    # root may write anywhere, so the refusal is simulated where the OS would give it
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(str(tmp_path)) else real(p, mode))
    assert main(["select", str(data_npz), "-k", "2", "--out", str(tmp_path / "ro" / "o")]) == 2
    _one_line_error(capsys.readouterr().err, "permission denied", "--out DIR")


def test_permission_error_while_writing_is_exit_2(data_npz, tmp_path, capsys, monkeypatch):
    import pixsel.io

    def refuse(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(pixsel.io.tempfile, "mkstemp", lambda **kw: refuse(kw["dir"]))
    assert main(["select", str(data_npz), "-k", "2", "--out", str(tmp_path / "o")]) == 2
    _one_line_error(capsys.readouterr().err, "permission denied")


@pytest.mark.parametrize("arrays, needles", [
    ({"X": np.array([[1, "a"], [2, "b"]], dtype=object), "y": np.array([0, 1])}, ["object", "X.astype(float)"]),
    ({"X": np.array([["1", "2"], ["3", "x"]]), "y": np.array([0, 1])}, ["text", "X.astype(float)"]),
    ({"X": np.zeros((4, 3)), "y": np.arange(5)}, ["5 labels", "X and y"]),
    ({"data": np.zeros(3)}, ["expects 'X'"]),
])
def test_malformed_npz_is_exit_2(tmp_path, capsys, arrays, needles):
    path = tmp_path / "m.npz"
    np.savez(path, **arrays)
    assert main(["select", str(path), "-k", "1", "--out", str(tmp_path / "o")]) == 2
    _one_line_error(capsys.readouterr().err, *needles)


def test_evaluate_with_three_classes_names_the_fix(tmp_path, capsys):
    rng = np.random.default_rng(1)
    path = tmp_path / "three.npz"
    np.savez(path, X=rng.standard_normal((60, 4)), y=np.repeat(["cat", "dog", "owl"], 20))
    assert main(["evaluate", str(path), "-k", "1,2", "-c", "lda", "--out", str(tmp_path / "e")]) == 2
    _one_line_error(capsys.readouterr().err, "--classes cat,dog")
    assert main(["evaluate", str(path), "-k", "1,2", "-c", "lda", "--classes", "cat,owl",
                 "--out", str(tmp_path / "e"), "-q"]) == 0
    # a second run into the same folder needs --overwrite
    report = json.loads((tmp_path / "e" / "evaluate.json").read_text())
    assert report["class_names"] == ["cat", "owl"] and report["n_train"] + report["n_test"] == 40
    assert main(["evaluate", str(path), "-k", "1", "--classes", "cat,emu", "--out", str(tmp_path / "e"),
                 "--overwrite"]) == 2
    _one_line_error(capsys.readouterr().err, "emu", "cat, dog, owl")


def test_outputs_are_readable_by_others(data_npz, tmp_path):
    old = os.umask(0o022)
    try:
        assert main(["select", str(data_npz), "-k", "2", "--out", str(tmp_path / "o"), "-q"]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "o" / "selection.json").stat().st_mode) == 0o644


def test_ctrl_c_during_an_exact_solve_exits_130_and_keeps_the_partial_result(tmp_path):
    # a search that runs for minutes: p = 60 noise features, k = 20
    rng = np.random.default_rng(0)
    path = tmp_path / "hard.npz"
    np.savez(path, X=rng.standard_normal((200, 60)), y=rng.integers(0, 2, 200))
    out = tmp_path / "o"
    # PIXSEL_PROGRESS_INTERVAL: the search's first line after 0.5 s of search, not the default 3 s
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), MPLBACKEND="Agg", PIXSEL_PROGRESS_INTERVAL="0.5")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pixsel", "select", str(path), "-k", "20", "--solver", "exact", "--progress",
         "--regularization", "auto", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # a suite started as a background job inherits SIGINT ignored, and Python then never
        # installs its handler; a user's terminal delivers Ctrl-C with the default disposition
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # --progress in a pipe: plain lines (the stages, the path's steps), the search's first once
        # it has run for the interval (0.5 s here)
        while True:
            line = proc.stderr.readline()
            assert line and "\r" not in line and "\x1b" not in line, line
            if "nodes" in line:
                break
        assert "relative gap" in line, line
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    report = json.loads((out / "selection.json").read_text())
    assert report["status"] == "interrupted" and len(report["indices"]) == 20
    assert report["gap"] > 0 and report["absolute_gap"] == pytest.approx(report["gap"] * report["objective"])


def test_gap_has_one_meaning_relative(data_npz, tmp_path):
    from pixsel import SparseLDASelector

    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((200, 40)), rng.integers(0, 2, 200)
    with pytest.warns(Warning, match=r"gap_ .* relative, absolute_gap_"):
        sel = SparseLDASelector(12, solver="exact", node_limit=50, regularization="rda").fit(X, y)  # a search this limit stops
    assert sel.status_ == "node_limit"
    obj = sel.objective_path_[11]
    assert sel.absolute_gap_ == pytest.approx(sel.upper_bound_ - obj)
    assert sel.gap_ == pytest.approx(sel.absolute_gap_ / obj)


def test_help_does_not_import_the_numerics():
    # what makes `pixsel --help` start in well under a second (timed in benchmarks/bench_cli_startup.py)
    code = ("import sys; from pixsel.cli import build_parser; build_parser(); "
            "heavy = [m for m in ('numpy', 'sklearn', 'scipy', 'matplotlib', 'dask', 'numba', 'skimage') if m in sys.modules]; "
            "print(heavy); assert not heavy")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    code, out, _ = _cli("select", "--help")
    assert code == 0 and "--split" in out and "--progress" in out and "--debug" in out
    code, out, _ = _cli("--help")
    assert code == 0 and "130" in out


def test_evaluate_choices_are_the_experiments_names():
    from pixsel import experiments
    from pixsel.cli import _evaluate

    assert tuple(experiments.SELECTORS) == _evaluate.SELECTORS and experiments.CLASSIFIERS == _evaluate.CLASSIFIERS
