"""k-means on the pixels of the default unsupervised selector against k-means on random pixels.

Goal: the unsupervised default never below random pixels for k-means on any data set of the
quality benchmark (``bench_quality.py``: its data sets, splits and values of ``k``).

The default unsupervised selector is ``ColumnSubsetSelector(k)`` (the README's choice for
images without labels; greedy column subset, deterministic). On every data set and seeded
split (``bench_quality.split``: the same training / test parts), the selector is fitted on the
training part; k-means (scikit-learn's ``KMeans(n_clusters=classes, random_state=seed)`` at
its defaults) then clusters the test part (at most ``--max-test`` images, a seeded subset) on
the ``k`` selected pixels, and on ``k`` uniformly drawn pixels, and the clusters are scored
against the labels by the adjusted Rand index (ARI: 0 for chance, 1 for the classes). Both rows
get the same repetitions: per split, ``--draws`` k-means runs (seeds ``100 * split + r``)
averaged, each on a new random draw for the random row and on the same selected pixels for the
selector (k-means's own spread would otherwise count against the row run once). Per data set and ``k`` the script prints the median over the
splits of both, their spread (max - min), the number of splits where the selector is at or
above random, and whether the median is at or above random; and, on the first split, the ARI
of k-means on all the pixels (how much cluster structure the classes have at all).

    python benchmarks/bench_kmeans_vs_random.py              # every set, 5 splits
    python benchmarks/bench_kmeans_vs_random.py --quick      # seconds: Sonar and digits, 2 splits

The reserved evaluation sets of the shared data folder are never read (the data come from
``bench_quality.load_dataset``).
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import blas_threads, parser, write_results
from bench_quality import ALL_DATASETS, KS, load_dataset, split
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from pixsel import ColumnSubsetSelector

QUICK_DATASETS = ("sonar", "digits")


def ari(Z, y, seed):
    labels = KMeans(len(np.unique(y)), random_state=seed).fit_predict(Z)
    return float(adjusted_rand_score(y, labels))


def run_dataset(name, args):
    X, y, spec, _ = load_dataset(name, args.quick)
    X = np.asarray(X, dtype=np.float64)
    p = X.shape[1]
    p_live = int(np.sum(np.ptp(X, axis=0) > 0))  # as bench_quality: k capped at the varying features
    ks = sorted({min(k, p_live) for k in args.ks})
    css = {k: [] for k in ks}
    rnd = {k: [] for k in ks}
    allpix = []
    t0 = time.perf_counter()
    for seed in range(args.splits):
        tr, te = split(X, y, spec, seed)
        if len(te) > args.max_test:
            te = np.sort(np.random.default_rng(seed).choice(te, args.max_test, replace=False))
        Xtr, Xte, yte = X[tr], X[te], y[te]
        sel = ColumnSubsetSelector(max(ks)).fit(Xtr)
        assert len(sel.order_) == max(ks)
        rng = np.random.default_rng(1000 + seed)
        for k in ks:
            S = np.sort(sel.order_[:k])  # the greedy path is nested: its first k pixels are the fit at k
            runs = [100 * seed + r for r in range(args.draws)]
            css[k].append(float(np.mean([ari(Xte[:, S], yte, r) for r in runs])))
            draws = [rng.choice(p, k, replace=False) for _ in runs]
            rnd[k].append(float(np.mean([ari(Xte[:, D], yte, r) for D, r in zip(draws, runs)])))
        if seed == 0:
            allpix.append(ari(Xte, yte, seed))
    rows = {}
    for k in ks:
        c, r = np.array(css[k]), np.array(rnd[k])
        rows[k] = dict(css_median=float(np.median(c)), css_spread=float(np.ptp(c)), random_median=float(np.median(r)),
                       random_spread=float(np.ptp(r)), splits_at_or_above=int(np.sum(c >= r - 1e-12)),
                       at_or_above=bool(np.median(c) >= np.median(r) - 1e-12), css=c.tolist(), random=r.tolist())
    return dict(n_samples=int(X.shape[0]), n_features=p, classes=int(len(np.unique(y))), ks=ks, rows=rows,
                all_pixels_median=float(np.median(allpix)), time_s=time.perf_counter() - t0, load=os.getloadavg())


def main(argv=None):
    p = parser("bench_kmeans_vs_random", __doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=None, choices=ALL_DATASETS)
    p.add_argument("--splits", type=int, default=None, help="seeded splits per data set (default 5; --quick 2)")
    p.add_argument("--max-test", type=int, default=1000, help="test images clustered per split (default 1000)")
    p.add_argument("--draws", type=int, default=5,
                   help="k-means runs per split and row, each on a new random draw for random pixels (default 5)")
    p.add_argument("--ks", nargs="+", type=int, default=list(KS))
    args = p.parse_args(argv)
    args.splits = args.splits or (2 if args.quick else 5)
    names = args.datasets or (QUICK_DATASETS if args.quick else ALL_DATASETS)
    print(f"load average at start: {os.getloadavg()}")
    print(f"ColumnSubsetSelector(k) against uniform random pixels ({args.draws} k-means runs per split and row, "
          "averaged; random: a new draw per run): "
          f"adjusted Rand index of k-means on the test part, median over {args.splits} splits")
    print(f"{'data':>10} {'k':>4} {'CSS':>7} {'spread':>7} {'random':>7} {'spread':>7} {'CSS - random':>12} "
          f"{'splits >=':>9} {'>= random':>9}")
    results, below = {}, []
    with blas_threads(args):
        for name in names:
            res = run_dataset(name, args)
            results[name] = res
            for k, r in res["rows"].items():
                diff = r["css_median"] - r["random_median"]
                print(f"{name:>10} {k:4d} {r['css_median']:7.3f} {r['css_spread']:7.3f} {r['random_median']:7.3f} "
                      f"{r['random_spread']:7.3f} {diff:+12.3f} {r['splits_at_or_above']:>4d} of {args.splits:<2d} "
                      f"{'yes' if r['at_or_above'] else 'NO':>9}")
                if not r["at_or_above"]:
                    below.append((name, k, diff))
            print(f"{name:>10}  all {res['n_features']} pixels (first split): ARI {res['all_pixels_median']:.3f}; "
                  f"{res['time_s']:.0f} s (load {res['load'][0]:.2f})", flush=True)
    cells = sum(len(r["rows"]) for r in results.values())
    print(f"\ncells with the median at or above random: {cells - len(below)} of {cells}")
    for name, k, diff in below:
        print(f"  below random: {name} k = {k} ({diff:+.3f} ARI)")
    print(f"goal (never below random on any set): {'met' if not below else 'not met'}")
    print(f"load average at end: {os.getloadavg()}")
    path = write_results(args, {"datasets": results, "splits": args.splits, "draws": args.draws,
                                "goal_met": not below, "load_end": os.getloadavg()})
    print(f"wrote {path}")
    return results


if __name__ == "__main__":
    main()
