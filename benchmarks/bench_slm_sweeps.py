"""Claim: SparseLinearModelProjection's default of 30 coordinate-descent sweeps per lasso
(``coding_max_iter``) fits faster than the former 100 and learns as good a projection.

On scikit-learn's digits (1797 x 64, random halves, three seeds) and USPS 3 vs 5 (the stored
767 / 773 split, three seeds of the estimator), at the estimator's other defaults (K = number of
pixels, alpha = 0.05, mini-batches of 256, up to 30 epochs), for each ``coding_max_iter`` in
100, 30 and 10: the fit time (median and spread of the three runs, BLAS on one thread, the load
average printed), and on the held-out part the lasso objective of the learned dictionary
(``1/2 ||x - D a||^2 + alpha ||a||_1`` per sample, codes solved to 1000 sweeps: lower is a better
dictionary), the 1-nearest-neighbour accuracy in the M = 10 projection, and the estimated
``tau`` and ``sigma``. The sweeps are a budget per lasso inside each stochastic dictionary update
and for the codes ``tau`` and ``sigma`` are estimated from; scikit-learn's default is 1000.

`--quick`: digits only, one seed.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

from _common import blas_threads, parser, write_results

SWEEPS = (100, 30, 10)


def _data(quick):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    seeds = (0,) if quick else (0, 1, 2)
    out = {"digits": [(s, *train_test_split(X, y, test_size=0.5, random_state=s, stratify=y)) for s in seeds]}
    if not quick:
        from pixsel.datasets import load_shared

        d = load_shared("usps_3v5_split.npz")
        out["USPS 3 vs 5"] = [(s, d["X_train"], d["X_test"], d["y_train"], d["y_test"]) for s in seeds]
    return out


def _heldout_objective(est, X):
    from sklearn.decomposition import sparse_encode

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        A = sparse_encode(X, est.dictionary_, algorithm="lasso_cd", alpha=est.alpha, max_iter=1000)
    r = X - A @ est.dictionary_
    return float(np.mean(0.5 * (r**2).sum(1) + est.alpha * np.abs(A).sum(1)))


def main():
    args = parser("slm_sweeps", __doc__.splitlines()[0]).parse_args()
    from sklearn.neighbors import KNeighborsClassifier

    from pixsel.decomposition import SparseLinearModelProjection

    data = _data(args.quick)
    load = os.getloadavg()
    print(f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; BLAS threads {args.threads or 'unlimited'}")
    SparseLinearModelProjection(2, n_atoms=4, max_iter=1).fit(np.random.default_rng(0).random((40, 8)))  # imports
    result = {"quick": args.quick, "sweeps": list(SWEEPS), "data": {}}
    with blas_threads(args):
        for name, splits in data.items():
            rows = {}
            for sweeps in SWEEPS:
                runs = []
                for seed, Xtr, Xte, ytr, yte in splits:
                    Xtr, Xte = np.asarray(Xtr, dtype=np.float64), np.asarray(Xte, dtype=np.float64)
                    est = SparseLinearModelProjection(10, coding_max_iter=sweeps, random_state=seed)
                    t = time.perf_counter()
                    est.fit(Xtr)
                    seconds = time.perf_counter() - t
                    assert est.dictionary_.shape == (Xtr.shape[1], Xtr.shape[1])  # K = n_features, learned
                    acc = KNeighborsClassifier(1).fit(est.transform(Xtr), ytr).score(est.transform(Xte), yte)
                    runs.append({"fit_s": seconds, "heldout_objective": _heldout_objective(est, Xte),
                                 "knn_accuracy": float(acc), "tau": float(est.tau_), "sigma": float(est.sigma_),
                                 "n_iter": int(est.n_iter_)})
                rows[sweeps] = runs
            result["data"][name] = {str(s): r for s, r in rows.items()}
            print(f"{name} ({len(splits)} runs; fit s median [min-max]; held-out means):")
            base = np.median([r["fit_s"] for r in rows[SWEEPS[0]]])
            for sweeps, runs in rows.items():
                t = [r["fit_s"] for r in runs]
                m = {k: np.mean([r[k] for r in runs]) for k in ("heldout_objective", "knn_accuracy", "tau", "sigma")}
                print(f"  coding_max_iter={sweeps:<4d} fit {np.median(t):6.2f} s [{min(t):.2f}-{max(t):.2f}] "
                      f"({base / np.median(t):.1f}x faster than {SWEEPS[0]})  held-out lasso objective "
                      f"{m['heldout_objective']:.4g}  1-NN accuracy (M = 10) {m['knn_accuracy']:.4f}  "
                      f"tau {m['tau']:.4g}  sigma {m['sigma']:.4g}  epochs {[r['n_iter'] for r in runs]}", flush=True)
    after = os.getloadavg()
    print(f"load average after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}")
    result["load"] = {"before": list(load), "after": list(after)}
    write_results(args, result)


if __name__ == "__main__":
    main()
