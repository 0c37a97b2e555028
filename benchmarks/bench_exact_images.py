"""Certified sparse LDA on real image pixels, every k: exact_path beside the exact best-subset solvers.

Instances (two classes each; ``f(S) = a_S^T B_SS^{-1} a_S`` with ``a = m1 - m0`` the difference of
the class means and ``B`` the pooled within-class covariance plus pixsel's ridge ``'auto'``,
``1e-3`` x its mean diagonal, ``pixsel.stats.regularize``):

* USPS 3 vs 5 (the 767 training images of the 3-vs-5 split), the 60 / 100 / 256 pixels of
  highest variance;
* Extended Yale B (32 x 32), the first two subjects (128 images), the 60 / 100 pixels of highest
  variance.

Methods, each with the same time limit per instance (``--limit`` seconds; a single-k solver gets
``limit / number of sizes`` for each size, one core each):

* pixsel's ``exact_path`` (one search for every size ``k = 1..max_k``); ``pixsel-sdp`` (asked for
  by name in ``--methods``) the same with ``bounds='sdp'``: 30 % of the time goes to one or two
  semidefinite relaxations whose rank-one (pairwise) splits cap every size the search leaves
  open (needs the ``conic`` extra);
* OKRidge (Liu, Rosen, Zhong and Rudin, "OKRidge: scalable optimal k-sparse ridge regression",
  NeurIPS 2023; PyPI ``okridge``): branch and bound for k-sparse ridge regression;
* l0bnb (Hazimeh, Mazumder and Saab, "Sparse regression at scale: branch-and-bound rooted in
  first-order optimization", Math. Prog. 2022; PyPI ``l0bnb``): the L0-L2-penalized problem, its
  ``lambda_0`` placed (from pixsel's best objectives) so that size k is the penalized optimum;
  sizes where no ``lambda_0`` reaches k (the curve is not concave there) are reported as such;
* the mixed-integer formulation of Bertsimas, King and Mazumder ("Best subset selection via a
  modern optimization lens", Ann. Statist. 2016) under Gurobi (``gurobipy``, whose pip package
  carries a size-limited licence: an instance too large for it is reported as such) and under
  SCIP (``pyscipopt``).

The same problem as k-sparse ridge regression. With ``X`` the centred pixels (n samples), ``y`` the
centred indicator of class 1, ``W`` the within-class scatter divided by n (``class_statistics``'
``within``) and ``c = n0 n1 / n^2``: ``X^T y = n c a`` and ``X^T X = n (W + c a a^T)``. Ridge
regression on the support ``S`` with penalty ``lambda |beta|^2``, ``lambda = n rho`` (``rho`` the
ridge of ``B = W + rho I``), lowers ``|y|^2`` by ``R(S) = b_S^T Q_SS^{-1} b_S`` (``b = X^T y``,
``Q = X^T X + lambda I``), and by Sherman-Morrison ``R(S) = n c^2 f(S) / (1 + c f(S))``: increasing in
``f``, so both problems have the same optimal support of every size (checked on every instance,
and against brute force in the smoke test). Every peer minimizes ``beta^T Q beta - 2 b^T beta``
(``= -R(S)`` at the ridge optimum on ``S``) under ``|beta|_0 <= k``; its certified lower bound ``L``
gives ``R <= -L`` and so ``f <= R / (c (n c - R))``. **Every gap below is the certified gap of
pixsel's documentation ("Status and certified gap"): (upper bound - objective) / objective, on
f**, the peers' bounds mapped through the formula above. A peer certifies a size when it proves
its support optimal within the relative tolerance ``--peer-gap`` (default ``1e-4``) on its own
objective; pixsel's ``'optimal'`` is exact. Peers start from the better greedy support (the
incumbent ``exact_path`` starts from) where they accept a start; the mixed-integer models bound
every coefficient by ``|beta_i| <= sqrt(sum of the k largest b_j^2) / lambda_min(Q)``, valid for
every optimal ``beta`` (their section 2.3 derives such bounds from the data).

Run: ``python benchmarks/bench_exact_images.py`` (``--quick``: USPS at 24 pixels, sizes up to 6,
a few seconds per method). ``--instances usps100,yale60`` picks instances, ``--max-k`` the sizes,
``--methods`` the methods.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import time
import warnings
from pathlib import Path

import numpy as np
from _common import blas_threads, out_dir, parser, write_results

from pixsel.datasets import load_shared
from pixsel.io import save_figure
from pixsel.spectral import exact_path, greedy_path, objective_on_support
from pixsel.stats import class_statistics, regularize

METHODS = ("pixsel", "pixsel-sdp", "okridge", "l0bnb", "gurobi", "scip")
#: the methods run when ``--methods`` is not given (``pixsel-sdp`` is asked for by name)
DEFAULT_METHODS = ("pixsel", "okridge", "l0bnb", "gurobi", "scip")
LABELS = {"pixsel": "pixsel exact_path", "pixsel-sdp": "pixsel exact_path, bounds='sdp'", "okridge": "OKRidge",
          "l0bnb": "l0bnb",
          "gurobi": "MIO (Bertsimas, King, Mazumder) + Gurobi", "scip": "MIO (Bertsimas, King, Mazumder) + SCIP"}
INSTANCES = {"usps60": ("usps", 60), "usps100": ("usps", 100), "usps256": ("usps", 256),
             "yale60": ("yale", 60), "yale100": ("yale", 100)}


# ---------------------------------------------------------------- the problem and its regression twin


def image_data(name, n_pixels):
    """``X`` (float64) and labels 0/1 of an instance, restricted to its highest-variance pixels."""
    if name == "usps":
        d = load_shared("usps_3v5_split.npz")
        X, y = d["X_train"].astype(np.float64), (d["y_train"] == d["y_train"].max()).astype(int)
    else:
        d = load_shared("extyaleb_32x32.npz")
        keep = d["y"] <= 1
        X, y = d["X"][keep].astype(np.float64), d["y"][keep].astype(int)
    top = np.sort(np.argsort(-X.var(axis=0), kind="stable")[:n_pixels])
    return X[:, top], y, top


def lda_problem(X, y):
    """``a``, ``B`` (pooled within-class covariance + ridge ``'auto'``) and the ridge ``rho``."""
    st = class_statistics(X, y)
    B, _ = regularize(st.within, "auto")
    B = np.asarray(B, dtype=np.float64)
    a = np.asarray(st.between, dtype=np.float64).ravel()
    rho = float(np.mean(np.diag(B) - np.diag(np.asarray(st.within))))
    return a, B, rho


def best_known(results_json, instance="usps100"):
    """From a results file of this benchmark: the best objective per size over its methods, and the
    sizes some method certified optimal (sorted)."""
    inst = json.loads(Path(results_json).read_text())["instances"][instance]
    rows = [r for m in inst["methods"].values() for r in m.get("rows", [])]
    best = {}
    for r in rows:
        best[r["k"]] = max(best.get(r["k"], -np.inf), float(r["objective"]))
    return best, sorted({r["k"] for r in rows if r["certified"]})


class RidgeTwin:
    """The k-sparse ridge regression with the same optimal supports as ``max f(S)``, ``|S| = k``."""

    def __init__(self, X, y, rho):
        n = len(y)
        self.n = n
        self.X = X - X.mean(0)
        self.y = y - y.mean()
        n1 = int(np.sum(y == 1))
        self.c = n1 * (n - n1) / n**2
        self.lam = n * rho
        self.Q = self.X.T @ self.X + self.lam * np.eye(X.shape[1])
        self.b = self.X.T @ self.y
        self.yy = float(self.y @ self.y)  # = n c

    def reduction(self, S):
        """``R(S) = b_S^T Q_SS^{-1} b_S``, the fall of the ridge loss below ``|y|^2``."""
        S = np.asarray(S)
        if len(S) == 0:
            return 0.0
        return float(self.b[S] @ np.linalg.solve(self.Q[np.ix_(S, S)], self.b[S]))

    def coef(self, S):
        beta = np.zeros(len(self.b))
        S = np.asarray(S)
        beta[S] = np.linalg.solve(self.Q[np.ix_(S, S)], self.b[S])
        return beta

    def r_of_f(self, f):
        return self.n * self.c**2 * f / (1 + self.c * f)

    def f_of_r(self, r):
        """The inverse map; ``inf`` where ``r`` reaches ``|y|^2 = n c`` (no bound on f)."""
        den = self.c * (self.yy - r)
        return math.inf if den <= 0 else r / den

    def big_m(self, k):
        """A bound on every coefficient of an optimal k-sparse ``beta``: ``|beta|_2 <= |b_S|_2 /
        lambda_min(Q_SS) <= sqrt(sum of the k largest b_j^2) / lambda_min(Q)``."""
        lmin = float(np.linalg.eigvalsh(self.Q)[0])
        return float(np.sqrt(np.sort(self.b**2)[-k:].sum()) / max(lmin, self.lam))


def mapping_error(twin, a, B, supports):
    """Largest relative error of ``R(S) = n c^2 f / (1 + c f)`` over ``supports``."""
    err = 0.0
    for S in supports:
        f = objective_on_support(a, B, S)
        err = max(err, abs(twin.reduction(S) - twin.r_of_f(f)) / max(twin.r_of_f(f), 1e-300))
    return err


# ---------------------------------------------------------------- the peers, one size each


def _peer_row(twin, a, B, k, support, lower, seconds, finished, tol, native_gap, note=""):
    """A peer's result at size k in pixsel's terms: its support's f, the certified bound on f from
    its lower bound ``lower`` on ``beta^T Q beta - 2 b^T beta`` and the relative gap on f."""
    S = np.sort(np.asarray(support, dtype=int))
    assert len(S) == k, f"{note or 'peer'} returned a support of size {len(S)} at k = {k}"
    f = objective_on_support(a, B, S)
    f_ub = max(twin.f_of_r(-lower), f) if np.isfinite(lower) else math.inf
    gap = (f_ub - f) / abs(f) if f != 0 else math.inf
    certified = bool(finished and native_gap <= tol)
    return {"k": k, "support": S.tolist(), "objective": f, "upper_bound": f_ub, "gap": gap,
            "native_gap": native_gap, "certified": certified, "time_s": seconds,
            "status": "optimal" if certified else "time_limit"}


def run_okridge(twin, a, B, k, limit, tol):
    from okridge.tree import BNBTree

    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        tree = BNBTree(twin.X, twin.y, lambda2=twin.lam, gap_tol=tol, max_memory_GB=8)
        ub, beta, gap, lb, _ = tree.solve(k, gap_tol=tol, time_limit=limit)
    el = time.perf_counter() - t
    S = np.flatnonzero(np.abs(beta) > 0)
    # OKRidge's loss is beta^T Q beta - 2 b^T beta (its upper bound at beta = 0 is 0); k = 1 it
    # solves by its heuristic, which scans every single feature (exact)
    return _peer_row(twin, a, B, k, S, float(lb), el, gap <= tol, tol, float(gap), "OKRidge")


def run_l0bnb(twin, a, B, k, limit, tol, best_f, p):
    """``best_f[j]``: pixsel's best objective of size j (j = 0..p), which places lambda_0."""
    from l0bnb import BNBTree

    if not hasattr(np, "Inf"):
        # l0bnb 1.0.0 (2021, the latest release) still reads np.Inf, removed in NumPy 2: restore the
        # alias, as bench_exact_sonar_path does, so that the peer runs rather than stops the run
        setattr(np, "Inf", np.inf)  # noqa: B010 - a literal np.Inf is what the NumPy 2 lint rewrites
    g = np.array([twin.r_of_f(f) / 2 for f in best_f])  # the fall of l0bnb's loss at each size
    if not 0 < k < p:
        return {"k": k, "reachable": False, "certified": False, "gap": math.inf, "time_s": 0.0,
                "status": "not_reachable"}
    lo, hi = g[k + 1] - g[k], g[k] - g[k - 1]
    if not lo < hi:
        return {"k": k, "reachable": False, "certified": False, "gap": math.inf, "time_s": 0.0,
                "status": "not_reachable"}
    lam0 = (lo + hi) / 2
    t = time.perf_counter()
    # (its first call compiles its Numba loops, which warn of a reflected-set argument: not ours to mend)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        sol = BNBTree(twin.X, twin.y).solve(lam0, twin.lam / 2, twin.big_m(k), gap_tol=tol, time_limit=limit)
    el = time.perf_counter() - t
    S = np.flatnonzero(np.abs(sol.beta) > 0)
    if len(S) != k:
        # the penalized optimum it proved (or stopped at) is of another size: no answer at k
        return {"k": k, "reachable": True, "certified": False, "gap": math.inf, "time_s": el,
                "status": f"size_{len(S)}", "size": int(len(S)), "native_gap": float(sol.gap)}
    # its lower bound L on |y - X beta|^2 / 2 + lambda_0 |beta|_0 + lambda_2 |beta|^2 bounds size k:
    # (|y|^2 - R_k) / 2 + lambda_0 k >= L, i.e. beta^T Q beta - 2 b^T beta >= 2 (L - lambda_0 k) - |y|^2
    lower_pen = sol.cost - float(sol.gap) * abs(sol.cost)
    lower = 2 * (lower_pen - lam0 * k) - twin.yy
    row = _peer_row(twin, a, B, k, S, lower, el, sol.gap <= tol, tol, float(sol.gap), "l0bnb")
    row.update(reachable=True, lambda_0=lam0)
    return row


def _start(twin, start):
    beta = twin.coef(start)
    z = np.zeros(len(beta))
    z[np.asarray(start)] = 1.0
    return beta, z


def run_gurobi(twin, a, B, k, limit, tol, start):
    import gurobipy as gp
    from gurobipy import GRB

    p = len(twin.b)
    M = twin.big_m(k)
    t = time.perf_counter()
    try:
        env = gp.Env(empty=True)
        env.setParam("OutputFlag", 0)
        env.start()
        m = gp.Model(env=env)
        m.Params.TimeLimit = max(limit, 0.01)
        m.Params.MIPGap = tol
        m.Params.Threads = 1
        beta = m.addMVar(p, lb=-M, ub=M, name="beta")
        z = m.addMVar(p, vtype=GRB.BINARY, name="z")
        m.addConstr(beta <= M * z)
        m.addConstr(-M * z <= beta)
        m.addConstr(z.sum() == k)
        m.setObjective(beta @ twin.Q @ beta - 2 * twin.b @ beta, GRB.MINIMIZE)
        b0, z0 = _start(twin, start)
        beta.Start = b0
        z.Start = z0
        m.optimize()
    except gp.GurobiError as e:
        if "size-limited" in str(e) or getattr(e, "errno", None) == 10010:
            return {"k": k, "certified": False, "gap": math.inf, "time_s": time.perf_counter() - t,
                    "status": "too_large", "note": str(e).split(";")[0]}
        raise
    el = time.perf_counter() - t
    S = np.flatnonzero(z.X > 0.5)
    finished = m.Status == GRB.OPTIMAL
    return _peer_row(twin, a, B, k, S, float(m.ObjBound), el, finished, tol, float(m.MIPGap), "Gurobi")


def run_scip(twin, a, B, k, limit, tol, start):
    from pyscipopt import Model, quicksum

    p = len(twin.b)
    M = twin.big_m(k)
    Q, b = twin.Q, twin.b
    t = time.perf_counter()
    m = Model()
    m.hideOutput()
    m.setParam("limits/time", max(limit, 0.01))
    m.setParam("limits/gap", tol)
    beta = [m.addVar(lb=-M, ub=M, name=f"beta{i}") for i in range(p)]
    z = [m.addVar(vtype="B", name=f"z{i}") for i in range(p)]
    obj = m.addVar(lb=None, name="obj")
    for i in range(p):
        m.addCons(beta[i] <= M * z[i])
        m.addCons(-M * z[i] <= beta[i])
    m.addCons(quicksum(z) == k)
    quad = quicksum(Q[i, j] * beta[i] * beta[j] for i in range(p) for j in range(p) if Q[i, j] != 0)
    m.addCons(quad - quicksum(2 * b[i] * beta[i] for i in range(p)) <= obj)
    m.setObjective(obj, "minimize")
    b0, z0 = _start(twin, start)
    sol = m.createSol()
    for i in range(p):
        m.setSolVal(sol, beta[i], float(b0[i]))
        m.setSolVal(sol, z[i], float(z0[i]))
    m.setSolVal(sol, obj, float(b0 @ Q @ b0 - 2 * b @ b0))
    m.addSol(sol, free=True)
    m.optimize()
    el = time.perf_counter() - t
    S = np.flatnonzero(np.array([m.getVal(v) for v in z]) > 0.5)
    finished = m.getStatus() in ("optimal", "gaplimit")
    return _peer_row(twin, a, B, k, S, float(m.getDualbound()), el, finished, tol, float(m.getGap()), "SCIP")


def peer_available(name):
    """``None`` where the peer's package imports, else how to install it."""
    mod = {"okridge": "okridge", "l0bnb": "l0bnb", "gurobi": "gurobipy", "scip": "pyscipopt"}[name]
    try:
        __import__(mod)
    except ImportError:
        extra = " --no-deps" if name == "okridge" else ""
        return f"{mod} is not installed (pip install{extra} {mod}; the 'bench' extra of pyproject.toml)"
    return None


# ---------------------------------------------------------------- one instance


def run_instance(key, args, methods):
    src, n_pix = INSTANCES[key]
    X, y, pixels = image_data(src, n_pix)
    a, B, rho = lda_problem(X, y)
    p = len(a)
    max_k = min(args.max_k, p)
    ks = list(range(1, max_k + 1))
    twin = RidgeTwin(X, y, rho)
    fw = greedy_path(a, B, direction="forward")
    bw = greedy_path(a, B, direction="backward")
    greedy = [fw.support(k) if fw.objective[k - 1] >= bw.objective[k - 1] else bw.support(k) for k in range(1, p + 1)]
    map_err = mapping_error(twin, a, B, [greedy[k - 1] for k in (1, max_k // 2 or 1, max_k)])
    assert map_err < 1e-8, f"{key}: the regression mapping is off by {map_err:.1e}"
    print(f"\n== {key}: {src} {p} pixels, n = {len(y)} ({int(np.sum(y == 0))} / {int(np.sum(y == 1))}), "
          f"ridge {rho:.3g}, k = 1..{max_k}, {args.limit:g} s per method "
          f"({args.limit / len(ks):.2f} s per size for the single-k peers); mapping error {map_err:.1e}; "
          f"load {os.getloadavg()}", flush=True)
    out = {"p": p, "n": len(y), "pixels": pixels.tolist(), "ridge": rho, "max_k": max_k, "mapping_error": map_err,
           "limit_s": args.limit, "methods": {}}
    best = np.array([max(fw.objective[k - 1], bw.objective[k - 1]) for k in range(1, p + 1)])
    for name in ("pixsel", "pixsel-sdp"):
        if name not in methods:
            continue
        t = time.perf_counter()
        path = exact_path(a, B, max_k=max_k, time_limit=args.limit, n_jobs=args.n_jobs,
                          bounds="sdp" if name == "pixsel-sdp" else "cardinality")
        el = time.perf_counter() - t
        rows = [{"k": k, "objective": float(path.objective[k - 1]), "upper_bound": float(path.upper_bound[k - 1]),
                 "gap": float(path.relative_gap[k - 1]), "certified": bool(path.certified[k - 1]),
                 "status": str(path.status[k - 1]), "support": path.support(k).tolist()} for k in ks]
        for r in rows:
            assert len(r["support"]) == r["k"]
        out["methods"][name] = {"rows": rows, "time_s": el, "search_status": path.search_status,
                                "n_nodes": int(path.n_nodes), "sdp": path.info.get("sdp"),
                                "two_swap": path.info.get("two_swap")}
        best[:max_k] = np.maximum(best[:max_k], path.objective)
        extra = f"; 2-swaps {path.info.get('two_swap')}"
        extra += "" if name == "pixsel" else f"; caps {path.info.get('sdp')}"
        print(f"{LABELS[name]}: {int(path.certified.sum())}/{max_k} certified in {el:.1f} s "
              f"({path.search_status}, {path.n_nodes} nodes); largest gap {100 * float(path.relative_gap.max()):.3g} %"
              f"{extra}", flush=True)
    per_k = args.limit / len(ks)
    best_f = np.concatenate(([0.0], best))
    for name in methods:
        if name.startswith("pixsel"):
            continue
        why = peer_available(name)
        if why is not None:
            print(f"{LABELS[name]}: skipped: {why}", flush=True)
            out["methods"][name] = {"skipped": why}
            continue
        rows = []
        t0 = time.perf_counter()
        for k in ks:
            if name == "okridge":
                r = run_okridge(twin, a, B, k, per_k, args.peer_gap)
            elif name == "l0bnb":
                r = run_l0bnb(twin, a, B, k, per_k, args.peer_gap, best_f, p)
            elif name == "gurobi":
                r = run_gurobi(twin, a, B, k, per_k, args.peer_gap, greedy[k - 1])
            else:
                r = run_scip(twin, a, B, k, per_k, args.peer_gap, greedy[k - 1])
            rows.append(r)
            if r.get("status") == "too_large":
                print(f"{LABELS[name]}: the instance is too large for the size-limited licence ({r['note']})",
                      flush=True)
                rows += [dict(r, k=j) for j in ks[k:]]
                break
        el = time.perf_counter() - t0
        out["methods"][name] = {"rows": rows, "time_s": el}
        cert = sum(r["certified"] for r in rows)
        gaps = [r["gap"] for r in rows if np.isfinite(r["gap"])]
        print(f"{LABELS[name]}: {cert}/{max_k} certified in {el:.1f} s; largest gap "
              f"{100 * max(gaps) if gaps else math.inf:.3g} %", flush=True)
    print_table(key, out)
    return out


def print_table(key, out):
    names = [m for m in METHODS if m in out["methods"] and "rows" in out["methods"][m]]
    print(f"{key}: per k, certified (*) or not, certified gap % on f, seconds (pixsel: one search for all k)")
    print("  k | " + " | ".join(f"{m:>20s}" for m in names))
    for i in range(out["max_k"]):
        cells = []
        for m in names:
            r = out["methods"][m]["rows"][i]
            mark = "*" if r["certified"] else " "
            g = float(r["gap"])  # (read back from JSON: "inf")
            gtxt = "-" if not np.isfinite(g) else f"{100 * g:.3g}"
            if r.get("status") in ("too_large", "not_reachable") or str(r.get("status", "")).startswith("size_"):
                gtxt = r["status"]
            tt = "" if m.startswith("pixsel") else f" {r['time_s']:5.1f}s"
            cells.append(f"{mark}{gtxt:>12s}{tt:>7s}")
        print(f"{i + 1:3d} | " + " | ".join(f"{c:>20s}" for c in cells))


def summary(results):
    """Per instance and method: sizes certified, total seconds, largest and median gap (%)."""
    lines = ["instance | method | certified | total s | largest gap % | median gap %"]
    for key, res in results.items():
        for m in METHODS:
            d = res["methods"].get(m)
            if d is None:
                continue
            if "rows" not in d:
                lines.append(f"{key} | {LABELS[m]} | skipped ({d['skipped']}) | - | - | -")
                continue
            rows = d["rows"]
            if rows and rows[0].get("status") == "too_large":
                lines.append(f"{key} | {LABELS[m]} | too large for the size-limited licence | - | - | -")
                continue
            cert = sum(r["certified"] for r in rows)
            gaps = [float(r["gap"]) for r in rows]
            g = max(gaps) if gaps else 0.0
            med = float(np.median(gaps)) if gaps else 0.0
            lines.append(f"{key} | {LABELS[m]} | {cert}/{len(rows)} | {d['time_s']:.1f} | "
                         f"{'inf' if not np.isfinite(g) else f'{100 * g:.3g}'} | "
                         f"{'inf' if not np.isfinite(med) else f'{100 * med:.3g}'}")
    return lines


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(results)
    ncols = min(3, len(keys))
    nrows = -(-len(keys) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(max(6.5, 4.6 * ncols), 4.0 * nrows + 0.8), squeeze=False,
                             sharey=True)
    short = {"pixsel": "pixsel", "pixsel-sdp": "pixsel (sdp)", "okridge": "OKRidge", "l0bnb": "l0bnb",
             "gurobi": "Gurobi", "scip": "SCIP"}
    handles = {}
    for ax in axes.ravel()[len(keys):]:
        ax.set_visible(False)
    styles = {"pixsel": ("k", "o", "-", 3.0), "pixsel-sdp": ("tab:orange", "o", "-", 1.6),
              "okridge": ("tab:blue", "s", "--", 1.2),
              "l0bnb": ("tab:green", "^", ":", 1.2), "gurobi": ("tab:red", "D", "-.", 1.2),
              "scip": ("tab:purple", "v", (0, (5, 1, 1, 1)), 1.2)}
    # gaps below the floor (in %) are drawn on it (certified: 0); no bound at all (inf), or a
    # size the peer did not return, on the ceiling
    floor, ceil = 1e-4, 1e3
    for ax, key in zip(axes.ravel(), keys):
        res = results[key]
        counts = []
        for m in METHODS:
            d = res["methods"].get(m)
            if d is None or "rows" not in d:
                continue
            rows = d["rows"]
            if rows and rows[0].get("status") == "too_large":
                counts.append(f"{short[m]} too large for its licence")
                continue
            k = np.array([r["k"] for r in rows])
            g = np.array([100 * float(r["gap"]) for r in rows])  # (read back from JSON: "inf")
            cert = np.array([r["certified"] for r in rows])
            color, marker, ls, lw = styles[m]
            gp = np.clip(np.where(cert, floor, np.nan_to_num(g, nan=ceil, posinf=ceil)), floor, ceil)
            (line,) = ax.plot(k, gp, linestyle=ls, color=color, lw=lw, alpha=0.45 if m == "pixsel" else 0.9,
                              zorder=1 if m == "pixsel" else 3, marker=marker, ms=0)
            handles[m] = line
            counts.append(f"{short[m]} {int(cert.sum())}")
            ms = 6 if m == "pixsel" else 4
            ax.plot(k[cert], gp[cert], marker, color=color, ms=ms, mfc=color, zorder=2 if m == "pixsel" else 4)
            ax.plot(k[~cert], gp[~cert], marker, color=color, ms=ms, mfc="white", zorder=2 if m == "pixsel" else 4)
        ax.set_yscale("log")
        ax.set_ylim(floor / 2, ceil * 3)
        ax.axhline(ceil, color="0.6", lw=0.6)
        ax.text(0.99, ceil * 1.3, "no bound, or not of size k", ha="right", va="bottom", fontsize=6.5,
                transform=ax.get_yaxis_transform(), color="0.4")
        ax.set_title(f"{key}: p = {res['p']}, {float(res['limit_s']):g} s per method\nsizes certified: "
                     + ", ".join(counts), fontsize=8)
        ax.set_xlabel("k (pixels selected)")
        ax.grid(alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("certified gap (U - f) / f, %\n(filled: certified, drawn at 1e-4 %)")
    fig.suptitle("Sparse LDA on image pixels: certified gap per k and method, same time per instance",
                 fontsize=9.5)
    fig.legend([handles[m] for m in METHODS if m in handles], [LABELS[m] for m in METHODS if m in handles],
               loc="lower center", ncol=3, fontsize=7.5, frameon=False)
    fig.tight_layout(rect=(0, 0.7 / fig.get_figheight(), 1, 1))
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def merge(args):
    """Combine the JSON of several runs (say, the peers from one and pixsel after a change from
    another): the summary names the run each method's numbers come from."""
    results, sources = {}, []
    for path in args.merge:
        rec = json.loads(Path(path).read_text())
        sources.append(f"{path.parent.name}/{path.name}: load {rec.get('load')}, limit {rec['args'].get('limit')} s, "
                       f"methods {rec['args'].get('methods')}")
        for key, inst in rec["instances"].items():
            mine = results.setdefault(key, {k: v for k, v in inst.items() if k != "methods"} | {"methods": {}})
            mine["methods"].update({m: dict(d, run=f"{path.parent.name}/{path.name}") for m, d in inst["methods"].items()})
    for key in results:
        print_table(key, results[key])
    lines = summary(results)
    print("\nSUMMARY (merged: " + "; ".join(sources) + ")")
    for line in lines:
        print(line)
    out = out_dir(args)
    write_results(args, {"merged_from": sources, "instances": results, "summary": lines}, name="exact_images")
    plot(results, out / "exact_images.png")
    print(f"wrote {out / 'exact_images.json'} and exact_images.png")


def main(argv=None):
    ap = parser("exact_images", __doc__.splitlines()[0])
    ap.add_argument("--instances", default="usps60,usps100,yale60,yale100,usps256",
                    help=f"comma-separated, of {', '.join(INSTANCES)}")
    ap.add_argument("--max-k", type=int, default=30, help="sizes k = 1..max_k (default 30)")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per method and instance (default 600)")
    ap.add_argument("--methods", default=",".join(DEFAULT_METHODS),
                    help=f"comma-separated, of {', '.join(METHODS)} (pixsel-sdp: exact_path with bounds='sdp', "
                         "which needs the 'conic' extra)")
    ap.add_argument("--peer-gap", type=float, default=1e-4,
                    help="relative gap (on its own objective) at which a peer's size counts as certified")
    ap.add_argument("--n-jobs", type=int, default=1, help="worker processes of exact_path (peers: one core)")
    ap.add_argument("--merge", nargs="+", type=Path, metavar="JSON",
                    help="no solving: merge the results of earlier runs (per instance and method, a later file "
                         "wins), print the summary and draw the figure into --out")
    args = ap.parse_args(argv)
    if args.merge:
        return merge(args)
    keys = args.instances.split(",")
    methods = args.methods.split(",")
    for key in keys:
        if key not in INSTANCES and not (args.quick and key == "quick"):
            ap.error(f"unknown instance {key!r}; choose from {', '.join(INSTANCES)}")
    for m in methods:
        if m not in METHODS:
            ap.error(f"unknown method {m!r}; choose from {', '.join(METHODS)}")
    if args.quick:
        INSTANCES["quick"] = ("usps", 24)
        keys, args.max_k, args.limit = ["quick"], 6, min(args.limit, 6.0)
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores", flush=True)
    results = {}
    t0 = time.perf_counter()
    with blas_threads(args):
        for key in keys:
            results[key] = run_instance(key, args, methods)
    lines = summary(results)
    print("\nSUMMARY (per instance and method: sizes certified, total seconds, largest certified gap)")
    for line in lines:
        print(line)
    print(f"total {time.perf_counter() - t0:.0f} s; load average {os.getloadavg()}")
    out = out_dir(args)
    write_results(args, {"args": {k: v for k, v in vars(args).items() if k != "out"}, "load": os.getloadavg(),
                         "instances": results, "summary": lines}, name="exact_images")
    plot(results, out / "exact_images.png")
    print(f"wrote {out / 'exact_images.json'} and exact_images.png")


if __name__ == "__main__":
    main()
