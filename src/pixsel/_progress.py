"""Progress reporting for estimators and surfaces: kernels report, this module draws.

Kernels never draw a progress bar: a long search takes a ``callback`` and calls it now and
then with a small read-only record of where it stands (for the branch and bound of
:func:`pixsel.spectral.exact_support`, a :class:`pixsel.spectral.SearchState`). Estimators with
a ``progress`` parameter and the CLI turn that into progress with :func:`search_progress`::

    with search_progress(est.progress, desc="exact_support") as callback:
        result = exact_support(A, B, k, callback=callback)

and count the steps of longer work (the paths of :func:`pixsel.selection.lda_paths`, the
subset sizes of an evaluation) with :func:`step_progress`.

Where it goes: on a terminal, a tqdm bar on stderr; anywhere else (a pipe, a log file), plain
lines at most every ``interval`` seconds and no cursor codes, so a log stays readable. Quiet
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

    def __init__(self, desc="exact_support", *, delay=3.0, interval=10.0, stream=None):
        self.desc, self.delay, self.interval = desc, delay, interval
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
def search_progress(enabled=True, desc="exact_support", *, delay=3.0, interval=10.0, terminal=None):
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


class StepProgress:
    """Counts the steps of a longer piece of work and shows them; a context manager.

    ``update(n, what=None)`` advances by ``n`` steps; ``what`` names the step just finished (it
    shows as the bar's postfix on a terminal and ends the plain line elsewhere). Disabled, it
    does nothing at all.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with StepProgress(2, "paths", delay=0, interval=0, stream=out) as steps:
    ...     steps.update(1, "forward path")
    ...     steps.update(1, "backward path")
    >>> print(out.getvalue().rstrip())
    paths: 1/2 forward path done (0 s)
    paths: 2/2 backward path done (0 s)
    """

    def __init__(self, total, desc, *, enabled=True, delay=2.0, interval=10.0, stream=None):
        self.total, self.desc, self.enabled = total, desc, enabled
        self.delay, self.interval = delay, interval
        self.stream = sys.stderr if stream is None else stream
        self.n = 0
        self._bar = None
        self._start = time.monotonic()
        self._next = self._start + delay
        if enabled and is_terminal(self.stream):
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, delay=delay, leave=False, file=self.stream)

    def update(self, n=1, what=None):
        self.n += n
        if not self.enabled:
            return
        if self._bar is not None:
            if what:
                self._bar.set_postfix_str(what, refresh=False)
            self._bar.update(n)
            return
        now = time.monotonic()
        if now >= self._next or (self.n >= self.total and now - self._start >= self.delay):
            self._next = now + self.interval
            done = f" {what} done" if what else ""
            print(f"{self.desc}: {self.n}/{self.total}{done} ({now - self._start:.0f} s)", file=self.stream,
                  flush=True)

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def step_progress(total, desc, *, enabled=True, delay=2.0, interval=10.0):
    """A :class:`StepProgress` of ``total`` steps: tqdm on a terminal, plain lines elsewhere, nothing when disabled."""
    return StepProgress(total, desc, enabled=enabled, delay=delay, interval=interval)
