"""Dual-pass GSLDA path (forward + backward, every k) against one matrix inverse, same run.

Claim: the path users get costs about as much as one ``numpy.linalg.inv(B)``.
Goal: the public ``pixsel.spectral.greedy_path`` dual pass <= 2.0 x ``inv(B)`` at p = 4096, with
a peak memory <= 1.3 x one p x p matrix. Four things are timed side by side, best of 3 each:

* ``inv``: ``numpy.linalg.inv(B)``, the reference (timed before and after the others; the
  smaller time is kept, since load on a shared machine drifts);
* ``kernel``: the raw binary kernel ``pixsel.spectral.rank_one_greedy_path``, forward + backward;
* ``public``: ``pixsel.spectral.greedy_path`` forward + backward, the function users call
  (validation included, certificates at their default: off);
* ``selector``: ``SparseLDASelector(direction='dual', regularization='auto').fit(X, y)``.

Same statistics. The data are ``X`` (``2p`` samples, two classes; the within-class covariance is
a Wishart matrix with condition number about 30) and ``y``. ``a`` and ``B`` are computed from them
once, exactly as the selector computes them (``pixsel.stats.class_statistics`` then
``pixsel.stats.regularize(..., 'auto')``); the kernel and the public function run on those
arrays, and the selector runs on ``(X, y)``, so all three solve the same pair (the script checks
that the selector's ``objective_path_`` equals the public dual pass). The selector necessarily
computes the statistics from ``X`` (one ``n p^2`` pass): that step is timed separately
(``stats``) and ``selector - stats`` is reported next to it.

Memory: the Python-heap peak during the call (tracemalloc sees NumPy's allocations), divided by
the ``8 p^2`` bytes of one matrix; the resident-set growth (psutil) is recorded in the JSON.

    python benchmarks/bench_gslda_scaling.py --threads 1   # p in {256, 1024, 2048, 4096}
    python benchmarks/bench_gslda_scaling.py --quick       # smoke size
"""

from __future__ import annotations

import gc
import platform
import tracemalloc

import numpy as np
from _common import PeakRSS, best_time, blas_threads, out_dir, parser, write_results

from pixsel.io import save_figure
from pixsel.selection import SparseLDASelector
from pixsel.spectral import greedy_path, rank_one_greedy_path
from pixsel.stats import class_statistics, regularize

GOAL_RATIO = 2.0
GOAL_MEMORY = 1.3


def make_data(p, seed):
    """Two classes of ``p`` samples each; the class means differ by a random shift."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], p)
    X = rng.standard_normal((2 * p, p))
    X[y == 1] += 0.2 * rng.standard_normal(p)
    return X, y


def statistics(X, y):
    """``a`` and ``B`` exactly as ``SparseLDASelector(regularization='auto')`` forms them."""
    st = class_statistics(X, y)
    B, _ = regularize(st.within, "auto", X=X, y=y, means=st.means, classes=st.classes)
    return np.asarray(st.between).ravel(), B


def dual(fn, a, B):
    return fn(a, B, direction="forward"), fn(a, B, direction="backward")


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


def measure(p, seed, repeat):
    X, y = make_data(p, seed)
    t_stats, (a, B) = best_time(lambda: statistics(X, y), repeat)
    selector = SparseLDASelector(n_features_to_select=min(10, p), direction="dual", regularization="auto",
                                 refine=False)  # the dual pass alone, as the paths it is checked against
    t_inv, _ = best_time(lambda: np.linalg.inv(B), repeat)
    t_kernel, (kf, kb) = best_time(lambda: dual(rank_one_greedy_path, a, B), repeat)
    t_public, (pf, pb) = best_time(lambda: dual(greedy_path, a, B), repeat)
    t_sel, sel = best_time(lambda: selector.fit(X, y), repeat)
    t_inv = min(t_inv, best_time(lambda: np.linalg.inv(B), repeat)[0])
    # correctness next to the timings: the same paths, the direct solve at k = p
    full = float(a @ np.linalg.solve(B, a))
    for path in (kf, kb, pf, pb):
        assert abs(path.objective[-1] - full) <= 1e-8 * full
    np.testing.assert_array_equal(kf.order, pf.order)
    np.testing.assert_array_equal(kb.order, pb.order)
    np.testing.assert_allclose(sel.objective_path_, np.maximum(pf.objective, pb.objective), rtol=1e-12)
    one = 8 * p * p
    mem = {
        "inv": peak_traced(lambda: np.linalg.inv(B)),
        "kernel": peak_traced(lambda: dual(rank_one_greedy_path, a, B)),
        "public": peak_traced(lambda: dual(greedy_path, a, B)),
    }
    with PeakRSS() as rss:
        dual(greedy_path, a, B)
    return {
        "p": p,
        "time_inv_s": t_inv,
        "time_kernel_dual_s": t_kernel,
        "time_public_dual_s": t_public,
        "time_dual_s": t_public,  # what users call (the key earlier runs used)
        "time_selector_fit_s": t_sel,
        "time_stats_s": t_stats,
        "ratio_kernel": t_kernel / t_inv,
        "ratio_public": t_public / t_inv,
        "ratio_selector": t_sel / t_inv,
        "ratio_selector_minus_stats": (t_sel - t_stats) / t_inv,
        "one_matrix_bytes": one,
        "traced_peak_bytes": mem,
        "memory_public_over_one_matrix": mem["public"] / one,
        "rss_delta_public_bytes": rss.delta,
        "block_size": kf.info["block_size"],
        "refactors": [len(pf.info["refactors"]), len(pb.info["refactors"])],
        "max_drift": max([d for _, d in pf.info["checkpoints"] + pb.info["checkpoints"]], default=0.0),
    }


def main(argv=None):
    ap = parser("gslda_scaling", __doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 1024, 2048, 4096])
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats (best of)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    sizes = [64, 128] if args.quick else args.sizes
    repeat = 1 if args.quick else args.repeat

    rows = []
    head = (f"{'p':>5} | {'inv s':>7} | {'kernel':>13} | {'public':>13} | {'selector':>13} | "
            f"{'stats s':>7} | {'sel-stats':>9} | {'mem/pxp':>7}")
    print(f"times in seconds, (ratio to inv(B)); best of {repeat}; BLAS threads: {args.threads or 'unlimited'}")
    print(head)
    with blas_threads(args):
        for p in sizes:
            r = measure(p, args.seed, repeat)
            rows.append(r)
            print(f"{p:>5} | {r['time_inv_s']:>7.3f} | {r['time_kernel_dual_s']:>6.3f} ({r['ratio_kernel']:>4.2f}) | "
                  f"{r['time_public_dual_s']:>6.3f} ({r['ratio_public']:>4.2f}) | "
                  f"{r['time_selector_fit_s']:>6.3f} ({r['ratio_selector']:>4.2f}) | {r['time_stats_s']:>7.3f} | "
                  f"{r['ratio_selector_minus_stats']:>9.2f} | {r['memory_public_over_one_matrix']:>7.2f}", flush=True)

    last = rows[-1]
    at_goal = last["p"] == 4096
    met = at_goal and last["ratio_public"] <= GOAL_RATIO and last["memory_public_over_one_matrix"] <= GOAL_MEMORY
    print(f"goal (public <= {GOAL_RATIO} x inv(B), peak <= {GOAL_MEMORY} x one p x p matrix at p = 4096): "
          f"{('met' if met else 'not met') if at_goal else 'not run at p = 4096'} -- public "
          f"{last['ratio_public']:.2f} x, kernel {last['ratio_kernel']:.2f} x, peak "
          f"{last['memory_public_over_one_matrix']:.2f} x at p = {last['p']}")
    write_results(args, {
        "machine": platform.platform(), "processor": platform.processor(), "numpy": np.__version__,
        "repeat": repeat, "rows": rows, "goal_met": bool(met),
    }, name="results")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    ps = [r["p"] for r in rows]
    for key, label, style in (
        ("time_public_dual_s", "greedy_path dual pass (public)", "o-"),
        ("time_kernel_dual_s", "rank_one_greedy_path (kernel)", "^:"),
        ("time_selector_fit_s", "SparseLDASelector.fit (incl. stats)", "d-."),
        ("time_inv_s", "numpy.linalg.inv(B)", "s--"),
    ):
        ax.loglog(ps, [r[key] for r in rows], style, label=label)
    ax.set_xlabel("p (features)")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=7)
    ax.set_title(f"GSLDA full path vs one inverse ({args.threads or 'all'} BLAS thread(s))")
    save_figure(fig, out_dir(args) / "scaling.png", dpi=120, bbox_inches="tight")
    print(f"results in {out_dir(args)}/")


if __name__ == "__main__":
    main()
