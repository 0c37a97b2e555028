"""Cross-check of Table 1's sparse-PCA baseline: pixsel's GSPCA against the approximate greedy.

``bench_spls_recall.py`` uses a benchmark-local approximate greedy sparse PCA (d'Aspremont et
al. 2008) because pixsel's exact greedy ``SparsePCASelector`` (forward, implicit) costs several
seconds per fit at p = 1000, k = 200, too much for 100 repetitions x 4 sigmas. This script runs
both on the first ``--reps`` repetitions of each cell (same seeds as ``bench_spls_recall.py``)
and prints their mean recalls side by side.

    python benchmarks/bench_spls_recall_gspca.py            # 10 repetitions, std reading
"""

from __future__ import annotations

import time

import _common
import numpy as np
from _spls_common import N_TRUE, greedy_sparse_pca, simulate

from pixsel import SparsePCASelector
from pixsel.io import write_json

SIGMAS = (0.5, 0.75, 1.0, 1.5)
PAPER = (0.722, 0.620, 0.491, 0.051)


def main(argv=None):
    ap = _common.parser("spls_recall", __doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--reading", default="std", choices=["std", "var"])
    ap.add_argument("--k", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    with _common.blas_threads(args):
        run(args)


def run(args):
    reps = 1 if args.quick else args.reps
    sigmas = (0.5,) if args.quick else SIGMAS
    ri = 0 if args.reading == "std" else 1  # the reading index bench_spls_recall.py uses by default
    rows = {}
    lines = [f"\nSparse PCA baseline, {reps} repetitions ({args.reading} reading), mean recall of the 200 true features"]
    lines.append(f"{'sigma':>6s} {'pixsel GSPCA':>14s} {'approx greedy':>14s} {'paper':>7s} {'same support':>13s} {'GSPCA s/fit':>12s}")
    for si, sigma in enumerate(SIGMAS):
        if sigma not in sigmas:
            continue
        g, a, same, secs = [], [], [], []
        for rep in range(reps):
            X, _ = simulate(np.random.default_rng((args.seed, ri, si, rep)), sigma, reading=args.reading)
            t = time.perf_counter()
            S = SparsePCASelector(args.k, direction="forward", algorithm="implicit").fit(X).get_support(indices=True)
            secs.append(time.perf_counter() - t)
            A = greedy_sparse_pca(X, args.k)
            g.append(np.mean(S < N_TRUE))
            a.append(np.mean(A < N_TRUE))
            same.append(len(np.intersect1d(S, A)) / args.k)
        rows[str(sigma)] = {"gspca": float(np.mean(g)), "approx": float(np.mean(a)),
                            "overlap": float(np.mean(same)), "gspca_seconds": float(np.mean(secs))}
        r = rows[str(sigma)]
        lines.append(f"{sigma:>6g} {r['gspca']:>14.3f} {r['approx']:>14.3f} {PAPER[si]:>7.3f} {r['overlap']:>13.3f} {r['gspca_seconds']:>12.1f}")
    text = "\n".join(lines)
    print(text)
    write_json(_common.out_dir(args) / f"gspca_check_{args.reading}.json",
               {"reps": reps, "rows": rows, "text": text})


if __name__ == "__main__":
    main()
