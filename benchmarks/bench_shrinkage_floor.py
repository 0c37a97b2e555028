"""How large a floor on the Ledoit-Wolf intensity: held-out accuracy of the default search by floor.

``SparseLDASelector``'s default regularization, ``'ledoit-wolf-floor'``, shrinks the within-class
covariance ``B`` towards ``mu I`` by the Ledoit-Wolf intensity ``s`` of the training images, but by
at least 2 % (``pixsel.stats.SHRINKAGE_FLOOR``). The intensity tends to 0 as the images per class
grow, and the greedy search then takes pixels of tiny within-class variance. This script measures
the floors beside the intensity as estimated, on the data sets and splits of the quality
benchmark (``bench_quality.py``: ``load_dataset``, ``split``, its four classifiers):

* ``'ledoit-wolf'`` and ``'ledoit-wolf-floor'`` (the default) by name;
* a floor ``f`` per row: the ridge ``mu s / (1 - s)`` with ``s = max(s_LW, f)`` (``B`` shrunk by
  ``s`` is ``(1 - s)`` times ``B`` plus that ridge, so with the trace criterion it selects the
  same pixels; with the correlation criterion, the default with more than two classes, it
  weighs the between-class term ``1 / (1 - s)`` times more, 2 % at ``s = 2 %``).

Per data set and row it prints the mean change in held-out accuracy (points, over classifiers x
k, each cell the mean over the splits) against ``'ledoit-wolf'``, the worst cell, and the
intensity on each split.

    python benchmarks/bench_shrinkage_floor.py --datasets pie30 pie pie5 yaleb30 yaleb --splits 3
    python benchmarks/bench_shrinkage_floor.py --quick     # seconds: the digits, 1 split

The reserved evaluation sets of the shared data folder are never read.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
from _common import blas_threads, parser, write_results
from bench_quality import ALL_DATASETS, NAMED_ONLY, classifiers, load_dataset, split
from sklearn.base import clone

import pixsel
from pixsel.stats import class_statistics, regularize

QUICK_DATASETS = ("digits",)


def _rows(floors):
    return ["ledoit-wolf", "ledoit-wolf-floor"] + [f"floor {100 * f:g} %" for f in floors]


def run_dataset(name, args):
    X, y, spec, _ = load_dataset(name, args.quick)
    X = np.asarray(X, dtype=np.float64)
    clfs = classifiers()
    rows = _rows(args.floors)
    acc = {r: {c: {k: [] for k in args.ks} for c in clfs} for r in rows}
    supports = {r: {k: [] for k in args.ks} for r in rows}
    intensities = []
    for seed in range(args.splits):
        tr, te = split(X, y, spec, seed)
        Xt, yt, Xe, ye = X[tr], y[tr], X[te], y[te]
        st = class_statistics(Xt, yt)
        _, info = regularize(st.within, "ledoit-wolf", X=Xt, y=yt, means=st.means, classes=st.classes)
        s_lw, mu = float(info.shrinkage), float(info.mu)
        intensities.append(s_lw)
        regs = {"ledoit-wolf": "ledoit-wolf", "ledoit-wolf-floor": "ledoit-wolf-floor"}
        for f, r in zip(args.floors, rows[2:]):
            s = max(s_lw, f)
            regs[r] = mu * s / (1.0 - s)
        for r, reg in regs.items():
            for k in args.ks:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # e.g. a classifier's convergence on raw pixels
                    S = pixsel.SparseLDASelector(k, regularization=reg).fit(Xt, yt).get_support(indices=True)
                    assert S.size == k, (S.size, k)
                    supports[r][k].append(S.tolist())
                    for c, clf in clfs.items():
                        acc[r][c][k].append(float(clone(clf).fit(Xt[:, S], yt).score(Xe[:, S], ye)))
    return {"intensities": intensities, "accuracy": acc, "supports": supports}


def summary(res, rows, ks):
    """Per row: mean change (points) against 'ledoit-wolf' over classifiers x k, and the worst cell."""
    base = res["accuracy"]["ledoit-wolf"]
    out = {}
    for r in rows:
        diffs = [100 * (np.mean(res["accuracy"][r][c][k]) - np.mean(base[c][k])) for c in base for k in ks]
        out[r] = (float(np.mean(diffs)), float(np.min(diffs)))
    return out


def main(argv=None):
    p = parser("bench_shrinkage_floor", __doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=None, choices=ALL_DATASETS + NAMED_ONLY)
    p.add_argument("--ks", nargs="+", type=int, default=None, help="sizes (default 5 10 25 50; --quick 5 10)")
    p.add_argument("--splits", type=int, default=None, help="seeded splits per data set (default 3; --quick 1)")
    p.add_argument("--floors", nargs="+", type=float, default=[0.01, 0.02, 0.03],
                   help="floors on the intensity, as fractions (default 0.01 0.02 0.03)")
    args = p.parse_args(argv)
    args.datasets = args.datasets or (list(QUICK_DATASETS) if args.quick else ["pie30", "pie", "pie5", "yaleb30",
                                                                                "yaleb"])
    args.ks = args.ks or ([5, 10] if args.quick else [5, 10, 25, 50])
    args.splits = args.splits or (1 if args.quick else 3)
    rows = _rows(args.floors)
    print(f"load average at start: {os.getloadavg()}", flush=True)
    results = {}
    with blas_threads(args):
        for name in args.datasets:
            t = time.perf_counter()
            res = run_dataset(name, args)
            results[name] = res
            summ = summary(res, rows, args.ks)
            print(f"\n== {name}: Ledoit-Wolf intensity per split "
                  + ", ".join(f"{100 * s:.2f} %" for s in res["intensities"])
                  + f"; {args.splits} split(s), k {args.ks}; {time.perf_counter() - t:.0f} s (load {os.getloadavg()[0]:.2f})")
            print(f"  {'row':22s} mean change vs 'ledoit-wolf' (points)   worst cell")
            for r in rows:
                m, w = summ[r]
                print(f"  {r:22s} {m:+8.2f}                               {w:+6.1f}")
            res["summary"] = summ
    print(f"\nload average at end: {os.getloadavg()}")
    write_results(args, {"datasets": results, "floors": args.floors, "ks": args.ks, "splits": args.splits})


if __name__ == "__main__":
    main()
