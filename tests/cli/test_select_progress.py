"""``pixsel select --progress``: a line per stage at once (reading, loading, fit, writing), the
steps of the long stages (images read, path steps) with the time left; quiet without it."""

import json
import re

import numpy as np
import pytest

from pixsel.cli import main


@pytest.fixture
def folder(tmp_path):
    from PIL import Image

    rng = np.random.default_rng(0)
    root = tmp_path / "images"
    for c in range(3):
        (root / f"class{c}").mkdir(parents=True)
        for i in range(5):
            img = rng.integers(0, 200, (8, 8)).astype(np.uint8)
            img[c, :] = 255  # a planted row per class
            Image.fromarray(img).save(root / f"class{c}" / f"{i}.png")
    return root


def test_progress_prints_every_stage_even_for_a_short_fit(folder, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PIXSEL_PROGRESS_INTERVAL", "1000")  # only the stage lines and first/last steps
    out = tmp_path / "o"
    assert main(["select", str(folder), "-k", "3", "--direction", "dual", "--progress", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert all(ln.startswith("pixsel select: ") and "\r" not in ln and "\x1b" not in ln for ln in lines), lines
    text = [ln.removeprefix("pixsel select: ") for ln in lines]
    # the passes' steps: the first of each at once, the last always (the multiclass backward pass
    # reports its compiled chunks: here one, all 64 steps)
    steps = [ln for ln in text if ln.startswith("gslda fit, ")]
    assert steps[0] == "gslda fit, forward path: step 1 of 13 (" + steps[0].split(" (", 1)[1]
    assert re.fullmatch(r"gslda fit, forward path: step 13 of 13 \(\d+\.\d s\)", steps[1]), steps
    assert re.fullmatch(r"gslda fit, backward path: step 64 of 64 \(\d+\.\d s\)", steps[-1]), steps
    expected = [
        f"reading {folder}",
        "reading images: image 1 of 15 (",
        "reading images: image 15 of 15 (",
        "loading SparseLDASelector (scikit-learn, SciPy)",
        "gslda fit (15 samples, 64 features, 3 classes): statistics, then the greedy path",
        *steps,
        "gslda fit done (",
        "writing selection.json, mask.png",
    ]
    assert len(text) == len(expected), "\n".join(text)
    for got, want in zip(text, expected):
        assert got.startswith(want), (got, want)
    # stdout: the summary, as without --progress
    assert captured.out.splitlines()[0].startswith("selected 3 of 64 features with gslda")
    report = json.loads((out / "selection.json").read_text())
    assert report["parameters"]["progress"] is True  # the flag, not the callback that drew the lines


def test_without_progress_stderr_stays_empty_and_the_support_is_the_same(folder, tmp_path, capsys):
    assert main(["select", str(folder), "-k", "3", "--out", str(tmp_path / "quiet")]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert [ln.split(" ")[0] for ln in captured.out.splitlines()] == ["selected", "wrote"]
    assert main(["select", str(folder), "-k", "3", "--progress", "--out", str(tmp_path / "loud")]) == 0
    capsys.readouterr()
    quiet = json.loads((tmp_path / "quiet" / "selection.json").read_text())
    loud = json.loads((tmp_path / "loud" / "selection.json").read_text())
    assert quiet["indices"] == loud["indices"] and quiet["objective"] == loud["objective"]
    assert quiet["parameters"]["progress"] is False
    # -q wins over --progress
    assert main(["select", str(folder), "-k", "3", "--progress", "-q", "--out", str(tmp_path / "q")]) == 0
    assert capsys.readouterr().err == ""


def test_a_slow_stage_gets_a_heartbeat_at_most_once_per_interval():
    import io
    import time

    from pixsel._progress import StageLines

    out = io.StringIO()
    with StageLines("pixsel x", interval=0.05, stream=out) as stages:
        stages.stage("statistics of a large folder", "statistics")
        time.sleep(0.3)
        step = stages.steps("path")
        for i in range(1, 201):
            step(i, 200)
            time.sleep(0.001)
        stages.done()
    lines = out.getvalue().splitlines()
    beats = [ln for ln in lines if ln.startswith("pixsel x: statistics: still working (")]
    assert 2 <= len(beats) <= 7, lines
    steps = [ln for ln in lines if ln.startswith("pixsel x: path: step ")]
    # the first at once, then about one per interval (0.2 s or more of steps), and the last
    assert steps[0].startswith("pixsel x: path: step 1 of 200 (") and steps[-1].startswith("pixsel x: path: step 200 of 200")
    assert 3 <= len(steps) < 40 and all("left)" in ln for ln in steps[1:-1])
    assert lines[-1].startswith("pixsel x: statistics done (")


def test_the_console_exit_runs_atexit_flushes_and_keeps_the_status(folder, tmp_path):
    """console() ends the process with os._exit after main(): the atexit handlers still run, the
    piped (block-buffered) output is complete, and the exit status is main()'s."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), MPLBACKEND="Agg")
    code = ("import atexit, sys; atexit.register(lambda: print('atexit ran', flush=True)); "
            "from pixsel.cli import console; console(sys.argv[1:])")
    ok = subprocess.run([sys.executable, "-c", code, "select", str(folder), "-k", "2", "--out", str(tmp_path / "o")],
                        capture_output=True, text=True, env=env, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert [ln.split(" ")[0] for ln in ok.stdout.splitlines()] == ["selected", "wrote", "atexit"], ok.stdout
    assert ok.stderr == ""  # in a pipe, without --progress: quiet (nothing printed on import either)
    bad = subprocess.run([sys.executable, "-m", "pixsel", "select", str(tmp_path / "missing"), "-k", "2",
                          "--out", str(tmp_path / "b")], capture_output=True, text=True, env=env, timeout=300)
    assert bad.returncode == 2 and bad.stderr.startswith("pixsel select: error: "), bad.stderr
