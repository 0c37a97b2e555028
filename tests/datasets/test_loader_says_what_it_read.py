"""The loaders say what they read, refuse options that do not apply and warn about doubtful folders."""

import numpy as np
import pytest
from PIL import Image

from pixsel.datasets import load


def _folder(root, classes=("a", "b"), n=3):
    for c in classes:
        (root / c).mkdir(parents=True)
        for i in range(n):
            Image.fromarray(np.full((4, 4), 10 * i, np.uint8)).save(root / c / f"{i}.png")
    return root


def test_semicolon_csv_with_decimal_commas(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("x1;x2;y\n1,5;2;a\n3;4,25;b\n")
    d = load(path)
    np.testing.assert_array_equal(d.X, [[1.5, 2.0], [3.0, 4.25]])
    assert d.y.tolist() == ["a", "b"]


def test_a_one_column_csv_says_how_columns_are_separated(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1\n2\n3\n")
    with pytest.raises(ValueError, match="separated by commas, semicolons, tabs or spaces"):
        load(path)


@pytest.mark.parametrize("content, what", [
    (b"hello\nthis is text\n", "is a text file, not an .npz"),
    (b"", "is empty"),
    (b"\x00\x01\x02\xff" * 10, r"not an .npz \(zip\) archive: it is another kind of file"),
])
def test_a_file_that_is_not_a_zip(tmp_path, content, what):
    path = tmp_path / "d.npz"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=what):
        load(path)


def test_a_single_npy_named_npz(tmp_path):
    path = tmp_path / "d.npz"
    with open(path, "wb") as fh:
        np.save(fh, np.zeros((3, 2)))
    with pytest.raises(ValueError, match="a single .npy array"):
        load(path)


def test_mat_variables_are_named(tmp_path):
    from scipy.io import savemat

    path = tmp_path / "d.mat"
    savemat(path, {"X": np.ones((4, 3)), "labels": np.arange(4) % 2})
    assert "read X from the variable 'X' and y from 'labels'" in load(path).notes[0]


def test_split_on_a_folder_and_grey_on_a_file_are_refused(tmp_path):
    folder = _folder(tmp_path / "f")
    with pytest.raises(ValueError, match="is a folder of images: drop --split"):
        load(folder, split="test")
    path = tmp_path / "d.npz"
    np.savez(path, X=np.ones((4, 3)))
    with pytest.raises(ValueError, match="--grey converts a folder"):
        load(path, grey=True)
    assert load(folder, split="all").X.shape == (6, 16)


def test_an_empty_class_folder_is_dropped_with_a_warning(tmp_path):
    folder = _folder(tmp_path / "f")
    (folder / "c").mkdir()
    with pytest.warns(UserWarning, match="1 class folder\\(s\\) hold no images and were dropped: c"):
        d = load(folder)
    assert d.class_names == ["a", "b"] and d.notes


def test_classes_one_level_down(tmp_path):
    _folder(tmp_path / "root" / "faces")
    with pytest.raises(ValueError, match="give .*faces as DATA"):
        load(tmp_path / "root")
