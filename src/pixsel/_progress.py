"""Progress reporting for estimators and surfaces: kernels report, this module draws.

Kernels never draw a progress bar: a long search takes a ``callback`` and calls it now and
then with a small read-only record of where it stands (for the branch and bound of
:func:`pixsel.spectral.exact_support`, a :class:`pixsel.spectral.SearchState`). Estimators with
a ``progress`` parameter and the CLI turn that into a tqdm bar with :func:`search_progress`::

    with search_progress(est.progress, desc="exact_support") as callback:
        result = exact_support(A, B, k, callback=callback)

Quiet unless enabled: ``search_progress(False)`` yields ``None`` (no callback at all, so the
kernel does not even build the records). The bar appears only once the work has lasted
``delay`` seconds.
"""

from __future__ import annotations

from contextlib import contextmanager

__all__ = ["TqdmSearchCallback", "search_progress"]


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


@contextmanager
def search_progress(enabled=True, desc="exact_support", *, delay=3.0):
    """Context giving a tqdm-backed search callback when ``enabled``, else ``None``.

    Examples
    --------
    >>> with search_progress(False) as callback:
    ...     callback is None
    True
    """
    if not enabled:
        yield None
        return
    cb = TqdmSearchCallback(desc, delay=delay)
    try:
        yield cb
    finally:
        cb.close()
