"""Fit time of the sparse-linear-model projection next to its peers.

* Linear: :class:`pixsel.decomposition.SparseLinearModelProjection` at its defaults (K = number of
  pixels, alpha = 0.05, up to 30 epochs) on USPS 3 vs 5 (``usps_3v5_split.npz``, the 767 training
  images as stored, M = 2, 10, 50) and on 600 Extended Yale B images (unit length, M = 50), next
  to scikit-learn's ``PCA(M)`` plus ``MiniBatchDictionaryLearning`` with the same K, alpha, batch
  size and epoch budget, (a) with the coordinate-descent coder and scikit-learn's default 1000
  sweeps per lasso and (b) with the sweeps SLM uses (``coding_max_iter``; the dictionary work SLM does, so
  (b) isolates SLM's own overhead). Goal: SLM <= 10 x (PCA + MiniBatchDictionaryLearning (a)).
* Kernel: SLM with a Gaussian kernel (K = 300 atoms) on 600 USPS digits (60 per class,
  ``gamma = 1 / median ||xi - xj||^2``) next to ``KernelPCA(M = 150)`` at scikit-learn's defaults
  with the same kernel, both fitted from the images. Rows: the estimator's defaults (``max_iter``
  30, stopping rule ``tol``) at the paper's alpha = 0.1 (footnote 4; ~1.4 %-dense codes here) and
  at alpha = 0.03 / 0.01 (the ~10 % density the paper tuned for), then a fixed 30 and 10
  iterations (``tol = 0``) at alpha = 0.1. Goal: default <= 5 x.

Times are process wall times, best of 3 for fits under 10 s, else one run; BLAS pinned to
``--threads`` (default 1).

Run: ``python benchmarks/bench_slm_speed.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import time

import numpy as np
import _common

from pixsel.datasets import load_shared
from pixsel.decomposition import SparseLinearModelProjection


def _time(fn):
    t = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t
    if dt < 10.0:
        dt2, out = _common.best_time(fn, repeat=2)
        dt = min(dt, dt2)
    return dt, out


def _mbdl(K, alpha, epochs, batch, sweeps, seed):
    import warnings

    from sklearn.decomposition import MiniBatchDictionaryLearning
    from sklearn.exceptions import ConvergenceWarning

    def fit(X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return MiniBatchDictionaryLearning(K, alpha=alpha, max_iter=epochs, batch_size=batch, fit_algorithm="cd",
                                               transform_algorithm="lasso_cd", transform_max_iter=sweeps,
                                               random_state=seed).fit(X)
    return fit


def _linear(name, X, Ms, args, rows):
    from sklearn.decomposition import PCA

    K = X.shape[1]
    for M in Ms:
        t_slm, est = _time(lambda: SparseLinearModelProjection(M, random_state=args.seed,
                                                               max_iter=args.epochs).fit(X))
        t_pca, _ = _time(lambda: PCA(M, random_state=args.seed).fit(X))
        if M == Ms[0]:  # the dictionary does not depend on M: the peers once per data set
            t_a, dl_a = _time(lambda: _mbdl(K, 0.05, args.epochs, 256, 1000, args.seed)(X))
            sweeps = SparseLinearModelProjection().coding_max_iter
            t_b, dl_b = _time(lambda: _mbdl(K, 0.05, args.epochs, 256, sweeps, args.seed)(X))
        row = {"data": name, "n": X.shape[0], "p": X.shape[1], "K": K, "M": M, "slm_s": t_slm,
               "slm_epochs": est.n_iter_, "pca_s": t_pca, "mbdl_default_sweeps_s": t_a,
               "mbdl_default_sweeps_epochs": float(dl_a.n_iter_), "mbdl_same_sweeps_s": t_b,
               "ratio": t_slm / (t_pca + t_a), "ratio_same_work": t_slm / (t_pca + t_b)}
        rows.append(row)
        print(f"{name:14s} {X.shape[0]:5d} {K:5d} {M:4d} {t_slm:9.2f} {int(est.n_iter_):4d} {t_pca:8.3f} "
              f"{t_a:10.2f} {int(dl_a.n_iter_):4d} {t_b:10.2f} {row['ratio']:8.2f} {row['ratio_same_work']:9.2f}",
              flush=True)


def main(argv=None):
    p = _common.parser("slm_speed", __doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=30, help="dictionary-learning epoch budget (the default)")
    p.add_argument("--yale", type=int, default=600, help="Extended Yale B images")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    with _common.blas_threads(args):
        return _run(args)


def _run(args):
    from scipy.spatial.distance import pdist
    from sklearn.decomposition import KernelPCA

    usps = load_shared("usps_3v5_split.npz")
    X35 = np.asarray(usps["X_train"], dtype=np.float64)
    yale = load_shared("extyaleb_32x32.npz")
    rng = np.random.default_rng(args.seed)
    Xy = yale["X"][np.sort(rng.choice(len(yale["X"]), args.yale, replace=False))].astype(np.float64)
    Xy /= np.linalg.norm(Xy, axis=1, keepdims=True)
    Ms, Myale, per_class, kM, n_atoms, kiters = (2, 10, 50), 50, 60, 150, 300, (30, 10)
    if args.quick:
        X35, Xy = X35[:120, :64], Xy[:80, :128]
        Ms, Myale, per_class, kM, n_atoms, kiters = (2, 10), 10, 8, 20, 30, (5, 2)
        args.epochs = 2
    rows = []
    print(f"{'data':14s} {'n':>5s} {'K':>5s} {'M':>4s} {'SLM s':>9s} {'ep':>4s} {'PCA s':>8s} "
          f"{'MBDL(a) s':>10s} {'ep':>4s} {'MBDL(b) s':>10s} {'ratio':>8s} {'ratio(b)':>9s}")
    _linear("USPS 3 vs 5", X35, Ms, args, rows)
    _linear("Yale B", Xy, (Myale,), args, rows)

    full = load_shared("usps_full_16x16.npz")
    Xf, yf = np.asarray(full["X"], dtype=np.float64), full["y"]
    idx = np.sort(np.concatenate([rng.choice(np.flatnonzero(yf == c), per_class, replace=False)
                                  for c in np.unique(yf)]))
    Xk = Xf[idx]
    gamma = 1.0 / float(np.median(pdist(Xk, "sqeuclidean")))
    t_kpca, _ = _common.best_time(lambda: KernelPCA(kM, kernel="rbf", gamma=gamma).fit(Xk), repeat=3)
    kernel_rows = []
    default = SparseLinearModelProjection()
    print(f"\nkernel: {len(Xk)} USPS digits, Gaussian kernel gamma = {gamma:.4g}, K = {n_atoms}, M = {kM}; "
          f"KernelPCA best of 3")
    print(f"{'setting':>24s} {'alpha':>6s} {'iters':>5s} {'SLM s':>8s} {'KPCA s':>8s} {'ratio':>7s}")
    configs = [("defaults", 0.1, {}), ("defaults", 0.03, {}), ("defaults", 0.01, {}),
               (f"{kiters[0]} iterations, tol=0", 0.1, {"max_iter": kiters[0], "tol": 0.0}),
               (f"{kiters[1]} iterations, tol=0", 0.1, {"max_iter": kiters[1], "tol": 0.0})]
    if args.quick:
        configs = [("defaults", 0.1, {"max_iter": kiters[0]})]
    for label, a, kw in configs:
        t_k, est = _time(lambda: SparseLinearModelProjection(kM, n_atoms=n_atoms, alpha=a, kernel="rbf", gamma=gamma,
                                                             random_state=args.seed, **kw).fit(Xk))
        kernel_rows.append({"setting": label, "alpha": a, "max_iter": kw.get("max_iter", default.max_iter),
                            "tol": kw.get("tol", default.tol), "n_iter": est.n_iter_, "converged": est.converged_,
                            "slm_s": t_k, "kpca_s": t_kpca, "ratio": t_k / t_kpca})
        print(f"{label:>24s} {a:6.2f} {est.n_iter_:5d} {t_k:8.3f} {t_kpca:8.3f} {t_k / t_kpca:7.1f}", flush=True)
    worst = max(r["ratio"] for r in rows)
    worst_k = max(r["ratio"] for r in kernel_rows if r["setting"] == "defaults")
    print(f"\nlinear: worst SLM / (PCA + MiniBatchDictionaryLearning) {worst:.2f} (goal <= 10: "
          f"{'met' if worst <= 10 else 'NOT met'}); kernel at the defaults: worst "
          f"{worst_k:.1f} x KernelPCA (goal <= 5: {'met' if worst_k <= 5 else 'NOT met'})")
    path = _common.write_results(args, {"linear": rows, "kernel": kernel_rows, "gamma": gamma})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
