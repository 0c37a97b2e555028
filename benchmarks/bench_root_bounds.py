"""Root bounds of two-class sparse LDA on correlated pixels: the perspective bound beside the rank-one
(pairwise) convexification bound from its semidefinite relaxation.

Instance: the one of ``bench_exact_images`` (``usps100``): USPS 3 vs 5, the 767 training images, the
100 pixels of highest variance, ``f(S) = a_S^T B_SS^{-1} a_S`` with ``B`` the pooled within-class
covariance plus pixsel's ridge ``'auto'``. Root gap = bound / incumbent - 1, the incumbent the
better of the forward and backward greedy paths (brute force in ``--quick``, where it is feasible),
so the gaps are upper estimates of the true gaps; ``--exact-limit S`` takes them from ``exact_path``
(certified optima where it finishes in ``S`` seconds), ``--incumbents JSON`` from a
``bench_exact_images`` run on ``usps100`` (its best objective per size).

Bounds, at each size ``k``:

* ``perspective_bound`` (the exact search's root bound: the Boolean / perspective relaxation of
  k-sparse ridge regression with pixsel's diagonal);
* ``mixed_split_bound`` (``pair``) with the split of ``B`` (diagonal plus 2 x 2 blocks on each pixel's ``--pairs``
  most correlated partners) read off the dual of the semidefinite relaxation of Atamtürk and
  Gómez ("Rank-one convexification for sparse regression", JMLR 2025), solved ONCE by Clarabel at
  ``k = --sdp-k``: the split is valid for every size, so each size only pays the certified
  evaluation. Its solve time is printed separately (``--sdp-runs`` solves; one by default at the
  full size, where a solve takes minutes). At the other sizes the split is mixed with the
  perspective diagonal, ``t * split + (1 - t) * diagonal`` (column ``t``: the best of 0, 0.25,
  0.5, 0.75, 1; ``t = 0`` is the perspective split itself), each mixture a certified bound.

The ``gap ratio`` is the perspective gap over the pair gap (how many times smaller it is).

Times: median and spread (min-max) of ``--repeat`` runs, one BLAS thread.

Run: ``python benchmarks/bench_root_bounds.py`` (needs ``pip install pixsel[conic]``; ``--quick``:
14 pixels, brute-force incumbents, three solves). ``--per-k`` also solves the relaxation at every
size (one run each) and prints that size's own bound.
"""

from __future__ import annotations

import os
import time
from itertools import combinations
from pathlib import Path

import numpy as np
from _common import blas_threads, parser, write_results
from bench_exact_images import best_known, image_data, lda_problem

from pixsel.spectral import exact_path, greedy_path, objective_on_support
from pixsel.spectral.bounds import mixed_split_bound, perspective_bound, sdp_decomposition, strongest_pairs


def _timed(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), float(min(times)), float(max(times)), out


def incumbents(a, B, ks, brute, exact_limit=0.0, from_json=None):
    if from_json is not None:
        # the best objective per size over the methods of a bench_exact_images run (usps100)
        best, certified = best_known(from_json)
        print(f"incumbents from {from_json}: certified optimal at k = {[k for k in ks if k in certified]}", flush=True)
        return {k: best[k] for k in ks}
    if exact_limit > 0:
        path = exact_path(a, B, max_k=max(ks), time_limit=exact_limit)
        certified = [k for k in ks if path.certified[k - 1]]
        print(f"incumbents from exact_path ({exact_limit:g} s): certified optimal at k = {certified}", flush=True)
        return {k: float(path.objective[k - 1]) for k in ks}
    if brute:
        return {k: max(objective_on_support(a, B, list(S)) for S in combinations(range(a.size), k)) for k in ks}
    fw = greedy_path(a, B, direction="forward")
    bw = greedy_path(a, B, direction="backward")
    return {k: float(max(fw.objective[k - 1], bw.objective[k - 1])) for k in ks}


def main():
    ap = parser("bench_root_bounds", __doc__.splitlines()[0])
    ap.add_argument("--sizes", default="5,10,15,20,30")
    ap.add_argument("--pixels", type=int, default=100)
    ap.add_argument("--pairs", type=int, default=2, help="partners per pixel given a pair cone (default 2)")
    ap.add_argument("--sdp-k", type=int, default=10)
    ap.add_argument("--sdp-runs", type=int, default=1)
    ap.add_argument("--per-k", action="store_true",
                    help="also solve the relaxation at every size (minutes per size at 100 pixels)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--exact-limit", type=float, default=0.0,
                    help="seconds of exact_path for the incumbents (certified optima where it finishes)")
    ap.add_argument("--incumbents", type=Path, default=None, metavar="JSON",
                    help="take the incumbents from a bench_exact_images run on usps100 (its best objective per k)")
    args = ap.parse_args()
    if args.quick:
        args.pixels, args.sizes, args.sdp_k, args.sdp_runs = 14, "3,5,7", 5, 3
    ks = [int(s) for s in args.sizes.split(",")]
    X, y, pixels = image_data("usps", args.pixels)
    a, B, _ = lda_problem(X, y)
    brute = args.pixels <= 16
    kind = (f"bench_exact_images ({args.incumbents.name})" if args.incumbents is not None
            else "exact_path" if args.exact_limit > 0 else "brute force" if brute
            else "best greedy (forward / backward)")
    print(f"USPS 3 vs 5, {a.size} pixels of highest variance, sizes {ks}; incumbent {kind}; "
          f"load {os.getloadavg()}", flush=True)
    with blas_threads(args):
        inc = incumbents(a, B, ks, brute, args.exact_limit, args.incumbents)
        pairs = strongest_pairs(B, args.pairs)
        med, lo, hi, (d, pairs, P, sdp) = _timed(lambda: sdp_decomposition(a, B, args.sdp_k, pairs, tol=1e-6),
                                                 args.sdp_runs)
        print(f"semidefinite relaxation at k = {args.sdp_k}, {len(pairs)} pair cones: {sdp['status']}, value "
              f"{sdp['relaxation']:.6g}; solve {med:.2f} s (min {lo:.2f}, max {hi:.2f}, {args.sdp_runs} run(s)); "
              f"load {os.getloadavg()}", flush=True)
        sdp_time = {"median_s": med, "min_s": lo, "max_s": hi, "runs": args.sdp_runs}
        print(f"{'k':>3} {'incumbent':>10} {'persp.':>10} {'gap':>8} {'time s':>16} {'pair':>10} {'gap':>8} "
              f"{'time s':>16} {'gap ratio':>9} {'t':>4}")
        rows = []
        for k in ks:
            pm, plo, phi, (pb, _) = _timed(lambda: perspective_bound(a, B, k), args.repeat)
            z0 = sdp["z"] if k == args.sdp_k else None
            qm, qlo, qhi, (qb, t) = _timed(lambda: mixed_split_bound(a, B, k, d, pairs, P, z0=z0), args.repeat)
            f = inc[k]
            assert pb >= f * (1 - 1e-12) and qb >= f * (1 - 1e-12), f"a bound fell below the incumbent at k = {k}"
            g_p, g_q = pb / f - 1, qb / f - 1
            print(f"{k:>3} {f:>10.5f} {pb:>10.5f} {100 * g_p:>7.2f}% {pm:>6.3f} [{plo:.3f}-{phi:.3f}] "
                  f"{qb:>10.5f} {100 * g_q:>7.2f}% {qm:>6.3f} [{qlo:.3f}-{qhi:.3f}] {g_p / max(g_q, 1e-300):>9.2f} "
                  f"{t:>4.2f}",
                  flush=True)
            row = {"k": k, "incumbent": f, "perspective": pb, "perspective_gap": g_p,
                   "perspective_time_s": [pm, plo, phi], "pair": qb, "pair_gap": g_q,
                   "pair_time_s": [qm, qlo, qhi], "weight": t}
            if args.per_k and k != args.sdp_k:
                t0 = time.perf_counter()
                dk, _, Pk, sk = sdp_decomposition(a, B, k, pairs, tol=1e-6)
                sol_s = time.perf_counter() - t0
                bk, _ = mixed_split_bound(a, B, k, dk, pairs, Pk, z0=sk["z"])
                assert bk >= f * (1 - 1e-12), f"the per-size bound fell below the incumbent at k = {k}"
                row.update(pair_own=bk, pair_own_gap=bk / f - 1, own_solve_s=sol_s)
                print(f"    solved at k = {k} itself: {bk:.5f}, gap {100 * (bk / f - 1):.2f}%, solve {sol_s:.2f} s "
                      f"(one run); load {os.getloadavg()}", flush=True)
            rows.append(row)
        print(f"load {os.getloadavg()}")
    write_results(args, {"pixels": pixels.tolist(), "n_pairs": len(pairs), "sdp_k": args.sdp_k, "sdp": sdp_time,
                         "sdp_status": sdp["status"], "sdp_value": sdp["relaxation"], "rows": rows,
                         "incumbent": kind})


if __name__ == "__main__":
    main()
