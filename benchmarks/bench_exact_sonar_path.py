"""Every k = 1..59 of UCI Sonar certified in one search (issue 14): exact_path against its peers.

Problem (as ``bench_exact_uci.py`` builds it, on all 208 samples): ``a = m1 - m0`` (class means),
``B`` the pooled within-class covariance with pixsel's ridge ``'auto'`` (``1e-3 trace(B) / p``,
``pixsel.stats.regularize``); ``f(S) = a_S^T B_SS^{-1} a_S``. Goal: all 59 sizes certified optimal in
<= 10 min in total (moonshot 2 min).

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
  problem along a grid of ``lambda_0`` (``fit_path``), so it reaches only the sizes its grid hits;
  each support it returns is compared with the certified optimum of its size.

Run: ``python benchmarks/bench_exact_sonar_path.py`` (``--quick`` for a smoke run).
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


def run_l0bnb(Xc, yc, lam2, max_nonzeros, time_limit):
    try:
        from l0bnb import fit_path
    except ImportError:
        return None, "l0bnb not installed (pip install l0bnb; the 'bench' extra)"
    if not hasattr(np, "Inf"):
        # l0bnb 1.0.0 (2021, the latest release) still reads np.Inf, removed in NumPy 2: restore the
        # alias in this benchmark process only
        np.Inf = np.inf
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        sols = fit_path(Xc, yc, lambda_2=lam2, max_nonzeros=max_nonzeros, intercept=False, normalize=False,
                        gap_tol=1e-4, time_limit=time_limit)
    return (sols, time.perf_counter() - t), None


def main(argv=None):
    ap = parser("exact_sonar_path", __doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=600.0, help="seconds for exact_path (all k)")
    ap.add_argument("--peer-limit", type=float, default=20.0, help="seconds per single-k solve of the peers")
    ap.add_argument("--ks", default="5,10,20,30,45", help="sizes solved by the single-k peers")
    ap.add_argument("--l0bnb-limit", type=float, default=120.0, help="seconds for l0bnb's whole path")
    args = ap.parse_args(argv)
    ks = [int(v) for v in args.ks.split(",")]
    if args.quick:
        args.limit, args.peer_limit, args.l0bnb_limit, ks = 5.0, 1.0, 3.0, [3]
    X, y, a, B, rho = sonar_problem()
    p = len(a)
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores; Sonar p = {p}, ridge {rho:.3g}", flush=True)
    with blas_threads(args):
        t = time.perf_counter()
        fw = greedy_path(a, B, direction="forward")
        bw = greedy_path(a, B, direction="backward")
        t_greedy = time.perf_counter() - t
        path = exact_path(a, B, time_limit=args.limit)
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
    l0, why = run_l0bnb(Xc, yc, lam2, max(ks), args.l0bnb_limit)

    print(f"\nexact_path: {int(path.certified.sum())} of {p} k certified optimal in {path.time:.1f} s "
          f"({path.n_nodes} nodes, {path.stop_reason}); greedy forward + backward {t_greedy:.3f} s")
    print(" k | status  | optimum   | bound     | rel. gap | forward   | backward  | greedy/opt")
    for k in range(1, p + 1):
        j = k - 1
        g = max(fw.objective[j], bw.objective[j])
        print(f"{k:2d} | {path.status[j]:7s} | {path.objective[j]:9.5f} | {path.upper_bound[j]:9.5f} |"
              f" {path.relative_gap[j]:8.2e} | {fw.objective[j]:9.5f} | {bw.objective[j]:9.5f} | {g / path.objective[j]:.4f}")
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
    l0_rows = []
    if l0 is None:
        print(f"l0bnb: {why}")
    else:
        sols, t_l0 = l0
        for sol in sols:
            S = np.flatnonzero(np.abs(sol["B"]) > 0)
            k = len(S)
            if k == 0 or k > p:
                continue
            f = objective_on_support(a, B, S)
            l0_rows.append({"k": k, "lambda_0": float(sol["lambda_0"]), "objective": f,
                            "optimum": float(path.objective[k - 1]), "time_exceeded": bool(sol["Time_exceeded"]),
                            "same_support": bool(np.array_equal(S, path.support(k)))})
        print(f"l0bnb fit_path (lambda_2 = {lam2:.3g}, at most {max(ks)} nonzeros): {len(sols)} solutions in {t_l0:.1f} s")
        print(" k | lambda_0  | f(S_l0bnb) | certified optimum | same support | time exceeded   (first solution of each size)")
        seen = set()
        for r in l0_rows:
            if r["k"] in seen:
                continue
            seen.add(r["k"])
            print(f"{r['k']:2d} | {r['lambda_0']:9.3g} | {r['objective']:10.5f} | {r['optimum']:17.5f} |"
                  f" {str(r['same_support']):12s} | {r['time_exceeded']}")
    goal = bool(path.certified.all() and path.time <= 600)
    print(f"\nSUMMARY exact_path: {int(path.certified.sum())}/{p} certified in {path.time:.1f} s "
          f"(goal all in <= 600 s: {goal}; moonshot <= 120 s: {bool(goal and path.time <= 120)}); "
          f"largest certified gap {100 * float(path.relative_gap.max()):.2f} %")
    out = out_dir(args)
    data = {"args": {k: v for k, v in vars(args).items() if k != "out"}, "ks": ks, "load": os.getloadavg(),
            "greedy_time_s": t_greedy, "exact_path": path.to_dict(), "forward": fw.objective,
            "backward": bw.objective, "peers": rows, "regression_map_error": map_err, "l0bnb": l0_rows,
            "l0bnb_time_s": None if l0 is None else l0[1]}
    write_results(args, data, name="sonar_path")
    fig = plot_exact_path({"forward": fw.objective, "backward": bw.objective}, path.objective, path.upper_bound,
                          path.status, title=f"UCI Sonar: sparse LDA, every k ({path.time:.0f} s)")
    save_figure(fig, out / "sonar_path.png", dpi=120)
    print(f"wrote {out / 'sonar_path.json'} and sonar_path.png")


if __name__ == "__main__":
    main()
