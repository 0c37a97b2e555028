"""Speed of the certified exact solver against the paper's plain depth-first ESLDA.

Problems (both solvers on the same instances, in the same run):

* binary LDA, n = 40, k = 20 (goal: certified optimum in <= 10 s; Moghaddam, Weiss and Avidan (ICML 2006): ~2 h):
  ``lda-brownian``: two classes of 200 samples of a Brownian-type process (kernel
  ``exp(-|i-j|^gamma / l)``, see ``_exact_common.py``) with a random class-mean shift; ``a`` and the
  pooled within-class ``B`` (ridge 'auto') from the samples. ``sonar40``: UCI Sonar, bands 0-39.
* full-rank ``'max-eig'``, n = 30, k = 15: Monte Carlo pairs (A, B) of ``_exact_common.random_pair``.

``plain`` is ``pixsel.spectral.plain_search``: depth-first, inclusion bound only, a fresh
factorization per node, same greedy incumbent - the paper's method; it runs under
``--plain-limit`` seconds and, when stopped, reports the root bound as its certificate.

Also ``exact_path`` (every k of the same binary problems in one leaps-and-bounds tree,
under ``--limit`` seconds), printed beside the single-k solves.

Run: ``python benchmarks/bench_exact_speed.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import blas_threads, parser, write_results
from _exact_common import brownian_kernel, random_pair, sample_cov

from pixsel.datasets import load_shared
from pixsel.spectral import exact_path, exact_support, plain_search
from pixsel.stats import class_statistics, regularize


def lda_instance(n, rng, n_samples=200):
    K = brownian_kernel(n, rng.uniform(0.2, 2.0), rng.uniform(1.0, n / 2))
    w, V = np.linalg.eigh(K)
    L = V * np.sqrt(np.maximum(w, 0))
    y = rng.integers(0, 2, n_samples)
    X = rng.standard_normal((n_samples, n)) @ L.T
    X[y == 1] += 0.3 * rng.standard_normal(n)
    st = class_statistics(X, y)
    B, _ = regularize(st.within, "auto")
    return np.asarray(st.between).ravel(), B


def hard_instance(n, rng):
    """A harder binary pair: a random ``a`` (not a class-mean difference of the same process) and
    ``B`` the sample covariance of 2n draws of a Brownian-type process (+ ridge 1e-3 trace / n)."""
    K = brownian_kernel(n, rng.uniform(0.2, 2.0), rng.uniform(1.0, n / 2))
    B = sample_cov(K, 2 * n, rng)
    return rng.standard_normal(n), B + 1e-3 * np.trace(B) / n * np.eye(n)


def sonar_instance(n):
    d = load_shared("uci_sonar.npz")
    st = class_statistics(d["X"][:, :n].astype(np.float64), d["y"])
    B, _ = regularize(st.within, "auto")
    return np.asarray(st.between).ravel(), B


def solve_both(name, A, B, k, args):
    row = {"instance": name, "n": len(B), "k": k}
    for strategy, solve, limit in (("best-first", exact_support, args.limit), ("plain", plain_search, args.plain_limit)):
        t = time.perf_counter()
        with blas_threads(args):
            res = solve(A, B, k, time_limit=limit)
        row[strategy] = {
            "status": res.status,
            "time_s": time.perf_counter() - t,
            "nodes": res.n_nodes,
            "objective": res.objective,
            "upper_bound": res.upper_bound,
            "rel_gap": res.relative_gap,
        }
    a, b = row["best-first"], row["plain"]
    print(
        f"{name:>16s} n={len(B)} k={k} | ours: {a['status']:>10s} {a['time_s']:7.2f} s {a['nodes']:8d} nodes"
        f" | plain: {b['status']:>10s} {b['time_s']:7.2f} s {b['nodes']:8d} nodes gap {b['rel_gap']:.2e}"
        f" | same objective: {np.isclose(a['objective'], b['objective'], rtol=1e-9)}",
        flush=True,
    )
    return row


def path_row(name, a, B, k, args, row):
    """``exact_path`` on the same binary problem: every k in one search."""
    t = time.perf_counter()
    with blas_threads(args):
        path = exact_path(a, B, time_limit=args.limit)
    el = time.perf_counter() - t
    row["exact_path"] = {
        "time_s": el, "nodes": path.n_nodes, "certified": int(path.certified.sum()), "search_status": path.search_status,
        "max_rel_gap": float(path.relative_gap.max()),
        "same_objective_at_k": bool(np.isclose(path.objective[k - 1], row["best-first"]["objective"], rtol=1e-9)),
    }
    e = row["exact_path"]
    print(f"{name:>16s} exact_path, all {len(B)} k: {e['certified']}/{len(B)} certified in {el:.2f} s, {e['nodes']} nodes"
          f" ({e['search_status']}); same optimum at k={k} as exact_support: {e['same_objective_at_k']}", flush=True)


def main(argv=None):
    ap = parser("exact_speed", __doc__.splitlines()[0])
    ap.add_argument("--binary-instances", type=int, default=5)
    ap.add_argument("--full-instances", type=int, default=3)
    ap.add_argument("--hard-instances", type=int, default=0,
                    help="extra hard binary instances (hard_instance) to show certified gaps under the limit")
    ap.add_argument("--limit", type=float, default=120.0, help="time limit of our solver (s)")
    ap.add_argument("--plain-limit", type=float, default=60.0, help="time limit of the plain DFS (s)")
    ap.add_argument("--n-binary", type=int, default=40, help="n of the binary instances (k = n / 2)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    nb, kb, nf, kf = (args.n_binary, args.n_binary // 2, 30, 15) if not args.quick else (16, 8, 12, 6)
    if args.quick:
        args.binary_instances, args.full_instances = 1, 1
        args.plain_limit = min(args.plain_limit, 2.0)
    rng = np.random.default_rng(args.seed)
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores", flush=True)
    rows = []
    for i in range(args.binary_instances):
        a, B = lda_instance(nb, rng)
        rows.append(solve_both(f"lda-brownian-{i}", a, B, kb, args))
        path_row(f"lda-brownian-{i}", a, B, kb, args, rows[-1])
    if not args.quick and nb <= 60:
        try:
            a, B = sonar_instance(nb)
            rows.append(solve_both(f"sonar{nb}", a, B, kb, args))
            path_row(f"sonar{nb}", a, B, kb, args, rows[-1])
        except FileNotFoundError as err:
            print(f"sonar40 skipped: {err}")
    for i in range(args.hard_instances):
        a, B = hard_instance(nb, rng)
        rows.append(solve_both(f"hard-brownian-{i}", a, B, kb, args))
    for i in range(args.full_instances):
        A, B = random_pair(nf, rng)
        rows.append(solve_both(f"full-maxeig-{i}", A, B, kf, args))
    summary = {}
    for kind in ("lda-brownian", f"sonar{nb}", "hard-brownian", "full-maxeig"):
        sel = [r for r in rows if r["instance"].startswith(kind)]
        if not sel:
            continue
        t_ours = [r["best-first"]["time_s"] for r in sel]
        t_plain = [r["plain"]["time_s"] for r in sel]
        summary[kind] = {
            "median_time_ours_s": float(np.median(t_ours)),
            "max_time_ours_s": float(np.max(t_ours)),
            "all_certified_ours": all(r["best-first"]["status"] == "optimal" for r in sel),
            "plain_finished": sum(r["plain"]["status"] == "optimal" for r in sel),
            "median_time_plain_s": float(np.median(t_plain)),
            "median_nodes_ours": float(np.median([r["best-first"]["nodes"] for r in sel])),
            "median_nodes_plain": float(np.median([r["plain"]["nodes"] for r in sel])),
            "max_rel_gap_ours": float(np.max([r["best-first"]["rel_gap"] for r in sel])),
        }
        paths = [r["exact_path"] for r in sel if "exact_path" in r]
        if paths:
            summary[kind]["exact_path_median_time_s"] = float(np.median([e["time_s"] for e in paths]))
            summary[kind]["exact_path_all_certified"] = all(e["certified"] == nb for e in paths)
        s = summary[kind]
        print(
            f"SUMMARY {kind}: ours median {s['median_time_ours_s']:.2f} s (max {s['max_time_ours_s']:.2f} s),"
            f" {s['median_nodes_ours']:.0f} nodes, all certified {s['all_certified_ours']};"
            f" plain finished {s['plain_finished']}/{len(sel)}, median {s['median_time_plain_s']:.1f} s,"
            f" {s['median_nodes_plain']:.0f} nodes; ours max certified rel. gap {s['max_rel_gap_ours']:.2e}"
            + (f"; exact_path (all k) median {s['exact_path_median_time_s']:.2f} s, all certified"
               f" {s['exact_path_all_certified']}" if "exact_path_median_time_s" in s else ""),
            flush=True,
        )
    options = {k: v for k, v in vars(args).items() if k != "out"}
    path = write_results(args, {"args": options, "load": os.getloadavg(), "rows": rows, "summary": summary}, name="speed")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
