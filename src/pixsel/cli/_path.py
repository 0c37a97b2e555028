"""``pixsel path``: objective vs k for greedy and thresholding paths (paper 000, Fig. 7)."""

from __future__ import annotations

from pathlib import Path

from ._common import (
    add_data_argument,
    add_output_arguments,
    add_regularization_argument,
    data_report,
    load_labelled,
    provenance,
    show_progress,
)


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
    add_regularization_argument(p)
    add_output_arguments(p, "pixsel-path")
    p.set_defaults(func=run)


def run(args):
    # imported here, not at the top: `pixsel --help` must not pay for NumPy (issue 13)
    from ..io import save_figure, write_json
    from ..selection import lda_paths, pca_paths
    from ..viz import plot_paths

    if args.method == "gspca":
        data = load_labelled(args, need_labels=False)
        ps = pca_paths(data.X, progress=show_progress(args))
        what = "sparse PCA variance"
    else:
        data = load_labelled(args)
        ps = lda_paths(data.X, data.y, regularization=args.regularization, progress=show_progress(args))
        what = "sparse LDA objective"
    out = Path(args.out)
    report = provenance(
        args,
        **data_report(data),
        regularization=None if ps.regularization is None else ps.regularization.to_dict(),
        paths={n: {"order": p.order, "objective": p.objective} for n, p in ps.paths.items()},
        lower_bound_eq5=ps.lower_bound,
    )
    if ps.upper_bound is not None:
        report["upper_bound"] = ps.upper_bound
    write_json(out / "path.json", report)
    fig = plot_paths({n: p.objective for n, p in ps.paths.items()}, upper_bound=ps.upper_bound,
                     lower_bound=ps.lower_bound, title=f"{Path(args.data).name}: {what} vs k")
    save_figure(fig, out / "path.png", dpi=120)
    if not args.quiet:
        p = data.X.shape[1]
        for k in sorted({1, min(10, p), min(50, p), p}):
            vals = ", ".join(f"{n} {ps.paths[n].objective[k - 1]:.4g}" for n in ps.paths)
            print(f"k = {k}: {vals}")
        print(f"wrote {out / 'path.json'}, {out / 'path.png'}")
    return 0
