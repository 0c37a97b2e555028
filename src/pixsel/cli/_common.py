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
            "named y/label), a folder of images with one subfolder per class, or a store read "
            "chunk by chunk with Dask: a Zarr store (folder with zarr.json, or NAME.zarr) or an HDF5 "
            "file (arrays X and y); with --workers/--scheduler a folder of images is read that way too"
        ),
    )
    parser.add_argument("--grey", action="store_true",
                        help="a folder of colour images: convert them to grey (by default colour is kept and "
                             "gslda/gspca select whole pixels, all channels together)")
    if split:
        parser.add_argument("--split", choices=["all", "train", "test"], default=None,
                            help="for an .npz holding X_train/y_train and X_test/y_test: which part to use "
                                 "(default: all, both parts; the summary says which was used)")
    parser.add_argument("--sample-axis", choices=["first", "last"], default=None,
                        help="where the samples are in X when pixsel cannot tell: first (n, ...) or last "
                             "(..., n), e.g. a MATLAB (h, w, n) stack (default: detected)")


def add_output_arguments(parser, default):
    parser.add_argument("--out", "-o", metavar="DIR", default=default,
                        help=f"output folder (default: {default}); an existing folder that holds files is "
                             "refused unless --overwrite is given")
    parser.add_argument("--overwrite", action="store_true",
                        help="write into an existing --out folder that already holds files (files of the same "
                             "name are replaced)")
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


#: ``--regularization`` when it is not given, for every command that runs sparse LDA (select,
#: path, evaluate, demo): :class:`pixsel.SparseLDASelector`'s own default, written out so that
#: ``pixsel --help`` does not import NumPy (a test checks that the two agree).
LDA_REGULARIZATION = "ledoit-wolf-floor"


def add_regularization_argument(parser):
    """``--regularization``: one default in every command, the sparse LDA selector's (the JSON says which)."""
    parser.add_argument("--regularization", default=None, type=parse_regularization, metavar="REG",
                        help="within-class covariance regularization of sparse LDA: ledoit-wolf-floor (shrunk "
                             "towards its mean variance by the data's Ledoit-Wolf intensity, at least 2 %%), "
                             "ledoit-wolf (that intensity as estimated), rda (the mean "
                             "variance added to the diagonal), auto (only enough to keep it invertible: the "
                             "papers' objective), none or a ridge value (default: "
                             f"{LDA_REGULARIZATION}, as SparseLDASelector; the JSON says which was used)")


def regularization(args):
    """The regularization a command runs with: ``--regularization`` or :data:`LDA_REGULARIZATION`."""
    value = getattr(args, "regularization", None)
    return LDA_REGULARIZATION if value is None else value


def parse_regularization(value):
    """``'0.1'`` -> 0.1; any other word (auto, none, ledoit-wolf-floor, ...) is passed on as is."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def check_param_keys(params, estimator, *, extra=()):
    """Refuse ``--param`` keys that ``estimator`` (a class) does not take, listing the ones it does.

    ``extra`` names keys the command consumes itself.
    """
    from ._errors import UsageError

    valid = set(estimator._get_param_names()) | set(extra)
    unknown = sorted(set(params) - valid)
    if unknown:
        name = getattr(estimator, "__name__", str(estimator))
        raise UsageError(
            f"unknown --param {', '.join(unknown)} for {name}; the valid keys are: {', '.join(sorted(valid))}."
        )


#: the feature-set options of the selection commands and the estimator parameters they set
FEATURE_SETS = {"always_select": "--always-select", "never_select": "--never-select"}


def parse_indices(text):
    """``'3,17,42'`` -> ``[3, 17, 42]``: the feature indices of ``--always-select`` and
    ``--never-select`` (an argparse type: a bad value exits 2 with the usage line).

    Examples
    --------
    >>> parse_indices("3, 17,42")
    [3, 17, 42]
    """
    import argparse

    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expects feature indices (0-based ints) separated by commas, e.g. 3,17,42; got {text!r}.") from None
    if not values:
        raise argparse.ArgumentTypeError("expects at least one feature index, e.g. 3,17,42; got none.")
    return values


def add_feature_set_arguments(parser):
    """``--always-select`` and ``--never-select``: features every selection contains, or never does."""
    parser.add_argument("--always-select", type=parse_indices, default=None, metavar="I,J,...",
                        help="features (0-based indices into the flattened images) that every selection "
                             "contains; -k counts them (gslda; gspca, which then runs the forward pass without "
                             "its certificate)")
    parser.add_argument("--never-select", type=parse_indices, default=None, metavar="I,J,...",
                        help="features (0-based indices into the flattened images) never selected (gslda, also "
                             "with --solver exact, whose certificate then covers the other features)")


def check_feature_sets(args, method_name, estimator, supporting):
    """Refuse ``--always-select`` / ``--never-select`` for a method whose estimator (a class) has
    no such parameter, before any data is read; ``supporting`` names the methods that do."""
    from ._errors import UsageError

    for name, option in FEATURE_SETS.items():
        if getattr(args, name, None) is not None and name not in estimator._get_param_names():
            raise UsageError(f"{option} applies to --method {', '.join(supporting(name))}; method {method_name!r} "
                             f"cannot {'force' if name == 'always_select' else 'exclude'} features: drop {option} "
                             "or change --method.")


def feature_set_params(args, params):
    """``{'always_select': [...], 'never_select': [...]}`` from the options given, to pass to the
    estimator; refused when ``--param`` sets the same parameter."""
    from ._errors import UsageError

    out = {}
    for name, option in FEATURE_SETS.items():
        value = getattr(args, name, None)
        if value is None:
            continue
        if name in params:
            raise UsageError(f"{option} and {name}=... set the same parameter; keep one of them.")
        out[name] = value
    return out


def check_k(k, n_features, data):
    """``-k`` larger than the number of features is an error that names the fix (never clamped)."""
    from ._errors import UsageError

    if k > n_features:
        raise UsageError(f"-k {k} is larger than the {n_features} features of {data}: choose -k between 1 and "
                         f"{n_features} (-k {n_features} keeps every feature).")


def check_finite(X, data):
    """An in-memory ``X`` that is empty or holds NaN or infinity is refused with the fix (Dask arrays pass)."""
    import numpy as np

    if not isinstance(X, np.ndarray) or X.dtype.kind not in "fiu":
        return
    if X.shape[0] == 0 or X.size == 0:
        raise ValueError(f"{data} holds no data (X has shape {X.shape}): write X with at least 2 samples "
                         "and 1 feature, one sample per row.")
    if X.dtype.kind != "f":
        return
    for bad, what, fix in ((np.isnan, "NaN (missing values)",
                            "fill them (e.g. with sklearn.impute.SimpleImputer) or drop those samples "
                            "(X = X[~np.isnan(X).any(axis=1)])"),
                           (np.isinf, "infinite values", "replace them by finite numbers or drop those samples "
                            "(X = X[np.isfinite(X).all(axis=1)])")):
        mask = bad(X)
        if mask.any():
            rows = np.flatnonzero(mask.any(axis=tuple(range(1, X.ndim))))
            first = tuple(int(i) for i in np.argwhere(mask)[0])
            raise ValueError(f"{data}: X holds {int(mask.sum())} {what} in {rows.size} of {X.shape[0]} samples "
                             f"(first at sample {first[0]}, feature {first[1:] if X.ndim > 2 else first[1]}); "
                             f"{fix} before running pixsel.")


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


_HDF5_SUFFIXES = (".h5", ".hdf5", ".hdf", ".he5")


def is_store(path, *, folders=False) -> bool:
    """DATA is read lazily (a Dask array): a Zarr store, an HDF5 file, or (``folders``) an image folder."""
    path = Path(path)
    if path.is_dir():
        zarr = path.suffix == ".zarr" or any((path / m).exists() for m in ("zarr.json", ".zarray", ".zgroup"))
        return zarr or folders
    return path.suffix.lower() in _HDF5_SUFFIXES


def _open_store(args):
    """DATA as a row-chunked Dask array (:func:`pixsel.datasets.open_store`); --split does not apply."""
    import numpy as np

    from ..datasets import open_store

    if getattr(args, "split", None) not in (None, "all"):
        raise ValueError(f"--split {args.split} applies to an .npz with X_train/X_test arrays only; drop it.")
    if getattr(args, "sample_axis", None) is not None:
        raise ValueError("--sample-axis applies to .npz and .mat files; a store holds one sample per row "
                         "(or per image): drop it.")
    data = open_store(args.data)
    fmt, array = data.extra.get("format"), data.extra.get("array")
    if array is not None:
        kind = {"hdf5": "HDF5 dataset", "zarr": "Zarr array"}.get(fmt, "array")
        data.notes.append(f"read X from the {kind} {array!r} of {Path(args.data).name}"
                          + (f" and y from {data.extra.get('labels') or 'its labels'!r}" if data.y is not None
                             else " (no labels found: no array y, Y, labels, label, gnd, target or class)"))
    if data.y is not None and data.class_names is None:
        data.class_names = [str(c) for c in np.unique(data.y)]
    return data


def load_labelled(args, *, need_labels=True, lazy=False, stages=None):
    """Load DATA with the command's --split and --sample-axis; print the loader's notes (not with -q).

    A store (Zarr, HDF5; an image folder with --workers/--scheduler) is opened lazily: with
    ``lazy`` (the commands that compute on Dask arrays: select, scores) ``X`` stays a row-chunked
    Dask array whose chunks are read by whoever computes; otherwise it is read into memory, and a
    note says so. ``stages`` (:func:`stage_lines`) shows the reading as a stage, image by image
    for a folder.
    """
    from ..datasets import load
    from ._cluster import wants_cluster

    if stages is not None:
        stages.stage(f"reading {args.data}", "reading")
    if is_store(args.data, folders=wants_cluster(args)):
        data = _open_store(args)
        if not lazy:
            import numpy as np

            data.X = np.asarray(data.X.compute())
            data.notes.append(f"read the store into memory ({data.X.nbytes / 2**20:.0f} MiB): "
                              f"'pixsel {args.command}' computes on in-memory arrays")
    else:
        data = load(args.data, split=getattr(args, "split", None), sample_axis=getattr(args, "sample_axis", None),
                    grey=getattr(args, "grey", False),
                    progress=None if stages is None else stages.steps("reading images", "image"))
    check_finite(data.X, args.data)
    if need_labels and data.y is None:
        raise ValueError(f"{args.data} has no labels (y); this method is supervised: add y to the file.")
    if data.y is not None:
        warn_degenerate_classes(data, args.data)
    if not args.quiet:
        warned = data.extra.get("warned", ())  # already on stderr as warnings
        for note in data.notes:
            if note not in warned:
                print(f"note: {note}")
    return data


def one_sample_note(y, where):
    """The note on classes of ``y`` that hold a single sample, or None when every class holds two or more."""
    import numpy as np

    _, counts = np.unique(np.asarray(y), return_counts=True)
    single = int((counts == 1).sum())
    if not single:
        return None
    if single == len(counts):
        return (f"every class of {where} holds one sample: the within-class scatter is zero, so the classes "
                "cannot be told from noise (sparse LDA's shrinkage has nothing to shrink; with --regularization auto "
                "or a ridge it ranks pixels by the class means alone); give at least 2 samples per class")
    return (f"{single} of the {len(counts)} classes of {where} hold one sample: they add nothing to the "
            "within-class scatter and cannot be cross-validated; give at least 2 samples per class")


def warn_degenerate_classes(data, where):
    """Warn (and note for the JSON) when classes hold a single sample: with one image per class
    the within-class scatter is zero and sparse LDA's objective is the regularization's alone."""
    import warnings

    note = one_sample_note(data.y, where)
    if note is None:
        return
    data.notes.append(note)
    data.extra.setdefault("warned", []).append(note)
    warnings.warn(note + ".", UserWarning, stacklevel=3)


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


def stage_lines(args):
    """The stages of a command (reading, fit, writing) as progress lines, shown as
    :func:`show_progress` says: :class:`pixsel._progress.StageLines`, a context manager."""
    from .._progress import StageLines

    return StageLines(f"pixsel {args.command}", enabled=show_progress(args))


def progress(total, desc, args, *, enabled=True):
    """Steps of a command (:func:`pixsel._progress.step_progress`), shown as :func:`show_progress` says.

    ``enabled=False`` keeps it quiet (the cluster's task-stream progress shows instead).
    """
    from .._progress import step_progress

    return step_progress(total, desc, enabled=enabled and show_progress(args))


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
