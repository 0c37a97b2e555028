"""Dual-pass GSLDA path (forward + backward, every k) against one matrix inverse, same run.

Goal (issue 2): time(dual-pass full path) / time(numpy.linalg.inv(B)) <= 3.0 at p = 4096, on a
random SPD B. Also peak memory: the Python-heap peak during the call (tracemalloc, which sees
NumPy's allocations) and the resident-set growth (psutil), next to the 8 p^2 bytes of one matrix.

The BLAS thread count is fixed for both sides (``--threads``, default 1): on a small shared
machine multi-threaded OpenBLAS timings are dominated by contention, and the ratio compares the
same library either way.

    python benchmarks/bench_gslda_scaling.py            # p in {256, 1024, 2048, 4096}
    python benchmarks/bench_gslda_scaling.py --quick    # smoke size
"""

from __future__ import annotations

import argparse
import gc
import platform
import tracemalloc

import numpy as np

from _common import PeakRSS, best_time, results_dir

from threadpoolctl import threadpool_limits

import pixsel
from pixsel.io import save_figure, write_json
from pixsel.spectral import greedy_path


def random_pair(p, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((2 * p, p))
    B = X.T @ X / (2 * p)  # Wishart: SPD, condition number about 30
    return rng.standard_normal(p), (B + B.T) / 2


def dual_pass(a, B):
    return greedy_path(a, B, direction="forward"), greedy_path(a, B, direction="backward")


def peak_traced(fn):
    """Peak bytes allocated (above the start) through Python's allocators during ``fn()``."""
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 1024, 2048, 4096])
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads for both sides (default 1)")
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats (best of); 1 above p = 2048")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="smoke run at p in {64, 128}")
    args = ap.parse_args()
    sizes = [64, 128] if args.quick else args.sizes

    rows = []
    print(f"{'p':>6} {'inv (s)':>9} {'forward':>9} {'backward':>9} {'dual':>9} {'ratio':>6}"
          f" {'traced peak':>12} {'RSS delta':>10} {'1 matrix':>9}  (MB)")
    with threadpool_limits(limits=args.threads):
        for p in sizes:
            a, B = random_pair(p, args.seed)
            rep = args.repeat if p <= 2048 else 1
            t_inv, _ = best_time(lambda: np.linalg.inv(B), rep)
            t_fwd, fwd = best_time(lambda: greedy_path(a, B, direction="forward"), rep)
            t_bwd, bwd = best_time(lambda: greedy_path(a, B, direction="backward"), rep)
            t_inv2, _ = best_time(lambda: np.linalg.inv(B), rep)  # again, after: load drifts
            t_inv = min(t_inv, t_inv2)
            t_dual = t_fwd + t_bwd
            traced = peak_traced(lambda: dual_pass(a, B))
            traced_inv = peak_traced(lambda: np.linalg.inv(B))
            with PeakRSS() as rss:
                dual_pass(a, B)
            one = 8 * p * p
            # the dual pass must agree with a direct solve at k = p
            full = float(a @ np.linalg.solve(B, a))
            assert abs(fwd.objective[-1] - full) <= 1e-8 * full and abs(bwd.objective[-1] - full) <= 1e-8 * full
            row = {
                "p": p,
                "time_inv_s": t_inv,
                "time_forward_s": t_fwd,
                "time_backward_s": t_bwd,
                "time_dual_s": t_dual,
                "ratio_dual_over_inv": t_dual / t_inv,
                "traced_peak_dual_bytes": traced,
                "traced_peak_inv_bytes": traced_inv,
                "rss_delta_dual_bytes": rss.delta,
                "one_matrix_bytes": one,
                "block_size": fwd.info["block_size"],
                "checkpoints": [len(fwd.info["checkpoints"]), len(bwd.info["checkpoints"])],
                "refactors": [len(fwd.info["refactors"]), len(bwd.info["refactors"])],
                "max_drift": max([d for _, d in fwd.info["checkpoints"] + bwd.info["checkpoints"]], default=0.0),
            }
            rows.append(row)
            mb = 1 / 2**20
            print(f"{p:>6} {t_inv:>9.3f} {t_fwd:>9.3f} {t_bwd:>9.3f} {t_dual:>9.3f} {t_dual / t_inv:>6.2f}"
                  f" {traced * mb:>12.1f} {rss.delta * mb:>10.1f} {one * mb:>9.1f}", flush=True)

    last = rows[-1]
    goal = last["p"] == 4096 and last["ratio_dual_over_inv"] <= 3.0
    print(f"goal (ratio <= 3.0 at p = 4096): {'met' if goal else 'not met' if last['p'] == 4096 else 'not run at p = 4096'}"
          f" -- ratio {last['ratio_dual_over_inv']:.2f} at p = {last['p']}; peak traced memory"
          f" {last['traced_peak_dual_bytes'] / last['one_matrix_bytes']:.2f} x one p x p matrix")
    out = results_dir("gslda_scaling")
    write_json(out / "results.json", {
        "benchmark": "gslda_scaling", "pixsel_version": pixsel.__version__, "threads": args.threads,
        "machine": platform.platform(), "processor": platform.processor(), "numpy": np.__version__,
        "quick": args.quick, "rows": rows, "goal_ratio_le_3_at_4096": goal,
    })
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    ps = [r["p"] for r in rows]
    ax.loglog(ps, [r["time_dual_s"] for r in rows], "o-", label="dual-pass path (pixsel)")
    ax.loglog(ps, [r["time_inv_s"] for r in rows], "s--", label="numpy.linalg.inv(B)")
    ax.set_xlabel("p (features)")
    ax.set_ylabel("seconds")
    ax.legend()
    ax.set_title(f"GSLDA full path vs one inverse ({args.threads} BLAS thread)")
    save_figure(fig, out / "scaling.png", dpi=120, bbox_inches="tight")
    print(f"results in {out}/")


if __name__ == "__main__":
    main()
