"""Shared fixtures. A test that uses ``shared_data`` carries the ``data`` marker automatically.

``shared_data(name)`` returns the arrays of a shared ``.npz`` and ``shared_data.path(name)`` its
path; either skips the test, with the reason, when the file is absent (set ``PIXSEL_DATA``; the
default is the shared folder beside the checkout). Select or deselect the data tests with
``-m data`` / ``-m "not data"``.

scikit-learn's common checks include ``check_array_api_input`` (and ``_same_namespace``,
``_mixed_inputs``) for every estimator that supports the array API; they only run where
``SCIPY_ARRAY_API=1`` was set before SciPy was imported, and skip otherwise. Without that
variable those items are deselected here, not reported as skips:
``tests/array_api/test_estimators.py`` runs scikit-learn's checks under dispatch, in a process
with the variable set, on the estimators and parameters whose array-API behaviour pixsel
specifies (``dispatch_checks.py``). Run the common checks' own variants with
``SCIPY_ARRAY_API=1 pytest -k check_array_api_`` (not all pass yet: with float32 input
scikit-learn expects float32 fitted arrays where pixsel keeps float64, and a few
parameterizations refuse or mix libraries).
"""

import importlib.util
import multiprocessing
import os
import sys

import pytest

from pixsel.datasets import data_dir, load_shared

#: the common checks that need SCIPY_ARRAY_API=1 (check_array_api_input, _same_namespace,
#: _mixed_inputs; tests/array_api/dispatch_checks.py runs them under dispatch)
ARRAY_API_CHECK = "check_array_api_"


def pytest_configure(config):
    """dask.distributed's processes (a ``LocalCluster(processes=True)``'s nannies and workers, and
    the workers a nanny restarts after a test kills one) start from a fork server that has
    imported distributed, NumPy and Dask once, instead of each from a fresh interpreter, as in
    Dask's own test suite: the cluster tests took 57 CPU s with fresh interpreters, 42 this way.
    Set through the environment (read when dask is first imported, after this hook), so a test's
    own process inherits it; ``DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD`` set by the user
    wins. The fork server is stopped, and waited for, when the session ends.

    On a pytest-xdist worker, BLAS and PyTorch get the worker's share of the cores (at least one
    thread): ``-n auto`` starts one worker per core, and each worker's default of one thread per
    core oversubscribes the machine (idle OpenBLAS and OpenMP threads spin). Side by side on a
    2-core machine, 485 tests on 2 workers took 21.5-24.3 CPU s (six runs) against 23.3-25.7 CPU s
    without the BLAS limit; bench_gpu's smoke run (PyTorch's CPU build) 2 CPU s on one PyTorch
    thread against 21 on two. NumPy's and SciPy's BLAS (they may be two libraries) are both loaded
    first, so that both are limited. The processes a test starts (the CLI's, a benchmark's fresh
    interpreters, the array-API checks under dispatch) get the same share through the environment
    (``OMP_NUM_THREADS``, which PyTorch reads too, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``)
    unless it sets them already: tests/array_api/test_estimators.py's process under dispatch
    took 15.8 CPU s with the default threads against 13.7 with one, at load 2.6. They are set
    before scikit-learn and PyTorch load their OpenMP runtime (which reads ``OMP_NUM_THREADS``
    once, when loaded), so the worker's own OpenMP threads get the share too."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        os.environ.setdefault("DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD", "forkserver")
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers:
        share = max(1, (os.cpu_count() or 1) // int(workers))
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, str(share))  # read by every process a test starts

        import scipy.linalg  # noqa: F401  - SciPy's BLAS, loaded before the limit is set
        from threadpoolctl import threadpool_limits

        config._pixsel_blas_limit = threadpool_limits(limits=share, user_api="blas")
        if importlib.util.find_spec("torch") is not None:  # collection imports it anyway (tests/array_api)
            import torch

            torch.set_num_threads(share)


def pytest_unconfigure(config):
    """Stop the fork server of dask's processes, if one was started, and wait for it (its CPU time
    and its children's are then the session's, and no process outlives the session)."""
    server = getattr(sys.modules.get("multiprocessing.forkserver"), "_forkserver", None)
    if getattr(server, "_forkserver_pid", None) is not None and hasattr(server, "_stop"):
        server._stop()


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "shared_data" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.data)
    if os.environ.get("SCIPY_ARRAY_API") == "1":
        return
    needs_dispatch = [item for item in items if ARRAY_API_CHECK in item.name]
    if needs_dispatch:
        config.hook.pytest_deselected(items=needs_dispatch)
        items[:] = [item for item in items if ARRAY_API_CHECK not in item.name]


class _SharedData:
    def path(self, name):
        """Path of a shared data file, or skip the test when it is absent."""
        path = data_dir() / name
        if not path.is_file():
            pytest.skip(f"{name} not found in {path.parent} (set PIXSEL_DATA to pixsel's shared data folder)")
        return path

    def __call__(self, name):
        """All arrays of a shared .npz (dict), or skip the test when it is absent."""
        self.path(name)
        return load_shared(name)


@pytest.fixture
def shared_data():
    """``shared_data(name)`` returns the arrays of a shared .npz, ``shared_data.path(name)`` its path."""
    return _SharedData()


@pytest.fixture
def count_calls(monkeypatch):
    """``count_calls(owner, name)`` wraps ``owner.name`` (a function or method) so that every call
    is recorded, and returns the list the calls are appended to."""

    def wrap(owner, name):
        calls = []
        original = getattr(owner, name)

        def counting(*args, **kwargs):
            calls.append(1)
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counting)
        return calls

    return wrap
