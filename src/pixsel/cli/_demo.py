"""``pixsel demo``: the whole pipeline on scikit-learn's bundled digits (3 vs 5, 8x8), no files needed."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np

from ..io import save_figure, write_json

_KS = (1, 2, 4, 8, 16, 32, 64)


def add_parser(sub):
    p = sub.add_parser(
        "demo",
        help="run pixsel on scikit-learn's bundled 8x8 digits (3 vs 5) and write pictures",
        description=(
            "Greedy sparse LDA on scikit-learn's bundled digits, 3 vs 5 (8x8 pixels, no download): "
            "the full forward/backward paths and the thresholding baselines for every k, the "
            "selected pixels at a few k, the optimal single pixel, and the test accuracy of a "
            "linear classifier and a Gaussian-process classifier on the selected pixels."
        ),
    )
    p.add_argument("--out", "-o", metavar="DIR", default="pixsel-demo", help="output folder (default: pixsel-demo)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary")
    p.add_argument("--no-gp", action="store_true", help="skip the Gaussian-process classifier (faster)")
    p.set_defaults(func=run)


def _accuracies(X_tr, y_tr, X_te, y_te, sel, ks, use_gp):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.gaussian_process import GaussianProcessClassifier
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from threadpoolctl import threadpool_limits

    out = {"linear": [], "gp": []}
    for k in ks:
        S = sel.get_support_at(k, indices=True)
        lin = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
        out["linear"].append(float(lin.fit(X_tr[:, S], y_tr).score(X_te[:, S], y_te)))
        if use_gp:
            gp = make_pipeline(
                StandardScaler(),
                GaussianProcessClassifier(ConstantKernel(1.0) * RBF(np.sqrt(k)), n_restarts_optimizer=2, random_state=0),
            )
            # small dense matrices: one BLAS thread is faster, and much faster on a loaded machine
            with warnings.catch_warnings(), threadpool_limits(1, user_api="blas"):
                warnings.simplefilter("ignore", ConvergenceWarning)
                out["gp"].append(float(gp.fit(X_tr[:, S], y_tr).score(X_te[:, S], y_te)))
    if not use_gp:
        del out["gp"]
    return out


def run(args):
    from sklearn.model_selection import train_test_split

    from .. import SparseLDASelector
    from ..datasets import load_digits_pair
    from ..viz import plot_curves, plot_masks, plot_paths
    from ._path import compute_paths
    from ._common import progress

    t0 = time.perf_counter()
    d = load_digits_pair(3, 5)
    X_tr, X_te, y_tr, y_te = train_test_split(d.X, d.y, test_size=0.5, stratify=d.y, random_state=0)
    out = Path(args.out)
    with progress(4, "demo", args.quiet) as bar:
        t = time.perf_counter()
        sel = SparseLDASelector(8, direction="dual").fit(X_tr, y_tr)
        path_seconds = time.perf_counter() - t
        paths, lower, reg = compute_paths(X_tr, y_tr, "auto")
        bar.update(1)
        acc = _accuracies(X_tr, y_tr, X_te, y_te, sel, _KS, not args.no_gp)
        acc_all = _accuracies(X_tr, y_tr, X_te, y_te, _AllPixels(d.X.shape[1]), [d.X.shape[1]], False)["linear"][0]
        bar.update(1)
        files = [
            save_figure(
                plot_paths({n: p.objective for n, p in paths.items()}, lower_bound=lower,
                           title="digits 3 vs 5: sparse LDA objective vs k"),
                out / "path.png", dpi=120,
            )
        ]
        mask_ks = (1, 4, 8, 16)
        bgs = [X_tr[y_tr == c].mean(0) for c in (0, 1)]
        files.append(save_figure(
            plot_masks(bgs, [sel.get_support_at(k) for k in mask_ks], d.image_shape,
                       titles=[f"k = {k}" for k in mask_ks], bg_titles=["mean of 3", "mean of 5"]),
            out / "masks.png", dpi=120,
        ))
        files.append(save_figure(
            plot_curves(list(_KS), {f"{n} classifier": v for n, v in acc.items()}, xlabel="k (pixels)",
                        ylabel="test accuracy", title="digits 3 vs 5: accuracy on the selected pixels", logx=True),
            out / "accuracy.png", dpi=120,
        ))
        bar.update(1)
        best1 = int(sel.get_support_at(1, indices=True)[0])
        summary = {
            "pixsel_version": __import__("pixsel").__version__,
            "data": "sklearn digits, 3 (label 0) vs 5 (label 1), 8x8; stratified 50/50 split, random_state=0",
            "n_train": int(len(y_tr)), "n_test": int(len(y_te)),
            "regularization": reg.to_dict(),
            "dual_pass_path_seconds": path_seconds,
            "objective": {n: p.objective for n, p in paths.items()},
            "optimal_single_pixel": {"index": best1, "row_col": [best1 // 8, best1 % 8],
                                     "objective": float(paths["forward"].objective[0])},
            "ks": list(_KS), "test_accuracy": acc, "test_accuracy_all_pixels_linear": acc_all,
            "supports": {str(k): sel.get_support_at(k, indices=True) for k in _KS},
        }
        files.append(write_json(out / "demo.json", summary))
        bar.update(1)
    if not args.quiet:
        p = d.X.shape[1]
        print(f"pixsel demo: digits 3 vs 5, {len(y_tr)} train / {len(y_te)} test images of 8x8 pixels")
        print(f"  dual-pass greedy path for all k = 1..{p}: {path_seconds * 1e3:.1f} ms")
        for k in (1, 4, 8, 16):
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


class _AllPixels:
    """Stand-in selector that keeps every pixel (for the all-pixels reference accuracy)."""

    def __init__(self, p):
        self.p = p

    def get_support_at(self, k, indices=True):
        return np.arange(self.p)
