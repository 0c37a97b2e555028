"""The unblocked short forward pass of the NumPy route against the blocked elimination (its oracle)
and against brute force: the same orders, the same objectives, and the checked pass where the
short one cannot vouch for its objective (zero pivots, a drift from a fresh solve)."""

import itertools

import numpy as np
import pytest

from pixsel.config import compiled_kernels
from pixsel.spectral.greedy import _rank_one
from pixsel.spectral.greedy._rank_one import _forward_short, _greedy_forward
from pixsel.spectral._path import objective_on_support


def _pair(rng, p, n=None, ridge=1e-3):
    n = 2 * p + 3 if n is None else n
    X = rng.standard_normal((n, p)) @ rng.standard_normal((p, p)) * rng.uniform(0.2, 2.0, size=p)
    return rng.standard_normal(p), X.T @ X / n + ridge * np.eye(p)


def _short_route(a, B, max_k):
    """The forward kernel as the NumPy route runs it (compiled kernels off)."""
    with compiled_kernels(False):
        return _greedy_forward(a, B, block_size=16, max_k=max_k)


@pytest.mark.parametrize("seed", range(30))
def test_short_pass_equals_the_blocked_numpy_loop(seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(2, 90))
    a, B = _pair(rng, p, n=int(rng.integers(3, 2 * p + 4)), ridge=(0.0, 1e-3, 1.0)[seed % 3])
    if seed % 4 == 0:  # a constant feature: a zero pivot from the first step
        B[:, 0] = B[0, :] = 0.0
        a[0] = 0.0
    if seed % 5 == 0:  # exact ties: integer data, the lowest index first
        a = np.round(a)
        B = np.round(4 * B) / 4 + p * np.eye(p)
    max_k = int(rng.integers(1, min(p, _rank_one._SHORT_STEPS) + 1))
    order, obj, info = _short_route(a, B, max_k)
    # the fallback is the blocked loop at the route's panel width: on a singular B (no ridge, n < p)
    # the objective past the rank is rounding, which depends on the panel width
    ref_order, ref_obj, _ = _greedy_forward(a, B, block_size=16, compiled=False, max_k=max_k)
    np.testing.assert_array_equal(order, ref_order)
    np.testing.assert_allclose(obj, ref_obj, rtol=1e-9, atol=1e-12 * max(1.0, np.abs(ref_obj).max()))
    assert len(order) == max_k


def test_short_pass_is_the_prefix_of_the_whole_path_and_of_the_true_objective():
    rng = np.random.default_rng(7)
    a, B = _pair(rng, 40)
    whole_order, whole_obj, _ = _greedy_forward(a, B, block_size=8, compiled=False)
    order, obj, info = _short_route(a, B, 12)
    np.testing.assert_array_equal(order, whole_order[:12])
    for k in (1, 5, 12):
        assert obj[k - 1] == pytest.approx(objective_on_support(a, B, order[:k]), rel=1e-10)
    assert info["checkpoints"] and info["checkpoints"][-1][1] <= 1e-10  # its one check, recorded


def test_short_pass_is_greedy_by_brute_force():
    # every step takes the feature whose addition raises f the most (checked on all candidates)
    rng = np.random.default_rng(3)
    a, B = _pair(rng, 9)
    order = _forward_short(a, B, 9)[0]
    for t in range(len(order)):
        S = list(order[:t])
        gains = {j: objective_on_support(a, B, S + [j]) for j in range(9) if j not in S}
        assert gains[order[t]] == pytest.approx(max(gains.values()), rel=1e-12)
    # and at k = 2 it is no better than the best pair (a sanity check of the values)
    best2 = max(objective_on_support(a, B, list(c)) for c in itertools.combinations(range(9), 2))
    assert objective_on_support(a, B, order[:2]) <= best2 + 1e-12


def test_zero_pivots_hand_over_to_the_checked_pass(monkeypatch):
    # a duplicated feature has a zero Schur pivot once its twin is in: the short pass says so and
    # the blocked loop (with its checkpoints) gives the path
    rng = np.random.default_rng(8)
    X = rng.standard_normal((50, 6))
    X = np.column_stack([X, X[:, 2], X[:, 0] + X[:, 1]])
    a, B = X.mean(axis=0) + rng.standard_normal(8), X.T @ X / 50
    short = _forward_short(a, B, 8)
    assert short[2] > 0  # the case is exercised
    calls = []
    original = _rank_one._eliminate
    monkeypatch.setattr(_rank_one, "_eliminate", lambda *args, **kw: calls.append(1) or original(*args, **kw))
    order, obj, info = _short_route(a, B, 8)
    assert calls  # the checked pass ran
    ref = _greedy_forward(a, B, block_size=16, compiled=False, max_k=8)
    np.testing.assert_array_equal(order, ref[0])
    assert info["zero_pivots"] == ref[2]["zero_pivots"]


def test_which_passes_run_unblocked():
    # the NumPy route: any pass of at most 64 steps, and a pass asked to stop by 3 p / 4;
    # the compiled route: a pass asked to stop by max(64, p / 4); whole paths keep the panels
    with compiled_kernels(False):
        assert _rank_one._short_pays(40, None) and _rank_one._short_pays(300, 200)
        assert not _rank_one._short_pays(300, None) and not _rank_one._short_pays(300, 260)
    with compiled_kernels(True):
        assert _rank_one._short_pays(2048, 400) and _rank_one._short_pays(100, 64)
        assert not _rank_one._short_pays(40, None) and not _rank_one._short_pays(1024, 512)


def test_short_pass_on_the_compiled_route_equals_the_blocked_loop(monkeypatch):
    rng = np.random.default_rng(11)
    a, B = _pair(rng, 300)
    with monkeypatch.context() as m:
        m.setattr(_rank_one, "_eliminate", lambda *args, **kw: pytest.fail("the blocked loop ran"))
        with compiled_kernels(True):
            order, obj, info = _greedy_forward(a, B, block_size=32, max_k=60)
    assert info["checkpoints"][0][0] == 60  # the short pass's one check
    ref_order, ref_obj, _ = _greedy_forward(a, B, block_size=32, compiled=False, max_k=60)
    np.testing.assert_array_equal(order, ref_order)
    np.testing.assert_allclose(obj, ref_obj, rtol=1e-10)
