"""Shared helpers for the benchmark scripts (timing, peak memory, results folder)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # run from a checkout


def results_dir(name):
    path = Path(os.environ.get("PIXSEL_RESULTS", "results")) / name
    path.mkdir(parents=True, exist_ok=True)
    return path


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
