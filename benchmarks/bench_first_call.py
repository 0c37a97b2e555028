"""First call: each public estimator's first fit in a fresh process, with an empty and a warm compile cache.

Goal: every public estimator's first ``fit`` on scikit-learn's digits (1797 x 64) in a fresh
process takes <= 2 s, also with an empty compile cache (a fresh install, or a read-only package
folder where Numba cannot write next to the code); importing pixsel stays no slower than
importing scikit-learn's own selectors (``from sklearn.feature_selection import SelectKBest``).

Protocol: one fresh Python process per measurement (nothing shared but the disk). "cold" points
Numba at an empty cache folder (``NUMBA_CACHE_DIR``), so every compiled kernel the fit uses is
compiled in that process; "warm" runs again on the folder the cold run filled (what every later
process of a user sees). Each is repeated ``--repeat`` times (a new empty folder for every cold
run): median and spread (min-max). The fit is timed inside the process (data loaded, pixsel
imported); the import times are timed the same way, in processes of their own. The load
average is printed before and after. The peer for the import is scikit-learn's
``SelectKBest``; a fit checks that it did the work (the support size, or the output shape).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from _common import parser, write_results

#: name -> (constructor expression, which y: 'binary', 'multi' or None, the check)
ESTIMATORS = {
    "SparseLDASelector (2 classes)": ("SparseLDASelector(8)", "binary", "support"),
    "SparseLDASelector (10 classes)": ("SparseLDASelector(8)", "multi", "support"),
    # the compiled multiclass kernels (the secular step of the largest eigenvalue, the backward loop)
    "SparseLDASelector (10 classes, max-eig, dual)": ("SparseLDASelector(8, criterion='max-eig', direction='dual')",
                                                      "multi", "support"),
    "SparsePCASelector": ("SparsePCASelector(8)", None, "support"),
    "CardinalSPLSSelector": ("CardinalSPLSSelector(8)", "multi", "support"),
    "SPLSSelector": ("SPLSSelector(0.5)", "multi", "any"),
    "SubspaceScoreSelector": ("SubspaceScoreSelector(8, random_state=0)", None, "support"),
    "ScoreSelector": ("ScoreSelector(8)", None, "support"),
    "PathSelectorCV": ("PathSelectorCV(SparseLDASelector(1), cv=3)", "binary", "any"),
    "GreedySparsePCA": ("GreedySparsePCA(2)", None, "transform"),
    "SparseLinearModelProjection": ("SparseLinearModelProjection(2, n_atoms=64, random_state=0)", None,
                                    "transform"),
}
QUICK = ("ScoreSelector",)  # no compiled kernel, two fresh fits (cold, warm): seconds

_FIT = r"""
import json, sys, time
from sklearn.datasets import load_digits
X, y = load_digits(return_X_y=True)
import pixsel
from pixsel import *
expr, which, check = sys.argv[1], sys.argv[2], sys.argv[3]
target = {"binary": y % 2, "multi": y, "none": None}[which]
est = eval(expr)
t = time.perf_counter()
est.fit(X) if target is None else est.fit(X, target)
seconds = time.perf_counter() - t
if check == "support":
    assert est.get_support().sum() == 8
elif check == "transform":
    assert est.transform(X).shape == (len(X), 2)
else:
    assert est.get_support().sum() >= 1
print(json.dumps({"fit_s": seconds}))
"""

_IMPORT = r"""
import json, sys, time
t, c = time.perf_counter(), time.process_time()
exec(sys.argv[1])
print(json.dumps({"import_s": time.perf_counter() - t, "import_cpu_s": time.process_time() - c}))
"""


def _run(code, args, env):
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=900)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def _figure(results, goal, args):
    """Cold and warm first fits per estimator (median, min-max whiskers), the goal as a line."""
    import numpy as np
    from matplotlib.figure import Figure

    from _common import out_dir
    from pixsel.io import save_figure

    names = list(results)
    y = np.arange(len(names))
    fig = Figure(figsize=(7.5, 0.45 * len(names) + 1.6))
    ax = fig.subplots()
    for off, key, colour in ((-0.18, "cold", "#D55E00"), (0.18, "warm", "#0072B2")):
        med = np.array([results[n][key]["median"] for n in names])
        lo = med - np.array([results[n][key]["min"] for n in names])
        hi = np.array([results[n][key]["max"] for n in names]) - med
        ax.barh(y + off, med, height=0.34, xerr=[lo, hi], color=colour, label=f"{key} compile cache")
    ax.axvline(goal, color="0.3", ls="--", lw=1, label=f"goal {goal:g} s")
    ax.set_xscale("log")  # fits of 0.03 s and compilations of a minute on one axis
    ax.set_yticks(y, names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("first fit in a fresh process (s), digits 1797 x 64")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, out_dir(args) / "bench_first_call.png", dpi=110)


def main(argv=None):
    p = parser("bench_first_call", __doc__.splitlines()[0], threads=1)
    p.add_argument("--repeat", type=int, default=3, help="fresh processes per measurement (default 3)")
    p.add_argument("--only", nargs="+", default=None, choices=tuple(ESTIMATORS), metavar="NAME",
                   help="measure only these estimators (names as printed)")
    args = p.parse_args(argv)
    names = tuple(args.only) if args.only else QUICK if args.quick else tuple(ESTIMATORS)
    base = dict(os.environ, OMP_NUM_THREADS=str(args.threads or ""), OPENBLAS_NUM_THREADS=str(args.threads or ""))
    if not args.threads:
        base.pop("OMP_NUM_THREADS"), base.pop("OPENBLAS_NUM_THREADS")
    load_before = os.getloadavg()
    results = {}
    imports, cpu = {}, {}
    statements = (("pixsel", "from pixsel import SparseLDASelector"),
                  ("scikit-learn", "from sklearn.feature_selection import SelectKBest"))
    runs = {label: [] for label, _ in statements}
    for _ in range(args.repeat):  # interleaved: a busy moment hits both alike
        for label, stmt in statements:
            runs[label].append(_run(_IMPORT, [stmt], base))
    for label, rs in runs.items():
        imports[label] = _summary([r["import_s"] for r in rs])
        cpu[label] = _summary([r["import_cpu_s"] for r in rs])
    for name in names:
        expr, which, check = ESTIMATORS[name]
        cold, warm = [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="pixsel-numba-") as cache:
                env = dict(base, NUMBA_CACHE_DIR=cache)
                cold.append(_run(_FIT, [expr, which or "none", check], env)["fit_s"])
                warm.append(_run(_FIT, [expr, which or "none", check], env)["fit_s"])
        results[name] = {"cold": _summary(cold), "warm": _summary(warm)}
        print(f"  {name}: cold {statistics.median(cold):.2f} s, warm {statistics.median(warm):.2f} s", flush=True)
    load_after = os.getloadavg()

    goal = 2.0
    print(f"\nfirst fit on digits (1797 x 64) in a fresh process, median (min-max) of {args.repeat}; "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'estimator':34s} {'cold cache (s)':>22s} {'warm cache (s)':>22s}")
    for name, r in results.items():
        c, w = r["cold"], r["warm"]
        print(f"{name:34s} {c['median']:8.2f} ({c['min']:.2f}-{c['max']:.2f}) {w['median']:11.2f} "
              f"({w['min']:.2f}-{w['max']:.2f})")
    worst_cold = max(r["cold"]["median"] for r in results.values())
    worst_warm = max(r["warm"]["median"] for r in results.values())
    print(f"import: pixsel {imports['pixsel']['median']:.2f} s (CPU {cpu['pixsel']['median']:.2f} s), scikit-learn "
          f"SelectKBest {imports['scikit-learn']['median']:.2f} s (CPU {cpu['scikit-learn']['median']:.2f} s) (goal: "
          f"pixsel no slower: {'met' if imports['pixsel']['median'] <= imports['scikit-learn']['median'] * 1.05 else 'not met'}"
          "; pixsel imports scikit-learn itself)")
    print(f"goal (first fit <= {goal} s): cold cache {'met' if worst_cold <= goal else 'not met'} "
          f"(worst median {worst_cold:.2f} s); warm cache {'met' if worst_warm <= goal else 'not met'} "
          f"(worst median {worst_warm:.2f} s)")
    _figure(results, goal, args)
    write_results(args, {"goal_s": goal, "repeat": args.repeat, "load_before": load_before, "load_after": load_after,
                         "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "import": imports, "import_cpu": cpu,
                         "fits": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
