import numpy as np
import pytest
import scipy.ndimage as ndi
from skimage.feature import local_binary_pattern

from pixsel.features import gabor_bank, lbp_codes, lgbp


def test_lbp_mosaic_equals_per_image_skimage():
    rng = np.random.default_rng(0)
    imgs = rng.random((7, 9, 11)) * 5  # odd sizes and a mosaic with empty tiles
    imgs[2] = np.round(imgs[2])  # ties between neighbours
    codes = lbp_codes(imgs)
    with pytest.warns(UserWarning, match="floating-point"):
        ref = np.stack([local_binary_pattern(im, 8, 1, method="nri_uniform") for im in imgs])
    np.testing.assert_array_equal(codes, ref)
    assert codes.max() <= 58


def test_gabor_fft_equals_direct_convolution_and_histograms():
    rng = np.random.default_rng(1)
    imgs = rng.integers(0, 256, size=(3, 20, 20)).astype(np.uint8)
    imgs0 = imgs.copy()
    F = lgbp(imgs, n_scales=1, n_orientations=2, grid=(2, 2))
    np.testing.assert_array_equal(imgs, imgs0)
    assert F.shape == (3, 2 * 4 * 59) and F.dtype == np.float32
    k = gabor_bank(1, 2)[1]
    for i in range(3):
        im = imgs[i].astype(float)
        # scipy.ndimage 'reflect' is numpy's 'symmetric' padding used by lgbp
        mag = np.hypot(ndi.convolve(im, k.real, mode="reflect"), ndi.convolve(im, k.imag, mode="reflect"))
        codes = lbp_codes(mag[None])[0]
        for b, (rs, cs) in enumerate([(slice(0, 10), slice(0, 10)), (slice(0, 10), slice(10, 20)),
                                      (slice(10, 20), slice(0, 10)), (slice(10, 20), slice(10, 20))]):
            h = np.bincount(codes[rs, cs].ravel(), minlength=59).astype(float)
            h /= np.linalg.norm(h)
            np.testing.assert_allclose(F[i, (4 + b) * 59 : (5 + b) * 59], h, atol=1e-6)


def test_flattened_input_and_errors():
    rng = np.random.default_rng(2)
    imgs = rng.random((2, 16, 16))
    a = lgbp(imgs, n_scales=1, n_orientations=1, grid=(1, 1))
    b = lgbp(imgs.reshape(2, -1), image_shape=(16, 16), n_scales=1, n_orientations=1, grid=(1, 1))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="image_shape"):
        lgbp(imgs.reshape(2, -1))
    with pytest.raises(ValueError, match="grid"):
        lgbp(imgs, grid=(17, 2))
