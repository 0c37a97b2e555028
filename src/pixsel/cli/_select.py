"""``pixsel select``: choose k features with a registered method; write selection.json and mask.png."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


from ._common import (
    add_data_argument,
    add_output_arguments,
    add_param_argument,
    add_regularization_argument,
    add_seed_argument,
    check_k,
    check_param_keys,
    data_report,
    image_backgrounds,
    load_labelled,
    parse_params,
    progress,
    provenance,
    show_progress,
    stage_lines,
)
from ._cluster import add_cluster_arguments, cluster, wants_cluster
from ._methods import METHODS

#: methods whose estimator takes ``progress=callable`` and calls it at each step of its paths
_PATH_STEPS = ("gslda",)

# fitted attributes copied into selection.json when the estimator has them
_REPORTED = ("regularization_", "direction_", "direction_by_k_", "upper_bound_", "gap_", "absolute_gap_", "n_nodes_",
             "status_", "gamma_", "rank_", "n_components_", "n_iter_")


def add_parser(sub):
    p = sub.add_parser(
        "select",
        help="select k features and write selection.json (and mask.png for images)",
        description=(
            "Select exactly K features of DATA with METHOD and write DIR/selection.json (selected "
            "indices, objective, parameters, regularization, pixsel version) and, when the image "
            "shape is known, DIR/mask.png (the selected pixels over the class means). Ctrl-C during "
            "an exact search keeps the best support found, writes it with \"status\": \"interrupted\" "
            "and exits 130."
        ),
    )
    add_data_argument(p)
    p.add_argument("-k", "--k", type=_k_value, required=True,
                   help="number of features to select, or 'auto' to choose it by cross-validation over "
                        "the path (PathSelectorCV: one fit per fold, shrinkage LDA scored at every k; "
                        "classes needed; writes cv_path.png)")
    p.add_argument("--cv", type=int, default=5, help="with --k auto: number of stratified folds (default 5)")
    p.add_argument("--rule", choices=["best", "one-se"], default="best",
                   help="with --k auto: the k of best mean CV accuracy, or the smallest k within one "
                        "standard error of it (default: best)")
    p.add_argument(
        "--method", "-m", default="gslda", choices=sorted(METHODS),
        help="selection method: " + "; ".join(f"{m.name}: {m.help}" for m in METHODS.values()),
    )
    p.add_argument("--direction", choices=["forward", "backward", "dual", "cv"], default=None,
                   help="greedy passes for path methods (default: the library's, the forward pass then swaps at K for "
                        "gslda and forward + refinement for gspca); 'cv': gslda only, the pass of each k chosen "
                        "by cross-validated accuracy")
    add_regularization_argument(p, default=None)
    p.add_argument("--solver", choices=["greedy", "exact"], default=None,
                   help="gslda, gspca: 'exact' certifies the optimum at K by branch and bound (default: greedy)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="with --solver exact: stop after SECONDS and report the certified gap")
    p.add_argument("--node-limit", type=int, default=None, metavar="NODES",
                   help="with --solver exact: stop after NODES search-tree nodes")
    p.add_argument("--gap-tol", type=float, default=None, metavar="FRACTION",
                   help="with --solver exact: stop once the relative gap is at most FRACTION (e.g. 0.01)")
    p.add_argument("--channels", action="store_true",
                   help="colour images: select single channel values instead of whole pixels (gslda, gspca)")
    p.add_argument("--patch-size", default=None, metavar="AxB",
                   help="gslda, gspca: select non-overlapping A x B patches of the images (whole parts; -k counts "
                        "patches); the sides must divide the image's")
    add_seed_argument(p, "randomized methods (subspace)")
    add_param_argument(p, "--param n_components=3 (passed to the estimator)")
    add_cluster_arguments(p)
    add_output_arguments(p, "pixsel-select")
    p.set_defaults(func=run)


def _check_options(args, method):
    from ._errors import UsageError

    limits = [f"--{n.replace('_', '-')}" for n in ("time_limit", "node_limit", "gap_tol")
              if getattr(args, n) is not None]
    if args.solver == "exact" and not method.exact:
        exact = ", ".join(m.name for m in METHODS.values() if m.exact)
        raise UsageError(f"--solver exact is available for --method {exact}; method {method.name!r} has no "
                         "exact solver: drop --solver or change --method.")
    if limits and args.solver != "exact":
        raise UsageError(f"{', '.join(limits)} only limit the exact search: add --solver exact, or drop "
                         f"{' and '.join(limits)}.")
    if args.direction is not None and method.name not in ("gslda", "gspca"):
        raise UsageError(f"--direction applies to --method gslda and gspca only; drop it for {method.name!r}.")
    if args.direction == "cv" and method.name != "gslda":
        raise UsageError(f"--direction cv applies to --method gslda only; use forward, backward or dual for "
                         f"{method.name!r}.")


def _k_value(text):
    """``-k``: a positive int (checked by the estimator) or 'auto'."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"-k must be an int or 'auto'; got {text!r}.") from None


def _choose_k(args, est, data):
    """``--k auto``: PathSelectorCV around the method's selector; returns it fitted."""
    from ..selection import PathSelectorCV

    if args.cv < 2:
        raise ValueError(f"--cv must be an int >= 2; got {args.cv}.")
    cvsel = PathSelectorCV(est, cv=args.cv, rule=args.rule, progress=show_progress(args))
    return cvsel.fit(data.X, data.y)


def _groups_param(args, data, params):
    """Whole pixels of colour images (or --patch-size parts) for the path methods: sets
    ``params['groups']``; returns what -k counts ('features', 'pixels' or 'patches')."""
    shape = data.image_shape
    if args.patch_size is not None:
        if args.method not in ("gslda", "gspca"):
            raise ValueError(f"--patch-size applies to gslda and gspca; method {args.method} selects single features.")
        if not shape:
            raise ValueError(f"--patch-size needs images: {args.data} has no image shape (store X as an image stack).")
        try:
            a, b = (int(v) for v in args.patch_size.lower().split("x"))
        except ValueError:
            raise ValueError(f"--patch-size must read AxB with two ints (e.g. 4x4); got {args.patch_size!r}.") from None
        from ..selection import patch_groups

        params.setdefault("groups", patch_groups(shape, (a, b)))
        return "patches"
    if shape and len(shape) == 3 and args.method in ("gslda", "gspca") and not args.channels:
        from ..selection import pixel_groups

        params.setdefault("groups", pixel_groups(shape))
        return "pixels"
    return "features"


def run(args):
    method = METHODS[args.method]
    _check_options(args, method)
    with stage_lines(args) as stages:
        return _run(args, method, stages)


def _run(args, method, stages):
    # imported here, not at the top: `pixsel --help` must not pay for NumPy
    import numpy as np

    from ..io import save_figure, write_json
    from ._errors import EXIT_INTERRUPTED

    auto = args.k == "auto"
    data = load_labelled(args, need_labels=method.supervised or auto, lazy=True, stages=stages)
    params = parse_params(args.param)
    stages.stage(f"loading {method.estimator} (scikit-learn, SciPy)", "loading")
    check_param_keys(params, method.estimator_class())
    if not auto and method.uses_k:
        check_k(args.k, int(data.X.shape[1]), args.data)
    unit = _groups_param(args, data, params)
    est = method.build(args, 1 if auto else args.k, params)
    shown_progress = est.get_params().get("progress")
    cvsel = None
    on_cluster = wants_cluster(args)
    with cluster(args, progress=show_progress(args)):
        sizes = f"{data.X.shape[0]} samples, {data.X.shape[1]} features"
        if data.y is not None and data.class_names is not None:
            sizes += f", {len(data.class_names)} classes"
        if auto:
            stages.stage(f"choosing k by {args.cv}-fold cross-validation ({sizes})", "choosing k")
            cvsel = _choose_k(args, est, data)
            est, args.k = cvsel.selector_, cvsel.n_features_
        else:
            fit_y = (data.X, data.y) if method.supervised else (data.X,)
            steps = args.method in _PATH_STEPS and stages.steps(f"{args.method} fit")
            stages.stage(f"{args.method} fit ({sizes})" + (": statistics, then the greedy path" if steps else ""),
                         f"{args.method} fit")
            if steps:  # the path's steps, drawn by stages (the estimator only calls back)
                est.set_params(progress=steps)
            # on a terminal, the fit as one bar whose heartbeat says it is still running (in a
            # log, stages' own heartbeat does)
            with progress(1, f"{args.method} fit", args, enabled=stages.terminal and not on_cluster) as bar:
                est.fit(*fit_y)
                bar.update(1)
            stages.done()
        backgrounds = None
        if data.image_shape and int(np.prod(data.image_shape)) == data.X.shape[1]:
            backgrounds = image_backgrounds(data.X, data.y, data.image_shape, data.class_names)
    indices = est.get_support(indices=True)
    report = provenance(
        args,
        method=args.method,
        k=int(args.k),
        **data_report(data),
        indices=indices.tolist(),
        parameters={k: repr(v) if not isinstance(v, (int, float, str, bool, type(None))) else v
                    for k, v in est.get_params(deep=False).items()},
    )
    if "progress" in report["parameters"]:  # as built (a callback drawn by stages is no parameter to keep)
        report["parameters"]["progress"] = shown_progress
    if unit != "features":
        report.update(unit=unit, n_groups=int(est.n_groups_), groups_selected=np.flatnonzero(est.group_support_).tolist(),
                      n_features_selected=int(est.n_features_selected_))
        report["parameters"].pop("groups", None)
    if hasattr(est, "objective_path_"):
        report["objective"] = float(est.objective_path_[est.n_features_to_select_ - 1])
    for name in _REPORTED:
        if hasattr(est, name):
            report[name.rstrip("_")] = getattr(est, name)
    if hasattr(est, "n_features_to_select_") and est.n_features_to_select_ != args.k:
        report["k_used"] = int(est.n_features_to_select_)
    interrupted = getattr(est, "status_", None) == "interrupted"
    if cvsel is not None:
        res = cvsel.cv_results_
        report["k_auto"] = {
            "cv": args.cv, "rule": args.rule, "n_splits": cvsel.n_splits_,
            "scoring": "accuracy of LinearDiscriminantAnalysis(solver='lsqr', shrinkage='auto')",
            "n_features": res["n_features"], "mean_test_score": res["mean_test_score"],
            "std_test_score": res["std_test_score"],
        }
    out = Path(args.out)
    stages.stage("writing " + ", ".join(["selection.json"] + ["cv_path.png"] * (cvsel is not None)
                                         + ["mask.png"] * (backgrounds is not None)), "writing")
    written = [write_json(out / "selection.json", report)]
    if cvsel is not None:
        from ..viz import plot_cv_path

        fig = plot_cv_path(cvsel.cv_results_, cvsel.n_features_, objective=getattr(est, "objective_path_", None),
                           rule=args.rule, score_name=f"CV accuracy ({cvsel.n_splits_} folds)",
                           title=f"{args.method}: k chosen by cross-validation")
        written.append(save_figure(fig, out / "cv_path.png", dpi=120))
    if backgrounds is not None:
        from ..viz import plot_masks

        bgs, names = backgrounds
        fig = plot_masks(bgs, [est.get_support()], data.image_shape, titles=[mask_title(args.method, est, unit)],
                         bg_titles=names)
        written.append(save_figure(fig, out / "mask.png", dpi=120))
    if not args.quiet:
        obj = f", objective {report['objective']:.6g}" if "objective" in report else ""
        if cvsel is not None:
            score = cvsel.cv_results_["mean_test_score"][list(cvsel.cv_results_["n_features"]).index(args.k)]
            print(f"k = {args.k} chosen by {cvsel.n_splits_}-fold CV (rule {args.rule}, mean accuracy {score:.4f})")
        if unit != "features":
            print(f"selected {int(est.group_support_.sum())} of {est.n_groups_} {unit} ({len(indices)} of "
                  f"{data.X.shape[1]} values) with {args.method}{obj}")
        else:
            print(f"selected {len(indices)} of {data.X.shape[1]} features with {args.method}{obj}")
        if hasattr(est, "status_"):
            cert = ("certified optimal" if est.status_ == "optimal" else
                    f"{est.status_}: certified upper bound {est.upper_bound_:.6g}, relative gap {est.gap_:.3g} "
                    f"(absolute {est.absolute_gap_:.3g})")
            print(f"exact search: {cert} ({est.n_nodes_} nodes)")
        print("wrote " + ", ".join(str(w) for w in written))
    if interrupted:
        print(f"pixsel select: interrupted (Ctrl-C): the best support found so far is in {written[0]}, "
              "marked \"status\": \"interrupted\"", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def mask_title(method, est, unit="features"):
    """What the mask shows: the method, greedy or exact, and for an exact search optimal or its gap;
    with whole pixels or patches (``unit``), how many and the values they hold."""
    n = int(est.get_support().sum())
    pixels = f"{n} pixels" if unit == "features" else f"{int(est.group_support_.sum())} {unit} ({n} values)"
    name = METHOD_TITLES.get(method, method)
    status = getattr(est, "status_", None)
    if status is None:
        return f"{name}: {pixels}"
    name = name.replace("greedy ", "exact ")
    if status == "optimal":
        return f"{name}: {pixels}, certified optimal"
    what = "interrupted (Ctrl-C)" if status == "interrupted" else f"{status.replace('_', ' ')} reached"
    gap = 100 * float(est.gap_)
    return f"{name}: {pixels}\n{what}, not proved optimal\ncertified gap {gap:,.0f} %" if gap >= 100 else (
        f"{name}: {pixels}\n{what}, not proved optimal\ncertified gap {gap:.3g} %")


#: method names in words, for titles
METHOD_TITLES = {
    "gslda": "greedy sparse LDA",
    "gspca": "greedy sparse PCA",
    "cardinal-spls": "cardinal sparse PLS",
    "spls": "SPLS-eta",
    "subspace": "subspace scores",
}
