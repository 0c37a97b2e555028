"""Data loaders. Each returns a :class:`Dataset` (``X`` 2-D, ``y`` 1-D or None, ``image_shape``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["Dataset", "TrainTest", "data_dir", "shared_path", "load_shared", "load", "load_train_test", "load_digits_pair"]

_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".pgm", ".tif", ".tiff", ".gif"}


@dataclass
class Dataset:
    """Samples ``X`` (n_samples, n_features), labels ``y`` (or None) and the image shape if known."""

    X: np.ndarray
    y: np.ndarray | None = None
    image_shape: tuple | None = None
    name: str = ""
    extra: dict = field(default_factory=dict, repr=False)


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


def _load_npz(path: Path) -> Dataset:
    with np.load(path, allow_pickle=False) as z:
        files = set(z.files)
        if "X" in files:
            X = z["X"]
            y = z["y"] if "y" in files else None
        elif {"X_train", "y_train"} <= files:
            X, y = z["X_train"], z["y_train"]
        else:
            raise ValueError(
                f"{path} has arrays {sorted(files)}; pixsel expects 'X' (n_samples, n_features), "
                "optionally 'y' (labels) and 'image_shape'."
            )
        shape = _image_shape(z["image_shape"]) if "image_shape" in files else None
    return Dataset(X=X.reshape(len(X), -1), y=y, image_shape=shape, name=path.stem)


def _load_mat(path: Path) -> Dataset:
    from scipy.io import loadmat

    m = {k: v for k, v in loadmat(path).items() if not k.startswith("__")}
    xkey = next((k for k in ("X", "x", "data", "fea") if k in m), None)
    if xkey is None:
        raise ValueError(f"{path} has variables {sorted(m)}; pixsel expects one named X (or fea).")
    ykey = next((k for k in ("y", "Y", "labels", "gnd") if k in m), None)
    X = np.asarray(m[xkey])
    y = None if ykey is None else np.asarray(m[ykey]).ravel()
    shape = _image_shape(m["image_shape"]) if "image_shape" in m else None
    return Dataset(X=X.reshape(len(X), -1), y=y, image_shape=shape, name=path.stem)


def _load_csv(path: Path) -> Dataset:
    """CSV: one sample per row; the last column is the label unless the header names 'y'/'label'."""
    with open(path) as fh:
        first = fh.readline()
    delim = "," if "," in first else None
    cells = first.strip().split(delim)
    try:
        [float(c) for c in cells]
        header = None
    except ValueError:
        header = [c.strip() for c in cells]
    data = np.loadtxt(path, delimiter=delim, skiprows=1 if header else 0, ndmin=2)
    col = data.shape[1] - 1
    if header and any(h.lower() in ("y", "label", "class", "target") for h in header):
        col = next(i for i, h in enumerate(header) if h.lower() in ("y", "label", "class", "target"))
    y = data[:, col]
    X = np.delete(data, col, axis=1)
    if np.all(y == np.round(y)):
        y = y.astype(np.int64)
    return Dataset(X=X, y=y, image_shape=None, name=path.stem)


def _load_folder(path: Path) -> Dataset:
    """An image folder with one subfolder per class; images converted to grayscale, same size."""
    from skimage.io import imread
    from skimage.color import rgb2gray

    classes = sorted(p for p in path.iterdir() if p.is_dir())
    if not classes:
        raise ValueError(f"{path} has no subfolders; put the images of each class in its own subfolder.")
    X, y, shape = [], [], None
    for label, sub in enumerate(classes):
        for f in sorted(sub.iterdir()):
            if f.suffix.lower() not in _IMAGE_SUFFIXES:
                continue
            img = imread(f)
            if img.ndim == 3:
                img = rgb2gray(img[..., :3]) * (255.0 if img.dtype == np.uint8 else 1.0)
            if shape is None:
                shape = img.shape
            elif img.shape != shape:
                raise ValueError(
                    f"{f} is {img.shape[1]}x{img.shape[0]} but earlier images are {shape[1]}x{shape[0]}; "
                    "resize all images to one size first."
                )
            X.append(np.asarray(img, dtype=np.float64).ravel())
            y.append(label)
    if not X:
        raise ValueError(f"No images ({', '.join(sorted(_IMAGE_SUFFIXES))}) found under {path}.")
    return Dataset(
        X=np.vstack(X), y=np.asarray(y), image_shape=shape, name=path.name,
        extra={"class_names": [c.name for c in classes]},
    )


def load(path) -> Dataset:
    """Load ``.npz`` (keys X, y, optional image_shape), ``.mat``, ``.csv`` or an image folder."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"No such file or folder: {path}")
    if path.is_dir():
        return _load_folder(path)
    suffix = path.suffix.lower()
    if suffix == ".npz":
        return _load_npz(path)
    if suffix == ".mat":
        return _load_mat(path)
    if suffix in (".csv", ".txt"):
        return _load_csv(path)
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


def _load_npz_split(path: Path):
    with np.load(path, allow_pickle=False) as z:
        if not {"X_train", "y_train", "X_test", "y_test"} <= set(z.files):
            return None
        shape = _image_shape(z["image_shape"]) if "image_shape" in z.files else None
        Xa, Xb = z["X_train"], z["X_test"]
        return TrainTest(Xa.reshape(len(Xa), -1), z["y_train"], Xb.reshape(len(Xb), -1), z["y_test"],
                         shape, "X_test/y_test in DATA")


def load_train_test(path, test=None, *, test_size=0.5, random_state=0) -> TrainTest:
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
            pair = _load_npz_split(path)
            if pair is not None:
                return pair
        train = load(path)
    if train.y is None:
        raise ValueError(f"{path} has no labels (y); a train/test pair needs labelled samples (y).")
    if test is not None:
        held = load(test)
        if held.y is None:
            raise ValueError(f"{test} has no labels (y).")
        return TrainTest(train.X, train.y, held.X, held.y, train.image_shape, f"--test {test}")
    from sklearn.model_selection import train_test_split

    Xa, Xb, ya, yb = train_test_split(train.X, train.y, test_size=test_size, random_state=random_state,
                                      stratify=train.y)
    return TrainTest(Xa, ya, Xb, yb, train.image_shape,
                     f"stratified split, test_size={test_size}, seed={random_state}")
