"""Host round trips of the array-API kernels, counted on a CPU: the proxy for GPU latency.

On a GPU a kernel launch is asynchronous; what stalls the device is a read on the host: a
scalar (``float(x)``, ``int(x)``, ``bool(x)``, ``x.item()``, an index taken from a device array)
or a copy back (``to_numpy``, ``x.tolist()``, ``numpy.asarray(x)``). Each one waits for every
queued kernel, so a path with a pivot read per step runs at the speed of the round trips, not of
the device. :func:`count_round_trips` counts them while array-api-strict or PyTorch (CPU) run
the array-API kernels (inside :func:`pixsel._array_api._force_array_api`, or on
array-api-strict's ``device1``), by wrapping those libraries' conversion methods for the
duration of the context. What it counts, per array: ``__float__``, ``__int__``, ``__bool__``,
``__index__``, ``__complex__``, ``item`` (scalars); ``__array__``, ``__buffer__``,
``__dlpack__``, ``tolist``, ``numpy`` and a ``to_device`` to the CPU (copies). Nested
conversions (``numpy.asarray`` calling ``__array__`` calling ``numpy``) count once, and only
conversions that succeed count. Moving a PyTorch tensor with ``.cpu()`` is not counted by
itself (on the CPU it is no copy); pixsel always follows it by one of the counted reads.

Public as :func:`pixsel.config.count_round_trips` (``benchmarks/bench_gpu.py`` counts with it):
it patches classes of other libraries while it is active, so it is not thread-safe and not for
library code.

Examples
--------
>>> import array_api_strict as xps
>>> with count_round_trips() as trips:
...     a = xps.asarray([1.0, 2.0])
...     s = xps.sum(a)           # no round trip: the sum stays an array
...     total = float(s)         # one scalar read
...     j = int(xps.argmax(a))   # another
>>> trips.total, dict(trips.by_kind)
(2, {'scalar': 2})
"""

from __future__ import annotations

import collections
import contextlib
import functools

__all__ = ["RoundTrips", "count_round_trips"]

_SCALAR = ("__float__", "__int__", "__bool__", "__index__", "__complex__", "item")
_COPY = ("__array__", "__buffer__", "__dlpack__", "tolist", "numpy")


class RoundTrips:
    """Counts of host round trips: ``total``, ``by_kind`` (``'scalar'`` / ``'copy'``) and
    ``by_method`` (the conversion that made each)."""

    def __init__(self):
        self.by_kind = collections.Counter()
        self.by_method = collections.Counter()
        self._depth = 0

    @property
    def total(self) -> int:
        return sum(self.by_kind.values())

    def __repr__(self):
        return f"RoundTrips(total={self.total}, {dict(self.by_method)})"


def _wrap(counter, kind, name, original):
    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        counter._depth += 1
        try:
            out = original(self, *args, **kwargs)
        finally:
            counter._depth -= 1
        if counter._depth == 0:  # the outermost conversion of a nest counts, once it succeeded
            counter.by_kind[kind] += 1
            counter.by_method[name] += 1
        return out

    return wrapper


def _classes():
    out = []
    try:
        import array_api_strict as xps

        out.append(("array_api_strict", type(xps.asarray([0.0]))))
    except ImportError:  # pragma: no cover - in the arrayapi extra
        pass
    try:
        import torch

        out.append(("torch", torch.Tensor))
    except ImportError:  # pragma: no cover - in the arrayapi extra
        pass
    return out


def _to_device_wrapper(counter, original, cpu):
    @functools.wraps(original)
    def to_device(self, device, *args, **kwargs):
        counter._depth += 1
        try:
            out = original(self, device, *args, **kwargs)
        finally:
            counter._depth -= 1
        if counter._depth == 0 and device == cpu and self.device != cpu:
            counter.by_kind["copy"] += 1
            counter.by_method["to_device"] += 1
        return out

    return to_device


@contextlib.contextmanager
def count_round_trips():
    """Count host round trips of array-api-strict and PyTorch arrays inside the context.

    Yields a :class:`RoundTrips` whose counts grow while the context is active; the libraries'
    classes are restored on exit."""
    counter = RoundTrips()
    saved = []
    try:
        for lib, cls in _classes():
            for kind, names in (("scalar", _SCALAR), ("copy", _COPY)):
                for name in names:
                    original = cls.__dict__.get(name, None)
                    inherited = getattr(cls, name, None)
                    if inherited is None:
                        continue
                    saved.append((cls, name, original))
                    setattr(cls, name, _wrap(counter, kind, name, inherited))
            if lib == "array_api_strict" and hasattr(cls, "to_device"):
                import array_api_strict as xps

                saved.append((cls, "to_device", cls.__dict__.get("to_device")))
                cls.to_device = _to_device_wrapper(counter, cls.to_device, xps.Device("CPU_DEVICE"))
        yield counter
    finally:
        for cls, name, original in reversed(saved):
            if original is None:
                delattr(cls, name)
            else:
                setattr(cls, name, original)
