"""Image-scale forward selection: 2000 Brodatz patches of 128 x 128 (p = 16384), k = 500.

Two textures (D4 and D5 by default) from ``brodatz_112_640x640.npz``; 1000 patches each at
seeded random positions, float32, scaled to [0, 1]. Binary sparse LDA forward path to k = 500
with ``B = Xc^T Xc / N + alpha I`` used through X (never formed; ``alpha`` = 1e-3 x the mean
within-class variance, recorded), measured as users call it:
``SparseLDASelector(k, direction='forward', algorithm='implicit').fit(X, y)``.

Goals (issue 3): peak memory <= 3 x the size of X, time <= 30 x one X^T X product measured in
the same run. The X^T X product (p x p, 1 GB in float32) is timed block by block (2048 columns
at a time, the same flops as the full product) so that it does not itself exhaust memory.
Peak memory is measured by tracemalloc (NumPy reports its buffers) over the selection call,
and the resident-set growth is reported beside it.

    python benchmarks/bench_image_scale.py            # N = 2000, p = 16384, k = 500
    python benchmarks/bench_image_scale.py --quick    # N = 400, 64 x 64 patches, k = 100

BLAS runs on ``--threads`` threads (default 1, as before).
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
from _common import PeakRSS, blas_threads, parser, write_results

from pixsel.datasets import load_shared
from pixsel.selection import SparseLDASelector


def patches(img, n, size, rng):
    H, W = img.shape
    rows = rng.integers(0, H - size + 1, n)
    cols = rng.integers(0, W - size + 1, n)
    out = np.empty((n, size * size), dtype=np.float32)
    for i, (r, c) in enumerate(zip(rows, cols)):
        out[i] = img[r : r + size, c : c + size].ravel() / np.float32(255)
    return out


def main(argv=None):
    ap = parser("image_scale", __doc__.splitlines()[0])
    ap.add_argument("--textures", nargs=2, default=["D4", "D5"])
    ap.add_argument("--k", type=int, default=None)
    args = ap.parse_args(argv)
    n_per, size, k = (200, 64, 100) if args.quick else (1000, 128, 500)
    k = args.k or k
    d = load_shared("brodatz_112_640x640.npz")
    ids = list(d["texture_ids"])
    rng = np.random.default_rng(0)
    X = np.vstack([patches(d["X"][ids.index(t)].reshape(640, 640), n_per, size, rng) for t in args.textures])
    y = np.repeat([0, 1], n_per)
    del d
    n, p = X.shape
    out = {"n_samples": n, "n_features": p, "k": k, "textures": args.textures, "X_bytes": X.nbytes, "dtype": str(X.dtype)}
    with blas_threads(args):
        tracemalloc.start()
        with PeakRSS() as rss:
            t = time.perf_counter()
            sel = SparseLDASelector(k, direction="forward", algorithm="implicit").fit(X, y)
            t_path = time.perf_counter() - t
        path = sel.forward_path_
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        t = time.perf_counter()
        block = 2048
        for j in range(0, p, block):
            X.T @ X[:, j : j + block]
        t_xtx = time.perf_counter() - t
    out.update(path_s=t_path, xtx_s=t_xtx, time_ratio=t_path / t_xtx, peak_traced_bytes=peak,
               peak_rss_growth_bytes=rss.delta, memory_ratio=peak / X.nbytes, alpha=sel.regularization_["alpha"],
               objective=path.objective, order=path.order)
    mb = 2.0**20
    print(f"Brodatz {args.textures[0]} vs {args.textures[1]}: N = {n} patches of {size}x{size} (p = {p}), "
          f"X {X.dtype} {X.nbytes / mb:.0f} MiB; binary forward path to k = {k}")
    print(f"  path: {t_path:.2f} s; one X^T X (blocked, {X.dtype}): {t_xtx:.2f} s; ratio {t_path / t_xtx:.3f} "
          f"(goal <= 30): {'met' if t_path <= 30 * t_xtx else 'NOT met'}")
    print(f"  peak memory of the selection (tracemalloc): {peak / mb:.1f} MiB = {peak / X.nbytes:.2f} x X "
          f"(goal <= 3): {'met' if peak <= 3 * X.nbytes else 'NOT met'}; RSS growth {rss.delta / mb:.1f} MiB")
    print(f"  objective at k = 10, 100, {k}: " + ", ".join(f"{path.objective[i - 1]:.4g}" for i in (10, 100, k) if i <= k))
    print(f"wrote {write_results(args, out)}")
    return out


if __name__ == "__main__":
    main()
