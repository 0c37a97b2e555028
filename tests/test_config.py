"""pixsel.config: the public switch that runs the array-API kernels on CPU arrays."""

import numpy as np
import pytest

from pixsel._array_api import runs_on_host
from pixsel.config import array_api_kernels
from pixsel.spectral import greedy_path


def test_the_switch_holds_in_its_block_only_and_nests():
    xps = pytest.importorskip("array_api_strict")
    cpu = xps.Device("CPU_DEVICE")
    assert runs_on_host(xps, cpu)  # the CPU policy: NumPy's kernels on a view
    with array_api_kernels():
        assert not runs_on_host(xps, cpu) and runs_on_host(np, None)  # NumPy input is unaffected
        with array_api_kernels(False):
            assert runs_on_host(xps, cpu)
        assert not runs_on_host(xps, cpu)
    assert runs_on_host(xps, cpu)
    with pytest.raises(RuntimeError), array_api_kernels():
        raise RuntimeError
    assert runs_on_host(xps, cpu)  # restored after an error too


@pytest.mark.parametrize("r", [1, 3])
def test_the_array_api_kernels_give_the_numpy_path(r):
    """Oracle: the NumPy kernels' path on the same pair (two classes, then a multiclass factor)."""
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(r)
    Z = rng.standard_normal((60, 8))
    B = Z.T @ Z / 60 + 0.1 * np.eye(8)
    A = rng.standard_normal(8) if r == 1 else rng.standard_normal((8, r))
    ref = greedy_path(A, B, criterion="trace")
    with array_api_kernels():
        path = greedy_path(xps.asarray(A), xps.asarray(B), criterion="trace")
    np.testing.assert_array_equal(np.asarray(path.order), ref.order)
    np.testing.assert_allclose(np.asarray(path.objective), ref.objective, rtol=1e-10)
