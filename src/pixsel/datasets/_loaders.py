"""Data loaders. Each returns a :class:`Dataset` (``X`` 2-D, ``y`` 1-D or None, ``image_shape``)."""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Literal

__all__ = ["Dataset", "TrainTest", "data_dir", "shared_path", "load_shared", "load", "load_train_test", "load_digits_pair"]

_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".pgm", ".tif", ".tiff", ".gif"}


SPLITS = ("all", "train", "test")
SAMPLE_AXES = ("first", "last")


@dataclass
class Dataset:
    """Samples ``X`` (n_samples, n_features), labels ``y`` (or None) and the image shape if known.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
        As stored (uint8 stays uint8; the estimators convert explicitly).
    y : ndarray of shape (n_samples,) or None
        Labels as stored: integers, or strings (kept as strings; every pixsel estimator takes them).
    image_shape : tuple of int or None
        ``(height, width)`` when the features are the pixels of an image.
    name : str
    class_names : list of str or None
        One name per class, in the order of ``numpy.unique(y)``: the folder names of an image
        folder, the strings of string labels, ``str(label)`` otherwise (None without labels).
    notes : list of str
        What the loader decided for the user (a transposed matrix, a train/test file joined...),
        for the summary of the CLI.
    split : str
        Which part of a train/test ``.npz`` this is (``'all'``, ``'train'``, ``'test'``), else ``''``.
    """

    X: np.ndarray
    y: np.ndarray | None = None
    image_shape: tuple | None = None
    name: str = ""
    extra: dict = field(default_factory=dict, repr=False)
    class_names: list | None = None
    notes: list = field(default_factory=list, repr=False)
    split: str = ""

    def __post_init__(self):
        if self.class_names is None and self.y is not None:
            self.class_names = self.extra.get("class_names") or [str(c) for c in np.unique(self.y)]

    def label_name(self, label: Any) -> str:
        """The class name of a label value (``str(label)`` when no name is known)."""
        if self.y is None or self.class_names is None:
            return str(label)
        classes = np.unique(self.y)
        idx = np.flatnonzero(classes == label)
        return self.class_names[int(idx[0])] if idx.size else str(label)


def data_dir() -> Path:
    """The folder of pixsel's shared datasets: ``$PIXSEL_DATA``, default ``../shared/data``.

    The default is resolved against the current directory and then against the repository
    checkout this package lives in, so tests and benchmarks find the data from anywhere.
    """
    env = os.environ.get("PIXSEL_DATA")
    if env:
        return Path(env)
    here = Path.cwd() / ".." / "shared" / "data"
    if here.is_dir():
        return here.resolve()
    repo = Path(__file__).resolve().parents[3]  # src/pixsel/datasets/_loaders.py -> checkout
    return (repo / ".." / "shared" / "data").resolve()


def shared_path(name: str) -> Path:
    """Path of a shared dataset file, or ``FileNotFoundError`` saying where it was looked for."""
    path = data_dir() / name
    if not path.is_file():
        raise FileNotFoundError(
            f"Dataset file {name!r} not found in {path.parent}. Set the environment variable "
            "PIXSEL_DATA to the folder holding pixsel's shared .npz files."
        )
    return path


def load_shared(name: str) -> dict:
    """All arrays of a shared ``.npz`` file as a dict (``allow_pickle=False``)."""
    with np.load(shared_path(name), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def load_digits_pair(a: int = 3, b: int = 5) -> Dataset:
    """scikit-learn's bundled 8x8 digits, classes ``a`` (label 0) and ``b`` (label 1)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    keep = np.isin(d.target, [a, b])
    X = d.data[keep].astype(np.float64)
    y = (d.target[keep] == b).astype(np.int64)
    return Dataset(X=X, y=y, image_shape=(8, 8), name=f"digits {a} vs {b}")


def _image_shape(value):
    if value is None:
        return None
    shape = tuple(int(v) for v in np.asarray(value).ravel())
    return shape or None


def _check_numbers(X, where):
    """X must hold numbers: strings and objects are an error that says how to convert."""
    if X.dtype.kind in "biuf":
        return X
    if X.dtype.kind in "USO":
        raise ValueError(
            f"{where}: X holds text or Python objects (dtype {X.dtype}), not numbers. Store the pixel "
            "values as numbers (X.astype(float)); labels belong in y, where strings are fine."
        )
    raise ValueError(f"{where}: X has dtype {X.dtype}; pixsel needs real numbers (X.astype(float)).")


def _orient(X, y, image_shape, sample_axis, where, notes):
    """Samples along the first axis, features flattened; decide the orientation when it is unambiguous.

    ``sample_axis`` (``'first'``/``'last'``/None) overrides the detection. The rules, in order:
    the axis whose length is ``len(y)``; for a stack of images, the axes that match
    ``image_shape``; for a 3-D stack without either, the layout whose images are square.
    Otherwise a 2-D matrix is read samples-in-rows, and a 3-D stack is an error that names the fix.
    """
    X = _check_numbers(np.asarray(X), where)
    if X.ndim == 1:
        raise ValueError(f"{where}: X is 1-D (shape {X.shape}); store it as (n_samples, n_features).")
    if X.ndim == 4 and sample_axis in (None, "first") and (y is None or len(y) == X.shape[0]):
        # a colour stack (n, height, width, channels): flattened in C order, its shape kept
        if image_shape is None or tuple(image_shape) != tuple(X.shape[1:]):
            image_shape = tuple(int(v) for v in X.shape[1:])
        X = X.reshape(len(X), -1)
    if X.ndim > 3:
        raise ValueError(
            f"{where}: X has {X.ndim} dimensions {X.shape}; pixsel takes (n_samples, n_features), a stack "
            "of grey images (n, height, width) or of colour images (n, height, width, channels), samples first."
        )
    fix = "pass --sample-axis first|last (load(..., sample_axis=...))"
    if sample_axis is not None and sample_axis not in SAMPLE_AXES:
        raise ValueError(f"sample_axis must be one of {SAMPLE_AXES}; got {sample_axis!r}.")
    n_y = None if y is None else len(y)
    axis = {"first": 0, "last": X.ndim - 1}.get(sample_axis)
    if axis is None and n_y is not None:
        fits = [a for a in (0, X.ndim - 1) if X.shape[a] == n_y]
        if not fits:
            raise ValueError(
                f"{where}: y has {n_y} labels but X has shape {X.shape}: neither its first nor its last "
                "axis has one entry per label. Check that X and y belong together."
            )
        axis = fits[0] if len(fits) == 1 or X.ndim == 2 and X.shape[0] == X.shape[1] else None
        if axis is None:
            raise ValueError(f"{where}: both the first and the last axis of X {X.shape} match the {n_y} "
                             f"labels; {fix}.")
    if axis is None and image_shape is not None:
        npx = int(np.prod(image_shape))
        if X.ndim == 2:
            fits = [a for a in (0, 1) if X.shape[1 - a] == npx]
        else:
            fits = [a for a, rest in ((0, X.shape[1:]), (2, X.shape[:2])) if int(np.prod(rest)) == npx]
        if len(fits) == 1:
            axis = fits[0]
    if axis is None and X.ndim == 3:
        square = [a for a, rest in ((0, X.shape[1:]), (2, X.shape[:2])) if rest[0] == rest[1]]
        if len(square) != 1:
            raise ValueError(f"{where}: cannot tell whether the image stack X {X.shape} is (n, height, width) "
                             f"or (height, width, n); {fix}.")
        axis = square[0]
    if axis is None:
        axis = 0
    if X.ndim == 3:
        X = X if axis == 0 else np.moveaxis(X, -1, 0)
        if axis != 0:
            notes.append(f"X is a (height, width, n) stack; read as {X.shape[0]} images of "
                         f"{X.shape[1]}x{X.shape[2]} pixels")
        if image_shape is None:
            image_shape = tuple(int(v) for v in X.shape[1:])
        X = X.reshape(len(X), -1)
    elif axis == 1:
        X = X.T
        notes.append(f"X was stored with features in rows; read as {X.shape[0]} samples of {X.shape[1]} features")
    if image_shape is not None and int(np.prod(image_shape)) != X.shape[1]:
        notes.append(f"image_shape {tuple(image_shape)} does not match the {X.shape[1]} features; ignored")
        image_shape = None
    if y is not None:
        y = np.asarray(y).ravel()
        if y.dtype.kind == "O":
            y = y.astype(str)
    return X, y, image_shape


def _labels(y, where):
    y = np.asarray(y).ravel()
    if y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{where}: y has NaN or infinite labels; remove those samples or give them a class.")
    return y


def _npz_arrays(path: Path) -> dict:
    """All arrays of an ``.npz`` (no pickles); unreadable archives and object arrays say what to do."""
    if path.is_file() and not zipfile.is_zipfile(path):
        with open(path, "rb") as fh:
            head = fh.read(512)
        if head.startswith(b"\x93NUMPY"):
            what = "a single .npy array, not an .npz archive: save it with numpy.savez(path, X=X, y=y)"
        elif not head:
            what = "empty"
        elif all(32 <= b < 127 or b in b"\t\r\n" for b in head):
            what = "a text file, not an .npz (zip) archive: name a CSV .csv, or write the arrays with numpy.savez"
        else:
            what = "not an .npz (zip) archive: it is another kind of file, or corrupt; write it with numpy.savez"
        raise ValueError(f"{path} is {what}.")
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise ValueError(
                f"{path} holds an object (pickled) array, which pixsel does not load (unsafe). Save numbers "
                "for X (X.astype(float)) and strings for labels (y.astype(str)), then numpy.savez again."
            ) from None
        raise ValueError(f"{path} is not a readable .npz file ({exc}); write it with numpy.savez.") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(
            f"{path} is not a valid .npz file ({type(exc).__name__}: {exc}): it is corrupt or truncated; "
            "write it again with numpy.savez(path, X=X, y=y)."
        ) from None


def _load_npz(path: Path, split=None, sample_axis=None) -> Dataset:
    z = _npz_arrays(path)
    files = set(z)
    shape = _image_shape(z["image_shape"]) if "image_shape" in files else None
    notes = []
    if split is not None and split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}; got {split!r}.")
    pair = {"X_train", "y_train", "X_test", "y_test"} <= files
    if "X" in files and not pair:
        if split not in (None, "all"):
            raise ValueError(f"{path} has no X_train/X_test arrays, so --split {split} does not apply; "
                             "drop --split.")
        X, y, which = z["X"], z.get("y"), ""
    elif pair:
        split = split or "all"
        parts = ("train", "test") if split == "all" else (split,)
        Xs, ys = [], []
        for part in parts:
            Xp, yp, shape = _orient(z[f"X_{part}"], z[f"y_{part}"], shape, sample_axis, f"{path} X_{part}", [])
            Xs.append(Xp)
            ys.append(yp)
        if Xs[0].shape[1] != Xs[-1].shape[1]:
            raise ValueError(f"{path}: X_train and X_test have different numbers of features.")
        X, y, which = np.concatenate(Xs), np.concatenate(ys), split
        counts = " + ".join(f"{len(v)} {p}" for v, p in zip(ys, parts))
        notes.append(f"{path.name} holds a train/test split; used --split {split} ({counts} samples)"
                     + ("; --split train or test takes one part" if split == "all" else ""))
    elif {"X_train", "y_train"} <= files:
        X, y, which = z["X_train"], z["y_train"], "train"
        notes.append(f"{path.name} holds X_train/y_train only; used them")
    else:
        raise ValueError(
            f"{path} has arrays {sorted(files)}; pixsel expects 'X' (n_samples, n_features), "
            "optionally 'y' (labels) and 'image_shape' -- or X_train, y_train, X_test, y_test."
        )
    X, y, shape = _orient(X, y, shape, sample_axis, str(path), notes)
    y = None if y is None else _labels(y, str(path))
    names = [str(v) for v in np.asarray(z["class_names"]).ravel()] if "class_names" in files else None
    if names is not None and y is not None and len(names) != len(np.unique(y)):
        names = None
    return Dataset(X=X, y=y, image_shape=shape, name=path.stem, class_names=names, notes=notes, split=which)


def _load_mat(path: Path, sample_axis=None) -> Dataset:
    from scipy.io import loadmat

    try:
        m = {k: v for k, v in loadmat(path).items() if not k.startswith("__")}
    except Exception as exc:  # scipy's MatReadError, IndexError, ... on corrupt files
        raise ValueError(
            f"{path} is not a MATLAB file scipy can read ({exc}); save it with MATLAB's save -v7 "
            "(v7.3/HDF5 files: load them with h5py and numpy.savez them)."
        ) from None
    xkey = next((k for k in ("X", "x", "data", "fea") if k in m), None)
    if xkey is None:
        raise ValueError(f"{path} has variables {sorted(m)}; pixsel expects one named X (or fea).")
    ykey = next((k for k in ("y", "Y", "labels", "gnd") if k in m), None)
    y = None
    if ykey is not None:
        y = np.asarray(m[ykey])
        if y.dtype.kind == "O" or y.dtype.kind == "U":  # a cell array of strings
            y = np.array([str(np.asarray(v).ravel()[0]) if np.size(v) else "" for v in y.ravel()])
        y = y.ravel()
    shape = _image_shape(m["image_shape"]) if "image_shape" in m else None
    others = sorted(set(m) - {xkey, ykey, "image_shape"})
    notes = [f"{path.name}: read X from the variable {xkey!r}" + (f" and y from {ykey!r}" if ykey else " (no labels: "
             "no variable y, Y, labels or gnd)") + (f"; not read: {', '.join(others)}" if others else "")]
    X, y, shape = _orient(m[xkey], y, shape, sample_axis, str(path), notes)
    y = None if y is None else _labels(y, str(path))
    return Dataset(X=X, y=y, image_shape=shape, name=path.stem, notes=notes)


_LABEL_COLUMNS = ("y", "label", "labels", "class", "target")


def _load_csv(path: Path) -> Dataset:
    """CSV: one sample per row; the last column is the label unless the header names 'y'/'label'.

    Labels may be numbers or text (``digit5``); the features must be numbers.
    """
    import csv

    with open(path, newline="", errors="strict") as fh:
        sample = fh.read(4096)
        fh.seek(0)
        line = (sample.splitlines() or [""])[0]
        # a semicolon first: where it separates the columns, a comma is the decimal mark (1,5;2,25)
        delim = next((d for d in (";", "\t", ",", "|") if d in line), None)
        rows = [r for r in (csv.reader(fh, delimiter=delim) if delim else (ln.split() for ln in fh)) if r]
    if not rows:
        raise ValueError(f"{path} is empty; write one sample per row, label in the last column.")

    def numeric(cells):
        try:
            [float(c.replace(",", ".") if delim == ";" else c) for c in cells]
            return True
        except ValueError:
            return False

    first = [c.strip() for c in rows[0]]
    # a header row has text outside the label column, or text labels where the next row has numbers
    header = None
    if not numeric(first[:-1]) or (not numeric(first[-1:]) and len(rows) > 1 and numeric(rows[1][-1:])):
        header = first
    body = rows[1:] if header else rows
    if not body:
        raise ValueError(f"{path} has a header but no data rows; write one sample per row.")
    width = len(body[0]) if body else 0
    if width < 2:
        raise ValueError(f"{path}: each row has {width} column; pixsel reads the features and the label in columns "
                         "separated by commas, semicolons, tabs or spaces (one sample per row, label last).")
    for i, r in enumerate(body):
        if len(r) != width:
            raise ValueError(f"{path}: row {i + 1 + bool(header)} has {len(r)} fields, the first has {width}; "
                             "every row needs the same columns.")
    col = width - 1
    if header and any(h.lower() in _LABEL_COLUMNS for h in header):
        col = next(i for i, h in enumerate(header) if h.lower() in _LABEL_COLUMNS)
    cells = np.array(body, dtype=str)
    y_text = np.char.strip(cells[:, col])
    feats = np.delete(cells, col, axis=1)
    if delim == ";":
        feats = np.char.replace(feats, ",", ".")
    try:
        X = feats.astype(np.float64)
    except ValueError:
        bad = next((i, j) for i, r in enumerate(feats) for j, c in enumerate(r) if not numeric([c]))
        raise ValueError(
            f"{path}: the value {feats[bad]!r} in row {bad[0] + 1 + bool(header)}, feature column {bad[1] + 1} is "
            "not a number. Features must be numbers; the label goes in the last column or one named y/label."
        ) from None
    y = y_text.astype(np.float64) if numeric(y_text) else y_text
    return Dataset(X=X, y=_labels(y, str(path)), image_shape=None, name=path.stem)


#: what Pillow reads as NumPy itself, value for value as ``skimage.io.imread`` (through imageio's
#: Pillow plugin) returns it; other modes (palette, 16-bit, bilevel, ...) and other files go
#: through ``skimage.io.imread``, which converts them
_PIL_MODES = {"L": 2, "RGB": 3, "RGBA": 3}
_PIL_FORMATS = {"PNG", "JPEG", "BMP", "PPM"}


def read_image(path) -> np.ndarray:
    """One image file as an array, exactly as ``skimage.io.imread(path)`` returns it.

    Grey, RGB and RGBA PNG, JPEG, BMP and PGM files (the common image folders) are decoded by
    Pillow directly, several times faster than through ``skimage.io`` and imageio, and without
    importing them; any other file (TIFF, GIF, palette or 16-bit PNG, ...) goes through
    ``skimage.io.imread``, which needs the optional scikit-image (``pip install 'pixsel[images]'``).
    """
    from PIL import Image

    with Image.open(path) as im:
        if im.format in _PIL_FORMATS and im.mode in _PIL_MODES and getattr(im, "n_frames", 1) == 1:
            im.load()
            img = np.asarray(im)
            if img.ndim == _PIL_MODES[im.mode]:
                return img
        kind = f"{im.format} image of mode {im.mode}"
    from .._optional import require

    io = require("skimage.io", extra="images", package="scikit-image",
                 needed_for=f"Reading {path} (a {kind}; without it pixsel reads grey, RGB and RGBA PNG, JPEG, "
                            "BMP and PGM files, so re-saving it as one of those works too)")
    return io.imread(path)


def rgb_to_grey(img: np.ndarray) -> np.ndarray:
    """Luminance of an RGB image, as ``skimage.color.rgb2gray`` computes it.

    ``0.2125 R + 0.7154 G + 0.0721 B`` (ITU-R BT.709) on the image scaled to [0, 1] the way
    ``skimage.util.img_as_float`` scales it (unsigned integers divided by their largest value,
    floats as they are), in float64 (float32 stays float32). Other dtypes go through scikit-image.

    Parameters
    ----------
    img : ndarray of shape (h, w, 3)

    Returns
    -------
    ndarray of shape (h, w)
    """
    img = np.asarray(img)
    if img.dtype.kind == "u":
        rgb = img.astype(np.float64) / np.iinfo(img.dtype).max
    elif img.dtype in (np.float32, np.float64):
        rgb = img
    else:  # signed integers, booleans, other floats: scikit-image's own scaling
        from .._optional import require

        color = require("skimage.color", extra="images", package="scikit-image",
                        needed_for=f"Converting a colour image of dtype {img.dtype} to grey")
        return color.rgb2gray(img)
    return rgb @ np.array([0.2125, 0.7154, 0.0721], dtype=rgb.dtype)


def _image_files(path: Path) -> tuple[list[Path], list[tuple[int, Path]], list[Path]]:
    """The class subfolders of an image folder, ``(class index, file)`` for each of its images
    (classes and files in name order), and the folders inside the class folders that hold
    images (which are not read)."""
    classes = sorted(p for p in path.iterdir() if p.is_dir())
    files, nested = [], []
    for label, sub in enumerate(classes):
        for f in sorted(sub.iterdir()):
            if f.suffix.lower() in _IMAGE_SUFFIXES and f.is_file():
                files.append((label, f))
            elif f.is_dir() and any(g.suffix.lower() in _IMAGE_SUFFIXES for g in f.rglob("*")):
                nested.append(f)
    return classes, files, nested


def _folder_warnings(path, classes, files, nested, depths):
    """What is dropped or doubtful in an image folder: a warning each (and a note for the summary);
    one class folder with class folders inside is an error that names the folder to give."""
    import warnings

    notes = []
    used = {label for label, _ in files}
    empty = [c.name for i, c in enumerate(classes) if i not in used]
    if nested:
        parents = sorted({f.parent for f in nested})
        if len(used) <= 1 and len(parents) == 1:
            inner = parents[0]
            raise ValueError(
                f"{path} has one class folder ({inner.name}) and its images are in {len(nested)} subfolders "
                f"of it ({', '.join(f.name for f in nested[:3])}{', ...' if len(nested) > 3 else ''}), which "
                f"are not read: give {inner} as DATA if its subfolders are the classes.")
        shown = ", ".join(str(f.relative_to(path)) for f in nested[:3]) + (", ..." if len(nested) > 3 else "")
        notes.append(f"{len(nested)} folder(s) inside the class folders hold images that were not read ({shown}): "
                     "put each class's images directly in its folder")
    if empty:
        shown = ", ".join(empty[:5]) + (", ..." if len(empty) > 5 else "")
        notes.append(f"{len(empty)} class folder(s) hold no images and were dropped: {shown}")
    if len(depths) > 1:
        counts = ", ".join(f"{n} of {8 * d.itemsize} bits" for d, n in sorted(depths.items(), key=lambda t: t[0].itemsize))
        notes.append(f"the images have different bit depths ({counts}): their values are on different scales "
                     "(0-255 and 0-65535), so brightness alone may tell the classes apart; save them all with "
                     "one bit depth")
    for note in notes:
        warnings.warn(f"{path}: {note}.", UserWarning, stacklevel=4)
    return notes


def _load_folder(path: Path, grey: bool = False, progress=None) -> Dataset:
    """An image folder with one subfolder per class, images of one size. Colour images keep their
    colour (``image_shape`` ``(h, w, 3)``, grey images of the folder then repeated to three
    channels) unless ``grey``, which converts them to grey. Folders without images are dropped,
    images in folders inside the class folders are not read, and images of different bit depths
    are read as they are: each with a warning."""
    classes, files, nested = _image_files(path)
    if not classes:
        raise ValueError(f"{path} has no subfolders; put the images of each class in its own subfolder.")
    X, y, shape, depths = [], [], None, {}
    for i, (label, f) in enumerate(files):
        try:
            img = read_image(f)
        except (ValueError, OSError, SyntaxError) as exc:
            raise ValueError(f"{f} is not a readable image ({exc}); remove or re-save it.") from None
        if img.dtype.kind in "ui":
            depths[img.dtype] = depths.get(img.dtype, 0) + 1
        if img.ndim == 3 and grey:
            img = rgb_to_grey(img[..., :3]) * (255.0 if img.dtype == np.uint8 else 1.0)
        elif img.ndim == 3:
            img = img[..., :3]  # RGB; an alpha channel is dropped
        if shape is None:
            shape = img.shape[:2]
        elif img.shape[:2] != shape:
            raise ValueError(
                f"{f} is {img.shape[1]}x{img.shape[0]} but earlier images are {shape[1]}x{shape[0]}; "
                "resize all images to one size first."
            )
        X.append(np.asarray(img, dtype=np.float64))
        y.append(label)
        if progress is not None:
            progress(i + 1, len(files))
    notes = _folder_warnings(path, classes, files, nested, depths)
    if not X:
        raise ValueError(f"No images ({', '.join(sorted(_IMAGE_SUFFIXES))}) found under {path}.")
    if any(img.ndim == 3 for img in X):  # colour: grey images of the folder get three equal channels
        X = [np.stack([img] * 3, axis=-1) if img.ndim == 2 else img for img in X]  # skimage's gray2rgb
    shape = X[0].shape
    X = [img.ravel() for img in X]
    names = [c.name for c in classes]
    used = sorted(set(y))
    return Dataset(
        X=np.vstack(X), y=np.asarray(y), image_shape=shape, name=path.name,
        extra={"class_names": names, "warned": list(notes)}, class_names=[names[i] for i in used], notes=notes,
    )


def load(
    path: str | Path,
    *,
    split: Literal["all", "train", "test"] | None = None,
    sample_axis: Literal["first", "last"] | None = None,
    grey: bool = False,
    progress: Callable[[int, int], object] | None = None,
) -> Dataset:
    """Load ``.npz`` (keys X, y, optional image_shape), ``.mat``, ``.csv`` or an image folder.

    Parameters
    ----------
    path : str or Path
    split : {'all', 'train', 'test'} or None, default=None
        For an ``.npz`` holding ``X_train, y_train, X_test, y_test``: which part to return
        (None means ``'all'``: both parts, training first). Never applied silently: the
        choice is in ``Dataset.split`` and ``Dataset.notes``.
    sample_axis : {'first', 'last'} or None, default=None
        Where the samples are in ``X`` (``.npz``/``.mat``); None detects it when unambiguous
        (see the notes of the returned dataset) and raises otherwise.
    grey : bool, default=False
        An image folder: convert colour images to grey (a file with ``grey`` is an error). By default colour is kept
        (``image_shape`` ``(h, w, 3)``, features flattened in C order: the three channels of a
        pixel are adjacent), and the selectors then choose whole pixels.
    progress : callable or None, default=None
        An image folder: called as ``progress(done, total)`` after each image read (a
        progress hook; nothing is printed).

    Returns
    -------
    Dataset

    Raises
    ------
    FileNotFoundError
        No such file or folder.
    ValueError
        An unreadable or inconsistent file; the message says how to fix it.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"No such file or folder: {path}")
    if path.is_dir():
        if split not in (None, "all"):
            raise ValueError(f"--split {split} applies to an .npz with X_train/X_test arrays only; {path} is a "
                             "folder of images: drop --split (or split the folder into two).")
        return _load_folder(path, grey=grey, progress=progress)
    if grey:
        raise ValueError(f"--grey converts a folder of colour images as it is read; {path.name} is a file: drop "
                         "--grey, or store grey images in it (e.g. skimage.color.rgb2gray).")
    suffix = path.suffix.lower()
    if suffix == ".npz":
        return _load_npz(path, split=split, sample_axis=sample_axis)
    if split not in (None, "all"):
        raise ValueError(f"--split {split} applies to an .npz with X_train/X_test arrays only; drop it.")
    if suffix == ".mat":
        return _load_mat(path, sample_axis=sample_axis)
    if suffix in (".csv", ".txt"):
        try:
            return _load_csv(path)
        except UnicodeDecodeError:
            raise ValueError(f"{path} is not a text file; a CSV holds one sample per row as text.") from None
    raise ValueError(f"Unsupported data file {path.name}: use .npz, .mat, .csv or a folder of class subfolders.")


@dataclass
class TrainTest:
    """A labelled train/test pair: arrays, the image shape if known, and how the split was made."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    image_shape: tuple | None = None
    split: str = ""
    class_names: list | None = None

    def only_classes(self, classes: Sequence[Any]) -> TrainTest:
        """The samples of two (or more) of the classes, named as in ``class_names`` or as label values.

        Examples
        --------
        >>> import numpy as np
        >>> tt = TrainTest(np.zeros((6, 1)), np.array(list("abcabc")), np.zeros((3, 1)), np.array(list("abc")))
        >>> tt.only_classes(["a", "c"]).y_train.tolist()
        ['a', 'c', 'a', 'c']
        """
        names = self.class_names or [str(c) for c in np.unique(np.concatenate([self.y_train, self.y_test]))]
        values = np.unique(np.concatenate([self.y_train, self.y_test]))
        wanted = []
        for c in classes:
            c = str(c).strip()
            hit = [v for v, n in zip(values, names) if c == n or c == str(v)]
            if not hit:
                raise ValueError(f"--classes: no class named {c!r}; the classes are {', '.join(names)}.")
            wanted.append(hit[0])
        keep_a, keep_b = np.isin(self.y_train, wanted), np.isin(self.y_test, wanted)
        kept = [n for v, n in zip(values, names) if v in wanted]
        return TrainTest(self.X_train[keep_a], self.y_train[keep_a], self.X_test[keep_b], self.y_test[keep_b],
                         self.image_shape, self.split, kept)


def _load_npz_split(path: Path, sample_axis=None):
    z = _npz_arrays(path)
    if not {"X_train", "y_train", "X_test", "y_test"} <= set(z):
        return None
    shape = _image_shape(z["image_shape"]) if "image_shape" in z else None
    Xa, ya, shape = _orient(z["X_train"], z["y_train"], shape, sample_axis, f"{path} X_train", [])
    Xb, yb, shape = _orient(z["X_test"], z["y_test"], shape, sample_axis, f"{path} X_test", [])
    if Xa.shape[1] != Xb.shape[1]:
        raise ValueError(f"{path}: X_train has {Xa.shape[1]} features and X_test {Xb.shape[1]}; they must match.")
    ya, yb = _labels(ya, str(path)), _labels(yb, str(path))
    names = [str(c) for c in np.unique(np.concatenate([ya, yb]))]
    return TrainTest(Xa, ya, Xb, yb, shape, "X_test/y_test in DATA", names)


def load_train_test(
    path: str | Path | Dataset,
    test: Any = None,
    *,
    test_size: float = 0.5,
    random_state: int = 0,
    sample_axis: Literal["first", "last"] | None = None,
) -> TrainTest:
    """Labelled training and test data from one or two files (or a loaded :class:`Dataset`).

    The test part is, in this order: the file ``test`` (same formats as :func:`load`); the
    ``X_test``/``y_test`` arrays of an ``.npz`` that has ``X_train``, ``y_train``, ``X_test``
    and ``y_test``; or a stratified random split of ``path`` with ``test_size`` and
    ``random_state`` (scikit-learn's ``train_test_split``).

    Parameters
    ----------
    path : str, Path or Dataset
        The (training) data.
    test : str or Path, optional
        A separate test file.
    test_size : float, default=0.5
        Test fraction of the random split.
    random_state : int, default=0
        Seed of the random split.
    sample_axis : {'first', 'last'} or None
        As in :func:`load`.

    Returns
    -------
    TrainTest
        ``split`` says which of the three it was.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> f = os.path.join(tempfile.mkdtemp(), "d.npz")
    >>> np.savez(f, X=np.arange(40.0).reshape(20, 2), y=np.arange(20) % 2)
    >>> tt = load_train_test(f, test_size=0.25)
    >>> tt.X_train.shape, tt.X_test.shape, tt.split
    ((15, 2), (5, 2), 'stratified split, test_size=0.25, seed=0')
    """
    if isinstance(path, Dataset):
        train, path = path, path.name or "the data"
    else:
        path = Path(path)
        if test is None and path.suffix.lower() == ".npz" and path.is_file():
            pair = _load_npz_split(path, sample_axis)
            if pair is not None:
                return pair
        train = load(path, sample_axis=sample_axis)
    if train.y is None:
        raise ValueError(f"{path} has no labels (y); a train/test pair needs labelled samples (y).")
    if test is not None:
        held = load(test, sample_axis=sample_axis)
        if held.y is None:
            raise ValueError(f"{test} has no labels (y).")
        if held.X.shape[1] != train.X.shape[1]:
            raise ValueError(f"{test} has {held.X.shape[1]} features and {path} {train.X.shape[1]}; they must match.")
        names = [str(c) for c in np.unique(np.concatenate([train.y, held.y]))]
        if train.class_names and len(train.class_names) == len(names):
            names = train.class_names
        return TrainTest(train.X, train.y, held.X, held.y, train.image_shape, f"--test {test}", names)
    values, counts = np.unique(train.y, return_counts=True)
    if (counts < 2).any():
        lone = [str(v) for v in values[counts < 2]]
        raise ValueError(
            f"{path}: {len(lone)} class(es) hold one sample ({', '.join(lone[:5])}{', ...' if len(lone) > 5 else ''}), "
            "too few for a stratified train/test split: give at least 2 samples per class, or the test part "
            "as a file of its own (test=FILE; --test FILE in pixsel evaluate).")
    from sklearn.model_selection import train_test_split

    Xa, Xb, ya, yb = train_test_split(train.X, train.y, test_size=test_size, random_state=random_state,
                                      stratify=train.y)
    return TrainTest(Xa, ya, Xb, yb, train.image_shape,
                     f"stratified split, test_size={test_size}, seed={random_state}", train.class_names)
