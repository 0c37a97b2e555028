"""The implicit forward path on a 2-process cluster when a worker dies in the middle of it.

Inside the path the row chunks are kept in the workers' memory (``CenteredGramOperator.cached``);
a worker that dies takes its chunks and its chain's partials with it. The scheduler recomputes
them (the chunks from the store) on the survivor or the restarted worker, and the path must still
equal NumPy's float64 path to 1e-10.
"""

import os
import sys

import cloudpickle
import dask
import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("zarr")

from pixsel.datasets import open_zarr, write_zarr
from pixsel.spectral import implicit_greedy_path
from pixsel.stats import CenteredGramOperator

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers unpickle _die


def _die(block, armed, died, block_id=None):
    """Kill this worker process while it reads chunk 3, once, after the test has armed it."""
    if block_id[0] == 3 and os.path.exists(armed) and not os.path.exists(died):
        open(died, "w").close()
        os._exit(1)
    return block


def test_worker_killed_mid_path_is_recomputed(tmp_path):
    rng = np.random.default_rng(23)
    n, p, C = 300, 60, 3
    y = np.arange(n) % C
    X = rng.integers(50, 210, (n, p)).astype(np.uint8)
    X[:, 4] += (30 * y).astype(np.uint8)
    X[:, 11] += (20 * (y == 1)).astype(np.uint8)
    write_zarr(tmp_path / "images.zarr", X, y, chunk_rows=50)
    armed, died = tmp_path / "armed", tmp_path / "died"
    ref_B = CenteredGramOperator(X.astype(np.float64), y, alpha=1e-2)
    ref = implicit_greedy_path(ref_B.class_means.between_factor, ref_B, max_k=20, block_size=4)
    with dask.config.set({"distributed.scheduler.allowed-failures": 2}), distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB", dashboard_address=":0",
    ) as cluster, distributed.Client(cluster):
        ds = open_zarr(tmp_path / "images.zarr", chunk_rows=50)
        Xk = ds.X.map_blocks(_die, str(armed), str(died), dtype=ds.X.dtype)
        B = CenteredGramOperator(Xk, ds.y, alpha=1e-2)  # the class means: nobody dies yet
        armed.touch()
        got = implicit_greedy_path(B.class_means.between_factor, B, max_k=20, block_size=4)
    assert died.exists()  # a worker did die, reading its chunk for the path
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
