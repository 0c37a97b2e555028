"""Shared helpers for the benchmark scripts: one argument set, one output convention, timing, memory.

Every script builds its parser with :func:`parser` (``--quick``, ``--threads``, ``--out``), runs
its BLAS work inside :func:`blas_threads`, writes its JSON with :func:`write_results` into
``args.out`` (default ``results/<script>``, or ``$PIXSEL_RESULTS/<script>``) and prints its
ratios. The scripts import the installed ``pixsel`` (``make bench`` installs it); nothing is
inserted into ``sys.path``.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np

import pixsel
from pixsel.io import write_json

__all__ = ["parser", "out_dir", "blas_threads", "write_results", "best_time", "PeakRSS", "previous_path_cv"]


def _default_out(name):
    return Path(os.environ.get("PIXSEL_RESULTS", "results")) / name


def parser(name, description, *, threads=1):
    """An ``ArgumentParser`` with the three options every benchmark has.

    ``--quick`` runs the smoke size (seconds to minutes), ``--threads N`` pins BLAS to ``N``
    threads (default ``threads``; 0 leaves BLAS alone), ``--out DIR`` is where JSON and figures go.
    """
    p = argparse.ArgumentParser(prog=f"{name}.py", description=description)
    p.add_argument("--quick", action="store_true", help="smoke size (the one the tests run)")
    p.add_argument("--threads", type=int, default=threads, help=f"BLAS threads (default {threads}; 0 = unlimited)")
    p.add_argument("--out", type=Path, default=_default_out(name), help=f"output folder (default results/{name})")
    p.set_defaults(benchmark=name)
    return p


def out_dir(args):
    """``args.out``, created."""
    path = Path(args.out)
    path.mkdir(parents=True, exist_ok=True)
    return path


def blas_threads(args_or_n):
    """Context that pins BLAS to ``args.threads`` threads (a no-op for 0 or None)."""
    n = getattr(args_or_n, "threads", args_or_n)
    if not n:
        return nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=int(n), user_api="blas")


def write_results(args, data, name=None):
    """Write ``data`` (plus the benchmark's name, options and pixsel's version) as JSON; return the path."""
    record = {
        "benchmark": args.benchmark,
        "pixsel_version": pixsel.__version__,
        "quick": bool(getattr(args, "quick", False)),
        "threads": getattr(args, "threads", None),
    }
    record.update(data)
    return write_json(out_dir(args) / f"{name or args.benchmark}.json", record)


def best_time(fn, repeat=3):
    """Minimum wall time of ``repeat`` calls (the usual estimate on a noisy machine), and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


class PeakRSS:
    """Peak resident memory of this process above its level at entry, sampled every 5 ms."""

    def __enter__(self):
        import psutil

        self._proc = psutil.Process()
        self.base = self._proc.memory_info().rss
        self.peak = self.base
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._proc.memory_info().rss)
            time.sleep(0.005)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._proc.memory_info().rss)
        self.delta = self.peak - self.base
        return False


# kept while the scripts move to ``args.out``: the folder a script writes into by default
def results_dir(name):
    path = _default_out(name)
    path.mkdir(parents=True, exist_ok=True)
    return path


def previous_path_cv(n_features=None):
    """The public options of ``PathSelectorCV`` that replay how it chose k before its scoring read
    nested supports from running sums, for before/after lines in one run: every support's
    shrinkage LDA scored on its own (an explicit scorer, ``scoring='accuracy'``, takes that route
    and gives the same scores) and, given ``n_features``, the former 'auto' grid (every k up to
    256, then 64 log-spaced values up to p) as an explicit ``k_grid``. The folds' selectors are
    fitted as now (the former fit of each fold at the grid's largest k is not replayed)."""
    options = {"scoring": "accuracy"}
    if n_features is not None:
        p = int(n_features)
        dense = np.arange(1, min(p, 256) + 1)
        tail = np.round(np.geomspace(256, p, 64)).astype(int) if p > 256 else np.zeros(0, dtype=int)
        options["k_grid"] = np.unique(np.concatenate([dense, tail]))
    return options
