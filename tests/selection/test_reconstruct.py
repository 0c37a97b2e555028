"""PixelReconstructor against the textbook Gaussian conditional, the placement kernel and planted truth."""

import numpy as np
import pytest

from pixsel import PixelReconstructor
from pixsel.scores import greedy_placement, placement_constraints, refine_placement


def _images(seed=0, n=80, shape=(6, 7), rank=4, noise=0.05):
    rng = np.random.default_rng(seed)
    p = int(np.prod(shape))
    X = rng.standard_normal((n, rank)) @ rng.standard_normal((rank, p)) + noise * rng.standard_normal((n, p)) + 3.0
    return X.reshape((n, *shape))


def _textbook(Xtr, S, alpha, Y):
    """Conditional mean and std of every pixel given pixels ``S`` under N(mean, cov + noise on S)."""
    A = Xtr - Xtr.mean(0)
    cov = A.T @ A / (len(Xtr) - 1)
    s2 = alpha * np.trace(cov) / cov.shape[0]
    K = cov[np.ix_(S, S)] + s2 * np.eye(len(S))
    mean = Xtr.mean(0) + np.linalg.solve(K, (Y - Xtr.mean(0)[S]).T).T @ cov[S]
    var = np.diag(cov) - np.einsum("ij,ji->i", cov[:, S], np.linalg.solve(K, cov[S]))
    return mean, np.sqrt(np.clip(var, 0, None))


@pytest.mark.parametrize("alpha", [0.0, 0.01, 0.5])
def test_prediction_and_std_are_the_gaussian_conditional(alpha):
    X = _images(1).reshape(80, -1)
    Xtr, Xte = X[:60], X[60:]
    rec = PixelReconstructor(5, alpha=alpha).fit(Xtr)
    S = np.flatnonzero(rec.get_support())
    mean, std = _textbook(Xtr, S, alpha, Xte[:, S])
    np.testing.assert_allclose(rec.predict(Xte[:, S]), mean, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(rec.predict(Xte), mean, rtol=1e-7, atol=1e-7)  # whole images: read at S
    # at a measured pixel with alpha = 0 the variance is 0 up to rounding (~1e-15), its square root ~3e-8
    np.testing.assert_allclose(rec.std_, std, rtol=1e-6, atol=1e-7)
    assert rec.predict(Xte[:1, S]).shape == (1, 42)
    with pytest.raises(ValueError, match=r"Reshape your data: measurements.reshape\(1, -1\) for one sample"):
        rec.predict(Xte[0, S])


def test_support_is_the_placement_kernel_and_every_k_of_the_path():
    X = _images(2).reshape(80, -1)
    rec = PixelReconstructor(8, alpha=0.01, refine=False).fit(X)
    order, _ = greedy_placement(X - X.mean(0), 8)
    assert rec.order_.tolist() == order.tolist()
    for k in (1, 3, 8):
        assert np.flatnonzero(rec.get_support_at(k)).tolist() == sorted(order[:k].tolist())
        small = PixelReconstructor(k, alpha=0.01, refine=False).fit(X)  # the path without refitting equals a refit at k
        Y = X[:5, np.sort(order[:k])]
        np.testing.assert_allclose(rec.predict(Y, k=k), small.predict(Y), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(rec.get_std_at(k), small.std_, rtol=1e-8, atol=1e-10)
    assert np.all(np.diff(rec.objective_path_) >= -1e-12) and rec.objective_path_[-1] <= 1 + 1e-12


def test_planted_low_rank_images_are_recovered_exactly():
    X = _images(3, rank=3, noise=0.0)
    rec = PixelReconstructor(3, alpha=0.0, shrinkage=None).fit(X[:60])  # the sample covariance: exact
    assert rec.score(X[60:]) == pytest.approx(1.0, abs=1e-8)
    np.testing.assert_allclose(rec.predict(rec.transform(X[60:])), X[60:], atol=1e-8)
    assert rec.std_.shape == (6, 7) and np.max(rec.std_) < 1e-5 * np.max(X.std(axis=0))  # sqrt of rounding


def test_pca_basis_of_full_rank_equals_the_pixel_basis_and_truncation_differs():
    X = _images(4).reshape(80, -1)
    full = PixelReconstructor(6, basis="pca", alpha=0.01).fit(X[:60])
    pix = PixelReconstructor(6, alpha=0.01).fit(X[:60])
    np.testing.assert_allclose(full.predict(X[60:]), pix.predict(X[60:]), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(full.std_, pix.std_, rtol=1e-6, atol=1e-8)
    low = PixelReconstructor(6, basis="pca", n_basis=2, alpha=0.01).fit(X[:60])
    assert low.n_basis_ == 2 and not np.allclose(low.predict(X[60:]), pix.predict(X[60:]))


@pytest.mark.parametrize("seed, noise, n", [(11, 0.05, 45), (12, 2.0, 45), (13, 0.5, 30)])
def test_auto_alpha_is_the_cross_validated_best_of_the_grid(seed, noise, n):
    """Oracle: the textbook conditional mean on each interleaved fold, sensors fixed (42 pixels: more
    images than pixels, and fewer)."""
    from pixsel.selection._reconstruct import ALPHA_GRID

    X = _images(seed, n=n, noise=noise).reshape(n, -1)
    rec = PixelReconstructor(10).fit(X)
    S = np.flatnonzero(rec.get_support())
    folds = np.arange(n) % 3
    errors = {}
    for a in ALPHA_GRID:
        num = den = 0.0
        for f in range(3):
            tr, te = X[folds != f], X[folds == f]
            mean, _ = _textbook(tr, S, a, te[:, S])
            num += np.sum((te - mean) ** 2)
            den += np.sum((te - tr.mean(0)) ** 2)
        errors[a] = np.sqrt(num / den)
    assert rec.alpha_ == min(ALPHA_GRID, key=lambda a: errors[a])
    for a in ALPHA_GRID:
        assert rec.cv_errors_[a] == pytest.approx(errors[a], rel=1e-8)
    assert rec.noise_variance_ == pytest.approx(rec.alpha_ * np.mean(X.var(axis=0, ddof=1)), rel=1e-10)
    if noise > 1:  # noisy images, 10 readings from 30 training images: more than the smallest noise level
        assert rec.alpha_ > ALPHA_GRID[0]


def test_score_is_one_minus_the_relative_error_and_the_mean_scores_zero():
    X = _images(5).reshape(80, -1)
    rec = PixelReconstructor(4).fit(X[:60])
    rel = np.linalg.norm(X[60:] - rec.predict(X[60:])) / np.linalg.norm(X[60:] - rec.mean_)
    assert rec.score(X[60:]) == pytest.approx(1 - rel, rel=1e-12)
    assert 0.5 < rec.score(X[60:]) < 1
    huge = PixelReconstructor(4, alpha=1e12).fit(X[:60])  # readings ignored: the mean image
    assert huge.score(X[60:]) == pytest.approx(0.0, abs=1e-6)


def test_image_stacks_in_and_out_grey_and_colour():
    X = _images(6)
    rec = PixelReconstructor(5, min_distance=2.0).fit(X)
    assert rec.predict(rec.transform(X[:3])).shape == (3, 6, 7) and rec.get_support_image().shape == (6, 7)
    Xc = np.stack([X, 0.5 * X + 1, -X], axis=-1)  # (n, 6, 7, 3)
    colour = PixelReconstructor(4).fit(Xc)
    assert colour.image_shape_ == (6, 7, 3) and colour.get_support().sum() == 12
    assert colour.transform(Xc[:2]).shape == (2, 12)
    assert colour.predict(colour.transform(Xc[:2])).shape == (2, 6, 7, 3)
    assert colour.std_.shape == (6, 7, 3)
    mask = colour.get_support().reshape(6, 7, 3)
    assert np.array_equal(mask.any(-1), mask.all(-1))  # a pixel measures all its channels
    assert np.array_equal(mask[..., 0], colour.get_support_image())


def test_constraints_hold_through_the_estimator_and_input_is_untouched():
    X = _images(7, n=60, shape=(8, 8))
    before = X.copy()
    regions = np.repeat(np.arange(4), 16).reshape(8, 8)
    costs = np.linspace(1, 2, 64).reshape(8, 8)
    rec = PixelReconstructor(6, always_select=[9], never_select=[0, 1, 2], regions=regions, max_per_region=2,
                             min_distance=2.5, costs=costs, budget=10.0, shrinkage=None).fit(X)
    assert np.array_equal(X, before)
    o = rec.order_
    assert o[0] == 9 and not set(o.tolist()) & {0, 1, 2}
    assert np.bincount(regions.ravel()[o], minlength=4).max() <= 2
    assert costs.ravel()[o].sum() <= 10.0
    rc = np.column_stack(np.divmod(o, 8))
    d = np.linalg.norm(rc[:, None] - rc[None], axis=-1) + np.eye(6) * 99
    assert d.min() >= 2.5
    cons = placement_constraints(64, 6, image_shape=(8, 8), always_select=[9], never_select=[0, 1, 2],
                                 regions=regions, max_per_region=2, min_distance=2.5, costs=costs, budget=10.0)
    assert o.tolist() == greedy_placement(X.reshape(60, -1) - X.reshape(60, -1).mean(0), 6,
                                          constraints=cons)[0].tolist()


def test_exactly_n_sensors_per_region_through_the_estimator():
    """min_per_region = max_per_region = 2 on a colour stack: two sensors in each quadrant, the kernel's
    answer, installed sensors counted toward their region's minimum."""
    rng = np.random.default_rng(3)
    X = _images(11, n=50, shape=(8, 8))
    X = np.stack([X, 0.5 * X + rng.standard_normal(X.shape), X ** 2 / 10], axis=-1)  # (50, 8, 8, 3)
    regions = np.add.outer(np.arange(8) >= 4, 2 * (np.arange(8) >= 4)).T.astype(int)  # four quadrants
    rec = PixelReconstructor(8, alpha=0.01, regions=regions, min_per_region=2, max_per_region=2,
                             always_select=[0]).fit(X)
    assert np.bincount(regions.ravel()[rec.order_], minlength=4).tolist() == [2, 2, 2, 2]
    cons = placement_constraints(64, 8, image_shape=(8, 8), regions=regions, min_per_region=2, max_per_region=2,
                                 always_select=[0])
    A = X.reshape(50, -1) - X.reshape(50, -1).mean(0)
    assert rec.order_.tolist() == greedy_placement(A, 8, block=3, constraints=cons)[0].tolist()


def test_float32_and_uint8_images():
    X = _images(8)
    a = PixelReconstructor(4).fit(X.astype(np.float32))
    b = PixelReconstructor(4).fit(np.clip(X * 20 + 60, 0, 255).astype(np.uint8))
    assert a.order_.size == 4 and b.order_.size == 4


@pytest.mark.parametrize("kw, match", [
    (dict(always_select=[0, 1, 2, 3, 4]), "more than k=4"),
    (dict(regions=np.zeros((3, 3), int), max_per_region=1), r"regions has shape \(3, 3\)"),
    (dict(regions=np.zeros((6, 7), int), max_per_region=2), "allow 2 pixels in all, fewer than k=4"),
    (dict(min_distance=6.0), "min_distance=6 leaves room for only"),
    (dict(regions=np.arange(42).reshape(6, 7) % 3, min_per_region=2), "need 6 pixels in all.*raise k to 6"),
    (dict(min_per_region=1), "min_per_region is given without regions"),
    (dict(alpha=-1.0), "'alpha' parameter of PixelReconstructor"),
    (dict(basis="svd"), "'basis' parameter of PixelReconstructor"),
])
def test_bad_constraints_and_parameters_raise_before_work(kw, match):
    with pytest.raises(ValueError, match=match):
        PixelReconstructor(4, **kw).fit(_images(9))


def test_bad_measurements_raise_with_the_fix():
    X = _images(10).reshape(80, -1)
    rec = PixelReconstructor(4).fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but PixelReconstructor is expecting 4 features"):
        rec.predict(np.zeros((2, 3)))
    bad = rec.transform(X[:2]).copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite.*row 1, reading 2"):
        rec.predict(bad)
    with pytest.raises(ValueError, match=r"k must be an int in \[1, 4\]"):
        rec.predict(rec.transform(X[:2]), k=5)
    with pytest.raises(ValueError, match="does not know the image shape"):
        rec.get_support_image()
    assert PixelReconstructor(4, image_shape=(6, 7)).fit(X).get_support_image().shape == (6, 7)


def test_refine_swaps_the_fitted_sensors_and_keeps_the_path():
    """refine: the fitted sensors are the kernel's refined support under the constraints, the
    reconstruction at k is the Gaussian conditional on them, and every shorter k reads the
    greedy path (equal to a plain fit there)."""
    X = _images(12, n=60, shape=(8, 8), rank=6, noise=0.3)
    before = X.copy()
    regions = np.repeat(np.arange(4), 16).reshape(8, 8)
    kw = dict(alpha=0.01, always_select=[9], regions=regions, max_per_region=3, min_distance=1.5, shrinkage=None)
    rec = PixelReconstructor(7, refine=True, **kw).fit(X)
    plain = PixelReconstructor(7, refine=False, **kw).fit(X)
    assert np.array_equal(X, before)
    A = X.reshape(60, -1) - X.reshape(60, -1).mean(0)
    cons = placement_constraints(64, 7, image_shape=(8, 8), always_select=[9], regions=regions, max_per_region=3,
                                 min_distance=1.5)
    res = refine_placement(A, 7, constraints=cons)
    assert res.n_swaps > 0 and rec.n_swaps_ == res.n_swaps  # this draw is improved by swaps
    assert rec.order_.tolist() == plain.order_.tolist() == res.order.tolist()
    assert rec.sensors_.tolist() == res.support.tolist() and rec.sensors_[0] == 9
    assert np.bincount(regions.ravel()[rec.sensors_], minlength=4).max() <= 3
    assert rec.objective_ > plain.objective_ == pytest.approx(plain.objective_path_[-1])
    S = np.flatnonzero(rec.get_support())
    assert S.tolist() == sorted(res.support.tolist()) and rec.get_support_image().sum() == 7
    Xf = X.reshape(60, -1)
    mean, std = _textbook(Xf, S, 0.01, Xf[:5, S])
    np.testing.assert_allclose(rec.predict(Xf[:5, S]), mean.reshape(5, 8, 8), rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(rec.std_, std.reshape(8, 8), rtol=1e-6, atol=1e-7)
    for k in (1, 4, 6):
        assert rec.get_support_at(k).tolist() == plain.get_support_at(k).tolist()
        np.testing.assert_allclose(rec.get_std_at(k), plain.get_std_at(k), rtol=1e-10)
        Y = Xf[:3, np.sort(plain.order_[:k])]
        np.testing.assert_allclose(rec.predict(Y, k=k), plain.predict(Y, k=k), rtol=1e-10, atol=1e-10)
    assert not hasattr(plain, "n_swaps_")


def test_default_swaps_with_more_images_than_pixels_and_shrinks_with_fewer():
    """The defaults (refine='auto', shrinkage='auto'): with more images than pixels and the
    intensity below the threshold, the sample covariance and the swaps (the fit of refine=True,
    shrinkage=None); with fewer, the shrunk covariance and no swaps (refine=False,
    shrinkage='auto'); colour images neither swap nor shrink."""
    many = _images(26, n=400, noise=0.5)  # 400 images of 42 pixels
    default = PixelReconstructor(6).fit(many)
    ref = PixelReconstructor(6, refine=True, shrinkage=None).fit(many)
    assert default.shrinkage_ == 0.0 and default.n_swaps_ == ref.n_swaps_ > 0
    for name in ("order_", "sensors_", "objective_path_", "std_", "support_"):
        np.testing.assert_array_equal(getattr(default, name), getattr(ref, name))
    few = _images(27, n=25, noise=0.5)  # 25 images of 42 pixels
    default = PixelReconstructor(6).fit(few)
    ref = PixelReconstructor(6, refine=False, shrinkage="auto").fit(few)
    assert default.shrinkage_ == ref.shrinkage_ > 0 and not hasattr(default, "n_swaps_")
    for name in ("order_", "sensors_", "objective_path_", "std_"):
        np.testing.assert_array_equal(getattr(default, name), getattr(ref, name))
    colour = PixelReconstructor(4).fit(np.stack([many, 0.5 * many], axis=-1))
    assert colour.shrinkage_ == 0.0 and not hasattr(colour, "n_swaps_")
    with pytest.raises(ValueError, match="'refine' parameter of PixelReconstructor"):
        PixelReconstructor(4, refine="always").fit(few)


def test_refine_is_refused_on_colour_images():
    X = np.stack([_images(13, n=20)] * 3, axis=-1)
    with pytest.raises(ValueError, match="refine swaps single grey pixels.*refine=False"):
        PixelReconstructor(3, refine=True).fit(X)
    assert PixelReconstructor(3, refine=0).fit(X).sensors_.size == 3


# --- shrinkage towards the DCT-diagonal covariance


def _shrunk_textbook(Xtr, shape, rho, S, alpha, Y, T=None):
    """The conditional mean and std under (1 - rho) S + rho T, T the DCT-diagonal part of S."""
    from scipy.fft import dctn

    A = Xtr - Xtr.mean(0)
    p = A.shape[1]
    cov = A.T @ A / (len(Xtr) - 1)
    if T is None:
        Phi = dctn(np.eye(p).reshape(p, *shape), axes=(1, 2), norm="ortho").reshape(p, p)
        T = Phi @ np.diag(np.diag(Phi.T @ cov @ Phi)) @ Phi.T
    cov = (1 - rho) * cov + rho * T
    s2 = alpha * np.trace(cov) / p
    K = cov[np.ix_(S, S)] + s2 * np.eye(len(S))
    mean = Xtr.mean(0) + np.linalg.solve(K, (Y - Xtr.mean(0)[S]).T).T @ cov[S]
    var = np.diag(cov) - np.einsum("ij,ji->i", cov[:, S], np.linalg.solve(K, cov[S]))
    return mean, np.sqrt(np.clip(var, 0, None)), T


@pytest.mark.parametrize("n", [30, 60])  # fewer images than the 42 pixels, and more
def test_shrunk_model_is_the_textbook_conditional_and_the_shrunk_greedy(n):
    from pixsel.stats import DCTPrior, dct_spectrum

    X = _images(21, n=n + 20, noise=0.3)
    Xtr, Xte = X[:n], X[n:].reshape(20, -1)
    rec = PixelReconstructor(6, alpha=0.05, shrinkage=0.7).fit(Xtr)
    assert rec.shrinkage_ == 0.7
    F = Xtr.reshape(n, -1)
    A = F - F.mean(0)
    order, _ = greedy_placement(A, 6, shrinkage=0.7, prior=DCTPrior(dct_spectrum(A, (6, 7))))
    assert rec.order_.tolist() == order.tolist()
    S = np.flatnonzero(rec.get_support())
    mean, std, _ = _shrunk_textbook(F, (6, 7), 0.7, S, 0.05, Xte[:, S])
    np.testing.assert_allclose(rec.predict(Xte).reshape(20, -1), mean, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(rec.std_.ravel(), std, rtol=1e-6, atol=1e-7)
    plain = PixelReconstructor(6, alpha=0.05).fit(Xtr)
    assert not np.allclose(rec.predict(Xte), plain.predict(Xte))


def test_zero_and_unusable_auto_shrinkage_are_the_sample_covariance():
    X = _images(22, n=40)
    base = PixelReconstructor(5, shrinkage=None).fit(X)
    colour = np.repeat(X[..., None], 2, axis=3) + np.random.default_rng(0).normal(size=(40, 6, 7, 2))
    for rec in (PixelReconstructor(5, shrinkage=0.0).fit(X), PixelReconstructor(5, shrinkage=None).fit(X)):
        assert rec.shrinkage_ == 0.0 and rec.order_.tolist() == base.order_.tolist()
        np.testing.assert_allclose(rec.predict(X[:3]), base.predict(X[:3]))
    for rec, ref in ((PixelReconstructor(5, shrinkage="auto").fit(X.reshape(40, -1)), base),  # no image shape
                     (PixelReconstructor(5, shrinkage="auto", basis="pca").fit(X), None),
                     (PixelReconstructor(5, shrinkage="auto").fit(colour), None)):
        assert rec.shrinkage_ == 0.0
        if ref is not None:
            assert rec.order_.tolist() == ref.order_.tolist()


def test_auto_shrinkage_is_ledoit_wolf_and_its_noise_level_the_shrunk_cross_validation():
    """The intensity is dct_shrinkage_intensity's; alpha_ the best of the textbook fold refits of the
    shrunk covariance (each fold's sample covariance, the prior T of all training images)."""
    from pixsel.selection._reconstruct import ALPHA_GRID
    from pixsel.stats import dct_shrinkage_intensity, dct_spectrum

    n = 30
    X = _images(23, n=n, noise=0.5)
    F = X.reshape(n, -1)
    A = F - F.mean(0)
    rec = PixelReconstructor(8, shrinkage="auto").fit(X)
    rho = dct_shrinkage_intensity(A, dct_spectrum(A, (6, 7)))
    assert 0 < rho < 1 and rec.shrinkage_ == pytest.approx(rho, rel=1e-12)
    S = np.flatnonzero(rec.get_support())
    _, _, T = _shrunk_textbook(F, (6, 7), rho, S, 0.0, F[:1, S])
    folds = np.arange(n) % 3
    for a in ALPHA_GRID:
        num = den = 0.0
        for f in range(3):
            tr, te = F[folds != f], F[folds == f]
            mean, _, _ = _shrunk_textbook(tr, (6, 7), rho, S, a, te[:, S], T=T)
            num += np.sum((te - mean) ** 2)
            den += np.sum((te - tr.mean(0)) ** 2)
        assert rec.cv_errors_[a] == pytest.approx(np.sqrt(num / den), rel=1e-8)
    assert rec.alpha_ == min(ALPHA_GRID, key=lambda a: (rec.cv_errors_[a], a))


def test_shrinkage_refine_runs_and_bad_shrinkage_is_refused_before_work():
    X = _images(24, n=30, noise=0.3)
    rec = PixelReconstructor(5, shrinkage=0.5, refine=True).fit(X)
    assert rec.objective_ >= rec.objective_path_[-1] * (1 - 1e-12)
    with pytest.raises(ValueError, match="image_shape"):
        PixelReconstructor(5, shrinkage=0.5).fit(X.reshape(30, -1))
    with pytest.raises(ValueError, match="basis='pixels'"):
        PixelReconstructor(5, shrinkage=0.5, basis="pca").fit(X)
    with pytest.raises(ValueError, match="shrinkage"):
        PixelReconstructor(5, shrinkage=1.5).fit(X)


def test_auto_shrinkage_below_the_threshold_is_the_plain_fit():
    """Many images of few pixels: the intensity is below AUTO_SHRINKAGE_MIN (but not 0), so 'auto'
    is the plain fit, attribute for attribute; above it (few images) 'auto' shrinks by it."""
    from pixsel.selection._reconstruct import AUTO_SHRINKAGE_MIN
    from pixsel.stats import dct_shrinkage_intensity, dct_spectrum

    for n, below in ((400, True), (25, False)):
        X = _images(25, n=n, noise=0.5)
        F = X.reshape(n, -1)
        A = F - F.mean(0)
        rho = dct_shrinkage_intensity(A, dct_spectrum(A, (6, 7)))
        assert 0 < rho and (rho < AUTO_SHRINKAGE_MIN) == below
        auto = PixelReconstructor(6, shrinkage="auto", refine=True).fit(X)
        plain = PixelReconstructor(6, refine=True, shrinkage=None).fit(X)
        if not below:
            assert auto.shrinkage_ == pytest.approx(rho, rel=1e-12)
            assert not np.allclose(auto.std_, plain.std_)
            continue
        assert auto.shrinkage_ == 0.0
        for name in ("order_", "sensors_", "objective_path_", "std_", "support_", "mean_"):
            np.testing.assert_array_equal(getattr(auto, name), getattr(plain, name))
        assert (auto.alpha_, auto.cv_errors_, auto.objective_, auto.n_swaps_) == (
            plain.alpha_, plain.cv_errors_, plain.objective_, plain.n_swaps_)
        np.testing.assert_array_equal(auto.predict(X[:5]), plain.predict(X[:5]))


@pytest.mark.parametrize("n", [30, 60])  # fewer images than the 42 pixels (spectrum of the images), and more (of A^T A)
def test_auto_shrunk_fit_is_the_brute_force_greedy_and_the_textbook_model(n):
    """'auto' above the threshold: the textbook intensity, the brute-force greedy on the dense shrunk
    Gram matrix (1 - rho) A^T A + rho (n - 1) T, and the textbook conditional under it."""
    from scipy.fft import dctn

    from pixsel.stats import dct_shrinkage_intensity

    X = _images(26, n=n + 20, noise=0.8)
    Xtr, Xte = X[:n], X[n:].reshape(20, -1)
    F = Xtr.reshape(n, -1)
    A = F - F.mean(0)
    p = A.shape[1]
    Phi = dctn(np.eye(p).reshape(p, 6, 7), axes=(1, 2), norm="ortho").reshape(p, p)
    lam = np.diag(Phi.T @ (A.T @ A / (n - 1)) @ Phi)
    rho = dct_shrinkage_intensity(A, lam.reshape(6, 7))
    rec = PixelReconstructor(7, alpha=0.05, shrinkage="auto").fit(Xtr)
    assert rec.shrinkage_ == pytest.approx(rho, rel=1e-10) and rho > 0.05
    G = (1 - rho) * A.T @ A + rho * (n - 1) * (Phi @ np.diag(lam) @ Phi.T)
    S = []
    for _ in range(7):  # brute force: the pixel whose addition keeps the most of G'
        mass = {j: np.trace(G[:, S + [j]] @ np.linalg.solve(G[np.ix_(S + [j], S + [j])], G[S + [j]]))
                for j in range(p) if j not in S}
        S.append(max(mass, key=lambda j: (mass[j], -j)))
    assert rec.order_.tolist() == S
    mean, std, _ = _shrunk_textbook(F, (6, 7), rho, np.sort(S), 0.05, Xte[:, np.sort(S)])
    np.testing.assert_allclose(rec.predict(Xte).reshape(20, -1), mean, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(rec.std_.ravel(), std, rtol=1e-6, atol=1e-7)


# --- many pixels: the placement ranks them on a single-precision Gram matrix, the model is exact


@pytest.mark.parametrize("shrinkage", [None, 0.3])  # a given shrinkage takes the exact A^T A from the start
def test_many_pixels_place_on_the_rounded_gram_and_model_on_exact_columns(shrinkage, monkeypatch):
    from scipy.ndimage import gaussian_filter

    import pixsel.selection._reconstruct as rec_module
    from pixsel.scores import placement_gram
    from pixsel.scores._column_subset import column_subset_objective

    rng = np.random.default_rng(31)
    shape = (24, 24)  # 576 pixels: A^T A in single precision for the placement
    X = gaussian_filter(rng.standard_normal((720, *shape)), sigma=(0, 2.0, 2.0)) + 0.02 * rng.standard_normal((720, *shape))
    X = 50.0 * X + 120.0
    Xtr, Xte = X[:650], X[650:].reshape(70, -1)
    F = Xtr.reshape(650, -1)
    A = F - F.mean(0)
    assert placement_gram(A)[1] > 0
    k = 12
    rec = PixelReconstructor(k, alpha=0.02, shrinkage=shrinkage).fit(Xtr)
    calls = []
    monkeypatch.setattr(rec_module, "placement_gram", lambda B: calls.append(1) or (B.T @ B, 0.0))
    ref = PixelReconstructor(k, alpha=0.02, shrinkage=shrinkage).fit(Xtr)  # the same fit on the exact Gram matrix
    assert bool(calls) == (shrinkage is None)  # a given shrinkage never forms the rounded matrix
    if shrinkage is None:  # the swaps ran on the rounded Gram matrix (more images than pixels, no shrinkage)
        assert rec.n_swaps_ == ref.n_swaps_ >= 1
    assert rec.order_.tolist() == ref.order_.tolist() and rec.sensors_.tolist() == ref.sensors_.tolist()
    # the exact route's masses are the greedy's running sums: equal up to their rounding
    np.testing.assert_allclose(rec.objective_path_, ref.objective_path_, rtol=1e-8)
    np.testing.assert_allclose(rec.objective_, ref.objective_, rtol=1e-8)
    np.testing.assert_allclose(rec.predict(Xte), ref.predict(Xte), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(rec.std_, ref.std_, rtol=1e-8, atol=1e-8)
    S = np.sort(rec.sensors_)
    if shrinkage is None:  # against the textbook: kept masses by pseudo-inverse, the Gaussian conditional
        G = A.T @ A
        want = [column_subset_objective(G, rec.order_[:t + 1]) / np.trace(G) for t in range(k)]
        np.testing.assert_allclose(rec.objective_path_, want, rtol=1e-10)
        assert rec.objective_ == pytest.approx(column_subset_objective(G, S) / np.trace(G), rel=1e-10)
        mean, std = _textbook(F, S, 0.02, Xte[:, S])
    else:
        mean, std, _ = _shrunk_textbook(F, shape, shrinkage, S, 0.02, Xte[:, S])
    np.testing.assert_allclose(rec.predict(Xte).reshape(70, -1), mean, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(rec.std_.ravel(), std, rtol=1e-6, atol=1e-7)


@pytest.fixture
def spectrum_dtypes(monkeypatch):
    """The precision of every ``dct_spectrum`` call a fit makes, in order (a spy on the estimator's
    module)."""
    import pixsel.selection._reconstruct as rec_module

    seen = []
    spectrum = rec_module.dct_spectrum

    def spy(*args, **kwargs):
        seen.append(np.dtype(kwargs.get("dtype", np.float64)))
        return spectrum(*args, **kwargs)

    monkeypatch.setattr(rec_module, "dct_spectrum", spy)
    return seen


@pytest.mark.parametrize("shrinkage", ["auto", 0.6])
def test_fewer_images_than_many_pixels_rank_in_single_precision_and_model_on_exact_columns(shrinkage, monkeypatch, spectrum_dtypes):
    """From 512 pixels with fewer images than pixels a shrunk fit ranks on A A^T, the spectrum and
    A T in single precision: the double-precision route's sensors, its masses the exact kept
    masses of the model's own covariance columns, and the textbook's conditional to the accuracy
    of a single-precision spectrum."""
    from scipy.ndimage import gaussian_filter

    import pixsel.scores._placement as placement_module
    from pixsel.scores import kept_mass

    rng = np.random.default_rng(41)
    shape = (24, 24)  # 576 pixels, 120 training images
    X = gaussian_filter(rng.standard_normal((150, *shape)), sigma=(0, 1.5, 1.5)) + 0.3 * rng.standard_normal((150, *shape))
    X = 40.0 * X + 100.0
    Xtr, Xte = X[:120], X[120:].reshape(30, -1)
    seen = spectrum_dtypes
    k = 15
    rec = PixelReconstructor(k, alpha=0.05, shrinkage=shrinkage).fit(Xtr)
    assert seen == [np.float32] and rec.shrinkage_ > 0.05  # the single-precision route ran, shrunk
    with monkeypatch.context() as m:
        m.setattr(placement_module, "SINGLE_GRAM_MIN_FEATURES", 10**9)
        ref = PixelReconstructor(k, alpha=0.05, shrinkage=shrinkage).fit(Xtr)  # all in double precision
    assert seen[1:] == [np.float64]
    assert rec.order_.tolist() == ref.order_.tolist() and rec.sensors_.tolist() == ref.sensors_.tolist()
    assert rec.shrinkage_ == pytest.approx(ref.shrinkage_, rel=1e-5)
    np.testing.assert_allclose(rec.objective_path_, ref.objective_path_, rtol=1e-5)
    np.testing.assert_allclose(rec.predict(Xte), ref.predict(Xte), rtol=1e-5, atol=1e-5 * 100)
    np.testing.assert_allclose(rec.std_, ref.std_, rtol=1e-5)
    # the masses: exact kept masses of the fitted model's covariance columns (not the rounded sums)
    n = 120
    cols = rec._cov[:, :k] * (n - 1)
    total = float(rec._var.sum()) * (n - 1)
    np.testing.assert_allclose(rec.objective_path_, kept_mass(cols, rec._cols[:k]) / total, rtol=1e-12)
    S = np.sort(rec.sensors_)
    mean, std, _ = _shrunk_textbook(Xtr.reshape(n, -1), shape, rec.shrinkage_, S, 0.05, Xte[:, S])
    np.testing.assert_allclose(rec.predict(Xte).reshape(30, -1), mean, rtol=1e-5, atol=1e-5 * 100)
    np.testing.assert_allclose(rec.std_.ravel(), std, rtol=1e-5)
    # images of an unusual scale keep double precision (the steps' products in range): the same fit
    big = PixelReconstructor(k, alpha=0.05, shrinkage=shrinkage).fit(Xtr * 1e8)
    assert seen[2:] == [np.float64] and big.sensors_.tolist() == ref.sensors_.tolist()
    np.testing.assert_allclose(big.objective_path_, ref.objective_path_, rtol=1e-9)


@pytest.mark.parametrize("shrinkage", ["auto", None, 0.3])
def test_sample_covariance_weighing_more_keeps_the_exact_fit(shrinkage, monkeypatch, spectrum_dtypes):
    """Fewer images than (576) pixels where the sample covariance weighs more than the prior (an
    intensity below 0.5, a given one below it, or none): the fit is the double-precision one, the
    same numbers as with the single-precision route switched off (its rounding moves late steps
    of such paths); 'auto' reads its intensity in single precision first, then redoes it exactly."""
    import pixsel.scores._placement as placement_module

    rng = np.random.default_rng(42)
    X = rng.standard_normal((200, 20)) @ rng.standard_normal((20, 576)) + 0.5 * rng.standard_normal((200, 576))
    X = (20.0 * X + 100.0).reshape(200, 24, 24)
    seen = spectrum_dtypes
    rec = PixelReconstructor(40, shrinkage=shrinkage).fit(X)
    if shrinkage == "auto":
        assert 0.05 < rec.shrinkage_ < 0.5 and seen == [np.float32, np.float64]
    else:
        assert seen == ([] if shrinkage is None else [np.float64])
    monkeypatch.setattr(placement_module, "SINGLE_GRAM_MIN_FEATURES", 10**9)
    ref = PixelReconstructor(40, shrinkage=shrinkage).fit(X)
    assert rec.order_.tolist() == ref.order_.tolist() and rec.shrinkage_ == ref.shrinkage_
    np.testing.assert_array_equal(rec.objective_path_, ref.objective_path_)
    np.testing.assert_array_equal(rec.std_, ref.std_)
    assert rec.alpha_ == ref.alpha_


def test_many_colour_pixels_keep_the_exact_path_masses(monkeypatch):
    import pixsel.selection._reconstruct as rec_module

    rng = np.random.default_rng(32)
    X = rng.standard_normal((700, 6)) @ rng.standard_normal((6, 14 * 14 * 3)) + 0.3 * rng.standard_normal((700, 588))
    X = X.reshape(700, 14, 14, 3)  # 588 features: single precision for the placement
    rec = PixelReconstructor(9, alpha=0.05).fit(X)
    monkeypatch.setattr(rec_module, "placement_gram", lambda B: (B.T @ B, 0.0))
    ref = PixelReconstructor(9, alpha=0.05).fit(X)
    assert rec.order_.tolist() == ref.order_.tolist()
    np.testing.assert_allclose(rec.objective_path_, ref.objective_path_, rtol=1e-8)
    np.testing.assert_allclose(rec.std_, ref.std_, rtol=1e-8, atol=1e-8)
