"""Stability of the sparse-linear-model scales across random training draws.

Protocol: CMU PIE (``cmupie_32x32.npz``, 68 people x 42 images, each image normalized to unit
length as in the paper). For each of ``--splits`` seeded random draws, ``--per-person`` images of
every person (default 5: 340 training images, the few-images-per-person case where the former
LARS coder made ``sigma_`` and ``tau_`` jump by orders of magnitude) are the training set and the
other images the test set. :class:`pixsel.decomposition.SparseLinearModelProjection` is fitted at
its defaults (K = 1024 atoms, alpha = 0.05, up to 30 epochs) with ``n_components = --M``
(default 100); the test images are classified by 4-NN on the projections (scikit-learn), next to
PCA with the same M on the same draw.

Goals: ``max/min`` of ``sigma_`` and of ``tau_`` over the draws <= 10; no draw's 4-NN accuracy
more than 0.05 below the median.

Run: ``python benchmarks/bench_slm_stability.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import time

import numpy as np
import _common

from pixsel.datasets import load_shared
from pixsel.decomposition import SparseLinearModelProjection


def _draw(y, per_person, rng):
    tr = np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), per_person, replace=False)
                                 for c in np.unique(y)]))
    return tr, np.setdiff1d(np.arange(len(y)), tr)


def _knn(Ytr, ytr, Yte, yte):
    from sklearn.neighbors import KNeighborsClassifier

    return float(KNeighborsClassifier(n_neighbors=4).fit(Ytr, ytr).score(Yte, yte))


def main(argv=None):
    p = _common.parser("slm_stability", __doc__.splitlines()[0])
    p.add_argument("--splits", type=int, default=10)
    p.add_argument("--per-person", type=int, default=5)
    p.add_argument("--M", type=int, default=100)
    p.add_argument("--sigma", default="default", help="'default' (residual) or 'prior' (sigma^2 = alpha tau)")
    p.add_argument("--max-iter", type=int, default=30, help="dictionary-learning epochs (the default)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    with _common.blas_threads(args):
        return _run(args)


def _run(args):
    from sklearn.decomposition import PCA

    people, n_atoms = None, None
    if args.quick:
        args.splits, args.M, args.max_iter, people, n_atoms = 3, 10, 2, 8, 64
    d = load_shared("cmupie_32x32.npz")
    X, y = d["X"].astype(np.float64), d["y"]
    if people is not None:
        keep = y < people
        X, y = X[keep], y[keep]
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    sigma = None if args.sigma == "default" else args.sigma
    print(f"CMU PIE: {len(X)} images, {len(np.unique(y))} people; {args.per_person} training images per person, "
          f"{args.splits} draws, M = {args.M}, SLM defaults (sigma={sigma!r}, max_iter={args.max_iter})", flush=True)
    rows = []
    t0 = time.perf_counter()
    for s in range(args.splits):
        tr, te = _draw(y, args.per_person, np.random.default_rng(args.seed + s))
        t = time.perf_counter()
        est = SparseLinearModelProjection(args.M, n_atoms=n_atoms, sigma=sigma, max_iter=args.max_iter,
                                          random_state=args.seed + s).fit(X[tr])
        fit_s = time.perf_counter() - t
        acc = _knn(est.transform(X[tr]), y[tr], est.transform(X[te]), y[te])
        pca = PCA(args.M, random_state=s).fit(X[tr])
        acc_pca = _knn(pca.transform(X[tr]), y[tr], pca.transform(X[te]), y[te])
        rows.append({"split": s, "sigma": est.sigma_, "tau": est.tau_, "accuracy": acc, "accuracy_pca": acc_pca,
                     "epochs": est.n_iter_, "fit_s": fit_s, "top_eigenvalue": float(est.eigenvalues_[0]),
                     "dictionary_trace": float(np.sum(est.dictionary_ ** 2))})
        print(f"  draw {s}: sigma_ {est.sigma_:.4g}  tau_ {est.tau_:.4g}  4-NN {acc:.3f} (PCA {acc_pca:.3f})  "
              f"{est.n_iter_} epochs, fit {fit_s:.1f} s", flush=True)
    sig = np.array([r["sigma"] for r in rows])
    tau = np.array([r["tau"] for r in rows])
    acc = np.array([r["accuracy"] for r in rows])
    med = float(np.median(acc))
    summary = {
        "sigma_max_over_min": float(sig.max() / sig.min()) if sig.min() > 0 else float("inf"),
        "tau_max_over_min": float(tau.max() / tau.min()),
        "accuracy_median": med, "accuracy_min": float(acc.min()), "accuracy_max": float(acc.max()),
        "largest_drop_below_median": float(med - acc.min()),
        "accuracy_pca_median": float(np.median([r["accuracy_pca"] for r in rows])),
    }
    summary["goal_scales_met"] = summary["sigma_max_over_min"] <= 10 and summary["tau_max_over_min"] <= 10
    summary["goal_accuracy_met"] = summary["largest_drop_below_median"] <= 0.05
    print(f"\nsigma_ max/min {summary['sigma_max_over_min']:.3g}, tau_ max/min {summary['tau_max_over_min']:.3g} "
          f"(goal <= 10: {'met' if summary['goal_scales_met'] else 'NOT met'})")
    print(f"4-NN accuracy median {med:.3f}, min {acc.min():.3f}, max {acc.max():.3f}; largest drop below the median "
          f"{summary['largest_drop_below_median']:.3f} (goal <= 0.05: "
          f"{'met' if summary['goal_accuracy_met'] else 'NOT met'}); PCA median {summary['accuracy_pca_median']:.3f}")
    path = _common.write_results(args, {"protocol": {**vars(args), "out": str(args.out)}, "draws": rows,
                                        "summary": summary, "total_s": time.perf_counter() - t0})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
