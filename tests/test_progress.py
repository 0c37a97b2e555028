"""pixsel._progress: a bar on a terminal, plain lines without cursor codes in a log, nothing when off."""

import io
from types import SimpleNamespace

from pixsel._progress import LineSearchCallback, StepProgress, search_progress, step_progress


def test_search_progress_in_a_pipe_writes_plain_lines(capsys):
    with search_progress(True, "search", delay=0.0, interval=0.0) as cb:
        assert isinstance(cb, LineSearchCallback)  # pytest's stderr is not a terminal
        cb(SimpleNamespace(nodes=7, incumbent=4.0, bound=5.0, gap=1.0, elapsed=2.0))
    err = capsys.readouterr().err
    assert err == "search: 7 nodes, best 4, certified bound 5, relative gap 2.50e-01, 2 s\n"
    assert "\r" not in err and "\x1b" not in err


def test_line_callback_waits_for_delay_and_interval():
    out = io.StringIO()
    cb = LineSearchCallback("s", delay=1e9, stream=out)
    cb(SimpleNamespace(nodes=1, incumbent=1.0, bound=1.0, gap=0.0, elapsed=0.0))
    assert out.getvalue() == ""  # short searches print nothing


def test_steps_count_and_name_what_was_done(capsys):
    with step_progress(3, "paths", delay=0.0, interval=1e9) as steps:
        steps.update(1, "forward path")
        steps.update(2, "backward path")
    lines = capsys.readouterr().err.splitlines()
    # the first line as soon as the delay is over, then the last one; nothing in between
    assert lines[0].startswith("paths: 1/3 forward path done") and lines[-1].startswith("paths: 3/3 backward path")
    assert len(lines) == 2 and steps.n == 3


def test_disabled_progress_prints_nothing(capsys):
    with search_progress(False) as cb:
        assert cb is None
    with StepProgress(2, "x", enabled=False, delay=0.0) as steps:
        steps.update(2, "all")
    assert capsys.readouterr().err == ""
