"""The implicit forward path on a real multi-process dask.distributed cluster (issue 15).

Two worker processes read a row-chunked Zarr store; every pass of the operator (means, diagonal,
blocks of columns of B, the submatrix for the weights) runs as one task per chunk on the
workers, and the client only receives p-vectors and p x b panels. The path must equal NumPy's
(on the same data loaded in memory) to 1e-10.
"""

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("zarr")

from pixsel.datasets import open_zarr, write_zarr  # noqa: E402
from pixsel.selection import SparseLDASelector  # noqa: E402
from pixsel.spectral import implicit_greedy_path  # noqa: E402
from pixsel.stats import CenteredGramOperator  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  memory_limit="1GiB", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    rng = np.random.default_rng(21)
    n, shape, C = 240, (9, 10), 3
    y = np.arange(n) % C
    X = rng.integers(40, 220, (n,) + shape).astype(np.uint8)  # uint8 images, large common mean
    X[:, 1, 2] += (25 * y).astype(np.uint8)
    X[:, 6, 4] += (20 * (y == 1)).astype(np.uint8)
    X = X.astype(np.float32) / 255
    path = tmp_path_factory.mktemp("implicit") / "images.zarr"
    write_zarr(path, X.reshape(n, -1), y, image_shape=shape, chunk_rows=50)
    return path, X.reshape(n, -1), y


def test_implicit_path_on_the_cluster_equals_numpy(client, store):
    path, X, y = store
    ds = open_zarr(path, chunk_rows=50)
    assert ds.X.npartitions == 5 and ds.X.dtype == np.float32
    B = CenteredGramOperator(ds.X, ds.y, alpha=1e-3)
    ref_B = CenteredGramOperator(X, y, alpha=1e-3)
    F = B.class_means.between_factor
    np.testing.assert_allclose(F, ref_B.class_means.between_factor, rtol=1e-10, atol=1e-14)
    with distributed.get_task_stream(client) as ts:
        got = implicit_greedy_path(F, B, max_k=25, block_size=8)
    passes = B.n_passes
    ref = implicit_greedy_path(ref_B.class_means.between_factor, ref_B, max_k=25, block_size=8)
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
    np.testing.assert_allclose(got.weights(25), ref.weights(25), rtol=1e-10, atol=1e-13)
    assert passes == 2 + got.info["n_column_passes"] < 2 + 25  # blocking: < one pass per feature
    # the products ran on the workers (both of them), one task per chunk and pass
    assert len({t["worker"] for t in ts.data}) == 2
    names = [str(t["key"][0] if isinstance(t["key"], tuple) else t["key"]) for t in ts.data]
    assert sum(name.startswith("chunk") for name in names) == 5 * (passes - 1)


def test_selector_on_the_cluster_equals_numpy(client, store):
    path, X, y = store
    ds = open_zarr(path, chunk_rows=50)
    sel = SparseLDASelector(12, direction="forward", algorithm="implicit").fit(ds.X, ds.y)
    ref = SparseLDASelector(12, direction="forward", algorithm="implicit").fit(X, y)
    np.testing.assert_array_equal(sel.forward_path_.order, ref.forward_path_.order)
    np.testing.assert_allclose(sel.objective_path_, ref.objective_path_, rtol=1e-10)
    np.testing.assert_allclose(sel.coef_, ref.coef_, rtol=1e-10, atol=1e-13)
