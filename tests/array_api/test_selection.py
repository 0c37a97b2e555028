"""Regularization, ``lda_paths`` / ``pca_paths`` and the device helpers of the path selectors on
any array library: the NumPy result to a dtype-appropriate tolerance, results in the input's
library (the selectors under dispatch are checked in dispatch_checks.py)."""

import numpy as np
import pytest

from pixsel._array_api import device_of, get_namespace
from pixsel.selection import lda_paths, pca_paths
from pixsel.spectral._linalg import generalized_eigh, support_objective, support_weights
from pixsel.spectral import objective_on_support, weights_on_support
from pixsel.stats import class_statistics, regularize


def _data(n=150, p=12, C=2, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.standard_normal((n, p)) * np.linspace(0.3, 2.0, p) + 20.0
    X[:, 3] += 1.5 * y
    X[:, 8] -= 1.0 * (y == 1)
    return X, y


def _on(lib, arr):
    assert type(arr).__module__.split(".")[0] == lib.name
    assert device_of(arr) == lib.device


@pytest.mark.parametrize("regularization", ["auto", 0.25, "none", "ledoit-wolf", "ledoit-wolf-floor"])
def test_regularize(lib, dtype, rtol, regularization):
    X, y = _data()
    st = class_statistics(X, y)
    ref, info = regularize(st.within, regularization, X=X, y=y, means=st.means, classes=st.classes)
    Xd, yd = lib.asarray(X, dtype), lib.asarray(y)
    sd = class_statistics(Xd, yd)
    got, ginfo = regularize(sd.within, regularization, X=Xd, y=yd, means=sd.means, classes=sd.classes)
    _on(lib, got)
    assert got.dtype == getattr(lib.xp, dtype)  # float32 stays float32 on the device
    assert ginfo.method == info.method
    for field in ("alpha", "shrinkage", "mu"):  # numbers, or 0-d arrays on the device: compared on the host
        g, want = getattr(ginfo, field), getattr(info, field)
        if want is None:
            assert g is None, field
            continue
        assert lib.scalar(g) == pytest.approx(float(want), rel=10 * rtol, abs=1e-12), field
    np.testing.assert_allclose(lib.host(got, np.float64), ref, rtol=rtol, atol=rtol * np.abs(ref).max())
    if regularization == "ledoit-wolf":
        assert 0 < info.shrinkage < 1


@pytest.mark.parametrize("C", [2, 3])
def test_weights_and_objective_on_support(lib, C):
    X, y = _data(C=C, seed=C)
    st = class_statistics(X, y)
    B, _ = regularize(st.within, "auto")
    A = st.between if C == 2 else st.between_factor
    S = [1, 3, 8, 10]
    sd = class_statistics(lib.asarray(X), lib.asarray(y))
    Bd, _ = regularize(sd.within, "auto")
    Ad = sd.between if C == 2 else sd.between_factor
    xp = get_namespace(Bd)[0]
    z = support_weights(xp, Ad, Bd, S)
    _on(lib, z)
    want = np.asarray(weights_on_support(A, B, S), dtype=np.float64)
    np.testing.assert_allclose(lib.host(z, np.float64), want, rtol=1e-9, atol=1e-12 * max(1.0, np.abs(want).max()))
    got = lib.scalar(support_objective(xp, Ad, Bd, S))  # a number, compared on the host
    assert got == pytest.approx(float(objective_on_support(A, B, S)), rel=1e-10)


def test_generalized_eigh_refuses_indefinite_B(lib):
    A = lib.asarray(np.eye(3))
    with pytest.raises(ValueError, match="not positive definite; regularize B first"):
        generalized_eigh(get_namespace(A)[0], A, lib.asarray(np.diag([1.0, -1.0, 1.0])))


@pytest.mark.parametrize("C", [2, 3])
def test_lda_paths(lib, C):
    X, y = _data(C=C, seed=10 + C)
    ref = lda_paths(X, y)
    got = lda_paths(lib.asarray(X), lib.asarray(y))
    assert sorted(got.paths) == sorted(ref.paths)
    for name, path in ref.paths.items():
        np.testing.assert_array_equal(got.paths[name].order, path.order, err_msg=name)
        np.testing.assert_allclose(got.paths[name].objective, path.objective, rtol=1e-9, err_msg=name)
    np.testing.assert_allclose(lib.host(got.upper_bound, np.float64), ref.upper_bound, rtol=1e-8)
    if C == 2:
        np.testing.assert_allclose(lib.host(got.lower_bound, np.float64), ref.lower_bound, rtol=1e-9)
    assert lib.scalar(got.regularization.alpha) == pytest.approx(ref.regularization.alpha, rel=1e-10)


def test_pca_paths(lib, dtype):
    X, _ = _data(seed=5)
    X[:, [2, 6]] += 2.0 * np.random.default_rng(1).standard_normal((X.shape[0], 1))
    ref = pca_paths(X)
    got = pca_paths(lib.asarray(X, dtype))
    rtol = 1e-4 if dtype == "float32" else 1e-9
    for name, path in ref.paths.items():
        np.testing.assert_allclose(got.paths[name].objective, path.objective, rtol=rtol, err_msg=name)
        if dtype == "float64":
            np.testing.assert_array_equal(got.paths[name].order, path.order, err_msg=name)
        else:  # float32 covariance: the first picks (well separated) agree with float64
            np.testing.assert_array_equal(got.paths[name].order[:2], path.order[:2], err_msg=name)


@pytest.mark.parametrize("form", ["vector", "factor", "full"])
def test_exact_support_takes_device_statistics(lib, form):
    from pixsel.spectral import exact_support

    X, y = _data(p=9, C=2 if form == "vector" else 3, seed=20)
    st = class_statistics(X, y)
    B, _ = regularize(st.within, "auto")
    A = st.between if form == "vector" else st.between_factor if form == "factor" else st.total
    ref = exact_support(A, B, 3)
    got = exact_support(lib.asarray(A), lib.asarray(B), 3)
    assert got.support.tolist() == ref.support.tolist() and got.status == "optimal"
    assert lib.scalar(got.objective) == pytest.approx(ref.objective, rel=1e-12)
    with pytest.raises(TypeError, match="Convert B first"):
        exact_support(lib.asarray(A), B, 3)
