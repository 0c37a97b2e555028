"""Array libraries for the array-API tests: array-api-strict (the standard, nothing more) and
PyTorch on the CPU (and on CUDA when a GPU happens to be there; never required).

On a CPU pixsel runs its NumPy kernels on views of the arrays (the CPU policy of
``pixsel._array_api``); these tests check the array-API kernels themselves, so every test here
runs inside the private switch ``_force_array_api`` unless it asks for the policy with the
``cpu_policy`` fixture (test_policy.py)."""

import numpy as np
import pytest

from pixsel._array_api import _force_array_api


@pytest.fixture(autouse=True)
def _array_api_kernels(request):
    """The array-API kernels even on a CPU (off for tests that use the ``cpu_policy`` fixture)."""
    with _force_array_api("cpu_policy" not in request.fixturenames):
        yield


@pytest.fixture
def cpu_policy():
    """Marks a test that checks the CPU policy itself (NumPy's kernels on views)."""
    return True


def _torch_params():
    params = [pytest.param(("torch", "cpu"), id="torch-cpu")]
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is in the arrayapi extra
        return params
    if torch.cuda.is_available():  # pragma: no cover - only on a machine with a GPU
        params.append(pytest.param(("torch", "cuda"), id="torch-cuda"))
    return params


LIBRARIES = [pytest.param(("array_api_strict", None), id="strict")] + _torch_params()


class Lib:
    """One array library on one device: ``asarray`` from NumPy, ``to_numpy`` back."""

    def __init__(self, name, device):
        self.name = name
        self.xp = pytest.importorskip(name)
        if name == "torch":
            self.device = self.xp.device(device)
        else:
            self.device = self.xp.Device("CPU_DEVICE")

    def asarray(self, a, dtype=None):
        a = np.asarray(a)
        if dtype is None and a.dtype == np.float64:
            dtype = self.xp.float64
        if isinstance(dtype, str):
            dtype = getattr(self.xp, dtype)
        return self.xp.asarray(a, dtype=dtype, device=self.device)

    def __repr__(self):
        return f"Lib({self.name}, {self.device})"


@pytest.fixture(params=LIBRARIES)
def lib(request):
    name, device = request.param
    return Lib(name, device)


@pytest.fixture(params=["float64", "float32"])
def dtype(request):
    """The data's dtype on the device; results are compared with NumPy float64 at ``rtol``."""
    return request.param


@pytest.fixture
def rtol(dtype):
    return 2e-4 if dtype == "float32" else 1e-9
