"""Class statistics of data kept on disk, with Dask: peak memory, and speed against NumPy.

Goals (issue 2): for a 1,000,000 x 1024 float32 array on disk, peak memory <= 2 GB; on a size
that fits in memory, time <= 1.5 x NumPy's in-memory ``X.T @ X`` measured in the same run
(issue 15: against a float32 ``X.T @ X``).

Two kinds of data in memory, each against the float32 ``X.T @ X`` of the same values:

* uint8 images (what pixsel is for): ``class_statistics`` takes exact float32 products of
  ``x - 128`` over 1024-row tiles, flushed into a float64 accumulator (see
  ``pixsel.stats._moments._block_partial_small_int``): same result as float64, float32 speed;
* float32 data: float64 products of the centred block (a float32 product would round at
  ``~1e-7``; pixsel keeps float64 results to ``~1e-16``), so about 2 x a float32 product.

The on-disk array is read through ``dask.array.from_array`` over a small reader that pulls each
chunk from the file with ``numpy.fromfile`` (so the resident memory measured is the process's
own, not file pages mapped by a memmap).

    python benchmarks/bench_stats_dask.py            # the issue's size (writes a 4 GB temp file)
    python benchmarks/bench_stats_dask.py --quick    # smoke size

BLAS threads are left alone by default (``--threads 0``; the ratio compares two BLAS-bound runs).
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from _common import PeakRSS, best_time, blas_threads, parser, write_results

import dask
import dask.array as da

from pixsel.stats import class_statistics


class FileRows:
    """A read-only (rows x cols) float32 array in a raw file, sliced by rows for Dask."""

    def __init__(self, path, shape):
        self.path, self.shape, self.dtype, self.ndim = path, shape, np.dtype(np.float32), 2

    def __getitem__(self, key):
        rows, cols = key
        start, stop, _ = rows.indices(self.shape[0])
        with open(self.path, "rb") as fh:
            fh.seek(start * self.shape[1] * 4)
            block = np.fromfile(fh, dtype=np.float32, count=(stop - start) * self.shape[1])
        return block.reshape(stop - start, self.shape[1])[:, cols]


def write_file(path, n, p, rng, block=50_000):
    with open(path, "wb") as fh:
        for i in range(0, n, block):
            m = min(block, n - i)
            (rng.standard_normal((m, p), dtype=np.float32) + 3.0).tofile(fh)


def main(argv=None):
    ap = parser("stats_dask", __doc__.splitlines()[0], threads=0)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--features", type=int, default=1024)
    ap.add_argument("--chunk-rows", type=int, default=20_000)
    ap.add_argument("--mem-rows", type=int, default=200_000, help="rows of the in-memory timing comparison")
    ap.add_argument("--tmpdir", default=None)
    args = ap.parse_args(argv)
    with blas_threads(args):
        return run(args)


def run(args):
    if args.quick:
        args.rows, args.features, args.chunk_rows, args.mem_rows = 40_000, 128, 5_000, 20_000
    n, p = args.rows, args.features
    rng = np.random.default_rng(0)
    out = {"rows": n, "features": p, "chunk_rows": args.chunk_rows, "threads": os.cpu_count()}

    # 1. out of core: peak memory
    with tempfile.TemporaryDirectory(dir=args.tmpdir) as tmp:
        path = os.path.join(tmp, "X.f32")
        t = time.perf_counter()
        write_file(path, n, p, rng)
        out["write_seconds"] = time.perf_counter() - t
        y = (np.arange(n) % 2).astype(np.int64)
        X = da.from_array(FileRows(path, (n, p)), chunks=(args.chunk_rows, p), asarray=False)
        with dask.config.set(scheduler="threads"), PeakRSS() as mem:
            t = time.perf_counter()
            st = class_statistics(X, y)
            out["disk_seconds"] = time.perf_counter() - t
        out["disk_peak_rss_delta_GB"] = mem.delta / 1e9
        out["disk_array_GB"] = n * p * 4 / 1e9
        out["check_within_trace"] = float(np.trace(st.within))

    # 2. in memory: same statistics vs NumPy's X.T @ X
    m = args.mem_rows
    Xm = rng.standard_normal((m, p), dtype=np.float32) + 3.0
    ym = (np.arange(m) % 2).astype(np.int64)
    t_gram, _ = best_time(lambda: Xm.T @ Xm)
    t_np, _ = best_time(lambda: class_statistics(Xm, ym))
    Xd = da.from_array(Xm, chunks=(args.chunk_rows, p))
    t_da, _ = best_time(lambda: class_statistics(Xd, ym))
    Xm64 = Xm.astype(np.float64)
    t_gram64, _ = best_time(lambda: Xm64.T @ Xm64)
    del Xm64
    # uint8 images of the same size: exact float32 products, against float32 X.T @ X of the same values
    Xu = rng.integers(0, 256, (m, p), dtype=np.uint8)
    Xu32 = Xu.astype(np.float32)
    t_gram_u, _ = best_time(lambda: Xu32.T @ Xu32)
    del Xu32
    t_u8, st_u8 = best_time(lambda: class_statistics(Xu, ym))
    Xud = da.from_array(Xu, chunks=(args.chunk_rows, p))
    t_u8_da, st_u8_da = best_time(lambda: class_statistics(Xud, ym))
    ref = Xu[ym == 0].astype(np.float64)
    ref -= ref.mean(axis=0)
    w0 = ref.T @ ref
    ref = Xu[ym == 1].astype(np.float64)
    ref -= ref.mean(axis=0)
    W_ref = (w0 + ref.T @ ref) / m
    del ref, w0
    err_u8 = max(float(np.max(np.abs(st.within - W_ref)) / np.max(np.abs(W_ref))) for st in (st_u8, st_u8_da))
    out.update(
        mem_rows=m,
        numpy_XtX_float32_seconds=t_gram,
        numpy_XtX_float64_seconds=t_gram64,
        pixsel_numpy_seconds=t_np,
        pixsel_dask_seconds=t_da,
        ratio_dask_vs_XtX_float32=t_da / t_gram,
        ratio_numpy_path_vs_XtX_float32=t_np / t_gram,
        ratio_dask_vs_XtX_float64=t_da / t_gram64,
        uint8_XtX_float32_seconds=t_gram_u,
        uint8_numpy_seconds=t_u8,
        uint8_dask_seconds=t_u8_da,
        ratio_uint8_numpy_vs_XtX_float32=t_u8 / t_gram_u,
        ratio_uint8_dask_vs_XtX_float32=t_u8_da / t_gram_u,
        uint8_max_rel_diff_vs_float64=err_u8,
    )
    path = write_results(args, out)
    print(f"out of core: {n} x {p} float32 ({out['disk_array_GB']:.2f} GB on disk), chunks of {args.chunk_rows} rows")
    print(f"  statistics in {out['disk_seconds']:.1f} s, peak memory {out['disk_peak_rss_delta_GB']:.3f} GB (goal <= 2 GB)")
    print(f"in memory: {m} x {p} float32")
    print(f"  NumPy X.T @ X float32 {t_gram:.2f} s | float64 {t_gram64:.2f} s")
    print(f"  pixsel statistics: NumPy path {t_np:.2f} s, Dask path {t_da:.2f} s")
    print(f"  ratio Dask / NumPy X.T@X (float32): {t_da / t_gram:.2f} (goal <= 1.5); "
          f"vs float64 X.T@X: {t_da / t_gram64:.2f}")
    print(f"in memory: {m} x {p} uint8 images (exact float32 tiles, float64 accumulation)")
    print(f"  NumPy X.T @ X float32 (of the same values) {t_gram_u:.2f} s")
    print(f"  pixsel statistics: NumPy path {t_u8:.2f} s ({t_u8 / t_gram_u:.2f} x), "
          f"Dask path {t_u8_da:.2f} s ({t_u8_da / t_gram_u:.2f} x) (goal <= 1.5)")
    print(f"  max relative difference to the float64 scatter: {err_u8:.1e}")
    print(f"wrote {path}")
    return out


if __name__ == "__main__":
    main()
