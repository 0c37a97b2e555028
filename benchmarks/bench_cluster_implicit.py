"""Forward greedy sparse LDA at p = 65,536 through a Zarr store on a 2-process dask.distributed cluster.

Claim: the image-scale forward path (``SparseLDASelector(k, direction='forward',
algorithm='implicit', refine=False)``: the path alone, without the swaps at ``k``) runs unchanged on a row-chunked Dask array on a cluster: the products
``X^T (X_S - M_S)`` for a block of candidate columns run on the workers, one task per chunk, and
only p-vectors and p x b panels come back (no p x p matrix anywhere: at p = 65,536 one would be
32 GiB). Goals: per-worker peak memory <= 2 GB; time <= 1.5 x (passes over X) x (one distributed
pass); passes reported (goal: at most one per selected feature, fewer with blocking).

Data: 256 x 256 patches (p = 65,536) of ``--classes`` Brodatz textures at seeded random
positions, uint8, written chunk by chunk into a Zarr store with :func:`pixsel.datasets.write_zarr`
and opened with :func:`pixsel.datasets.open_zarr` (the client reads only labels and metadata).
The fit keeps the uint8 row chunks in the workers' memory (``CenteredGramOperator.cached``): the
store is read twice, for the class means and once into the workers for everything else. "One distributed
pass" is the path's own unit: ``CenteredGramOperator.columns`` for a block of ``--block`` columns
(the path's ``block_size``, 32), timed (best of 3) on the same cluster right after the fit, on the
chunks kept in memory as in the path; a pass that reads the store is timed beside it. Passes =
class means + diagonal + blocks of columns + the weights.
Per-worker peak memory is the worker process's lifetime peak RSS (``getrusage``), including the
~0.2 GB of an idle worker. ``--check`` (default with --quick) also runs NumPy on the same data in
memory and compares the paths (1e-10).

The full size is N = 20,000, k = 200 (a 1.3 GB uint8 store, 5.2 GB in float32); the default
here is N = 2,000 (``--n``), which fits the time of a 2-core machine shared with other jobs.

    python benchmarks/bench_cluster_implicit.py             # N = 2000, p = 65536, k = 200
    python benchmarks/bench_cluster_implicit.py --n 20000   # the full size
    python benchmarks/bench_cluster_implicit.py --quick     # N = 400, 64 x 64, k = 20
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import dask
import dask.array as da
import numpy as np
from _common import best_time, blas_threads, out_dir, parser, write_results

from pixsel.datasets import load_shared, open_zarr, write_zarr
from pixsel.selection import SparseLDASelector

#: The path alone, with the ridge of the figures on the documentation's pages ('rda', the default
#: when they were measured). The default regularization, 'ledoit-wolf', computes its intensity through
#: X from the n x n products of the rows (n^2 p operations) before the path.
RIDGE = "rda"


def _patch_block(block, images, codes, seed, size, block_info=None):
    start, stop = block_info[None]["array-location"][0]
    rng = np.random.default_rng([seed, start])
    H, W = images.shape[1:]
    r = rng.integers(0, H - size + 1, stop - start)
    c = rng.integers(0, W - size + 1, stop - start)
    out = np.empty((stop - start, size * size), dtype=np.uint8)
    for i in range(stop - start):
        out[i] = images[codes[start + i], r[i] : r[i] + size, c[i] : c[i] + size].ravel()
    return out


def make_store(path, n, size, n_classes, chunk_rows, seed=0):
    """``n`` uint8 patches of ``size x size`` from the first ``n_classes`` textures, chunk by chunk."""
    d = load_shared("brodatz_112_640x640.npz")
    images = d["X"][:n_classes].reshape(n_classes, 640, 640)
    y = np.arange(n) % n_classes
    template = da.zeros((n, size * size), dtype=np.uint8, chunks=(chunk_rows, size * size))
    X = template.map_blocks(_patch_block, images, y, seed, size, dtype=np.uint8)
    with dask.config.set(scheduler="threads"):
        write_zarr(path, X, y, image_shape=(size, size), overwrite=True)


def _peak_rss():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(argv=None):
    ap = parser("bench_cluster_implicit", __doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=None, help="patches (default 2000; --quick 400; the issue: 20000)")
    ap.add_argument("--size", type=int, default=None, help="patch side (default 256: p = 65536; --quick 64)")
    ap.add_argument("--k", type=int, default=None, help="features to select (default 200; --quick 20)")
    ap.add_argument("--classes", type=int, default=10, help="textures (classes), default 10")
    ap.add_argument("--block", type=int, default=32,
                    help="columns of B in the timed pass (default 32, the path's block_size)")
    ap.add_argument("--chunk-rows", type=int, default=None, help="rows per store chunk (default 250; --quick 100)")
    ap.add_argument("--memory-limit", default="2GiB", help="memory limit of each worker (default 2GiB)")
    ap.add_argument("--store", type=Path, default=None, help="Zarr store to reuse/keep (default: a temporary one)")
    ap.add_argument("--check", action="store_true", help="compare with NumPy in memory (default with --quick)")
    args = ap.parse_args(argv)
    n = args.n or (400 if args.quick else 2000)
    size = args.size or (64 if args.quick else 256)
    k = args.k or (20 if args.quick else 200)
    chunk_rows = args.chunk_rows or (100 if args.quick else 250)
    check = args.check or args.quick
    p = size * size
    out = out_dir(args)

    tmp = None
    store = args.store
    if store is None:
        tmp = Path(tempfile.mkdtemp(prefix="bench-cluster-implicit-", dir=out))
        store = tmp / "patches.zarr"
    try:
        t0 = time.perf_counter()
        ds = open_zarr(store, chunk_rows=chunk_rows) if store.exists() else None
        if ds is None or ds.X.shape != (n, p):
            make_store(store, n, size, args.classes, chunk_rows)
            ds = open_zarr(store, chunk_rows=chunk_rows)
        t_store = time.perf_counter() - t0
        X, y = ds.X, ds.y
        print(f"store: {n:,} Brodatz patches of {size}x{size} (p = {p:,}), {args.classes} textures, uint8, "
              f"{X.npartitions} chunks of {X.chunks[0][0]} rows ({X.nbytes / 2**20:.0f} MiB; made/opened in {t_store:.1f} s)")

        from distributed import Client, LocalCluster

        with blas_threads(args), LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True,
            memory_limit=args.memory_limit, dashboard_address=":0",
        ) as cluster, Client(cluster) as client:
            client.run(__import__, "pixsel.selection")
            t = time.perf_counter()
            sel = SparseLDASelector(k, direction="forward", algorithm="implicit", refine=False, regularization=RIDGE).fit(X, y)
            t_fit = time.perf_counter() - t
            path = sel.forward_path_
            B = path.operator
            passes = B.n_passes
            rng = np.random.default_rng(1)

            def one_pass():
                return B.columns(rng.choice(p, args.block, replace=False))

            with B.cached():
                one_pass()  # reads the chunks into the workers' memory, as the path does first
                t_pass, _ = best_time(one_pass, 3)
            t_read, _ = best_time(one_pass, 1 if n > 5000 else 3)
            peaks = client.run(_peak_rss)
        worker_peak = max(peaks.values())
        err = None
        if check:
            with blas_threads(args):  # the float64 NumPy path, in memory
                Xf = X.compute().astype(np.float64)
                ref = SparseLDASelector(k, direction="forward", algorithm="implicit", refine=False, regularization=RIDGE).fit(Xf, y)
                del Xf
            same_order = bool(np.array_equal(ref.forward_path_.order, path.order))
            err = float(np.max(np.abs(ref.objective_path_ - sel.objective_path_) / np.abs(ref.objective_path_)))
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    gb = 2**30
    ratio = t_fit / (passes * t_pass)
    col = path.info["n_column_passes"]
    print(f"\nSparseLDASelector({k}, forward, implicit) on a LocalCluster (2 processes x 1 thread, "
          f"memory limit {args.memory_limit}), blocks of {args.block} columns")
    print(f"{'fit (s)':>9s} {'passes':>7s} {'1 pass (s)':>11s} {'fit / (passes x pass)':>22s} {'worker peak (GiB)':>18s}")
    print(f"{t_fit:9.2f} {passes:7d} {t_pass:11.3f} {ratio:22.2f} {worker_peak / gb:18.2f}")
    print(f"one pass that reads the store instead of the kept chunks: {t_read:.3f} s "
          f"({t_read / t_pass:.2f} x the kept-chunk pass)")
    print(f"passes: 1 (class means) + 1 (diagonal) + {col} (blocks of columns of B, for {k} features: "
          f"{col / k:.2f} per feature) + 1 (weights) (goal <= one per feature): {'met' if col <= k else 'NOT met'}")
    print(f"time ratio (goal <= 1.5): {'met' if ratio <= 1.5 else 'NOT met'}; per-worker peak (goal <= 2 GB): "
          f"{'met' if worker_peak <= 2e9 else 'NOT met'}; largest array on the client: p x {2 * args.block} "
          f"float64 ({p * 2 * args.block * 8 / 2**20:.0f} MiB), no p x p ({p * p * 8 / gb:.0f} GiB)")
    if check:
        print(f"NumPy float64 in memory: same order {same_order}, largest relative objective difference {err:.1e}")
    res = write_results(args, {
        "n": n, "p": p, "k": k, "classes": args.classes, "block": args.block, "chunks": X.npartitions,
        "chunk_rows": X.chunks[0][0], "fit_seconds": t_fit, "passes": passes, "column_passes": col,
        "pass_seconds": t_pass, "store_pass_seconds": t_read, "ratio": ratio, "worker_peak_bytes": worker_peak,
        "memory_limit": args.memory_limit, "numpy_max_rel_diff": err,
        "objective": path.objective, "order": path.order,
    })
    print(f"results: {res}")
    if check:
        assert same_order and err <= 1e-10, "the cluster path differs from NumPy's"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
