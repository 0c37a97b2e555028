"""Certified sparse PCA: face pixels, all 1024 pixels, and the classic small instances.

Side by side in one run, through the public API (``pixsel.spectral.exact``):

1. the 80 highest-variance pixels of Extended Yale B (32 x 32), ``k = 5, 10, 20, 40``:
   ``exact_support`` with each bound set (``'inclusion'``: the inclusion bound only;
   ``'cardinality'``: plus the row bounds, the default; ``'sdp'``: plus the dual bound of the
   sparse PCA relaxation), ``--limit`` seconds each (goal: certified optimal <= 60 s);
2. all 1024 pixels, **every** ``k = 1..--large-max-k`` (default 50) in ``--budget-large`` seconds
   in all (goal: every k <= 50 certified, or its certified gap <= 0.1 %, in <= 1 h in all, the
   default budget), by :func:`pixsel.spectral.exact_spca_path`: a first pass gives each size
   ``--limit-large`` seconds (default 36, half the hour over the 50 sizes) of
   ``exact_support(bounds='sdp')``, then the neighbours' supports (``k + 1`` less one pixel,
   ``k - 1`` plus one, improved by swaps) and the time left re-planned from the gaps (the sizes
   still open above 0.1 % searched again from their best support, those below 1 % first, the
   smallest gap first, each with a share in proportion to ``1 / gap``; the plan is described in
   :mod:`pixsel.spectral.exact._spca_path`).
   Printed per size: status, certified gap (the relative gap of the documentation's "Status and
   certified gap") and seconds per size; beside it the certified gap against the trivial bound ``lambda_max(A)``, the
   per-``k`` bound :func:`spca_bounds_path` gives ``pixsel path``, the older
   :func:`pixsel.spectral.bounds.inclusion_bounds` and the root SDP dual bound (20 first-order
   iterations, computed after the hour for the table, not counted in it);
3. correlation matrices with published optima, every ``k``: Pitprops (13 variables, Jeffers
   1967, typed in below), scikit-learn's wine (13) and breast cancer (30). Published optima:
   Pitprops ``k = 5: 3.406``, ``k = 10: 4.173``; wine ``k = 5: 3.43978``, ``k = 10: 4.59429``
   (Bertsimas, Cory-Wright and Pauphilet, "Solving large-scale sparse PCA to certifiable (near)
   optimality", JMLR 23, 2022, Table 2; the same values as Berk and Bertsimas, Math. Prog.
   Comp. 11, 2019). The larger instances that Berk and Bertsimas's Optimal-SPCA ships (gene
   expression and text sets with p in the hundreds to tens of thousands) are not in pixsel's
   shared data folder, so they are not run here.

The figure (``exact_spca.png``): per size of the 1024-pixel problem the certified gap (log scale,
certified sizes drawn at the floor, filled) and the seconds spent.

Run: ``python benchmarks/bench_exact_spca.py`` (``--quick``: k = 5 on the 80 pixels, the 128
highest-variance pixels instead of 1024 at k = 1..4, 1-10 s limits, Pitprops only;
``--parts 1024,classic`` skips the 80-pixel comparison of bound sets; ``--n-jobs 1,2`` runs the
1024-pixel plan once per thread count, one after the other with the same budget, and prints
their summaries side by side).
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import blas_threads, out_dir, parser, write_results

from pixsel.datasets import load_shared
from pixsel.spectral import exact_spca_path, exact_support
from pixsel.spectral.bounds import sdp_dual_bound

#: the goal's gap: a size certified optimal or within this (per cent) counts as met
GOAL_PCT = 0.1

#: Pitprops correlation matrix (Jeffers, J. N. R., "Two case studies in the application of
#: principal component analysis", Applied Statistics 16, 225-236, 1967; as printed by Zou, Hastie
#: and Tibshirani, JCGS 2006, and used by d'Aspremont et al. SIAM Review 2007). Upper triangle,
#: row by row; variables topdiam, length, moist, testsg, ovensg, ringtop, ringbut, bowmax,
#: bowdist, whorls, clear, knots, diaknot.
PITPROPS_UPPER = [
    [1, 0.954, 0.364, 0.342, -0.129, 0.313, 0.496, 0.424, 0.592, 0.545, 0.084, -0.019, 0.134],
    [1, 0.297, 0.284, -0.118, 0.291, 0.503, 0.419, 0.648, 0.569, 0.076, -0.036, 0.144],
    [1, 0.882, -0.148, 0.153, -0.029, -0.054, 0.125, -0.081, 0.162, 0.220, 0.126],
    [1, 0.220, 0.381, 0.174, -0.059, 0.137, -0.014, 0.097, 0.169, 0.015],
    [1, 0.364, 0.296, 0.004, -0.039, 0.037, -0.091, -0.145, -0.208],
    [1, 0.813, 0.090, 0.211, 0.274, -0.036, 0.024, -0.329],
    [1, 0.372, 0.465, 0.679, -0.113, -0.232, -0.424],
    [1, 0.482, 0.557, 0.061, -0.357, -0.202],
    [1, 0.526, 0.085, -0.127, -0.076],
    [1, -0.319, -0.368, -0.291],
    [1, 0.029, 0.007],
    [1, 0.184],
    [1],
]
PUBLISHED = {"pitprops": {5: 3.406, 10: 4.173}, "wine": {5: 3.43978, 10: 4.59429}}


def pitprops():
    p = len(PITPROPS_UPPER)
    R = np.zeros((p, p))
    for i, row in enumerate(PITPROPS_UPPER):
        R[i, i:] = row
    R = np.triu(R) + np.triu(R, 1).T
    w = np.linalg.eigvalsh(R)
    assert w[0] > 0, f"Pitprops matrix as typed is not positive definite (lambda_min {w[0]:.3g})"
    return R


def sklearn_corr(name):
    from sklearn import datasets

    X = getattr(datasets, f"load_{name}")().data
    return np.corrcoef(X, rowvar=False)


def yale_cov():
    X = load_shared("extyaleb_32x32.npz")["X"].astype(np.float64)
    Xc = X - X.mean(axis=0)
    return Xc.T @ Xc / len(X)


def solve(A, k, bounds, limit, initial=None):
    t = time.perf_counter()
    res = exact_support(A, None, k, time_limit=limit, bounds=bounds, initial=initial)
    return {
        "status": res.status, "time_s": time.perf_counter() - t, "nodes": res.n_nodes,
        "objective": res.objective, "upper_bound": res.upper_bound, "gap_pct": 100 * res.relative_gap,
        "support": [int(i) for i in res.support],
    }


def _progress(n_sizes):
    """exact_spca_path's callback: a line per size searched (the size with the largest gap so far)."""
    count = [0]

    def report(state):
        count[0] += 1
        print(f"  search {count[0]} ({'first pass' if count[0] <= n_sizes else 're-plan'}), {state.elapsed:6.0f} s: "
              f"largest gap {100 * state.gap / state.incumbent:.3g} %, {state.nodes} nodes", flush=True)

    return report


def _rows(path, lam, sdp_root):
    """The benchmark's rows (one per size) from the :class:`~pixsel.spectral.ExactPath` and the
    root SDP dual bounds computed after it (``{k: bound}``)."""
    rows = []
    for i, k in enumerate(path.k.tolist()):
        root = path.info["root_bounds"].get(k, {})
        rows.append({
            "k": k, "status": str(path.status[i]), "time_total_s": path.info["time_s"][i],
            "nodes": path.info["nodes"][i], "objective": float(path.objective[i]),
            "best_bound": float(path.upper_bound[i]), "best_gap_pct": 100 * float(path.relative_gap[i]),
            "upper_bound": float(path.upper_bound[i]), "gap_pct": 100 * float(path.relative_gap[i]),
            "row_root": root.get("row", np.nan), "sdp_root": sdp_root.get(k, np.nan),
            "path_ub": root.get("path", np.nan), "inclusion_bounds": root.get("inclusion", np.nan),
            "lambda_max": lam, "support": path.supports[i].tolist(),
            "replanned_s": sum(t for j, t in path.info["replanned"] if j == k),
        })
    return rows


def plot(rows, lam, path, title):
    """Certified gap (%) and seconds per size of the 1024-pixel problem."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pixsel.io import save_figure

    k = np.array([r["k"] for r in rows])
    gap = np.array([r["best_gap_pct"] for r in rows])
    cert = np.array([r["status"] in ("optimal", "gap_reached") for r in rows])
    floor = 1e-4
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(6.8, 5.4), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    g = np.where(cert, floor, np.maximum(gap, floor))
    ax.plot(k, g, "-", color="0.4", lw=0.8)
    ax.plot(k[cert], g[cert], "o", color="black", ms=4, label=f"certified optimal ({int(cert.sum())} of {len(k)})")
    ax.plot(k[~cert], g[~cert], "o", mfc="white", mec="black", ms=4,
            label="time limit: gap to the best certified bound")
    ax.axhline(0.1, color="tab:red", lw=0.8, ls="--", label="goal: gap <= 0.1 %")
    ax.set_yscale("log")
    ax.set_ylabel("certified gap (U - f) / f, %\n(certified drawn at 1e-4 %)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=9)
    ax2.bar(k, [r["time_total_s"] for r in rows], color=np.where(cert, "0.3", "0.75"))
    ax2.set_ylabel("seconds\n(search + root bounds)")
    ax2.set_xlabel("k (pixels)")
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def _jobs_summary(path, n_jobs):
    """What a run of the 1024-pixel part achieved, for the side-by-side of ``--n-jobs``."""
    gap = 100 * np.maximum(path.upper_bound - path.objective, 0.0) / path.objective
    certified = np.isin(path.status, ("optimal", "gap_reached"))
    return {"n_jobs": n_jobs, "certified": int((path.status == "optimal").sum()),
            "within_goal": int((certified | (gap <= GOAL_PCT)).sum()), "largest_gap_pct": float(gap.max()),
            "worst_k": int(np.argmax(gap)) + 1, "median_gap_pct": float(np.median(gap)), "wall_s": float(path.time),
            "nodes": int(path.n_nodes)}


def main(argv=None):
    ap = parser("exact_spca", __doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per solve on the 80 pixels")
    ap.add_argument("--limit-large", type=float, default=36.0,
                    help="seconds per size on 1024 pixels in the first pass (default 36: half an hour for k = 1..50)")
    ap.add_argument("--budget-large", type=float, default=3600.0,
                    help="seconds for every size of the 1024 pixels in all (default 3600, the goal's hour): what the "
                         "first pass leaves goes to the sizes still open above 0.1 %%, the smallest gaps first "
                         "(exact_spca_path's time_limit)")
    ap.add_argument("--large-max-k", type=int, default=50, help="sizes k = 1..this on 1024 pixels (default 50)")
    ap.add_argument("--parts", default="80,1024,classic", help="which parts run (comma-separated: 80, 1024, classic)")
    ap.add_argument("--small-limit", type=float, default=30.0, help="seconds per solve, classic instances")
    ap.add_argument("--n-jobs", default="1",
                    help="exact_spca_path's n_jobs for the 1024 pixels (default 1, the goal's one core); a "
                         "comma-separated list (e.g. 1,2) runs the part once per value, one after the other, with "
                         "the same budget, the table and figure for the first, a summary line for each")
    args = ap.parse_args(argv)
    jobs = [int(j) for j in str(args.n_jobs).split(",")]
    ks80, classic = (5, 10, 20, 40), ("pitprops", "wine", "breast_cancer")
    ks1024 = tuple(range(1, args.large_max_k + 1))
    parts = set(args.parts.split(","))
    n_large = None
    if args.quick:
        ks80, ks1024, classic, n_large = (5,), (1, 2, 3, 4), ("pitprops",), 128
        args.limit, args.limit_large, args.small_limit = 10.0, 1.0, 10.0
        args.budget_large = min(args.budget_large, 8.0)
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores", flush=True)
    out = {"yale80": {}, "yale1024": {}, "classic": {}, "load": os.getloadavg()}
    t_all = time.perf_counter()
    with blas_threads(args):
        A = yale_cov()
        top = np.sort(np.argsort(-np.diag(A), kind="stable")[:80])
        A80 = A[np.ix_(top, top)]
        lam80 = float(np.linalg.eigvalsh(A80)[-1])
        if "80" not in parts:
            ks80 = ()
        print(f"1. Extended Yale B, 80 highest-variance pixels, lambda_max = {lam80:.6g}, limit {args.limit:g} s")
        print(f"{'k':>3} | {'bounds':>11} | {'status':>10} | {'time s':>7} | {'nodes':>7} | {'objective':>10} | "
              f"{'bound':>10} | gap %")
        for k in ks80:
            for bounds in ("inclusion", "cardinality", "sdp"):
                r = solve(A80, k, bounds, args.limit)
                out["yale80"][f"{k}/{bounds}"] = r
                print(f"{k:>3} | {bounds:>11} | {r['status']:>10} | {r['time_s']:7.2f} | {r['nodes']:7d} | "
                      f"{r['objective']:10.6g} | {r['upper_bound']:10.6g} | {r['gap_pct']:.3g}", flush=True)

        if n_large is not None:
            top = np.sort(np.argsort(-np.diag(A), kind="stable")[:n_large])
            A = A[np.ix_(top, top)]
        lam = float(np.linalg.eigvalsh(A)[-1])
        print(f"\n2. Extended Yale B, all {A.shape[0]} pixels, lambda_max = {lam:.6g} (the trivial bound), "
              f"limit {args.limit_large:g} s per k")
        if "1024" not in parts:
            ks1024 = ()
        if ks1024:
            budget = args.budget_large
            path = exact_spca_path(A, max(ks1024), time_limit=budget, first_limit=args.limit_large, goal=GOAL_PCT / 100,
                                   n_jobs=jobs[0], callback=_progress(len(ks1024)))
            # the root SDP dual bound per size, for the table only: after the hour, not counted in it
            # (20 first-order iterations, as the hour computed it before its plan moved into the library)
            t = time.perf_counter()
            sdp_root = {k: sdp_dual_bound(A, k, max_iter=20, time_limit=0.25 * args.limit_large)[0] for k in ks1024}
            print(f"root SDP dual bounds for the table (20 iterations a size, after the hour, not counted in it): "
                  f"{time.perf_counter() - t:.0f} s", flush=True)
            rows = _rows(path, lam, sdp_root)
            out["yale1024"] = {str(r["k"]): r for r in rows}
            print(f"{'k':>3} | {'status':>10} | {'time s':>7} | {'nodes':>7} | {'objective':>10} | {'bound':>10} | "
                  f"{'gap %':>6} | {'row root':>10} | {'sdp root':>10} | {'path ub':>10} | {'inclusion_bounds':>16} | "
                  f"bound / lambda_max")
            for r in rows:
                print(f"{r['k']:>3} | {r['status']:>10} | {r['time_total_s']:7.1f} | {r['nodes']:7d} | "
                      f"{r['objective']:10.6g} | {r['best_bound']:10.6g} | {r['best_gap_pct']:6.3g} | {r['row_root']:10.6g} | "
                      f"{r['sdp_root']:10.6g} | {r['path_ub']:10.6g} | {r['inclusion_bounds']:16.6g} | "
                      f"{r['best_bound'] / lam:18.3f}")
            print("from the neighbours' supports: " + (", ".join(
                f"k = {k} {o:.6g} -> {v:.6g} (+{100 * (v / o - 1):.2f} %)"
                for k, (o, v) in sorted(path.info["raised"].items())) or "no size raised"))
            print(f"re-planned: {len(path.info['replanned'])} open size(s) searched again from their best support in "
                  f"the time the first pass left of {budget:g} s, the smallest gaps first (below {10 * GOAL_PCT:g} % "
                  "first): " + (", ".join(f"k = {k} +{t:.1f} s" for k, t in path.info["replanned"]) or "none"))
            cert = [r for r in rows if r["status"] in ("optimal", "gap_reached")]
            close = [r for r in rows if r["status"] in ("optimal", "gap_reached") or r["best_gap_pct"] <= GOAL_PCT]
            tot = sum(r["time_total_s"] for r in rows)
            worst = max(rows, key=lambda r: r["best_gap_pct"])
            print(f"SUMMARY Yale B {A.shape[0]} pixels, k = 1..{max(ks1024)}: {len(cert)} certified optimal, "
                  f"{len(close)} certified or gap <= 0.1 %, in {tot:.0f} s with the root bounds, {path.time:.0f} s of "
                  f"wall clock for the part (goal: all {len(rows)} in <= 3600 s); largest gap "
                  f"{worst['best_gap_pct']:.3g} % at k = {worst['k']} (best certified bound: the solver's or a root "
                  f"bound); load {os.getloadavg()}", flush=True)
            plot(rows, lam, out_dir(args) / "exact_spca.png",
                 f"Sparse PCA, Extended Yale B, {A.shape[0]} pixels, every k: {args.limit_large:g} s per size,\n"
                 f"then the gaps re-planned ({len(cert)}/{len(rows)} certified optimal, {tot:.0f} s)")
            out["yale1024_jobs"] = {str(jobs[0]): _jobs_summary(path, jobs[0])}
            for n in jobs[1:]:  # the same plan and budget on more threads, one run after the other
                other = exact_spca_path(A, max(ks1024), time_limit=budget, first_limit=args.limit_large,
                                        goal=GOAL_PCT / 100, n_jobs=n, callback=_progress(len(ks1024)))
                out["yale1024_jobs"][str(n)] = _jobs_summary(other, n)
            if len(jobs) > 1:
                print(f"n_jobs side by side ({budget:g} s each, one run after the other; load {os.getloadavg()}):")
                for n, r in out["yale1024_jobs"].items():
                    print(f"  n_jobs = {n:>2}: {r['certified']} certified optimal, {r['within_goal']} certified or gap <= "
                          f"{GOAL_PCT:g} %, largest gap {r['largest_gap_pct']:.3g} % at k = {r['worst_k']}, median gap "
                          f"{r['median_gap_pct']:.3g} %, {r['wall_s']:.0f} s of wall clock", flush=True)

        print(f"\n3. Correlation matrices, every k, limit {args.small_limit:g} s per k (default bounds)")
        print(f"{'matrix':>13} | {'p':>3} | certified | total s | worst k (s) | published k: ours (paper)")
        if "classic" not in parts:
            classic = ()
        for name in classic:
            R = pitprops() if name == "pitprops" else sklearn_corr(name)
            p = R.shape[0]
            rows = []
            for k in range(1, p + 1):
                rows.append(solve(R, k, "cardinality", args.small_limit))
            out["classic"][name] = rows
            ok = sum(r["status"] == "optimal" for r in rows)
            tot = sum(r["time_s"] for r in rows)
            worst = int(np.argmax([r["time_s"] for r in rows]))
            pub = "; ".join(f"k={k}: {rows[k - 1]['objective']:.5f} ({v})" for k, v in PUBLISHED.get(name, {}).items())
            print(f"{name:>13} | {p:>3} | {ok:>4}/{p:<4} | {tot:7.2f} | {worst + 1:>3} ({rows[worst]['time_s']:.2f}) | "
                  f"{pub or '-'}", flush=True)
            for k, v in PUBLISHED.get(name, {}).items():
                assert abs(rows[k - 1]["objective"] - v) <= 1e-3 * v + 1e-3, f"{name} k={k} disagrees with the paper"
    print(f"total {time.perf_counter() - t_all:.0f} s; load average {os.getloadavg()}")
    write_results(args, {"args": {"limit": args.limit, "limit_large": args.limit_large,
                                  "budget_large": args.budget_large, "parts": sorted(parts)}, **out})


if __name__ == "__main__":
    main()
