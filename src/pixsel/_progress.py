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

__all__ = ["LineSearchCallback", "StepProgress", "TqdmSearchCallback", "is_terminal", "search_progress",
           "step_progress"]


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


def step_progress(total, desc, *, enabled=True, delay=2.0, interval=None):
    """A :class:`StepProgress` of ``total`` steps: tqdm on a terminal, plain lines elsewhere, nothing when disabled.

    ``interval`` defaults to ``PIXSEL_PROGRESS_INTERVAL`` or 10 s.
    """
    return StepProgress(total, desc, enabled=enabled, delay=delay, interval=interval)
