"""The DCT-diagonal prior covariance and its Ledoit-Wolf intensity against dense textbook forms."""

import numpy as np
import pytest
from scipy.fft import dctn

from pixsel.stats import DCTPrior, _prior, dct_shrinkage_intensity, dct_spectrum


def _phi(h, w):
    """Dense orthonormal 2-D DCT-II basis: column f is the image of frequency f (p x p)."""
    p = h * w
    return dctn(np.eye(p).reshape(p, h, w), axes=(1, 2), norm="ortho").reshape(p, p)  # [pixel, frequency]


def _images(seed, n, h, w):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, h * w)) @ rng.standard_normal((h * w, h * w)) * 0.3 + rng.standard_normal((n, h * w))
    return X - X.mean(axis=0)


@pytest.fixture(params=["products", "fast"])
def transform(request, monkeypatch):
    """Both ways of transforming a stack: the products with the DCT matrices (small images) and
    SciPy's fast DCT (large ones), here forced at every size."""
    monkeypatch.setattr(_prior, "_FFT_MIN_SIDE", 1 if request.param == "fast" else 10**9)
    return request.param


@pytest.mark.parametrize(("n", "h", "w"), [(9, 4, 5), (40, 3, 6), (20, 17, 16)])
def test_prior_products_equal_the_dense_matrix(n, h, w, transform):
    A = _images(n, n, h, w)
    before = A.copy()
    lam, coef = dct_spectrum(A, (h, w), return_coefficients=True)
    assert np.array_equal(A, before)
    Phi = _phi(h, w)
    S = np.cov(A, rowvar=False)
    np.testing.assert_allclose(lam.ravel(), np.diag(Phi.T @ S @ Phi), rtol=1e-10)  # the DCT-domain variances
    T = Phi @ np.diag(lam.ravel()) @ Phi.T
    prior = DCTPrior(lam)
    np.testing.assert_allclose(prior.apply(A), A @ T, atol=1e-10)
    np.testing.assert_allclose(prior.apply(None, coefficients=coef), A @ T, atol=1e-10)
    np.testing.assert_allclose(prior.matvec(A[0]), T @ A[0], atol=1e-10)
    np.testing.assert_allclose(prior.column(7), T[:, 7], atol=1e-12)
    np.testing.assert_allclose(prior.columns([3, 0, 11]), T[:, [3, 0, 11]], atol=1e-12)
    np.testing.assert_allclose(prior.diag(), np.diag(T), rtol=1e-10)
    np.testing.assert_allclose(prior.diag_sq(), np.diag(T @ T), rtol=1e-10)
    assert prior.trace() == pytest.approx(np.trace(S))  # T keeps the total variance


@pytest.mark.parametrize(("n", "h", "w"), [(9, 4, 5), (60, 3, 4)])
def test_intensity_is_ledoit_wolf_towards_the_target(n, h, w):
    """Ledoit and Wolf's formula with dense matrices: B = A^T A / n, target T scaled alike."""
    A = _images(2 * n, n, h, w)
    lam = dct_spectrum(A, (h, w))
    Phi = _phi(h, w)
    B = A.T @ A / n
    T = Phi @ np.diag(lam.ravel() * (n - 1) / n) @ Phi.T
    delta = np.sum((B - T) ** 2)
    beta = (sum(np.sum(np.outer(a, a) ** 2) for a in A) / n - np.sum(B * B)) / n
    expected = min(beta, delta) / delta
    assert 0 < expected < 1
    assert dct_shrinkage_intensity(A, lam) == pytest.approx(expected, rel=1e-10)
    assert dct_shrinkage_intensity(A, lam, gram=A.T @ A) == pytest.approx(expected, rel=1e-10)


def test_intensity_is_zero_when_the_covariance_is_already_the_target():
    """Images that are each one DCT frequency: the sample covariance is diagonal in the DCT basis."""
    h, w = 3, 3
    Phi = _phi(h, w)
    X = np.vstack([s * 2.0 * Phi[:, f] for f in range(9) for s in (1, -1)])  # centred, DCT-diagonal covariance
    lam = dct_spectrum(X, (h, w))
    assert dct_shrinkage_intensity(X, lam) == 0.0


def test_spectrum_checks_the_image_shape():
    with pytest.raises(ValueError, match="image_shape"):
        dct_spectrum(np.zeros((3, 10)), (3, 4))


@pytest.mark.parametrize(("n", "h", "w"), [(37, 4, 5), (60, 3, 6)])  # fewer images than pixels and more
def test_spectrum_from_the_gram_matrix_is_the_images_spectrum(n, h, w):
    """The spectrum read from A^T A (the DCT-domain diagonal of the dense Gram matrix) is the one of
    the images' coefficients, over more than one block of images."""
    A = _images(3 * n, n, h, w)
    Phi = _phi(h, w)
    expected = np.diag(Phi.T @ np.cov(A, rowvar=False) @ Phi)
    np.testing.assert_allclose(dct_spectrum(A, (h, w)).ravel(), expected, rtol=1e-10)
    np.testing.assert_allclose(dct_spectrum(A, (h, w), gram=A.T @ A).ravel(), expected, rtol=1e-10)
    np.testing.assert_allclose(dct_spectrum(A, (h, w), gram=A.T @ A, ddof=0).ravel(), expected * (n - 1) / n,
                               rtol=1e-10)
    with pytest.raises(ValueError, match="return_coefficients"):
        dct_spectrum(A, (h, w), gram=A.T @ A, return_coefficients=True)
    with pytest.raises(ValueError, match="gram"):
        dct_spectrum(A, (h, w), gram=A @ A.T)


@pytest.mark.parametrize(("n", "h", "w"), [(37, 4, 5), (30, 17, 16)])
def test_spectrum_in_single_precision(n, h, w, transform):
    """dtype=float32 transforms in single precision: float32 coefficients, the spectrum in double
    precision to about 1e-6 relative of the exact one; any other dtype is refused."""
    A = _images(7, n, h, w) * 1e3
    lam, coef = dct_spectrum(A, (h, w), return_coefficients=True)
    lam32, coef32 = dct_spectrum(A, (h, w), return_coefficients=True, dtype=np.float32)
    assert coef32.dtype == np.float32 and lam32.dtype == np.float64
    np.testing.assert_allclose(coef32, coef, rtol=0, atol=1e-5 * np.abs(coef).max())
    np.testing.assert_allclose(lam32, lam, rtol=1e-5)
    assert not np.array_equal(lam32, lam)  # rounded: the single-precision route ran
    np.testing.assert_allclose(dct_spectrum(A, (h, w), dtype=np.float32), lam, rtol=1e-5)
    with pytest.raises(ValueError, match="float32"):
        dct_spectrum(A, (h, w), dtype=np.float16)


def test_prior_applied_over_the_coefficients_in_place(transform):
    """overwrite=True filters the caller's coefficients in place (no copy of the data) into A T, in
    their precision (float32 coefficients give A T to single precision); a non-contiguous array
    is copied, never written, and so are coefficients without overwrite."""
    n, h, w = 37, 4, 5
    A = _images(5, n, h, w)
    lam, coef = dct_spectrum(A, (h, w), return_coefficients=True)
    Phi = _phi(h, w)
    np.testing.assert_allclose(coef.reshape(n, -1), A @ Phi, atol=1e-12)  # the orthonormal DCT of every image
    expected = A @ (Phi @ np.diag(lam.ravel()) @ Phi.T)
    prior = DCTPrior(lam)
    c32 = coef.astype(np.float32)
    before32 = c32.copy()
    kept = prior.apply(None, coefficients=c32, overwrite=False)
    assert kept.dtype == np.float64 and np.array_equal(c32, before32)  # copied, in double precision
    np.testing.assert_allclose(kept, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
    single = prior.apply(None, coefficients=c32, overwrite=True)
    assert single.dtype == np.float32 and np.shares_memory(single, c32)  # written over them
    np.testing.assert_allclose(single, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
    strided = np.asfortranarray(coef)
    out = prior.apply(None, coefficients=strided, overwrite=True)
    np.testing.assert_allclose(out, expected, atol=1e-10)
    np.testing.assert_array_equal(strided, coef)
    out = prior.apply(None, coefficients=coef, overwrite=True)
    np.testing.assert_allclose(out, expected, atol=1e-10)
    assert np.shares_memory(out, coef)


def test_intensity_reads_the_row_norms_from_the_sample_gram_matrix():
    """With fewer images than pixels, gram=A A^T gives the same intensity as the images alone."""
    A = _images(7, 9, 4, 5)
    lam = dct_spectrum(A, (4, 5))
    rho = dct_shrinkage_intensity(A, lam)
    assert 0 < rho < 1
    assert dct_shrinkage_intensity(A, lam, gram=A @ A.T) == pytest.approx(rho, rel=1e-12)
    assert dct_shrinkage_intensity(A, lam, gram=A.T @ A) == pytest.approx(rho, rel=1e-12)


@pytest.mark.parametrize(("n", "h", "w"), [(60, 4, 5), (15, 4, 5), (200, 3, 6)])
def test_intensity_bound_is_never_below_the_intensity(n, h, w):
    """The bound from the lowest block x block frequencies is at least the intensity for every block,
    and is the intensity once the block covers the image."""
    from pixsel.stats import dct_shrinkage_intensity_bound

    for seed in range(3):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((n, h * w)).cumsum(axis=1) + 0.3 * rng.standard_normal((n, h * w))
        A = X - X.mean(axis=0)
        rho = dct_shrinkage_intensity(A, dct_spectrum(A, (h, w)))
        bounds = [dct_shrinkage_intensity_bound(A, (h, w), gram=A.T @ A, block=b) for b in range(1, max(h, w) + 1)]
        assert all(rho <= b * (1 + 1e-10) + 1e-12 for b in bounds)
        assert bounds[-1] == pytest.approx(rho, rel=1e-9, abs=1e-12)
        # the squared row norms given by the caller: the same bound
        given = dct_shrinkage_intensity_bound(A, (h, w), gram=A.T @ A, block=2, row_sq=np.einsum("ij,ij->i", A, A))
        assert given == pytest.approx(bounds[1], rel=1e-12, abs=1e-15)
    with pytest.raises(ValueError, match="row_sq"):
        dct_shrinkage_intensity_bound(A, (h, w), gram=A.T @ A, row_sq=np.ones(n + 1))
    with pytest.raises(ValueError, match="gram"):
        dct_shrinkage_intensity_bound(A, (h, w), gram=A @ A.T)
    with pytest.raises(ValueError, match="block"):
        dct_shrinkage_intensity_bound(A, (h, w), gram=A.T @ A, block=0)
