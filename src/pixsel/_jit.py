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
argument types that fit will use, and cached.
"""

from __future__ import annotations

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


def _other_kernels():
    """The compiled kernels no estimator fit above reaches on small data: the full-rank backward
    path (Krylov and secular), the n-form backward pass, the batched exact paths and the Gram
    lasso of the kernel dictionary."""
    import numpy as np

    from .projection import lasso_gram_cd
    from .spectral import exact_path_batch, lowrank_backward_path
    from .spectral.greedy import fullrank_greedy_path

    rng = np.random.default_rng(0)
    Y = rng.standard_normal((60, 40))
    C = Y.T @ Y / 60
    fullrank_greedy_path(C, direction="backward")  # the Krylov backward pass
    fullrank_greedy_path(C, direction="backward", method="secular")
    M, U = rng.standard_normal((40, 3)), rng.standard_normal((40, 12))
    for criterion in ("trace", "max-eig"):
        lowrank_backward_path(M, U, 0.5, criterion=criterion)
    Z = rng.standard_normal((4, 20, 6))
    a = rng.standard_normal((4, 6))
    exact_path_batch(np.einsum("ni,nj->nij", a, a), np.einsum("nij,nik->njk", Z, Z) / 20 + 0.1 * np.eye(6))
    G = Y[:, :8].T @ Y[:, :8] / 60
    lasso_gram_cd(G, rng.standard_normal((3, 8)), 0.1)


def warm_up(*, verbose: bool = False) -> dict[str, float]:
    """Fit each estimator with compiled kernels once on small synthetic data; returns the seconds per fit.

    The compiled kernels land in Numba's cache, so that the first fit of a new process loads
    them instead of compiling them. Quiet unless ``verbose``.

    Parameters
    ----------
    verbose : bool, default=False
        Print one line per fit.

    Returns
    -------
    seconds : dict str -> float
        Wall time of each warm-up fit (compilation included the first time).
    """
    import warnings

    from ._routes import compiled_kernels
    from .spectral.exact import _allk

    seconds = {}

    def timed(label, run):
        t = time.perf_counter()
        # compiled whatever the size: small problems take the NumPy kernels otherwise
        with warnings.catch_warnings(), compiled_kernels(True):
            warnings.simplefilter("ignore")  # e.g. a regularization note on the synthetic data
            run()
        seconds[label] = time.perf_counter() - t
        if verbose:
            print(f"compiled: {label} ({seconds[label]:.1f} s)", flush=True)

    for label, est, X, y in _problems():
        timed(label, lambda: est.fit(X) if y is None else est.fit(X, y))
    timed("group paths (whole pixels, image parts)", _group_paths)
    timed("full-rank backward, n-form backward, batched exact paths, Gram lasso", _other_kernels)
    for additive in (True, False):  # exact_path's own first run, which no estimator above makes
        timed(f"exact_path, {'additive' if additive else 'largest eigenvalue'}",
              lambda: _allk._compile_kernels(additive))
    return seconds


if __name__ == "__main__":  # pragma: no cover - python -m pixsel._jit
    total = sum(warm_up(verbose=True).values())
    print(f"pixsel's compiled kernels are in Numba's cache ({total:.0f} s)")
