"""The default selectors with and without Numba, side by side: what the extra ``numba`` buys.

Numba is optional (``pip install 'pixsel[numba]'``): the exact searches need it, and every
selector runs without it on its NumPy kernels, the compiled kernels' oracles. This script fits the
defaults a user calls on real image sets in two kinds of fresh process, one with Numba (its cache
filled, as after ``python -m pixsel._jit``) and one in which ``import numba`` fails as for a
missing package, and prints the first fit of each process (Numba's import and kernel load
included), the median and spread of the next ``--repeats`` fits, the ratio without / with, and
whether both selected the same pixels. The processes alternate, one BLAS thread each; the load
average is printed. ``--quick``: one fit of the 8x8 digits (scikit-learn's, no data file).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
from _common import parser, write_results

#: (label, data set, estimator expression, needs labels)
CASES = [
    ("USPS 10 digits, SparseLDASelector(25)", "usps", "SparseLDASelector(25)", True),
    ("Yale B (38 people), SparseLDASelector(25)", "yaleb", "SparseLDASelector(25)", True),
    ("Yale B, 5 per person, SparseLDASelector(25)", "yaleb5", "SparseLDASelector(25)", True),
    ("CMU PIE (68 people), SparseLDASelector(25)", "pie", "SparseLDASelector(25)", True),
    ("USPS 3 vs 5, SparseLDASelector(25)", "usps35", "SparseLDASelector(25)", True),
    ("Yale B, SparsePCASelector(20)", "yaleb", "SparsePCASelector(20)", False),
    ("Yale B, ColumnSubsetSelector(50)", "yaleb", "ColumnSubsetSelector(50)", False),
    ("Yale B, PixelReconstructor(50)", "yaleb", "PixelReconstructor(50)", False),
    ("Brodatz 64x64 (bench_sensors' 400 patches), PixelReconstructor(20)", "brodatz", "PixelReconstructor(20)", False),
]
QUICK = [("digits, SparseLDASelector(10)", "digits", "SparseLDASelector(10)", True)]

_WORKER = r"""
import sys
if sys.argv[1] == "none":
    sys.modules["numba"] = None  # as for a missing package: `import numba` fails
import json, time
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1, user_api="blas")
from pixsel.datasets import load_shared
sys.path.insert(0, sys.argv[6])  # the benchmarks' folder: the data of the quality and sensor benchmarks

def data(name):
    if name == "digits":
        from sklearn.datasets import load_digits
        return load_digits(return_X_y=True)
    if name == "usps":
        z = load_shared("usps_full_16x16.npz")
        return z["X_train"][:2000].astype(float), z["y_train"][:2000]
    if name == "usps35":
        z = load_shared("usps_3v5_split.npz")
        return z["X_train"].reshape(len(z["X_train"]), -1).astype(float), z["y_train"]
    if name in ("yaleb", "pie"):  # every image: more images than pixels, the dense forms
        z = load_shared("cmupie_32x32.npz" if name == "pie" else "extyaleb_32x32.npz")
        return z["X"].reshape(len(z["X"]), -1).astype(float), z["y"]
    if name == "yaleb5":  # the quality benchmark's first split with 5 training images per person
        from bench_quality import load_dataset, split
        X, y, spec, _ = load_dataset(name, False)
        tr, _ = split(X, y, spec, 0)
        return np.asarray(X[tr], dtype=float), y[tr]
    if name == "brodatz":  # the sensor benchmark's 64 x 64 texture patches, its training part
        from bench_sensors import load
        return load("brodatz", False)[0], None
    raise ValueError(name)

X, y = data(sys.argv[2])
import pixsel
est_expr, labels, repeats = sys.argv[3], sys.argv[4] == "1", int(sys.argv[5])
times, supports = [], []
for r in range(1 + repeats):
    cls = est_expr.split("(")[0]
    est = eval(est_expr, {cls: getattr(pixsel, cls)})  # pixsel's names load on first use
    t = time.perf_counter()
    est.fit(X, y if labels else None)
    times.append(time.perf_counter() - t)
    supports.append(np.flatnonzero(est.get_support()).tolist())
print(json.dumps({"times": times, "support": supports[-1], "same_every_fit": all(s == supports[-1] for s in supports),
                  "numba_imported": sys.modules.get("numba") is not None, "route": getattr(est, "route_", None)}))
"""


def run_worker(mode, name, expr, labels, repeats):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, "-c", _WORKER, mode, name, expr, "1" if labels else "0", str(repeats), here],
                          capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} {name} {expr}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    p = parser("bench_without_numba", __doc__.splitlines()[0], threads=1)
    p.add_argument("--repeats", type=int, default=3, help="timed fits after the first, per process (default 3)")
    args = p.parse_args()
    import importlib.util

    if importlib.util.find_spec("numba") is None:
        raise SystemExit("bench_without_numba compares with Numba's kernels: install the extra, "
                         "pip install 'pixsel[numba]'.")
    cases = QUICK if args.quick else CASES
    repeats = 1 if args.quick else max(3, args.repeats)
    print(f"load average at start: {os.getloadavg()}")
    t0 = time.perf_counter()
    rows = []
    print(f"{'case':52s} {'first fit s (with / without)':>30s} {'next fits s, median [min-max] (with / without)':>52s}"
          f" {'without / with':>15s} same pixels")
    for label, name, expr, labels in cases:
        got = {}
        for mode in ("numba", "none"):  # alternated case by case
            got[mode] = run_worker(mode, name, expr, labels, repeats)
        assert not got["none"]["numba_imported"]
        assert got["numba"]["same_every_fit"] and got["none"]["same_every_fit"]
        k = int(expr.split("(")[1].rstrip(")"))
        assert len(got["numba"]["support"]) == k and len(got["none"]["support"]) == k  # each did the work asked
        warm = {m: np.asarray(got[m]["times"][1:]) for m in got}
        med = {m: float(np.median(warm[m])) for m in warm}
        same = got["numba"]["support"] == got["none"]["support"]
        row = dict(case=label, data=name, estimator=expr, routes={m: got[m]["route"] for m in got},
                   first={m: got[m]["times"][0] for m in got}, next={m: warm[m].tolist() for m in warm},
                   median=med, ratio=med["none"] / med["numba"], same_pixels=same,
                   numba_imported=got["numba"]["numba_imported"], load=os.getloadavg())
        rows.append(row)
        spread = {m: f"{med[m]:.3f} [{warm[m].min():.3f}-{warm[m].max():.3f}]" for m in warm}
        print(f"{label:52s} {row['first']['numba']:>13.3f} / {row['first']['none']:<14.3f}"
              f" {spread['numba']:>25s} / {spread['none']:<24s} {row['ratio']:>15.2f} {'yes' if same else 'NO'}"
              f"  (routes {row['routes']['numba']} / {row['routes']['none']}; Numba imported with it: "
              f"{'yes' if row['numba_imported'] else 'no'}; load {os.getloadavg()[0]:.2f})",
              flush=True)
    ratios = [r["ratio"] for r in rows]
    print(f"\nwithout / with Numba, the next fits' medians: {min(ratios):.2f}-{max(ratios):.2f} "
          f"(median {np.median(ratios):.2f}); the same pixels in {sum(r['same_pixels'] for r in rows)} "
          f"of {len(rows)} cases; {time.perf_counter() - t0:.0f} s")
    print(f"load average at end: {os.getloadavg()}")
    path = write_results(args, dict(rows=rows, repeats=repeats, quick=args.quick))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
