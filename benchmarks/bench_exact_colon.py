"""Colon cancer gene selection (002 Fig. 4): leave-one-out error vs k, two protocols.

Data: ``alon_colon.npz`` (62 samples x 2000 genes, raw intensities). Preprocessing: natural log
of the intensities, then each gene standardized to zero mean and unit variance. Statistics:
``a = m1 - m0`` and the pooled within-class covariance ``B`` (rank <= 60), regularized with
pixsel's ``'auto'`` ridge ``alpha = 1e-3 trace(B) / p`` (Moghaddam, Weiss and Avidan (ICML 2006), section 3.3 regularizes B the
same way, ``B + alpha I``).

Selectors: forward GSLDA (the paper used its forward pass here; ``greedy_path`` forward with
``max_k = max(ks)``, O(p k^2) - checked against ``greedy_path_reference`` on a sub-problem at
start-up), ST (``|B^{-1/2} a|``, the ranking of ``simple_thresholding_path``),
FT (``|B^{-1} a|``, ``fisher_thresholding_path``) - both computed through the thin SVD of the
class-centred samples and checked against the kernel functions once - P-corr (|Pearson correlation|)
and SVM-RFE (scikit-learn ``RFE(LinearSVC(C=1))``: 10% of the genes removed per iteration down
to 256, then one at a time - Guyon et al. removed chunks too).

Classifier for every selector: the Fisher discriminant on the selected genes with the midpoint
threshold (``_exact_common.fisher_predict``), trained on the 61 training samples of each fold.

Protocols: ``paper`` - preprocessing and selection on all 62 samples, then LOO on the classifier
only (the paper's and Guyon et al.'s protocol, optimistic as the paper itself says); ``in-fold``
- standardization, statistics and selection repeated inside every leave-one-out fold.

Run: ``python benchmarks/bench_exact_colon.py`` (``--quick``: 10 folds of the in-fold protocol).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from _common import blas_threads, out_dir, parser, write_results
from _exact_common import fisher_predict, pearson_order

from pixsel.datasets import load_shared
from pixsel.io import save_figure
from pixsel.spectral import fisher_thresholding_path, greedy_path, simple_thresholding_path
from pixsel.spectral.greedy import greedy_path_reference
from pixsel.stats import class_statistics, regularize

KS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256]


def forward_gslda(a, B, kmax):
    """Forward greedy order for f(S) = a_S^T B_SS^{-1} a_S, first ``kmax`` steps."""
    return greedy_path(a, B, direction="forward", max_k=kmax).order


def rfe_order(X, y, kmax=256):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.feature_selection import RFE
    from sklearn.svm import LinearSVC

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svc = LinearSVC(C=1.0, max_iter=5000)
        keep = np.arange(X.shape[1])
        if X.shape[1] > kmax:
            first = RFE(svc, n_features_to_select=kmax, step=0.1).fit(X, y)
            keep = np.flatnonzero(first.support_)
        second = RFE(svc, n_features_to_select=1, step=1).fit(X[:, keep], y)
    return keep[np.argsort(second.ranking_, kind="stable")]


def standardize(Xtr, Xte):
    mu = Xtr.mean(0)
    sd = Xtr.std(0)
    sd[sd == 0] = 1.0
    return (Xtr - mu) / sd, (Xte - mu) / sd


def lowrank_threshold_scores(X, y, alpha):
    """ST scores ``B^{-1/2} a`` and FT scores ``B^{-1} a`` for ``B = Z^T Z + alpha I``.

    ``Z`` = class-centred samples / sqrt(n) (so ``Z^T Z`` is the within-class covariance of
    ``class_statistics``); with the thin SVD ``Z = V S U^T`` both are ``O(n^2 p)`` instead of the
    ``O(p^3)`` eigendecomposition of the 2000 x 2000 ``B`` (checked against
    ``simple_thresholding_path`` / ``fisher_thresholding_path`` at start-up).
    """
    Z = X.astype(np.float64).copy()
    for c in np.unique(y):
        Z[y == c] -= Z[y == c].mean(0)
    Z /= np.sqrt(len(y))
    a = X[y == 1].mean(0) - X[y == 0].mean(0)
    _, sv, Ut = np.linalg.svd(Z, full_matrices=False)
    proj = Ut @ a
    rest = a - Ut.T @ proj
    st = Ut.T @ (proj / np.sqrt(sv**2 + alpha)) + rest / np.sqrt(alpha)
    ft = Ut.T @ (proj / (sv**2 + alpha)) + rest / alpha
    return st, ft


def select_all(X, y, ks):
    st = class_statistics(X, y)
    a = np.asarray(st.between).ravel()
    B, reg = regularize(st.within, "auto")
    kmax = max(ks)
    s_st, s_ft = lowrank_threshold_scores(X, y, reg.alpha)
    return {
        "GSLDA": forward_gslda(a, B, kmax),
        "ST": np.argsort(-np.abs(s_st), kind="stable"),
        "FT": np.argsort(-np.abs(s_ft), kind="stable"),
        "P-corr": pearson_order(X, y),
        "SVM-RFE": rfe_order(X, y, kmax),
    }, a, B


def check_thresholding(X, y):
    """The low-rank ST / FT scores equal the kernel's (up to sign and scale)."""
    st = class_statistics(X, y)
    a = np.asarray(st.between).ravel()
    B, reg = regularize(st.within, "auto")
    s_st, s_ft = lowrank_threshold_scores(X, y, reg.alpha)
    for mine, path in ((s_st, simple_thresholding_path(a, B)), (s_ft, fisher_thresholding_path(a, B))):
        ref = np.abs(path.info["scores"])
        assert np.allclose(np.abs(mine) / np.linalg.norm(mine), ref / np.linalg.norm(ref), atol=1e-8)


def main(argv=None):
    ap = parser("exact_colon", __doc__.splitlines()[0] + " (--quick: in-fold protocol on 10 folds, k <= 16)")
    args = ap.parse_args(argv)
    with blas_threads(args):
        run(args)


def run(args):
    d = load_shared("alon_colon.npz")
    X = np.log(d["X"].astype(np.float64))
    y = d["y"].astype(int)
    n = len(y)
    ks = [k for k in KS if k <= 16] if args.quick else KS
    # the truncated forward pass equals the reference on a sub-problem
    Xs, _ = standardize(X[:, :80], X[:, :80])
    st = class_statistics(Xs, y)
    a, B = np.asarray(st.between).ravel(), regularize(st.within, "auto")[0]
    ref = greedy_path_reference(a, B, "forward").order[:20]
    assert np.array_equal(forward_gslda(a, B, 20), ref), "truncated forward GSLDA != reference"
    methods = ["GSLDA", "ST", "FT", "P-corr", "SVM-RFE"]
    results = {}
    t0 = time.perf_counter()
    # paper protocol: selection once on all samples
    Xz, _ = standardize(X, X)
    check_thresholding(Xz[:, :300] if args.quick else Xz, y)
    orders, _, _ = select_all(Xz, y, ks)
    wrong = {m: np.zeros(len(ks)) for m in methods}
    for i in range(n):
        tr = np.delete(np.arange(n), i)
        st = class_statistics(Xz[tr], y[tr])
        a, B = np.asarray(st.between).ravel(), regularize(st.within, "auto")[0]
        for m in methods:
            for j, k in enumerate(ks):
                pred = fisher_predict(Xz[tr], y[tr], Xz[[i]], np.sort(orders[m][:k]), B, a)
                wrong[m][j] += pred[0] != y[i]
    results["paper"] = {m: wrong[m] / n for m in methods}
    t_paper = time.perf_counter() - t0
    # in-fold protocol
    folds = range(n) if not args.quick else range(10)
    wrong = {m: np.zeros(len(ks)) for m in methods}
    for i in folds:
        tr = np.delete(np.arange(n), i)
        Xtr, Xte = standardize(X[tr], X[[i]])
        orders, a, B = select_all(Xtr, y[tr], ks)
        for m in methods:
            for j, k in enumerate(ks):
                pred = fisher_predict(Xtr, y[tr], Xte, np.sort(orders[m][:k]), B, a)
                wrong[m][j] += pred[0] != y[i]
        print(f"  fold {i + 1}/{len(folds)} {time.perf_counter() - t0:.0f} s", flush=True)
    results["in-fold"] = {m: wrong[m] / len(folds) for m in methods}
    elapsed = time.perf_counter() - t0
    print(f"colon: paper protocol {t_paper:.1f} s, total {elapsed:.1f} s ({len(folds)} in-fold LOO folds)")
    for proto in ("paper", "in-fold"):
        print(f"[{proto} protocol] LOO error % vs k")
        print("   k | " + " | ".join(f"{m:>7s}" for m in methods))
        for j, k in enumerate(ks):
            print(f"{k:4d} | " + " | ".join(f"{100 * results[proto][m][j]:7.2f}" for m in methods))
    out = out_dir(args)
    write_results(args, {"k": ks, "elapsed_s": elapsed, "folds_in_fold": len(folds), "error": results}, name="colon")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    style = {"ST": "bs-", "FT": "c^--", "P-corr": "g*-", "GSLDA": "rd-", "SVM-RFE": "kv-"}
    for ax, proto in zip(axes, ("paper", "in-fold")):
        for m in methods:
            ax.plot(ks, 100 * results[proto][m], style[m], label=m, ms=4)
        ax.set(xscale="log", xlabel="k (genes)", title=f"colon, LOO, {proto} protocol")
    axes[0].set_ylabel("LOO error (%)")
    axes[0].legend()
    save_figure(fig, out / "colon.png", dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
