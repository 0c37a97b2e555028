"""UCI Sonar (002 Fig. 2) and Ionosphere (002 Fig. 3): cross-validated error vs k.

Protocol: ``--reps`` randomized repetitions of stratified 5-fold cross-validation. In every fold
the class statistics (``a = m1 - m0``, pooled within-class ``B``, ridge ``'auto'`` =
``1e-3 trace(B) / p``, as pixsel does by default) and every selection use the training 80% only.
The test 20% is classified by the sparse discriminant on the selected support with the rule of
``_exact_common.fisher_predict``: ``w = B_SS^{-1} a_S`` and the threshold at the midpoint of the
projected training class means. Selectors:

* ST - simple thresholding (``simple_thresholding_path``: ranks ``|B^{-1/2} a|``), renormalized;
* FT - thresholding of the dense Fisher discriminant ``B^{-1} a`` (``fisher_thresholding_path``);
* P-corr - ranking by |Pearson correlation| with the label;
* GSLDA - the dual pass (better of the forward and backward greedy supports at each k)
  (``--dataset sonar``);
* ESLDA - ``exact_support`` at every k, initialized by the dual pass, with ``--solve-limit``
  seconds per solve; the status of every solve is counted (``--dataset ionosphere``).

Run: ``python benchmarks/bench_exact_uci.py --dataset sonar`` (or ``ionosphere``); ``--reps`` to
reduce, ``--quick`` for a smoke run. Output: ``results/exact_uci/<dataset>.json`` and ``.png``.
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np
from _common import blas_threads, out_dir, parser, write_results
from _exact_common import dual_pass_objectives, fisher_predict, ft_order, pearson_order, st_order
from sklearn.model_selection import StratifiedKFold

from pixsel.datasets import load_shared
from pixsel.io import save_figure
from pixsel.spectral import exact_support
from pixsel.stats import class_statistics, regularize


def dual_pass_supports(a, B):
    fwd, bwd, fsup, bsup = dual_pass_objectives(a, B)
    return [f if of >= ob else b for of, ob, f, b in zip(fwd, bwd, fsup, bsup)]


def main(argv=None):
    ap = parser("exact_uci", __doc__.splitlines()[0])
    ap.add_argument("--dataset", choices=["sonar", "ionosphere"], default="sonar")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--ks", default=None, help="comma-separated k values (default: all)")
    ap.add_argument("--solve-limit", type=float, default=10.0, help="seconds per exact solve (ionosphere)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    with blas_threads(args):
        run(args)


def run(args):
    fname = {"sonar": "uci_sonar.npz", "ionosphere": "uci_ionosphere.npz"}[args.dataset]
    d = load_shared(fname)
    X, y = d["X"].astype(np.float64), d["y"].astype(int)
    p = X.shape[1]
    ks = list(range(1, p + 1)) if args.ks is None else [int(v) for v in args.ks.split(",")]
    if args.quick:
        args.reps = 1
        ks = ks[:: max(1, len(ks) // 5)]
    exact = args.dataset == "ionosphere"
    main_name = "ESLDA" if exact else "GSLDA"
    methods = ["ST", "FT", "P-corr", main_name]
    err = {m: np.zeros((args.reps, len(ks))) for m in methods}
    statuses = Counter()
    gaps = []
    t0 = time.perf_counter()
    for rep in range(args.reps):
        cv = StratifiedKFold(5, shuffle=True, random_state=args.seed + rep)
        wrong = {m: np.zeros(len(ks)) for m in methods}
        for tr, te in cv.split(X, y):
            st = class_statistics(X[tr], y[tr])
            a = np.asarray(st.between).ravel()
            B, _ = regularize(st.within, "auto")
            orders = {"ST": st_order(a, B), "FT": ft_order(a, B), "P-corr": pearson_order(X[tr], y[tr])}
            greedy = dual_pass_supports(a, B)
            for j, k in enumerate(ks):
                sup = {m: np.sort(orders[m][:k]) for m in ("ST", "FT", "P-corr")}
                if exact:
                    res = exact_support(a, B, k, initial=greedy[k - 1], time_limit=args.solve_limit)
                    statuses[res.status] += 1
                    gaps.append(res.relative_gap)
                    sup[main_name] = res.support
                else:
                    sup[main_name] = greedy[k - 1]
                for m in methods:
                    pred = fisher_predict(X[tr], y[tr], X[te], sup[m], B, a)
                    wrong[m][j] += np.sum(pred != y[te])
        for m in methods:
            err[m][rep] = wrong[m] / len(y)
        print(f"  rep {rep + 1}/{args.reps} {time.perf_counter() - t0:.0f} s", flush=True)
    elapsed = time.perf_counter() - t0
    print(f"{args.dataset}: {args.reps} x 5-fold CV in {elapsed:.1f} s" + (f"; exact solves {dict(statuses)}, max rel. gap {max(gaps):.2e}" if exact else ""))
    print(" k | " + " | ".join(f"{m:>15s}" for m in methods) + "   (mean test error % +- std over reps)")
    for j, k in enumerate(ks):
        print(f"{k:2d} | " + " | ".join(f"{100 * err[m][:, j].mean():7.2f} +- {100 * err[m][:, j].std():4.2f}" for m in methods))
    out = out_dir(args)
    write_results(
        args,
        {"args": {"dataset": args.dataset, "reps": args.reps, "ks": args.ks, "solve_limit": args.solve_limit,
                  "seed": args.seed}, "k": ks, "elapsed_s": elapsed, "statuses": dict(statuses),
         "max_rel_gap": max(gaps) if gaps else None,
         **{f"mean_error_{m}": err[m].mean(0) for m in methods}, **{f"std_error_{m}": err[m].std(0) for m in methods}},
        name=args.dataset,
    )
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    style = {"ST": "bs-", "FT": "c^--", "P-corr": "g*-", "GSLDA": "rd-", "ESLDA": "ko-"}
    for m in methods:
        ax.errorbar(ks, 100 * err[m].mean(0), yerr=100 * err[m].std(0), fmt=style[m], label=m, capsize=2, ms=4)
    ax.set(xlabel="k", ylabel="CV test error (%)", title=f"{args.dataset}: {args.reps} x 5-fold CV")
    ax.legend()
    save_figure(fig, out / f"{args.dataset}.png", dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
