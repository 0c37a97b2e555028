"""ColumnSubsetSelector: the kernels' answer on centered data, planted duplicated pixels, bad input."""

import numpy as np
import pytest

from pixsel.scores._column_subset import column_subset_objective, greedy_column_subset, pivoted_qr_columns
from pixsel.selection import ColumnSubsetSelector


def _planted(seed):
    """Three independent source pixels, each copied (with tiny noise) into five more pixels."""
    rng = np.random.default_rng(seed)
    src = rng.standard_normal((80, 3)) * [3.0, 2.0, 1.0]
    X = np.repeat(src, 6, axis=1) + 1e-3 * rng.standard_normal((80, 18)) + 5.0
    return X


@pytest.mark.parametrize("method", ["greedy", "qr"])
@pytest.mark.parametrize("seed", range(3))
def test_one_pixel_per_planted_group(method, seed):
    """The three chosen pixels come from the three groups (a score would take copies of the
    largest source), and they keep all but noise of the centered mass."""
    X = _planted(seed)
    X0 = X.copy()
    sel = ColumnSubsetSelector(3, method=method).fit(X)
    groups = sel.get_support(indices=True) // 6
    assert sorted(groups.tolist()) == [0, 1, 2]
    assert sel.objective_path_[-1] > 0.9999 and np.array_equal(X, X0)
    assert sorted(sel.ranking_[sel.order_].tolist()) == [1, 2, 3] and (sel.ranking_ == 4).sum() == 15


@pytest.mark.parametrize("seed", range(3))
def test_selector_runs_the_kernels_on_centered_data(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, 15)) + rng.uniform(-5, 5, 15)
    A = X - X.mean(axis=0)
    order, mass = greedy_column_subset(A.T @ A, 6)
    sel = ColumnSubsetSelector(6).fit(X)
    assert sel.order_.tolist() == order.tolist()
    assert np.allclose(sel.objective_path_, mass / np.sum(A**2))
    assert ColumnSubsetSelector(6, method="qr").fit(X).order_.tolist() == pivoted_qr_columns(A, 6).tolist()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [12, 30, 90])
def test_same_pixels_order_and_path_as_the_gram_matrix_greedy(seed, n):
    """Oracle: the selector (n-form kernel) against the p-form greedy on the Gram matrix, fewer and
    more images than pixels, low rank and full rank, with constant pixels (no gain: taken last, by
    lowest index, once every other pixel is in the span)."""
    rng = np.random.default_rng(seed)
    h, w = 6, 8
    rank = 5 if seed % 2 else min(n, h * w)
    X = (rng.standard_normal((n, rank)) @ rng.standard_normal((rank, h * w))
         + 0.01 * rng.standard_normal((n, h * w)) + rng.uniform(-3, 3, h * w))
    X[:, [3, 17]] = 7.0  # constant pixels
    A = X - X.mean(axis=0)
    k = min(n - 2, 20)  # with one residual direction left every pixel ties: no unique answer there
    order, mass = greedy_column_subset(A.T @ A, k)
    sel = ColumnSubsetSelector(k).fit(X.reshape(n, h, w))
    assert sel.order_.tolist() == order.tolist()
    np.testing.assert_allclose(sel.objective_path_, mass / np.sum(A**2), rtol=1e-9, atol=1e-12)
    assert sel.image_shape_ == (h, w) and sel.get_support_image().sum() == k


@pytest.mark.parametrize("seed", range(3))
def test_qr_path_is_the_kept_mass_of_each_prefix(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((25, 40)) @ np.diag(rng.uniform(0.1, 3.0, 40))
    A = X - X.mean(axis=0)
    G = A.T @ A
    sel = ColumnSubsetSelector(10, method="qr").fit(X)
    want = [column_subset_objective(G, sel.order_[: t + 1]) / np.trace(G) for t in range(10)]
    np.testing.assert_allclose(sel.objective_path_, want, rtol=1e-9)


def test_bad_method_says_what_is_allowed():
    with pytest.raises(ValueError, match="method"):
        ColumnSubsetSelector(2, method="svd").fit(np.ones((5, 3)))
