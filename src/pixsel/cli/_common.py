"""Arguments and helpers shared by the subcommands."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from .. import __version__
from ..datasets import load


def add_data_argument(parser):
    parser.add_argument(
        "data",
        metavar="DATA",
        help=(
            "the data: a .npz file (arrays X (n_samples, n_features), y, optional image_shape), "
            "a .mat file (X, y), a CSV file (one sample per row, label in the last column or a "
            "column named y/label) or a folder of images with one subfolder per class"
        ),
    )


def add_output_arguments(parser, default):
    parser.add_argument("--out", "-o", metavar="DIR", default=default, help=f"output folder (default: {default})")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary")


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


def load_labelled(path, *, need_labels=True):
    data = load(path)
    if need_labels and data.y is None:
        raise ValueError(f"{path} has no labels (y); this method is supervised.")
    return data


def show_progress(args):
    """Progress bars on a terminal only, and never with --quiet (library code is quiet by default)."""
    return not args.quiet and sys.stderr.isatty()


def progress(total, desc, args):
    """A tqdm bar that only appears on a terminal, for work longer than two seconds."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not show_progress(args), delay=2.0, leave=False)


def provenance(args, **extra):
    out = {"pixsel_version": __version__, "command": args.command, "data": str(Path(args.data))}
    out.update(extra)
    return out


def image_backgrounds(X, y, image_shape):
    """Class means (or the overall mean without labels) as backgrounds for mask pictures."""
    from ..stats import class_means

    if y is None:
        return [class_means(X).mean], ["mean"]
    cm = class_means(X, y)
    if len(cm.classes) > 4:
        return [cm.mean], ["mean of all classes"]
    return list(cm.means), [f"class {c} mean" for c in cm.classes]
