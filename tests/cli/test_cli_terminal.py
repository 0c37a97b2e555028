"""On a terminal the command shows where it stands before it ends (a tqdm bar on stderr); in a
pipe it stays quiet unless --progress asks for plain lines."""

import os
import select
import subprocess
import sys
import time

import numpy as np
import pytest

from pixsel.cli import main

pty = pytest.importorskip("pty")


def _run_on_a_terminal(argv, timeout=300):
    """Run ``python -m pixsel ARGV`` with stderr on a pseudo-terminal; return the bytes read from
    it while the process still ran, all of them, and the exit status."""
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), MPLBACKEND="Agg", COLUMNS="100")
    env.pop("PIXSEL_PROGRESS_INTERVAL", None)
    proc = subprocess.Popen([sys.executable, "-m", "pixsel", *argv], stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    during, everything = b"", b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the other end closed: the process ended
                    break
                if not chunk:
                    break
                everything += chunk
                if proc.poll() is None:
                    during += chunk
            elif proc.poll() is not None:
                break
        proc.wait(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    proc.stdout.close()
    return during, everything, proc.returncode


def test_select_shows_a_bar_before_it_ends_on_a_terminal(tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(6), 60)
    X = rng.normal(size=(len(y), 32, 32)) + 0.3 * y[:, None, None] * (rng.random((32, 32)) < 0.05)
    data = tmp_path / "faces.npz"
    np.savez(data, X=X, y=y)
    during, everything, code = _run_on_a_terminal(
        ["select", str(data), "-k", "600", "--direction", "forward", "--out", str(tmp_path / "o")])
    assert code == 0, everything.decode(errors="replace")
    text = during.decode(errors="replace")
    # a bar named by the command and its stage, drawn while the work ran
    assert "pixsel select: " in text, everything
    assert "\r" in text  # a bar redrawn in place, not lines
    assert "still working" not in everything.decode(errors="replace")  # the bar's clock says it, no lines
    assert (tmp_path / "o" / "selection.json").is_file()


def test_path_shows_a_bar_before_it_ends_on_a_terminal(tmp_path):
    rng = np.random.default_rng(0)
    y = np.arange(200) % 2
    data = tmp_path / "d.npz"
    np.savez(data, X=rng.normal(size=(200, 16, 16)) + 0.5 * y[:, None, None], y=y)
    during, everything, code = _run_on_a_terminal(["path", str(data), "--out", str(tmp_path / "o")])
    assert code == 0, everything.decode(errors="replace")
    text = during.decode(errors="replace")
    assert "pixsel path: " in text and "\r" in text, everything  # its stage's bar, redrawn in place
    assert "still working" not in everything.decode(errors="replace")
    assert (tmp_path / "o" / "path.json").is_file()


def test_select_in_a_pipe_is_quiet_without_progress(tmp_path, capsys, monkeypatch):
    # stderr is no terminal here, as in a pipe; a fresh process's stderr in a pipe is checked empty
    # by tests/cli/test_select_progress.py::test_the_console_exit_runs_atexit_flushes_and_keeps_the_status
    monkeypatch.delenv("PIXSEL_PROGRESS_INTERVAL", raising=False)
    rng = np.random.default_rng(0)
    data = tmp_path / "d.npz"
    np.savez(data, X=rng.normal(size=(40, 16)), y=np.arange(40) % 2)
    code = main(["select", str(data), "-k", "3", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 0 and err == "", err
