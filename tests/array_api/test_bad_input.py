"""Bad input on the array-API path: mixed libraries, two devices, float16; messages name the fix."""

import numpy as np
import pytest

from pixsel._array_api import float_dtype, get_namespace, sign_flip, to_numpy
from pixsel._validation import sign_flip as np_sign_flip
from pixsel.scores import block_krylov_svd
from pixsel.stats import class_means, class_statistics, class_sums, column_moments

torch = pytest.importorskip("torch")
xps = pytest.importorskip("array_api_strict")


def _Xy(n=40, p=5):
    rng = np.random.default_rng(0)
    return rng.standard_normal((n, p)), np.repeat([0, 1], n // 2)


@pytest.mark.parametrize("stat", [class_means, class_statistics, class_sums])
def test_numpy_X_with_torch_y(stat):
    X, y = _Xy()
    with pytest.raises(TypeError, match=r"X is a numpy array but y is a torch array.*y = numpy\.asarray\(y\)"):
        stat(X, torch.asarray(y))


@pytest.mark.parametrize("stat", [class_means, class_statistics, class_sums])
def test_torch_X_with_numpy_y(stat):
    X, y = _Xy()
    with pytest.raises(TypeError, match=r"y = torch\.asarray\(y, device=X\.device\)"):
        stat(torch.asarray(X), y)


def test_labels_as_a_list_follow_X():
    X, y = _Xy()
    st = class_statistics(torch.asarray(X), y.tolist())
    assert isinstance(st.within, torch.Tensor)
    np.testing.assert_allclose(st.within.numpy(), class_statistics(X, y).within, rtol=1e-12, atol=1e-14)


def test_two_devices():
    X, y = _Xy()
    Xd = xps.asarray(X, device=xps.Device("CPU_DEVICE"))
    yd = xps.asarray(y, device=xps.Device("device1"))
    with pytest.raises(ValueError, match=r"X is on device .*CPU_DEVICE.* but y is on .*device1.*Move y there first"):
        class_statistics(Xd, yd)


@pytest.mark.parametrize("half", ["float16", "bfloat16"])
def test_half_precision_refused(half):
    X, y = _Xy()
    Xh = torch.asarray(X, dtype=getattr(torch, half))
    with pytest.raises(TypeError, match=r"cannot hold the sums of squares.*X\.to\(torch\.float32\)"):
        class_statistics(Xh, torch.asarray(y))
    with pytest.raises(TypeError, match="A has dtype"):
        column_moments(Xh)


def test_complex_refused():
    with pytest.raises(TypeError, match="must hold real numbers"):
        from array_api_compat import array_namespace

        z = torch.ones(3, dtype=torch.complex64)
        float_dtype(array_namespace(z), z)


def test_device_without_float64_computes_in_float32():
    """Integers become float64 where the device has it, float32 where it does not."""
    X = np.arange(60, dtype=np.int64).reshape(20, 3) % 7
    y = np.repeat([0, 1], 10)
    dev = xps.Device("no_float64")
    st = class_statistics(xps.asarray(X, device=dev), xps.asarray(y, device=dev))
    assert st.within.dtype == xps.float32
    np.testing.assert_allclose(to_numpy(st.within), class_statistics(X, y).within, rtol=1e-5, atol=1e-5)


def test_nan_on_the_device_is_located():
    X, y = _Xy()
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinite value\(s\), the first at index \(3, 2\)"):
        class_statistics(torch.asarray(X), torch.asarray(y))
    with pytest.raises(ValueError, match="first affected feature is column 2"):
        column_moments(torch.asarray(X))


def test_constant_data_message_on_the_device():
    with pytest.raises(ValueError, match="Every feature of X is constant"):
        block_krylov_svd(torch.ones((10, 4), dtype=torch.float64), 2)


def test_get_namespace_rules():
    assert get_namespace(np.ones(2), None, [1, 2])[0] is np
    xp, dev = get_namespace(torch.ones(2), [1, 2])
    assert dev == torch.device("cpu") and xp.__name__.endswith("torch")


@pytest.mark.parametrize("V", [np.array([0.5, -2.0, 1.0]), np.array([[1.0, -3.0], [0.0, 0.0], [-2.0, 2.0]])])
def test_sign_flip_shim_matches_numpy(V):
    got = sign_flip(xps, xps.asarray(V))
    np.testing.assert_array_equal(to_numpy(got), np_sign_flip(V))
