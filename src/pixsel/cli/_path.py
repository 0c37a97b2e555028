"""``pixsel path``: objective vs k for greedy and thresholding paths (paper 000, Fig. 7)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..io import save_figure, write_json
from ._common import add_data_argument, add_output_arguments, load_labelled, progress, provenance


def add_parser(sub):
    p = sub.add_parser(
        "path",
        help="objective vs k of forward, backward and thresholding paths (path.json, path.png)",
        description=(
            "Compute the whole forward and backward greedy sparse LDA paths of DATA (two classes) "
            "and the renormalized Fisher-thresholding and simple-thresholding paths, for every k, "
            "and write DIR/path.json and DIR/path.png (objective vs k, with the worst-case lower "
            "bound of Eq. 5)."
        ),
    )
    add_data_argument(p)
    p.add_argument("--method", "-m", choices=["gslda", "gspca"], default="gslda",
                   help="gslda: sparse LDA (two or more classes); gspca: greedy sparse PCA (unsupervised, "
                        "variance of the first sparse component, certified upper bound per k)")
    p.add_argument("--regularization", default="auto",
                   help="within-class covariance regularization: auto, none, ledoit-wolf or a ridge value")
    add_output_arguments(p, "pixsel-path")
    p.set_defaults(func=run)


def compute_pca_paths(X, *, quiet=True):
    """Forward, backward and simple-thresholding sparse PCA paths (certified bounds on the first)."""
    from ..spectral import greedy_path, simple_thresholding

    with progress(3, "paths", quiet) as bar:
        C = np.atleast_2d(np.cov(np.asarray(X, dtype=np.float64), rowvar=False))
        paths = {}
        for name, fn in (
            ("forward", lambda: greedy_path(C, direction="forward", form="full", certificate="dual")),
            ("backward", lambda: greedy_path(C, direction="backward", form="full", certificate="dual")),
            ("simple", lambda: simple_thresholding(C)),
        ):
            paths[name] = fn()
            bar.update(1)
    return paths, None, None


def compute_paths(X, y, regularization="auto", *, quiet=True):
    """All paths of a classification problem through pixsel's public API.

    Two classes: forward, backward, Fisher and simple thresholding with the Eq. (5) lower bound;
    more classes: forward, backward and simple thresholding of ``(M M^T, B)``.
    """
    from ..spectral import greedy_path, simple_thresholding
    from ..stats import class_statistics, regularize

    with progress(5, "paths", quiet) as bar:
        st = class_statistics(X, y)
        B, reg = regularize(st.within, regularization, X=X, y=y, means=st.means, classes=st.classes)
        if st.n_classes > 2:
            M = st.between_factor
            paths = {
                "forward": greedy_path(M, B, direction="forward", certificate="auto"),
                "backward": greedy_path(M, B, direction="backward", certificate="auto"),
                "simple": simple_thresholding(M, B),
            }
            bar.update(4)
            return paths, None, reg
        from ..spectral import fisher_thresholding_path, simple_thresholding_path, sparsity_lower_bound
        a = st.between
        bar.update(1)
        paths = {}
        for name, fn in (
            ("forward", lambda: greedy_path(a, B, direction="forward", certificate="auto")),
            ("backward", lambda: greedy_path(a, B, direction="backward", certificate="auto")),
            ("fisher", lambda: fisher_thresholding_path(a, B)),
            ("simple", lambda: simple_thresholding_path(a, B)),
        ):
            paths[name] = fn()
            bar.update(1)
    return paths, sparsity_lower_bound(a, B), reg


def _regularization(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def run(args):
    if getattr(args, "method", "gslda") == "gspca":
        data = load_labelled(args.data, need_labels=False)
        paths, lower, reg = compute_pca_paths(data.X, quiet=args.quiet)
    else:
        data = load_labelled(args.data)
        paths, lower, reg = compute_paths(data.X, data.y, _regularization(args.regularization), quiet=args.quiet)
    out = Path(args.out)
    report = provenance(
        args,
        n_samples=int(data.X.shape[0]),
        n_features=int(data.X.shape[1]),
        regularization=None if reg is None else reg.to_dict(),
        paths={n: {"order": p.order, "objective": p.objective} for n, p in paths.items()},
        lower_bound_eq5=lower,
    )
    ub = [p.upper_bound for p in paths.values() if p.upper_bound is not None]
    upper = np.minimum.reduce(ub) if ub else None
    if upper is not None:
        report["upper_bound"] = upper
    write_json(out / "path.json", report)
    from ..viz import plot_paths

    what = "sparse PCA variance" if getattr(args, "method", "gslda") == "gspca" else "sparse LDA objective"
    fig = plot_paths({n: p.objective for n, p in paths.items()}, upper_bound=upper, lower_bound=lower,
                     title=f"{Path(args.data).name}: {what} vs k")
    save_figure(fig, out / "path.png", dpi=120)
    if not args.quiet:
        p = data.X.shape[1]
        for k in sorted({1, min(10, p), min(50, p), p}):
            vals = ", ".join(f"{n} {paths[n].objective[k - 1]:.4g}" for n in paths)
            print(f"k = {k}: {vals}")
        print(f"wrote {out / 'path.json'}, {out / 'path.png'}")
    return 0
