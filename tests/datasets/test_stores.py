"""Store readers: Zarr, HDF5 and image folders become row-chunked Dask arrays equal to the data."""

import pickle
import warnings

import dask.array as da
import numpy as np
import pytest

from pixsel.datasets import open_hdf5, open_image_folder, open_store, open_zarr
from pixsel.datasets import _stores


def _images(n=23, shape=(6, 5), seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (n,) + shape, dtype=np.uint8), rng.integers(0, 3, n)


def _zarr_store(path, X, y=None, chunks=None, **attrs):
    zarr = pytest.importorskip("zarr")
    g = zarr.open_group(str(path), mode="w")
    a = g.create_array("X", shape=X.shape, chunks=chunks or (4,) + X.shape[1:], dtype=X.dtype)
    a[:] = X
    if y is not None:
        g.create_array("y", shape=y.shape, dtype=y.dtype)[:] = y
    g.attrs.update(attrs)
    return path


def _assert_row_chunked(X, n_features):
    assert isinstance(X, da.Array)
    assert X.ndim == 2 and X.shape[1] == n_features
    assert len(X.chunks[1]) == 1  # whole rows per chunk


# --------------------------------------------------------------------------------------- Zarr


def test_zarr_images_round_trip_with_labels(tmp_path):
    X, y = _images()
    ds = open_zarr(_zarr_store(tmp_path / "s.zarr", X, y))
    _assert_row_chunked(ds.X, 30)
    assert ds.image_shape == (6, 5)
    assert ds.X.dtype == np.uint8
    assert np.array_equal(ds.X.compute(), X.reshape(len(X), -1))
    assert np.array_equal(ds.y, y)
    assert ds.extra["format"] == "zarr"


def test_zarr_chunk_rows_and_default_whole_store_chunks(tmp_path, monkeypatch):
    X, y = _images(n=40)
    path = _zarr_store(tmp_path / "s.zarr", X, y, chunks=(4, 6, 5))
    assert open_zarr(path, chunk_rows=7).X.chunks[0] == (7,) * 5 + (5,)
    # default: about CHUNK_BYTES of float64 per chunk, a whole number of store chunks (4 rows)
    monkeypatch.setattr(_stores, "CHUNK_BYTES", 8 * 30 * 10)  # 10 rows of float64 -> 8 rows
    got = open_zarr(path).X
    assert got.chunks[0] == (8,) * 5
    assert np.array_equal(got.compute(), X.reshape(40, -1))


def test_zarr_2d_array_with_image_shape_attribute_and_bare_array(tmp_path):
    zarr = pytest.importorskip("zarr")
    X = np.arange(60, dtype=np.float32).reshape(5, 12)
    path = _zarr_store(tmp_path / "g.zarr", X, chunks=(2, 12), image_shape=[3, 4])
    ds = open_zarr(path)
    assert ds.image_shape == (3, 4) and ds.y is None
    assert np.array_equal(ds.X.compute(), X)
    bare = zarr.create_array(str(tmp_path / "a.zarr"), shape=X.shape, chunks=(2, 12), dtype=X.dtype)
    bare[:] = X
    ds = open_store(tmp_path / "a.zarr")
    assert ds.image_shape is None and np.array_equal(ds.X.compute(), X)


def test_zarr_column_chunked_store_warns_and_reads_whole_rows(tmp_path):
    X, y = _images(n=12, shape=(8, 8))
    path = _zarr_store(tmp_path / "c.zarr", X, y, chunks=(4, 8, 2))
    with pytest.warns(UserWarning, match=r"chunked across its columns.*gathers 4 store chunks.*\(4, 8, 8\)"):
        ds = open_zarr(path)
    _assert_row_chunked(ds.X, 64)
    assert np.array_equal(ds.X.compute(), X.reshape(12, -1))


def test_zarr_bad_input(tmp_path):
    pytest.importorskip("zarr")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        open_zarr(tmp_path / "missing.zarr")
    (tmp_path / "empty.zarr").mkdir()
    with pytest.raises(ValueError, match="Cannot read .* as a Zarr store"):
        open_zarr(tmp_path / "empty.zarr")
    X, y = _images(n=6)
    path = _zarr_store(tmp_path / "s.zarr", X, y)
    with pytest.raises(ValueError, match=r"has no array 'pixels'; it holds \['X', 'y'\]"):
        open_zarr(path, data="pixels")
    path = _zarr_store(tmp_path / "b.zarr", X.reshape(6, -1), y[:5])
    with pytest.raises(ValueError, match="labels 'y' .* have shape \\(5,\\) but the data has 6 rows"):
        open_zarr(path)
    path = _zarr_store(tmp_path / "i.zarr", X.reshape(6, -1), image_shape=[4, 4])
    with pytest.raises(ValueError, match="'image_shape' attribute \\(4, 4\\) does not match its 30"):
        open_zarr(path)


def test_zarr_group_without_x_needs_a_name(tmp_path):
    zarr = pytest.importorskip("zarr")
    g = zarr.open_group(str(tmp_path / "two.zarr"), mode="w")
    for name in ("a", "b"):
        g.create_array(name, shape=(3, 4), dtype="f8")[:] = 1.0
    with pytest.raises(ValueError, match=r"holds the arrays \['a', 'b'\]; say which is the data"):
        open_zarr(tmp_path / "two.zarr")
    assert open_zarr(tmp_path / "two.zarr", data="b").X.shape == (3, 4)


# --------------------------------------------------------------------------------------- HDF5


def test_hdf5_round_trip_picklable_and_lazy(tmp_path, monkeypatch):
    h5py = pytest.importorskip("h5py")
    X, y = _images(n=17)
    path = tmp_path / "d.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("X", data=X, chunks=(5, 6, 5))
        f.create_dataset("y", data=y)

    def no_reading(self, key):
        raise AssertionError("open_hdf5 read pixels on the client")

    with monkeypatch.context() as m:
        m.setattr(_stores._HDF5Rows, "__getitem__", no_reading)
        ds = open_store(path)  # dispatch by suffix; no pixel read
    _assert_row_chunked(ds.X, 30)
    assert ds.X.chunks[0] == (17,)  # the whole (small) file in one chunk of whole HDF5 chunks
    assert ds.image_shape == (6, 5) and np.array_equal(ds.y, y)
    # the graph holds a path, not an open file: it survives pickling (as it must to reach a worker)
    X2 = pickle.loads(pickle.dumps(open_hdf5(path, chunk_rows=4).X))
    assert np.array_equal(X2.compute(), X.reshape(17, -1))


def test_hdf5_bad_input(tmp_path):
    h5py = pytest.importorskip("h5py")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        open_hdf5(tmp_path / "missing.h5")
    (tmp_path / "broken.h5").write_bytes(b"not an hdf5 file")
    with pytest.raises(ValueError, match="Cannot read .* as an HDF5 file"):
        open_hdf5(tmp_path / "broken.h5")
    with h5py.File(tmp_path / "cols.h5", "w") as f:
        f.create_dataset("X", data=np.ones((8, 6)), chunks=(8, 2))
        f.create_dataset("Z", data=np.ones((8, 6)))
    with pytest.warns(UserWarning, match="chunked across its columns"):
        ds = open_hdf5(tmp_path / "cols.h5")
    assert np.array_equal(ds.X.compute(), np.ones((8, 6)))
    with pytest.raises(ValueError, match=r"no dataset 'W'; it holds \['X', 'Z'\]"):
        open_hdf5(tmp_path / "cols.h5", data="W")


# ------------------------------------------------------------------------------- image folders


def _write_pngs(folder, images, names=None):
    iio = pytest.importorskip("imageio.v3")
    folder.mkdir(parents=True, exist_ok=True)
    for i, img in enumerate(images):
        iio.imwrite(folder / (names[i] if names else f"img{i:03d}.png"), img)


def test_image_folder_class_subfolders(tmp_path):
    X, _ = _images(n=10, shape=(7, 9))
    _write_pngs(tmp_path / "faces" / "male", X[:4])
    _write_pngs(tmp_path / "faces" / "female", X[4:])
    ds = open_image_folder(tmp_path / "faces", chunk_rows=3)
    _assert_row_chunked(ds.X, 63)
    assert ds.X.chunks[0] == (3, 3, 3, 1)
    assert ds.image_shape == (7, 9)
    # sorted subfolders: female (X[4:]) first, then male (X[:4])
    assert ds.y.tolist() == ["female"] * 6 + ["male"] * 4
    assert np.array_equal(ds.X.compute(), np.concatenate([X[4:], X[:4]]).reshape(10, -1))
    assert open_image_folder(tmp_path / "faces", labels=None).y is None


def test_image_folder_rgb_flat_and_lazy(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 256, (5, 4, 6, 3), dtype=np.uint8)
    _write_pngs(tmp_path / "rgb", X)
    calls = []
    real = _stores._read_image
    monkeypatch.setattr(_stores, "_read_image", lambda f: calls.append(f) or real(f))
    ds = open_store(tmp_path / "rgb")
    assert len(calls) == 1  # only the first file is decoded on the client (the others: headers)
    assert ds.y is None and ds.image_shape == (4, 6, 3)
    assert np.array_equal(ds.X.compute(), X.reshape(5, -1))


def test_image_folder_mixed_sizes_names_two_files(tmp_path):
    rng = np.random.default_rng(4)
    imgs = [rng.integers(0, 256, s, dtype=np.uint8) for s in [(8, 8), (8, 8), (8, 10), (8, 8)]]
    _write_pngs(tmp_path / "mixed", imgs)
    msg = r"'img000.png' is 8 x 8 but 'img002.png' is 8 x 10.*resize or crop"
    with pytest.raises(ValueError, match=msg):
        open_image_folder(tmp_path / "mixed")
    lazy = open_image_folder(tmp_path / "mixed", check_sizes=False, chunk_rows=2)  # opens 1 file
    assert lazy.X.shape == (4, 64)
    with pytest.raises(ValueError, match=msg):
        lazy.X.compute()


def test_image_folder_bad_input(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist or is not a folder"):
        open_image_folder(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="No image files"):
        open_image_folder(tmp_path / "empty")
    X, _ = _images(n=3)
    _write_pngs(tmp_path / "both", X[:1])
    _write_pngs(tmp_path / "both" / "cls", X[1:])
    with pytest.raises(ValueError, match="both at its top .* and in subfolders"):
        open_image_folder(tmp_path / "both")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "a.png").write_bytes(b"not a png")
    with pytest.raises(ValueError, match="Cannot read the image .*a.png"):
        open_image_folder(tmp_path / "bad")


def test_open_store_rejects_other_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="Zarr store .*, an HDF5 file or a folder"):
        open_store(tmp_path / "nothing")
    (tmp_path / "x.npz").write_bytes(b"PK")
    with pytest.raises(ValueError, match="use pixsel.datasets.load"):
        open_store(tmp_path / "x.npz")


def test_readers_never_warn_on_row_chunked_stores(tmp_path):
    X, y = _images(n=8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        open_zarr(_zarr_store(tmp_path / "s.zarr", X, y))


@pytest.mark.parametrize("name", ["labels", "target"])
def test_store_labels_found_under_the_usual_names(tmp_path, name, capsys):
    """A store whose labels are not named y (scikit-learn's 'target', MATLAB's 'labels'): found as
    in a .mat file, and the command says which dataset it read (it said 'no labels' and refused)."""
    h5py = pytest.importorskip("h5py")
    X, y = _images()
    path = tmp_path / "d.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("images", data=X)
        f.create_dataset(name, data=y)
    ds = open_hdf5(path)
    np.testing.assert_array_equal(ds.y, y)
    assert ds.extra["labels"] == name and ds.extra["array"] == "images"
    assert open_hdf5(path, labels=None).y is None and open_hdf5(path, labels="other").y is None
    from pixsel.cli import main

    assert main(["select", str(path), "-k", "2", "--out", str(tmp_path / "o")]) == 0
    assert f"read X from the HDF5 dataset 'images' of d.h5 and y from {name!r}" in capsys.readouterr().out
