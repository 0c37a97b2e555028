"""The n-dimensional backward pass (``B = lam I + U U^T``, n < p) against the dense kernel.

Oracle: multiclass_greedy_path(M, lam I + U U^T, direction='backward') -- the current kernel, on
the formed p x p matrix -- removes the features in the same order with the same objectives, on
random pairs (both criteria, several recomputation periods) and on digits (the class statistics of
60 images of 64 pixels with the default 'rda' ridge, constant pixels included); every objective is
also recomputed from scratch on its support."""

import numpy as np
import pytest

from pixsel.spectral import objective_on_support
from pixsel.spectral._criteria import Criterion
from pixsel.spectral.greedy import multiclass_greedy_path
from pixsel.spectral.greedy._lowrank import lowrank_backward, lowrank_backward_path
from pixsel.stats import class_statistics


def _dense(M, U, lam, criterion):
    B = U @ U.T
    B[np.diag_indices(len(B))] += lam
    return B, multiclass_greedy_path(M, B, direction="backward", criterion=criterion)


@pytest.mark.parametrize("criterion", ["trace", "max-eig"])
@pytest.mark.parametrize(("p", "n", "r", "refresh"), [(40, 12, 3, None), (40, 12, 3, 5), (70, 30, 1, 9),
                                                      (50, 8, 6, 1)])
def test_same_order_as_the_dense_kernel_on_random_pairs(criterion, p, n, r, refresh):
    rng = np.random.default_rng(p + n + r)
    for lam in (0.05, 1.0):
        M, U = rng.standard_normal((p, r)), rng.standard_normal((p, n)) * rng.uniform(0.2, 2.0, p)[:, None]
        path = lowrank_backward_path(M, U, lam, criterion=criterion, refresh=refresh)
        B, dense = _dense(M, U, lam, criterion)
        np.testing.assert_array_equal(path.order, dense.order)
        np.testing.assert_allclose(path.objective, dense.objective, rtol=1e-9, atol=1e-12 * dense.objective.max())
        for k in (1, p // 3, p):
            assert path.objective[k - 1] == pytest.approx(
                objective_on_support(M, B, path.support(k), criterion=criterion), rel=1e-9)
        # the NumPy loop and the compiled one (whichever the route chose above), the dense kernel taking the
        # last n features (the default) or the n-form down to the last one
        for compiled in (False, True):
            for dense_below in (None, 1, 3 * n // 2):
                order, objective, _ = lowrank_backward(M, U, lam, criterion, refresh=refresh, compiled=compiled,
                                                       dense_below=dense_below)
                np.testing.assert_array_equal(order, dense.order)
                np.testing.assert_allclose(objective, dense.objective, rtol=1e-9,
                                           atol=1e-12 * dense.objective.max())


def test_the_compiled_dense_kernel_gives_the_same_order():
    """Above 128 features the trace's dense backward pass is the compiled loop."""
    rng = np.random.default_rng(3)
    p, n, r = 150, 40, 5
    M, U = rng.standard_normal((p, r)), rng.standard_normal((p, n))
    path = lowrank_backward_path(M, U, 0.5)
    np.testing.assert_array_equal(path.order, _dense(M, U, 0.5, "trace")[1].order)


@pytest.mark.parametrize("criterion", ["trace", "max-eig"])
def test_same_order_as_the_dense_kernel_on_digits(criterion):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    take = np.concatenate([np.flatnonzero(y == c)[:6] for c in range(10)])  # 60 images < 64 pixels
    X, y = X[take], y[take]
    st = class_statistics(X, y)
    Xc = X - st.means[np.searchsorted(st.classes, y)]
    U = Xc.T / np.sqrt(len(X))
    lam = np.trace(st.within) / X.shape[1]  # the default 'rda' ridge
    np.testing.assert_allclose(U @ U.T, st.within, atol=1e-9 * np.abs(st.within).max())
    M = st.between_factor
    path = lowrank_backward_path(M, U, lam, criterion=criterion)
    B, dense = _dense(M, U, lam, criterion)
    np.testing.assert_array_equal(path.order, dense.order)
    np.testing.assert_allclose(path.objective, dense.objective, rtol=1e-9)
    # 60 images: the dense kernel takes the last 60 of the 64 pixels by default; the n-form to the last one too
    order, objective, _ = lowrank_backward(M, U, lam, criterion, dense_below=1)
    np.testing.assert_array_equal(order, dense.order)
    np.testing.assert_allclose(objective, dense.objective, rtol=1e-9)
    # the weights are those of the formed pair
    np.testing.assert_allclose(np.abs(path.weights(10)), np.abs(dense.weights(10)), atol=1e-9)


def test_bad_input_is_refused():
    M, U = np.ones((5, 2)), np.ones((5, 3))
    with pytest.raises(ValueError, match="lam must be a finite ridge > 0"):
        lowrank_backward_path(M, U, 0.0)
    with pytest.raises(ValueError, match="same p"):
        lowrank_backward_path(M, np.ones((4, 3)), 1.0)
    with pytest.raises(ValueError, match="finite"):
        lowrank_backward_path(M, np.full((5, 3), np.nan), 1.0)
    class Other(Criterion):  # neither additive nor the largest eigenvalue: the NumPy loop only
        name = "other"

    with pytest.raises(ValueError, match="compiled n-form loop runs the trace and the largest eigenvalue"):
        lowrank_backward(M, U, 1.0, Other(), compiled=True)


def test_progress_reaches_the_last_step():
    rng = np.random.default_rng(4)
    M, U = rng.standard_normal((30, 2)), rng.standard_normal((30, 6))
    for compiled in (False, True):
        for dense_below in (None, 1):
            calls = []
            lowrank_backward(M, U, 1.0, "trace", refresh=8, compiled=compiled, dense_below=dense_below,
                             progress=lambda i, n: calls.append((i, n)))
            assert calls[-1] == (30, 30) and all(a[0] < b[0] for a, b in zip(calls, calls[1:])), calls


def test_the_dense_tail_is_as_accurate_as_the_dense_kernel_with_a_small_ridge():
    """A ridge of 1e-4 of the mean variance: with the last n features removed by the dense kernel the
    objectives of small supports match those recomputed from scratch to the dense kernel's accuracy."""
    rng = np.random.default_rng(6)
    p, n, r = 80, 20, 4
    M, U = rng.standard_normal((p, r)), rng.standard_normal((p, n)) * 3.0
    lam = 1e-4 * np.mean(np.sum(U**2, axis=1))
    B, dense = _dense(M, U, lam, "trace")
    order, objective, _ = lowrank_backward(M, U, lam, "trace")
    np.testing.assert_array_equal(order, dense.order)
    for k in (1, 2, 5, n):
        S = np.sort(order[p - k:])
        truth = objective_on_support(M, B, S, criterion="trace")
        assert objective[k - 1] == pytest.approx(truth, rel=1e-9)  # the n-form to the end: 4e-9 at k = 2
