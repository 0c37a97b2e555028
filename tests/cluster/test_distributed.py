"""pixsel on a real multi-process dask.distributed cluster: two worker processes, one thread each.

The data live in a Zarr store on disk and are read by the workers (nothing but labels and
metadata on the client); results must equal NumPy's to 1e-10. One worker is killed in the
middle of a computation: the scheduler re-runs its tasks on the survivor (and the nanny restarts
it), or, when every attempt dies, the client gets ``KilledWorker`` and no partial output is left.
"""

import os
import sys

import cloudpickle
import dask
import dask.array as da
import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("zarr")

from pixsel.datasets import open_zarr, write_zarr
from pixsel.selection import SparseLDASelector
from pixsel.stats import class_statistics

# the workers must unpickle the helpers below, and this module is not importable there
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client():
    # allowed-failures=1: a task is re-run after one worker death and given up after two (keeps the
    # "every attempt dies" test to two worker restarts)
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        with distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit="1GiB",
            dashboard_address=":0",
        ) as cluster, distributed.Client(cluster) as c:
            c.run(__import__, "pixsel.stats")  # import once per worker, outside the timed tests
            yield c


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    rng = np.random.default_rng(15)
    n, shape = 1500, (8, 10)
    y = rng.integers(0, 3, n)
    # uint8 images with a class signal in a few pixels and a large common mean (cancellation-prone)
    X = rng.integers(60, 200, (n,) + shape).astype(np.uint8)
    X[:, 2, 3] += (20 * y).astype(np.uint8)
    X[:, 5, 7] += (15 * (y == 1)).astype(np.uint8)
    path = tmp_path_factory.mktemp("cluster") / "images.zarr"
    write_zarr(path, X.reshape(n, -1), y, image_shape=shape, chunk_rows=100)
    return path, X.reshape(n, -1), y


def _close(got, ref, tol=1e-10):
    return np.max(np.abs(got - ref)) <= tol * max(np.max(np.abs(ref)), 1.0)


def _where_tasks_ran(c):
    return {w: len(log) for w, log in c.run(lambda dask_worker: dask_worker.state.log).items()}


def test_class_statistics_from_zarr_equal_numpy(client, store):
    path, X, y = store
    ds = open_zarr(path, chunk_rows=200)
    assert ds.X.npartitions == 8 and ds.image_shape == (8, 10)
    got = class_statistics(ds.X, ds.y)
    ref = class_statistics(X, y)
    assert np.array_equal(got.counts, ref.counts)
    assert _close(got.means, ref.means) and _close(got.within, ref.within)
    assert _close(got.between_factor, ref.between_factor)
    # both worker processes took part (the chunks were read and reduced there)
    assert all(n > 0 for n in _where_tasks_ran(client).values())


class _KeysInMemory(distributed.diagnostics.plugin.SchedulerPlugin):
    """Counts the task results held in the cluster's memory (the scheduler's view), and the most."""

    name = "pixsel-keys-in-memory"

    def __init__(self):
        self.now = self.peak = 0

    def transition(self, key, start, finish, *args, **kwargs):
        self.now += (finish == "memory") - (start == "memory")
        self.peak = max(self.peak, self.now)


def test_chunks_are_read_inside_the_fold_never_ahead_of_it(client, store):
    # each chunk is read by the task that folds it: the cluster never holds more than the chains'
    # accumulators (the current and, until its release, the previous one per chain), however
    # many chunks there are; separate read tasks ran ahead of the chains and piled up
    path, X, y = store
    ds = open_zarr(path, chunk_rows=50)
    assert ds.X.npartitions == 30
    plugin = _KeysInMemory()
    client.cluster.scheduler.add_plugin(plugin)  # a LocalCluster's scheduler lives in this process
    try:
        with distributed.get_task_stream(client) as ts:
            got = class_statistics(ds.X, ds.y)
    finally:
        client.cluster.scheduler.remove_plugin(name=plugin.name)
    ref = class_statistics(X, y)
    assert _close(got.within, ref.within) and _close(got.means, ref.means)
    names = [str(t["key"][0] if isinstance(t["key"], tuple) else t["key"]) for t in ts.data]
    assert len(names) == 30 and all(name.startswith("chunk-") for name in names)  # one task per chunk
    assert len({t["worker"] for t in ts.data}) == 2  # the two chains ran on the two workers
    assert 2 <= plugin.peak <= 4  # 2 chains x (accumulator + its successor)


def test_selector_fit_on_cluster_gives_numpy_support(client, store):
    path, X, y = store
    ds = open_zarr(path, chunk_rows=300)
    two = np.isin(ds.y, [0, 1])
    # two classes from a store: select the rows lazily (the mask is small and on the client)
    Xd = ds.X[two]
    sel = SparseLDASelector(n_features_to_select=4).fit(Xd, ds.y[two])
    ref = SparseLDASelector(n_features_to_select=4).fit(X[two], y[two])
    assert np.array_equal(sel.get_support(), ref.get_support())
    assert sel.get_support()[2 * 10 + 3] and sel.get_support()[5 * 10 + 7]  # the planted pixels
    multi = SparseLDASelector(n_features_to_select=3).fit(ds.X, ds.y)
    assert np.array_equal(multi.get_support(), SparseLDASelector(n_features_to_select=3).fit(X, y).get_support())


def test_transform_runs_on_the_workers_and_streams_to_a_store(client, store, tmp_path):
    path, X, y = store
    ds = open_zarr(path, chunk_rows=300)
    sel = SparseLDASelector(n_features_to_select=5).fit(X, y)  # fitted in memory
    lazy = sel.transform(ds.X)
    assert isinstance(lazy, da.Array) and lazy.chunks == ((300,) * 5, (5,))
    out = write_zarr(tmp_path / "selected.zarr", lazy, ds.y)  # each worker transforms what it reads
    assert np.array_equal(open_zarr(out).X.compute(), sel.transform(X))


def test_nan_in_a_chunk_on_a_worker_is_reported_at_its_global_row(client, store, tmp_path):
    path, X, y = store
    Xf = X.astype(np.float32)
    Xf[1234, 17] = np.nan
    bad = open_zarr(write_zarr(tmp_path / "nan.zarr", Xf, y, chunk_rows=100), chunk_rows=200)
    with pytest.raises(ValueError, match=r"X \(rows 1200 to 1399\) .* the first at index \(1234, 17\)"):
        class_statistics(bad.X, bad.y)


def test_write_zarr_from_workers_round_trips(client, store, tmp_path):
    path, X, y = store
    ds = open_zarr(path, chunk_rows=250)
    out = write_zarr(tmp_path / "copy.zarr", ds.X[:, ::3], ds.y)
    back = open_zarr(out, chunk_rows=250)
    assert back.X.chunks[0][0] == 250
    assert __import__("zarr").open_array(str(out), path="X", mode="r").chunks == (250, 27)
    assert np.array_equal(back.X.compute(), X[:, ::3]) and np.array_equal(back.y, y)
    with pytest.raises(FileExistsError, match="overwrite=True"):
        write_zarr(out, X, y)


def _die(block, marker, always, block_id=None):
    """Kill this worker process while it computes chunk 2 (once, or every time)."""
    if block_id[0] == 2 and (always or not os.path.exists(marker)):
        open(marker, "w").close()
        os._exit(1)
    return block


# the two tests that kill workers come last: the nanny restarts a killed worker in the background
# (slow on a busy machine), and the scheduler waits for one when none is left


def test_killed_worker_mid_computation_is_retried(client, store, tmp_path):
    path, X, y = store
    ds = open_zarr(path, chunk_rows=150)
    marker = tmp_path / "died-once"
    Xk = ds.X.map_blocks(_die, str(marker), False, dtype=ds.X.dtype)
    got = class_statistics(Xk, ds.y)
    assert marker.exists()  # a worker did die in the middle
    ref = class_statistics(X, y)
    assert _close(got.within, ref.within) and _close(got.means, ref.means)


def test_worker_dying_every_time_fails_clearly_without_partial_output(client, store, tmp_path):
    path, X, y = store
    ds = open_zarr(path, chunk_rows=150)
    Xk = ds.X.map_blocks(_die, str(tmp_path / "marker"), True, dtype=ds.X.dtype)
    out = tmp_path / "selected.zarr"
    with pytest.raises(distributed.KilledWorker, match="died while running it"):
        write_zarr(out, Xk[:, :7], ds.y)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["marker"]  # no store, no hidden partial one


def test_dask_lazy_graph_holds_no_data(store):
    # the graph sent to the workers names the store; its size does not grow with the data
    path, X, y = store
    import pickle

    size = len(pickle.dumps(dict(open_zarr(path, chunk_rows=100).X.__dask_graph__())))
    assert size < X.nbytes / 4
    assert isinstance(open_zarr(path).X, da.Array)
