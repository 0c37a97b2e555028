"""Monte Carlo evaluation of greedy and thresholding against the certified optimum (002 Fig. 1).

For ``--pairs`` random pairs (A, B) of size n = 16 (sample covariances of two Brownian-type
processes with random smoothness, ``_exact_common.random_pair``: kernel ``exp(-|i-j|^gamma / l)``,
``gamma ~ U(0.1, 2]``, ``l ~ U(1, n)``, 2n draws each, ridge 1e-3 on B) and every k = 1..n:

* the optimum ``R*(k)`` of every k from ``exact_path_batch`` (one compiled all-k search per pair,
  the single-pair ``exact_path`` costs ~10 x more per pair, mostly outside its search);
* GSLDA: the better of the forward and backward greedy passes, i.e. the seeds that
  ``exact_path_batch`` returns (``greedy_forward`` / ``greedy_backward``);
* ST: simple thresholding (rank ``|v|``, ``v`` the principal eigenvector of
  ``B^{-1/2} A B^{-1/2}``, every prefix renormalized); FT: thresholding of the generalized
  eigenvector. Both are computed for a whole chunk at once with stacked NumPy calls.

Before the run, the first pairs are checked against the public single-pair functions: the
optimum against ``exact_path`` (all 'optimal'), the greedy curves against ``greedy_path`` and the
ST curve against ``simple_thresholding_path``; the script stops if any differs.

The pairs are cut into chunks of ``--chunk`` pairs, chunk ``c`` drawn from
``default_rng([seed, c])``, and the chunks run in a process pool (``--jobs``, default all cores):
the results do not depend on the number of processes. Reported per k: the mean normalized score
``R(k) / lambda_max(A, B)`` of the three, the mean ratios greedy/optimal and ST/optimal, the
worst greedy ratio, how often greedy is optimal. Paper: greedy keeps >= 90% of the optimum at
every k, worst near k = n/2.

Run: ``python benchmarks/bench_exact_montecarlo.py`` (50,000 pairs as in the paper; ``--pairs N``
to reduce, ``--max-seconds S`` to stop submitting chunks after S seconds).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from _common import blas_threads, out_dir, parser, write_results
from _exact_common import ft_order, random_pair

from pixsel.io import save_figure
from pixsel.spectral import exact_path, exact_path_batch, greedy_path, simple_thresholding_path


def _inv_sqrt(B):
    w, V = np.linalg.eigh(B)
    return (V / np.sqrt(w)[:, None, :]) @ V.transpose(0, 2, 1)


def prefix_objectives(A, B, order):
    """``lambda_max(A_SS, B_SS)`` of every prefix ``S = order[:, :k]`` of a stack of orders."""
    N, n = order.shape
    rows = np.arange(N)[:, None, None]
    out = np.empty((N, n))
    for k in range(1, n + 1):
        S = order[:, :k]
        Ak = A[rows, S[:, :, None], S[:, None, :]]
        Bk = B[rows, S[:, :, None], S[:, None, :]]
        Li = np.linalg.inv(np.linalg.cholesky(Bk))
        C = Li @ Ak @ Li.transpose(0, 2, 1)
        out[:, k - 1] = np.linalg.eigvalsh((C + C.transpose(0, 2, 1)) / 2)[:, -1]
    return out


def thresholding_curves(A, B):
    """ST and FT objectives of every prefix, for a stack of pairs (the rules of
    ``simple_thresholding_path`` and ``_exact_common.ft_order``: ties to the lowest index)."""
    Bih = _inv_sqrt(B)
    C = Bih @ A @ Bih
    v = np.linalg.eigh((C + C.transpose(0, 2, 1)) / 2)[1][:, :, -1]
    st = np.argsort(-np.abs(v), axis=1, kind="stable")
    L = np.linalg.cholesky(B)
    Li = np.linalg.inv(L)
    C = Li @ A @ Li.transpose(0, 2, 1)
    y = np.linalg.eigh((C + C.transpose(0, 2, 1)) / 2)[1][:, :, -1]
    x = np.linalg.solve(L.transpose(0, 2, 1), y[:, :, None])[:, :, 0]
    ft = np.argsort(-np.abs(x), axis=1, kind="stable")
    return prefix_objectives(A, B, st), prefix_objectives(A, B, ft), st, ft


def draw_chunk(seed, chunk, size, n):
    rng = np.random.default_rng([seed, chunk])
    pairs = [random_pair(n, rng) for _ in range(size)]
    return np.stack([a for a, _ in pairs]), np.stack([b for _, b in pairs])


def run_chunk(task):
    """One chunk in a worker: draw its pairs, solve them, the baselines; CPU seconds of each part."""
    seed, chunk, size, n, threads = task
    with blas_threads(threads):
        c0 = time.process_time()
        A, B = draw_chunk(seed, chunk, size, n)
        c1 = time.process_time()
        res = exact_path_batch(A, B)
        c2 = time.process_time()
        st, ft, _, _ = thresholding_curves(A, B)
        c3 = time.process_time()
    greedy = np.maximum(res.greedy_forward, res.greedy_backward)
    return chunk, res.objective, greedy, st, ft, res.n_nodes, (c1 - c0, c2 - c1, c3 - c2)


def check_against_public(seed, n, count=6):
    """The batch quantities of the first ``count`` pairs equal the public single-pair functions'."""
    A, B = draw_chunk(seed, 0, count, n)
    res = exact_path_batch(A, B)
    st, ft, _, ford = thresholding_curves(A, B)
    worst = 0.0
    for i in range(count):
        path = exact_path(A[i], B[i])
        if not np.all(path.status == "optimal"):
            raise SystemExit(f"check: exact_path did not certify pair {i}")
        refs = [
            (res.objective[i], path.objective),
            (res.greedy_forward[i], greedy_path(A[i], B[i], direction="forward").objective),
            (res.greedy_backward[i], greedy_path(A[i], B[i], direction="backward").objective),
            (st[i], simple_thresholding_path(A[i], B[i]).objective),
        ]
        if not np.array_equal(ford[i], ft_order(A[i], B[i])):
            raise SystemExit(f"check: FT order of pair {i} differs from _exact_common.ft_order")
        for got, ref in refs:
            worst = max(worst, float(np.max(np.abs(got - ref) / np.abs(ref))))
    if worst > 1e-9:
        raise SystemExit(f"check: batch and public functions differ (max relative {worst:.2e})")
    return worst


def main(argv=None):
    ap = parser("exact_montecarlo", __doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=50000)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--chunk", type=int, default=250, help="pairs per chunk (one task of the pool)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count(), help="worker processes (default: all cores)")
    ap.add_argument("--max-seconds", type=float, default=None, help="stop submitting chunks after this many seconds")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.quick:
        args.pairs, args.n, args.chunk = 40, 8, 10
    n = args.n
    with blas_threads(args):
        worst = check_against_public(args.seed, n)  # also compiles the kernel before the pool forks
    print(f"check against exact_path / greedy_path / simple_thresholding_path on 6 pairs: max relative difference {worst:.1e}")
    sizes = [min(args.chunk, args.pairs - s) for s in range(0, args.pairs, args.chunk)]
    tasks = [(args.seed, c, size, n, args.threads) for c, size in enumerate(sizes)]
    t0 = time.perf_counter()
    results = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        it = iter(tasks)
        for task in it:  # keep 2 tasks per worker in flight; stop feeding at --max-seconds
            pending.add(pool.submit(run_chunk, task))
            if len(pending) >= 2 * args.jobs:
                break
        from concurrent.futures import FIRST_COMPLETED, wait

        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                out = fut.result()
                results[out[0]] = out
            if args.max_seconds is None or time.perf_counter() - t0 < args.max_seconds:
                for task in it:
                    pending.add(pool.submit(run_chunk, task))
                    if len(pending) >= 2 * args.jobs:
                        break
            if len(results) % 20 == 0 and done:
                print(f"  {sum(len(r[1]) for r in results.values())} pairs, {time.perf_counter() - t0:.0f} s", flush=True)
    elapsed = time.perf_counter() - t0
    chunks = [results[c] for c in sorted(results)]
    opt = np.concatenate([r[1] for r in chunks])
    gre = np.concatenate([r[2] for r in chunks])
    st = np.concatenate([r[3] for r in chunks])
    ft = np.concatenate([r[4] for r in chunks])
    nodes = np.concatenate([r[5] for r in chunks])
    cpu = np.sum([r[6] for r in chunks], axis=0)  # draw, solve, baselines
    done = len(opt)
    top = opt[:, -1:]
    opt_n, gre_n, st_n = opt / top, gre / top, st / top
    r_gre, r_st, r_ft = gre / opt, st / opt, ft / opt
    ks = np.arange(1, n + 1)
    cpu_all = float(cpu.sum())
    print(f"{done} pairs (n = {n}) in {elapsed:.1f} s wall with {args.jobs} processes (load average"
          f" {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores); all sizes certified optimal by exact_path_batch")
    print(f"CPU seconds: draw {cpu[0]:.1f}, exact_path_batch {cpu[1]:.1f} ({1e3 * cpu[1] / done:.2f} ms per pair,"
          f" {done / cpu[1]:.0f} pairs per CPU second), ST + FT {cpu[2]:.1f}; all: {done / cpu_all:.0f} pairs per CPU second,"
          f" {done / elapsed:.1f} pairs per wall second")
    print(f"projected for 50,000 pairs: {50000 * cpu_all / done / 60:.1f} min of one CPU, {50000 * elapsed / done / 60:.1f} min wall"
          f" here; mean nodes per pair {nodes.mean():.0f} (max {nodes.max()})")
    print(" k | mean R*/Rn | mean GSLDA/Rn | mean ST/Rn | GSLDA/opt mean (min) | ST/opt mean (min) | FT/opt mean | GSLDA optimal")
    for j, k in enumerate(ks):
        print(
            f"{k:2d} | {opt_n[:, j].mean():10.4f} | {gre_n[:, j].mean():13.4f} | {st_n[:, j].mean():10.4f} |"
            f" {r_gre[:, j].mean():.4f} ({r_gre[:, j].min():.4f}) | {r_st[:, j].mean():.4f} ({r_st[:, j].min():.4f}) |"
            f" {r_ft[:, j].mean():11.4f} | {np.mean(r_gre[:, j] >= 1 - 1e-9):12.1%}"
        )
    worst_k = int(ks[np.argmin(r_gre.mean(0))])
    print(f"greedy mean ratio >= 0.90 at every k: {bool(np.all(r_gre.mean(0) >= 0.9))} (lowest {r_gre.mean(0).min():.4f});"
          f" worst mean ratio at k = {worst_k} (paper: k = n/2 = {n // 2}); worst single pair {r_gre.min():.4f}"
          f" at k = {int(ks[np.argmin(r_gre.min(0))])}")
    out = out_dir(args)
    data = {
        "args": {"pairs": args.pairs, "n": args.n, "chunk": args.chunk, "jobs": args.jobs, "max_seconds": args.max_seconds,
                 "seed": args.seed},
        "pairs_done": done, "elapsed_s": elapsed, "cpu_s": {"draw": cpu[0], "solve": cpu[1], "baselines": cpu[2]},
        "k": ks, "mean_opt_norm": opt_n.mean(0), "mean_greedy_norm": gre_n.mean(0), "mean_st_norm": st_n.mean(0),
        "mean_ratio_greedy": r_gre.mean(0), "min_ratio_greedy": r_gre.min(0), "mean_ratio_st": r_st.mean(0),
        "min_ratio_st": r_st.min(0), "mean_ratio_ft": r_ft.mean(0), "greedy_optimal_fraction": (r_gre >= 1 - 1e-9).mean(0),
        "mean_nodes": nodes.mean(), "load": os.getloadavg(), "check_max_relative_difference": worst,
    }
    write_results(args, data, name="montecarlo")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

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
    for a in ax:  # k is an integer: no 2.5 ticks
        a.xaxis.set_major_locator(MaxNLocator(integer=True))
    save_figure(fig, out / "montecarlo.png", dpi=120)
    print(f"wrote {out / 'montecarlo.json'} and montecarlo.png")


if __name__ == "__main__":
    main()
