"""The CPU policy of :mod:`pixsel._array_api`: arrays of another library that live on a CPU run
NumPy's kernels on zero-copy views and get their results back in their own library, device and
dtype; the array-API kernels run on any other device (array-api-strict's fake ``device1`` stands
for a GPU here) and, inside the private switch ``_force_array_api``, on a CPU too.

Run with a library on another device (``strict-device1``, ``torch-cuda``, ``cupy``) the same tests
check the other side of the policy: no view, the array-API kernels, the results on that device
and equal to NumPy's to rounding. Views (``host_view``, ``call_on_host``) exist only for memory
NumPy can read: those tests are skipped there (DLPack refuses a CUDA tensor)."""

import numpy as np
import pytest

from pixsel._array_api import (
    _force_array_api,
    call_on_host,
    device_of,
    host_view,
    is_cpu,
    runs_on_host,
    to_numpy,
)
from pixsel.pls import cardinal_spls, spls_eta
from pixsel.scores import block_krylov_svd
from pixsel.spectral import fisher_thresholding_path, greedy_path, rank_one_greedy_path, simple_thresholding_path
from pixsel.stats import (
    class_means, class_statistics, class_sums, column_moments, ledoit_wolf_from_rows, regularize,
)


def _data(n=300, p=14, C=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.standard_normal((n, p)) * np.linspace(0.5, 2.0, p) + 10.0
    X[:, 1] += 2.0 * y
    return X, y


def _in(lib, got, dtype=None):
    assert type(got).__module__.split(".")[0] == lib.name
    assert device_of(got) == lib.device
    if dtype is not None:
        assert got.dtype == getattr(lib.xp, dtype)


def _needs_cpu(lib):
    if not lib.cpu:
        pytest.skip(f"views of host memory only: {lib.device} is not the CPU (DLPack refuses it)")


def _same(lib, got, ref, rtol=1e-10):
    """``got`` (this library's policy result) against NumPy's ``ref``: bit for bit on a CPU (the
    NumPy kernel ran), to rounding on another device (the array-API kernel ran there)."""
    got = lib.host(got, np.float64 if np.asarray(ref).dtype.kind == "f" else None)
    if lib.cpu:
        np.testing.assert_array_equal(got, ref)
    else:
        ref = np.asarray(ref, dtype=np.float64)
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * max(float(np.max(np.abs(ref))), 1e-300))


def test_policy_switch(lib, cpu_policy):
    xp = pytest.importorskip("array_api_compat").array_namespace(lib.asarray([1.0]))
    if not lib.cpu:  # a device NumPy cannot view: the array-API kernels, switch or not
        assert not is_cpu(xp, lib.device) and not runs_on_host(xp, lib.device)
        with _force_array_api(False):
            assert not runs_on_host(xp, lib.device)
        return
    assert is_cpu(xp, lib.device) and runs_on_host(xp, lib.device)
    with _force_array_api():
        assert not runs_on_host(xp, lib.device)
        with _force_array_api(False):
            assert runs_on_host(xp, lib.device)
        assert not runs_on_host(xp, lib.device)
    assert runs_on_host(xp, lib.device)  # the switch is scoped
    assert runs_on_host(np, None)


def test_host_view_shares_memory(lib, cpu_policy):
    _needs_cpu(lib)
    a = lib.asarray(np.arange(12.0).reshape(3, 4))
    v = host_view(a)
    assert isinstance(v, np.ndarray) and v.tolist() == np.arange(12.0).reshape(3, 4).tolist()
    if lib.name == "torch":  # no copy: the view is the tensor's memory
        assert v.ctypes.data == a.data_ptr()
        assert host_view(a.T).tolist() == v.T.tolist()  # strided views too
    assert host_view(None) is None and host_view([1.0]) == [1.0]


def test_call_on_host_types(lib, cpu_policy):
    _needs_cpu(lib)
    a = lib.asarray(np.array([1.0, 2.0, 3.0]), "float32")
    out = call_on_host(lambda v: (np.cumsum(v, dtype=np.float64), np.arange(3)), lib.xp, lib.device, a)
    _in(lib, out[0], "float32")  # floats come back in the work dtype of the first argument
    assert isinstance(out[1], np.ndarray)  # integers (labels, indices) stay NumPy
    np.testing.assert_array_equal(to_numpy(out[0]), [1.0, 3.0, 6.0])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_statistics_are_numpys(lib, dtype, cpu_policy):
    """On a CPU the statistics are NumPy's own (float64 accumulation), returned in X's library,
    device and dtype; on another device the array-API statistics, equal to rounding; X is not
    modified either way."""
    X, y = _data()
    Xl = lib.asarray(X, dtype)
    Xh = X.astype(dtype)
    rtol = 1e-10 if dtype == "float64" else 1e-4  # off the CPU: float32 accumulates in float32
    st, ref = class_statistics(Xl, lib.asarray(y)), class_statistics(Xh, y)
    for name in ("within", "means", "mean"):
        _in(lib, getattr(st, name), dtype)
        _same(lib, getattr(st, name), getattr(ref, name).astype(dtype), rtol)
    assert isinstance(st.counts, np.ndarray) and st.counts.tolist() == ref.counts.tolist()
    cov = class_statistics(Xl, None)  # one class (SparsePCASelector's covariance)
    _same(lib, cov.within, class_statistics(Xh, np.zeros(len(X))).within.astype(dtype), rtol)
    cm = class_means(Xl)
    _in(lib, cm.mean, dtype)
    _same(lib, cm.mean, class_means(Xh).mean.astype(dtype), rtol)
    mean, ss = column_moments(Xl)
    rmean, rss = column_moments(Xh)
    _in(lib, ss, dtype)
    _same(lib, ss, rss.astype(dtype), 100 * rtol)
    cs = class_sums(Xl, lib.asarray(y))
    _same(lib, cs.squares, class_sums(Xh, y).squares.astype(dtype), 100 * rtol)
    np.testing.assert_array_equal(lib.host(Xl), Xh)  # never modified


@pytest.mark.parametrize("regularization", ["ledoit-wolf-floor", "ledoit-wolf", "auto", 0.5])
def test_regularize_is_numpys(lib, regularization, cpu_policy):
    """On a CPU the regularized ``B`` (the default Ledoit-Wolf intensity's fourth moment over X
    included) is NumPy's own, returned in B's library, device and dtype, with NumPy's intensity;
    on another device the array-API regularization, equal to rounding."""
    X, y = _data()
    Xl, yl = lib.asarray(X, "float64"), lib.asarray(y)
    st, ref = class_statistics(Xl, yl), class_statistics(X, y)
    got, info = regularize(st.within, regularization, X=Xl, y=yl, means=st.means, classes=st.classes)
    want, winfo = regularize(ref.within, regularization, X=X, y=y, means=ref.means, classes=ref.classes)
    _in(lib, got, "float64")
    _same(lib, got, want)
    assert info.method == winfo.method
    if lib.cpu:
        assert (info.alpha, info.shrinkage) == (winfo.alpha, winfo.shrinkage)
    else:
        np.testing.assert_allclose([info.alpha, info.shrinkage], [winfo.alpha, winfo.shrinkage], rtol=1e-10)
    np.testing.assert_array_equal(lib.host(Xl), X)  # never modified


def test_ledoit_wolf_from_rows_is_numpys(lib, cpu_policy):
    """The implicit fit's Ledoit-Wolf intensity (no ``p x p`` matrix): on a CPU NumPy's own
    number from a view of X, on another device the array-API one, equal to rounding."""
    X, y = _data()
    Xl = lib.asarray(X, "float64")
    st, ref = class_statistics(Xl, lib.asarray(y)), class_statistics(X, y)
    got = ledoit_wolf_from_rows(Xl, y, lib.host(st.means), st.classes)  # the labels on the host, as a fit has them
    want = ledoit_wolf_from_rows(X, y, ref.means, ref.classes)
    assert isinstance(got, float) and 0.0 < want < 1.0
    if lib.cpu:
        assert got == want
    else:
        np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_array_equal(lib.host(Xl), X)  # never modified


@pytest.mark.parametrize("form", ["vector", "factor", "full"])
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_greedy_path_runs_numpys_kernel(lib, form, direction, cpu_policy):
    X, y = _data()
    st = class_statistics(X, y)
    A = {"vector": st.between_factor[:, 0], "factor": st.between_factor, "full": st.total}[form]
    B = st.within + 0.01 * np.eye(X.shape[1])
    ref = greedy_path(A, B, direction=direction)
    got = greedy_path(lib.asarray(A), lib.asarray(B), direction=direction)
    assert ("array_api" not in got.info) is lib.cpu  # NumPy's kernel ran on a CPU, not elsewhere
    np.testing.assert_array_equal(got.order, ref.order)
    _same(lib, got.objective, ref.objective)
    with _force_array_api():  # the array-API kernel: the same path
        forced = greedy_path(lib.asarray(A), lib.asarray(B), direction=direction)
    assert forced.info.get("array_api")
    np.testing.assert_array_equal(forced.order, ref.order)
    if form == "vector":  # the binary kernel's own entry point follows the same policy
        got = rank_one_greedy_path(lib.asarray(A), lib.asarray(B), direction=direction)
        assert ("array_api" not in got.info) is lib.cpu
        np.testing.assert_array_equal(got.order, ref.order)


def test_thresholding_krylov_spls(lib, cpu_policy):
    X, y = _data()
    st = class_statistics(X, y)
    a, B = st.between_factor[:, 0], st.within
    for fn, A in ((fisher_thresholding_path, a), (simple_thresholding_path, st.between_factor)):
        got, ref = fn(lib.asarray(A), lib.asarray(B)), fn(A, B)
        assert ("array_api" not in got.info) is lib.cpu
        np.testing.assert_array_equal(got.order, ref.order)
        _same(lib, got.objective, ref.objective)
    got, ref = block_krylov_svd(lib.asarray(X), 3, random_state=0), block_krylov_svd(X, 3, random_state=0)
    _in(lib, got.components, "float64")
    _same(lib, got.components, ref.components, 1e-8)
    _same(lib, got.singular_values, ref.singular_values)
    Y = X[:, 1] - X[:, 4]
    for got, ref in ((cardinal_spls(lib.asarray(X), lib.asarray(Y), 4, 2), cardinal_spls(X, Y, 4, 2)),
                     (spls_eta(lib.asarray(X), lib.asarray(Y), 0.5, 2), spls_eta(X, Y, 0.5, 2))):
        _in(lib, got.coef, "float64")
        np.testing.assert_array_equal(lib.host(got.support), ref.support)
        _same(lib, got.coef, ref.coef, 1e-8)
        np.testing.assert_allclose(lib.host(got.predict(lib.asarray(X))), ref.predict(X), rtol=1e-10)


def test_other_devices_run_the_array_api_kernels(cpu_policy):
    """A device NumPy cannot view (array-api-strict's fake ``device1``, as a GPU would be) takes
    the array-API kernels without the switch, and the results stay on that device."""
    xps = pytest.importorskip("array_api_strict")
    dev = xps.Device("device1")
    assert not runs_on_host(xps, dev)
    X, y = _data()
    st = class_statistics(xps.asarray(X, device=dev), xps.asarray(y, device=dev))
    assert st.within.device == dev
    ref = class_statistics(X, y)
    np.testing.assert_allclose(to_numpy(st.within), ref.within, rtol=1e-10, atol=1e-12)
    path = greedy_path(st.between_factor, st.within)
    assert path.info.get("array_api")
    np.testing.assert_array_equal(path.order, greedy_path(ref.between_factor, ref.within).order)
    res = block_krylov_svd(xps.asarray(X, device=dev), 3, random_state=0)
    assert res.components.device == dev


def test_off_the_cpu_no_view_but_a_copy(lib, cpu_policy):
    """Off the CPU (the fake device1 as on a GPU) there is no view of device memory: host_view
    refuses it, to_numpy makes the host copy every comparison in these tests uses."""
    _needs_gpu_like(lib)
    a = lib.asarray(np.arange(6.0))
    with pytest.raises((BufferError, RuntimeError, TypeError)):
        host_view(a)
    assert to_numpy(a).tolist() == list(range(6))


def _needs_gpu_like(lib):
    if lib.cpu:
        pytest.skip(f"{lib.device} is the CPU: NumPy views it")
