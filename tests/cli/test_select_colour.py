"""Colour end to end: the folder loader keeps colour, the CLI selects whole pixels (or patches)."""

import json

import numpy as np
import pytest

from pixsel import SparseLDASelector
from pixsel.cli import main
from pixsel.datasets import load


@pytest.fixture
def colour_folder(tmp_path):
    """Two classes of 6 x 8 colour images; class 1 is brighter at pixel (2, 3) and redder at (4, 6)."""
    from skimage.io import imsave

    rng = np.random.default_rng(0)
    for c in range(2):
        (tmp_path / "images" / f"class{c}").mkdir(parents=True)
        for i in range(24):
            img = rng.uniform(0, 150, (6, 8, 3))
            if c == 1:
                img[2, 3, :] += 100
                img[4, 6, 0] = 255
            imsave(tmp_path / "images" / f"class{c}" / f"{i}.png", img.astype(np.uint8), check_contrast=False)
        if c == 0:  # a grey image in a colour folder gets three equal channels
            imsave(tmp_path / "images" / "class0" / "grey.png", np.full((6, 8), 90, np.uint8), check_contrast=False)
    return tmp_path / "images"


def test_the_folder_loader_keeps_colour_unless_asked(colour_folder):
    d = load(colour_folder)
    assert d.image_shape == (6, 8, 3) and d.X.shape == (49, 144)
    grey = np.flatnonzero(d.X[:, :3].std(axis=1) == 0)
    assert np.all(d.X[grey[0]] == 90)  # the grey image, repeated to three channels
    g = load(colour_folder, grey=True)
    assert g.image_shape == (6, 8) and g.X.shape == (49, 48)


def test_select_chooses_whole_pixels_of_colour_images(colour_folder, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["select", str(colour_folder), "-k", "2", "--out", str(out)]) == 0
    report = json.loads((out / "selection.json").read_text())
    d = load(colour_folder)
    ref = SparseLDASelector(2).fit(d.X.reshape(-1, 6, 8, 3), d.y)
    assert report["unit"] == "pixels" and report["n_groups"] == 48 and report["n_features_selected"] == 6
    assert report["indices"] == ref.get_support(indices=True).tolist()
    assert sorted(report["groups_selected"]) == [2 * 8 + 3, 4 * 8 + 6]
    assert "selected 2 of 48 pixels (6 of 144 values)" in capsys.readouterr().out
    assert (out / "mask.png").stat().st_size > 0
    assert main(["select", str(colour_folder), "-k", "2", "--channels", "--out", str(tmp_path / "c")]) == 0
    assert len(json.loads((tmp_path / "c" / "selection.json").read_text())["indices"]) == 2
    assert main(["select", str(colour_folder), "-k", "1", "--patch-size", "2x4", "--out", str(tmp_path / "p")]) == 0
    assert json.loads((tmp_path / "p" / "selection.json").read_text())["n_features_selected"] == 24


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-k", "49"], "range [1, 48]"),
        (["-k", "1", "--patch-size", "4x4"], "does not tile images of 6 x 8 pixels"),
        (["-k", "1", "--patch-size", "four"], "--patch-size must read AxB"),
    ],
)
def test_bad_groups_exit_2(colour_folder, tmp_path, capsys, extra, message):
    assert main(["select", str(colour_folder), *extra, "--out", str(tmp_path / "o")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o" / "selection.json").exists()
