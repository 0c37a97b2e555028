"""``--workers N`` / ``--scheduler ADDRESS``: run a command's Dask work on a dask.distributed cluster.

A store (Zarr, HDF5, a folder of images) is opened as a row-chunked Dask array
(:func:`pixsel.datasets.open_store`); the statistics behind every method then run as Dask tasks,
on the threads of this process by default, or on a cluster:

* ``--workers N`` starts a ``LocalCluster`` of ``N`` worker processes (one thread each), used for
  the command and closed when it ends, whatever the outcome;
* ``--scheduler ADDRESS`` connects to a running scheduler (``tcp://host:8786``); its workers
  must be able to import pixsel and to read the store's path.

Progress comes from the scheduler's task stream (tasks finished / tasks known so far), polled
twice a second from a background thread: a bar on a terminal, plain lines with ``--progress``,
nothing with ``-q``. A scheduler that cannot be reached or a bad ``N`` is a user error: one line
on stderr, exit status 2.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

__all__ = ["add_cluster_arguments", "cluster", "wants_cluster"]

#: seconds to wait for ``--scheduler ADDRESS`` to answer before giving up (a user error).
CONNECT_TIMEOUT = 10

#: task states the scheduler has not finished yet.
_PENDING = ("released", "waiting", "no-worker", "queued", "processing")


def add_cluster_arguments(parser):
    """``--workers N`` and ``--scheduler ADDRESS`` (mutually exclusive)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--workers", type=int, default=None, metavar="N",
        help="compute on a local dask.distributed cluster of N worker processes (1 thread each), "
             "started for this command and closed at its end; for large stores (Zarr, HDF5, image "
             "folders), which are then read by the workers chunk by chunk")
    group.add_argument(
        "--scheduler", default=None, metavar="ADDRESS",
        help="compute on the running dask.distributed scheduler at ADDRESS (e.g. tcp://10.0.0.5:8786); "
             "its workers need pixsel and read access to DATA")


def wants_cluster(args) -> bool:
    """True when the command was given ``--workers`` or ``--scheduler``."""
    return getattr(args, "workers", None) is not None or getattr(args, "scheduler", None) is not None


def _client(args):
    """The ``(client, cluster)`` the options ask for; ``cluster`` is None for ``--scheduler``."""
    from ._errors import UsageError

    workers, address = getattr(args, "workers", None), getattr(args, "scheduler", None)
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be an int >= 1 (worker processes to start); got {workers}.")
    try:
        import distributed
    except ImportError:
        raise UsageError("--workers and --scheduler need dask.distributed: pip install pixsel[cluster] "
                         "(or drop the option to compute in this process).") from None
    if workers is not None:
        import logging

        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=logging.ERROR)
        try:
            return distributed.Client(cluster), cluster
        except BaseException:
            cluster.close()
            raise
    try:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT), None
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise UsageError(
            f"cannot reach the Dask scheduler at {address!r} ({reason[:160]}); check the address "
            "(tcp://HOST:PORT) and that the scheduler is running, or use --workers N for a local cluster."
        ) from None


def _make_poll(pending_states):
    """A function run ON the scheduler: (tasks finished so far, tasks not finished yet).

    Defined in a closure so that cloudpickle sends it by value: a remote scheduler does not need
    pixsel installed.
    """

    def poll(dask_scheduler):
        stream = dask_scheduler.plugins.get("task-stream")
        if stream is None:  # the scheduler's own task-stream plugin, as the dashboard uses it
            from distributed.diagnostics.task_stream import TaskStreamPlugin

            stream = TaskStreamPlugin(dask_scheduler)
            dask_scheduler.add_plugin(stream)
        pending = sum(1 for ts in dask_scheduler.tasks.values() if ts.state in pending_states)
        return stream.index, pending

    return poll


class _TaskStreamProgress:
    """Tasks finished on the cluster since the command started, shown as it goes."""

    def __init__(self, client, *, interval=0.5, line_interval=10.0, desc="cluster tasks"):
        from .._progress import is_terminal

        self.client, self.interval, self.line_interval, self.desc = client, interval, line_interval, desc
        self._poll = _make_poll(_PENDING)
        self._start_index = client.run_on_scheduler(self._poll)[0]
        self._stop = threading.Event()
        self._bar = None
        if is_terminal():
            from tqdm import tqdm

            self._bar = tqdm(total=0, desc=desc, unit=" tasks", leave=False)
        self._t0 = time.monotonic()
        self._next_line = self._t0 + line_interval
        self._thread = threading.Thread(target=self._run, name="pixsel-task-stream", daemon=True)
        self._thread.start()

    def _show(self, final=False):
        index, pending = self.client.run_on_scheduler(self._poll)
        done = index - self._start_index
        total = done + pending
        if self._bar is not None:
            self._bar.total = max(total, self._bar.total or 0)
            self._bar.n = done
            self._bar.refresh()
            return
        now = time.monotonic()
        if done and (final or now >= self._next_line):
            self._next_line = now + self.line_interval
            import sys

            print(f"{self.desc}: {done}/{total} done ({now - self._t0:.0f} s)", file=sys.stderr, flush=True)

    def _run(self):
        while not self._stop.wait(self.interval):
            try:
                self._show()
            except Exception:  # the cluster is closing, or the connection broke: the command reports it
                return

    def close(self):
        self._stop.set()
        self._thread.join()
        try:
            self._show(final=True)
        except Exception:
            pass
        if self._bar is not None:
            self._bar.close()


@contextmanager
def cluster(args, *, progress=False):
    """The cluster of ``--workers`` / ``--scheduler`` as the default Dask scheduler, or nothing.

    Yields the ``distributed.Client`` (None without either option). The client, and the local
    cluster of ``--workers``, are closed on exit, also on an error or Ctrl-C.
    """
    if not wants_cluster(args):
        yield None
        return
    client, local = _client(args)
    try:
        bar = _TaskStreamProgress(client) if progress else None
        try:
            yield client
        finally:
            if bar is not None:
                bar.close()
    finally:
        client.close()
        if local is not None:
            local.close()
