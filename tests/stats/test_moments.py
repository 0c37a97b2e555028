import numpy as np
import pytest

from pixsel.stats import class_statistics, ledoit_wolf_from_rows, regularize


def _direct(X, y):
    X = X.astype(np.float64)
    classes = np.unique(y)
    n = len(X)
    means = np.stack([X[y == c].mean(0) for c in classes])
    W = sum((X[y == c] - m).T @ (X[y == c] - m) for c, m in zip(classes, means)) / n
    T = np.cov(X.T, bias=True)
    return means, W, T


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_statistics_match_direct_formulas(dtype, n_classes):
    rng = np.random.default_rng(n_classes)
    X = (rng.random((5000, 17)) * 200 + 50).astype(dtype)  # large means: cancellation-prone
    y = rng.integers(0, n_classes, len(X))
    st = class_statistics(X, y)
    means, W, T = _direct(X, y)
    assert np.allclose(st.means, means, rtol=1e-12, atol=0)
    assert np.allclose(st.within, W, rtol=1e-10, atol=1e-10 * np.abs(W).max())
    assert np.allclose(st.total, T, rtol=1e-10, atol=1e-10 * np.abs(T).max())
    M = st.between_factor
    assert M.shape == (17, n_classes - 1)
    pi = st.priors
    Sb = sum(pi[c] * np.outer(means[c] - st.mean, means[c] - st.mean) for c in range(n_classes))
    assert np.allclose(M @ M.T, Sb, atol=1e-10 * np.abs(Sb).max())
    if n_classes == 2:
        a = st.between
        assert np.allclose(a, means[1] - means[0])
        assert np.allclose(Sb, pi[0] * pi[1] * np.outer(a, a), atol=1e-10 * np.abs(Sb).max())


def test_dask_equals_numpy_default_scheduler():
    import dask.array as da
    rng = np.random.default_rng(0)
    X = (rng.random((3000, 40)) * 255).astype(np.uint8)
    y = rng.integers(0, 3, len(X))
    ref = class_statistics(X, y)
    got = class_statistics(da.from_array(X, chunks=(701, 13)), y)
    scale = np.abs(ref.within).max()
    assert np.max(np.abs(got.within - ref.within)) <= 1e-10 * scale
    assert np.allclose(got.means, ref.means, rtol=1e-12)
    assert np.array_equal(got.counts, ref.counts)


def test_dask_under_local_cluster():
    distributed = pytest.importorskip("dask.distributed")
    import dask.array as da
    rng = np.random.default_rng(1)
    X = rng.standard_normal((2000, 12)).astype(np.float32) + 5
    y = rng.integers(0, 2, len(X))
    ref = class_statistics(X, y)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster):
        got = class_statistics(da.from_array(X, chunks=(333, 12)), y)
    assert np.max(np.abs(got.within - ref.within)) <= 1e-10 * np.abs(ref.within).max()
    assert np.allclose(got.between, ref.between, rtol=1e-10)


def test_input_not_modified_and_errors():
    X = np.arange(20.0).reshape(10, 2)
    X0 = X.copy()
    y = np.array([0, 1] * 5)
    class_statistics(X, y)
    assert np.array_equal(X, X0)
    with pytest.raises(ValueError, match="rows but y has"):
        class_statistics(X, y[:-1])
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        class_statistics(Xn, y)
    with pytest.raises(ValueError, match="2 classes"):
        _ = class_statistics(X, np.arange(10) % 3).between


def test_regularization_recorded():
    B = np.diag([2.0, 0.0, 1.0])
    B_auto, info = regularize(B, "auto")
    assert info.method == "auto" and info.alpha == pytest.approx(1e-3)
    assert np.all(np.linalg.eigvalsh(B_auto) > 0)
    assert np.array_equal(B, np.diag([2.0, 0.0, 1.0]))  # not modified
    B_r, info = regularize(B, 0.5)
    assert np.allclose(np.diag(B_r), [2.5, 0.5, 1.5]) and info.method == "ridge"
    same, info = regularize(B, "none")
    assert np.array_equal(same, B) and info.alpha == 0
    with pytest.raises(ValueError, match="regularization"):
        regularize(B, -1.0)
    with pytest.raises(ValueError, match="regularization"):
        regularize(B, "lots")


def test_symmetrize_lower_is_the_tril_sum_to_the_bit():
    """The within-class scatter's mirror writes what ``tril(D) + tril(D, -1).T`` gives on the
    diagonal tiles (signed zeros included) and the transposed lower part elsewhere."""
    from pixsel.stats._moments import _MIRROR, _symmetrize_lower

    rng = np.random.default_rng(0)
    for p in (1, 2, 5, _MIRROR - 1, _MIRROR + 3):
        W = np.asfortranarray(rng.standard_normal((p, p)))
        W[rng.random((p, p)) < 0.1] = -0.0
        want = W.copy(order="F")
        for j in range(0, p, _MIRROR):  # the tril sum on each diagonal tile, then the transposed copy
            k = min(j + _MIRROR, p)
            D = want[j:k, j:k]
            D[...] = np.tril(D) + np.tril(D, -1).T
            want[j:k, k:] = want[k:, j:k].T
        _symmetrize_lower(W)
        assert np.array_equal(W, want) and np.array_equal(np.signbit(W), np.signbit(want))


def test_ledoit_wolf_matches_sklearn_and_dask():
    from sklearn.covariance import ledoit_wolf_shrinkage

    import dask.array as da
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 30)) @ rng.standard_normal((30, 30))
    y = rng.integers(0, 2, 60)
    st = class_statistics(X, y)
    R = X - st.means[np.searchsorted(st.classes, y)]
    expected = ledoit_wolf_shrinkage(R, assume_centered=True)
    _, info = regularize(st.within, "ledoit-wolf", X=X, y=y, means=st.means, classes=st.classes)
    assert info.shrinkage == pytest.approx(expected, rel=1e-12)
    _, info_d = regularize(
        st.within, "ledoit-wolf", X=da.from_array(X, chunks=(17, 10)), y=y, means=st.means, classes=st.classes
    )
    assert info_d.shrinkage == pytest.approx(expected, rel=1e-9)
    # fewer samples than features (faces): the same intensity, also from the rows alone
    X = rng.standard_normal((25, 70)) + rng.standard_normal((25, 1))
    y = np.arange(25) % 3
    st = class_statistics(X, y)
    R = X - st.means[np.searchsorted(st.classes, y)]
    expected = ledoit_wolf_shrinkage(R, assume_centered=True)
    _, info = regularize(st.within, "ledoit-wolf", X=X, y=y, means=st.means, classes=st.classes)
    assert 0 < expected < 1 and info.shrinkage == pytest.approx(expected, rel=1e-10)
    assert ledoit_wolf_from_rows(X, y, st.means, st.classes) == pytest.approx(expected, rel=1e-10)


def test_ledoit_wolf_floor_is_the_intensity_or_its_floor():
    """'ledoit-wolf-floor' is scikit-learn's intensity where that is above SHRINKAGE_FLOOR and the
    floor below it, applied as (1 - s) B + s mu I (the textbook shrunk covariance)."""
    from sklearn.covariance import ledoit_wolf_shrinkage

    from pixsel.stats import SHRINKAGE_FLOOR, shrinkage_regularization

    rng = np.random.default_rng(5)
    scales = np.geomspace(0.1, 10.0, 12)  # far from spherical: many samples give a tiny intensity
    for n, below in ((40, False), (4000, True)):
        X = rng.standard_normal((n, 12)) * scales
        y = np.arange(n) % 3
        st = class_statistics(X, y)
        R = X - st.means[np.searchsorted(st.classes, y)]
        expected = ledoit_wolf_shrinkage(R, assume_centered=True)
        assert (expected < SHRINKAGE_FLOOR) == below
        kw = dict(X=X, y=y, means=st.means, classes=st.classes)
        B_lw, lw = regularize(st.within, "ledoit-wolf", **kw)
        B_fl, fl = regularize(st.within, "ledoit-wolf-floor", **kw)
        assert lw.shrinkage == pytest.approx(expected, rel=1e-10)
        assert fl.method == "ledoit-wolf-floor" and fl.shrinkage == pytest.approx(max(expected, SHRINKAGE_FLOOR))
        mu = np.trace(st.within) / 12
        np.testing.assert_allclose(B_fl, (1 - fl.shrinkage) * st.within + fl.shrinkage * mu * np.eye(12))
        if not below:
            np.testing.assert_array_equal(B_fl, B_lw)
    assert shrinkage_regularization("ledoit-wolf-floor", 0.5, 1.0).shrinkage == 0.5
    with pytest.raises(ValueError, match="must be one of"):
        shrinkage_regularization("rda", 0.5, 1.0)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
def test_one_block_fast_path_is_block_reduce_to_the_bit(dtype, monkeypatch):
    """A NumPy X of one block takes its partial directly: the same bits as block_reduce's
    single-block fold, to rounding the same as many blocks; Dask input still goes through
    block_reduce; a NaN is still reported at its row."""
    import dask.array as da

    import pixsel.stats._moments as mo

    rng = np.random.default_rng(0)
    X = (rng.random((300, 9)) * 200 + 50).astype(dtype)
    y = rng.integers(0, 3, len(X))
    calls = []
    real_reduce = mo.block_reduce

    def counting_reduce(*args, **kwargs):
        calls.append(type(args[2]).__name__)
        return real_reduce(*args, **kwargs)

    monkeypatch.setattr(mo, "block_reduce", counting_reduce)
    fast = class_statistics(X, y)
    assert calls == []  # one block: no reduction machinery
    monkeypatch.setattr(mo, "single_block", lambda *a, **k: None)  # the general path, still one block
    general = class_statistics(X, y)
    assert calls == ["ndarray"]
    for name in ("classes", "counts", "means", "mean", "within"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(general, name))
    assert fast.n_samples == general.n_samples
    monkeypatch.setattr(mo, "BLOCK_BYTES", 8 * 9 * 7)  # 7 rows per block (min_rows 256 -> 256): two blocks
    blocked = class_statistics(X, y)
    np.testing.assert_allclose(blocked.within, fast.within, rtol=1e-10, atol=1e-12 * np.abs(fast.within).max())
    np.testing.assert_allclose(blocked.means, fast.means, rtol=1e-12)
    monkeypatch.undo()
    monkeypatch.setattr(mo, "block_reduce", counting_reduce)
    lazy = class_statistics(da.from_array(X, chunks=(300, 9)), y)
    assert calls[-1] == "Array"  # a Dask array goes the general way
    np.testing.assert_allclose(lazy.within, fast.within, rtol=1e-12, atol=1e-14 * np.abs(fast.within).max())
    bad = X.astype(np.float64)
    bad[123, 4] = np.nan
    with pytest.raises(ValueError, match="123"):
        class_statistics(bad, y)


@pytest.mark.parametrize("method", ["ledoit-wolf", "ledoit-wolf-floor"])
def test_ledoit_wolf_one_block_is_the_reduction_to_the_bit(method, monkeypatch):
    """The fourth moment of a NumPy X of one block is its partial, merged: the same intensity as
    through block_reduce (a Dask X of one chunk goes that way)."""
    import dask.array as da

    import pixsel.stats._reduce as red

    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 12)) * 3 + 7
    y = np.arange(40) % 2
    st = class_statistics(X, y)
    calls = []
    real_reduce = red.block_reduce
    monkeypatch.setattr(red, "block_reduce", lambda *a, **k: calls.append(1) or real_reduce(*a, **k))
    B, info = regularize(st.within, method, X=X, y=y, means=st.means, classes=st.classes)
    assert not calls  # one NumPy block: its partial directly
    B2, info2 = regularize(st.within, method, X=da.from_array(X, chunks=(40, 12)), y=y, means=st.means,
                           classes=st.classes)
    assert calls  # the general path ran
    assert info.shrinkage == info2.shrinkage and info.shrinkage > 0
    np.testing.assert_array_equal(B, B2)
