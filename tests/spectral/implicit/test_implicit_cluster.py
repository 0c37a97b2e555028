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

from pixsel.datasets import open_zarr, write_zarr
from pixsel.selection import SparseLDASelector
from pixsel.spectral import implicit_greedy_path
from pixsel.stats import CenteredGramOperator


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


@pytest.fixture(scope="module")
def uint8_store(tmp_path_factory):
    rng = np.random.default_rng(22)
    n, shape, C = 300, (8, 12), 3
    y = np.arange(n) % C
    X = rng.integers(60, 200, (n,) + shape).astype(np.uint8)
    X[:, 2, 3] += (30 * y).astype(np.uint8)
    X[:, 5, 7] += (25 * (y == 2)).astype(np.uint8)
    X[:, 0, 0] = 255  # a constant pixel
    path = tmp_path_factory.mktemp("implicit-uint8") / "images.zarr"
    write_zarr(path, X.reshape(n, -1), y, image_shape=shape, chunk_rows=60)
    return path, X.reshape(n, -1), y


def _released(client, prefix, timeout=10.0):
    import time

    end = time.monotonic() + timeout
    while any(str(k).startswith(prefix) for k in client.who_has()):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def _names(ts):
    return [str(t["key"][0] if isinstance(t["key"], tuple) else t["key"]) for t in ts.data]


def test_uint8_chunks_kept_on_the_workers_give_the_float64_path(client, uint8_store):
    path, X, y = uint8_store
    ds = open_zarr(path, chunk_rows=60)
    assert ds.X.dtype == np.uint8 and ds.X.npartitions == 5
    B = CenteredGramOperator(ds.X, ds.y, alpha=1e-2)
    ref_B = CenteredGramOperator(X.astype(np.float64), y, alpha=1e-2)  # float64, in memory
    with distributed.get_task_stream(client) as ts:
        got = implicit_greedy_path(B.class_means.between_factor, B, max_k=30, block_size=6)
    ref = implicit_greedy_path(ref_B.class_means.between_factor, ref_B, max_k=30, block_size=6)
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
    np.testing.assert_allclose(got.weights(30), ref.weights(30), rtol=1e-10, atol=1e-13)
    names = _names(ts)
    # inside the path every chunk was read once (kept on its worker, uint8), then one task per
    # chunk and pass (the diagonal and the blocks of columns), both workers busy
    assert sum(name.startswith("gram-chunk") for name in names) == 5
    assert sum(name.startswith("chunk") for name in names) == 5 * (1 + got.info["n_column_passes"])
    assert len({t["worker"] for t in ts.data}) == 2
    assert _released(client, "gram-chunk")  # the kept chunks are let go when the path is done
    # the integer passes are exact: the cluster gives NumPy's uint8 panels bit for bit
    G = CenteredGramOperator(X, y, alpha=1e-2)
    np.testing.assert_array_equal(B.columns([0, 26, 95]), G.columns([0, 26, 95]))
    np.testing.assert_array_equal(B.diag(), G.diag())


def test_cache_off_or_too_large_reads_the_store_each_pass(client, uint8_store):
    path, X, y = uint8_store
    ds = open_zarr(path, chunk_rows=60)
    B = CenteredGramOperator(ds.X, ds.y, alpha=1e-2, cache=False)
    with distributed.get_task_stream(client) as ts, B.cached():
        assert B._state["chunks"] is None
        B.columns([1, 2])
    assert not any(name.startswith("gram-chunk") for name in _names(ts))
    # 'auto' keeps nothing when a worker's share would pass 40 % of its memory limit (1 GiB here)
    da = pytest.importorskip("dask.array")
    big = da.zeros((2_000_000, 1024), dtype=np.uint8, chunks=(100_000, 1024))  # 2 GB, never computed
    assert not _fits_cluster(client, big)


def _fits_cluster(client, X):
    from pixsel.stats._gram import _fits, _worker_slots

    return _fits(client, _worker_slots(client), [r * X.shape[1] for r in X.chunks[0]])
