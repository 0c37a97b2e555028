"""Class statistics of uint8 images in a Zarr store: a 2-process dask.distributed cluster vs threads.

Claim: on a store of n uint8 images of p pixels (the target size: 10^6 x 4096, 4 GB),
``pixsel.stats.class_statistics`` on a ``LocalCluster`` of 2 worker processes (1 thread each)
runs within 1.5 x the time of the same call on Dask's threaded scheduler in one process (2
threads), with a per-worker peak memory <= 2 GB, and equals NumPy to 1e-10 on a subset.

Both runs read the same store with :func:`pixsel.datasets.open_zarr` (the client reads only the
labels and the metadata), BLAS pinned to one thread per task in both (``--threads``; the nanny
sets it for the workers). The store is written once, before the timings, and removed at the end
unless ``--store`` names one to keep and reuse.

Per-worker peak memory is the worker process's lifetime peak RSS (``getrusage``), which includes
the ~0.2 GB of an idle worker with pixsel imported; the threaded run reports its peak above the
level at entry. Default size: 65,536 x 4096 (0.25 GiB, 16 chunks; 13 minutes measured on this
2-core machine while shared with other jobs at load ~14, a few minutes idle); ``--n 1000000`` for
the full 4 GB.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import dask
import dask.array as da
import numpy as np
from _common import PeakRSS, best_time, blas_threads, out_dir, parser, write_results

from pixsel.datasets import open_zarr, write_zarr
from pixsel.stats import class_statistics


def _make_block(block, seed, shift, block_info=None):
    (start, stop) = block_info[None]["array-location"][0]
    rng = np.random.default_rng([seed, start])
    X = rng.integers(0, 200, (stop - start, block.shape[1]), dtype=np.uint8)
    X[:, : shift.shape[1]] += shift[start:stop]  # the class signal on the first pixels
    return X


def make_store(path, n, p, seed=0, chunk_rows=None):
    """n uint8 images of p pixels in two classes, written chunk by chunk (never all in memory)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(np.int8)
    shift = (y[:, None] * np.arange(1, 9, dtype=np.uint8)[None, :]).astype(np.uint8)  # n x 8
    rows = chunk_rows or max(1, (128 * 2**20) // (8 * p))
    template = da.zeros((n, p), dtype=np.uint8, chunks=(rows, p))
    X = template.map_blocks(_make_block, seed, shift, dtype=np.uint8)
    side = int(round(p**0.5))
    image_shape = (side, side) if side * side == p else None
    with dask.config.set(scheduler="threads"):
        write_zarr(path, X, y, image_shape=image_shape, overwrite=True)
    return y


def _store_bytes(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def _rel(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def _peak_rss():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _rss():
    import psutil

    return psutil.Process().memory_info().rss


def main(argv=None):
    ap = parser("bench_cluster_stats", __doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=None, help="images (default 65,536; --quick 4,000)")
    ap.add_argument("--p", type=int, default=None, help="pixels per image (default 4096; --quick 256)")
    ap.add_argument("--store", type=Path, default=None,
                    help="Zarr store to reuse/keep (default: a temporary one); a larger one is read by its first N rows")
    ap.add_argument("--chunk-rows", type=int, default=None,
                    help="rows per chunk (default: pixsel's, 128 MiB of float64; --quick 500)")
    ap.add_argument("--memory-limit", default="2GiB", help="memory limit of each worker (default 2GiB)")
    args = ap.parse_args(argv)
    n = args.n or (4_000 if args.quick else 65_536)
    p = args.p or (256 if args.quick else 4096)
    chunk_rows = args.chunk_rows or (500 if args.quick else None)
    repeat = 3 if args.quick else 1
    out = out_dir(args)

    tmp = None
    store = args.store
    if store is None:
        tmp = Path(tempfile.mkdtemp(prefix="bench-cluster-", dir=out))
        store = tmp / "images.zarr"
    try:
        t0 = time.perf_counter()
        ds = open_zarr(store, chunk_rows=chunk_rows) if store.exists() else None
        if ds is None or ds.X.shape[1] != p or ds.X.shape[0] < n:
            make_store(store, n, p, chunk_rows=chunk_rows)
            ds = open_zarr(store, chunk_rows=chunk_rows)
        t_write = time.perf_counter() - t0
        X, y = ds.X[:n], ds.y[:n]  # a larger kept store: its first n rows (lazily)
        print(f"store {store}: {n:,} x {p} uint8 (of {ds.X.shape[0]:,} rows), {X.npartitions} chunks of "
              f"{X.chunks[0][0]} rows, {_store_bytes(store) / 2**30:.2f} GiB on disk (made/opened in {t_write:.1f} s)")

        # 1. Dask's threaded scheduler in this process, 2 threads, BLAS 1 thread per task
        with blas_threads(args), dask.config.set(scheduler="threads", num_workers=2), PeakRSS() as mem:
            t_thr, st_thr = best_time(lambda: class_statistics(X, y), repeat)
        thr_peak = mem.delta

        # 2. a LocalCluster of 2 worker processes, 1 thread each
        from distributed import Client, LocalCluster

        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True,
            memory_limit=args.memory_limit, dashboard_address=":0",
        ) as cluster, Client(cluster) as client:
            client.run(__import__, "pixsel.stats")
            base = client.run(_rss)
            t_cl, st_cl = best_time(lambda: class_statistics(X, y), repeat)
            peaks = client.run(_peak_rss)
            # equality to NumPy on a subset (the first m rows, loaded here)
            m = min(n, 16_384)
            ref = class_statistics(X[:m].compute(), y[:m])
            sub = class_statistics(X[:m], y[:m])
        worker_peak = max(peaks.values())
        worker_delta = max(peaks[w] - base[w] for w in peaks)
        err_sub = max(_rel(sub.within, ref.within), _rel(sub.means, ref.means))
        err_full = max(_rel(st_cl.within, st_thr.within), _rel(st_cl.means, st_thr.means))
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    ratio = t_cl / t_thr
    gb = 2**30
    rows = [
        ("threads (1 process, 2 threads)", t_thr, thr_peak / gb, "peak above entry"),
        ("LocalCluster (2 processes x 1 thread)", t_cl, worker_peak / gb, "per-worker peak RSS"),
    ]
    print(f"\nclass_statistics of {n:,} x {p} uint8 from Zarr ({'best of 3' if repeat == 3 else 'one run'} each)")
    print(f"{'scheduler':40s} {'time (s)':>9s} {'peak (GiB)':>11s}")
    for name, t, peak, what in rows:
        print(f"{name:40s} {t:9.2f} {peak:11.2f}  ({what})")
    print(f"cluster / threads time ratio: {ratio:.2f} (goal <= 1.5)")
    print(f"per-worker peak: {worker_peak / gb:.2f} GiB ({worker_delta / gb:.2f} GiB above the idle worker; goal <= 2)")
    print(f"max relative difference: cluster vs NumPy on {m:,} rows {err_sub:.1e}; cluster vs threads, all rows {err_full:.1e}")
    path = write_results(args, {
        "n": n, "p": p, "chunks": X.npartitions, "chunk_rows": X.chunks[0][0], "repeat": repeat,
        "store_seconds": t_write, "threads_seconds": t_thr, "cluster_seconds": t_cl, "ratio": ratio,
        "threads_peak_bytes": thr_peak, "worker_peak_bytes": worker_peak, "worker_peak_above_idle_bytes": worker_delta,
        "memory_limit": args.memory_limit, "subset_rows": m, "subset_max_rel_diff": err_sub, "full_max_rel_diff": err_full,
    })
    print(f"results: {path}")
    assert err_sub <= 1e-10 and err_full <= 1e-10, "cluster statistics differ from NumPy"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
