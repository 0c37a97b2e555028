"""Do strong bounds prune the enumeration's shallow subtrees? Perspective and rank-one (pair) bounds at nodes.

``exact_path`` certifies the small sizes of two-class sparse LDA (``f(S) = a_S^T B_SS^{-1} a_S``) by a
compiled enumeration (:mod:`pixsel.spectral.exact._allk_enum`): a node ``F`` with the ordered candidates
``C`` has the children ``F + C[i]`` with candidates ``C[i+1:]``, and a child is skipped only when the
inclusion bound ``f(F + C[i:])`` does not beat the incumbent. This script walks the first ``--depth``
levels of that tree exactly as the kernel orders them (checked against the kernel at the root) and,
at every child the inclusion bound keeps open, evaluates

* ``persp``: :func:`pixsel.spectral.bounds.perspective_bound` at the node (``F`` fixed in, the
  candidates before ``C[i]`` fixed out, its own diagonal), ``--iters`` steps;
* ``pair``: :func:`pixsel.spectral.bounds.pair_bound` with the rank-one (pairwise) split of ``B`` solved
  once by Clarabel at ``--sdp-k`` (Atamtürk and Gómez, "Rank-one convexification for sparse
  regression", JMLR 2025), ``z`` re-optimized at the node (``--iters`` steps, started from the parent's
  ``z`` and from the uniform point, the smaller Frank-Wolfe value kept; each is certified),
  only where ``persp`` does not prune (the strong bound only where the cheap one fails; ``--both``:
  at every node, to compare the two).

A child is pruned when its bound is at most the incumbent. The work of each subtree is counted by the
enumeration kernel itself, run on the subtree (the Schur complement and residual given ``F + C[i]``,
the candidates ``C[i+1:]``, the same single size with the same incumbent): its nodes and its pair
evaluations (the kernel's inner loop, which holds nearly all of its time). ``saved`` is the work in the
subtrees a bound prunes, ``kept`` the work in those it leaves. A count stopped by ``--cap`` seconds (ten
times that for a pruned subtree) is a lower bound (printed with ``>=``); a fraction with a stopped
count in ``kept`` only is an upper estimate (``<=``), one with stopped counts on both sides a rough
one (``~``).

Instance: ``usps100`` of ``bench_exact_images`` (USPS 3 vs 5, the 100 pixels of highest variance, the
pooled within-class covariance plus the ridge ``'auto'``). Incumbents: ``--incumbents JSON`` (a
``bench_exact_images`` run on ``usps100``: its best objective per size), else the greedy supports
refined by swaps. ``--quick``: 24 pixels, size 6, 20 steps per bound, every subtree counted, and
every bound checked against the best support of its subtree (found by the kernel with no incumbent).

Run: ``python benchmarks/bench_node_bounds.py --incumbents exact_images.json`` (needs
``pip install pixsel[conic]``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from _common import blas_threads, parser, write_results
from bench_exact_images import best_known, image_data, lda_problem

from pixsel.spectral import greedy_path, swap_refine
from pixsel.spectral.bounds import pair_bound, perspective_bound, sdp_decomposition
from pixsel.spectral.exact import _allk_enum


def children_order(S, R):
    """The kernel's order of a node's children: greedily from the end, the candidate of the smallest
    gain ``R_j^2 / S_jj`` given the node and the suffix so far; returns the order (positions) and the
    suffix gains ``f(F + C[i:]) - f(F)``."""
    c = R.size
    T, Rt = S.copy(), R.copy()
    alive = np.ones(c, dtype=bool)
    perm, sb = np.empty(c, dtype=np.intp), np.empty(c)
    cum = 0.0
    for pos in range(c - 1, -1, -1):
        idx = np.flatnonzero(alive)
        dg = T[idx, idx]
        g = np.where(dg > 0, Rt[idx] ** 2 / np.where(dg > 0, dg, 1.0), np.inf)
        x = idx[int(np.argmin(g))]
        cum += float(np.min(g))
        perm[pos], sb[pos] = x, cum
        alive[x] = False
        u = T[:, x] / T[x, x]
        Rt = Rt - u * Rt[x]
        T = T - np.outer(u, T[x])
    return perm, sb


def condition(a, B, F, C):
    """Schur complement of ``B_FF`` on the candidates ``C``, the residual of ``a`` and ``f(F)``."""
    F, C = np.asarray(F, dtype=np.intp), np.asarray(C, dtype=np.intp)
    if F.size == 0:
        return B[np.ix_(C, C)].copy(), a[C].copy(), 0.0
    X = np.linalg.solve(B[np.ix_(F, F)], B[np.ix_(F, C)])
    return (B[np.ix_(C, C)] - B[np.ix_(C, F)] @ X, a[C] - X.T @ a[F],
            float(a[F] @ np.linalg.solve(B[np.ix_(F, F)], a[F])))


def subtree_work(a, B, F, C, K, inc, cap):
    """The enumeration kernel on the subtree ``F`` + subsets of ``C`` of size ``K``: ``(nodes, pair
    evaluations, completed, best value in the subtree or -inf)``."""
    S, R, f = condition(a, B, F, C)
    Kp = K - len(F)
    if Kp <= 0 or len(C) < Kp:
        return 0, 0, True, -np.inf
    incp = np.full(Kp + 1, -np.inf)
    incp[Kp] = inc - f
    kern = _allk_enum.EnumKernel(R[:, None], S, Kp, np.arange(len(C)), incp, off=range(1, Kp))
    t = time.perf_counter()
    while kern.open:
        kern.step(_allk_enum.CHUNK)
        if cap is not None and time.perf_counter() - t > cap:
            return kern.n_nodes, int(kern.state[2]), False, -np.inf
    best = kern.inc[Kp] + f if kern.inc[Kp] > incp[Kp] else -np.inf
    return kern.n_nodes, int(kern.state[2]), True, float(best)


def explore(a, B, K, inc, split, args, check=False):
    """Walk the first ``args.depth`` levels of the size-``K`` enumeration; one record per child that the
    inclusion bound keeps open."""
    records = []

    def visit(F, cand, f, zparent, depth):
        S, R, _ = condition(a, B, F, cand)
        perm, sb = children_order(S, R)
        C = cand[perm]
        for i in range(C.size):
            if len(F) + 1 + (C.size - i - 1) < K:
                break  # too few candidates left for size K
            incl = f + sb[i]
            if incl * (1.0 + 1e-9) <= inc:
                break  # the suffixes only shrink: the kernel skips this child and the ones after it
            Fc, U = [*F, int(C[i])], np.r_[np.asarray(F, dtype=np.intp), C[i:]]
            rec = {"depth": depth + 1, "F": Fc, "incl": float(incl)}
            t = time.perf_counter()
            rec["persp"] = float(perspective_bound(a, B, K, fixed_in=Fc, allowed=U, iters=args.iters)[0])
            rec["persp_s"] = time.perf_counter() - t
            rec["pair"], z = np.inf, zparent
            if rec["persp"] > inc or check or args.both:
                t = time.perf_counter()
                starts = [None] if zparent is None else [zparent, None]
                rec["pair_h"] = -np.inf
                for z0 in starts:
                    b, info = pair_bound(a, B, K, *split, iters=args.iters, z0=z0, fixed_in=Fc, allowed=U)
                    rec["pair_h"] = max(rec["pair_h"], float(info["relaxation"]))
                    if b < rec["pair"]:
                        rec["pair"], z = float(b), info["z"]
                rec["pair_s"] = time.perf_counter() - t
            rec["pruned_by"] = "persp" if rec["persp"] <= inc else "pair" if rec["pair"] <= inc else None
            # the ascent's primal value is a lower bound on the pair relaxation's: above the incumbent,
            # no certificate from this split can prune the node (below, a converged one might)
            rec["pair_open"] = rec["pruned_by"] is None and rec.get("pair_h", np.inf) <= inc
            deeper = rec["pruned_by"] is None and depth + 1 < args.depth
            if not deeper:
                # a pruned subtree is counted with ten times the cap (its work is what the bound saves)
                cap = args.cap * (10.0 if rec["pruned_by"] else 1.0)
                n, pe, done, _ = subtree_work(a, B, Fc, C[i + 1 :], K, inc, cap)
                rec.update(nodes=n, pairs=pe, completed=done)
            if check:  # the best support of the subtree (no incumbent: nothing pruned)
                rec["best"] = subtree_work(a, B, Fc, C[i + 1 :], K, -np.inf, None)[3]
            records.append(rec)
            if deeper:
                visit(Fc, C[i + 1 :], float(a[Fc] @ np.linalg.solve(B[np.ix_(Fc, Fc)], a[Fc])), z, depth + 1)

    visit([], np.arange(a.size), 0.0, None, 0)
    return records


def check_order(a, B, K, inc):
    """The root's order here is the kernel's (its first step writes the root's children in order)."""
    kern = _allk_enum.EnumKernel(a[:, None], B, K, np.arange(a.size), np.r_[np.full(K, -np.inf), inc],
                                 off=range(1, K))
    kern.step(1)
    perm, sb = children_order(B, a)
    assert np.array_equal(kern.ids[0], perm) and np.allclose(kern.sb[0], sb, rtol=1e-9), "order differs"


def incumbents(a, B, ks, from_json):
    if from_json is not None:
        best, _ = best_known(from_json)
        return {k: best[k] for k in ks}, f"the best of {from_json}"
    fw, bw = greedy_path(a, B, direction="forward"), greedy_path(a, B, direction="backward")
    out = {}
    for k in ks:
        S = fw.support(k) if fw.objective[k - 1] >= bw.objective[k - 1] else bw.support(k)
        out[k] = float(swap_refine(a, B, S).objective)
    return out, "greedy supports refined by swaps"


def fmt(n, done):
    return f"{'>=' if not done else ''}{n:,}"


def summarize(K, inc, recs):
    opened = len(recs)
    rows = []
    for by in ("persp", "pair"):
        pr = [r for r in recs if r["pruned_by"] == by]
        rows.append((by, len(pr), sum(r["nodes"] for r in pr), sum(r["pairs"] for r in pr),
                     all(r["completed"] for r in pr)))
    # the unpruned nodes of the last level examined (those above it were walked into)
    kept = [r for r in recs if "nodes" in r and r["pruned_by"] is None]
    kn, kp, kdone = sum(r["nodes"] for r in kept), sum(r["pairs"] for r in kept), all(r["completed"] for r in kept)
    saved_p = rows[0][3] + rows[1][3]
    total = saved_p + kp
    frac = lambda x: x / total if total else 0.0  # noqa: E731
    sdone = rows[0][4] and rows[1][4]
    mark = "" if kdone and sdone else "<= " if sdone else "~ "
    bound_s = sum(r.get("persp_s", 0.0) + r.get("pair_s", 0.0) for r in recs)
    by_depth = {}
    for r in recs:
        by_depth.setdefault(r["depth"], [0, 0, 0])
        by_depth[r["depth"]][0] += 1
        by_depth[r["depth"]][1] += r["pruned_by"] == "persp"
        by_depth[r["depth"]][2] += r["pruned_by"] == "pair"
    print(f"k = {K}, incumbent {inc:.6f}: {opened} shallow nodes the inclusion bound keeps open "
          f"(per depth: opened / pruned by persp / pruned by pair where persp did not: "
          f"{ {d: tuple(v) for d, v in sorted(by_depth.items())} }); bounds {bound_s:.1f} s", flush=True)
    both = [r for r in recs if np.isfinite(r["pair"]) or r["pruned_by"] == "pair"]
    if len(both) == opened:
        pp, pq = sum(r["persp"] <= inc for r in recs), sum(r["pair"] <= inc for r in recs)
        pb = sum(r["persp"] <= inc and r["pair"] <= inc for r in recs)
        print(f"   each bound at every node: persp prunes {pp}, pair {pq}, both {pb} of the {opened}; pair below "
              f"persp at {sum(r['pair'] < r['persp'] for r in recs)}", flush=True)
    for by, n, nn, pe, done in rows:
        print(f"   pruned by {by:5s}: {n:3d} subtrees, {fmt(nn, done)} nodes, {fmt(pe, done)} pair evaluations "
              f"({mark}{100 * frac(pe):.1f} % of the enumeration's pair evaluations)", flush=True)
    print(f"   left to the enumeration: {len(kept)} subtrees, {fmt(kn, kdone)} nodes, {fmt(kp, kdone)} pair "
          f"evaluations", flush=True)
    maybe = [r for r in kept if r["pair_open"]]
    mp, mdone = sum(r["pairs"] for r in maybe), all(r["completed"] for r in maybe)
    inner = sum(r["pair_open"] for r in recs if "nodes" not in r)
    print(f"   of these, {len(maybe)} subtrees ({fmt(mp, mdone)} pair evaluations) and {inner} nodes above them have "
          f"a pair relaxation whose primal value is below the incumbent (only there might a converged pair "
          f"bound prune; everywhere else no certificate from this split can)", flush=True)
    return {"k": K, "incumbent": inc, "opened": opened, "by_depth": {str(d): v for d, v in by_depth.items()},
            "pruned": {by: {"subtrees": n, "nodes": nn, "pairs": pe, "completed": done} for by, n, nn, pe, done in rows},
            "kept": {"subtrees": len(kept), "nodes": kn, "pairs": kp, "completed": kdone},
            "pair_open": {"subtrees": len(maybe), "pairs": mp, "completed": mdone, "inner_nodes": inner},
            "saved_fraction": (saved_p / total) if total else 0.0, "fraction_is_upper_estimate": not kdone,
            "saved_is_lower_estimate": not sdone,
            "bound_s": bound_s}


def main(argv=None):
    ap = parser("bench_node_bounds", __doc__.splitlines()[0])
    ap.add_argument("--sizes", default="12,13,15", help="the sizes to examine (default 12,13,15)")
    ap.add_argument("--depth", type=int, default=2, help="levels of the tree examined (default 2)")
    ap.add_argument("--iters", type=int, default=100, help="ascent steps per node bound (default 100)")
    ap.add_argument("--sdp-k", type=int, default=None, help="the size the split is solved at (default: the smallest)")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per subtree count (default 60)")
    ap.add_argument("--incumbents", default=None, help="a bench_exact_images JSON on usps100")
    ap.add_argument("--both", action="store_true", help="the pair bound at every node, not only where persp fails")
    ap.add_argument("--split", type=Path, default=None,
                    help="an .npz the split is read from if it exists, else written to (one solve for several runs)")
    args = ap.parse_args(argv)
    n_pix = 24 if args.quick else 100
    if args.quick:
        args.iters = min(args.iters, 20)
    ks = [6] if args.quick else [int(k) for k in args.sizes.split(",")]
    X, y, _ = image_data("usps", n_pix)
    a, B, _ = lda_problem(X, y)
    print(f"usps {n_pix} pixels, sizes {ks}, depth {args.depth}, {args.iters} steps per bound; "
          f"load {os.getloadavg()}", flush=True)
    out = {"p": int(a.size), "sizes": ks, "depth": args.depth, "iters": args.iters, "load_start": os.getloadavg(),
           "results": []}
    with blas_threads(args):
        inc, source = incumbents(a, B, ks, None if args.quick else args.incumbents)
        print(f"incumbents ({source}): {inc}", flush=True)
        sk = args.sdp_k or min(ks)
        t = time.perf_counter()
        if args.split is not None and args.split.exists():
            z = np.load(args.split)
            assert int(z["k"]) == sk and z["d"].size == a.size, "the split file is of another problem"
            d, pairs, P, info = z["d"], z["pairs"], z["P"], {"status": f"read from {args.split}"}
        else:
            d, pairs, P, info = sdp_decomposition(a, B, sk)
            if args.split is not None:
                np.savez(args.split, d=d, pairs=pairs, P=P, k=sk)
        print(f"pair split: the semidefinite relaxation at k = {sk}, {len(pairs)} pair cones, {info['status']}, "
              f"{time.perf_counter() - t:.1f} s", flush=True)
        out["sdp"] = {"k": sk, "status": info["status"], "time_s": time.perf_counter() - t}
        for K in ks:
            check_order(a, B, K, inc[K])
            recs = explore(a, B, K, inc[K], (d, pairs, P), args, check=args.quick)
            if args.quick:
                for r in recs:  # every bound at or above the best support of its subtree
                    assert r["persp"] >= r["best"] * (1 - 1e-9) and r["pair"] >= r["best"] * (1 - 1e-9), r
                print(f"k = {K}: all {len(recs)} node bounds at or above their subtree's best support", flush=True)
                # the subtrees examined partition the enumeration's work: their pair evaluations add up
                full = subtree_work(a, B, [], np.arange(a.size), K, inc[K], None)[1]
                parts = sum(r["pairs"] for r in recs if "pairs" in r)
                assert parts == full, (parts, full)
                print(f"k = {K}: the subtrees' pair evaluations add up to the whole enumeration's ({full})", flush=True)
            out["results"].append(summarize(K, inc[K], recs))
    out["load_end"] = os.getloadavg()
    print(f"load {os.getloadavg()}", flush=True)
    write_results(args, out)


if __name__ == "__main__":
    main()
