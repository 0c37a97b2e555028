"""Small problems on the compiled or the NumPy kernels: the route's rules side by side, in fresh processes.

Goal: small NumPy problems (fewer than ``COMPILED_MIN_FEATURES`` features) run at least as fast
as before the size rule in a process that has loaded the compiled kernels already, and a fresh
process still neither imports Numba nor loads a compiled kernel for them (the first fit on
digits).

Cases: :func:`pixsel.spectral.greedy_path` on the statistics of USPS (16 x 16 pixels, the 7291
training images; ten digits: the ``9``-column factor of the between-class covariance, the
trace criterion backward and the largest eigenvalue forward and backward; 3 vs 5: the mean
difference, forward and backward), and :func:`pixsel.spectral.exact_support` on the problems
of ``bench_exact_speed.py`` (a two-class LDA pair of a Brownian-type process, ``n = 40``,
``k = 20``; a random full pair with the largest eigenvalue, ``n = 30``, ``k = 15``): their
greedy starts follow the route.

The rules:

* ``compiled``: the compiled kernels whatever the size (forced with
  :func:`pixsel.config.compiled_kernels`, the rule before small problems took the NumPy
  kernels);
* ``size``: the NumPy kernels below ``COMPILED_MIN_FEATURES`` features (forced NumPy: the
  previous rule, whatever the process had loaded);
* ``loaded``: the default now: the NumPy kernels for a small problem, unless this process has
  loaded the compiled kernels of its form, then those.

Four variants, each in fresh processes: the compiled rule and the loaded rule as the process
starts ("fresh": nothing compiled loaded yet; the size rule runs the same NumPy kernels there),
and the size rule and the loaded rule after an untimed large problem of the same form
(``p = 512``, its compiled kernels forced, as by an earlier fit that loaded them; the dual pass
of a vector or a factor, the forward pass of a full matrix). The statistics are computed once; per process they are read
(untimed), then the call is timed once ("first": the compiled rule's includes importing Numba
and loading the kernels from its cache) and ``--calls`` more times ("again": the median; the
compiled rule's are those of a process that has loaded the kernels, the speed before the size
rule). ``--repeat`` processes per measurement: median
and spread (min-max). Every rule must do the same work (the path's length, or the exact
search's status). Numba's cache must be filled (``python -m pixsel._jit``); the load average
is printed.

    python benchmarks/bench_route.py            # every case, 3 processes each
    python benchmarks/bench_route.py --quick    # three cases, a smaller exact problem, 1 process each
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import parser, write_results

#: name -> (kind, form, options)
CASES = {
    "USPS 10 classes, trace, backward": ("greedy", "factor", {"criterion": "trace", "direction": "backward"}),
    "USPS 10 classes, max-eig, forward": ("greedy", "factor", {"criterion": "max-eig", "direction": "forward"}),
    "USPS 10 classes, max-eig, backward": ("greedy", "factor", {"criterion": "max-eig", "direction": "backward"}),
    "USPS 3 vs 5, forward": ("greedy", "vector", {"direction": "forward"}),
    "USPS 3 vs 5, backward": ("greedy", "vector", {"direction": "backward"}),
    "exact_support, LDA Brownian n=40 k=20": ("exact", "vector", {"n": 40}),
    "exact_support, full max-eig n=30 k=15": ("exact", "full", {"n": 30}),
}
QUICK = ("USPS 10 classes, max-eig, backward", "USPS 3 vs 5, backward", "exact_support, LDA Brownian n=40 k=20")
STATES = ("fresh", "after a large fit")
#: (state, rule) measured: in a fresh process the size and the loaded rules run the same NumPy
#: kernels (the loaded rule's first call is that of the size rule), and the compiled rule's later
#: calls are those of a process that has loaded the kernels
VARIANTS = (("fresh", "compiled"), ("fresh", "loaded"), ("after a large fit", "size"), ("after a large fit", "loaded"))


def _statistics(kind, form, options, quick):
    """``(A, B)``: the case's statistics (computed once, by the parent process)."""
    import numpy as np

    if kind == "greedy":
        from pixsel.datasets import load_shared
        from pixsel.stats import class_statistics, regularize

        d = load_shared("usps_full_16x16.npz")
        X, y = d["X_train"].astype(np.float64), d["y_train"]
        if form == "vector":
            keep = (y == 3) | (y == 5)
            X, y = X[keep], y[keep]
        st = class_statistics(X, y)
        B, _ = regularize(st.within, "auto")
        return (np.asarray(st.between).ravel() if form == "vector" else st.between_factor), B
    from bench_exact_speed import lda_instance
    from _exact_common import random_pair

    rng = np.random.default_rng(0)
    n = 16 if quick else options["n"]
    return lda_instance(n, rng) if form == "vector" else random_pair(12 if quick else n, rng)


def _call(kind, options, A, B):
    """The call to time; it returns what every rule must agree on (the path's length, the status)."""
    from pixsel.spectral import exact_support, greedy_path

    if kind == "greedy":
        return lambda: len(greedy_path(A, B, **options).order)
    return lambda: exact_support(A, B, len(B) // 2, time_limit=60).status


def _load_form(form):
    """An untimed large problem of ``form`` (``p = 512``, the compiled kernels forced: the default
    runs a two-class vector and a short path of a full matrix on NumPy's kernels until something
    has loaded the compiled ones), as an earlier fit that loaded them would run: the dual pass (a
    full matrix: the forward pass to 8 features)."""
    import numpy as np

    from pixsel.config import compiled_kernels
    from pixsel.spectral import greedy_path

    with compiled_kernels(True):
        _large_problem(form, np, greedy_path)


def _large_problem(form, np, greedy_path):
    rng = np.random.default_rng(1)
    p = 512
    G = rng.standard_normal((2 * p, p))
    B = G.T @ G / (2 * p) + 0.1 * np.eye(p)
    if form == "full":
        F = rng.standard_normal((p, p // 4))
        greedy_path(F @ F.T / p, B, max_k=8)
        return
    A = rng.standard_normal(p) if form == "vector" else rng.standard_normal((p, 9))
    for direction in ("forward", "backward"):  # the dual pass of a selector's fit
        greedy_path(A, B, direction=direction)


def child(name, rule, state, calls, data):
    """One process: the case under one rule and state, on the statistics in ``data``; prints one JSON line."""
    import contextlib

    import numpy as np

    from pixsel.config import compiled_kernels

    kind, form, options = CASES[name]
    with np.load(data) as z:
        A, B = z["A"], z["B"]
    run = _call(kind, options, A, B)
    if state != "fresh":
        _load_form(form)
    numba_before = "numba" in sys.modules
    force = {"compiled": compiled_kernels(True), "size": compiled_kernels(False), "loaded": contextlib.nullcontext()}
    times, checks = [], []
    with force[rule]:
        for _ in range(1 + calls):
            t = time.perf_counter()
            checks.append(run())
            times.append(time.perf_counter() - t)
    assert len(set(checks)) == 1, checks
    print(json.dumps({"first": times[0], "again": statistics.median(times[1:]), "check": checks[0],
                      "numba_before": numba_before, "numba_after": "numba" in sys.modules}))


def _spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": len(values)}


def _fmt(t):
    return f"{t['median']:.3f} [{t['min']:.3f}-{t['max']:.3f}]"


def main(argv=None):
    ap = parser("route", __doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="processes per measurement (median and spread)")
    ap.add_argument("--calls", type=int, default=3, help="timed calls after the first, per process")
    ap.add_argument("--cases", default=None, help="case names separated by ';' (default: all, or the quick ones)")
    ap.add_argument("--child", nargs=4, metavar=("CASE", "RULE", "STATE", "DATA"), help=argparse_hidden())
    args = ap.parse_args(argv)
    if args.child:
        child(*args.child[:3], args.calls, args.child[3])
        return 0
    names = args.cases.split(";") if args.cases else (QUICK if args.quick else tuple(CASES))
    repeat = 1 if args.quick else args.repeat
    here = Path(__file__).resolve().parent
    env = dict(os.environ)
    if args.threads:
        env.update({v: str(args.threads) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores; {repeat} process(es) per row, "
          f"BLAS threads {args.threads or 'unlimited'}", flush=True)
    print(f"{'case':40s} {'state':18s} {'rule':9s} {'first call s':22s} {'again s':22s} numba", flush=True)
    rows = []
    tmp = tempfile.TemporaryDirectory()
    for i, name in enumerate(names):
        data = Path(tmp.name) / f"case{i}.npz"
        A, B = _statistics(*CASES[name], args.quick)
        np.savez(data, A=A, B=B)
        for state, rule in VARIANTS:
            runs = []
            for _ in range(repeat):
                cmd = [sys.executable, str(here / "bench_route.py"), "--child", name, rule, state, str(data),
                       "--calls", str(args.calls)]
                out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=here, timeout=900)
                if out.returncode != 0:
                    raise RuntimeError(f"{name} / {rule} / {state} failed:\n{out.stderr[-3000:]}")
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            checks = {r["check"] for r in runs}
            assert len(checks) == 1, (name, rule, state, checks)
            row = {"case": name, "state": state, "rule": rule, "check": runs[0]["check"],
                   "first_s": _spread([r["first"] for r in runs]), "again_s": _spread([r["again"] for r in runs]),
                   "numba_imported": any(r["numba_after"] for r in runs)}
            rows.append(row)
            print(f"{name:40s} {state:18s} {rule:9s} {_fmt(row['first_s']):22s} {_fmt(row['again_s']):22s} "
                  f"{'yes' if row['numba_imported'] else 'no'}", flush=True)
        same = {r["check"] for r in rows if r["case"] == name}
        assert len(same) == 1, (name, same)  # every rule did the same work
    summary = {}
    for name in names:
        by = {(r["state"], r["rule"]): r for r in rows if r["case"] == name}
        fresh, compiled = by[("fresh", "loaded")], by[("fresh", "compiled")]
        size, loaded = by[(STATES[1], "size")], by[(STATES[1], "loaded")]
        summary[name] = {
            "again_size_over_loaded": size["again_s"]["median"] / loaded["again_s"]["median"],
            "again_loaded_over_compiled": loaded["again_s"]["median"] / compiled["again_s"]["median"],
            "fresh_first_compiled_over_loaded": compiled["first_s"]["median"] / fresh["first_s"]["median"],
            "fresh_loaded_imports_numba": fresh["numba_imported"],
        }
        s = summary[name]
        print(f"{name}: after a large fit, size rule / loaded rule {s['again_size_over_loaded']:.1f}x, loaded "
              f"rule / compiled (again) {s['again_loaded_over_compiled']:.2f}x; fresh process first call, compiled / "
              f"loaded rule {s['fresh_first_compiled_over_loaded']:.1f}x (loaded rule imports Numba: "
              f"{s['fresh_loaded_imports_numba']})", flush=True)
    tmp.cleanup()
    print(f"load average {os.getloadavg()}", flush=True)
    path = write_results(args, {"rows": rows, "summary": summary, "repeat": repeat, "calls": args.calls,
                                "load_average": os.getloadavg()})
    print(f"wrote {path}")
    return 0


def argparse_hidden():
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    raise SystemExit(main())
