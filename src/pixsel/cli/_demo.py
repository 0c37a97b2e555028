"""``pixsel demo``: the whole pipeline on scikit-learn's bundled digits (3 vs 5, 8x8), no files needed.

One call of :func:`pixsel.selection.lda_paths` gives every path; the GSLDA selection at each k is
the better of the forward and backward paths (as ``SparseLDASelector(direction='dual')``
picks); the classifiers are :func:`pixsel.experiments.make_classifier`'s, run by
:func:`pixsel.experiments.evaluate_selection`.
"""

from __future__ import annotations

import time
from pathlib import Path


from ._common import add_output_arguments

_KS = (1, 2, 4, 8, 16, 32, 64)
_MASK_KS = (1, 4, 8, 16)


def add_parser(sub):
    p = sub.add_parser(
        "demo",
        help="run pixsel on scikit-learn's bundled 8x8 digits (3 vs 5) and write pictures",
        description=(
            "Greedy sparse LDA on scikit-learn's bundled digits, 3 vs 5 (8x8 pixels, no download): "
            "the full forward/backward paths and the thresholding baselines for every k, the "
            "selected pixels at a few k, the optimal single pixel, and the test accuracy of a "
            "linear (logistic) classifier and a Gaussian-process classifier on the selected pixels."
        ),
    )
    add_output_arguments(p, "pixsel-demo")
    p.add_argument("--no-gp", action="store_true", help="skip the Gaussian-process classifier (faster)")
    p.set_defaults(func=run)


def _dual_support(paths, k):
    """The better of the forward and backward supports at k (backward on ties), sorted."""
    import numpy as np

    fwd, bwd = paths["forward"], paths["backward"]
    best = bwd if bwd.objective[k - 1] >= fwd.objective[k - 1] else fwd
    return np.sort(np.asarray(best.support(k)))


def run(args):
    # imported here, not at the top: `pixsel --help` must not pay for NumPy
    import numpy as np

    from ..io import save_figure, write_json
    from .. import __version__
    from ..datasets import load_digits_pair, load_train_test
    from ..experiments import Selection, evaluate_selection
    from ..selection import lda_paths
    from ..stats import class_means
    from ..viz import plot_curves, plot_masks, plot_paths
    from ._common import LDA_REGULARIZATION, progress

    t0 = time.perf_counter()
    d = load_digits_pair(3, 5)
    tt = load_train_test(d, test_size=0.5, random_state=0)
    X_tr, X_te, y_tr, y_te = tt.X_train, tt.X_test, tt.y_train, tt.y_test
    p = X_tr.shape[1]
    out = Path(args.out)
    with progress(4, "demo", args) as bar:
        t = time.perf_counter()
        ps = lda_paths(X_tr, y_tr, regularization=LDA_REGULARIZATION)  # as select and path
        path_seconds = time.perf_counter() - t
        paths = ps.paths
        supports = {k: _dual_support(paths, k) for k in range(1, p + 1)}
        bar.update(1)
        sel = Selection("gslda", {k: supports[k] for k in _KS}, path_seconds)
        classifiers = {"linear": "logistic"} if args.no_gp else {"linear": "logistic", "gp": "gp"}
        acc = {}
        for label, clf in classifiers.items():
            res = evaluate_selection(X_tr, y_tr, X_te, y_te, method="gslda", classifier=clf, ks=_KS,
                                     selection=sel, progress=False)
            acc[label] = [1.0 - e for e in res.error]
        acc_all = acc["linear"][_KS.index(p)]  # k = p keeps every pixel
        bar.update(1)
        files = [
            save_figure(
                plot_paths({n: q.objective for n, q in paths.items()}, lower_bound=ps.lower_bound,
                           title="digits 3 vs 5: sparse LDA objective vs k"),
                out / "path.png", dpi=120,
            )
        ]
        bgs = list(class_means(X_tr, y_tr).means)  # classes 0 (the 3s) and 1 (the 5s)
        masks = [np.isin(np.arange(p), supports[k]) for k in _MASK_KS]
        files.append(save_figure(
            plot_masks(bgs, masks, d.image_shape, titles=[f"k = {k}" for k in _MASK_KS],
                       bg_titles=["mean of 3", "mean of 5"],
                       suptitle="digits 3 vs 5: the k pixels of greedy sparse LDA (the better of the forward "
                                "and backward paths at each k)"),
            out / "masks.png", dpi=120,
        ))
        files.append(save_figure(
            plot_curves(list(_KS), {f"{n} classifier": v for n, v in acc.items()},
                        xlabel="k (pixels chosen by greedy sparse LDA)", ylabel="test accuracy",
                        title="digits 3 vs 5: test accuracy on the k pixels\nof greedy sparse LDA "
                              "(best of forward and backward)", logx=True),
            out / "accuracy.png", dpi=120,
        ))
        bar.update(1)
        best1 = int(supports[1][0])
        summary = {
            "pixsel_version": __version__,
            "data": "sklearn digits, 3 (label 0) vs 5 (label 1), 8x8; stratified 50/50 split, random_state=0",
            "n_train": int(len(y_tr)), "n_test": int(len(y_te)),
            "regularization": ps.regularization.to_dict(),
            "paths_seconds": path_seconds,
            "objective": {n: q.objective for n, q in paths.items()},
            "optimal_single_pixel": {"index": best1, "row_col": [best1 // 8, best1 % 8],
                                     "objective": float(paths["forward"].objective[0])},
            "ks": list(_KS),
            "classifiers": {label: clf for label, clf in classifiers.items()},
            "test_accuracy": acc, "test_accuracy_all_pixels_linear": acc_all,
            "supports": {str(k): supports[k] for k in _KS},
        }
        files.append(write_json(out / "demo.json", summary))
        bar.update(1)
    if not args.quiet:
        print(f"pixsel demo: digits 3 vs 5, {len(y_tr)} train / {len(y_te)} test images of 8x8 pixels")
        print(f"  forward, backward, Fisher- and simple-thresholding paths for all k = 1..{p}: "
              f"{path_seconds * 1e3:.1f} ms")
        for k in _MASK_KS:
            print(f"  k = {k:2d}: forward {paths['forward'].objective[k-1]:.3f}  backward "
                  f"{paths['backward'].objective[k-1]:.3f}  fisher-threshold {paths['fisher'].objective[k-1]:.3f}")
        print(f"  optimal single pixel: row {best1 // 8}, column {best1 % 8}")
        for i, k in enumerate(_KS):
            gp = f", GP {acc['gp'][i]:.3f}" if "gp" in acc else ""
            print(f"  test accuracy with k = {k:2d} pixels: linear {acc['linear'][i]:.3f}{gp}")
        print(f"  (all {p} pixels, linear: {acc_all:.3f})")
        print(f"  pictures and JSON in {out}/: " + ", ".join(f.name for f in files))
        print(f"  total {time.perf_counter() - t0:.1f} s")
    return 0

