"""``pixsel select``: choose k features with a registered method; write selection.json and mask.png."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


from ._common import (
    FEATURE_SETS,
    add_data_argument,
    add_feature_set_arguments,
    add_output_arguments,
    add_param_argument,
    add_regularization_argument,
    add_seed_argument,
    check_feature_sets,
    check_k,
    check_param_keys,
    data_report,
    feature_set_params,
    image_backgrounds,
    load_labelled,
    parse_params,
    provenance,
    show_progress,
    stage_lines,
)
from ._cluster import add_cluster_arguments, cluster
from ._methods import METHODS

#: ``--k auto --rule within``: the mean CV accuracy given up, at most, for fewer pixels (one point)
K_AUTO_TOL = 0.01
#: the folds of ``--k auto`` when --cv is not given
K_AUTO_CV = 5

#: methods whose estimator takes ``progress=callable`` and calls it at each step of its paths
_PATH_STEPS = ("gslda",)

# fitted attributes copied into selection.json when the estimator has them
_REPORTED = ("criterion_", "regularization_", "direction_", "direction_by_k_", "upper_bound_", "gap_", "absolute_gap_", "n_nodes_",
             "status_", "gamma_", "rank_", "n_components_", "n_iter_", "n_swaps_")


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
                        "classes needed): by default the smallest k within --tol of the best mean "
                        "accuracy (see --rule); writes cv_path.png")
    p.add_argument("--cv", type=int, default=None,
                   help=f"with --k auto: number of stratified folds, shuffled with --seed (default {K_AUTO_CV}; "
                        "--direction cv takes its folds from --param cv=N)")
    p.add_argument("--rule", choices=["within", "best", "one-se"], default="within",
                   help="with --k auto: 'within' (default): the smallest k whose mean CV accuracy is within --tol "
                        "of the best mean, so that a flat curve gives few pixels (the k are scored by octave, and "
                        "the scoring stops where doubling k gains less than --tol); 'best': the k of best mean "
                        "accuracy (every k scored); 'one-se': the smallest k within one standard error of it")
    p.add_argument("--tol", type=float, default=None, metavar="ACCURACY",
                   help=f"with --k auto --rule within: how much mean CV accuracy may be given up for fewer pixels "
                        f"(default {K_AUTO_TOL}: one point of accuracy)")
    p.add_argument(
        "--method", "-m", default="gslda", choices=sorted(METHODS),
        help="selection method: " + "; ".join(f"{m.name}: {m.help}" for m in METHODS.values()),
    )
    p.add_argument("--direction", choices=["forward", "backward", "dual", "cv"], default=None,
                   help="greedy passes for path methods (default: the library's, the forward pass then swaps at K for "
                        "gslda and forward + refinement for gspca); 'cv': gslda only, the pass of each k chosen "
                        "by cross-validated accuracy")
    add_regularization_argument(p)
    p.add_argument("--solver", choices=["greedy", "exact"], default="greedy",
                   help="gslda, gspca: 'exact' certifies the optimum at K by branch and bound (default: greedy; "
                        "needs Numba: pip install 'pixsel[numba]')")
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
    add_feature_set_arguments(p)
    add_seed_argument(p, "randomized methods (subspace) and of the --k auto folds")
    add_param_argument(p, "--param n_components=3 (passed to the estimator)")
    add_cluster_arguments(p)
    add_output_arguments(p, "pixsel-select")
    p.set_defaults(func=run)


def _check_options(args, method):
    from ._errors import UsageError

    if args.solver == "exact":  # before the data are read: the exact search needs the extra `numba`
        from .._routes import require_compiled

        require_compiled("--solver exact")

    if args.k != "auto" and (args.tol is not None or args.rule != "within"):
        raise UsageError("--rule and --tol choose k with --k auto; drop them, or use --k auto.")
    if args.k != "auto" and args.cv is not None:
        raise UsageError("--cv sets the folds of --k auto; drop it with -k K (--direction cv takes its folds from "
                         "--param cv=N).")
    if args.cv is None:
        args.cv = K_AUTO_CV
    if args.tol is not None and args.rule != "within":
        raise UsageError(f"--tol applies to --rule within; drop it for --rule {args.rule}.")
    if args.tol is not None and not 0 <= args.tol < 1:
        raise UsageError(f"--tol is an accuracy given up, between 0 and 1 (e.g. 0.01); got {args.tol}.")
    limits = [f"--{n.replace('_', '-')}" for n in ("time_limit", "node_limit", "gap_tol")
              if getattr(args, n) is not None]
    if args.solver == "exact" and not method.exact:
        exact = ", ".join(m.name for m in METHODS.values() if m.exact)
        raise UsageError(f"--solver exact is available for --method {exact}; method {method.name!r} has no "
                         "exact solver: drop --solver or change --method.")
    if limits and args.solver != "exact":
        raise UsageError(f"{', '.join(limits)} only limit{'s' if len(limits) == 1 else ''} the exact search: add "
                         "--solver exact, or drop "
                         f"{' and '.join(limits)}.")
    if args.direction is not None and method.name not in ("gslda", "gspca"):
        raise UsageError(f"--direction applies to --method gslda and gspca only; drop it for {method.name!r}.")
    if args.regularization is not None and method.name != "gslda":
        raise UsageError(f"--regularization applies to --method gslda (sparse LDA) only; drop it for {method.name!r}.")
    if args.direction == "cv" and method.name != "gslda":
        raise UsageError(f"--direction cv applies to --method gslda only; use forward, backward or dual for "
                         f"{method.name!r}.")
    if any(getattr(args, name) is not None for name in FEATURE_SETS):
        check_feature_sets(args, method.name, method.estimator_class(), lambda name: [
            m.name for m in METHODS.values() if name in m.estimator_class()._get_param_names()])


def _k_value(text):
    """``-k``: a positive int (checked by the estimator) or 'auto'."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"-k must be an int or 'auto'; got {text!r}.") from None


def _check_cv(args, data):
    """``--cv`` against the classes before any work: the fix never repeats what was given."""
    import numpy as np

    from ._errors import UsageError

    if args.cv < 2:
        raise UsageError(f"--cv must be an int >= 2; got {args.cv}.")
    classes, counts = np.unique(np.asarray(data.y), return_counts=True)
    small = int(np.argmin(counts))
    if counts[small] >= args.cv:
        return
    name = data.class_names[small] if data.class_names and len(data.class_names) == len(classes) else classes[small]
    if counts[small] < 2:
        raise UsageError(f"--k auto cross-validates, and class {name!r} has {counts[small]} sample: every class needs "
                         "at least 2 (one to fit, one to test); add samples of that class, or give -k K.")
    raise UsageError(f"--cv {args.cv} puts a sample of every class in each of {args.cv} folds, and class {name!r} has "
                     f"only {counts[small]}: use --cv {counts[small]}, add samples of that class, or give -k K.")


def _k_grid(args, data, est):
    """The k scored by ``--k auto``: PathSelectorCV's own grid, except for the methods refitted at
    every k that never select a constant feature (cardinal-spls; subspace, whose sampling modes
    draw only features of positive score): their k stops at the features that vary in every
    training fold, or a fold with a constant pixel would refuse the largest k."""
    if not (args.method == "cardinal-spls"
            or (args.method == "subspace" and est.get_params().get("mode") != "top")):
        return "auto"
    import numpy as np

    X = np.asarray(data.X)
    cap = min(int((np.ptp(X[train], axis=0) > 0).sum()) for train, _ in _folds(args).split(X, data.y))
    return np.unique(np.round(np.geomspace(1, max(cap, 1), 20)).astype(int))


def _folds(args):
    """The folds of ``--k auto``: stratified, shuffled with ``--seed`` (the images of a folder come
    sorted by name, often by pose or lighting, and unshuffled folds would each miss some of them)."""
    from sklearn.model_selection import StratifiedKFold

    return StratifiedKFold(args.cv, shuffle=True, random_state=args.seed)


def within_tolerance(cv_results, tol):
    """The smallest k of ``cv_results`` whose mean score is at least the best mean minus ``tol``.

    Examples
    --------
    >>> within_tolerance({"n_features": [1, 2, 5, 800], "mean_test_score": [0.7, 0.955, 0.96, 0.962]}, 0.01)
    2
    """
    import numpy as np

    k = np.asarray(cv_results["n_features"])
    mean = np.asarray(cv_results["mean_test_score"], dtype=float)
    return int(k[np.flatnonzero(mean >= mean.max() - tol)[0]])


def _choose_k(args, est, data):
    """``--k auto``: PathSelectorCV around the method's selector, with the rule of ``--rule``
    (for 'within': the smallest k within ``--tol`` of the best mean accuracy, on the 'auto' grid
    scored octave by octave until the curve has flattened). Returns it fitted, its selector
    fitted at the chosen k, that k and the tolerance."""
    from sklearn.base import clone

    from ..selection import PathSelectorCV

    tol = K_AUTO_TOL if args.tol is None else args.tol
    # the per-k certified bounds (gspca) are for the report at the chosen k: computed along every
    # fold's path up to n_features they made --k auto on 1024 pixels take minutes instead of seconds
    certify = est.get_params(deep=False).get("certificate") is True
    searched = clone(est).set_params(certificate=False) if certify else est
    cvsel = PathSelectorCV(searched, cv=_folds(args), rule=args.rule, tol=tol, k_grid=_k_grid(args, data, est),
                           progress=show_progress(args))
    cvsel.fit(data.X, data.y)
    k = int(cvsel.n_features_to_select_)
    chosen = clone(est).set_params(n_features_to_select=k).fit(data.X, data.y) if certify else cvsel.selector_
    return cvsel, chosen, k, tol


def _groups_param(args, data, params):
    """Whole pixels of colour images (or --patch-size parts) for the path methods: sets
    ``params['groups']``; returns what -k counts ('features', 'pixels' or 'patches')."""
    shape = data.image_shape
    if args.channels and not (shape and len(shape) == 3):
        raise ValueError(f"--channels selects single colour-channel values; {args.data} holds grey images (or no "
                         "image shape), whose pixels are single values already: drop --channels.")
    if args.channels and args.method not in ("gslda", "gspca"):
        raise ValueError(f"--channels applies to --method gslda and gspca (the others select single values "
                         f"already); drop it for {args.method!r}.")
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

    from ..io import atomic_path, save_figure, write_json
    from ._errors import EXIT_INTERRUPTED

    auto = args.k == "auto"
    data = load_labelled(args, need_labels=method.supervised or auto, lazy=True, stages=stages)
    if auto:
        _check_cv(args, data)
    params = parse_params(args.param)
    stages.stage(f"loading {method.estimator} (scikit-learn, SciPy)", "loading")
    check_param_keys(params, method.estimator_class())
    if not auto and method.uses_k:
        check_k(args.k, int(data.X.shape[1]), args.data)
    params.update(feature_set_params(args, params))
    unit = _groups_param(args, data, params)
    given = [option for name, option in FEATURE_SETS.items() if getattr(args, name) is not None]
    if given and unit != "features":
        from ._errors import UsageError

        raise UsageError(f"{' and '.join(given)} name single features, and {method.name} selects whole {unit} here: "
                         + ("drop --patch-size" if unit == "patches" else "add --channels (single colour-channel "
                            "values)") + f", or drop {' and '.join(given)}.")
    est = method.build(args, 1 if auto else args.k, params)
    shown_progress = est.get_params().get("progress")
    cvsel = None
    with cluster(args, progress=show_progress(args)):
        sizes = f"{data.X.shape[0]} samples, {data.X.shape[1]} features"
        if data.y is not None and data.class_names is not None:
            sizes += f", {len(data.class_names)} classes"
        if auto:
            stages.stage(f"choosing k by {args.cv}-fold cross-validation ({sizes})", "choosing k")
            cvsel, est, args.k, tol = _choose_k(args, est, data)
        else:
            fit_y = (data.X, data.y) if method.supervised else (data.X,)
            steps = args.method in _PATH_STEPS and stages.steps(f"{args.method} fit")
            stages.stage(f"{args.method} fit ({sizes})" + (": statistics, then the greedy path" if steps else ""),
                         f"{args.method} fit")
            if steps:  # the path's steps, drawn by stages (the estimator only calls back)
                est.set_params(progress=steps)
            est.fit(*fit_y)  # on a terminal the stage's bar shows it running (its clock moves), in a log its lines
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
            "cv": args.cv, "folds": f"StratifiedKFold({args.cv}, shuffle=True, random_state={args.seed})",
            "rule": args.rule, "n_splits": cvsel.n_splits_,
            **({"tol": tol, "best_k": int(cvsel.cv_results_["n_features"][cvsel.best_index_])} if args.rule == "within" else {}),
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

        fig = plot_cv_path(cvsel.cv_results_, args.k, objective=getattr(est, "objective_path_", None),
                           rule=args.rule, tol=tol if args.rule == "within" else None,
                           score_name=f"CV accuracy ({cvsel.n_splits_} folds)", score_range=(0.0, 1.0),
                           title=f"{METHOD_TITLES.get(args.method, args.method)}: k chosen by cross-validation")
        written.append(save_figure(fig, out / "cv_path.png", dpi=120))
    if backgrounds is not None:
        # drawn with Pillow: importing Matplotlib would be a large part of a short `select -k K`
        from ..viz import mask_picture

        bgs, names = backgrounds
        picture = mask_picture(bgs, [est.get_support()], data.image_shape,
                               titles=[mask_title(args.method, est, unit, data.image_shape)], bg_titles=names,
                               label=mask_label(unit, data.image_shape))
        with atomic_path(out / "mask.png") as tmp:
            picture.save(tmp, format="PNG", dpi=(120, 120))
        written.append(out / "mask.png")
    if not args.quiet:
        obj = f", objective {report['objective']:.6g}" if "objective" in report else ""
        if cvsel is not None:
            score = cvsel.cv_results_["mean_test_score"][list(cvsel.cv_results_["n_features"]).index(args.k)]
            rule = (f"the smallest k within {tol:g} of the best mean accuracy, "
                    f"{max(cvsel.cv_results_['mean_test_score']):.4f} at k = {cvsel.cv_results_['n_features'][cvsel.best_index_]}"
                    if args.rule == "within" else f"rule {args.rule}")
            print(f"k = {args.k} chosen by {cvsel.n_splits_}-fold CV ({rule}; mean accuracy {score:.4f})")
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


def mask_title(method, est, unit="features", image_shape=None):
    """What the mask shows: the method, greedy or exact, and for an exact search optimal or its gap;
    with whole pixels or patches (``unit``), how many and the values they hold; with single values
    of colour images, how many values in how many pixels."""

    mask = est.get_support()
    n = int(mask.sum())
    if unit != "features":
        pixels = f"{int(est.group_support_.sum())} {unit} ({n} values)"
    elif image_shape is not None and len(image_shape) == 3:
        npix = int(mask.reshape(image_shape).any(axis=2).sum())
        pixels = f"{n} channel values in {npix} pixels"
    else:
        pixels = f"{n} pixels"
    name = METHOD_TITLES.get(method, method)
    status = getattr(est, "status_", None)
    if status is None:
        return f"{name}: {pixels}" if len(name) + len(pixels) < 40 else f"{name}:\n{pixels}"
    name = name.replace("greedy ", "exact ")
    if status == "optimal":
        return f"{name}: {pixels}, certified optimal"
    what = "interrupted (Ctrl-C)" if status == "interrupted" else f"{status.replace('_', ' ')} reached"
    gap = 100 * float(est.gap_)
    return f"{name}: {pixels}\n{what}, not proved optimal\ncertified gap {gap:,.0f} %" if gap >= 100 else (
        f"{name}: {pixels}\n{what}, not proved optimal\ncertified gap {gap:.3g} %")


def mask_label(unit, image_shape):
    """The legend of the selected pixels in mask.png."""
    if image_shape is None or len(image_shape) != 3:
        return "selected pixels" if unit != "patches" else "pixels of the selected patches"
    if unit == "features":
        return "pixels with a selected channel value"
    return "selected pixels (all channels)" if unit == "pixels" else "pixels of the selected patches (all channels)"


#: method names in words, for titles
METHOD_TITLES = {
    "gslda": "greedy sparse LDA",
    "gspca": "greedy sparse PCA",
    "cardinal-spls": "cardinal sparse PLS",
    "spls": "SPLS-eta",
    "subspace": "subspace scores",
}
