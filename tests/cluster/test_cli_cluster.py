"""``pixsel select|scores STORE --workers N | --scheduler ADDRESS`` on a real 2-process cluster.

One ``LocalCluster`` of two worker processes serves the ``--scheduler`` tests (the workers read
the Zarr store); one ``--workers 2`` run starts and closes its own. Results equal the in-memory
command on the same data; bad options and an unreachable scheduler exit 2 with one line.
"""

import json
import multiprocessing.forkserver

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("zarr")
psutil = pytest.importorskip("psutil")

from pixsel.cli import main
from pixsel.cli import _cluster
from pixsel.datasets import write_zarr


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(3)
    n, shape = 600, (6, 8)
    y = rng.integers(0, 2, n)
    X = rng.integers(60, 200, (n,) + shape).astype(np.uint8)
    X[:, 2, 3] += (30 * y).astype(np.uint8)  # the planted pixel
    X[:, 4, 6] += (12 * y).astype(np.uint8)
    root = tmp_path_factory.mktemp("cli-cluster")
    store = write_zarr(root / "images.zarr", X.reshape(n, -1), y, image_shape=shape, chunk_rows=100)
    npz = root / "images.npz"
    np.savez(npz, X=X.reshape(n, -1), y=y, image_shape=np.array(shape))
    return store, npz


@pytest.fixture(scope="module")
def address():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB",
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _tasks_per_worker(address):
    with distributed.Client(address) as c:
        return {w: len(log) for w, log in c.run(lambda dask_worker: dask_worker.state.log).items()}


def test_select_on_a_running_scheduler_equals_in_memory_with_task_stream_progress(data, address, tmp_path, capsys):
    store, npz = data
    before = _tasks_per_worker(address)
    out = tmp_path / "sel"
    assert main(["select", str(store), "-k", "3", "--scheduler", address, "--progress", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "cluster tasks:" in captured.err and " done (" in captured.err  # fed by the task stream
    got = json.loads((out / "selection.json").read_text())
    assert main(["select", str(npz), "-k", "3", "-q", "-o", str(tmp_path / "ref")]) == 0
    ref = json.loads((tmp_path / "ref" / "selection.json").read_text())
    assert got["indices"] == ref["indices"] and 2 * 8 + 3 in got["indices"]
    assert got["objective"] == pytest.approx(ref["objective"], rel=1e-10)
    assert got["image_shape"] == [6, 8] and got["class_names"] == ["0", "1"]
    assert (out / "mask.png").stat().st_size > 0
    after = _tasks_per_worker(address)
    # the workers computed (the store is one chunk at pixsel's default chunking, read and reduced
    # by one task: the worker that runs it)
    assert sum(after.values()) > sum(before.values())


def test_scores_on_a_running_scheduler(data, address, tmp_path, capsys):
    store, npz = data
    out = tmp_path / "sc"
    assert main(["scores", str(store), "--rank", "4", "--scheduler", address, "-o", str(out)]) == 0
    report = json.loads((out / "scores.json").read_text())
    assert set(report["scores"]) == {"subspace_m4", "variance", "supervised_laplacian", "fisher"}
    assert "Laplacian score was skipped" in capsys.readouterr().out
    assert main(["scores", str(npz), "--rank", "4", "-q", "-o", str(tmp_path / "ref")]) == 0
    ref = json.loads((tmp_path / "ref" / "scores.json").read_text())
    for name in ("variance", "fisher", "subspace_m4"):
        np.testing.assert_allclose(report["scores"][name]["scores"], ref["scores"][name]["scores"],
                                   rtol=1e-8, atol=1e-12)
    assert int(np.argmax(report["scores"]["fisher"]["scores"])) == 2 * 8 + 3


def test_nan_in_the_store_is_one_line_and_no_output(address, tmp_path, capsys):
    X = np.ones((300, 5))
    X[217, 3] = np.nan
    store = write_zarr(tmp_path / "nan.zarr", X, np.arange(300) % 2, chunk_rows=50)
    out = tmp_path / "nan-out"
    assert main(["select", str(store), "-k", "2", "--scheduler", address, "-q", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "NaN" in err[0] and "217" in err[0]
    assert not out.exists()


def test_workers_starts_a_local_cluster_and_closes_it(data, tmp_path, capsys):
    store, _ = data
    # the fork server that starts dask's processes in this suite (tests/conftest.py) is started
    # first: it stays, the processes it starts for the command must not
    if distributed.utils.get_mp_context().get_start_method() == "forkserver":
        multiprocessing.forkserver.ensure_running()
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    out = tmp_path / "w"
    assert main(["select", str(store), "-k", "2", "--workers", "2", "-q", "-o", str(out)]) == 0
    assert json.loads((out / "selection.json").read_text())["indices"][:1] == [2 * 8 + 3]
    alive = [p for p in me.children(recursive=True) if p.pid not in before]
    gone, alive = psutil.wait_procs(alive, timeout=30)
    assert not alive  # the worker processes and their nannies are closed on exit


@pytest.mark.parametrize("option, message", [
    (["--workers", "0"], "--workers must be an int >= 1"),
    (["--scheduler", "tcp://127.0.0.1:1"], "cannot reach the Dask scheduler at 'tcp://127.0.0.1:1'"),
])
def test_bad_cluster_options_exit_2_in_one_line(data, tmp_path, capsys, monkeypatch, option, message):
    monkeypatch.setattr(_cluster, "CONNECT_TIMEOUT", 1)
    store, _ = data
    out = tmp_path / "bad"
    assert main(["select", str(store), "-k", "2", *option, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and err[0].startswith("pixsel select: error:")
    assert not out.exists()


def test_workers_and_scheduler_are_exclusive(data, capsys):
    store, _ = data
    with pytest.raises(SystemExit) as exc:
        main(["select", str(store), "-k", "2", "--workers", "2", "--scheduler", "tcp://x:1"])
    assert exc.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_other_commands_read_a_store_into_memory(data, tmp_path, capsys):
    store, _ = data
    out = tmp_path / "path"
    assert main(["path", str(store), "-o", str(out)]) == 0
    assert "read the store into memory" in capsys.readouterr().out
    assert json.loads((out / "path.json").read_text())["n_samples"] == 600
