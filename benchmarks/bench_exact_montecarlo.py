"""Monte Carlo evaluation of greedy and thresholding against the certified optimum (002 Fig. 1).

For ``--pairs`` random pairs (A, B) of size n = 16 (sample covariances of two Brownian-type
processes with random smoothness, ``_exact_common.random_pair``: kernel ``exp(-|i-j|^gamma / l)``,
``gamma ~ U(0.1, 2]``, ``l ~ U(1, n)``, 2n draws each, ridge 1e-3 on B) and every k = 1..n:

* the optimum ``R*(k)`` of every k from ONE ``exact_path`` search per pair (full symmetric A,
  ``'max-eig'``; leaps and bounds, issue 14), seeded by the dual-pass greedy supports; every size
  must end ``'optimal'`` (counted and reported);
* GSLDA: the better of the forward and backward greedy passes (``pixsel.spectral.greedy_path``,
  the very supports that seed ``exact_path``: read from ``path.info``);
* ST: simple thresholding (``simple_thresholding_path``: principal eigenvector of
  ``B^{-1/2} A B^{-1/2}``), renormalized; FT: thresholding of the generalized eigenvector.

Reported per k: the mean normalized score ``R(k) / lambda_max(A, B)`` of the three, the mean
ratios greedy/optimal and ST/optimal, the worst greedy ratio, and how often greedy is optimal.
Paper: greedy keeps >= 90% of the optimum at every k, worst near k = n/2.

Run: ``python benchmarks/bench_exact_montecarlo.py`` (50,000 pairs as in the paper; ``--pairs N``
to reduce, ``--max-seconds S`` to stop after S seconds and report the pairs done).
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import blas_threads, out_dir, parser, write_results
from _exact_common import ft_order, random_pair, st_order

from pixsel.io import save_figure
from pixsel.spectral import exact_path, objective_on_support


def one_pair(A, B):
    n = len(B)
    path = exact_path(A, B)
    greedy = np.maximum(path.info["greedy_forward"], path.info["greedy_backward"])
    order = st_order(A, B)
    st = np.array([objective_on_support(A, B, np.sort(order[:k])) for k in range(1, n + 1)])
    order = ft_order(A, B)
    ft = np.array([objective_on_support(A, B, np.sort(order[:k])) for k in range(1, n + 1)])
    nodes = np.full(n, path.n_nodes / n)  # one tree for all k: its nodes spread evenly per k
    return path.objective, greedy, st, ft, nodes, list(path.status)


def main(argv=None):
    ap = parser("exact_montecarlo", __doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=50000)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--max-seconds", type=float, default=None, help="stop after this many seconds")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.quick:
        args.pairs, args.n = 4, 8
    n = args.n
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    c0 = time.process_time()
    opt_n, gre_n, st_n, r_gre, r_st, r_ft, nodes_all = [], [], [], [], [], [], []
    not_optimal = 0
    done = 0
    for i in range(args.pairs):
        A, B = random_pair(n, rng)
        with blas_threads(args):
            opt, greedy, st, ft, nodes, statuses = one_pair(A, B)
        not_optimal += sum(s != "optimal" for s in statuses)
        top = opt[-1]
        opt_n.append(opt / top)
        gre_n.append(greedy / top)
        st_n.append(st / top)
        r_gre.append(greedy / opt)
        r_st.append(st / opt)
        r_ft.append(ft / opt)
        nodes_all.append(nodes)
        done += 1
        if args.max_seconds is not None and time.perf_counter() - t0 > args.max_seconds:
            break
        if done % 2000 == 0:
            print(f"  {done} pairs, {time.perf_counter() - t0:.0f} s", flush=True)
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    opt_n, gre_n, st_n = map(np.array, (opt_n, gre_n, st_n))
    r_gre, r_st, r_ft, nodes_all = np.array(r_gre), np.array(r_st), np.array(r_ft), np.array(nodes_all)
    ks = np.arange(1, n + 1)
    print(f"{done} pairs (n = {n}) in {elapsed:.1f} s; solves not optimal: {not_optimal}")
    print(f"rate {done / elapsed:.1f} pairs/s wall ({done / cpu:.1f} per CPU second; load average {os.getloadavg()[0]:.1f}"
          f" on {os.cpu_count()} cores); projected for 50,000 pairs: {50000 * elapsed / done / 60:.1f} min wall,"
          f" {50000 * cpu / done / 60:.1f} min of one CPU;"
          f" mean exact_path nodes per pair {nodes_all.sum(1).mean():.0f}")
    print(" k | mean R*/Rn | mean GSLDA/Rn | mean ST/Rn | GSLDA/opt mean (min) | ST/opt mean (min) | FT/opt mean | GSLDA optimal | nodes/n")
    for j, k in enumerate(ks):
        print(
            f"{k:2d} | {opt_n[:, j].mean():10.4f} | {gre_n[:, j].mean():13.4f} | {st_n[:, j].mean():10.4f} |"
            f" {r_gre[:, j].mean():.4f} ({r_gre[:, j].min():.4f}) | {r_st[:, j].mean():.4f} ({r_st[:, j].min():.4f}) |"
            f" {r_ft[:, j].mean():11.4f} | {np.mean(r_gre[:, j] >= 1 - 1e-9):12.1%} | {nodes_all[:, j].mean():6.1f}"
        )
    worst_k = int(ks[np.argmin(r_gre.mean(0))])
    print(f"greedy mean ratio >= 0.90 at every k: {bool(np.all(r_gre.mean(0) >= 0.9))}; worst mean ratio at k = {worst_k}")
    out = out_dir(args)
    data = {
        "args": {"pairs": args.pairs, "n": args.n, "max_seconds": args.max_seconds, "seed": args.seed}, "pairs_done": done, "elapsed_s": elapsed, "cpu_s": cpu, "not_optimal": not_optimal,
        "k": ks, "mean_opt_norm": opt_n.mean(0), "mean_greedy_norm": gre_n.mean(0), "mean_st_norm": st_n.mean(0),
        "mean_ratio_greedy": r_gre.mean(0), "min_ratio_greedy": r_gre.min(0), "mean_ratio_st": r_st.mean(0),
        "min_ratio_st": r_st.min(0), "mean_ratio_ft": r_ft.mean(0), "greedy_optimal_fraction": (r_gre >= 1 - 1e-9).mean(0),
        "mean_nodes": nodes_all.mean(0), "load": os.getloadavg(),
    }
    write_results(args, data, name="montecarlo")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(ks, opt_n.mean(0), "ko-", label="optimal (exact)")
    ax[0].plot(ks, gre_n.mean(0), "rd-", label="GSLDA (dual pass)")
    ax[0].plot(ks, st_n.mean(0), "bs-", label="ST (renormalized)")
    ax[0].set(xlabel="k", ylabel="mean R(k) / lambda_max(A, B)", title=f"(a) {done} pairs, n = {n}")
    ax[0].legend()
    ax[1].plot(ks, r_gre.mean(0), "rd-", label="GSLDA / optimal")
    ax[1].plot(ks, r_st.mean(0), "bs-", label="ST / optimal")
    ax[1].plot(ks, r_ft.mean(0), "c^--", label="FT / optimal")
    ax[1].axhline(0.9, color="gray", ls=":")
    ax[1].set(xlabel="k", ylabel="mean ratio to optimum", title="(b) optimality ratio")
    ax[1].legend()
    save_figure(fig, out / "montecarlo.png", dpi=120)
    print(f"wrote {out / 'montecarlo.json'} and montecarlo.png")


if __name__ == "__main__":
    main()
