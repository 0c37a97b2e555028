"""Multiclass greedy sparse LDA against SequentialFeatureSelector(LinearDiscriminantAnalysis()).

USPS, 10 digit classes (``usps_full_16x16.npz``, the 7291 training images), k = 10 pixels.
Reported, both measured in the same run: the time ratio, each selected set's objective
(``lambda_max`` and trace of ``G_S = M_S^T B_SS^{-1} M_S``, the between/within generalized
eigenvalues on the set) and, as a sanity check, the test accuracy of an LDA classifier on each
set (2007 test images). pixsel runs its dual pass (forward + whole backward path) for both
criteria; SFS is scikit-learn's forward selection scored by 5-fold cross-validated accuracy.

    python benchmarks/bench_multiclass_lda.py            # k = 10, all 7291 training images
    python benchmarks/bench_multiclass_lda.py --quick    # 1500 training images, k = 5
"""

from __future__ import annotations

import time

import numpy as np
from _common import blas_threads, parser, write_results

from pixsel import SparseLDASelector
from pixsel.datasets import load_shared
from pixsel.stats import class_statistics, regularize


def objectives(M, B, S):
    S = np.sort(np.asarray(S))
    G = M[S].T @ np.linalg.solve(B[np.ix_(S, S)], M[S])
    ev = np.linalg.eigvalsh((G + G.T) / 2)
    return float(ev[-1]), float(ev.sum())


def main(argv=None):
    ap = parser("multiclass_lda", __doc__.splitlines()[0])
    ap.add_argument("-k", type=int, default=None)
    args = ap.parse_args(argv)
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.feature_selection import SequentialFeatureSelector

    d = load_shared("usps_full_16x16.npz")
    Xtr, ytr, Xte, yte = d["X_train"].astype(np.float64), d["y_train"], d["X_test"].astype(np.float64), d["y_test"]
    if args.quick:
        Xtr, ytr = Xtr[:1500], ytr[:1500]
    k = args.k or (5 if args.quick else 10)
    st = class_statistics(Xtr, ytr)
    B, reg = regularize(st.within, "auto")
    M = st.between_factor
    out = {"n_train": len(Xtr), "n_features": Xtr.shape[1], "n_classes": st.n_classes, "k": k,
           "regularization": reg.to_dict()}
    rows = {}
    with blas_threads(args):
        for crit in ("max-eig", "trace"):
            t = time.perf_counter()
            sel = SparseLDASelector(k, criterion=crit, direction="dual", regularization="auto").fit(Xtr, ytr)
            rows[f"pixsel {crit}"] = (time.perf_counter() - t, sel.get_support(indices=True))
        t = time.perf_counter()
        sfs = SequentialFeatureSelector(LinearDiscriminantAnalysis(), n_features_to_select=k, direction="forward",
                                        cv=5, n_jobs=1).fit(Xtr, ytr)
        rows["SFS(LDA) forward, 5-fold CV"] = (time.perf_counter() - t, sfs.get_support(indices=True))
    t_sfs = rows["SFS(LDA) forward, 5-fold CV"][0]
    print(f"USPS 10 classes, {len(Xtr)} training images, p = {Xtr.shape[1]}, k = {k}")
    print(f"{'method':<30} {'time s':>8} {'SFS/this':>9} {'lambda_max':>11} {'trace':>9} {'LDA test acc':>13}")
    table = []
    for name, (dt, S) in rows.items():
        lm, tr = objectives(M, B, S)
        acc = float(LinearDiscriminantAnalysis().fit(Xtr[:, S], ytr).score(Xte[:, S], yte))
        print(f"{name:<30} {dt:>8.2f} {t_sfs / dt:>9.1f} {lm:>11.4f} {tr:>9.4f} {acc:>13.3f}")
        table.append({"method": name, "time_s": dt, "speedup_vs_sfs": t_sfs / dt, "lambda_max": lm, "trace": tr,
                      "test_accuracy": acc, "pixels": S})
    out["rows"] = table
    print(f"wrote {write_results(args, out)}")
    return out


if __name__ == "__main__":
    main()
