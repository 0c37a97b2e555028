"""Readers for the stores large image sets live in: Zarr (v3), HDF5 and folders of image files.

Each reader returns a :class:`~pixsel.datasets.Dataset` whose ``X`` is a **row-chunked Dask
array** of shape ``(n_images, n_features)`` (images flattened in C order, ``image_shape`` says how
to fold them back), ``y`` the labels as a small NumPy array (or None). Nothing but metadata and the
labels is read on the client: the pixels are read chunk by chunk by whoever computes, a thread of
this process or a worker of a ``dask.distributed`` cluster, so every task description is small
and picklable (a path and a slice, never an open file handle).

Row chunks
    pixsel's statistics visit a block of rows at a time and keep a float64 working copy of it, so
    the default rows per chunk make that copy about :data:`CHUNK_BYTES` (``rows = CHUNK_BYTES /
    (8 n_features)``), rounded to whole chunks of the store. A store chunked across its columns
    (or across the pixels of each image) is still read by whole rows, each task gathering the
    column chunks of its rows; this is correct but reads many small pieces, so the readers warn
    and say how to rewrite the store.

Optional dependencies: ``zarr`` for Zarr, ``h5py`` for HDF5 (``pip install pixsel[cluster]``);
image files are read with ``imageio`` (a dependency of scikit-image).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np

from ._loaders import _IMAGE_SUFFIXES, Dataset

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from os import PathLike
    from typing import Any, Literal

    from numpy.typing import ArrayLike

__all__ = ["CHUNK_BYTES", "open_store", "open_zarr", "open_hdf5", "open_image_folder", "write_zarr"]

#: float64 bytes of one row chunk's working copy (the default chunk is this / (8 n_features) rows).
CHUNK_BYTES = 128 * 2**20

_HDF5_SUFFIXES = {".h5", ".hdf5", ".hdf", ".he5"}


# ---------------------------------------------------------------------------------------------
# shared pieces


def _need(module, extra="cluster", package=None):
    import importlib

    from .._optional import MissingExtraError

    try:
        return importlib.import_module(module)
    except ImportError:
        package = package or module
        # MissingExtraError (an ImportError): the command line says it in one line, exit status 2
        raise MissingExtraError(
            f"Reading or writing this store needs the optional package {package!r}. Install it with "
            f"`pip install 'pixsel[{extra}]'` (or `pip install '{package}'`)."
        ) from None


def _default_rows(n_rows, n_features, store_rows, chunk_rows):
    """Rows per Dask chunk: ``chunk_rows`` if given, else ~CHUNK_BYTES of float64, whole store chunks."""
    if chunk_rows is not None:
        from .._validation import check_int

        return check_int(chunk_rows, "chunk_rows", low=1)
    rows = max(1, CHUNK_BYTES // (8 * max(n_features, 1)))
    store_rows = max(1, int(store_rows or 1))
    rows = max(store_rows, (rows // store_rows) * store_rows)
    return min(rows, max(n_rows, 1))


def _warn_column_chunks(where, store_chunks, shape):
    """Warn when the store splits an image (a row of X) across several chunks."""
    if store_chunks is None or all(c >= s for c, s in zip(store_chunks[1:], shape[1:])):
        return
    pieces = math.prod(math.ceil(s / c) for c, s in zip(store_chunks[1:], shape[1:]))
    rows = store_chunks[0]
    good = (rows,) + tuple(shape[1:])
    warnings.warn(
        f"{where} is chunked across its columns (store chunks {tuple(store_chunks)} for data of shape "
        f"{tuple(shape)}): pixsel reads it by whole rows, so every row block gathers {pieces} store "
        f"chunks. The results are the same, but reading is slower; rewrite the store with chunks "
        f"{good} (whole images per chunk) to read each block in one piece.",
        UserWarning,
        stacklevel=3,
    )


def _image_shape_of(shape, attrs_shape, n_features):
    """The image shape: the trailing dimensions of a >= 3-D array, else a stored attribute."""
    if len(shape) >= 3:
        return tuple(int(s) for s in shape[1:])
    if attrs_shape is not None:
        ish = tuple(int(v) for v in np.asarray(attrs_shape).ravel())
        if ish and math.prod(ish) == n_features:
            return ish
        raise ValueError(
            f"The store's 'image_shape' attribute {ish} does not match its {n_features} features per "
            "row; fix the attribute (its product must be the number of columns) or remove it."
        )
    return None


def _as_rows(arr, n_features):
    """A Dask array of images (n, ...) as rows (n, n_features), without moving data."""
    if arr.ndim == 1:
        raise ValueError(
            f"The data array is 1-D (shape {arr.shape}); pixsel needs one row per sample: "
            "store it as (n_samples, n_features) or (n_images, height, width[, channels])."
        )
    if arr.ndim == 2:
        return arr
    return arr.reshape(arr.shape[0], n_features)  # trailing chunks are whole: a blockwise reshape


def _check_labels(y, n, where):
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n:
        raise ValueError(
            f"The labels {where} have shape {y.shape} but the data has {n} rows; store one label per "
            "row (a 1-D array of length n_samples) or pass labels=None."
        )
    return y


def _choose_data(data, names, ndim_of, where, kind, listed, shape_hint):
    """The name of the data ``kind`` ('array', 'dataset') among ``names``: ``data``, else ``'X'``,
    else the only one with 2 or more dimensions; a clear error when there is none or several."""
    if data is None:
        candidates = ["X"] if "X" in names else [n for n in names if ndim_of(n) >= 2]
        if len(candidates) != 1:
            raise ValueError(
                f"{where} holds the {kind}s {listed}; say which is the data with data='NAME' ({shape_hint})."
            )
        data = candidates[0]
    if data not in names:
        raise ValueError(f"{where} has no {kind} {data!r}; it holds {listed}.")
    return data


#: where ``labels='y'`` (the default) names none of a store's arrays, the labels are looked for under
#: these names, in this order (those of a MATLAB file, and scikit-learn's ``target``)
_LABEL_NAMES = ("y", "Y", "labels", "label", "gnd", "target", "class")


def _label_name(labels, names):
    """The name the labels are read from: ``labels`` when the store holds it; for the default
    ``'y'``, else the first of :data:`_LABEL_NAMES` it holds; None when there is none."""
    if labels is None or labels in names:
        return labels
    return next((n for n in _LABEL_NAMES if n in names), None) if labels == "y" else None


def _open(path, exists, opener, what, article, fix):
    """``(Path(path), opener(str(path)))``; a path that fails ``exists`` or a store ``opener`` cannot
    read is refused with a message that names ``what`` it should be and how to ``fix`` it."""
    path = Path(path)
    if not exists(path):
        raise FileNotFoundError(f"{what} {str(path)!r} does not exist; check the path.")
    try:
        return path, opener(str(path))
    except Exception as exc:
        raise ValueError(
            f"Cannot read {str(path)!r} as {article} {what} ({type(exc).__name__}: {exc}). {fix}"
        ) from None


def _row_layout(shape, attrs_shape, store_chunks, store_rows, chunk_rows, where):
    """``(n, n_features, image_shape, rows)`` of a stored array of ``shape`` (rows: Dask chunk rows)."""
    n = int(shape[0])
    n_features = math.prod(shape[1:]) if len(shape) > 1 else 1
    image_shape = _image_shape_of(shape, attrs_shape, n_features)
    _warn_column_chunks(where, store_chunks, shape)
    return n, n_features, image_shape, _default_rows(n, n_features, store_rows, chunk_rows)


def _store_dataset(X, y, n, n_features, image_shape, labels, path, fmt, array):
    """The :class:`Dataset` of a store: ``X`` as rows, the labels checked against its rows."""
    X = _as_rows(X, n_features)
    if y is not None:
        y = _check_labels(y, n, f"{labels!r} of {str(path)!r}")
    return Dataset(
        X=X, y=y, image_shape=image_shape, name=path.stem,
        extra={"store": str(path), "format": fmt, "array": array, "labels": labels if y is not None else None},
    )


# ---------------------------------------------------------------------------------------------
# Zarr


def open_zarr(
    path: str | Path,
    *,
    data: Any = None,
    labels: str | None = "y",
    chunk_rows: Any = None,
) -> Dataset:
    """Open a Zarr (v3) array or group as a row-chunked Dask array, without reading the pixels.

    Parameters
    ----------
    path : str or Path
        A Zarr store: a group holding the data (and the labels) or a single array.
    data : str, optional
        Name of the data array in a group: ``(n_samples, n_features)`` or ``(n_images, height,
        width[, channels])``. Default: ``'X'``, or the group's only array with 2 or more dimensions.
    labels : str or None, default='y'
        Name of the labels array in the group, read into memory; ignored (``y`` is None) when the
        group has no such array or ``labels=None``. With ``'y'`` and no array of that name, the
        first array named ``Y``, ``labels``, ``label``, ``gnd``, ``target`` or ``class``
        (``extra['labels']`` says which).
    chunk_rows : int, optional
        Rows per Dask chunk (default: about :data:`CHUNK_BYTES` of float64, whole store chunks).

    Returns
    -------
    Dataset
        ``X`` a Dask array ``(n_samples, n_features)`` chunked by rows, ``y`` a NumPy array or None,
        ``image_shape`` from a >= 3-D array or an ``image_shape`` attribute.

    Examples
    --------
    >>> import numpy as np, zarr
    >>> path = getfixture("tmp_path") / "faces.zarr"  # any folder name
    >>> g = zarr.open_group(path, mode="w")
    >>> g.create_array("X", shape=(6, 4, 5), chunks=(2, 4, 5), dtype="u1")[:] = 7
    >>> g.create_array("y", shape=(6,), dtype="i8")[:] = [0, 1, 0, 1, 0, 1]
    >>> ds = open_zarr(path)
    >>> ds.X.shape, ds.X.chunks[0], ds.image_shape, ds.y.tolist()
    ((6, 20), (6,), (4, 5), [0, 1, 0, 1, 0, 1])
    """
    zarr = _need("zarr")
    da = _need("dask.array", package="dask[array]")

    path, node = _open(path, Path.exists, lambda p: zarr.open(p, mode="r"), "Zarr store", "a",
                       "Point to the folder that holds zarr.json (or .zarray / .zgroup for Zarr v2).")
    group_attrs = {}
    y = None
    if isinstance(node, zarr.Array):
        arr, component = node, None
    else:
        group_attrs = dict(node.attrs)
        names = sorted(node.array_keys())
        data = _choose_data(data, names, lambda n: node[n].ndim, f"Zarr group {str(path)!r}", "array", names,
                            "an array of shape (n_samples, n_features) or (n_images, h, w)")
        arr, component = node[data], data
        labels = _label_name(labels, names)
        if labels is not None:
            y = np.asarray(node[labels][...])
    attrs_shape = dict(arr.attrs).get("image_shape", group_attrs.get("image_shape"))
    n, n_features, image_shape, rows = _row_layout(
        arr.shape, attrs_shape, arr.chunks, arr.chunks[0], chunk_rows, f"Zarr array {str(path / (component or ''))!r}"
    )
    X = da.from_zarr(str(path), component=component, chunks=(rows,) + tuple(arr.shape[1:]))
    return _store_dataset(X, y, n, n_features, image_shape, labels, path, "zarr", component)


def write_zarr(
    path: str | Path,
    X: ArrayLike,
    y: ArrayLike | None = None,
    *,
    image_shape: Any = None,
    chunk_rows: Any = None,
    overwrite: bool = False,
) -> Path:
    """Write ``X`` (NumPy or Dask, computed chunk by chunk) and ``y`` as a Zarr (v3) group, atomically.

    The group is written into a hidden folder beside ``path`` and renamed onto ``path`` only once
    every chunk is on disk, so a computation that fails half way (a worker that dies for good, a
    NaN check that raises) leaves no partial store behind. :func:`open_zarr` reads it back.

    Parameters
    ----------
    path : str or Path
        The store to create (a folder, by convention ending in ``.zarr``).
    X : ndarray or dask array of shape (n_samples, n_features)
        A Dask array is written by whoever computes it (the workers of a cluster), chunk by chunk.
    y : array-like of shape (n_samples,), optional
        Labels, stored as the array ``'y'``.
    image_shape : tuple of int, optional
        Stored as the attribute ``image_shape``.
    chunk_rows : int, optional
        Rows per store chunk (default: the Dask chunks of ``X``, or about :data:`CHUNK_BYTES` of
        float64 for a NumPy array). Each chunk holds whole rows.
    overwrite : bool, default=False
        Replace an existing store at ``path`` (otherwise that is an error).

    Returns
    -------
    Path
    """
    zarr = _need("zarr")
    import os
    import shutil
    import tempfile

    da = _need("dask.array", package="dask[array]")

    from .._validation import is_dask_array

    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{str(path)!r} already exists; pass overwrite=True to replace it.")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got {X.ndim} dimension(s).")
    n, p = (int(s) for s in X.shape)
    if not is_dask_array(X):
        X = np.asarray(X)
        rows = _default_rows(n, p, 1, chunk_rows)
        X = da.from_array(X, chunks=(rows, p))
    elif chunk_rows is not None:
        X = X.rechunk((_default_rows(n, p, 1, chunk_rows), p))
    else:
        X = X.rechunk({1: -1})
    if len(set(X.chunks[0][:-1])) > 1:  # Zarr chunks are regular: even out irregular Dask chunks
        X = X.rechunk((X.chunks[0][0], p))
    if y is not None:
        y = _check_labels(y, n, "y")
    if image_shape is not None and math.prod(image_shape) != p:
        raise ValueError(f"image_shape {tuple(image_shape)} does not match the {p} columns of X.")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent))
    try:
        g = zarr.open_group(str(tmp), mode="w")
        g.create_array("X", shape=(n, p), chunks=(X.chunks[0][0], p), dtype=X.dtype)
        if y is not None:
            g.create_array("y", shape=y.shape, dtype=y.dtype)[:] = y
        if image_shape is not None:
            g.attrs["image_shape"] = [int(s) for s in image_shape]
        da.to_zarr(X, str(tmp), component="X", overwrite=True)
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old", dir=path.parent))
            os.replace(path, old / path.name)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


# ---------------------------------------------------------------------------------------------
# HDF5


class _HDF5Rows:
    """A picklable, lazily opened view of an HDF5 dataset (``da.from_array`` reads slices of it).

    An open ``h5py.Dataset`` cannot be sent to another process; this holds the file name and the
    dataset name and opens the file for each read, so tasks run on any worker that sees the file.
    """

    def __init__(self, filename, name, shape, dtype):
        self.filename = str(filename)
        self.name = name
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.ndim = len(self.shape)

    def __getitem__(self, key):
        import h5py

        with h5py.File(self.filename, "r") as f:
            return f[self.name][key]


def open_hdf5(
    path: str | Path,
    *,
    data: Any = None,
    labels: str | None = "y",
    chunk_rows: Any = None,
) -> Dataset:
    """Open a dataset of an HDF5 file as a row-chunked Dask array, without reading the pixels.

    Parameters
    ----------
    path : str or Path
        An HDF5 file (``.h5``, ``.hdf5``).
    data : str, optional
        Name of the data dataset: ``(n_samples, n_features)`` or ``(n_images, height, width[,
        channels])``. Default: ``'X'``, or the file's only dataset with 2 or more dimensions.
    labels : str or None, default='y'
        Name of the labels dataset, read into memory; ``y`` is None when there is none. With
        ``'y'`` and no dataset of that name, the first named ``Y``, ``labels``, ``label``,
        ``gnd``, ``target`` or ``class`` (``extra['labels']`` says which).
    chunk_rows : int, optional
        Rows per Dask chunk (default: about :data:`CHUNK_BYTES` of float64, whole HDF5 chunks).

    Returns
    -------
    Dataset

    Examples
    --------
    >>> import numpy as np, h5py
    >>> path = getfixture("tmp_path") / "digits.h5"  # any file name
    >>> with h5py.File(path, "w") as f:
    ...     _ = f.create_dataset("X", data=np.zeros((10, 8, 8), np.uint8), chunks=(5, 8, 8))
    ...     _ = f.create_dataset("y", data=np.arange(10) % 2)
    >>> ds = open_hdf5(path)
    >>> ds.X.shape, ds.X.chunks[0], ds.image_shape
    ((10, 64), (10,), (8, 8))
    """
    h5py = _need("h5py")
    da = _need("dask.array", package="dask[array]")

    path, f = _open(path, Path.is_file, lambda p: h5py.File(p, "r"), "HDF5 file", "an",
                    "Check that it is a complete HDF5 file (h5py.is_hdf5(path) should be True).")
    with f:
        names = []
        f.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset) else None)
        data = _choose_data(data, names, lambda n: f[n].ndim, f"HDF5 file {str(path)!r}", "dataset", sorted(names),
                            "shape (n_samples, n_features) or (n_images, h, w)")
        dset = f[data]
        shape, dtype, store_chunks = dset.shape, dset.dtype, dset.chunks
        attrs_shape = dset.attrs.get("image_shape", f.attrs.get("image_shape"))
        labels = _label_name(labels, names)
        y = np.asarray(f[labels][...]) if labels is not None else None
    if dtype.kind not in "uifb":
        raise TypeError(f"HDF5 dataset {data!r} of {str(path)!r} must hold numbers; got dtype {dtype}.")
    n, n_features, image_shape, rows = _row_layout(
        shape, attrs_shape, store_chunks, store_chunks[0] if store_chunks else 1, chunk_rows,
        f"HDF5 dataset {data!r} of {str(path)!r}",
    )
    X = da.from_array(
        _HDF5Rows(path.resolve(), data, shape, dtype),
        chunks=(rows,) + tuple(shape[1:]),
        name=f"pixsel-hdf5-{path.resolve()}-{data}-{rows}",
        asarray=True,
        lock=False,
        meta=np.empty((0,) * len(shape), dtype=dtype),
    )
    return _store_dataset(X, y, n, n_features, image_shape, labels, path, "hdf5", data)


# ---------------------------------------------------------------------------------------------
# folders of image files


def _header(path):
    """(height, width[, bands]) and mode of an image file from its header (no pixel decoding)."""
    from PIL import Image

    with Image.open(path) as im:
        w, h = im.size
        bands = len(im.getbands())
        return ((h, w) if bands == 1 else (h, w, bands)), im.mode


def _read_image(path):
    """Decode one image file (the file is closed even when decoding fails)."""
    import imageio.v3 as iio

    path = Path(path)
    data = path.read_bytes()
    return np.asarray(iio.imread(data, extension=path.suffix.lower()))


def _mixed_sizes(a, sa, b, sb, folder):
    return ValueError(
        f"The images of {str(folder)!r} do not all have the same size: {a.name!r} is "
        f"{_fmt(sa)} but {b.name!r} is {_fmt(sb)}. pixsel needs one size (one feature per pixel); "
        "resize or crop them to a common size first (for example with skimage.transform.resize)."
    )


def _fmt(shape):
    return " x ".join(str(s) for s in shape)


class _ImageFiles:
    """A picklable stack of equally sized image files; ``da.from_array`` reads slices of it."""

    def __init__(self, files, shape, dtype, folder):
        self.files = [str(f) for f in files]
        self.shape = (len(self.files),) + tuple(shape)
        self.dtype = np.dtype(dtype)
        self.ndim = len(self.shape)
        self.folder = str(folder)

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        rows = range(len(self.files))[key[0]]
        out = np.empty((len(rows),) + self.shape[1:], dtype=self.dtype)
        for j, i in enumerate(rows):
            img = _read_image(self.files[i])
            if img.shape != self.shape[1:]:
                raise _mixed_sizes(Path(self.files[0]), self.shape[1:], Path(self.files[i]), img.shape, self.folder)
            out[j] = img
        return out[(slice(None),) + tuple(key[1:])]


def open_image_folder(
    path: str | Path,
    *,
    labels: Literal["folders"] | None = "folders",
    chunk_rows: Any = None,
    check_sizes: bool = True,
) -> Dataset:
    """Open a folder of image files as a row-chunked Dask array; the files are read by the tasks.

    Parameters
    ----------
    path : str or Path
        A folder of images (PNG, JPEG, BMP, PGM, TIFF, GIF), or a folder of class subfolders of
        images (``faces/female/*.png``, ``faces/male/*.png``). Files are taken in sorted order.
    labels : {'folders', None}, default='folders'
        ``'folders'``: with class subfolders, ``y`` is each image's subfolder name; a flat folder
        has ``y`` None. ``None``: ignore subfolders' names (they are still read).
    chunk_rows : int, optional
        Images per Dask chunk (default: about :data:`CHUNK_BYTES` of float64).
    check_sizes : bool, default=True
        Read every file's header (not its pixels) on the client and raise if two sizes differ.
        With False only the first file is opened here, and a task meeting an image of another
        size raises the same error when it runs.

    Returns
    -------
    Dataset
        ``image_shape`` is ``(height, width)`` or ``(height, width, channels)``;
        ``extra['files']`` lists the files in row order.

    Examples
    --------
    >>> import numpy as np, imageio.v3 as iio, os
    >>> root = getfixture("tmp_path")  # any folder
    >>> for cls in ("a", "b"):
    ...     os.mkdir(os.path.join(root, cls))
    ...     for i in range(3):
    ...         iio.imwrite(os.path.join(root, cls, f"{i}.png"), np.full((4, 6), i, np.uint8))
    >>> ds = open_image_folder(root)
    >>> ds.X.shape, ds.image_shape, ds.y.tolist()
    ((6, 24), (4, 6), ['a', 'a', 'a', 'b', 'b', 'b'])
    """
    da = _need("dask.array", package="dask[array]")

    from .._validation import check_options

    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"Image folder {str(folder)!r} does not exist or is not a folder; check the path.")
    if labels is not None:
        check_options(labels, "labels", ("folders",), owner="open_image_folder")

    def images_in(d):
        return sorted(p for p in d.iterdir() if p.is_file() and p.suffix.lower() in _IMAGE_SUFFIXES)

    top = images_in(folder)
    subdirs = sorted(d for d in folder.iterdir() if d.is_dir() and images_in(d))
    if top and subdirs:
        raise ValueError(
            f"{str(folder)!r} holds images both at its top ({top[0].name!r}, ...) and in subfolders "
            f"({subdirs[0].name!r}, ...); put every image in a class subfolder, or point to one folder."
        )
    if subdirs:
        groups = [(d.name, images_in(d)) for d in subdirs]
        files = [f for _, fs in groups for f in fs]
        y = np.array([name for name, fs in groups for _ in fs]) if labels == "folders" else None
    else:
        files, y = top, None
    if not files:
        suffixes = ", ".join(sorted(_IMAGE_SUFFIXES))
        raise ValueError(f"No image files ({suffixes}) in {str(folder)!r} or its subfolders.")
    try:
        first = _read_image(files[0])
    except Exception as exc:
        raise ValueError(f"Cannot read the image {str(files[0])!r} ({type(exc).__name__}: {exc}).") from None
    if check_sizes and len(files) > 1:
        try:
            ref, _ = _header(files[0])
        except Exception:
            ref = None
        if ref is not None and ref == first.shape:  # headers agree with the decoder: compare them
            for f in files[1:]:
                try:
                    s, _ = _header(f)
                except Exception as exc:
                    raise ValueError(f"Cannot read the image {str(f)!r} ({type(exc).__name__}: {exc}).") from None
                if s != ref:
                    raise _mixed_sizes(files[0], ref, f, s, folder)
    n_features = int(first.size)
    if first.dtype.kind not in "uifb":
        raise TypeError(f"The image {str(files[0])!r} does not hold numbers (dtype {first.dtype}).")
    rows = _default_rows(len(files), n_features, 1, chunk_rows)
    stack = _ImageFiles(files, first.shape, first.dtype, folder.resolve())
    X = da.from_array(
        stack,
        chunks=(rows,) + first.shape,
        name=f"pixsel-images-{folder.resolve()}-{len(files)}-{rows}",
        asarray=True,
        lock=False,
        meta=np.empty((0,) * stack.ndim, dtype=first.dtype),
    )
    X = _as_rows(X, n_features)
    return Dataset(
        X=X,
        y=y,
        image_shape=tuple(int(s) for s in first.shape),
        name=folder.name,
        extra={"store": str(folder), "format": "images", "files": [str(f) for f in files]},
    )


# ---------------------------------------------------------------------------------------------


def open_store(path: str | PathLike[str], **options: Any) -> Dataset:
    """Open a Zarr store, an HDF5 file or a folder of images (chosen from what ``path`` is).

    A folder with ``zarr.json`` (``.zarray``/``.zgroup``) or a name ending in ``.zarr`` is read by
    :func:`open_zarr`; an HDF5 file by :func:`open_hdf5`; any other folder by
    :func:`open_image_folder`. ``options`` go to that reader.

    Returns
    -------
    Dataset
        ``X`` a row-chunked Dask array; see the readers.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"Store {str(path)!r} does not exist; pass a Zarr store (a folder), an HDF5 file or a "
            "folder of image files."
        )
    if path.is_dir():
        if path.suffix == ".zarr" or any((path / m).exists() for m in ("zarr.json", ".zarray", ".zgroup")):
            return open_zarr(path, **options)
        return open_image_folder(path, **options)
    if path.suffix.lower() in _HDF5_SUFFIXES:
        return open_hdf5(path, **options)
    with open(path, "rb") as fh:
        magic = fh.read(8)
    if magic == b"\x89HDF\r\n\x1a\n":
        return open_hdf5(path, **options)
    raise ValueError(
        f"{str(path)!r} is neither a Zarr store, an HDF5 file nor a folder of images; for an .npz, "
        ".mat or CSV file use pixsel.datasets.load."
    )
