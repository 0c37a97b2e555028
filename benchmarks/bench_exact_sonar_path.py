"""Every k = 1..59 of UCI Sonar certified in one search: exact_path against its peers.

Problem (as ``bench_exact_uci.py`` builds it, on all 208 samples): ``a = m1 - m0`` (class means),
``B`` the pooled within-class covariance with pixsel's ridge ``'auto'`` (``1e-3 trace(B) / p``,
``pixsel.stats.regularize``); ``f(S) = a_S^T B_SS^{-1} a_S``. Goal: all 59 sizes certified optimal in
<= 10 min in total (stretch goal 2 min).

Side by side, in the same run:

* ``exact_path`` (one leaps-and-bounds tree for every k, ``--limit`` seconds in all);
* ``exact_support`` (pixsel's best-first single-k solver) and ``plain_search`` (the paper's
  depth-first ESLDA) at the sizes ``--ks``, ``--peer-limit`` seconds per solve;
* l0bnb (Hazimeh, Mazumder and Saab; PyPI ``l0bnb``, an exact L0-L2 regression solver) on the
  equivalent best-subset ridge regression. The mapping: with ``X`` centred, ``y`` the centred class
  indicator, ``W`` the within-class covariance (divided by n), ``T = W + c a a^T`` the total one
  (``c = n0 n1 / n^2``) and ``X^T y / n = c a``, the ridge regression on ``S`` with penalty
  ``lambda_2 |beta|^2`` and ``2 lambda_2 = n rho`` (``rho`` the ridge of ``B``) reduces the residual by
  ``n c^2 g / (1 + c g)``, ``g = a_S^T (W + rho I)_SS^{-1} a_S = f(S)``: increasing in ``f``, so the best
  support of size k is the same for both (checked numerically below). l0bnb solves the L0-penalized
  problem: ``lambda_0`` is placed (from the certified optima) so that size k is the penalized
  optimum, and its support is compared with ours (``l0bnb_at``).

Run: ``python benchmarks/bench_exact_sonar_path.py`` (``--quick`` for a smoke run; ``--limit 0``:
no time limit, how long certifying every size takes; ``--n-jobs N``: ``exact_path`` on ``N`` worker
processes, the peers stay on one core).
"""

from __future__ import annotations

import contextlib
import io
import os
import time

import numpy as np
from _common import blas_threads, out_dir, parser, write_results

from pixsel.datasets import load_shared
from pixsel.io import save_figure
from pixsel.spectral import exact_path, exact_support, greedy_path, objective_on_support, plain_search
from pixsel.stats import class_statistics, regularize
from pixsel.viz import plot_exact_path


def sonar_problem():
    d = load_shared("uci_sonar.npz")
    X, y = d["X"].astype(np.float64), d["y"].astype(int)
    st = class_statistics(X, y)
    B, reg = regularize(st.within, "auto")
    a = np.asarray(st.between, dtype=np.float64).ravel()
    rho = float(np.mean(np.diag(B) - np.diag(np.asarray(st.within))))
    return X, y, a, B, rho


def regression_equivalent(X, y, rho):
    """Centred ``X``, centred indicator ``y``, ``lambda_2`` and the map ``f -> residual reduction``."""
    n = len(y)
    Xc = X - X.mean(0)
    yc = y - y.mean()
    n1 = int(np.sum(y == 1))
    c = n1 * (n - n1) / n**2
    lam2 = n * rho / 2
    return Xc, yc, lam2, (lambda f: n * c**2 * f / (1 + c * f))


def ridge_reduction(Xc, yc, lam2, S):
    XS = Xc[:, S]
    beta = np.linalg.solve(XS.T @ XS + 2 * lam2 * np.eye(len(S)), XS.T @ yc)
    return float(yc @ XS @ beta)


def l0bnb_at(Xc, yc, lam2, fmap, path, ks, time_limit):
    """l0bnb's branch and bound on the L0-L2 regression, with ``lambda_0`` chosen so that size k
    is the penalized optimum: from the certified optima, ``g(k) = fmap(f*(k)) / 2`` is the drop of
    l0bnb's objective ``|y - X b|^2 / 2 + lambda_0 |b|_0 + lambda_2 |b|^2`` at size k, and any
    ``lambda_0`` strictly between ``g(k + 1) - g(k)`` and ``g(k) - g(k - 1)`` makes k the unique best
    size (only sizes where g is locally concave can be reached so). Its big-M is 1.5 x the largest
    ridge coefficient on our optimal support (a bound l0bnb gets from knowing the answer)."""
    try:
        from l0bnb import BNBTree
    except ImportError:
        return None, "l0bnb not installed (pip install l0bnb; the 'bench' extra)"
    if not hasattr(np, "Inf"):
        # l0bnb 1.0.0 (2021, the latest release) still reads np.Inf, removed in NumPy 2: restore the
        # alias in this benchmark process only
        setattr(np, "Inf", np.inf)  # noqa: B010 - a literal np.Inf is what the NumPy 2 lint rewrites
    g = np.concatenate(([0.0], [fmap(f) / 2 for f in path.objective]))  # g[k], k = 0..p
    rows = []
    for k in ks:
        if not (0 < k < len(g) - 1):
            continue
        lo, hi = g[k + 1] - g[k], g[k] - g[k - 1]
        if not lo < hi:
            rows.append({"k": k, "reachable": False})
            continue
        lam0 = (lo + hi) / 2
        S = path.support(k)
        XS = Xc[:, S]
        beta = np.linalg.solve(XS.T @ XS + 2 * lam2 * np.eye(k), XS.T @ yc)
        t = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            sol = BNBTree(Xc, yc).solve(lam0, lam2, 1.5 * float(np.max(np.abs(beta))), gap_tol=1e-4,
                                        time_limit=time_limit)
        el = time.perf_counter() - t
        found = np.flatnonzero(np.abs(sol.beta) > 0)
        rows.append({"k": k, "reachable": True, "lambda_0": lam0, "time_s": el, "gap": float(sol.gap),
                     "size": len(found), "same_support": bool(np.array_equal(found, S)),
                     "objective": objective_on_support(*_PROBLEM, found) if len(found) else 0.0})
    return rows, None


_PROBLEM = []


def perspective_bound(a, B, k, iters=400):
    """The Boolean (perspective) relaxation of ``max a_S^T B_SS^{-1} a_S`` over ``|S| = k``, measured
    at the root only (why the solver does not use it). Split ``B = C + diag(e)``, ``C`` positive
    semi-definite, with the largest uniform split in correlation scale (``e = lambda_min(corr B)
    diag(B)``); then for ANY ``w``, ``f(S) <= w^T C w + (sum of the k largest (a - C w)_i^2 / e_i)``
    (the Lagrangian of ``max_w 2 a^T w - w^T C w - sum_S e_i w_i^2``), a certified bound without a
    conic solver. ``w`` comes from Frank-Wolfe on the relaxed indicator ``z`` (``w = (C + diag(e /
    z))^{-1} a``); the smallest bound seen is returned."""
    d = np.diag(B)
    lc = float(np.linalg.eigvalsh(B / np.sqrt(np.outer(d, d)))[0])
    e = (1 - 1e-9) * lc * d
    C = B - np.diag(e)
    p = len(a)
    z = np.full(p, k / p)
    best = np.inf
    for it in range(iters):
        w = np.linalg.solve(C + np.diag(e / z), a)
        r = a - C @ w
        best = min(best, float(w @ C @ w + np.sort(r * r / e)[-k:].sum()))
        g = e * w * w / z**2
        v = np.zeros(p)
        v[np.argsort(g)[-k:]] = 1.0
        z = np.maximum((1 - 2 / (it + 3)) * z + 2 / (it + 3) * v, 1e-12)
    return best


def print_path(path, fw, bw, t_greedy):
    p = path.max_k
    print(f"\nexact_path: {int(path.certified.sum())} of {p} k certified optimal in {path.time:.1f} s "
          f"({path.n_nodes} nodes, {path.search_status}); greedy forward + backward {t_greedy:.3f} s")
    print(" k | status      | optimum   | bound     | rel. gap | forward   | backward  | greedy/opt")
    for k in range(1, p + 1):
        j = k - 1
        g = max(fw.objective[j], bw.objective[j])
        print(f"{k:2d} | {path.status[j]:11s} | {path.objective[j]:9.5f} | {path.upper_bound[j]:9.5f} |"
              f" {path.relative_gap[j]:8.2e} | {fw.objective[j]:9.5f} | {bw.objective[j]:9.5f} | {g / path.objective[j]:.4f}",
              flush=True)


def print_tasks(path):
    """With n_jobs > 1: which task certified which sizes, and the CPU seconds of all tasks."""
    par = path.info["parallel"]
    if par["n_jobs"] == 1:
        return
    tasks = par["tasks"]
    cpu = sum(t["seconds"] for t in tasks)
    print(f"\n{par['n_jobs']} worker processes: {len(tasks)} tasks, {cpu:.1f} CPU s in all "
          f"({cpu / max(path.time, 1e-9):.2f} cores busy on average over {path.time:.1f} s)")
    print(" task | sizes       | status     | s")
    for t in tasks:
        sz = t["sizes"]
        name = f"{sz[0]}" if len(sz) == 1 else f"{sz[0]}..{sz[-1]}"
        print(f" {t['kind']:4s} | {name:11s} | {t['status']:10s} | {t['seconds']:.1f}")


def main(argv=None):
    ap = parser("exact_sonar_path", __doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=600.0,
                    help="seconds for exact_path (all k); 0: no limit (every size certified, however long it takes)")
    ap.add_argument("--peer-limit", type=float, default=20.0, help="seconds per single-k solve of the peers")
    ap.add_argument("--ks", default="5,10,20,30,45", help="sizes solved by the single-k peers")
    ap.add_argument("--n-jobs", type=int, default=1,
                    help="worker processes of exact_path (the sizes as parallel tasks; -1: every CPU)")
    args = ap.parse_args(argv)
    ks = [int(v) for v in args.ks.split(",")]
    if args.quick:
        args.limit, args.peer_limit, ks = 5.0, 1.0, [3]
    X, y, a, B, rho = sonar_problem()
    p = len(a)
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores; Sonar p = {p}, ridge {rho:.3g}", flush=True)
    with blas_threads(args):
        t = time.perf_counter()
        fw = greedy_path(a, B, direction="forward")
        bw = greedy_path(a, B, direction="backward")
        t_greedy = time.perf_counter() - t
        path = exact_path(a, B, time_limit=args.limit if args.limit > 0 else None, n_jobs=args.n_jobs)
        print_path(path, fw, bw, t_greedy)
        print_tasks(path)
        en, tree, sw = path.info["enumeration"], path.info["tree"], path.info["swap"]
        done = "enumerated" if en["completed"] else "enumeration stopped by the limit"
        top = en.get("from_top", [])  # the windows' largest sizes, enumerated alone before the tree tried them
        top = f" and {len(top)} sizes from the top ({min(top)}..{max(top)})" if top else ""
        what = f"sizes 1..{max(en['max_size'], 2)} {done}{top} in {en['time_s']:.1f} s"
        if path.info["parallel"]["n_jobs"] > 1:  # the tasks' seconds add up over the workers
            what = f"enumeration tasks certified sizes up to {en['max_size']}{top} in {en['time_s']:.1f} CPU s"
        print(f"inside exact_path: swap local search raised {sw['improved']} greedy incumbents in {sw['time_s']:.2f} s; "
              f"{what} "
              f"({en['nodes']} nodes, {en['pair_evaluations']} pair evaluations, {en['pruned']} subtrees pruned); "
              f"tree: {tree['windows']} windows of sizes, forward bound tried {tree['forward_tried']} times, "
              f"decisive {tree['forward_pruned']}", flush=True)
        rows = []
        for k in ks:
            row = {"k": k}
            for name, solve in (("exact_support", exact_support), ("plain_search", plain_search)):
                t = time.perf_counter()
                res = solve(a, B, k, time_limit=args.peer_limit)
                row[name] = {"status": res.status, "time_s": time.perf_counter() - t, "nodes": res.n_nodes,
                             "objective": res.objective, "rel_gap": res.relative_gap}
            rows.append(row)
    Xc, yc, lam2, fmap = regression_equivalent(X, y, rho)
    # the mapping, checked on the certified supports of a few sizes
    map_err = max(abs(ridge_reduction(Xc, yc, lam2, path.support(k)) - fmap(path.objective[k - 1]))
                  / fmap(path.objective[k - 1]) for k in (1, 5, 20, p))
    _PROBLEM[:] = [a, B]
    l0, why = l0bnb_at(Xc, yc, lam2, fmap, path, ks, args.peer_limit)

    print("\nsingle-k peers (same run):")
    print(" k | exact_support: status, s, nodes, rel. gap | plain_search: status, s, nodes, rel. gap | same optimum as exact_path")
    for r in rows:
        es, ps_ = r["exact_support"], r["plain_search"]
        k = r["k"]
        same = bool(np.isclose(es["objective"], path.objective[k - 1], rtol=1e-9))
        print(f"{k:2d} | {es['status']:>10s} {es['time_s']:6.1f} {es['nodes']:8d} {es['rel_gap']:.2e} |"
              f" {ps_['status']:>10s} {ps_['time_s']:6.1f} {ps_['nodes']:8d} {ps_['rel_gap']:.2e} | {same}")
    print(f"\nregression mapping check: max relative error {map_err:.1e} (ridge-regression residual reduction vs "
          "n c^2 f / (1 + c f))")
    if l0 is None:
        print(f"l0bnb: {why}")
        l0 = []
    else:
        print(f"l0bnb BNBTree.solve (lambda_2 = {lam2:.3g}; lambda_0 placed so that k is the penalized optimum;"
              f" {args.peer_limit:.0f} s per solve):")
        print(" k | lambda_0  | s      | gap      | size | f(S_l0bnb) | certified optimum | same support")
        for r in l0:
            if not r["reachable"]:
                print(f"{r['k']:2d} | not reachable by any lambda_0 (the optimal curve is not concave at this k)")
                continue
            print(f"{r['k']:2d} | {r['lambda_0']:9.3g} | {r['time_s']:6.1f} | {r['gap']:8.1e} | {r['size']:4d} |"
                  f" {r['objective']:10.5f} | {path.objective[r['k'] - 1]:17.5f} | {r['same_support']}")
    print("\nroot bounds, measured (not used by the solver): the whole set's f, the perspective relaxation, and the"
          " certified bound exact_path returned")
    print(" k | optimum or best | f(all 60)  | perspective | exact_path bound")
    root = objective_on_support(a, B, np.arange(p))
    persp = {}
    for k in (5, 10, 15, 20, 30):
        persp[k] = perspective_bound(a, B, k)
        print(f"{k:2d} | {path.objective[k - 1]:15.5f} | {root:10.5f} | {persp[k]:11.5f} | {path.upper_bound[k - 1]:.5f}")
    goal = bool(path.certified.all() and path.time <= 600)
    print(f"\nSUMMARY exact_path (n_jobs = {path.info['parallel']['n_jobs']} on {os.cpu_count()} CPUs): "
          f"{int(path.certified.sum())}/{p} certified in {path.time:.1f} s "
          f"(goal all in <= 600 s: {goal}; stretch goal <= 120 s: {bool(goal and path.time <= 120)}); "
          f"largest certified gap {100 * float(path.relative_gap.max()):.2f} %")
    out = out_dir(args)
    data = {"args": {k: v for k, v in vars(args).items() if k != "out"}, "ks": ks, "load": os.getloadavg(),
            "greedy_time_s": t_greedy, "exact_path": path.to_dict(), "forward": fw.objective,
            "backward": bw.objective, "peers": rows, "regression_map_error": map_err, "l0bnb": l0,
            "perspective_root_bound": persp, "parallel": path.info["parallel"]}
    write_results(args, data, name="sonar_path")
    nj = path.info["parallel"]["n_jobs"]
    procs = f", {nj} processes" if nj > 1 else ""
    fig = plot_exact_path({"forward": fw.objective, "backward": bw.objective}, path.objective, path.upper_bound,
                          path.status, title=f"UCI Sonar: sparse LDA, every k ({path.time:.0f} s{procs})")
    save_figure(fig, out / "sonar_path.png", dpi=120)
    print(f"wrote {out / 'sonar_path.json'} and sonar_path.png")


if __name__ == "__main__":
    main()
