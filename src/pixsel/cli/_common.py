"""Arguments and helpers shared by the subcommands."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from .. import __version__


def add_data_argument(parser, *, split=True):
    parser.add_argument(
        "data",
        metavar="DATA",
        help=(
            "the data: a .npz file (arrays X (n_samples, n_features) or an image stack (n, h, w), y, "
            "optional image_shape; or X_train, y_train, X_test, y_test), a .mat file (X, y), a CSV "
            "file (one sample per row, label -- a number or a word -- in the last column or a column "
            "named y/label) or a folder of images with one subfolder per class"
        ),
    )
    if split:
        parser.add_argument("--split", choices=["all", "train", "test"], default=None,
                            help="for an .npz holding X_train/y_train and X_test/y_test: which part to use "
                                 "(default: all, both parts; the summary says which was used)")
    parser.add_argument("--sample-axis", choices=["first", "last"], default=None,
                        help="where the samples are in X when pixsel cannot tell: first (n, ...) or last "
                             "(..., n), e.g. a MATLAB (h, w, n) stack (default: detected)")


def add_output_arguments(parser, default):
    parser.add_argument("--out", "-o", metavar="DIR", default=default, help=f"output folder (default: {default})")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress and no summary")
    parser.add_argument("--progress", action="store_true",
                        help="report progress even when stderr is not a terminal (plain lines, no cursor "
                             "codes: fit for a log); by default progress shows on a terminal only")


def add_param_argument(parser, example):
    parser.add_argument("--param", action="append", metavar="KEY=VALUE", default=[],
                        help=f"extra parameter (repeatable), e.g. {example}")


def add_seed_argument(parser, what):
    parser.add_argument("--seed", "--random-state", dest="seed", type=int, default=0, metavar="SEED",
                        help=f"seed of {what} (default: 0)")


def add_regularization_argument(parser):
    parser.add_argument("--regularization", default="auto", type=parse_regularization,
                        help="within-class covariance regularization: auto, none, ledoit-wolf or a ridge "
                             "value (default: auto)")


def parse_regularization(value):
    """``'0.1'`` -> 0.1; any other word (auto, none, ledoit-wolf) is passed on as is."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def parse_params(items):
    """``['alpha=0.1', 'mode=top']`` -> ``{'alpha': 0.1, 'mode': 'top'}`` (values as Python literals)."""
    params = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--param expects KEY=VALUE; got {item!r}.")
        key, value = item.split("=", 1)
        try:
            params[key.strip()] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[key.strip()] = value
    return params


def load_labelled(args, *, need_labels=True):
    """Load DATA with the command's --split and --sample-axis; print the loader's notes (not with -q)."""
    from ..datasets import load

    data = load(args.data, split=getattr(args, "split", None), sample_axis=getattr(args, "sample_axis", None))
    if need_labels and data.y is None:
        raise ValueError(f"{args.data} has no labels (y); this method is supervised: add y to the file.")
    if not args.quiet:
        for note in data.notes:
            print(f"note: {note}")
    return data


def data_report(data):
    """What the JSON of every command says about the data: shape, image shape, classes, split, notes."""
    out = {
        "n_samples": int(data.X.shape[0]),
        "n_features": int(data.X.shape[1]),
        "image_shape": list(data.image_shape) if data.image_shape else None,
    }
    if data.y is not None:
        out["class_names"] = list(data.class_names)
    if data.split:
        out["split"] = data.split
    if data.notes:
        out["notes"] = list(data.notes)
    return out


def show_progress(args):
    """Progress on a terminal, or anywhere with --progress; never with --quiet.

    Library code is quiet by default; the estimators' ``progress=True`` then draws a bar on a
    terminal and writes plain lines elsewhere (:mod:`pixsel._progress`).
    """
    if args.quiet:
        return False
    return bool(getattr(args, "progress", False)) or sys.stderr.isatty()


def progress(total, desc, args):
    """Steps of a command (:func:`pixsel._progress.step_progress`), shown as :func:`show_progress` says."""
    from .._progress import step_progress

    return step_progress(total, desc, enabled=show_progress(args))


def provenance(args, **extra):
    out = {"pixsel_version": __version__, "command": args.command, "data": str(Path(args.data))}
    out.update(extra)
    return out


def image_backgrounds(X, y, image_shape, class_names=None):
    """Class means (or the overall mean without labels) as backgrounds for mask pictures."""
    from ..stats import class_means

    if y is None:
        return [class_means(X).mean], ["mean image"]
    cm = class_means(X, y)
    if len(cm.classes) > 4:
        return [cm.mean], ["mean of all classes"]
    names = class_names or [str(c) for c in cm.classes]
    return list(cm.means), [f"mean of {n}" for n in names]
