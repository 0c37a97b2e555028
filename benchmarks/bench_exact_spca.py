"""Certified sparse PCA: face pixels, all 1024 pixels, and the classic small instances.

Side by side in one run, through the public API (``pixsel.spectral.exact``):

1. the 80 highest-variance pixels of Extended Yale B (32 x 32), ``k = 5, 10, 20, 40``:
   ``exact_support`` with each bound set (``'inclusion'``: the inclusion bound only;
   ``'cardinality'``: plus the row bounds, the default; ``'sdp'``: plus the dual bound of the
   sparse PCA relaxation), ``--limit`` seconds each (goal: certified optimal <= 60 s);
2. all 1024 pixels, **every** ``k = 1..--large-max-k`` (default 50), ``exact_support(bounds='sdp')``
   in ``--budget-large`` seconds in all (goal: every k <= 50 certified, or its certified gap
   <= 0.1 %, in <= 1 h in all, the default budget): a first pass gives each size ``--limit-large``
   seconds (default 36, half the hour over the 50 sizes), then the time it leaves is re-planned
   from the gaps: the sizes still open above 0.1 % are searched again from their best support,
   the smallest gap first, each with a share of the time left in proportion to ``1 / gap`` (a
   size near the goal needs the least search, a size that finishes early leaves its time to the
   next), first those whose gap is below ten times the goal (1 %), then, with what they leave,
   the others. Before the re-plan, before each size is searched again, and at the end, the open
   sizes' best supports are raised from their neighbours' (the support of ``k + 1`` less one
   pixel, of ``k - 1`` plus one, each improved by swaps): a size's own search can stop far
   below what its neighbour's support gives.
   Printed per size: status, certified gap (the relative gap of the documentation's "Status and
   certified gap") and seconds per size; beside it the certified gap against the trivial bound ``lambda_max(A)``, the
   per-``k`` bound :func:`spca_bounds_path` gives ``pixsel path`` and the older
   :func:`pixsel.spectral.bounds.inclusion_bounds`;
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
``--parts 1024,classic`` skips the 80-pixel comparison of bound sets).
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import blas_threads, out_dir, parser, write_results

from pixsel.datasets import load_shared
from pixsel.spectral import exact_support, refine_support
from pixsel.spectral.bounds import inclusion_bounds, row_bound, sdp_dual_bound, spca_bounds_path

#: the goal's gap: a size certified optimal or within this (per cent) counts as met
GOAL_PCT = 0.1
#: Seconds of the hour kept for the last sweep of the neighbours' supports (about 10 s on the faces).
NEIGHBOUR_RESERVE_S = 30.0

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


def from_neighbours(A, rows):
    """Raise the incumbents of the open sizes from their neighbours' supports.

    A size's search can stop with a best support well below what its neighbour's gives: on the
    faces the best support of ``k = 37`` less one pixel beat the first pass's best support of
    ``k = 36`` by 1.1 %. For each size not certified optimal, the best support of
    ``k + 1`` less the pixel whose removal keeps the most and the best support of ``k - 1``
    plus the pixel that adds the most are improved by :func:`pixsel.spectral.refine_support`
    (never worse) and replace the size's support when they are better; sweeps down then up the
    sizes, repeated while an incumbent rises. Updates ``rows`` (``k -> row``) in place and returns
    ``{k: (old, new objective)}`` of the sizes raised."""

    def lam(S):
        return float(np.linalg.eigvalsh(A[np.ix_(S, S)])[-1])

    p, raised, changed = A.shape[0], {}, True
    while changed:
        changed = False
        ks = sorted(rows)
        for k in ks[::-1] + ks:
            r = rows[k]
            if r["status"] == "optimal" or not 1 < k < p:
                continue
            tries = []
            if k + 1 in rows:  # drop the pixel whose removal keeps the most
                S = list(rows[k + 1]["support"])
                tries.append(max(([s for s in S if s != i] for i in S), key=lam))
            if k - 1 in rows:  # add the pixel that adds the most
                S = list(rows[k - 1]["support"])
                out = np.setdiff1d(np.arange(p), S)
                tries.append(S + [int(max(out, key=lambda j: lam(S + [int(j)])))])
            for S in tries:
                if lam(S) <= r["objective"] * (1 + 1e-12):
                    continue  # refine only candidates that already beat the size's support
                S, value, _ = refine_support(A, np.sort(S))
                if value > r["objective"] * (1 + 1e-12):
                    raised[k] = (raised.get(k, (r["objective"],))[0], value)
                    r["objective"], r["support"] = value, [int(i) for i in S]
                    _update_gaps(r)
                    changed = True
    return raised


def replan(A, rows, left, goal_pct, near=10.0):
    """Spend ``left`` seconds on the sizes still open above ``goal_pct``, the smallest gaps first.

    Two rounds: first the sizes whose gap is below ``near`` times the goal, then, with what that
    round leaves, the others. Within a round each size gets a share of the time left in
    proportion to ``1 / gap`` among the sizes still waiting (a size whose gap is near the goal
    needs the least search to reach it, and one that finishes early leaves its time to the next)
    and is searched again from its best support (``initial``), once its neighbours' supports
    have been tried (:func:`from_neighbours` on ``k - 1, k, k + 1``); its bound is the smaller of
    the two certified bounds, its support the better of the two. Updates ``rows`` (``k -> row``) in
    place and returns the sizes it searched again, in the order searched."""
    end = time.perf_counter() + left
    done = []
    for cap in (near * goal_pct, np.inf):
        open_ = sorted((r for r in rows.values() if r["status"] not in ("optimal", "gap_reached")
                        and goal_pct < r["best_gap_pct"] < cap and r["k"] not in done),
                       key=lambda r: r["best_gap_pct"])
        for i, r in enumerate(open_):
            left = end - time.perf_counter()
            if left <= 1.0:
                break
            w = np.array([1.0 / max(q["best_gap_pct"], goal_pct / 2) for q in open_[i:]])
            k = r["k"]  # its neighbours may have found better supports since the first pass
            from_neighbours(A, {j: rows[j] for j in (k - 1, k, k + 1) if j in rows})
            _research(A, r, left * w[0] / w.sum())
            done.append(r["k"])
    return done


def _research(A, r, limit):
    """Search size ``r["k"]`` again for ``limit`` seconds from its best support; keep the best of both."""
    s = solve(A, r["k"], "sdp", limit, initial=r["support"])
    r["time_s"] += s["time_s"]
    r["time_total_s"] += s["time_s"]
    r["nodes"] += s["nodes"]
    r["replanned_s"] = s["time_s"]
    if s["objective"] > r["objective"]:
        r["objective"], r["support"] = s["objective"], s["support"]
    if s["status"] in ("optimal", "gap_reached"):
        r["status"], r["upper_bound"] = s["status"], s["upper_bound"]
    r["best_bound"] = min(r["best_bound"], s["upper_bound"])
    r["upper_bound"] = min(r["upper_bound"], s["upper_bound"])
    _update_gaps(r)


def _update_gaps(r):
    """A row's gaps (per cent) from its best support's value and its two certified bounds."""
    f = r["objective"]
    r["best_bound"] = max(r["best_bound"], f)
    r.update(best_gap_pct=100 * (r["best_bound"] - f) / f, gap_pct=100 * (max(r["upper_bound"], f) - f) / f)


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
    ax2.set_ylabel("seconds\n(solve + root SDP)")
    ax2.set_xlabel("k (pixels)")
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = parser("exact_spca", __doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per solve on the 80 pixels")
    ap.add_argument("--limit-large", type=float, default=36.0,
                    help="seconds per size on 1024 pixels in the first pass (default 36: half an hour for k = 1..50)")
    ap.add_argument("--budget-large", type=float, default=3600.0,
                    help="seconds for every size of the 1024 pixels in all (default 3600, the goal's hour): what the "
                         "first pass leaves goes to the sizes still open above 0.1 %%, the smallest gaps first; "
                         "0: the first pass alone")
    ap.add_argument("--large-max-k", type=int, default=50, help="sizes k = 1..this on 1024 pixels (default 50)")
    ap.add_argument("--parts", default="80,1024,classic", help="which parts run (comma-separated: 80, 1024, classic)")
    ap.add_argument("--small-limit", type=float, default=30.0, help="seconds per solve, classic instances")
    args = ap.parse_args(argv)
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
        t = t_large = time.perf_counter()
        path_ub = spca_bounds_path(A, max(ks1024))
        t_path = time.perf_counter() - t
        incl = inclusion_bounds(A, None, criterion="max-eig", form="full")
        print(f"per-k bounds for `pixsel path`: spca_bounds_path for k = 1..{max(ks1024)} in {t_path:.1f} s")
        print(f"{'k':>3} | {'status':>10} | {'time s':>7} | {'nodes':>5} | {'objective':>10} | {'bound':>10} | "
              f"{'gap %':>6} | {'row root':>10} | {'sdp root':>10} | {'path ub':>10} | {'inclusion_bounds':>16} | "
              f"bound / lambda_max | best gap %")
        if "1024" not in parts:
            ks1024 = ()
        for k in ks1024:
            rb = row_bound(A, k, psd=True)
            t = time.perf_counter()
            sb, _ = sdp_dual_bound(A, k, max_iter=20, time_limit=0.25 * args.limit_large)
            t_sdp = time.perf_counter() - t
            r = solve(A, k, "sdp", args.limit_large)
            r.update(k=k, row_root=rb, sdp_root=sb, sdp_root_time_s=t_sdp, path_ub=float(path_ub[k - 1]),
                     inclusion_bounds=float(incl[k - 1]), lambda_max=lam)
            # every bound above is certified for all supports of size k: the smallest one is the
            # certificate of this size (a solve stopped early may report a looser one)
            best_ub = max(min(r["upper_bound"], rb, sb, r["path_ub"], r["inclusion_bounds"]), r["objective"])
            r.update(best_bound=best_ub, best_gap_pct=100 * (best_ub - r["objective"]) / r["objective"],
                     time_total_s=r["time_s"] + t_sdp)
            out["yale1024"][str(k)] = r
            print(f"{k:>3} | {r['status']:>10} | {r['time_s']:7.1f} | {r['nodes']:5d} | {r['objective']:10.6g} | "
                  f"{r['upper_bound']:10.6g} | {r['gap_pct']:6.3g} | {rb:10.6g} | {sb:10.6g} | {path_ub[k - 1]:10.6g} | "
                  f"{incl[k - 1]:16.6g} | {r['upper_bound'] / lam:18.3f} | {r['best_gap_pct']:.3g}", flush=True)
        replanned = []
        by_k = {r["k"]: r for r in out["yale1024"].values()}
        if ks1024 and args.budget_large > 0:
            t = time.perf_counter()
            raised = from_neighbours(A, by_k)
            print(f"from the neighbours' supports ({time.perf_counter() - t:.1f} s): " + (", ".join(
                f"k = {k} {o:.6g} -> {v:.6g} (+{100 * (v / o - 1):.2f} %)" for k, (o, v) in sorted(raised.items()))
                or "no size raised"), flush=True)
            # the time left, less a reserve for the last sweep of the neighbours' supports
            left = args.budget_large - (time.perf_counter() - t_large) - NEIGHBOUR_RESERVE_S
            replanned = replan(A, by_k, left, GOAL_PCT)
            print(f"re-planned: {len(replanned)} open size(s) searched again from their best support in the "
                  f"{max(left, 0):.0f} s the first pass left of {args.budget_large:g} s, the smallest gaps first "
                  f"(below {10 * GOAL_PCT:g} % first):", flush=True)
            for k in replanned:
                r = by_k[k]
                print(f"{k:>3} | {r['status']:>10} | +{r['replanned_s']:6.1f} s | {r['nodes']:5d} | {r['objective']:10.6g} | "
                      f"{r['upper_bound']:10.6g} | best gap {r['best_gap_pct']:.3g} %", flush=True)
            t = time.perf_counter()
            raised = from_neighbours(A, by_k)
            print(f"the last sweep of the neighbours' supports ({time.perf_counter() - t:.1f} s): " + (", ".join(
                f"k = {k} {o:.6g} -> {v:.6g} (+{100 * (v / o - 1):.2f} %), best gap {by_k[k]['best_gap_pct']:.3g} %"
                for k, (o, v) in sorted(raised.items())) or "no size raised"), flush=True)
        wall = time.perf_counter() - t_large
        rows = list(out["yale1024"].values())
        if rows:
            cert = [r for r in rows if r["status"] in ("optimal", "gap_reached")]
            close = [r for r in rows if r["status"] in ("optimal", "gap_reached") or r["best_gap_pct"] <= GOAL_PCT]
            tot = sum(r["time_total_s"] for r in rows)
            worst = max(rows, key=lambda r: r["best_gap_pct"])
            print(f"SUMMARY Yale B {A.shape[0]} pixels, k = 1..{max(ks1024)}: {len(cert)} certified optimal, "
                  f"{len(close)} certified or gap <= 0.1 %, in {tot:.0f} s with the root bounds, {wall:.0f} s of wall "
                  f"clock for the part (goal: all "
                  f"{len(rows)} in <= 3600 s); largest gap {worst['best_gap_pct']:.3g} % at k = {worst['k']} (best "
                  f"certified bound: the solver's or a root bound); load {os.getloadavg()}", flush=True)
            plot(rows, lam, out_dir(args) / "exact_spca.png",
                 f"Sparse PCA, Extended Yale B, {A.shape[0]} pixels, every k: {args.limit_large:g} s per size,\n"
                 f"then the gaps re-planned ({len(cert)}/{len(rows)} certified optimal, {tot:.0f} s)")

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
