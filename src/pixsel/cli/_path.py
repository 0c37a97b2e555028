"""``pixsel path``: objective vs k for greedy and thresholding paths.

The figure of Moghaddam, Weiss and Avidan, "Fast pixel/part selection with sparse eigenvectors"
(ICCV 2007), Fig. 7: forward and backward greedy paths with the worst-case bound. Ctrl-C during the exact
search keeps what was certified so far, writes it with ``"status": "interrupted"`` and exits 130.
"""

from __future__ import annotations

from pathlib import Path

from ._common import (
    add_data_argument,
    add_output_arguments,
    add_regularization_argument,
    data_report,
    load_labelled,
    provenance,
    regularization,
    show_progress,
    stage_lines,
)


def add_parser(sub):
    p = sub.add_parser(
        "path",
        help="objective vs k of forward, backward and thresholding paths (path.json, path.png)",
        description=(
            "Compute the whole forward and backward greedy sparse LDA paths of DATA and the "
            "renormalized Fisher-thresholding (two classes) and simple-thresholding paths, for every k, "
            "with the objective of 'pixsel select' (more than two classes: the correlation criterion), "
            "and write DIR/path.json and DIR/path.png (objective vs k, with the worst-case lower "
            "bound, Eq. 5 of Moghaddam, Weiss and Avidan 2007). Ctrl-C during --solver exact writes what was certified so far, "
            "marked \"status\": \"interrupted\", and exits 130."
        ),
    )
    add_data_argument(p)
    p.add_argument("--method", "-m", choices=["gslda", "gspca"], default="gslda",
                   help="gslda: sparse LDA (two or more classes); gspca: greedy sparse PCA (unsupervised, "
                        "variance of the first sparse component, certified upper bound per k)")
    add_regularization_argument(p)
    p.add_argument("--solver", choices=["greedy", "exact"], default="greedy",
                   help="exact: also certify the best support of every k in one leaps-and-bounds search "
                        "(pixsel.spectral.exact_path; at most 256 features) and draw optimum and bound per k; "
                        "gspca on more than 256 features: every k <= 50, each size its own search, the "
                        "--time-limit planned from the gaps (pixsel.spectral.exact_spca_path); needs "
                        "Numba: pip install 'pixsel[numba]'")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="with --solver exact: stop after SECONDS; every k still gets a certified bound "
                        "(required for gspca on more than 256 features)")
    p.add_argument("--max-k", type=int, default=None, metavar="K",
                   help="with --solver exact: certify the sizes k = 1..K only (default: every k; gspca on more "
                        "than 256 features: 50)")
    p.add_argument("--n-jobs", type=int, default=1, metavar="N",
                   help="with --solver exact: worker processes (the sizes run as parallel tasks, the same "
                        "optima; -1: every CPU); gspca on more than 256 features: sizes searched at once, "
                        "on as many threads")
    add_output_arguments(p, "pixsel-path")
    p.set_defaults(func=run)


def run(args):
    if args.method == "gspca" and args.regularization is not None:
        from ._errors import UsageError

        raise UsageError("--regularization applies to --method gslda (sparse LDA) only; drop it for gspca.")
    # the stages as select shows them: a bar on a terminal, plain lines with --progress in a log
    with stage_lines(args) as stages:
        return _run(args, stages)


def _run(args, stages):
    # imported here, not at the top: `pixsel --help` must not pay for NumPy
    from ..io import save_figure, write_json

    if args.solver == "exact":  # before the data are read: the exact search needs the extra `numba`
        from .._routes import require_compiled

        require_compiled("--solver exact")
    data = load_labelled(args, need_labels=args.method != "gspca", stages=stages)
    _check_many_features(args, data.X.shape[1])
    stages.stage("loading the paths (scikit-learn, SciPy)", "loading")
    from ..selection import lda_paths, pca_paths
    from ..viz import plot_exact_path, plot_paths

    sizes = f"{data.X.shape[0]} samples, {data.X.shape[1]} features"
    if data.y is not None and data.class_names is not None and args.method != "gspca":
        sizes += f", {len(data.class_names)} classes"
    stages.stage(f"{args.method} paths ({sizes}): statistics, then the greedy and thresholding paths",
                 f"{args.method} paths")
    steps = stages.steps(args.method, "path")  # None when the stages are not shown
    if args.method == "gspca":
        ps = pca_paths(data.X, progress=steps or False)
        what, crit = "sparse PCA variance", ""
    else:
        # the criterion of `pixsel select -m gslda` (SparseLDASelector's 'auto'): the same objective per k
        ps = lda_paths(data.X, data.y, regularization=regularization(args), criterion="auto",
                       progress=steps or False)
        what, crit = "sparse LDA objective", f", {ps.criterion} criterion"
    stages.done()
    out = Path(args.out)
    report = provenance(
        args,
        **data_report(data),
        regularization=None if ps.regularization is None else ps.regularization.to_dict(),
        **({} if ps.criterion is None else {"criterion": ps.criterion}),
        paths={n: {"order": p.order, "objective": p.objective} for n, p in ps.paths.items()},
        lower_bound_eq5=ps.lower_bound,
    )
    if ps.upper_bound is not None:
        report["upper_bound"] = ps.upper_bound
    if args.solver == "exact":
        stages.stage("exact path: every k, the time planned from the gaps" if _many_features(args, data.X.shape[1])
                     else "exact path: leaps-and-bounds search of every k", "exact path")
    exact = _exact(args, ps) if args.solver == "exact" else None
    interrupted = exact is not None and exact.search_status == "interrupted"
    report["status"] = "interrupted" if interrupted else "completed"
    if exact is not None:
        report["exact"] = exact.to_dict()
    stages.stage("writing path.json, path.png", "writing")
    write_json(out / "path.json", report)
    title = f"{Path(args.data).name}: {what} vs k"
    if exact is None:
        fig = plot_paths({n: p.objective for n, p in ps.paths.items()}, upper_bound=ps.upper_bound,
                         lower_bound=ps.lower_bound, title=f"{title}\n(greedy paths{crit})" if crit else f"{title} (greedy paths)")
    else:
        n_opt = int((exact.status == "optimal").sum())
        how = ("interrupted (Ctrl-C)" if interrupted else
               "all k certified optimal" if n_opt == exact.max_k else f"stopped ({exact.search_status.replace('_', ' ')})")
        fig = plot_exact_path({n: ps.paths[n].objective for n in ("forward", "backward")}, exact.objective,
                              exact.upper_bound, exact.status,
                              title=f"{title}{crit}\nexact search {how}: {n_opt}/{exact.max_k} k proved optimal, "
                                    f"largest gap {_percent(100 * float(exact.relative_gap.max()))}")
    save_figure(fig, out / "path.png", dpi=120)
    if not args.quiet:
        p = data.X.shape[1]
        for k in sorted({1, min(10, p), min(50, p), p}):
            vals = ", ".join(f"{n} {ps.paths[n].objective[k - 1]:.4g}" for n in ps.paths)
            print(f"k = {k}: {vals}")
        if exact is not None:
            n_opt = int(exact.certified.sum())
            print(f"exact: {n_opt} of {exact.max_k} k certified optimal in {exact.time:.1f} s "
                  f"({exact.n_nodes} nodes, {exact.search_status}); largest certified gap "
                  f"{100 * float(exact.relative_gap.max()):.2f} %")
        print(f"wrote {out / 'path.json'}, {out / 'path.png'}")
    if interrupted:
        import sys

        from ._errors import EXIT_INTERRUPTED

        print(f"pixsel path: interrupted (Ctrl-C): what was certified so far is in {out / 'path.json'}, "
              "marked \"status\": \"interrupted\"", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _percent(value):
    """A gap in percent, readable at any size: ``0.25 %``, ``1,234 %``."""
    return f"{value:,.0f} %" if value >= 100 else f"{value:.3g} %"


def _many_features(args, p):
    """Sparse PCA past exact_path's 256 features: each size its own search, planned within --time-limit."""
    from ..spectral.exact import MAX_FEATURES

    return args.solver == "exact" and args.method == "gspca" and p > MAX_FEATURES


def _check_many_features(args, p):
    """Before any work: what --solver exact needs on more than 256 features (sparse PCA)."""
    from ._errors import UsageError

    if args.max_k is not None and not 1 <= args.max_k <= p:
        raise UsageError(f"--max-k must be between 1 and the number of features ({p}); got {args.max_k}.")
    if args.max_k is not None and args.solver != "exact":
        raise UsageError("--max-k sets the sizes the exact search certifies; pass --solver exact with it, or drop it.")
    if _many_features(args, p) and args.time_limit is None:
        raise UsageError(f"--solver exact on {p} features (more than 256) plans every k (default k <= 50) within a "
                         "time limit; pass --time-limit SECONDS (for example 3600).")


def _exact(args, ps):
    """The certified path of the greedy paths' own problem (``SparsePath.A``, ``.B``); the bound
    per k is the smaller of the search's and the greedy certificate's (both hold)."""
    import numpy as np

    from .._progress import search_progress
    from ..spectral import criterion_named, exact_path, exact_spca_path

    fw = ps.paths["forward"]
    many = _many_features(args, fw.A.shape[0])
    with search_progress(show_progress(args), desc="exact path") as callback:
        if many:  # every k <= 50, each size its own search
            res = exact_spca_path(fw.A, args.max_k, time_limit=args.time_limit, callback=callback, n_jobs=args.n_jobs)
        else:
            # the paths' own objective on their own pair (the correlation criterion: the trace of (A, B + A));
            # sparse PCA's paths (no criterion name) are the largest eigenvalue's
            crit = criterion_named(ps.criterion or "max-eig")
            res = exact_path(fw.A, fw.B, criterion=crit, max_k=args.max_k, time_limit=args.time_limit,
                             callback=callback, n_jobs=args.n_jobs)
    if ps.upper_bound is not None:
        ub = np.maximum(np.minimum(res.upper_bound, ps.upper_bound[: res.max_k]), res.objective)
        # where the greedy certificate meets the best found, that size is proved as well
        met = ~res.certified & (ub <= res.objective + 1e-12 * np.abs(res.objective))
        res.status = np.where(met, "optimal", res.status)
        if np.all(res.status == "optimal"):
            res.search_status = "optimal"
        res.upper_bound = np.where(met, res.objective, ub)
    return res
