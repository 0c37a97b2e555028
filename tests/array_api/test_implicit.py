"""The implicit path on another array library: DeviceGramOperator's passes over X on X's device
against NumPy's CenteredGramOperator (the oracle), and the implicit paths they give."""

import numpy as np
import pytest

from pixsel._array_api import _force_array_api
from pixsel.spectral import implicit_greedy_path
from pixsel.stats import DeviceGramOperator, gram_operator
from pixsel.stats import CenteredGramOperator


def _data(n=50, p=200, C=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.standard_normal((n, p)) * np.linspace(0.5, 2.0, p) + 5.0
    X[:, 7] += 2.0 * y
    X[:, 11] -= 1.5 * (y == 1)
    return X, y


@pytest.mark.parametrize("labelled", [True, False])
def test_operator_matches_numpy(lib, dtype, labelled):
    X, y = _data()
    Xd = X.astype(dtype)
    yy = y if labelled else None
    ref = CenteredGramOperator(Xd, yy, alpha=0.02)
    # small tiles: several row blocks per pass, the same sums
    op = DeviceGramOperator(lib.asarray(Xd, dtype), None if yy is None else lib.asarray(y), alpha=0.02,
                            block_bytes=8 * 200 * 7)
    idx = [3, 7, 150, 11]
    np.testing.assert_allclose(op.class_means.means, ref.class_means.means, rtol=1e-12)
    np.testing.assert_allclose(op.diag(), ref.diag(), rtol=1e-11)
    np.testing.assert_allclose(op.columns(idx), ref.columns(idx), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(op.column(5), ref.column(5), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(op.submatrix(idx), ref.submatrix(idx), rtol=1e-10, atol=1e-12)
    assert op.mean_variance() == pytest.approx(ref.mean_variance(), rel=1e-12)
    assert op.n_passes == 5  # means, diagonal, two column blocks, one submatrix
    assert op.with_alpha(0.5).diag()[0] == pytest.approx(op.diag()[0] - 0.02 + 0.5)
    assert op.with_alpha(0.5).n_passes == op.n_passes  # shared, the diagonal remembered


@pytest.mark.parametrize("kind", ["binary", "max-eig", "trace", "pca"])
def test_implicit_path_matches_numpy(lib, dtype, kind):
    """Float32 data on the device give the float64 path: the products are accumulated in float64."""
    X, y = _data()
    if kind == "binary":
        y = (y > 0).astype(np.int64)
    if kind == "pca":
        ref = implicit_greedy_path(CenteredGramOperator(X), max_k=12)
        got = implicit_greedy_path(DeviceGramOperator(lib.asarray(X, dtype)), max_k=12)
    else:
        crit = "trace" if kind == "trace" else "max-eig"
        B0 = CenteredGramOperator(X, y, alpha=0.05)
        a0 = B0.class_means.between if kind == "binary" else B0.class_means.between_factor
        ref = implicit_greedy_path(a0, B0, max_k=12, criterion=crit, block_size=4)
        B = DeviceGramOperator(lib.asarray(X, dtype), lib.asarray(y), alpha=0.05)
        a = B.class_means.between if kind == "binary" else B.class_means.between_factor
        got = implicit_greedy_path(a, B, max_k=12, criterion=crit, block_size=4)
        assert got.info["n_column_passes"] == ref.info["n_column_passes"]
    rtol = 1e-5 if dtype == "float32" else 1e-10
    if dtype == "float64":
        np.testing.assert_array_equal(got.order, ref.order)
    else:  # the float32 rounding of X itself may swap near-ties late in the path
        np.testing.assert_array_equal(got.order[:6], ref.order[:6])
    np.testing.assert_allclose(got.objective, ref.objective, rtol=rtol)
    np.testing.assert_allclose(got.weights(6), ref.weights(6), rtol=100 * rtol, atol=100 * rtol)


def test_gram_operator_follows_the_policy(lib, cpu_policy):
    X, y = _data(p=30)
    assert isinstance(gram_operator(X, y), CenteredGramOperator)
    # a view on a CPU; a device NumPy cannot view keeps the passes there
    want = CenteredGramOperator if lib.cpu else DeviceGramOperator
    assert isinstance(gram_operator(lib.asarray(X), lib.asarray(y)), want)
    with _force_array_api():
        assert isinstance(gram_operator(lib.asarray(X), lib.asarray(y)), DeviceGramOperator)
    xps = pytest.importorskip("array_api_strict")
    assert isinstance(gram_operator(xps.asarray(X, device=xps.Device("device1"))), DeviceGramOperator)


def test_operator_bad_input(lib):
    X, y = _data(p=20)
    with pytest.raises(ValueError, match="2-D"):
        DeviceGramOperator(lib.asarray(X[0]))
    if lib.name == "torch":
        with pytest.raises(TypeError, match="float32"):
            DeviceGramOperator(lib.asarray(X, "float16"))
    Xn = X.copy()
    Xn[4, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DeviceGramOperator(lib.asarray(Xn), lib.asarray(y))
    with pytest.raises(ValueError, match="alpha"):
        DeviceGramOperator(lib.asarray(X), alpha=-1.0)
