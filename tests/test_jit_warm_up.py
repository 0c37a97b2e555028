"""warm_up() leaves every compiled kernel a first fit on real images needs in Numba's cache: a
fresh process then loads them (cache hits) and compiles nothing (no cache miss)."""

import json
import os
import subprocess
import sys

_FIRST_FIT = r"""
import json, sys
import numpy as np
from sklearn.datasets import load_digits
from pixsel import SparseLDASelector, SparsePCASelector
from pixsel._routes import compiled_kernels
X, y = load_digits(return_X_y=True)
with compiled_kernels(True):  # digits are small enough for the NumPy kernels: force the compiled ones
    SparseLDASelector(8).fit(X, y % 2)
    SparseLDASelector(8).fit(X, y)
    SparsePCASelector(8).fit(X.astype(np.float32))
from pixsel.spectral import exact_path
rng = np.random.default_rng(0)
G = rng.standard_normal((60, 30))
exact_path(rng.standard_normal(30), G.T @ G / 60 + 0.1 * np.eye(30), max_k=6)
misses, hits = {}, 0
for name, mod in list(sys.modules.items()):
    if not name.startswith("pixsel."):
        continue
    for attr, obj in list(vars(mod).items()):
        stats = getattr(obj, "stats", None)
        if stats is not None and hasattr(obj, "signatures") and hasattr(stats, "cache_misses"):
            hits += sum(stats.cache_hits.values())
            if stats.cache_misses:
                misses[f"{name}.{attr}"] = [str(s) for s in stats.cache_misses]
print(json.dumps({"hits": hits, "misses": misses}))
"""


def test_warm_up_fills_the_cache_a_first_fit_reads():
    # Numba's own cache (next to the code, or the user's cache folder): make install already warmed
    # it, so this is quick; an empty cache takes the warm-up's minute here
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    warm = subprocess.run([sys.executable, "-m", "pixsel._jit"], capture_output=True, text=True, env=env,
                          timeout=900)
    assert warm.returncode == 0, warm.stderr
    assert "compiled: SparseLDASelector, 2 classes, float64" in warm.stdout
    assert "compiled: exact_path, additive" in warm.stdout and "compiled: exact_path, largest eigenvalue" in warm.stdout
    first = subprocess.run([sys.executable, "-c", _FIRST_FIT], capture_output=True, text=True, env=env, timeout=900)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout.strip().splitlines()[-1])
    assert report["misses"] == {}  # nothing compiled in the fresh process
    assert report["hits"] > 0  # the kernels were loaded from the cache


def test_cache_writes_take_turns(tmp_path, monkeypatch):
    """The two warm-up processes save to Numba's cache in turn: a save waits while another
    process holds the lock, and the cache class is restored afterwards."""
    import threading

    import pytest
    from numba.core import caching

    fcntl = pytest.importorskip("fcntl")  # POSIX: elsewhere the warm-up compiles in one process

    from pixsel._jit import _cache_writes_in_turn

    saved = []
    monkeypatch.setattr(caching.IndexDataCacheFile, "save", lambda self, key, data: saved.append(key))
    unwrapped = caching.IndexDataCacheFile.save
    lock = tmp_path / "lock"
    with _cache_writes_in_turn(str(lock)):
        with open(lock, "a") as other:  # another process's hold on the lock (its own open file)
            fcntl.flock(other, fcntl.LOCK_EX)
            save = threading.Thread(target=caching.IndexDataCacheFile.save, args=(None, "key", b""))
            save.start()
            save.join(0.3)
            assert save.is_alive() and saved == []  # waiting for the lock
            fcntl.flock(other, fcntl.LOCK_UN)
        save.join(30)
        assert saved == ["key"]
    assert caching.IndexDataCacheFile.save is unwrapped
