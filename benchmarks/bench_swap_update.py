"""Swap refinement with updated sweeps against sweeps recomputed from scratch, side by side.

Claim: after a move ``S -> S - i + j`` the additive swap search
(:func:`pixsel.spectral.swap_refine`, the second stage of ``SparseLDASelector(k).fit`` at its
defaults) updates what its next sweep reads (``T = B_SS^{-1} B_S,out``, the Schur complements
``s0`` and residuals ``R0`` of the features outside) by a downdate and a bordering instead of
recomputing them, and values the ``k (p - k)`` swaps in fewer passes over the table (on the
compiled route, in one pass that keeps the best without writing the table); the supports and the number of moves are those of the search before (one sweep from scratch per
move), which this asserts; the time of the search and of the whole default fit fall.

"Before" is ``src/pixsel/spectral/greedy/_swap.py`` of the git revision ``--before`` (read with
``git show``, loaded beside the current module), run on the same inputs: the ``a`` (or factor),
the within-class operator and the forward support that a default fit passes to the search
(captured from one fit). Both searches, and both default fits (with the search of each), take
turns: one run of each per round, at least ``--repeat`` rounds (more, up to 200, until a second
has gone by); median and spread (min-max) of each, the load average printed, BLAS on
``--threads`` threads.

Data: the splits of the quality benchmark (``bench_quality.py``, seed 0): colon (Alon et al.,
31 training samples, 2000 genes, two classes) at k = 5, 10, 25, 50, 100 and Extended Yale B,
5 images per person (38 classes, 32 x 32) at k = 50 and 100.

    python benchmarks/bench_swap_update.py            # the sets above
    python benchmarks/bench_swap_update.py --quick    # colon at k = 5 and 10, seconds
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import blas_threads, parser, write_results

import pixsel.selection._lda as lda_module
from pixsel import SparseLDASelector
from pixsel.spectral import swap_refine

CASES = {"colon": (5, 10, 25, 50, 100), "yaleb5": (50, 100)}
QUICK_CASES = {"colon": (5, 10)}


def load_average():
    import os

    return [round(x, 2) for x in os.getloadavg()]


def before_module(rev):
    """The swap module of git revision ``rev``, loaded as ``pixsel.spectral.greedy._swap_before``
    (its relative imports resolve in the current package); None outside a git checkout."""
    repo = Path(__file__).resolve().parents[1]
    try:
        text = subprocess.run(["git", "-C", str(repo), "show", f"{rev}:src/pixsel/spectral/greedy/_swap.py"],
                              capture_output=True, check=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"no 'before' ({rev}) measured: {exc}", flush=True)
        return None
    path = Path(tempfile.mkdtemp()) / "_swap_before.py"
    path.write_text(text)
    name = "pixsel.spectral.greedy._swap_before"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def captured_inputs(X, y, k):
    """The arguments a default fit passes to ``swap_refine`` (and the fitted selector)."""
    seen = {}

    def capture(a, B, start, **kw):
        seen["args"] = (a, B, np.array(start), kw)
        return swap_refine(a, B, start, **kw)

    lda_module.swap_refine = capture
    try:
        sel = SparseLDASelector(k).fit(X, y)
    finally:
        lda_module.swap_refine = swap_refine
    return seen.get("args"), sel


def turns(fns, repeat):
    """Each of ``fns`` once per round (one warm-up round first), at least ``repeat`` rounds and up
    to 200 until a second has gone by; ``{name: {median, min, max, runs}}`` and the last results."""
    out = {name: fn() for name, fn in fns.items()}
    times = {name: [] for name in fns}
    start, rounds = time.perf_counter(), 0
    while rounds < repeat or (rounds < 200 and time.perf_counter() - start < 1.0):
        for name, fn in fns.items():
            t = time.perf_counter()
            out[name] = fn()
            times[name].append(time.perf_counter() - t)
        rounds += 1
    return {name: {"median": float(np.median(ts)), "min": float(min(ts)), "max": float(max(ts)), "runs": len(ts)}
            for name, ts in times.items()}, out


def fmt(t):
    return f"{t['median'] * 1e3:.3g} ms [{t['min'] * 1e3:.3g}-{t['max'] * 1e3:.3g}]"


def main():
    p = parser("bench_swap_update", __doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7, help="rounds at least (default 7)")
    p.add_argument("--before", default="4f2bf7d", help="git revision of the search from scratch (default 4f2bf7d)")
    args = p.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_quality import load_dataset, split

    old = before_module(args.before)
    rows = []
    for key, ks in (QUICK_CASES if args.quick else CASES).items():
        X, y, spec, _ = load_dataset(key, False)
        X = np.asarray(X, dtype=np.float64)
        tr, _ = split(X, y, spec, 0)
        Xtr, ytr = X[tr], y[tr]
        for k in ks:
            with blas_threads(args):
                (a, B, start, kw), sel = captured_inputs(Xtr, ytr, k)
                searches = {"now": lambda: swap_refine(a, B, start, **kw)}
                fits = {"now": lambda: SparseLDASelector(k).fit(Xtr, ytr)}
                if old is not None:
                    searches["before"] = lambda: old.swap_refine(a, B, start, **kw)

                    def fit_before():
                        lda_module.swap_refine = old.swap_refine
                        try:
                            return SparseLDASelector(k).fit(Xtr, ytr)
                        finally:
                            lda_module.swap_refine = swap_refine

                    fits["before"] = fit_before
                t_search, res = turns(searches, args.repeat)
                t_fit, fitted = turns(fits, args.repeat)
            row = {"data": key, "n_train": int(len(ytr)), "p": int(Xtr.shape[1]), "k": k,
                   "n_swaps": int(res["now"].n_swaps), "search": t_search, "fit": t_fit}
            for f in fitted.values():
                assert int(f.get_support().sum()) == k  # the fit did the work asked
            if "before" in res:
                row["same_support"] = bool(np.array_equal(res["now"].support, res["before"].support)
                                           and res["now"].n_swaps == res["before"].n_swaps)
                row["same_fit"] = bool(np.array_equal(fitted["now"].get_support(), fitted["before"].get_support()))
                row["objective_rel_diff"] = abs(res["now"].objective - res["before"].objective) / abs(
                    res["before"].objective)
                row["search_ratio"] = t_search["now"]["median"] / t_search["before"]["median"]
                row["fit_ratio"] = t_fit["now"]["median"] / t_fit["before"]["median"]
                assert row["same_support"] and row["same_fit"], row  # the same moves, only faster
            row["load_average"] = load_average()
            line = f"{key} (n={len(ytr)}, p={Xtr.shape[1]}) k={k}: {row['n_swaps']} swaps; swap_refine now {fmt(t_search['now'])}"
            if "before" in res:
                line += (f", before {fmt(t_search['before'])} = {row['search_ratio']:.2f} x; default fit now "
                         f"{fmt(t_fit['now'])}, before {fmt(t_fit['before'])} = {row['fit_ratio']:.2f} x; same "
                         f"support {row['same_support']} (fit {row['same_fit']}), objective rel. diff "
                         f"{row['objective_rel_diff']:.1e}")
            else:
                line += f"; default fit now {fmt(t_fit['now'])}"
            print(line + f"; load {row['load_average']}", flush=True)
            rows.append(row)
    write_results(args, {"rows": rows, "before": args.before})


if __name__ == "__main__":
    main()
