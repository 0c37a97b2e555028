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
:meth:`StepProgress.callback`. Plain lines carry the time left once a step is done; a step
that takes longer than the interval gets a ``still working`` line, so nothing long is silent.

Where it goes: on a terminal, a tqdm bar on stderr; anywhere else (a pipe, a log file), plain
lines at most every ``interval`` seconds (10 s, or ``PIXSEL_PROGRESS_INTERVAL``) and no cursor codes, so a log stays readable. Quiet
unless enabled: ``search_progress(False)`` yields ``None`` (no callback at all, so the kernel
does not even build the records). Nothing appears before the work has lasted ``delay`` seconds.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

__all__ = ["CallbackSteps", "LineSearchCallback", "StageLines", "StepProgress", "TqdmSearchCallback", "is_terminal",
           "search_progress", "step_progress"]


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
        from tqdm import tqdm

        self.bar = tqdm(desc=desc, unit=unit, delay=delay, leave=False, mininterval=0.5)

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
        self.desc, self.delay = desc, min(delay, self.interval)
        self.stream = sys.stderr if stream is None else stream
        self._start = time.monotonic()
        self._next = self._start + delay

    def __call__(self, state):
        now = time.monotonic()
        if now >= self._next:
            self._next = now + self.interval
            print(f"{self.desc}: {_search_line(state)}", file=self.stream, flush=True)

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


class StepProgress:
    """Counts the steps of a longer piece of work and shows them, with the time left; a context manager.

    ``update(n, what=None)`` advances by ``n`` steps; ``what`` names the step just finished (it
    shows as the bar's postfix on a terminal and ends the plain line elsewhere). Once a step is
    done the time left is estimated from the mean time per step (tqdm's own estimate on a
    terminal, ``about ... left`` in a plain line). A step that lasts longer than ``interval``
    seconds is not silent: a heartbeat says the work goes on (a refreshed bar, or a plain line
    ``still working``), so a long step never looks like a hang. :meth:`callback` gives the
    function a kernel calls after each of its own steps. Disabled, it does nothing at all.

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
        At most one plain line per ``interval`` seconds; the heartbeat's period (the environment
        variable ``PIXSEL_PROGRESS_INTERVAL`` overrides the default of 10 s).
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
    paths: 1/2 forward path done (0.0 s, about 0.0 s left)
    paths: 2/2 backward path done (0.0 s)
    """

    def __init__(self, total, desc, *, enabled=True, delay=2.0, interval=None, stream=None, heartbeat=True):
        import threading

        self.total, self.desc, self.enabled = total, desc, enabled
        self.interval = _interval(10.0 if interval is None else interval)
        self.delay = min(delay, self.interval)  # a short interval asked: no long wait either
        self.stream = sys.stderr if stream is None else stream
        self.n = 0
        self._bar = None
        self._start = time.monotonic()
        self._next = self._start + self.delay
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if not enabled:
            return
        if is_terminal(self.stream):
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, delay=delay, leave=False, file=self.stream)
        if heartbeat and self.interval > 0:
            self._thread = threading.Thread(target=self._beat, name="pixsel-progress", daemon=True)
            self._thread.start()

    def _left(self, now):
        if 0 < self.n < self.total:
            return f", about {_seconds((now - self._start) / self.n * (self.total - self.n))} left"
        return ""

    def _beat(self):
        """Every ``interval`` seconds without an update: refresh the bar, or write ``still working``."""
        while not self._stop.wait(self.interval):
            with self._lock:
                now = time.monotonic()
                if now - self._start < self.delay or self.n >= self.total:
                    continue
                if self._bar is not None:
                    self._bar.refresh()
                elif now >= self._next:
                    self._next = now + self.interval
                    print(f"{self.desc}: {self.n}/{self.total}, still working on step {self.n + 1} "
                          f"({_seconds(now - self._start)}{self._left(now)})", file=self.stream, flush=True)

    def update(self, n=1, what=None):
        self.n += n
        if not self.enabled:
            return
        with self._lock:
            if self._bar is not None:
                if what:
                    self._bar.set_postfix_str(what, refresh=False)
                self._bar.update(n)
                return
            now = time.monotonic()
            if now >= self._next or (self.n >= self.total and now - self._start >= self.delay):
                self._next = now + self.interval
                done = f" {what} done" if what else ""
                print(f"{self.desc}: {self.n}/{self.total}{done} ({_seconds(now - self._start)}{self._left(now)})",
                      file=self.stream, flush=True)

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
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


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


class StageLines:
    """A command's progress, stage by stage: what ``pixsel CMD --progress`` prints.

    :meth:`stage` starts a stage and prints its line at once (``pixsel select: reading 400
    images``), so that even a command that ends in a second shows what it did;
    :meth:`steps` gives the per-step callback of a long stage (the images read, the steps of a
    greedy path), which prints ``i of n`` with the time left at most once per ``interval``
    seconds, and always the last step; a heartbeat thread says ``still working`` when a stage
    has been silent for ``interval`` seconds (a long step, or statistics with no steps). Plain
    lines, no cursor codes. On a terminal the steps show as tqdm bars instead and the stage
    lines are not printed. Disabled, it prints nothing and :meth:`steps` gives ``None``.

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
        Force bars (True) or lines (False); default: bars when ``stream`` is a terminal.
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
        import threading

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
        self._bars = []
        self._thread = None
        if enabled and not self.terminal and heartbeat and self.interval > 0:
            self._thread = threading.Thread(target=self._beat, name="pixsel-stages", daemon=True)
            self._thread.start()

    def _print(self, text):
        print(f"{self.prefix}: {text}", file=self.stream, flush=True)
        self._last = time.monotonic()

    def stage(self, text, name=None):
        """Start the stage ``text``; its line is printed at once. ``name`` (default ``text``) is
        what the heartbeat and :meth:`done` call it."""
        if not self.enabled:
            return
        with self._lock:
            self._close_bars()
            self._stage, self._start, self._where = name or text, time.monotonic(), ""
            self._counted, self._pending = self._start, None
            if not self.terminal:
                self._print(text)

    def done(self, text=None):
        """End the current stage with a line ``<stage> done (seconds)`` (``text`` replaces the stage's name)."""
        if not self.enabled or self._stage is None:
            return
        with self._lock:
            self._close_bars()
            if not self.terminal:
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
        state = {"total": None, "first": None, "bars": {}}

        def callback(done, total=None, name=None):
            now = time.monotonic()
            label = f"{what}, {name}" if name else what
            if total is not None:
                state["total"] = int(total)
            total_ = state["total"]
            with self._lock:
                if self.terminal:
                    self._bar(state, label, int(done), total_)
                    return
                first = state["first"]
                new = first is None or first[0] != label or done < first[1]
                if new:  # the first step of these steps (or of the next pass): its line at once
                    state["first"] = first = (label, done, now)
                of = f" of {total_}" if total_ else ""
                self._where, self._counted = f"{label}: {unit} {int(done)}{of}", now
                last = total_ is not None and done >= total_
                if not (new or last or now - self._last >= self.interval):
                    self._pending = f"{self._where} ({_seconds(now - self._start)})"
                    return
                left = ""
                if not last and total_ and done > first[1] and now > first[2]:
                    rate = (now - first[2]) / (done - first[1])
                    left = f", about {_seconds(rate * (total_ - done))} left"
                self._print(f"{self._where} ({_seconds(now - self._start)}{left})")
                self._pending = None

        return callback

    def _bar(self, state, label, done, total):
        from tqdm import tqdm

        bar = state["bars"].get(label)
        if bar is None:
            bar = tqdm(total=total, desc=label, leave=False, file=self.stream, delay=0.5)
            state["bars"][label] = bar
            self._bars.append(bar)
        if total is not None and bar.total != total:
            bar.total = total
        if done > bar.n:
            bar.update(done - bar.n)

    def _close_bars(self):
        for bar in self._bars:
            bar.close()
        self._bars = []

    def _beat(self):
        while not self._stop.wait(min(self.interval, 0.25)):
            with self._lock:
                now = time.monotonic()
                # silent for an interval, and no step counted meanwhile (a counted step prints itself)
                if self._stage is None or now - max(self._last, self._counted) < self.interval:
                    continue
                where = f"; {self._where} done" if self._where else ""
                self._print(f"{self._stage}: still working ({_seconds(now - self._start)}{where})")

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._lock:
            self._close_bars()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
