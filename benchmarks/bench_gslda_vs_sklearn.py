"""pixsel's dual-pass GSLDA against scikit-learn's wrapper selector on USPS 3 vs 5, same run.

The wrapper is ``SequentialFeatureSelector(LinearDiscriminantAnalysis(), n_features_to_select=10,
cv=5)`` (forward, cross-validated accuracy). pixsel's side, timed end to end from the raw
``X_train, y_train`` through the function users call, ``SparseLDASelector(10, direction="dual", regularization="auto").fit``: class
statistics, the 'auto' regularization of the within-class covariance, the forward and the
backward greedy paths (every k), and the better of the two supports at k = 10. Both 10-pixel sets are then scored with the same objective
``f(S) = a_S^T B_SS^{-1} a_S`` (pixsel.stats, regularization 'auto'), and, for context, with the
test accuracy of an LDA fitted on the training pixels of the set.

Goals: speed ratio >= 1000 x; pixsel's f >= the wrapper's f.

    python benchmarks/bench_gslda_vs_sklearn.py            # needs usps_3v5_split.npz (PIXSEL_DATA)
    python benchmarks/bench_gslda_vs_sklearn.py --quick    # smoke size (32 pixels, k = 2, cv = 2)
"""

from __future__ import annotations

import platform
import time

import numpy as np
from _common import best_time, blas_threads, parser, write_results

from pixsel import SparseLDASelector
from pixsel.datasets import load_shared
from pixsel.spectral import objective_on_support
from pixsel.stats import class_statistics, regularize


def pixsel_select(X, y, k):
    """``SparseLDASelector(k, direction="dual", regularization="auto")``: the support and the pass it came from."""
    sel = SparseLDASelector(k, direction="dual", regularization="auto").fit(X, y)
    fwd, bwd = sel.forward_path_.objective[k - 1], sel.backward_path_.objective[k - 1]
    return sel.get_support(indices=True), "backward" if bwd >= fwd else "forward"


def main(argv=None):
    ap = parser("gslda_vs_sklearn", __doc__.splitlines()[0])
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--cv", type=int, default=5)
    args = ap.parse_args(argv)

    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.feature_selection import SequentialFeatureSelector

    d = load_shared("usps_3v5_split.npz")
    X, y, X_test, y_test = d["X_train"], d["y_train"], d["X_test"], d["y_test"]
    k, cv = args.k, args.cv
    if args.quick:
        X, X_test, k, cv = X[:, ::8], X_test[:, ::8], 2, 2

    with blas_threads(args):
        t_pix, (S_pix, which) = best_time(lambda: pixsel_select(X, y, k), 5)
        sfs = SequentialFeatureSelector(LinearDiscriminantAnalysis(), n_features_to_select=k, cv=cv)
        t = time.perf_counter()
        sfs.fit(X, y)
        t_sk = time.perf_counter() - t
    S_sk = np.flatnonzero(sfs.get_support())

    st = class_statistics(X, y)
    B, reg = regularize(st.within, "auto")
    f_pix = objective_on_support(st.between, B, S_pix)
    f_sk = objective_on_support(st.between, B, S_sk)

    def test_acc(S):
        return float(LinearDiscriminantAnalysis().fit(X[:, S], y).score(X_test[:, S], y_test))

    acc_pix, acc_sk = test_acc(S_pix), test_acc(S_sk)
    ratio = t_sk / t_pix
    print(f"USPS 3 vs 5, {X.shape[0]} training images x {X.shape[1]} pixels, k = {k}")
    print(f"  pixsel (stats + regularize + forward + backward, best at k = {k}: {which}): {t_pix:.4f} s")
    print(f"  scikit-learn SequentialFeatureSelector(LDA, cv={cv}):                      {t_sk:.2f} s")
    print(f"  speed ratio: {ratio:.0f} x   (goal >= 1000 x: {'met' if ratio >= 1000 else 'not met'})")
    print(f"  f(S) = a_S^T B_SS^-1 a_S ('auto' ridge alpha = {reg.alpha:.3g}):"
          f" pixsel {f_pix:.4f} vs wrapper {f_sk:.4f}   (goal pixsel >= wrapper: {'met' if f_pix >= f_sk else 'not met'})")
    print(f"  test accuracy of LDA on the chosen pixels: pixsel {acc_pix:.4f} vs wrapper {acc_sk:.4f}")
    print(f"  pixsel pixels {S_pix.tolist()}; wrapper pixels {S_sk.tolist()}")
    path = write_results(args, {
        "machine": platform.platform(), "k": k, "cv": cv, "shape": list(X.shape),
        "time_pixsel_s": t_pix, "time_sklearn_s": t_sk, "speed_ratio": ratio,
        "objective_pixsel": f_pix, "objective_sklearn": f_sk, "pixsel_direction": which,
        "test_accuracy_pixsel": acc_pix, "test_accuracy_sklearn": acc_sk,
        "support_pixsel": S_pix, "support_sklearn": S_sk, "regularization": reg.to_dict(),
        "goal_speed_1000x": ratio >= 1000, "goal_objective": f_pix >= f_sk,
    }, name="results")
    print(f"results in {path.parent}/")


if __name__ == "__main__":
    main()
