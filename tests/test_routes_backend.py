"""The estimators' backend plumbing (pixsel._backend), route by route: what fit sees of X and y,
where the fitted arrays go, and that the estimators follow the route table."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from pixsel import SparseLDASelector, SparsePCASelector
from pixsel._backend import (
    codes_on_route,
    fit_route,
    follow_x,
    resize,
    store_on_route,
    to_route,
    validate_fit,
)
from pixsel._routes import IMPLICIT_MIN_FEATURES

xps = pytest.importorskip("array_api_strict")
da = pytest.importorskip("dask.array")
DEVICE1 = xps.Device("device1")


class _Est(BaseEstimator):
    pass


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, size=(12, 4)).astype(np.uint8), np.array([0, 1] * 6)


def test_numpy_route_without_dispatch_even_for_another_library(data):
    X, y = data
    r = fit_route("greedy", xps.asarray(X, device=DEVICE1))  # dispatch off: scikit-learn converts
    assert r.backend == "numpy" and not r.foreign
    Xv, yv = validate_fit(_Est(), fit_route("scores", X), X.astype(object), y, as_float=True)
    assert Xv.dtype == np.float64 and yv is y or np.array_equal(yv, y)


def test_numpy_route_keeps_the_callers_array(data):
    X, y = data
    before = X.copy()
    Xv, _ = validate_fit(_Est(), fit_route("scores", X), X, as_float=True)
    assert Xv.dtype == np.float64 and np.array_equal(X, before) and X.dtype == np.uint8


def test_dask_route_checks_the_shape_only_and_reads_lazily(data):
    X, y = data
    Xd = da.from_array(X, chunks=(5, 4))
    est = _Est()
    r = fit_route("scores", Xd)
    assert r.name == "dask"
    Xv, yv = validate_fit(est, r, Xd, y, dask_float=True)
    assert isinstance(Xv, da.Array) and Xv.dtype == np.float64 and est.n_features_in_ == 4
    assert isinstance(yv, np.ndarray)
    with pytest.raises(ValueError, match="must be 2-D"):
        validate_fit(est, r, da.ones(5), None)
    # an estimator that reads X whole validates a Dask array as NumPy
    assert fit_route("greedy", Xd, chunked=False).backend == "numpy"


@pytest.fixture
def dispatch(monkeypatch):
    """array_api_dispatch as fit_route reads it (scikit-learn's own dispatch needs SciPy's array
    API support, set before SciPy is imported: the estimators' dispatch checks run in a process
    of their own, tests/array_api/dispatch_checks.py)."""
    monkeypatch.setattr("pixsel._backend.dispatch_enabled", lambda: True)


def test_foreign_route_under_dispatch_follows_xs_library_and_device(data, dispatch):
    X, y = data
    r = fit_route("greedy", xps.asarray(X, device=DEVICE1), xps.asarray(y, device=DEVICE1))
    assert (r.name, r.backend, r.xp, r.device) == ("array_api", "device", xps, DEVICE1)
    cpu = fit_route("greedy", xps.asarray(X, device=xps.Device("CPU_DEVICE")))
    assert (cpu.name, cpu.backend) == ("host", "host") and cpu.foreign
    assert fit_route("greedy", X).backend == "numpy"  # NumPy under dispatch stays NumPy
    # y follows X (scikit-learn's rule): a NumPy y does not change the route, follow_x moves it
    assert fit_route("greedy", xps.asarray(X, device=DEVICE1), y) == r
    moved = follow_x(xps.asarray(X, device=DEVICE1), y)
    assert type(moved).__module__.split(".")[0] == "array_api_strict" and moved.device == DEVICE1
    assert np.asarray(xps.asarray(moved, device=xps.Device("CPU_DEVICE"))).tolist() == y.tolist()
    assert follow_x(X, xps.asarray(y, device=DEVICE1)).tolist() == y.tolist()  # to NumPy X
    codes, classes = codes_on_route(r, np.array(["b", "a"] * 6), np.array(["a", "b"]))
    assert classes.tolist() == [0, 1] and codes.device == DEVICE1 and codes.dtype == xps.int64
    assert np.asarray(xps.asarray(codes, device=xps.Device("CPU_DEVICE"))).tolist()[:2] == [1, 0]
    labels = np.array([3, 5])
    assert codes_on_route(fit_route("greedy", X), labels, labels) == (labels, labels)


def test_store_on_route_moves_fitted_arrays_but_labels(dispatch):
    est = _Est()
    est.coef_, est.support_, est.classes_, est.note = np.ones(3), np.array([True, False]), np.array([1, 2]), np.ones(1)
    r = fit_route("greedy", xps.asarray([[1.0]], device=DEVICE1))
    store_on_route(est, r)
    assert est.coef_.device == DEVICE1 and est.coef_.dtype == xps.float64
    assert est.support_.device == DEVICE1 and est.support_.dtype == xps.bool
    assert isinstance(est.classes_, np.ndarray) and isinstance(est.note, np.ndarray)
    est.mask_ = np.array([True])
    store_on_route(est, r, floats_only=True)
    assert isinstance(est.mask_, np.ndarray)
    numpy_route = fit_route("greedy", np.ones((2, 2)))
    a = np.ones(2)
    assert to_route(numpy_route, a) is a and to_route(r, None) is None
    kept = vars(est).copy()
    store_on_route(est, numpy_route)  # NumPy: nothing moves
    assert all(vars(est)[k] is v for k, v in kept.items())


def test_resize_takes_the_implicit_row_with_the_sizes():
    r = fit_route("greedy", np.ones((2, 2)))
    p = IMPLICIT_MIN_FEATURES + 1
    assert resize(r, n_samples=10, n_features=p).name == "implicit"
    assert resize(r, n_samples=10, n_features=p, algorithm="dense").algorithm == "dense"


def test_the_path_selectors_follow_the_route_table():
    # p = IMPLICIT_MIN_FEATURES + 1 > n: 'auto' takes the implicit row, for both selectors
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, IMPLICIT_MIN_FEATURES + 1)).astype(np.float32)
    y = np.repeat([0, 1], 15)
    X[y == 1, 7] += 3.0
    lda = SparseLDASelector(1, direction="forward").fit(X, y)
    assert lda.algorithm_ == "implicit" and lda.get_support(indices=True).tolist() == [7]
    pca = SparsePCASelector(1).fit(X[:, :64])
    assert pca.algorithm_ == "dense"
