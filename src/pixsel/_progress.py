"""Progress reporting for estimators and surfaces: kernels report, this module draws.

Kernels never draw a progress bar: a long search takes a ``callback`` and calls it now and
then with a small read-only record of where it stands (for the branch and bound of
:func:`pixsel.spectral.exact_support`, a :class:`pixsel.spectral.SearchState`). Estimators with
a ``progress`` parameter and the CLI turn that into progress with :func:`search_progress`::

    with search_progress(est.progress, desc="exact_support") as callback:
        result = exact_support(A, B, k, callback=callback)

and count the steps of longer work (the paths of :func:`pixsel.selection.lda_paths`, the
subset sizes of an evaluation, the epochs of dictionary learning) with :func:`step_progress`.
A kernel with per-step progress takes ``callback(done, total=None, what=None)``: pass
:meth:`StepProgress.callback`.

Where it goes: on a terminal, tqdm bars on stderr, refreshed at least once a second (so that the
elapsed time moves even while one step lasts); anywhere else (a pipe, a log file), plain lines
at most every ``interval`` seconds (10 s, or ``PIXSEL_PROGRESS_INTERVAL``) and no cursor codes,
so a log stays readable. Quiet unless enabled: ``search_progress(False)`` yields ``None`` (no
callback at all, so the kernel does not even build the records). Nothing appears before the
work has lasted ``delay`` seconds.

Three rules hold everywhere:

* **one writer**: every line goes through one lock (and, on a terminal, through
  ``tqdm.write``, which clears and redraws the bars), so two threads never interleave or glue
  lines;
* **an honest estimate**: the time left is shown only once it can be estimated -- at least two
  steps timed and one twentieth of the work done -- and from the recent pace (the steps of the
  last half of the elapsed time), not from the first step, which often carries a warm-up;
* **no spam**: a silent stage says ``still working`` after ``interval`` seconds, then after
  twice as long each time (10 s, 20 s, 40 s, ...), never at a fixed period.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["CallbackSteps", "LineSearchCallback", "StageLines", "StepProgress", "TqdmSearchCallback", "is_terminal",
           "search_progress", "step_progress"]

#: the one lock every progress line is written under (threads never interleave or glue lines)
_WRITE_LOCK = threading.RLock()

#: seconds between two refreshes of a bar on a terminal (the elapsed time moves during a long step)
_REFRESH = 0.5

#: seconds of silence before a step's first ``still working`` line (unless ``PIXSEL_PROGRESS_INTERVAL``
#: asks for less): a step that lasts a few seconds is no news
_QUIET = 5.0

#: when a progress line was last written, by anyone: a heartbeat speaks only after silence of all
_LAST_LINE = [time.monotonic()]


def _emit(text, stream, terminal=False):
    """Write one line of progress: under the one lock, and through ``tqdm.write`` on a terminal
    (it clears the bars, writes the line and draws them again)."""
    with _WRITE_LOCK:
        if terminal:
            from tqdm import tqdm

            tqdm.write(text, file=stream)
        else:
            print(text, file=stream, flush=True)
        _LAST_LINE[0] = time.monotonic()


def _quiet(interval):
    """Seconds of silence before a first ``still working``: ``interval``, at least :data:`_QUIET`
    unless ``PIXSEL_PROGRESS_INTERVAL`` is set (a user or a test asking for denser lines)."""
    import os

    return interval if "PIXSEL_PROGRESS_INTERVAL" in os.environ else max(interval, _QUIET)


class _Pace:
    """The time left from the recent pace of the steps, once it can be estimated.

    Marks ``(time, done)`` are kept; the estimate uses those of the last half of the elapsed time
    (at least two), so a slow first step (a warm-up, a compilation) or steps that slow down do not
    mislead it, and it is ``None`` until two steps are timed and a twentieth of the work is done.

    Examples
    --------
    >>> pace = _Pace(0.0)
    >>> pace.mark(1.0, 1); pace.left(1.0, 1, 10) is None  # one step: no estimate yet
    True
    >>> pace.mark(2.0, 2); pace.mark(3.0, 3)
    >>> pace.left(3.0, 3, 10)
    7.0
    """

    def __init__(self, start):
        self.start, self.marks = start, []

    def mark(self, now, done):
        if not self.marks or done > self.marks[-1][1]:
            self.marks.append((now, done))

    def left(self, now, done, total):
        if not total or done >= total or len(self.marks) < 2 or done < total / 20:
            return None
        half = now - (now - self.start) / 2
        recent = [m for m in self.marks if m[0] >= half]
        first = recent[0] if len(recent) >= 2 and recent[0] != self.marks[-1] else self.marks[-2]
        last = self.marks[-1]
        if last[1] <= first[1] or last[0] <= first[0]:
            return None
        return (last[0] - first[0]) / (last[1] - first[1]) * (total - done)


_BAR_CLASS = None


def _bar(**kwargs):
    """A tqdm bar that shows the time left only once it can be estimated (as :class:`_Pace` says)
    and, without a total, only what it counts and the elapsed time."""
    global _BAR_CLASS
    if _BAR_CLASS is None:
        from tqdm import tqdm

        class _HonestBar(tqdm):
            @property
            def format_dict(self):
                d = super().format_dict
                total = d.get("total")
                if not total:
                    d["bar_format"] = "{desc} [{elapsed}{postfix}]" if not self.n else \
                        "{desc}: {n_fmt} [{elapsed}{postfix}]"
                elif self.n < max(2, total / 20) or not self._pixsel_estimable():
                    d["bar_format"] = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
                return d

            def _pixsel_estimable(self):
                pace = getattr(self, "pixsel_pace", None)
                return pace is not None and len(pace.marks) >= 2

            def update(self, n=1):
                pace = getattr(self, "pixsel_pace", None)
                if pace is None:
                    pace = self.pixsel_pace = _Pace(time.monotonic())
                out = super().update(n)
                pace.mark(time.monotonic(), self.n)
                return out

        _BAR_CLASS = _HonestBar
    kwargs.setdefault("leave", False)
    if _terminal_size(kwargs.get("file")) is None:
        # a terminal that does not say its size (a bare pseudo-terminal): tqdm would draw nothing
        kwargs.setdefault("ncols", 100)
        kwargs.setdefault("nrows", 20)
    else:
        kwargs.setdefault("dynamic_ncols", True)
    return _BAR_CLASS(**kwargs)


def _terminal_size(stream):
    """``(columns, lines)`` of the terminal ``stream`` writes to, or None when it does not say."""
    import os

    try:
        size = os.get_terminal_size((sys.stderr if stream is None else stream).fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return (size.columns, size.lines) if size.columns > 0 and size.lines > 0 else None


def is_terminal(stream=None) -> bool:
    """True when ``stream`` (default stderr) is an interactive terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def _search_line(state):
    rel = state.gap / max(abs(state.incumbent), 1e-300)
    return (f"{int(state.nodes)} nodes, best {state.incumbent:.6g}, certified bound {state.bound:.6g}, "
            f"relative gap {rel:.2e}, {state.elapsed:.0f} s")


class TqdmSearchCallback:
    """A callable that shows a search's records on a tqdm bar (nodes; incumbent, bound, gap).

    Parameters
    ----------
    desc : str
        Bar label.
    delay : float
        Seconds before the bar appears (short searches print nothing).
    unit : str
        Counter unit.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> cb = TqdmSearchCallback(delay=1e9)
    >>> cb(SimpleNamespace(nodes=10, incumbent=1.0, bound=1.5, gap=0.5, elapsed=0.1))
    >>> cb.bar.n
    10
    >>> cb.close()
    """

    def __init__(self, desc="exact_support", *, delay=3.0, unit=" nodes"):
        self.bar = _bar(desc=desc, unit=unit, delay=delay, mininterval=0.5, file=sys.stderr)

    def __call__(self, state):
        bar = self.bar
        bar.n = int(state.nodes)
        rel = state.gap / max(abs(state.incumbent), 1e-300)
        bar.set_postfix(incumbent=f"{state.incumbent:.6g}", bound=f"{state.bound:.6g}", gap=f"{rel:.2e}", refresh=False)
        bar.refresh()

    def close(self):
        self.bar.close()


class LineSearchCallback:
    """A search callback that writes one plain line per ``interval`` seconds (for logs and pipes).

    Examples
    --------
    >>> import io
    >>> from types import SimpleNamespace
    >>> out = io.StringIO()
    >>> cb = LineSearchCallback("search", delay=0, interval=0, stream=out)
    >>> cb(SimpleNamespace(nodes=10, incumbent=2.0, bound=2.5, gap=0.5, elapsed=1.0))
    >>> out.getvalue()
    'search: 10 nodes, best 2, certified bound 2.5, relative gap 2.50e-01, 1 s\\n'
    """

    def __init__(self, desc="exact_support", *, delay=3.0, interval=None, stream=None):
        self.interval = _interval(10.0 if interval is None else interval)
        self.desc, self.delay = desc, min(delay, self.interval)  # a short interval asked: no long wait either
        self.stream = sys.stderr if stream is None else stream
        self._start = time.monotonic()
        self._next = self._start + self.delay

    def __call__(self, state):
        now = time.monotonic()
        if now >= self._next:
            self._next = now + self.interval
            _emit(f"{self.desc}: {_search_line(state)}", self.stream)

    def close(self):
        pass


@contextmanager
def search_progress(enabled=True, desc="exact_support", *, delay=3.0, interval=None, terminal=None):
    """Context giving a search callback when ``enabled`` (tqdm on a terminal, lines elsewhere), else ``None``.

    ``terminal`` forces the choice (None: a tqdm bar when stderr is a terminal).

    Examples
    --------
    >>> with search_progress(False) as callback:
    ...     callback is None
    True
    """
    if not enabled:
        yield None
        return
    terminal = is_terminal() if terminal is None else terminal
    cb = TqdmSearchCallback(desc, delay=delay) if terminal else LineSearchCallback(
        desc, delay=delay, interval=interval)
    try:
        yield cb
    finally:
        cb.close()


def _interval(default):
    """Seconds between plain progress lines: ``PIXSEL_PROGRESS_INTERVAL`` when set (it wins over
    any interval a caller gives, so that a user or a test can ask for denser lines), else ``default``."""
    import os

    try:
        return float(os.environ.get("PIXSEL_PROGRESS_INTERVAL", default))
    except ValueError:
        return default


def _seconds(t):
    t = max(float(t), 0.0)
    if t < 10:
        return f"{t:.1f} s"
    if t < 90:
        return f"{t:.0f} s"
    if t < 5400:
        return f"{t / 60:.0f} min"
    return f"{t / 3600:.1f} h"


class _Drawing:
    """The ending shared by :class:`StepProgress` and :class:`StageLines`: the heartbeat thread
    stopped and joined, the bar closed (under the write lock), ``close`` on leaving a ``with``."""

    def _stop_heartbeat(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _close_bar(self):
        if self._bar is not None:
            with _WRITE_LOCK:
                self._bar.close()
            self._bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class StepProgress(_Drawing):
    """Counts the steps of a longer piece of work and shows them, with the time left; a context manager.

    ``update(n, what=None)`` advances by ``n`` steps; ``what`` names the step just finished (it
    shows as the bar's postfix on a terminal and ends the plain line elsewhere). The time left
    is shown once it can be estimated (two steps timed, a twentieth of the work done), from the
    recent pace. On a terminal the bar is refreshed every half second, so it appears once
    ``delay`` is over and its elapsed time moves during a long step; in a log, a step that lasts
    longer than ``interval`` seconds (at least 5 s, unless ``PIXSEL_PROGRESS_INTERVAL`` is set)
    while no progress line is written gets a ``still working`` line, then another after twice as
    long each time (never a line at a fixed period). :meth:`callback` gives the function a
    kernel calls after each of its own steps. Disabled, it does nothing at all.

    Parameters
    ----------
    total : int
        Number of steps.
    desc : str
        What is counted (the bar label, the start of each line).
    enabled : bool
    delay : float
        Seconds before anything is shown (short work prints nothing).
    interval : float
        At most one plain line per ``interval`` seconds; the first ``still working`` after as
        long (the environment variable ``PIXSEL_PROGRESS_INTERVAL`` overrides the default of 10 s).
    stream : file, optional
        Default stderr.
    heartbeat : bool
        Run the heartbeat thread (default True).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with StepProgress(2, "paths", delay=0, interval=0, stream=out, heartbeat=False) as steps:
    ...     steps.update(1, "forward path")
    ...     steps.update(1, "backward path")
    >>> print(out.getvalue().rstrip())
    paths: 1/2 forward path done (0.0 s)
    paths: 2/2 backward path done (0.0 s)
    """

    def __init__(self, total, desc, *, enabled=True, delay=2.0, interval=None, stream=None, heartbeat=True):
        self.total, self.desc, self.enabled = total, desc, enabled
        self.interval = _interval(10.0 if interval is None else interval)
        self.delay = min(delay, self.interval)  # a short interval asked: no long wait either
        self.stream = sys.stderr if stream is None else stream
        self.n = 0
        self._bar = None
        self._start = time.monotonic()
        self._next = self._start + self.delay
        self._pace = _Pace(self._start)
        self._quiet_since, self._beats = self._start, 0  # for the heartbeat's growing wait
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if not enabled:
            return
        if is_terminal(self.stream):
            self._bar = _bar(total=total, desc=desc, delay=delay, file=self.stream)
        if heartbeat and (self._bar is not None or self.interval > 0):
            self._thread = threading.Thread(target=self._beat, name="pixsel-progress", daemon=True)
            self._thread.start()

    def _left(self, now):
        left = self._pace.left(now, self.n, self.total)
        return "" if left is None else f", about {_seconds(left)} left"

    def _beat(self):
        """On a terminal: refresh the bar (it appears after ``delay``, its clock moves). In a log:
        ``still working`` after ``interval`` s of silence, then after twice as long each time."""
        period = _REFRESH if self._bar is not None else min(self.interval, 0.25)
        while not self._stop.wait(period):
            with self._lock:
                now = time.monotonic()
                if now - self._start < self.delay or self.n >= self.total:
                    continue
                if self._bar is not None:
                    self._bar.refresh()
                elif now - max(self._quiet_since, _LAST_LINE[0]) >= _quiet(self.interval) * 2 ** self._beats:
                    self._beats += 1
                    self._next = now + self.interval
                    _emit(f"{self.desc}: {self.n}/{self.total}, still working on step {self.n + 1} "
                          f"({_seconds(now - self._start)}{self._left(now)})", self.stream)

    def update(self, n=1, what=None):
        self.n += n
        if not self.enabled:
            return
        with self._lock:
            now = time.monotonic()
            self._pace.mark(now, self.n)
            self._quiet_since, self._beats = now, 0
            if self._bar is not None:
                if what:
                    self._bar.set_postfix_str(what, refresh=False)
                self._bar.update(n)
                return
            if now >= self._next or (self.n >= self.total and now - self._start >= self.delay):
                self._next = now + self.interval
                done = f" {what} done" if what else ""
                _emit(f"{self.desc}: {self.n}/{self.total}{done} ({_seconds(now - self._start)}{self._left(now)})",
                      self.stream)

    def callback(self, done, total=None, what=None):
        """For a kernel's per-step callback: ``done`` steps of ``total`` (None: unchanged) finished.

        Examples
        --------
        >>> import io
        >>> out = io.StringIO()
        >>> steps = StepProgress(10, "path", delay=0, interval=0, stream=out, heartbeat=False)
        >>> steps.callback(4, 8, "k = 4")
        >>> steps.n, steps.total
        (4, 8)
        """
        if total is not None:
            self.total = int(total)
            if self._bar is not None:
                self._bar.total = int(total)
        if done > self.n:
            self.update(int(done) - self.n, what)

    def close(self):
        self._stop_heartbeat()
        self._close_bar()


class CallbackSteps:
    """A :class:`StepProgress` that draws nothing: each update calls ``report(done, total, desc)``.

    For an estimator whose ``progress`` is a callable: its steps reach the caller (the CLI's
    :class:`StageLines`, a notebook widget, a log) through the same ``update`` calls that draw a
    bar when ``progress=True``.

    Examples
    --------
    >>> calls = []
    >>> with CallbackSteps(lambda *a: calls.append(a), 3, "epochs") as steps:
    ...     steps.update(1, "epoch 1")
    ...     steps.callback(3)
    >>> calls
    [(1, 3, 'epochs'), (3, 3, 'epochs')]
    """

    def __init__(self, report, total, desc):
        self.report, self.total, self.desc, self.n = report, total, desc, 0

    def update(self, n=1, what=None):
        self.n += n
        self.report(self.n, self.total, self.desc)

    def callback(self, done, total=None, what=None):
        if total is not None:
            self.total = int(total)
        if done > self.n:
            self.update(int(done) - self.n, what)

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def step_progress(total, desc, *, enabled=True, delay=2.0, interval=None):
    """A :class:`StepProgress` of ``total`` steps: tqdm on a terminal, plain lines elsewhere, nothing when disabled.

    ``interval`` defaults to ``PIXSEL_PROGRESS_INTERVAL`` or 10 s.
    """
    return StepProgress(total, desc, enabled=enabled, delay=delay, interval=interval)


class StageLines(_Drawing):
    """A command's progress, stage by stage: what ``pixsel CMD`` shows on a terminal, and what
    ``pixsel CMD --progress`` writes in a log.

    In a log (plain lines, no cursor codes): :meth:`stage` starts a stage and prints its line at
    once (``pixsel select: reading 400 images``), so that even a command that ends in a second
    shows what it did; :meth:`steps` gives the per-step callback of a long stage (the images
    read, the steps of a greedy path), which prints ``i of n`` at most once per ``interval``
    seconds, and always the first and the last step, with the time left once it can be
    estimated; a stage silent for ``interval`` seconds gets a ``still working`` line, then
    another after twice as long each time.

    On a terminal: one tqdm bar, the current stage (``pixsel select: gslda fit [00:03]``), which
    its steps fill (``i/n``, with the time left once it can be estimated) and which is
    refreshed every half second, so the clock moves during a long step; it appears after half a
    second and is cleared when the command ends. Disabled, it prints nothing and :meth:`steps`
    gives ``None``.

    Parameters
    ----------
    prefix : str
        Start of every line (``pixsel select``).
    enabled : bool
    interval : float, optional
        Seconds between two lines of one stage (default 1 s; ``PIXSEL_PROGRESS_INTERVAL``
        overrides it).
    stream : file, optional
        Default stderr.
    terminal : bool, optional
        Force a bar (True) or lines (False); default: a bar when ``stream`` is a terminal.
    heartbeat : bool
        Run the heartbeat thread (default True).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with StageLines("pixsel select", interval=1e9, stream=out, heartbeat=False) as stages:
    ...     stages.stage("reading 3 images")
    ...     read = stages.steps("reading images", "image")
    ...     for i in range(1, 4):
    ...         read(i, 3)
    ...     stages.stage("writing selection.json")
    >>> print(out.getvalue().rstrip())
    pixsel select: reading 3 images
    pixsel select: reading images: image 1 of 3 (0.0 s)
    pixsel select: reading images: image 3 of 3 (0.0 s)
    pixsel select: writing selection.json
    """

    def __init__(self, prefix, *, enabled=True, interval=None, stream=None, terminal=None, heartbeat=True):
        self.prefix, self.enabled = prefix, enabled
        self.stream = sys.stderr if stream is None else stream
        self.terminal = is_terminal(self.stream) if terminal is None else terminal
        self.interval = _interval(1.0 if interval is None else interval)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._stage, self._start, self._last = None, time.monotonic(), time.monotonic()
        self._counted = self._start  # when the last step was counted (printed or not)
        self._pending = None  # the line of the last step counted, while it is not printed
        self._where = ""  # the last step printed or counted, for the heartbeat
        self._beats = 0  # 'still working' lines since the last line: the next waits 2 ** beats intervals
        self._bar = None  # on a terminal: the bar of the current stage
        self._thread = None
        if enabled and heartbeat and (self.terminal or self.interval > 0):
            self._thread = threading.Thread(target=self._beat, name="pixsel-stages", daemon=True)
            self._thread.start()

    def _print(self, text):
        _emit(f"{self.prefix}: {text}", self.stream)
        self._last, self._beats = time.monotonic(), 0

    def stage(self, text, name=None):
        """Start the stage ``text``; its line is printed at once (on a terminal: its bar). ``name``
        (default ``text``) is what the heartbeat and :meth:`done` call it."""
        if not self.enabled:
            return
        with self._lock:
            self._stage, self._start, self._where = name or text, time.monotonic(), ""
            self._counted, self._pending, self._beats = self._start, None, 0
            if self.terminal:  # one bar line: the stage's short name when its text is long
                self._close_bar()
                short = text if len(text) <= 48 else (name or text)[:48]
                self._bar = _bar(total=None, desc=f"{self.prefix}: {short}", file=self.stream, delay=0.5)
            else:
                self._print(text)

    def done(self, text=None):
        """End the current stage with a line ``<stage> done (seconds)`` (``text`` replaces the
        stage's name; on a terminal the bar of the stage is cleared)."""
        if not self.enabled or self._stage is None:
            return
        with self._lock:
            if self.terminal:
                self._close_bar()
            else:
                if self._pending:  # the last step counted, when it was not printed
                    self._print(self._pending)
                self._print(f"{text or self._stage} done ({_seconds(time.monotonic() - self._start)})")
            self._stage, self._pending = None, None

    def steps(self, what, unit="step"):
        """The callback ``(done, total=None, what=None)`` of the steps ``what`` of the current stage.

        ``done`` steps of ``total`` are finished (``total`` None: as before); a third argument
        names the steps (a kernel's pass, ``forward path``) and replaces ``what``. ``None``
        when disabled.
        """
        if not self.enabled:
            return None
        state = {"total": None, "first": None, "pace": None}

        def callback(done, total=None, name=None):
            now = time.monotonic()
            label = f"{what}, {name}" if name else what
            if total is not None:
                state["total"] = int(total)
            total_ = state["total"]
            with self._lock:
                first = state["first"]
                new = first is None or first[0] != label or done < first[1]
                if new:  # the first step of these steps (or of the next pass): its line at once
                    state["first"] = first = (label, done, now)
                    state["pace"] = _Pace(now)
                state["pace"].mark(now, int(done))
                if self.terminal:
                    self._fill_bar(label, int(done), total_, new)
                    return
                of = f" of {total_}" if total_ else ""
                self._where, self._counted, self._beats = f"{label}: {unit} {int(done)}{of}", now, 0
                last = total_ is not None and done >= total_
                if not (new or last or now - self._last >= self.interval):
                    self._pending = f"{self._where} ({_seconds(now - self._start)})"
                    return
                left = None if last else state["pace"].left(now, int(done), total_)
                left = "" if left is None else f", about {_seconds(left)} left"
                self._print(f"{self._where} ({_seconds(now - self._start)}{left})")
                self._pending = None

        return callback

    def _fill_bar(self, label, done, total, new):
        """The steps on the stage's bar (a terminal)."""
        bar = self._bar
        if bar is None:
            return
        if new:  # the next pass: counted afresh, its pace too
            bar.set_description_str(f"{self.prefix}: {label}", refresh=False)
            bar.reset(total=total)
            bar.pixsel_pace = None
        elif total is not None and bar.total != total:
            bar.total = total
        if done > bar.n:
            bar.update(done - bar.n)

    def _beat(self):
        period = _REFRESH if self.terminal else min(self.interval, 0.25)
        while not self._stop.wait(period):
            with self._lock:
                if self.terminal:
                    if self._bar is not None:
                        with _WRITE_LOCK:
                            self._bar.refresh()
                    continue
                now = time.monotonic()
                # silent for an interval (then twice as long each time), no step counted meanwhile
                quiet = now - max(self._last, self._counted, _LAST_LINE[0])
                if self._stage is None or quiet < self.interval * 2 ** self._beats:
                    continue
                where = f"; {self._where} done" if self._where else ""
                beats = self._beats
                self._print(f"{self._stage}: still working ({_seconds(now - self._start)}{where})")
                self._beats, self._last = beats + 1, max(self._last, self._counted)

    def close(self):
        self._stop_heartbeat()
        with self._lock:
            self._close_bar()
