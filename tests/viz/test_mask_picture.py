"""mask_picture: the selected pixels, block by block, without Matplotlib."""

import numpy as np
import pytest

from pixsel.viz import mask_picture
from pixsel.viz._figures import SELECTED
from pixsel.viz._mask_picture import block_scale

VERMILLION = tuple(int(round(255 * v)) for v in SELECTED)


def _blocks(picture, r, c, shape):
    s = picture.info["scale"]
    x, y = picture.info["panels"][r][c]
    panel = np.asarray(picture)[y : y + shape[0] * s, x : x + shape[1] * s]
    return panel.reshape(shape[0], s, shape[1], s, 3), s


def test_block_scale_enlarges_to_the_panel_and_never_shrinks():
    for shape in [(1, 1), (2, 3), (32, 32), (112, 92), (287, 5), (288, 288), (640, 480)]:
        s = block_scale(shape)
        assert s >= 1 and (max(shape) * s >= 288 or s == 1)
        assert s == 1 or max(shape) * (s - 1) < 288  # the smallest such scale


def test_grey_panels_are_the_background_with_the_selected_pixels_in_vermillion():
    rng = np.random.default_rng(1)
    shape = (5, 7)
    bgs = [rng.random(35), rng.random(35) * 10 - 3]
    masks = [rng.random(35) < 0.3, np.zeros(35, dtype=bool)]
    picture = mask_picture(bgs, masks, shape, titles=["a", "none"], bg_titles=["r0", "r1"])
    assert picture.mode == "RGB"
    for r, bg in enumerate(bgs):
        grey = np.round(255 * (bg - bg.min()) / (bg.max() - bg.min())).astype(np.uint8)
        for c, mask in enumerate(masks):
            panel, s = _blocks(picture, r, c, shape)
            assert (panel == panel[:, :1, :, :1]).all()  # one uniform block per image pixel
            blocks = panel[:, 0, :, 0].reshape(-1, 3)
            np.testing.assert_array_equal((blocks == VERMILLION).all(axis=1), mask)
            np.testing.assert_array_equal(blocks[~mask], np.repeat(grey[~mask, None], 3, axis=1))


def test_colour_panels_fill_a_pixel_when_any_of_its_channels_is_selected_and_edge_the_region():
    rng = np.random.default_rng(2)
    shape = (6, 4, 3)
    mask = np.zeros(shape, dtype=bool)
    mask[1, 1, 0] = mask[1, 2, 2] = mask[4, 0, 1] = True  # pixels (1, 1), (1, 2), (4, 0)
    picture = mask_picture([rng.random(72)], [mask.ravel()], shape)
    panel, s = _blocks(picture, 0, 0, shape[:2])
    pixels = mask.any(axis=2)
    centre = panel[:, s // 2, :, s // 2]
    np.testing.assert_array_equal((centre == VERMILLION).all(axis=-1), pixels)
    assert not (panel.transpose(0, 2, 1, 3, 4)[~pixels] == VERMILLION).all(axis=-1).any()
    # the black edge runs around the region of (1, 1) and (1, 2), not between them
    assert (panel[1, 0, 1, :] == 0).all() and (panel[1, :, 1, 0] == 0).all()
    assert not (panel[1, s // 2, 1, -1] == 0).all() and not (panel[1, s // 2, 2, 0] == 0).all()


def test_the_picture_keeps_every_image_pixel_of_large_images_and_refuses_nothing_to_draw():
    picture = mask_picture([np.arange(400 * 300.0)], [np.arange(400 * 300) % 997 == 0], (400, 300))
    assert picture.info["scale"] == 1 and picture.size[0] > 300 and picture.size[1] > 400
    with pytest.raises(ValueError, match="at least one background"):
        mask_picture([], [np.ones(4, dtype=bool)], (2, 2))


def test_single_channel_stacks_and_long_row_labels_fit_in_the_picture():
    rng = np.random.default_rng(3)
    shape = (4, 3, 1)
    mask = np.zeros(12, dtype=bool)
    mask[[0, 7]] = True
    label = "mean of a class whose folder name is much longer than the panel is high " * 3
    picture = mask_picture([rng.random(12)], [mask], shape, bg_titles=[label])
    panel, s = _blocks(picture, 0, 0, shape[:2])
    np.testing.assert_array_equal((panel[:, s // 2, :, s // 2] == VERMILLION).all(axis=-1), mask.reshape(4, 3))
    # the label, written upwards at the left, is wrapped and the picture is tall enough for it
    rgb = np.asarray(picture)
    x, _ = picture.info["panels"][0][0]
    ink = np.argwhere((rgb[:, : x - 2] < 128).all(axis=2))
    assert ink.size and ink[:, 0].min() > 0 and ink[:, 0].max() < rgb.shape[0] - 1
