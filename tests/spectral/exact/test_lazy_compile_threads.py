"""The exact search's lazily compiled kernels, first called from several threads at once.

``exact_spca_path(n_jobs=2)`` starts its searches on threads, and in a fresh process the first of
them wrap the Numba helpers of :mod:`pixsel.spectral.exact._batch_numba` (the variable fixing's
``drop_values``) on their first call. Two threads doing that at once wrapped an already compiled
helper: Numba's TypeError, seen as ``pixsel path ... --n-jobs 2`` failing in a fresh process. The
oracle: four threads released together by a barrier in a fresh interpreter, each calling every
lazily compiled entry point; none may raise, and each kernel is wrapped once.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("numba")

SRC = Path(__file__).resolve().parents[3] / "src"

SCRIPT = textwrap.dedent("""
    import threading
    import numpy as np
    from pixsel.spectral.exact import _allk_enum, _allk_numba, _batch_numba

    barrier = threading.Barrier(4)
    errors = []

    def first_calls():
        barrier.wait()
        try:
            _batch_numba.drop_values(np.array([3.0, 2.0, 1.0]), np.eye(3), np.array([0, 1, 2]))
            _allk_numba._compiled_kernel()
            _allk_enum._compiled_kernel()
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=first_calls) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(_batch_numba._compiled) == len(_batch_numba._compiled_drop) == 1
    assert len(_allk_numba._compiled) == len(_allk_enum._compiled) == 1
    print("wrapped once")
""")


def test_first_calls_from_four_threads_wrap_each_kernel_once():
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "wrapped once" in proc.stdout
