"""``pixsel select`` on images: mask.png marks exactly the selected pixels, over each class mean,
and the command does not import Matplotlib (the mask is drawn with Pillow)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from pixsel.viz._figures import SELECTED
from pixsel.viz._mask_picture import block_scale

SHAPE = (10, 8)
VERMILLION = tuple(int(round(255 * v)) for v in SELECTED)


@pytest.fixture(scope="module")
def selected(tmp_path_factory):
    """One fresh process: ``select`` on 2 classes of 10 x 8 images; its outputs, the data, and
    the Matplotlib modules it had imported."""
    root = tmp_path_factory.mktemp("mask")
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 15)
    X = rng.standard_normal((30, *SHAPE)) + np.where(y == 1, 1.0, 0.0)[:, None, None] * (np.arange(80) % 7 == 0
                                                                                            ).reshape(SHAPE)
    data = root / "d.npz"
    np.savez(data, X=X, y=y)
    out = root / "o"
    code = ("import sys; from pixsel.cli import main; "
            f"rc = main(['select', {str(data)!r}, '-k', '6', '--out', {str(out)!r}, '-q']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib')); sys.exit(rc)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out, X.reshape(30, -1), y, proc.stdout.strip().splitlines()[-1]


def _frames(rgb, h, w):
    """Top-left picture pixels (x, y) of the black frames around h x w panels (one pixel wide)."""
    black = (rgb == 0).all(axis=2).astype(np.int64)
    rows = np.lib.stride_tricks.sliding_window_view(black, w + 2, axis=1).sum(axis=2) == w + 2
    cols = np.lib.stride_tricks.sliding_window_view(black, h + 2, axis=0).sum(axis=2) == h + 2
    found = []
    for yy, xx in np.argwhere(rows[: rows.shape[0] - h - 1, : cols.shape[1] - w - 1]):
        if cols[yy, xx] and cols[yy, xx + w + 1] and rows[yy + h + 1, xx]:
            found.append((int(xx), int(yy)))
    return found


def test_select_does_not_import_matplotlib(selected):
    assert selected[3] == "[]"


def test_mask_png_marks_exactly_the_selected_pixels_over_each_class_mean(selected):
    out, X, y, _ = selected
    indices = json.loads((out / "selection.json").read_text())["indices"]
    assert len(indices) == 6
    picture = Image.open(out / "mask.png")
    assert picture.format == "PNG" and picture.mode == "RGB"
    s = block_scale(SHAPE)
    h, w = SHAPE[0] * s, SHAPE[1] * s
    assert h >= 288 and picture.size[0] > w and picture.size[1] > h
    rgb = np.asarray(picture)
    frames = _frames(rgb, h, w)
    assert len(frames) == 2 and frames[0][0] == frames[1][0]  # one panel per class, one above the other
    chosen = np.zeros(X.shape[1], dtype=bool)
    chosen[indices] = True
    for (x0, y0), c in zip(sorted(frames, key=lambda f: f[1]), (0, 1)):
        panel = rgb[y0 + 1 : y0 + 1 + h, x0 + 1 : x0 + 1 + w].reshape(SHAPE[0], s, SHAPE[1], s, 3)
        # each image pixel is one uniform s x s block
        assert (panel == panel[:, :1, :, :1]).all()
        blocks = panel[:, 0, :, 0].reshape(-1, 3)
        red = (blocks == VERMILLION).all(axis=1)
        np.testing.assert_array_equal(red, chosen)
        # the others: the class mean, scaled to [0, 1] and drawn in grey
        mean = X[y == c].mean(axis=0)
        grey = np.round(255 * (mean - mean.min()) / (mean.max() - mean.min()))
        np.testing.assert_array_equal(blocks[~chosen], np.repeat(grey[~chosen, None], 3, axis=1))
