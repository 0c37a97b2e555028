"""The default fit's swap search with updated sweeps, beside the search that recomputed every sweep.

Claim: after a move ``S -> S - i + j`` the additive swap search
(:func:`pixsel.spectral.swap_refine`, the second stage of ``SparseLDASelector(k).fit`` at its
defaults) updates what its next sweep reads (``T = B_SS^{-1} B_S,out``, the Schur complements
``s0`` and residuals ``R0`` of the features outside) by a downdate and a bordering instead of
recomputing them, and values the ``k (p - k)`` swaps in fewer passes over the table (on the
compiled route, in one pass that keeps the best without writing the table); the supports are
those of the search before, which this asserts; the default fit's time falls by what the
swaps saved.

"Before" is the ``src`` of the git revision ``--before`` (read with ``git archive``; skipped
outside a git checkout). Each version runs in fresh processes that take turns (``--rounds``
processes of each, alternating); each process loads the data, makes one warm-up fit of each
kind, then ``--repeat`` rounds of ``SparseLDASelector(k, refine=False).fit`` (the forward pass
alone) and ``SparseLDASelector(k).fit`` (the default: the forward pass, then the swaps) in
turns, BLAS on ``--threads`` threads. Printed: the median and spread (min-max) of all the fits of
each version, the swaps' time (the default's median minus the forward pass's), the ratios now /
before and the load average.

Data: the splits of the quality benchmark (``bench_quality.py``, seed 0): colon (Alon et al.,
31 training samples, 2000 genes, two classes) at k = 5, 10, 25, 50, 100 and Extended Yale B,
5 images per person (38 classes, 32 x 32) at k = 50 and 100.

    python benchmarks/bench_swap_update.py            # the sets above
    python benchmarks/bench_swap_update.py --quick    # colon at k = 5 and 10
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _common import parser, write_results

CASES = [("colon", [5, 10, 25, 50, 100]), ("yaleb5", [50, 100])]
QUICK_CASES = [("colon", [5, 10])]

#: what each process runs: the fits of every case, their times, the default's support
_CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from bench_quality import load_dataset, split
from threadpoolctl import threadpool_limits
import pixsel
from pixsel import SparseLDASelector

cases, repeat, threads = json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = []
with threadpool_limits(limits=threads or None):
    for key, ks in cases:
        X, y, spec, _ = load_dataset(key, False)
        X = np.asarray(X, dtype=np.float64)
        tr, _ = split(X, y, spec, 0)
        Xtr, ytr = X[tr], y[tr]
        for k in ks:
            fits = {"forward": lambda: SparseLDASelector(k, refine=False).fit(Xtr, ytr),
                    "default": lambda: SparseLDASelector(k).fit(Xtr, ytr)}
            sel = {name: fit() for name, fit in fits.items()}  # warm-up
            times = {name: [] for name in fits}
            for _ in range(repeat):
                for name, fit in fits.items():
                    t = time.perf_counter()
                    sel[name] = fit()
                    times[name].append(time.perf_counter() - t)
            support = np.flatnonzero(sel["default"].get_support())
            assert len(support) == k  # the fit did the work asked
            rows.append({"data": key, "k": k, "times": times, "support": support.tolist(),
                         "n_swaps": int(getattr(sel["default"], "n_swaps_", -1))})
print(json.dumps({"pixsel": pixsel.__file__, "rows": rows}))
"""


def load_average():
    return [round(x, 2) for x in os.getloadavg()]


def stats(ts):
    return {"median": float(np.median(ts)), "min": float(min(ts)), "max": float(max(ts)), "runs": len(ts)}


def fmt(t):
    return f"{t['median'] * 1e3:.3g} ms [{t['min'] * 1e3:.3g}-{t['max'] * 1e3:.3g}]"


def run(src, cases, args):
    """One process of one version (``src`` first on its path; None: this process's pixsel)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    bench = str(Path(__file__).resolve().parent)
    proc = subprocess.run([sys.executable, "-c", _CHILD, bench, json.dumps(cases), str(args.repeat), str(args.threads)],
                          capture_output=True, text=True, env=env, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert src is None or Path(out["pixsel"]).is_relative_to(src), out["pixsel"]  # the version asked
    return out["rows"]


def main():
    p = parser("bench_swap_update", __doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7, help="fits of each kind per process (default 7)")
    p.add_argument("--rounds", type=int, default=3, help="processes of each version, in turns (default 3)")
    p.add_argument("--before", default="4f2bf7d", help="git revision of the search before (default 4f2bf7d)")
    p.add_argument("--cases", default=None,
                   help="sets and k of the quality benchmark instead, e.g. 'sonar:5,10,25;ionosphere:5,10'")
    args = p.parse_args()
    cases = QUICK_CASES if args.quick else CASES
    if args.cases:
        cases = [(key, [int(k) for k in ks.split(",")]) for key, ks in
                 (part.split(":") for part in args.cases.split(";") if part)]
    if args.quick:
        args.repeat, args.rounds = min(args.repeat, 3), min(args.rounds, 2)
    print(f"load average before: {load_average()}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        versions = {"now": None}
        repo = Path(__file__).resolve().parents[1]
        try:
            archive = subprocess.run(["git", "-C", str(repo), "archive", args.before, "src"], capture_output=True,
                                     check=True, timeout=120).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True, timeout=120)
            versions = {"before": Path(tmp) / "src", "now": None}
        except (OSError, subprocess.SubprocessError) as exc:
            print(f"no 'before' ({args.before}) measured: {exc}", flush=True)
        runs = {name: [] for name in versions}
        for _ in range(args.rounds):
            for name, src in versions.items():
                runs[name].append(run(src, cases, args))
    rows = []
    for c, first in enumerate(runs["now"][0]):
        row = {"data": first["data"], "k": first["k"], "n_swaps": first["n_swaps"]}
        for name, rs in runs.items():
            cell = [r[c] for r in rs]
            row[name] = {kind: stats([t for r in cell for t in r["times"][kind]]) for kind in ("forward", "default")}
            row[name]["swaps"] = row[name]["default"]["median"] - row[name]["forward"]["median"]
            row[name]["supports"] = {tuple(r["support"]) for r in cell}
        line = f"{row['data']} k={row['k']}: {row['n_swaps']} swaps; default fit now {fmt(row['now']['default'])}"
        if "before" in runs:
            same = row["now"]["supports"] == row["before"]["supports"] and len(row["now"]["supports"]) == 1
            assert same, row  # the same support, only faster
            row["fit_ratio"] = row["now"]["default"]["median"] / row["before"]["default"]["median"]
            row["swaps_ratio"] = row["now"]["swaps"] / row["before"]["swaps"]
            line += (f", before {fmt(row['before']['default'])} = {row['fit_ratio']:.2f} x; the swaps (default - "
                     f"forward pass) now {row['now']['swaps'] * 1e3:.3g} ms, before {row['before']['swaps'] * 1e3:.3g} "
                     f"ms = {row['swaps_ratio']:.2f} x; same support {same}")
        row["load_average"] = load_average()
        print(line + f"; load {row['load_average']}", flush=True)
        for name in runs:
            row[name]["supports"] = [list(s) for s in row[name]["supports"]]
        rows.append(row)
    print(f"load average after: {load_average()}", flush=True)
    print(f"wrote {write_results(args, {'rows': rows, 'before': args.before})}")


if __name__ == "__main__":
    main()
