"""The placement's Gram matrix in single precision beside the exact one: the same sensors, in less time.

With more images than pixels ``PixelReconstructor`` ranks pixels on the ``p x p`` Gram matrix
``A^T A`` of the centred images, its largest cost on 32x32 faces; from 512 pixels it accumulates
it in single precision (:func:`pixsel.scores.placement_gram`). On the training images of
``bench_sensors`` (Extended Yale B and CMU PIE, 32x32) this runs the placement the default fit
runs there (the greedy and its swaps, :func:`pixsel.scores.refine_placement`) on the exact Gram
matrix and on the single-precision one, side by side in one process: the time of the Gram
matrix and of the placement, whether the path and the placed pixels are the same, the relative
difference of their kept masses (each computed exactly from its own columns), and the held-out
relative error of the default reconstruction from each placement; then the same for the greedy
path alone as ``ColumnSubsetSelector`` runs it (no swaps; with the single-precision matrix, for
``k`` up to ``p / 8``, its kept masses recomputed from exact columns, counted in its time).
Median and spread (max - min) of 3 repetitions, one BLAS thread, load printed. ``--quick``: 1100 Yale B training images, k = 5 and 10.
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import blas_threads, parser, write_results
from bench_sensors import load

from pixsel import PixelReconstructor
from pixsel.scores import greedy_placement, kept_mass, placement_gram, refine_placement

K_FULL = (5, 10, 20, 50, 100, 150)
K_QUICK = (5, 10)
REPEAT = 3


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def one_route(A, k, single):
    """(gram seconds, placement seconds, result) of the default's placement on the exact or the rounded Gram matrix."""
    t_gram, (G, rtol) = _timed(lambda: placement_gram(A) if single else (A.T @ A, 0.0))
    if single:
        assert rtol > 0, "placement_gram did not take single precision here"
    t_place, res = _timed(lambda: refine_placement(A, k, gram=G, gram_rtol=rtol))
    return t_gram, t_place, res


def greedy_route(A, k, single):
    """(seconds, (order, masses)) of ``ColumnSubsetSelector``'s greedy path on the exact or the rounded Gram
    matrix, the rounded one's kept masses recomputed from exact columns."""
    def run():
        G, rtol = placement_gram(A) if single else (A.T @ A, 0.0)
        order, mass = greedy_placement(A, k, gram=G, gram_rtol=rtol)
        if rtol:
            mass = kept_mass((A[:, order].T @ A).T, order)
        return order, mass
    return _timed(run)


def held_out_error(Xtr, Xte, sensors):
    est = PixelReconstructor(len(sensors), always_select=np.asarray(sensors)).fit(Xtr)
    return 1.0 - est.score(Xte)


def main(argv=None):
    p = parser("bench_placement_gram", __doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=None, help="yaleb cmupie")
    p.add_argument("--k", nargs="+", type=int, default=None)
    args = p.parse_args(argv)
    datasets = args.datasets or (["yaleb"] if args.quick else ["yaleb", "cmupie"])
    ks = args.k or (K_QUICK if args.quick else K_FULL)
    print(f"load average at start: {os.getloadavg()}")
    record = {"datasets": {}, "k": list(ks), "repeat": REPEAT}
    with blas_threads(args):
        for name in datasets:
            Xtr, Xte, _ = load(name, False)
            if args.quick:
                Xtr, Xte = Xtr[:1100], Xte[:200]  # still more images than pixels
            A = Xtr - Xtr.mean(0)
            print(f"\n== {name}: {A.shape[0]} training images of {A.shape[1]} pixels, {len(Xte)} held out")
            per_k = {}
            for k in ks:
                times = {"exact": [], "single": []}
                results = {}
                for _ in range(REPEAT):
                    for route in ("exact", "single"):  # alternated, so that both see the same load
                        t_gram, t_place, res = one_route(A, k, route == "single")
                        times[route].append((t_gram, t_place))
                        results[route] = res
                ex, si = results["exact"], results["single"]
                exact_cols = lambda S: (A[:, S].T @ A).T  # noqa: E731
                mass = {r: float(kept_mass(exact_cols(res.support), res.support)[-1]) for r, res in results.items()}
                row = {"same_order": ex.order.tolist() == si.order.tolist(),
                       "same_support": sorted(ex.support.tolist()) == sorted(si.support.tolist()),
                       "mass_rel_diff": (mass["single"] - mass["exact"]) / mass["exact"],
                       "error": {r: held_out_error(Xtr, Xte, res.support) for r, res in results.items()},
                       "load": os.getloadavg()}
                for route, ts in times.items():
                    g, pl = np.array(ts).T
                    row[route] = {part: dict(median=float(np.median(v)), spread=float(np.ptp(v)))
                                  for part, v in (("gram", g), ("placement", pl), ("total", g + pl))}
                if 8 * k <= A.shape[1]:  # ColumnSubsetSelector's greedy path, where it takes the single route
                    gt = {"exact": [], "single": []}
                    paths = {}
                    for _ in range(REPEAT):
                        for route in ("exact", "single"):
                            t, paths[route] = greedy_route(A, k, route == "single")
                            gt[route].append(t)
                    row["greedy"] = {r: dict(median=float(np.median(v)), spread=float(np.ptp(v))) for r, v in gt.items()}
                    row["greedy"]["same_order"] = paths["exact"][0].tolist() == paths["single"][0].tolist()
                    row["greedy"]["mass_rel_diff"] = float(np.max(np.abs(paths["single"][1] / paths["exact"][1] - 1)))
                ratio = row["single"]["total"]["median"] / row["exact"]["total"]["median"]
                row["ratio"] = ratio
                per_k[k] = row
                e, s = row["exact"], row["single"]
                print(f"k = {k:3d}  exact: Gram {1e3 * e['gram']['median']:6.1f} ms + placement "
                      f"{1e3 * e['placement']['median']:6.1f} ms (spread {1e3 * e['total']['spread']:.1f})  single: Gram "
                      f"{1e3 * s['gram']['median']:6.1f} ms + placement {1e3 * s['placement']['median']:6.1f} ms "
                      f"(spread {1e3 * s['total']['spread']:.1f})  single/exact {ratio:.2f}  same path {row['same_order']}, "
                      f"same pixels {row['same_support']}, kept mass {row['mass_rel_diff']:+.1e}, held-out error "
                      f"{row['error']['exact']:.4f} / {row['error']['single']:.4f}  (load {row['load'][0]:.2f})")
                if "greedy" in row:
                    g = row["greedy"]
                    print(f"         greedy path alone (ColumnSubsetSelector): exact {1e3 * g['exact']['median']:6.1f} ms "
                          f"(spread {1e3 * g['exact']['spread']:.1f})  single {1e3 * g['single']['median']:6.1f} ms (spread "
                          f"{1e3 * g['single']['spread']:.1f})  single/exact {g['single']['median'] / g['exact']['median']:.2f}"
                          f"  same path {g['same_order']}, kept masses within {g['mass_rel_diff']:.1e}")
            record["datasets"][name] = {str(k): v for k, v in per_k.items()}
    record["load_end"] = os.getloadavg()
    path = write_results(args, record)
    print(f"\nload average at end: {os.getloadavg()}\nwrote {path}")
    return record


if __name__ == "__main__":
    main()
