"""The array-API path against the NumPy path, side by side in one run.

Times what users call on the same data held by each library: the statistics of ``n x p`` images
(:func:`pixsel.stats.class_statistics`, :func:`pixsel.stats.column_moments`) and a whole
selection, ``SubspaceScoreSelector(...).fit`` under ``sklearn.config_context(array_api_dispatch=True)``
(Krylov SVD + scores + selection), and the dual greedy path of a two-class pair ``(a, B)``
(:func:`pixsel.spectral.greedy_path` forward and backward: on a non-NumPy library the blocked
elimination runs on its device), then the other estimators that follow X under dispatch, fitted
on the first ``--select-p`` columns: ``SparseLDASelector`` with two classes (binary path) and
with three (the factor path), ``SparsePCASelector`` (covariance and full-rank forward path to
``k`` on the device, the refinement on the host) and ``CardinalSPLSSelector``. Libraries: NumPy (CPU); array-api-strict, the bare standard
over NumPy with the same BLAS, which isolates the cost of pixsel's array-API code; PyTorch on
the CPU; and, only when present (detected, never required), PyTorch on CUDA and CuPy. The goal
on a CPU is an array-API path no slower than 1.2 x NumPy's; each row prints ``library / numpy``.
A first row times each library's own ``X^T X``: PyTorch's CPU wheel brings its own BLAS (MKL),
so its rows are read against that ratio.

Fair play: the data are converted to each library before timing (a user's data already live
there); BLAS and PyTorch's own thread pool get the same ``--threads``; every time is the best of 3
and a device is synchronised before the clock stops. float32 rows: NumPy accumulates the
statistics in float64 (its documented policy), the device libraries in float32.

Two columns per library: ``public`` is what a user gets (pixsel's CPU policy: on a CPU device the
NumPy kernels run on zero-copy views of the arrays and the results come back in the library, so
the goal is ``public <= 1.2 x numpy``); ``kernels`` forces the array-API kernels on the CPU
(the public switch :func:`pixsel.config.array_api_kernels`), which is what runs
on a GPU and shows what the policy saves. On a GPU (torch-cuda, CuPy) only ``public`` is timed:
the policy runs the array-API kernels there.

The full size is 200,000 x 4096 images; on the 2-core, 24 GiB shared machine the default is
``n = 20,000`` (``--n`` to change; 200,000 x 4096 float64 is 6.5 GB per copy).
"""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # scikit-learn's dispatch needs it before SciPy loads

import time

import numpy as np
import sklearn

from _common import best_time, blas_threads, parser, write_results
from pixsel.config import array_api_kernels
from pixsel.selection import (
    CardinalSPLSSelector,
    SparseLDASelector,
    SparsePCASelector,
    SubspaceScoreSelector,
)
from pixsel.spectral import greedy_path
from pixsel.stats import class_statistics, column_moments


def _libraries():
    """(name, to-library converter, synchronise) for every library present."""
    libs = [("numpy", lambda a: a, lambda: None)]
    try:  # the standard over NumPy (same BLAS): the cost of pixsel's array-API code itself
        import array_api_strict

        libs.append(("array-api-strict", array_api_strict.asarray, lambda: None))
    except ImportError:  # pragma: no cover - in the arrayapi extra
        pass
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is in the arrayapi extra
        return libs
    libs.append(("torch-cpu", lambda a: torch.asarray(a), lambda: None))
    # (a GPU library's name carries no "cpu"/"strict": only its public path is timed, see main)
    if torch.cuda.is_available():  # pragma: no cover - only with a GPU
        libs.append(("torch-cuda", lambda a: torch.asarray(a, device="cuda"), torch.cuda.synchronize))
    try:  # pragma: no cover - only with a GPU
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        libs.append(("cupy", cupy.asarray, cupy.cuda.Device().synchronize))
    except Exception:
        pass
    return libs


def _on_cpu(name):
    """Whether a library row runs on the CPU (the policy then runs NumPy's kernels)."""
    return name in ("array-api-strict", "torch-cpu")


def _timed(fn, sync, repeat):
    """Best of ``repeat`` (one run only when the first takes over 20 s: long runs are stable)."""
    def run():
        out = fn()
        sync()
        return out

    first = best_time(run, 1)[0]
    return first if first > 20 else min(first, best_time(run, repeat - 1)[0])


def _dual_path(a, B):
    """The dual greedy path: forward and backward, as SparseLDASelector's 'greedy' solver runs them."""
    return greedy_path(a, B, direction="forward"), greedy_path(a, B, direction="backward")


def main(argv=None):
    p = parser("bench_array_api", __doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=None, help="rows of the statistics benchmark (default 20,000; quick 2,000)")
    p.add_argument("--p", type=int, default=None, help="features (default 4096; quick 1024)")
    p.add_argument("--path-p", default=None,
                   help="comma-separated p of the dual greedy path (default 1024,4096; quick 256)")
    p.add_argument("--implicit-n", type=int, default=2000, help="rows of the implicit row (default 2000)")
    p.add_argument("--implicit-p", type=int, default=8192, help="features of the implicit row (default 8192)")
    p.add_argument("--public-only", action="store_true",
                   help="time only the public path (skip the forced array-API kernels on the CPU)")
    p.add_argument("--select-p", type=int, default=None,
                   help="features of the selector rows (default 1024; quick 32)")
    args = p.parse_args(argv)
    sel_p = args.select_p or (32 if args.quick else 1024)
    k_sel = min(32, sel_p // 4)
    path_ps = [int(v) for v in (args.path_p or ("256" if args.quick else "1024,4096")).split(",")]
    n = args.n or (2_000 if args.quick else 20_000)
    pf = args.p or (1024 if args.quick else 4096)
    repeat = 3
    try:
        import torch

        if args.threads:
            torch.set_num_threads(args.threads)
    except ImportError:  # pragma: no cover
        pass

    rng = np.random.default_rng(0)
    X64 = rng.standard_normal((n, pf)) + 100.0
    y = (rng.random(n) < 0.5).astype(np.int64)
    X32 = X64.astype(np.float32)
    libs = _libraries()

    def gemm(X, yy):  # the library's own X^T X: how fast its BLAS is, next to NumPy's
        return X.T @ X

    tasks = {
        "raw X^T X float64 (the library's BLAS)": (X64, gemm),
        "class_statistics float64": (X64, lambda X, yy: class_statistics(X, yy)),
        "class_statistics float32": (X32, lambda X, yy: class_statistics(X, yy)),
        "column_moments float64": (X64, lambda X, yy: column_moments(X)),
        "SubspaceScoreSelector.fit float64": (
            X64, lambda X, yy: SubspaceScoreSelector(64, rank=20, random_state=0).fit(X)),
        "SubspaceScoreSelector.fit float32": (
            X32, lambda X, yy: SubspaceScoreSelector(64, rank=20, random_state=0).fit(X)),
    }
    y3 = rng.integers(0, 3, n)
    Xs = np.ascontiguousarray(X64[:, :sel_p])
    Xs[:, :8] += 0.3 * y3[:, None]  # a few informative pixels for the three-class rows
    tasks.update({
        f"SparseLDASelector.fit 2 classes p={sel_p}": (Xs, lambda X, yy: SparseLDASelector(k_sel).fit(X, yy)),
        f"SparseLDASelector.fit 3 classes p={sel_p}": (
            (Xs, y3), lambda Xy, yy: SparseLDASelector(k_sel, direction="forward").fit(*Xy)),
        f"SparsePCASelector.fit k={k_sel} p={sel_p}": (Xs, lambda X, yy: SparsePCASelector(k_sel).fit(X)),
        f"CardinalSPLSSelector.fit p={pf}": (X64, lambda X, yy: CardinalSPLSSelector(min(64, pf // 2), n_components=3).fit(X, yy)),
    })
    # the implicit path (image scale: N < p, no p x p matrix): the passes over X on its device
    n_imp, p_imp = (200, 256) if args.quick else (args.implicit_n, args.implicit_p)
    Xi = np.ascontiguousarray(X64[:n_imp, :p_imp]) if n >= n_imp and pf >= p_imp else \
        rng.standard_normal((n_imp, p_imp)) + 100.0
    yi = (rng.random(n_imp) < 0.5).astype(np.int64)
    Xi[:, :8] += 0.5 * yi[:, None]
    tasks[f"SparseLDASelector.fit implicit N={n_imp} p={p_imp} k={k_sel}"] = (
        (Xi, yi), lambda Xy, yy: SparseLDASelector(k_sel, algorithm="implicit").fit(*Xy))
    for pp in path_ps:  # (a, B) of a two-class problem: B a well-conditioned within-class scatter
        Z = rng.standard_normal((2 * pp, pp))
        Bp = Z.T @ Z / (2 * pp) + 0.05 * np.eye(pp)
        tasks[f"dual greedy path p={pp}"] = ((rng.standard_normal(pp), Bp), lambda ab, yy: _dual_path(*ab))
    rows = []
    with blas_threads(args), sklearn.config_context(array_api_dispatch=True):
        for task, (X, fn) in tasks.items():
            is_path = isinstance(X, tuple) and X[0].ndim == 1
            cols = X[0].shape[1] if isinstance(X, tuple) and not is_path else X[0].shape[0] if is_path else X.shape[1]
            row = {"task": task, "p": cols, "seconds": {},
                   "n": None if is_path else (X[0].shape[0] if isinstance(X, tuple) else X.shape[0])}
            for name, conv, sync in libs:
                Xl = tuple(conv(m) for m in X) if isinstance(X, tuple) else conv(X)
                yl = conv(y)
                sync()
                row["seconds"][name] = _timed(lambda: fn(Xl, yl), sync, repeat)
                if name != "numpy" and _on_cpu(name) and not args.public_only and not task.startswith("raw"):
                    with array_api_kernels():  # the array-API kernels on the CPU (what a GPU runs)
                        row["seconds"][f"{name} kernels"] = _timed(lambda: fn(Xl, yl), sync, repeat)
                Xl = yl = None  # free the converted copies before the next library
            rows.append(row)
            ref = row["seconds"]["numpy"]
            cells = []
            for name, _, _ in libs[1:]:
                cell = f"{name} {row['seconds'][name] / ref:5.2f}x"
                if f"{name} kernels" in row["seconds"]:
                    cell += f" (kernels {row['seconds'][f'{name} kernels'] / ref:5.2f}x)"
                cells.append(cell)
            size = f"p={row['p']}" if row["n"] is None else f"n={row['n']} p={row['p']}"
            print(f"{task:50s} {size:15s} numpy {ref:8.3f}s | " + " | ".join(cells), flush=True)

    # the figure the README quotes: array-API path / NumPy path per task (goal on a CPU: <= 1.2)
    summary = {r["task"]: {k: v / r["seconds"]["numpy"] for k, v in r["seconds"].items() if k != "numpy"}
               for r in rows}
    # the goal is about pixsel's paths: the raw X^T X row only shows each library's own BLAS
    worst = max((v for t, r in summary.items() if not t.startswith("raw") for k, v in r.items() if _on_cpu(k)),
                default=float("nan"))
    print(f"worst public path on a CPU / NumPy: {worst:.2f}x (goal <= 1.2: {'met' if worst <= 1.2 else 'NOT met'};"
          " the raw X^T X row excluded)")
    path = write_results(args, {"rows": rows, "ratio_to_numpy": summary, "libraries": [lb[0] for lb in libs],
                                "timestamp": time.strftime("%Y-%m-%d %H:%M:%S")})
    print(f"results: {path}")


if __name__ == "__main__":
    main()
