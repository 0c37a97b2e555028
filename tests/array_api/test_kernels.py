"""Every converted kernel against its NumPy result: array-api-strict and PyTorch (CPU), float64
to rounding and float32 to float32 precision; results stay in the input's library/device."""

import numpy as np
import pytest

from pixsel._array_api import device_of, to_numpy
from pixsel.scores import (
    block_krylov_svd,
    fisher_score,
    importance,
    subspace_scores,
    supervised_laplacian_score,
    uniform_score,
    variance_score,
)
from pixsel.stats import (
    centered_gram_matmat,
    centered_projected_gram,
    class_means,
    class_statistics,
    class_sums,
    column_moments,
)
from pixsel.scores._subspace import leverage_residual


def _data(n=400, p=30, C=3, seed=0):
    """Labelled data with a large common mean (the uint8-image situation) and a constant column."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.standard_normal((n, p)) @ np.diag(np.linspace(3, 0.2, p)) + 100.0
    X[:, 4] += 2.0 * y
    X[:, 7] = 5.0
    return X, y


def _same(lib, got, want, rtol, scale=None):
    """``got`` is in ``lib`` on its device and agrees with the NumPy ``want``."""
    assert type(got).__module__.split(".")[0] == lib.name.split(".")[0]
    assert device_of(got) == lib.device
    want = np.asarray(want, dtype=np.float64)
    scale = np.max(np.abs(want)) if scale is None else scale
    np.testing.assert_allclose(to_numpy(got, np.float64), want, rtol=rtol, atol=rtol * scale)


def test_class_statistics(lib, dtype, rtol):
    X, y = _data()
    ref = class_statistics(X, y)
    got = class_statistics(lib.asarray(X, dtype), lib.asarray(y))
    np.testing.assert_array_equal(got.classes, ref.classes)
    np.testing.assert_array_equal(got.counts, ref.counts)
    _same(lib, got.within, ref.within, rtol)
    _same(lib, got.means, ref.means, rtol)
    _same(lib, got.mean, ref.mean, rtol)
    _same(lib, got.total, ref.total, rtol)
    _same(lib, got.between_factor @ got.between_factor.T, ref.between_covariance, rtol)
    if dtype == "float32":  # float32 stays float32 on the device
        assert got.within.dtype == lib.xp.float32


def test_class_statistics_blocks_merge_exactly(lib, monkeypatch):
    """Several row blocks (Chan et al.'s merge in the array's namespace) give the one-block result."""
    from pixsel.stats import _moments

    X, y = _data(n=700, p=8)
    ref = class_statistics(X, y)
    monkeypatch.setattr(_moments, "BLOCK_BYTES", 8 * 8 * 256)  # 256-row blocks: 3 of them
    got = class_statistics(lib.asarray(X), lib.asarray(y))
    _same(lib, got.within, ref.within, 1e-10)
    _same(lib, got.means, ref.means, 1e-12)


def test_class_means_and_unlabelled(lib, dtype, rtol):
    X, y = _data(C=2)
    ref = class_means(X, y)
    got = class_means(lib.asarray(X, dtype), lib.asarray(y))
    _same(lib, got.means, ref.means, rtol)
    _same(lib, got.between, ref.between, rtol, scale=1.0)
    one = class_means(lib.asarray(X, dtype))
    _same(lib, one.mean, X.mean(axis=0), rtol)


def test_integer_images_become_float64(lib):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 256, (200, 12)).astype(np.uint8)
    y = np.repeat([0, 1], 100)
    got = class_statistics(lib.asarray(X, lib.xp.uint8), lib.asarray(y))
    assert got.within.dtype == lib.xp.float64
    _same(lib, got.within, class_statistics(X, y).within, 1e-10)


def test_column_moments_and_class_sums(lib, dtype, rtol):
    X, y = _data()
    mean, ss = column_moments(X)
    gm, gss = column_moments(lib.asarray(X, dtype))
    _same(lib, gm, mean, rtol)
    _same(lib, gss, ss, rtol * 100 if dtype == "float32" else rtol)  # sums of n squares
    m0, ss0 = column_moments(lib.asarray(X, dtype), center=False)
    _same(lib, ss0, (X ** 2).sum(axis=0), rtol)
    ref = class_sums(X, y)
    got = class_sums(lib.asarray(X, dtype), lib.asarray(y))
    np.testing.assert_array_equal(got.counts, ref.counts)
    _same(lib, got.sums, ref.sums, 10 * rtol, scale=np.max(np.abs(ref.squares)) ** 0.5 * 10)
    _same(lib, got.squares, ref.squares, 100 * rtol if dtype == "float32" else rtol)


def test_centered_gram_passes(lib):
    X, _ = _data(p=12)
    rng = np.random.default_rng(2)
    V = rng.standard_normal((12, 3))
    mean = X.mean(axis=0)
    Xc = X - mean
    _same(lib, centered_gram_matmat(lib.asarray(X), lib.asarray(V), lib.asarray(mean)),
          Xc.T @ (Xc @ V), 1e-10)
    _same(lib, centered_projected_gram(lib.asarray(X), lib.asarray(V), lib.asarray(mean)),
          (Xc @ V).T @ (Xc @ V), 1e-10)


def test_block_krylov_svd(lib, dtype, rtol):
    X, _ = _data()
    ref = block_krylov_svd(X, 4, random_state=0)
    got = block_krylov_svd(lib.asarray(X, dtype), 4, random_state=0)
    assert (got.n_iter, got.krylov_dim) == (ref.n_iter, ref.krylov_dim)
    _same(lib, got.singular_values, ref.singular_values, rtol)
    # the components: same signs (sign_flip), same vectors; float32 data, float64 small algebra
    _same(lib, got.components, ref.components, 1e-3 if dtype == "float32" else 1e-8, scale=1.0)
    comps = lib.host(got.components)
    np.testing.assert_allclose(comps[:, 7], 0.0, atol=0)  # the constant column: exactly 0
    np.testing.assert_allclose(lib.scalar(got.frobenius_sq), ref.frobenius_sq, rtol=rtol * 100)


def test_subspace_scores(lib, dtype, rtol):
    X, _ = _data()
    ref = subspace_scores(X, 4, random_state=0)
    got = subspace_scores(lib.asarray(X, dtype), 4, random_state=0)
    loose = 1e-3 if dtype == "float32" else 1e-8
    _same(lib, got.scores, ref.scores, loose, scale=np.max(ref.scores))
    _same(lib, got.leverage, ref.leverage, loose, scale=1.0)
    assert lib.scalar(got.gamma) == pytest.approx(ref.gamma, rel=loose)
    lev, res = leverage_residual(got.svd.components, got.svd.singular_values, got.svd.column_sq_norms)
    _same(lib, lev, ref.leverage, loose, scale=1.0)


@pytest.mark.parametrize("score", [fisher_score, supervised_laplacian_score])
def test_supervised_scores(lib, dtype, rtol, score):
    X, y = _data()
    ref = score(X, y)
    got = score(lib.asarray(X, dtype), lib.asarray(y))
    assert lib.owns(got)
    r = lib.host(got, np.float64)  # compared on the host: NumPy cannot read device memory
    ref = np.asarray(ref, dtype=np.float64)
    finite = np.isfinite(ref)
    np.testing.assert_array_equal(np.isfinite(r), finite)  # the constant column: the same verdict
    np.testing.assert_allclose(r[finite], ref[finite], rtol=100 * rtol, atol=100 * rtol)
    imp = importance(score.__name__.removesuffix("_score"), got)
    want = np.asarray(importance(score.__name__.removesuffix("_score"), ref), dtype=np.float64)
    assert lib.owns(imp)
    np.testing.assert_allclose(lib.host(imp, np.float64), want, rtol=100 * rtol, atol=100 * rtol)


def test_unsupervised_baselines(lib, dtype, rtol):
    X, _ = _data()
    _same(lib, variance_score(lib.asarray(X, dtype)), variance_score(X), 100 * rtol)
    _same(lib, uniform_score(lib.asarray(X, dtype)), uniform_score(X), 0)
