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
    # a short interval asked (PIXSEL_PROGRESS_INTERVAL, or interval=): no longer first wait either
    cb = LineSearchCallback("s", delay=1e9, interval=0.0, stream=out)
    cb(SimpleNamespace(nodes=1, incumbent=1.0, bound=1.0, gap=0.0, elapsed=0.0))
    assert out.getvalue().startswith("s: 1 nodes")


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


def test_step_progress_takes_a_kernels_step_callback_with_the_time_left():
    import io

    from pixsel._progress import StepProgress

    out = io.StringIO()
    with StepProgress(100, "forward path", delay=0, interval=0, stream=out, heartbeat=False) as steps:
        for done in range(10, 101, 10):
            steps.callback(done, 100)
    lines = out.getvalue().splitlines()
    assert len(lines) == 10 and lines[0].startswith("forward path: 10/100 (")
    # no time left from a single step; from the second on, and none once done
    assert "left" not in lines[0] and all("left)" in ln for ln in lines[1:-1]) and "left" not in lines[-1]
    assert steps.n == 100


def test_heartbeat_says_a_long_step_is_still_running(monkeypatch):
    import io
    import time

    from pixsel._progress import StepProgress

    monkeypatch.setenv("PIXSEL_PROGRESS_INTERVAL", "0.01")
    out = io.StringIO()
    with StepProgress(1, "fit", delay=0, interval=0.01, stream=out) as steps:
        deadline = time.monotonic() + 30
        while out.getvalue().count("still working") < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        steps.update(1)
    text = out.getvalue()
    assert text.count("fit: 0/1, still working on step 1") >= 2 and text.rstrip().endswith(")")
    assert "left" not in text  # nothing done: no estimate
    assert "fit: 1/1" in text


def test_the_time_left_is_the_recent_pace_not_the_first_step():
    """A slow first step (a warm-up) does not make the estimate: the steps of the last half of
    the elapsed time do."""
    from pixsel._progress import _Pace

    pace = _Pace(0.0)
    pace.mark(20.0, 1)  # the first of 30 epochs: 20 s (a compilation)
    assert pace.left(20.0, 1, 30) is None  # one step timed: no estimate
    for i in range(2, 11):
        pace.mark(20.0 + (i - 1) * 1.0, i)  # then 1 s an epoch
    assert pace.left(29.0, 10, 30) == 20.0  # 20 epochs left at 1 s, not at 2.9 s (the mean)
    assert _Pace(0.0).left(5.0, 0, 30) is None


def test_still_working_lines_wait_twice_as_long_each_time():
    import io
    import time

    from pixsel._progress import StageLines

    out = io.StringIO()
    with StageLines("pixsel x", interval=0.05, stream=out) as stages:
        stages.stage("statistics")
        time.sleep(1.0)  # 20 intervals of silence
    beats = [ln for ln in out.getvalue().splitlines() if "still working" in ln]
    # after 0.05, 0.1, 0.2, 0.4 s of silence (0.75 s in all): at most 5 lines, not 20
    assert 2 <= len(beats) <= 5, beats


def test_two_threads_never_glue_lines():
    import io
    import threading

    from pixsel._progress import _emit

    out = io.StringIO()

    def write(tag):
        for i in range(300):
            _emit(f"{tag} line {i}", out)

    threads = [threading.Thread(target=write, args=(t,)) for t in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = out.getvalue().splitlines()
    assert len(lines) == 600 and all(ln.split(" ")[0] in "ab" and ln.split(" ")[1] == "line" for ln in lines)
