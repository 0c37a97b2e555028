"""Image-scale forward selection through X (no p x p matrix): binary, float32 vs float64, multiclass.

Patches of Brodatz textures from ``brodatz_112_640x640.npz`` at seeded random positions,
float32 in [0, 1], measured as users call it:
``SparseLDASelector(k, direction='forward', algorithm='implicit', refine=False).fit(X, y)`` (the path alone), where
``B = Xc^T Xc / N + alpha I`` is used through X (never formed; ``alpha`` = 1e-3 x the mean
within-class variance, recorded). Three runs, ratios against one X^T X product timed in the
same run (p x p, 1 GB in float32 at p = 16384, timed 2048 columns at a time: the same flops):

1. binary (D4 vs D5 by default), N = 2000 patches of 128 x 128 (p = 16384), k = 500 -- goals:
   peak memory <= 3 x X, time <= 30 x one X^T X;
2. the same X in float64: the objective at every k next to the float32 run -- goal:
   largest relative difference <= 1e-8 (float32 data give the float64 answer: the products
   are accumulated in float64, X stays float32);
3. multiclass: the first 50 textures, 40 patches each (N = 2000, p = 16384), ``'max-eig'``
   criterion, k = 300 -- goals: time <= 3 x one X^T X, peak memory <= 3 x X.

Peak memory is measured by tracemalloc (NumPy reports its buffers) over the selection call,
with the resident-set growth beside it. Passes over X (blocks of columns of B) are reported.

    python benchmarks/bench_image_scale.py            # the sizes above
    python benchmarks/bench_image_scale.py --quick    # 64 x 64 patches, N = 400, k = 100 / 50

BLAS runs on ``--threads`` threads (default 1, as before).
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
from _common import PeakRSS, blas_threads, parser, write_results

from pixsel.datasets import load_shared
from pixsel.selection import SparseLDASelector

#: The path alone, with the ridge of the figures on the documentation's pages ('rda', the default
#: when they were measured). The default regularization, 'ledoit-wolf', computes its intensity through
#: X from the n x n products of the rows (n^2 p operations) before the path.
RIDGE = "rda"


def patches(img, n, size, rng):
    H, W = img.shape
    rows = rng.integers(0, H - size + 1, n)
    cols = rng.integers(0, W - size + 1, n)
    out = np.empty((n, size * size), dtype=np.float32)
    for i, (r, c) in enumerate(zip(rows, cols)):
        out[i] = img[r : r + size, c : c + size].ravel() / np.float32(255)
    return out


def dataset(d, textures, n_per, size, seed=0):
    ids = list(d["texture_ids"])
    rng = np.random.default_rng(seed)
    X = np.vstack([patches(d["X"][ids.index(t)].reshape(640, 640), n_per, size, rng) for t in textures])
    return X, np.repeat(np.arange(len(textures)), n_per)


def measured_fit(X, y, k, criterion="max-eig"):
    tracemalloc.start()
    with PeakRSS() as rss:
        t = time.perf_counter()
        sel = SparseLDASelector(k, direction="forward", algorithm="implicit", criterion=criterion,
                                refine=False, regularization=RIDGE).fit(X, y)
        seconds = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return sel, seconds, peak, rss.delta


def xtx_seconds(X, block=2048):
    t = time.perf_counter()
    for j in range(0, X.shape[1], block):
        X.T @ X[:, j : j + block]
    return time.perf_counter() - t


def main(argv=None):
    ap = parser("image_scale", __doc__.splitlines()[0])
    ap.add_argument("--textures", nargs=2, default=["D4", "D5"])
    ap.add_argument("--k", type=int, default=None)
    ap.add_argument("--classes", type=int, default=50, help="textures in the multiclass run")
    args = ap.parse_args(argv)
    n_per, size, k = (200, 64, 100) if args.quick else (1000, 128, 500)
    mc_per, mc_k = (400 // args.classes, 50) if args.quick else (2000 // args.classes, 300)
    k = args.k or k
    d = load_shared("brodatz_112_640x640.npz")
    X, y = dataset(d, args.textures, n_per, size)
    Xm, ym = dataset(d, list(d["texture_ids"][: args.classes]), mc_per, size, seed=1)
    del d
    n, p = X.shape
    mb = 2.0**20
    out = {"n_samples": n, "n_features": p, "k": k, "textures": args.textures, "X_bytes": X.nbytes,
           "dtype": str(X.dtype), "multiclass": {"n_classes": args.classes, "n_samples": len(Xm), "k": mc_k}}
    with blas_threads(args):
        sel, t_path, peak, rss = measured_fit(X, y, k)
        X64 = X.astype(np.float64)
        t = time.perf_counter()
        sel64 = SparseLDASelector(k, direction="forward", algorithm="implicit", refine=False, regularization=RIDGE).fit(X64, y)
        t_path64 = time.perf_counter() - t
        del X64
        msel, t_mc, mc_peak, mc_rss = measured_fit(Xm, ym, mc_k)
        t_xtx = xtx_seconds(X)
    path, path64, mpath = sel.forward_path_, sel64.forward_path_, msel.forward_path_
    rel = np.abs(path.objective / path64.objective - 1)
    differ = np.flatnonzero(path.order != path64.order)
    first_diff = int(differ[0]) + 1 if len(differ) else None
    out.update(path_s=t_path, xtx_s=t_xtx, time_ratio=t_path / t_xtx, peak_traced_bytes=peak,
               peak_rss_growth_bytes=rss, memory_ratio=peak / X.nbytes, alpha=sel.regularization_["alpha"],
               objective=path.objective, order=path.order, passes=path.info["n_column_passes"],
               float64_path_s=t_path64, float64_objective=path64.objective,
               float32_vs_float64_max_rel=float(rel.max()), first_k_order_differs=first_diff)
    out["multiclass"].update(path_s=t_mc, time_ratio=t_mc / t_xtx, peak_traced_bytes=mc_peak,
                             peak_rss_growth_bytes=mc_rss, memory_ratio=mc_peak / Xm.nbytes,
                             passes=mpath.info["n_column_passes"], objective=mpath.objective, order=mpath.order)
    print(f"Brodatz {args.textures[0]} vs {args.textures[1]}: N = {n} patches of {size}x{size} (p = {p}), "
          f"X {X.dtype} {X.nbytes / mb:.0f} MiB; binary forward path to k = {k}")
    print(f"  path: {t_path:.2f} s ({path.info['n_column_passes']} passes over X); one X^T X (blocked, "
          f"{X.dtype}): {t_xtx:.2f} s; ratio {t_path / t_xtx:.3f} (goal <= 30): "
          f"{'met' if t_path <= 30 * t_xtx else 'NOT met'}")
    print(f"  peak memory of the selection (tracemalloc): {peak / mb:.1f} MiB = {peak / X.nbytes:.2f} x X "
          f"(goal <= 3): {'met' if peak <= 3 * X.nbytes else 'NOT met'}; RSS growth {rss / mb:.1f} MiB")
    print(f"  objective at k = 10, 100, {k}: " + ", ".join(f"{path.objective[i - 1]:.4g}" for i in (10, 100, k) if i <= k))
    print(f"  float32 vs float64 X ({t_path64:.2f} s): largest relative objective difference over k = 1..{k}: "
          f"{rel.max():.2e} (goal <= 1e-8): {'met' if rel.max() <= 1e-8 else 'NOT met'}; supports "
          + ("identical at every k" if first_diff is None else f"first differ at k = {first_diff}"))
    print(f"Multiclass: {args.classes} textures x {mc_per} patches (N = {len(Xm)}, p = {p}), 'max-eig', k = {mc_k}")
    print(f"  path: {t_mc:.2f} s ({mpath.info['n_column_passes']} passes over X); ratio to one X^T X "
          f"{t_mc / t_xtx:.3f} (goal <= 3): {'met' if t_mc <= 3 * t_xtx else 'NOT met'}")
    print(f"  peak memory (tracemalloc): {mc_peak / mb:.1f} MiB = {mc_peak / Xm.nbytes:.2f} x X "
          f"(goal <= 3): {'met' if mc_peak <= 3 * Xm.nbytes else 'NOT met'}; RSS growth {mc_rss / mb:.1f} MiB")
    print(f"wrote {write_results(args, out)}")
    return out


if __name__ == "__main__":
    main()
