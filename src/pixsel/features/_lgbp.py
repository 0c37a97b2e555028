"""Local Gabor binary pattern (LGBP) histograms (Zhang et al., ICCV 2005).

An image is filtered by a bank of complex Gabor kernels (scikit-image ``gabor_kernel``: scales x
orientations); on each magnitude response the uniform LBP code with 8 neighbours at radius 1
(``LBP_8^u2``: 58 uniform patterns + 1 bin for the rest, scikit-image ``local_binary_pattern``
with ``method='nri_uniform'``) is computed; each response is cut into a grid of blocks, each
block gives a 59-bin histogram, L2-normalized, and all histograms are concatenated, ordered
``(filter, block row, block column, bin)``.

Two implementation choices keep this fast for thousands of images and are exact:

* the Gabor filtering is one FFT per image (reused by every kernel) on the image padded by
  half-sample symmetric reflection (``np.pad(mode='symmetric')``, scipy.ndimage's ``'reflect'``);
  the padding is wider than every kernel's half-width, so the circular FFT convolution equals
  the linear one on the image area;
* ``local_binary_pattern`` is called once per filter on a mosaic of all images separated by
  one row and column of zeros. LBP reads each neighbour by bilinear interpolation within one
  pixel and treats pixels outside the image as 0, so the zero gaps reproduce the per-image result
  exactly (tested).

scikit-image is an optional dependency: ``pip install 'pixsel[images]'``.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.fft

from .._optional import require

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = ["gabor_bank", "lgbp", "lbp_codes"]

N_BINS = 59  # LBP_8^u2: 58 uniform codes + 1 non-uniform


def gabor_bank(
    n_scales: int = 5,
    n_orientations: int = 8,
    *,
    max_frequency: float = 0.25,
    ratio: float = np.sqrt(2.0),
) -> NDArray:
    """Complex Gabor kernels, scales ``max_frequency / ratio**v`` x orientations ``u pi / U``.

    The defaults are the usual face-recognition bank (``k_max = pi / 2``, spacing ``sqrt 2``,
    5 scales x 8 orientations); bandwidth 1 octave (scikit-image's default).

    Returns
    -------
    list of ndarray of complex128
        ``n_scales * n_orientations`` kernels, scale-major.
    """
    gabor_kernel = require("skimage.filters", extra="images", package="scikit-image",
                           needed_for="The Gabor bank of the LGBP features").gabor_kernel

    return [
        gabor_kernel(max_frequency / ratio**v, theta=u * np.pi / n_orientations)
        for v in range(n_scales)
        for u in range(n_orientations)
    ]


def lbp_codes(images: ArrayLike) -> NDArray:
    """Uniform LBP codes (P=8, R=1, ``'nri_uniform'``, values 0..58) of a stack of 2-D images.

    One scikit-image call on a zero-separated mosaic (identical to calling it per image).

    Parameters
    ----------
    images : ndarray of shape (n_images, h, w)

    Returns
    -------
    ndarray of uint8 of shape (n_images, h, w)
    """
    local_binary_pattern = require("skimage.feature", extra="images", package="scikit-image",
                                   needed_for="The LBP codes of the LGBP features").local_binary_pattern

    images = np.asarray(images)
    n, h, w = images.shape
    cols = int(np.ceil(np.sqrt(n)))
    rows = int(np.ceil(n / cols))
    H, W = h + 1, w + 1  # one zero row/column after each tile
    mosaic = np.zeros((rows * H + 1, cols * W + 1), dtype=np.float64)
    r, c = np.divmod(np.arange(n), cols)
    tiles = mosaic[1:, 1:].reshape(rows, H, cols, W)
    tiles[r, :h, c, :w] = images
    with warnings.catch_warnings():
        # Gabor magnitudes are real-valued by nature; the codes are what LGBP defines
        warnings.filterwarnings("ignore", message="Applying `local_binary_pattern` to floating-point")
        codes = local_binary_pattern(mosaic, 8, 1, method="nri_uniform")
    codes = codes[1:, 1:].reshape(rows, H, cols, W)[r, :h, c, :w]
    return codes.astype(np.uint8)


def _block_index(h, w, grid):
    gr, gc = grid
    rb = np.minimum(np.arange(h) * gr // h, gr - 1)
    cb = np.minimum(np.arange(w) * gc // w, gc - 1)
    return (rb[:, None] * gc + cb[None, :]).ravel()


def lgbp(
    images: ArrayLike,
    *,
    image_shape: Any = None,
    n_scales: int = 5,
    n_orientations: int = 8,
    grid: tuple[int, ...] = (4, 4),
    max_frequency: float = 0.25,
    chunk: int = 512,
) -> NDArray:
    """LGBP histogram descriptors of a stack of grey images.

    Parameters
    ----------
    images : array-like of shape (n_images, h, w), or (n_images, h * w) with ``image_shape``
        Grey images (uint8 or float). Never modified.
    image_shape : tuple of int, optional
        ``(h, w)`` when ``images`` is flattened.
    n_scales, n_orientations : int, default=5, 8
        The Gabor bank (see :func:`gabor_bank`).
    grid : tuple of int, default=(4, 4)
        Blocks per column and per row; each block gives one 59-bin histogram.
    max_frequency : float, default=0.25
        Highest Gabor frequency in cycles per pixel.
    chunk : int, default=512
        Images processed at once (memory: about ``chunk * 9 * h * w * 16`` bytes).

    Returns
    -------
    ndarray of float32 of shape (n_images, n_scales * n_orientations * grid[0] * grid[1] * 59)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> F = lgbp(rng.integers(0, 256, size=(3, 32, 32)), n_scales=2, n_orientations=2, grid=(2, 2))
    >>> F.shape, bool(np.allclose(np.linalg.norm(F[:, :59], axis=1), 1.0))
    ((3, 944), True)
    """
    X = np.asarray(images)
    if X.ndim == 2:
        if image_shape is None:
            raise ValueError(
                "images is 2-D (flattened); pass image_shape=(h, w) or a 3-D stack (n_images, h, w)."
            )
        X = X.reshape(len(X), *image_shape)
    if X.ndim != 3:
        raise ValueError(f"images must be (n_images, h, w); got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("images contain NaN or infinite values.")
    n, h, w = X.shape
    gr, gc = grid
    if not (1 <= gr <= h and 1 <= gc <= w):
        raise ValueError(f"grid {grid} must have between 1 and (h, w) = {(h, w)} blocks per side.")
    kernels = gabor_bank(n_scales, n_orientations, max_frequency=max_frequency)
    pad = max(max(k.shape) for k in kernels) // 2 + 1
    Hp, Wp = h + 2 * pad, w + 2 * pad
    kfft = []
    for k in kernels:
        kp = np.zeros((Hp, Wp), dtype=np.complex128)
        kh, kw = k.shape
        kp[:kh, :kw] = k
        kp = np.roll(kp, (-(kh // 2), -(kw // 2)), axis=(0, 1))  # kernel centre at the origin
        kfft.append(scipy.fft.fft2(kp))
    block = _block_index(h, w, grid)
    nb = gr * gc
    out = np.empty((n, len(kernels) * nb * N_BINS), dtype=np.float32)
    for s in range(0, n, chunk):
        xs = np.pad(X[s : s + chunk].astype(np.float64), ((0, 0), (pad, pad), (pad, pad)), mode="symmetric")
        m = len(xs)
        F = scipy.fft.fft2(xs, axes=(1, 2))
        for f, kf in enumerate(kfft):
            mag = np.abs(scipy.fft.ifft2(F * kf, axes=(1, 2))[:, pad : pad + h, pad : pad + w])
            codes = lbp_codes(mag).reshape(m, -1).astype(np.int64)
            idx = (np.arange(m)[:, None] * nb + block[None, :]) * N_BINS + codes
            hist = np.bincount(idx.ravel(), minlength=m * nb * N_BINS).reshape(m, nb, N_BINS)
            hist = hist / np.linalg.norm(hist, axis=2, keepdims=True)
            out[s : s + m, f * nb * N_BINS : (f + 1) * nb * N_BINS] = hist.reshape(m, -1)
    return out
