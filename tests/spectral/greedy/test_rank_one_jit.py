"""The compiled (Numba) panel loop of the binary greedy kernel against the NumPy loop (its oracle).

Both run the same elimination; the compiled one computes the panel correction as a plain dot
product instead of BLAS ``dgemv``, so orders must be identical and objectives equal to rounding.
Sizes are small: the first call compiles (cached on disk afterwards).
"""

import numpy as np
import pytest

from pixsel.spectral.greedy._rank_one import _greedy_backward, _greedy_forward, _Working


def random_pair(rng, p, n=None):
    n = 2 * p + 3 if n is None else n
    X = rng.standard_normal((n, p)) * rng.uniform(0.5, 2.0, size=p)
    return rng.standard_normal(p), X.T @ X / n


def assert_same_path(r_np, r_jit):
    order0, obj0, info0 = r_np
    order1, obj1, info1 = r_jit
    np.testing.assert_array_equal(order1, order0)
    np.testing.assert_allclose(obj1, obj0, rtol=1e-11, atol=1e-13 * np.abs(obj0).max())
    assert info1["zero_pivots"] == info0["zero_pivots"]
    assert info1["refactors"] == info0["refactors"]
    assert info1["compactions"] == info0["compactions"]


@pytest.mark.parametrize("kernel", [_greedy_forward, _greedy_backward])
@pytest.mark.parametrize("seed", range(12))
def test_compiled_loop_equals_numpy_loop_on_random_problems(kernel, seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(1, 60))
    a, B = random_pair(rng, p)
    block_size = int(rng.integers(1, 12))
    assert_same_path(
        kernel(a, B, block_size=block_size, compiled=False), kernel(a, B, block_size=block_size, compiled=True)
    )


@pytest.mark.parametrize("kernel", [_greedy_forward, _greedy_backward])
def test_compiled_loop_with_refactors_and_compactions(kernel):
    rng = np.random.default_rng(3)
    a, B = random_pair(rng, 70)
    for kw, key in ((dict(block_size=4, check_every=3, force_refactor=True), "refactors"), (dict(block_size=4), "compactions")):
        r_np, r_jit = kernel(a, B, compiled=False, **kw), kernel(a, B, compiled=True, **kw)
        assert r_np[2][key]  # the case is exercised
        assert_same_path(r_np, r_jit)


def test_compiled_loop_with_zero_pivots_and_ties():
    """Duplicated and constant features (zero Schur pivots) and exact ties (lowest index first)."""
    rng = np.random.default_rng(8)
    X = rng.standard_normal((50, 6))
    X = np.column_stack([X, X[:, 2], np.zeros(50), X[:, 0] + X[:, 1], X[:, 4]])
    B = X.T @ X / 50
    a = np.concatenate([rng.standard_normal(6), [0.0, 0.0, 0.0, 0.0]])
    a[6], a[8], a[9] = a[2], a[0] + a[1], a[4]
    r_np, r_jit = (_greedy_forward(a, B, block_size=3, compiled=c) for c in (False, True))
    assert r_np[2]["zero_pivots"] >= 3
    assert_same_path(r_np, r_jit)
    B2 = np.eye(6)
    a2 = np.array([1.0, 2.0, 2.0, 1.0, 2.0, 0.5])  # exact ties: 1 before 2 before 4
    for kernel in (_greedy_forward, _greedy_backward):
        r_np, r_jit = (kernel(a2, B2, block_size=2, compiled=c) for c in (False, True))
        assert_same_path(r_np, r_jit)
    assert _greedy_forward(a2, B2, block_size=2)[0][:3].tolist() == [1, 2, 4]


def test_compiled_loop_with_a_fixed_order():
    rng = np.random.default_rng(5)
    a, B = random_pair(rng, 30)
    order = rng.permutation(30)
    r_np, r_jit = (_greedy_forward(a, B, block_size=5, fixed_order=order, compiled=c) for c in (False, True))
    np.testing.assert_array_equal(r_jit[0], order)
    assert_same_path(r_np, r_jit)


@pytest.mark.parametrize("m", [1, 2, 9, 40])
def test_compiled_compaction_equals_numpy_compaction(m):
    rng = np.random.default_rng(m)
    X = rng.standard_normal((m, m))
    M = X @ X.T
    keep = np.sort(rng.choice(m, max(1, m - 3), replace=False))
    out = []
    for compiled in (False, True):
        w = _Working(m)
        w.load(M)
        w.compact(keep, compiled)
        out.append(np.tril(w.mat))
    np.testing.assert_array_equal(out[1], out[0])
    np.testing.assert_array_equal(out[0], np.tril(M[np.ix_(keep, keep)]))
