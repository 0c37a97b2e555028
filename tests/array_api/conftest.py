"""Array libraries for the array-API tests: array-api-strict (the standard, nothing more) on its CPU
device and on its fake ``device1`` (a device NumPy cannot read, as a GPU), PyTorch on the CPU, and,
when present (never required), PyTorch on CUDA and CuPy.

On a CPU pixsel runs its NumPy kernels on views of the arrays (the CPU policy of
``pixsel._array_api``); these tests check the array-API kernels themselves, so every test here
runs inside the private switch ``_force_array_api`` unless it asks for the policy with the
``cpu_policy`` fixture (test_policy.py).

Comparisons are device-aware: ``lib.device`` is the device as ``array_api_compat.device``
reports it for an array created there (``device(type='cuda', index=0)``, not the index-less
``torch.device('cuda')`` a user may write), and results are brought to the host with
``to_numpy`` (a copy where the device is not the CPU) before NumPy compares them. The fake
``device1`` refuses ``numpy.asarray`` as a CUDA tensor does, so a comparison that forgets the
host copy fails in CI too, not only on a GPU."""

import numpy as np
import pytest

from pixsel._array_api import _force_array_api, device_of, is_cpu, to_numpy


@pytest.fixture(autouse=True)
def _array_api_kernels(request):
    """The array-API kernels even on a CPU (off for tests that use the ``cpu_policy`` fixture)."""
    with _force_array_api("cpu_policy" not in request.fixturenames):
        yield


@pytest.fixture
def cpu_policy():
    """Marks a test that checks the CPU policy itself (NumPy's kernels on views)."""
    return True


def _gpu_params():
    """torch-cuda and CuPy, each only when importable and a device is there."""
    params = []
    try:
        import torch

        if torch.cuda.is_available():  # pragma: no cover - only on a machine with a GPU
            params.append(pytest.param(("torch", "cuda"), id="torch-cuda"))
    except ImportError:  # pragma: no cover - torch is in the arrayapi extra
        pass
    try:  # pragma: no cover - only on a machine with a GPU
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            params.append(pytest.param(("cupy", None), id="cupy"))
    except Exception:  # ImportError, or CUDA errors when the driver or the device is missing
        pass
    return params


def _torch_cpu():
    try:
        import torch  # noqa: F401
    except ImportError:  # pragma: no cover - torch is in the arrayapi extra
        return []
    return [pytest.param(("torch", "cpu"), id="torch-cpu")]


LIBRARIES = ([pytest.param(("array_api_strict", None), id="strict"),
              pytest.param(("array_api_strict", "device1"), id="strict-device1")]
             + _torch_cpu() + _gpu_params())


class Lib:
    """One array library on one device: ``asarray`` from NumPy, ``host`` back to NumPy."""

    def __init__(self, name, device):
        self.name = name
        pytest.importorskip(name)
        if name == "torch":
            import torch

            self.xp = torch
            dev = torch.device(device)
        elif name == "cupy":  # pragma: no cover - only on a machine with a GPU
            from array_api_compat import cupy as xp

            self.xp = xp
            dev = None
        else:
            import array_api_strict as xp

            self.xp = xp
            dev = xp.Device(device or "CPU_DEVICE")
        # the device as array_api_compat reports it for an array made there: cuda:0, not cuda
        self.device = device_of(self.xp.asarray([0.0], device=dev))
        from array_api_compat import array_namespace

        self.cpu = is_cpu(array_namespace(self.xp.asarray([0.0], device=dev)), self.device)

    def asarray(self, a, dtype=None):
        a = np.asarray(a)
        if dtype is None and a.dtype == np.float64:
            dtype = self.xp.float64
        if isinstance(dtype, str):
            dtype = getattr(self.xp, dtype)
        return self.xp.asarray(a, dtype=dtype, device=self.device)

    @staticmethod
    def host(a, dtype=None):
        """A NumPy copy of ``a`` (arrays of any device, 0-d arrays, Python numbers)."""
        return to_numpy(a, dtype)

    @staticmethod
    def scalar(a):
        """A Python float of a number or a 0-d array on any device."""
        return float(to_numpy(a, np.float64))

    def owns(self, a):
        """``a`` is an array of this library on this device."""
        return type(a).__module__.split(".")[0] == self.name and device_of(a) == self.device

    def __repr__(self):
        return f"Lib({self.name}, {self.device})"


def _refuse_dlpack_off_cpu(monkeypatch):
    """array-api-strict's ``device1`` as a GPU: DLPack refuses it (``np.from_dlpack`` of a CUDA
    tensor raises ``BufferError: Unsupported device in DLTensor``), so ``host_view`` of such an
    array fails in CI as it does on a GPU; ``to_numpy`` (a copy) still works."""
    import array_api_strict as xps

    array = type(xps.asarray([0.0]))
    cpu = xps.Device("CPU_DEVICE")
    original = array.__dlpack__

    def __dlpack__(self, *args, **kwargs):
        if self.device != cpu:
            raise BufferError("Unsupported device in DLTensor (array-api-strict's fake device1, as a GPU)")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(array, "__dlpack__", __dlpack__)


@pytest.fixture(params=LIBRARIES)
def lib(request, monkeypatch):
    name, device = request.param
    if device == "device1":
        _refuse_dlpack_off_cpu(monkeypatch)
    return Lib(name, device)


@pytest.fixture(params=["float64", "float32"])
def dtype(request):
    """The data's dtype on the device; results are compared with NumPy float64 at ``rtol``."""
    return request.param


@pytest.fixture
def rtol(dtype):
    return 2e-4 if dtype == "float32" else 1e-9
