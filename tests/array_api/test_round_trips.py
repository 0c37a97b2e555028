"""The CPU proxy for GPU latency: host round trips (scalar reads and copies back) of each greedy
path on the array-API kernels, counted with :func:`pixsel._round_trips.count_round_trips` on
array-api-strict and PyTorch (CPU) under the forced array-API policy. A path whose pivot
travelled to the host would make ``O(p)`` of them; the device-resident paths make a constant
number (the input checks, the history copied back once, ``path.A`` / ``path.B``), plus one per
block of steps where a block must ask (the full-rank secular solves), plus one per pass over X
for the implicit path (a ``p x b`` panel each)."""

import numpy as np
import pytest

from pixsel._array_api import _force_array_api
from pixsel._round_trips import count_round_trips

#: Round trips every path makes whatever p: the checks of A and B (finite, symmetric: one read
#: each), the history copied back once, and the host copies of A and B on the SparsePath.
FIXED = 12


def _B(p, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((2 * p, p))
    return Z.T @ Z / (2 * p) + 0.1 * np.eye(p)


def _full(p, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((2 * p, p)) * np.linspace(0.3, 2.0, p)
    Z[:, : p // 3] += 1.5 * rng.standard_normal((2 * p, 1))
    return Z.T @ Z / (2 * p)


@pytest.fixture(params=["strict", "torch-cpu"])
def conv(request):
    if request.param == "strict":
        xps = pytest.importorskip("array_api_strict")
        return xps.asarray
    torch = pytest.importorskip("torch")
    return torch.asarray


def _count(fn):
    with _force_array_api(), count_round_trips() as trips:
        out = fn()
    return trips.total, out


def test_counter_counts_scalars_and_copies_once():
    xps = pytest.importorskip("array_api_strict")
    torch = pytest.importorskip("torch")
    from pixsel._array_api import to_numpy

    float_before = torch.Tensor.__float__
    with count_round_trips() as trips:
        a = xps.asarray([1.0, 3.0, 2.0])
        b = xps.sum(a) * 2  # device work: no round trip
        assert float(b) == 12.0 and int(xps.argmax(a)) == 1 and bool(a[0] > 0)
        to_numpy(a)  # numpy.asarray -> __array__ (nested conversions count once)
        t = torch.arange(4.0)
        t.item() if t.numel() == 1 else t[1].item()
        to_numpy(t)  # .detach().cpu().numpy(): one copy
        t.tolist()
    assert trips.by_kind == {"scalar": 4, "copy": 3}, trips
    assert torch.Tensor.__float__ is float_before  # the classes are restored on exit
    with count_round_trips() as again:
        float(xps.asarray(1.0))
    assert again.total == 1 and trips.total == 7  # a new context, a new count
