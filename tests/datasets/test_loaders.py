import numpy as np
import pytest

from pixsel.datasets import data_dir, load, load_digits_pair, shared_path


def test_npz_mat_csv_roundtrip(tmp_path):
    from scipy.io import savemat

    rng = np.random.default_rng(0)
    X = rng.integers(0, 255, (12, 6)).astype(np.uint8)
    y = np.arange(12) % 2
    np.savez(tmp_path / "a.npz", X=X, y=y, image_shape=np.array([2, 3]))
    d = load(tmp_path / "a.npz")
    assert d.X.dtype == np.uint8 and np.array_equal(d.X, X) and d.image_shape == (2, 3)
    savemat(tmp_path / "b.mat", {"X": X.astype(float), "y": y})
    d = load(tmp_path / "b.mat")
    assert np.array_equal(d.X, X) and np.array_equal(d.y, y)
    with open(tmp_path / "c.csv", "w") as fh:
        fh.write("p0,p1,p2,p3,p4,p5,label\n")
        for row, lab in zip(X, y):
            fh.write(",".join(map(str, row)) + f",{lab}\n")
    d = load(tmp_path / "c.csv")
    assert np.array_equal(d.X, X) and np.array_equal(d.y, y) and d.y.dtype.kind == "i"


def test_image_folder(tmp_path):
    from skimage.io import imsave

    rng = np.random.default_rng(1)
    for cls in ("cats", "dogs"):
        (tmp_path / cls).mkdir()
        for i in range(3):
            imsave(tmp_path / cls / f"{i}.png", rng.integers(0, 255, (4, 5)).astype(np.uint8), check_contrast=False)
    d = load(tmp_path)
    assert d.X.shape == (6, 20) and d.image_shape == (4, 5)
    assert d.y.tolist() == [0, 0, 0, 1, 1, 1] and d.extra["class_names"] == ["cats", "dogs"]
    imsave(tmp_path / "dogs" / "odd.png", np.zeros((3, 3), np.uint8), check_contrast=False)
    with pytest.raises(ValueError, match="resize all images"):
        load(tmp_path)


def test_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "nope.npz")
    np.savez(tmp_path / "w.npz", data=np.zeros(3))
    with pytest.raises(ValueError, match="expects 'X'"):
        load(tmp_path / "w.npz")
    (tmp_path / "x.xyz").write_text("1")
    with pytest.raises(ValueError, match="Unsupported"):
        load(tmp_path / "x.xyz")


def test_shared_lookup(monkeypatch, tmp_path):
    monkeypatch.setenv("PIXSEL_DATA", str(tmp_path))
    assert data_dir() == tmp_path
    with pytest.raises(FileNotFoundError, match="PIXSEL_DATA"):
        shared_path("usps_full_16x16.npz")


def test_digits_pair():
    d = load_digits_pair(3, 5)
    assert d.X.shape[1] == 64 and set(np.unique(d.y)) == {0, 1} and d.image_shape == (8, 8)


def test_shared_usps_split_has_paper_counts(shared_data):
    z = shared_data("usps_3v5_split.npz")
    assert z["X_train"].shape == (767, 256) and z["X_test"].shape == (773, 256)


def test_load_train_test_three_ways(tmp_path):
    from pixsel.datasets import load_train_test

    X = np.arange(80.0).reshape(40, 2)
    y = np.arange(40) % 2
    # 1. a random stratified split, reproducible by seed
    np.savez(tmp_path / "all.npz", X=X, y=y, image_shape=np.array([1, 2]))
    tt = load_train_test(tmp_path / "all.npz", test_size=0.25, random_state=1)
    assert tt.X_train.shape == (30, 2) and tt.X_test.shape == (10, 2) and tt.image_shape == (1, 2)
    assert np.bincount(tt.y_test).tolist() == [5, 5]  # stratified
    assert sorted(np.r_[tt.X_train[:, 0], tt.X_test[:, 0]].tolist()) == X[:, 0].tolist()  # a partition
    again = load_train_test(tmp_path / "all.npz", test_size=0.25, random_state=1)
    np.testing.assert_array_equal(again.X_test, tt.X_test)
    assert tt.split == "stratified split, test_size=0.25, seed=1"
    # 2. the X_test/y_test arrays of one file (images flattened)
    np.savez(tmp_path / "pair.npz", X_train=X.reshape(40, 1, 2), y_train=y, X_test=X[:5], y_test=y[:5])
    tt = load_train_test(tmp_path / "pair.npz")
    assert tt.X_train.shape == (40, 2) and tt.X_test.shape == (5, 2) and tt.split == "X_test/y_test in DATA"
    # 3. a separate test file (it wins over the arrays of DATA)
    np.savez(tmp_path / "test.npz", X=X[:7], y=y[:7])
    tt = load_train_test(tmp_path / "pair.npz", tmp_path / "test.npz")
    assert tt.X_test.shape == (7, 2) and tt.split.startswith("--test ")
    # a loaded Dataset works as well
    tt = load_train_test(load(tmp_path / "all.npz"), test_size=0.5)
    assert tt.X_train.shape == (20, 2)


def test_load_train_test_needs_labels(tmp_path):
    from pixsel.datasets import load_train_test

    np.savez(tmp_path / "u.npz", X=np.ones((6, 2)))
    with pytest.raises(ValueError, match="no labels"):
        load_train_test(tmp_path / "u.npz")
    np.savez(tmp_path / "l.npz", X=np.ones((6, 2)), y=np.arange(6) % 2)
    with pytest.raises(ValueError, match="no labels"):
        load_train_test(tmp_path / "l.npz", tmp_path / "u.npz")


#: (mode, format) pairs Pillow writes: the fast path's modes in every format, and the modes that
#: fall back to skimage (palette, grey + alpha, 16-bit, bilevel, 32-bit int and float)
_WRITTEN = ([(m, f) for m in ("L", "RGB") for f in ("png", "jpg", "bmp", "tif", "gif", "pgm")]
            + [("RGBA", f) for f in ("png", "bmp", "tif", "gif")]
            + [(m, "png") for m in ("P", "LA", "I;16", "1")] + [("PA", "tif"), ("I", "tif"), ("F", "tif"),
                                                              ("1", "jpg"), ("P", "bmp"), ("I;16", "pgm")])


@pytest.mark.parametrize(("mode", "fmt"), _WRITTEN)
def test_read_image_is_skimage_imread(tmp_path, mode, fmt):
    """The Pillow fast path returns what skimage.io.imread returns, value for value and dtype,
    for every mode and format it takes; the others fall back to skimage."""
    from PIL import Image
    from skimage.io import imread

    from pixsel.datasets._loaders import read_image

    rng = np.random.default_rng(0)
    img = Image.fromarray(rng.integers(0, 256, (9, 7, 3), dtype=np.uint8)).convert(mode)
    path = tmp_path / f"img.{fmt}"
    try:
        img.save(path)
    except (OSError, ValueError, KeyError):
        pytest.skip(f"Pillow cannot write mode {mode} as {fmt}")
    expected = imread(path)
    got = read_image(path)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_read_image_decodes_common_files_without_skimage(tmp_path, monkeypatch):
    import skimage.io
    from PIL import Image

    from pixsel.datasets._loaders import read_image

    def refuse(*args, **kwargs):
        raise AssertionError("skimage.io.imread called for a file Pillow reads itself")

    monkeypatch.setattr(skimage.io, "imread", refuse)
    rng = np.random.default_rng(1)
    for mode, fmt in [("L", "png"), ("RGB", "png"), ("RGBA", "png"), ("L", "jpg"), ("RGB", "bmp"), ("L", "pgm")]:
        arr = rng.integers(0, 256, (5, 4, 4), dtype=np.uint8)
        Image.fromarray(arr).convert(mode).save(tmp_path / f"a.{fmt}")
        assert read_image(tmp_path / f"a.{fmt}").shape[:2] == (5, 4)


def test_read_image_without_scikit_image_names_the_extra(tmp_path, monkeypatch):
    """A file only scikit-image decodes, without scikit-image: an error naming the extra (the
    command line prints it as a user error); the files Pillow reads need no scikit-image."""
    import sys

    from PIL import Image

    from pixsel._optional import MissingExtraError
    from pixsel.cli._errors import user_message
    from pixsel.datasets._loaders import read_image

    monkeypatch.setitem(sys.modules, "skimage.io", None)  # `import skimage.io` raises ImportError
    Image.fromarray(np.arange(12, dtype=np.uint8).reshape(3, 4)).convert("P").save(tmp_path / "p.png")
    with pytest.raises(MissingExtraError, match=r"pip install 'pixsel\[images\]'.*scikit-image") as info:
        read_image(tmp_path / "p.png")
    assert "PNG image of mode P" in str(info.value)
    assert "pixsel[images]" in user_message(info.value)
    Image.fromarray(np.arange(12, dtype=np.uint8).reshape(3, 4)).save(tmp_path / "l.png")
    np.testing.assert_array_equal(read_image(tmp_path / "l.png"), np.arange(12).reshape(3, 4))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64])
def test_rgb_to_grey_is_skimage_rgb2gray(dtype):
    """pixsel's luminance equals scikit-image's rgb2gray value for value (and dtype) for the
    dtypes image files give; --grey no longer needs scikit-image."""
    from skimage.color import rgb2gray

    from pixsel.datasets._loaders import rgb_to_grey

    rng = np.random.default_rng(2)
    if np.dtype(dtype).kind == "u":
        img = rng.integers(0, np.iinfo(dtype).max, (6, 5, 3), endpoint=True).astype(dtype)
    else:
        img = rng.random((6, 5, 3)).astype(dtype)
    expected, got = rgb2gray(img), rgb_to_grey(img)
    assert got.dtype == expected.dtype and got.shape == (6, 5)
    np.testing.assert_allclose(got, expected, rtol=1e-15 if dtype != np.float32 else 1e-7, atol=0)
