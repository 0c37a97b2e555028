"""Speed of subspace scores vs scikit-learn's randomized_svd, and a Dask run with peak memory.

Claim: scoring 2000 Brodatz patches of 128 x 128 pixels (p = 16384) with m = 40 takes at
most 1.5 times ``sklearn.utils.extmath.randomized_svd(n_components=40)`` on the same data, timed
in the same run; and the same scores come out of a Dask array that is never in memory whole.

    python benchmarks/bench_scores_speed.py            # the full size
    python benchmarks/bench_scores_speed.py --quick    # smoke size

BLAS threads are left alone by default (``--threads 0``): both methods are BLAS-bound and run
under the same setting.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
from _common import best_time, blas_threads, parser, write_results

from pixsel.datasets import load_shared
from pixsel.scores import subspace_scores


def cut_patches(images, image_side, n, side, seed):
    """``n`` random ``side x side`` patches from random textures (seeded), as float64 rows."""
    rng = np.random.default_rng(seed)
    tex = rng.integers(0, len(images), n)
    r = rng.integers(0, image_side - side + 1, n)
    c = rng.integers(0, image_side - side + 1, n)
    out = np.empty((n, side * side))
    for i in range(n):
        img = images[tex[i]].reshape(image_side, image_side)
        out[i] = img[r[i]:r[i] + side, c[i]:c[i] + side].ravel()
    return out


def lazy_patches(images, image_side, n, side, rows, seed):
    """The patches of :func:`cut_patches` as a Dask array cut chunk by chunk (never whole)."""
    import dask
    import dask.array as da

    rng = np.random.default_rng(seed)
    tex = rng.integers(0, len(images), n)
    r = rng.integers(0, image_side - side + 1, n)
    c = rng.integers(0, image_side - side + 1, n)
    p = side * side

    def make(lo, hi):
        out = np.empty((hi - lo, p))
        for j in range(lo, hi):
            img = images[tex[j]].reshape(image_side, image_side)
            out[j - lo] = img[r[j]:r[j] + side, c[j]:c[j] + side].ravel()
        return out

    parts = [da.from_delayed(dask.delayed(make)(lo, min(n, lo + rows)),
                             shape=(min(n, lo + rows) - lo, p), dtype=np.float64)
             for lo in range(0, n, rows)]
    return da.concatenate(parts, axis=0)


def traced(fn):
    """(seconds, peak bytes traced by tracemalloc, result) of one call, threaded Dask scheduler."""
    import dask

    tracemalloc.start()
    t0 = time.perf_counter()
    with dask.config.set(scheduler="threads", num_workers=2):
        result = fn()
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak, result


def main(argv=None):
    ap = parser("scores_speed", __doc__.splitlines()[0], threads=0)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--side", type=int, default=128)
    ap.add_argument("--rank", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--chunk-rows", type=int, default=250)
    ap.add_argument("--dask-big-n", type=int, default=8000,
                    help="also score this many patches through Dask only (memory; 0: skip)")
    args = ap.parse_args(argv)
    if args.quick:  # smoke size: 100 patches of 16x16
        args.n, args.side, args.rank, args.repeats, args.chunk_rows = 100, 16, 5, 1, 25
        args.dask_big_n = 0
    with blas_threads(args):
        return run(args)


def run(args):
    from sklearn.utils.extmath import randomized_svd

    d = load_shared("brodatz_112_640x640.npz")
    images = d["X"]
    image_side = int(np.sqrt(images.shape[1]))
    X = cut_patches(images, image_side, args.n, args.side, seed=0)
    n, p = X.shape
    print(f"data: {n} Brodatz patches of {args.side}x{args.side} (p = {p}), float64, "
          f"{X.nbytes / 2**20:.0f} MiB; rank m = {args.rank}; best of {args.repeats}")

    t_scores, res = best_time(lambda: subspace_scores(X, args.rank, random_state=0), args.repeats)
    t_rsvd, (U, s_ref, Vt) = best_time(
        lambda: randomized_svd(X, n_components=args.rank, random_state=0), args.repeats)
    ratio = t_scores / t_rsvd
    # accuracy: exact top singular values of the centred data from the n x n Gram matrix
    Xc = X - X.mean(0)
    evals = np.linalg.eigvalsh(Xc @ Xc.T)[::-1][: args.rank]
    s_exact = np.sqrt(np.clip(evals, 0, None))
    rel_sv = float(np.max(np.abs(res.singular_values - s_exact) / s_exact))
    _, s_rs, _ = randomized_svd(Xc, n_components=args.rank, random_state=0)
    rel_rs = float(np.max(np.abs(s_rs - s_exact) / s_exact))
    del Xc
    print(f"subspace scores (block Krylov, q={res.svd.n_iter}, basis {res.svd.krylov_dim}): "
          f"{t_scores:.2f} s")
    print(f"sklearn randomized_svd(n_components={args.rank}):              {t_rsvd:.2f} s")
    print(f"ratio scores / randomized_svd: {ratio:.2f}  (goal <= 1.5: "
          f"{'met' if ratio <= 1.5 else 'NOT met'})")
    print(f"max relative error of the {args.rank} singular values (exact: eigvalsh of the "
          f"centred n x n Gram matrix): {rel_sv:.2e}; randomized_svd (same settings) on the "
          f"centred data: {rel_rs:.2e}")

    # Dask: the patches are cut chunk by chunk inside the graph; the array is never whole
    rows = args.chunk_rows
    chunk_mib = rows * p * 8 / 2**20
    dX = lazy_patches(images, image_side, n, args.side, rows, seed=0)  # the same patches as X
    nblocks = len(dX.chunks[0])
    t_dask, peak, dres = traced(lambda: subspace_scores(dX, args.rank, random_state=0))
    _, peak_np, _ = traced(lambda: subspace_scores(X, args.rank, random_state=0))
    agree = float(np.max(np.abs(dres.scores - res.scores)) / np.max(res.scores))
    print(f"dask: {nblocks} chunks of {rows} rows ({chunk_mib:.0f} MiB each; whole array "
          f"{X.nbytes / 2**20:.0f} MiB): {t_dask:.2f} s, peak traced memory "
          f"{peak / 2**20:.0f} MiB (NumPy run on the in-memory array: {peak_np / 2**20:.0f} MiB "
          f"on top of the data)")
    print(f"dask vs numpy scores: max |difference| / max score = {agree:.2e}")
    big = None
    if args.dask_big_n:
        del X
        bX = lazy_patches(images, image_side, args.dask_big_n, args.side, rows, seed=1)
        t_big, peak_big, _ = traced(lambda: subspace_scores(bX, args.rank, random_state=0))
        big_mib = args.dask_big_n * p * 8 / 2**20
        print(f"dask, {args.dask_big_n} patches ({big_mib:.0f} MiB, {len(bX.chunks[0])} chunks of "
              f"{chunk_mib:.0f} MiB): {t_big:.2f} s, peak traced memory {peak_big / 2**20:.0f} MiB")
        big = {"n": args.dask_big_n, "array_mib": big_mib, "time_s": t_big,
               "peak_traced_mib": peak_big / 2**20}

    path = write_results(args, {
        "n": n, "p": p, "rank": args.rank, "repeats": args.repeats,
        "time_scores_s": t_scores, "time_randomized_svd_s": t_rsvd, "ratio": ratio,
        "goal_ratio": 1.5, "goal_met": ratio <= 1.5, "krylov_steps": res.svd.n_iter,
        "krylov_dim": res.svd.krylov_dim, "max_rel_singular_value_error": rel_sv,
        "randomized_svd_max_rel_singular_value_error": rel_rs,
        "dask": {"chunk_rows": rows, "n_chunks": nblocks, "chunk_mib": chunk_mib,
                 "array_mib": n * p * 8 / 2**20, "time_s": t_dask,
                 "peak_traced_mib": peak / 2**20, "numpy_peak_traced_mib": peak_np / 2**20,
                 "max_rel_score_diff_vs_numpy": agree, "larger_array": big},
    }, name="speed")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
