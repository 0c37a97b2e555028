"""The mask picture of ``pixsel select``, drawn with NumPy and Pillow alone (no Matplotlib).

A picture of selected pixels needs no axes: each image pixel becomes a square block of
picture pixels, the chosen ones filled with one colour, and the words (titles, row labels, the
legend) are drawn with Pillow's own font. A command that only selects pixels and shows them
then never imports Matplotlib, whose import is a large part of such a command's time.
"""

from __future__ import annotations


import numpy as np

from ._figures import SELECTED, _faded, _to_unit, _wrap

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike
    from PIL.Image import Image

__all__ = ["mask_picture", "block_scale"]

#: the side of one panel, in picture pixels, that images are enlarged to (never shrunk below one
#: picture pixel per image pixel): 2.4 inches at 120 dots per inch
PANEL = 288

_WHITE, _BLACK = (255, 255, 255), (0, 0, 0)
_GREY = (128, 128, 128)
#: the legend swatch of the faded colour backgrounds
_FADED = (199, 194, 189)
_PAD = 12  # picture pixels between panels and around the picture
_TEXT, _SMALL = 15, 13  # font sizes in picture pixels (9 and 8 points at 120 dots per inch)


def block_scale(image_shape: Sequence[int], panel: int = PANEL) -> int:
    """Picture pixels per image pixel (each side) in :func:`mask_picture`: the smallest whole
    number that makes the longer side of the image at least ``panel`` picture pixels (1 for
    images that large already, so that every image pixel stays visible).

    Examples
    --------
    >>> block_scale((32, 32)), block_scale((112, 92)), block_scale((640, 480))
    (9, 3, 1)
    """
    return max(1, -(-int(panel) // max(int(image_shape[0]), int(image_shape[1]))))


def _font(size):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)  # a scalable font where Pillow has FreeType
    except (TypeError, OSError):  # pragma: no cover - Pillow without FreeType: its bitmap font
        return ImageFont.load_default()


def _text_size(draw, text, font):
    left, top, right, bottom = draw.multiline_textbbox((0, 0), text, font=font, spacing=3)
    return right - left, bottom - top


def _panel_rgb(background, mask, image_shape, color):
    """One panel at one picture pixel per image pixel: float RGB in [0, 1] and the chosen pixels
    (bool, height x width). Grey images: the background scaled to [0, 1], chosen pixels in
    ``color``. Colour images (the backgrounds already scaled together): faded colours, a pixel
    chosen when any of its channels is."""
    if len(image_shape) == 3:
        rgb = _faded(background)
        chosen = np.asarray(mask, dtype=bool).reshape(image_shape).any(axis=2)
    else:
        g = np.asarray(background, dtype=np.float64).reshape(image_shape)
        g = _to_unit(g, float(g.min()), float(g.max()))
        rgb = np.repeat(g[..., None], 3, axis=2)
        chosen = np.asarray(mask, dtype=bool).reshape(image_shape)
    rgb = np.array(rgb, dtype=np.float64)
    rgb[chosen] = color
    return rgb, chosen


def _enlarge(rgb, chosen, scale, edged):
    """The panel as uint8 RGB, ``scale`` picture pixels per image pixel; with ``edged`` a black
    line along the inner border of the chosen region (colour images, where the fill alone could
    meet a background of the same hue)."""
    big = np.repeat(np.repeat(np.round(255 * np.clip(rgb, 0, 1)).astype(np.uint8), scale, axis=0), scale, axis=1)
    if edged and chosen.any():
        c = np.repeat(np.repeat(chosen, scale, axis=0), scale, axis=1)
        p = np.pad(c, 1)
        inner = p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]
        big[c & ~inner] = 0
    return big


def mask_picture(
    backgrounds: ArrayLike,
    masks: ArrayLike,
    image_shape: tuple[int, ...],
    *,
    titles: Sequence[str] | None = None,
    bg_titles: Sequence[str] | None = None,
    color: tuple[float, float, float] = SELECTED,
    label: str | None = None,
    scale: int | None = None,
) -> Image:
    """Selected pixels drawn over background images, with titles and a legend, as a Pillow image.

    The picture :func:`plot_masks` draws, without Matplotlib: one panel per background (rows) and
    mask (columns), each image pixel a ``scale`` x ``scale`` block, so that every selected pixel
    is a square of ``color`` (grey images: over the background in grey; colour images: over
    its faded colours, edged in black). A one-pixel black frame surrounds each panel.

    Parameters
    ----------
    backgrounds : list of ndarray of shape (n_features,)
        One panel row per background image (e.g. the class means).
    masks : list of ndarray of shape (n_features,) of bool
        One panel column per mask.
    image_shape : tuple (height, width) or (height, width, channels)
    titles : list of str, optional
        Column titles (one per mask; may hold line breaks; long lines are wrapped).
    bg_titles : list of str, optional
        Row labels (one per background), written upwards at the left.
    color : RGB tuple in [0, 1]
        Colour of the selected pixels (default: Okabe and Ito's vermillion, told apart from
        grey by colour-blind readers too).
    label : str, optional
        The legend of the selected pixels (default "selected pixels", for colour images
        "selected pixels (all channels)").
    scale : int, optional
        Picture pixels per image pixel (default :func:`block_scale`: panels of at least
        :data:`PANEL` picture pixels).

    Returns
    -------
    PIL.Image.Image
        An RGB image; save it with ``.save(path)``. Where each image pixel lies in it:
        ``image.info['panels'][r][c]`` is the picture pixel ``(x, y)`` of the top-left image
        pixel of the panel in row ``r`` and column ``c``, and each image pixel is
        ``image.info['scale']`` picture pixels wide and high.

    Examples
    --------
    >>> import numpy as np
    >>> img = mask_picture([np.arange(4.0)], [np.array([True, False, False, True])], (2, 2), titles=["k = 2"])
    >>> img.mode, img.info["scale"]
    ('RGB', 144)
    >>> x, y = img.info["panels"][0][0]
    >>> img.getpixel((x, y)), img.getpixel((x + 144, y))  # selected: vermillion; not: the grey background
    ((213, 94, 0), (85, 85, 85))
    """
    from PIL import Image, ImageDraw

    image_shape = tuple(int(v) for v in image_shape)
    colour = len(image_shape) == 3
    backgrounds = [np.asarray(b, dtype=np.float64) for b in backgrounds]
    masks = [np.asarray(m, dtype=bool) for m in masks]
    rows, cols = len(backgrounds), len(masks)
    if rows == 0 or cols == 0:
        raise ValueError("mask_picture needs at least one background and one mask.")
    if colour:  # the backgrounds scaled together to [0, 1]; RGB channels only (fewer: their mean, as grey)
        imgs = [b.reshape(image_shape)[..., :3] for b in backgrounds]
        if image_shape[2] < 3:
            imgs = [np.repeat(i.mean(axis=2, keepdims=True), 3, axis=2) for i in imgs]
        lo, hi = min(float(i.min()) for i in imgs), max(float(i.max()) for i in imgs)
        backgrounds = [_to_unit(i, lo, hi) for i in imgs]
    scale = block_scale(image_shape) if scale is None else int(scale)
    h, w = image_shape[0] * scale, image_shape[1] * scale

    font, small = _font(_TEXT), _font(_SMALL)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    if titles is not None:
        titles = [_wrap(t, 46 if cols == 1 else 32) for t in titles]
    if bg_titles is not None:  # written upwards: wrapped to the panel's height (about 8 pixels a character)
        bg_titles = [_wrap(t, max(12, h // 8)) for t in bg_titles]
    title_h = max((_text_size(measure, t, font)[1] for t in titles), default=0) + _PAD if titles else 0
    label_w = max((_text_size(measure, t, font)[1] for t in bg_titles), default=0) + _PAD if bg_titles else 0
    if label is None:
        label = "selected pixels (all channels)" if colour else "selected pixels"
    named = "image named at left" if bg_titles is not None else "mean image"
    legend = [(tuple(int(round(255 * v)) for v in color), colour, label),
              (_FADED if colour else _GREY, False, ("faded colours: " if colour else "grey: ") + named)]
    swatch = 28, 12
    entries = [swatch[0] + 8 + _text_size(measure, text, small)[0] for _, _, text in legend]
    line_h = max(swatch[1], max(_text_size(measure, text, small)[1] for _, _, text in legend)) + 8
    legend_cols = 1 if cols == 1 else 2
    legend_w = (max(entries) if legend_cols == 1 else entries[0] + 3 * _PAD + entries[1]) + _PAD // 2
    legend_h = line_h * (2 if legend_cols == 1 else 1)

    grid_w = cols * (w + 2) + (cols - 1) * _PAD
    title_w = max((_text_size(measure, t, font)[0] for t in titles), default=0) if titles else 0
    body_w = max(grid_w, title_w, legend_w)
    width = 2 * _PAD + label_w + body_w
    label_h = max((_text_size(measure, t, font)[0] for t in bg_titles), default=0) if bg_titles else 0
    row_h = max(h + 2, label_h + 4)  # a row label longer than the panel is not cut off
    height = _PAD + title_h + rows * row_h + (rows - 1) * _PAD + 2 * _PAD + legend_h + _PAD
    picture = Image.new("RGB", (width, height), _WHITE)
    draw = ImageDraw.Draw(picture)
    x0 = _PAD + label_w + (body_w - grid_w) // 2
    y0 = _PAD + title_h
    origins = []
    for r, bg in enumerate(backgrounds):
        origins.append([])
        row = y0 + r * (row_h + _PAD)
        y = row + (row_h - h - 2) // 2  # the panels centred on their row
        for c, mask in enumerate(masks):
            x = x0 + c * (w + 2 + _PAD)
            rgb, chosen = _panel_rgb(bg, mask, image_shape, color)
            draw.rectangle((x, y, x + w + 1, y + h + 1), outline=_BLACK)
            picture.paste(Image.fromarray(_enlarge(rgb, chosen, scale, colour), "RGB"), (x + 1, y + 1))
            origins[-1].append((x + 1, y + 1))
            if r == 0 and titles is not None:
                tw, th = _text_size(draw, titles[c], font)
                draw.multiline_text((x + 1 + (w - tw) // 2, _PAD + title_h - _PAD - th), titles[c], fill=_BLACK,
                                    font=font, spacing=3, align="center")
        if bg_titles is not None:  # upwards, centred on the row
            tw, th = _text_size(measure, bg_titles[r], font)
            text = Image.new("L", (tw + 4, th + 6), 0)
            ImageDraw.Draw(text).multiline_text((2, 0), bg_titles[r], fill=255, font=font, spacing=3)
            text = text.rotate(90, expand=True)
            picture.paste(Image.new("RGB", text.size, _BLACK), (x0 - _PAD // 2 - text.size[0],
                                                                 row + (row_h - text.size[1]) // 2), text)
    y = y0 + rows * row_h + (rows - 1) * _PAD + 2 * _PAD
    x = _PAD + label_w + (body_w - legend_w) // 2
    for i, (fill, edged, text) in enumerate(legend):
        ex = x if legend_cols == 1 or i == 0 else x + entries[0] + 3 * _PAD
        ey = y + (i * line_h if legend_cols == 1 else 0)
        draw.rectangle((ex, ey, ex + swatch[0], ey + swatch[1]), fill=fill, outline=_BLACK if edged else fill)
        draw.text((ex + swatch[0] + 8, ey + swatch[1] // 2), text, fill=_BLACK, font=small, anchor="lm")
    picture.info.update(scale=scale, panels=origins)
    return picture
