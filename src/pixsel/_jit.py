"""Compile pixsel's Numba kernels ahead of their first use, into Numba's cache.

pixsel's greedy paths and exact searches run Numba-compiled kernels (``@njit(cache=True)``).
Numba compiles a kernel the first time a process calls it and writes the machine code to its
cache: next to the code (``__pycache__``) when that folder is writable, otherwise in the
user's cache folder (Numba's own rule; ``NUMBA_CACHE_DIR`` overrides both). Every later process
loads it in a fraction of a second. Without a cache the first fit pays the compilation: seconds
for the two-class path, more for the full-rank and multiclass kernels. Small problems (fewer than
``pixsel._routes.COMPILED_MIN_FEATURES`` features, such as 8x8 digits) take the NumPy kernels
instead and pay neither (``benchmarks/bench_first_fit.py`` measures first fits with an empty and
a filled cache; ``benchmarks/bench_first_call.py`` every public estimator), until the process
has loaded the compiled kernels of their form for a larger problem: then they run those too.

:func:`warm_up` pays that cost once, ahead (``make test`` runs it after installing;
``python -m pixsel._jit`` runs it by hand): it fits each estimator that has compiled kernels on
a small synthetic problem with the compiled kernels forced (:func:`pixsel._routes.compiled_kernels`),
in float64 and float32, so that every kernel a fit on real images calls is compiled with the
argument types that fit will use, and cached. Numba compiles on one core; with two cores or
more the warm-up runs in two processes at once, each compiling one set of kernels (the two sets
share few), and the processes write Numba's cache in turn (:func:`_cache_writes_in_turn`).
"""

from __future__ import annotations

import contextlib
import os
import time

__all__ = ["warm_up"]


def _problems():
    """``(label, estimator, X, y)`` for every estimator and route that runs compiled kernels."""
    import numpy as np

    from . import GreedySparsePCA, SparseLDASelector, SparsePCASelector

    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 40))
    two, ten = np.arange(120) % 2, np.arange(120) % 10
    X[two == 1, :4] += 1.0
    out = []
    for dtype in (np.float64, np.float32):
        Xd = X.astype(dtype)
        name = np.dtype(dtype).name
        out += [
            (f"SparseLDASelector, 2 classes, {name}", SparseLDASelector(6), Xd, two),
            (f"SparseLDASelector, 10 classes, {name}", SparseLDASelector(6), Xd, ten),
            (f"SparseLDASelector, 10 classes, trace, {name}", SparseLDASelector(6, criterion="trace"), Xd, ten),
            # the largest eigenvalue, both passes: the multiclass secular step and backward loop
            (f"SparseLDASelector, 10 classes, max-eig, dual, {name}",
             SparseLDASelector(6, criterion="max-eig", direction="dual"), Xd, ten),
            (f"SparsePCASelector, {name}", SparsePCASelector(6), Xd, None),
            (f"GreedySparsePCA, {name}", GreedySparsePCA(2), Xd, None),
        ]
    out += [
        ("SparseLDASelector, exact", SparseLDASelector(4, solver="exact", time_limit=30), X[:, :12], two),
        ("SparsePCASelector, exact", SparsePCASelector(4, solver="exact", time_limit=30), X[:, :12], None),
    ]
    return out


def _group_paths():
    """The compiled group steps: a vector forward and backward, sparse PCA forward."""
    import numpy as np

    from .spectral import group_greedy_path

    rng = np.random.default_rng(0)
    Y = rng.standard_normal((60, 24))
    C = Y.T @ Y / 60
    groups = np.arange(24) // 3
    for direction in ("forward", "backward"):
        group_greedy_path(rng.standard_normal(24), C + 0.1 * np.eye(24), groups, direction=direction)
    group_greedy_path(C, None, groups, max_k=4)


def _gram(n=60, p=40):
    import numpy as np

    rng = np.random.default_rng(0)
    Y = rng.standard_normal((n, p))
    return rng, Y, Y.T @ Y / n


def _fullrank_backward():
    """The full-rank backward path, Krylov and secular (no estimator fit reaches it on small data)."""
    from .spectral.greedy import fullrank_greedy_path

    _, _, C = _gram()
    fullrank_greedy_path(C, direction="backward")  # the Krylov backward pass
    fullrank_greedy_path(C, direction="backward", method="secular")


def _nform_backward():
    """The n-form backward pass, both criteria."""
    from .spectral import lowrank_backward_path

    rng, _, _ = _gram()
    M, U = rng.standard_normal((40, 3)), rng.standard_normal((40, 12))
    for criterion in ("trace", "max-eig"):
        lowrank_backward_path(M, U, 0.5, criterion=criterion)


def _batched_exact_paths():
    import numpy as np

    from .spectral import exact_path_batch

    rng = np.random.default_rng(0)
    Z = rng.standard_normal((4, 20, 6))
    a = rng.standard_normal((4, 6))
    exact_path_batch(np.einsum("ni,nj->nij", a, a), np.einsum("nij,nik->njk", Z, Z) / 20 + 0.1 * np.eye(6))


def _gram_lasso():
    """The Gram lasso of the kernel dictionary."""
    from .projection import lasso_gram_cd

    rng, Y, _ = _gram()
    G = Y[:, :8].T @ Y[:, :8] / 60
    lasso_gram_cd(G, rng.standard_normal((3, 8)), 0.1)


def _exact_path(additive):
    from .spectral.exact import _allk

    return lambda: _allk._compile_kernels(additive)  # exact_path's own first run, which no estimator makes


def _jobs():
    """``(label, part, run)`` for every warm-up step, in order. The steps of part 0 (the two-class
    and multiclass kernels, the exact searches) and of part 1 (the full-rank kernels, the group
    steps, the Gram lasso) share few kernels, so that two processes, one per part, compile
    little twice."""
    out = []
    for label, est, X, y in _problems():
        part = 1 if "PCA" in label else 0
        out.append((label, part, lambda est=est, X=X, y=y: est.fit(X) if y is None else est.fit(X, y)))
    return out + [
        ("group paths (whole pixels, image parts)", 1, _group_paths),
        ("full-rank backward (Krylov, secular)", 1, _fullrank_backward),
        ("Gram lasso", 1, _gram_lasso),
        ("n-form backward", 0, _nform_backward),
        ("batched exact paths", 0, _batched_exact_paths),
        ("exact_path, additive", 0, _exact_path(True)),
        ("exact_path, largest eigenvalue", 0, _exact_path(False)),
    ]


@contextlib.contextmanager
def _cache_writes_in_turn(lock_path):
    """Numba's cache keeps one index per function, read, extended and rewritten by each save: two
    processes saving kernels of one function at once could drop each other's entries, or pair an
    entry with the other's machine code. Within this context the processes that hold the same
    ``lock_path`` save in turn (an exclusive ``flock``)."""
    import fcntl

    from numba.core import caching

    original = caching.IndexDataCacheFile.save

    def save(self, key, data):
        with open(lock_path, "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                return original(self, key, data)
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    caching.IndexDataCacheFile.save = save
    try:
        yield
    finally:
        caching.IndexDataCacheFile.save = original


def _can_share_the_cache():
    """Whether two processes can write Numba's cache in turn here (a POSIX ``flock``, and the
    cache class that :func:`_cache_writes_in_turn` wraps)."""
    try:
        import fcntl  # noqa: F401

        from numba.core import caching
    except ImportError:  # pragma: no cover - Windows
        return False
    return callable(getattr(getattr(caching, "IndexDataCacheFile", None), "save", None))


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _run(part, verbose, lock_path=None):
    """Run the steps of ``part`` (None: every step) in this process; the seconds per step."""
    import warnings

    from ._routes import compiled_kernels

    seconds = {}
    with contextlib.ExitStack() as stack:
        if lock_path is not None:
            stack.enter_context(_cache_writes_in_turn(lock_path))
        for label, where, run in _jobs():
            if part is not None and where != part:
                continue
            t = time.perf_counter()
            # compiled whatever the size: small problems take the NumPy kernels otherwise
            with warnings.catch_warnings(), compiled_kernels(True):
                warnings.simplefilter("ignore")  # e.g. a regularization note on the synthetic data
                run()
            seconds[label] = time.perf_counter() - t
            if verbose:
                print(f"compiled: {label} ({seconds[label]:.1f} s)", flush=True)
    return seconds


def warm_up(*, verbose: bool = False, processes: int | None = None) -> dict[str, float]:
    """Fit each estimator with compiled kernels once on small synthetic data; returns the seconds per fit.

    The compiled kernels land in Numba's cache, so that the first fit of a new process loads
    them instead of compiling them. Quiet unless ``verbose``.

    Parameters
    ----------
    verbose : bool, default=False
        Print one line per fit.
    processes : {1, 2} or None, default=None
        Compile in one process, or in two at once (this one and a fresh one, each a set of
        kernels; Numba compiles on one core). None: two where there are two cores or more and
        the processes can take turns writing Numba's cache (POSIX), else one.

    Returns
    -------
    seconds : dict str -> float
        Wall time of each warm-up fit (compilation included the first time).
    """
    from ._routes import require_compiled

    require_compiled("The warm-up of the compiled kernels")
    if processes is None:
        processes = 2 if _cores() >= 2 and _can_share_the_cache() else 1
    if processes not in (1, 2):
        raise ValueError(f"processes must be 1, 2 or None, got {processes!r}")
    if processes == 1:
        return _run(None, verbose)
    import multiprocessing
    import tempfile
    from concurrent.futures import ProcessPoolExecutor

    with tempfile.TemporaryDirectory(prefix="pixsel-jit-") as tmp:
        lock_path = os.path.join(tmp, "numba-cache.lock")
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            other = pool.submit(_run, 1, verbose, lock_path)
            seconds = _run(0, verbose, lock_path)
            seconds.update(other.result())
    return {label: seconds[label] for label, _, _ in _jobs() if label in seconds}


if __name__ == "__main__":  # pragma: no cover - python -m pixsel._jit
    from ._routes import HAVE_NUMBA

    if not HAVE_NUMBA:  # nothing to compile: every fit runs the NumPy kernels, and the exact searches say so
        print("Numba is not installed, so there is nothing to compile: pixsel runs its NumPy kernels. Install it "
              "with `pip install 'pixsel[numba]'` for the exact search and the compiled kernels.")
        raise SystemExit(0)
    _t0 = time.perf_counter()
    warm_up(verbose=True)
    print(f"pixsel's compiled kernels are in Numba's cache ({time.perf_counter() - _t0:.0f} s)")
