"""The CPU proxy for GPU latency: host round trips (scalar reads and copies back) of each greedy
path on the array-API kernels, counted with :func:`pixsel._round_trips.count_round_trips` on
array-api-strict and PyTorch (CPU) under the forced array-API policy. A path whose pivot
travelled to the host would make ``O(p)`` of them; the device-resident paths make a constant
number (the input checks, the history copied back once, ``path.A`` / ``path.B``), plus one per
block of steps where a block must ask (the full-rank secular solves), plus one per pass over X
for the implicit path (a ``p x b`` panel each)."""

import math

import numpy as np
import pytest

from pixsel._array_api import _force_array_api
from pixsel._round_trips import count_round_trips
from pixsel.spectral import greedy_path, implicit_greedy_path, rank_one_greedy_path
from pixsel.spectral.greedy import _fullrank_xp
from pixsel.stats import DeviceGramOperator

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


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_rank_one_path_round_trips(conv, direction):
    """The binary path: a constant number of round trips, not one (or four) per step."""
    T = 16
    counts = {}
    for p in (64, 192):
        a, B = np.random.default_rng(p).standard_normal(p), _B(p, p)
        counts[p], path = _count(lambda: rank_one_greedy_path(conv(a), conv(B), direction=direction,
                                                              block_size=T))
        assert path.info["array_api"]
        np.testing.assert_array_equal(path.order, rank_one_greedy_path(a, B, direction=direction).order)
        assert counts[p] <= FIXED + math.ceil(p / T), (p, counts[p])
    assert counts[192] == counts[64]  # nothing grows with p


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_multiclass_path_round_trips(conv, direction, criterion):
    counts = {}
    for p in (40, 120):
        M, B = np.random.default_rng(p).standard_normal((p, 2)), _B(p, p + 1)
        counts[p], path = _count(lambda: greedy_path(conv(M), conv(B), direction=direction, criterion=criterion))
        np.testing.assert_array_equal(path.order, greedy_path(M, B, direction=direction, criterion=criterion).order)
        assert counts[p] <= FIXED
    assert counts[120] == counts[40]


@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
@pytest.mark.parametrize("identity", [True, False])
def test_fullrank_forward_round_trips(conv, criterion, identity):
    """One host read per block of _BLOCK steps (the secular solves' convergence), none for trace."""
    k = 2 * _fullrank_xp._BLOCK
    for p in (40, 120):
        A, B = _full(p, p), None if identity else _B(p, p + 2)
        n, path = _count(lambda: greedy_path(conv(A), None if B is None else conv(B), direction="forward",
                                             criterion=criterion, max_k=k))
        ref = greedy_path(A, B, direction="forward", criterion=criterion, max_k=k)
        np.testing.assert_array_equal(path.order, ref.order)
        np.testing.assert_allclose(path.objective, ref.objective, rtol=1e-10)
        assert path.info["secular_reruns"] == 0
        blocks = math.ceil(k / _fullrank_xp._BLOCK) if criterion == "max-eig" else 0
        assert n <= FIXED + blocks, (p, n)


@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_fullrank_backward_round_trips(conv, criterion):
    p = 36
    A = _full(p, 3)
    n, path = _count(lambda: greedy_path(conv(A), direction="backward", criterion=criterion))
    np.testing.assert_array_equal(path.order, greedy_path(A, direction="backward", criterion=criterion).order)
    assert n <= FIXED + (math.ceil(p / _fullrank_xp._BLOCK) if criterion == "max-eig" else 0)


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_unconverged_block_is_recomputed(conv, direction, monkeypatch):
    """A block whose fixed-iteration secular solves did not converge is recomputed with the
    adaptive solves from the support before it: the same path as NumPy's."""
    monkeypatch.setattr(_fullrank_xp, "_FIXED_ITER", 1)
    p = 30
    A = _full(p, 4)
    kwargs = {"max_k": 20} if direction == "forward" else {}
    _, path = _count(lambda: greedy_path(conv(A), direction=direction, **kwargs))
    ref = greedy_path(A, direction=direction, **kwargs)
    assert path.info["secular_reruns"] > 0
    np.testing.assert_array_equal(path.order, ref.order)
    np.testing.assert_allclose(path.objective, ref.objective, rtol=1e-10)


def test_implicit_path_one_copy_per_pass(conv):
    """The implicit path: the passes over X run on the device and each hands one p x b panel
    to the host; nothing else comes back, so round trips = passes, fewer than one per step (a
    pass fetches the columns of the ``b`` best candidates; a step whose winner is among them
    makes none)."""
    rng = np.random.default_rng(0)
    for p, k, b in ((200, 16, 4), (400, 32, 8)):
        X, y = rng.standard_normal((60, p)), rng.integers(0, 2, 60)
        with _force_array_api():
            op = DeviceGramOperator(conv(X), conv(y), alpha=0.05)
        before = op.n_passes
        n, path = _count(lambda: implicit_greedy_path(op.class_means.between, op, max_k=k, block_size=b))
        assert len(path.order) == k
        assert n == op.n_passes - before  # one copy per pass over X
        assert 0 < n < k, (p, k, b, n)
