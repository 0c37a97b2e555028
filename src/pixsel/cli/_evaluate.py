"""``pixsel evaluate``: select k pixels for several k, classify the test set, report error and information."""

from __future__ import annotations

from pathlib import Path

from ._common import (
    add_data_argument,
    add_output_arguments,
    add_param_argument,
    add_regularization_argument,
    add_seed_argument,
    one_sample_note,
    parse_params,
    provenance,
    regularization,
    show_progress,
)

_METHOD_ALIASES = {"gslda": "dual"}
#: the selectors of sparse LDA, which take ``--regularization`` (the same default as in select and path)
_REGULARIZED = ("forward", "backward", "dual", "gslda", "fisher")

# the names of pixsel.experiments.SELECTORS and CLASSIFIERS, written out so that `pixsel --help`
# does not import NumPy (tests/cli/test_cli_contract.py checks that they agree)
SELECTORS = ("forward", "backward", "dual", "gslda", "fisher", "f_classif", "mutual_info", "rfe_svc",
             "l1_logistic", "sfs_lda", "soft_ard")
CLASSIFIERS = ("gp", "gp-ep", "gp-laplace-probit", "linear-svm", "logistic", "lda")


def add_parser(sub):
    p = sub.add_parser(
        "evaluate",
        help="test error / test information vs k of a selector + classifier (evaluate.json, evaluate.png)",
        description=(
            "For each K: select K features of the training part of DATA with METHOD, fit CLASSIFIER "
            "on them and measure the test part: test error, test information in bits (GPML 3.7) and, "
            "for GP classifiers, the log marginal likelihood. The test part is the X_test/y_test "
            "arrays of an .npz that has them, the file given with --test, or a stratified random "
            "--test-size split. Writes DIR/evaluate.json and DIR/evaluate.png."
        ),
    )
    add_data_argument(p, split=False)
    p.add_argument("--classes", metavar="A,B", default=None,
                   help="the two classes to compare when DATA has more (names or label values, e.g. 3,5 or "
                        "cats,dogs); the evaluation is binary")
    p.add_argument("--method", "-m", default="gslda", choices=sorted(set(SELECTORS) | set(_METHOD_ALIASES)),
                   help="selector: gslda (= dual: best of pixsel's forward and backward paths per k), forward, "
                        "backward, fisher, or scikit-learn's f_classif, mutual_info, rfe_svc, l1_logistic, "
                        "sfs_lda; soft_ard (GP with one length-scale per feature)")
    add_regularization_argument(p)
    p.add_argument("--classifier", "-c", default="gp", choices=CLASSIFIERS,
                   help="gp: scikit-learn GaussianProcessClassifier (Laplace); gp-ep: pixsel's EP probit GP; "
                        "gp-laplace-probit; linear-svm; logistic; lda (default: gp)")
    p.add_argument("-k", "--k", default="1,2,5,10,20,50", help="comma-separated subset sizes (default: 1,2,5,10,20,50)")
    p.add_argument("--test", metavar="FILE", default=None, help="test data file (same format as DATA)")
    p.add_argument("--test-size", type=float, default=0.5, help="test fraction of a random split (default: 0.5)")
    add_seed_argument(p, "the split and of the classifiers")
    p.add_argument("--restarts", type=int, default=None,
                   help="GP optimizer restarts beyond the first start (default: pixsel.experiments.GP_RESTARTS = 2)")
    add_param_argument(p, "--param max_k=5 for sfs_lda (passed to the selector)")
    add_output_arguments(p, "pixsel-evaluate")
    p.set_defaults(func=run)


def _parse_ks(text):
    try:
        ks = [int(t) for t in str(text).split(",") if t.strip()]
    except ValueError:
        raise ValueError(f"--k expects comma-separated integers such as 1,2,5,10; got {text!r}.") from None
    if not ks:
        raise ValueError("--k needs at least one subset size.")
    return ks


def _title(args, tt):
    from ..viz import method_label

    what = f"{tt.class_names[0]} vs {tt.class_names[1]}: " if tt.class_names and len(tt.class_names) == 2 else ""
    return f"{what}{method_label(args.method)} pixels, {args.classifier} classifier"


def run(args):
    # imported here, not at the top: `pixsel --help` must not pay for NumPy
    from ..io import save_figure, write_json
    from ..datasets import load_train_test
    from ..experiments import evaluate_selection
    from ..viz import plot_evaluation

    from ._errors import UsageError

    ks = _parse_ks(args.k)
    method_params = parse_params(args.param)
    if args.method in _REGULARIZED:
        method_params.setdefault("regularization", regularization(args))
    elif args.regularization is not None:
        raise UsageError(f"--regularization applies to the sparse LDA methods ({', '.join(_REGULARIZED)}); "
                         f"drop it for --method {args.method}.")
    tt = load_train_test(args.data, args.test, test_size=args.test_size, random_state=args.seed,
                         sample_axis=args.sample_axis)
    import numpy as np

    n_classes = len(np.unique(np.concatenate([tt.y_train, tt.y_test])))
    if args.classes is not None:
        wanted = [c for c in args.classes.split(",") if c.strip()]
        if len(wanted) != 2:
            raise UsageError(f"--classes takes two classes separated by a comma, e.g. --classes 3,5; got {args.classes!r}.")
        tt = tt.only_classes(wanted)
    elif n_classes != 2:
        names = tt.class_names or [str(c) for c in np.unique(tt.y_train)]
        raise UsageError(f"pixsel evaluate compares two classes and {args.data} has {n_classes} "
                         f"({', '.join(names[:10])}{', ...' if len(names) > 10 else ''}); choose two with "
                         f"--classes {names[0]},{names[1]}.")
    X_train, y_train, X_test, y_test, shape = tt.X_train, tt.y_train, tt.X_test, tt.y_test, tt.image_shape
    # as select, path and the other commands do: a class of one training sample is said, and noted in the JSON
    notes = [n for n in [one_sample_note(y_train, f"the training part of {args.data}")] if n]
    if notes:
        import warnings

        warnings.warn(notes[0] + ".", UserWarning, stacklevel=2)
    method = _METHOD_ALIASES.get(args.method, args.method)
    cparams = {} if args.restarts is None else {"n_restarts": args.restarts}
    res = evaluate_selection(X_train, y_train, X_test, y_test, method=method, classifier=args.classifier, ks=ks,
                             method_params=method_params, classifier_params=cparams,
                             random_state=args.seed, progress=show_progress(args))
    res.method = args.method
    out = Path(args.out)
    report = provenance(args, split=tt.split, n_train=int(len(y_train)), n_test=int(len(y_test)),
                        image_shape=list(shape) if shape else None, class_names=tt.class_names,
                        **({"notes": notes} if notes else {}), **res.to_dict())
    written = [write_json(out / "evaluate.json", report),
               save_figure(plot_evaluation([res], title=_title(args, tt)), out / "evaluate.png", dpi=120)]
    if not args.quiet:
        print(f"{'k':>5} {'error':>8} {'info(bits)':>10} {'log ML':>10}")
        for k, e, i, m in zip(res.ks, res.error, res.information, res.log_marginal_likelihood):
            print(f"{k:>5} {e:>8.4f} {i:>10.4f} {m:>10.2f}")
        print(f"selection time {res.selection_time:.3f} s; wrote " + ", ".join(str(w) for w in written))
    return 0
