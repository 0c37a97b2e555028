"""Lazy outputs: transform of a Dask array is a Dask array equal to the NumPy transform."""

import dask
import dask.array as da
import numpy as np
import pytest

from pixsel import (
    CardinalSPLSSelector,
    GreedySparsePCA,
    ScoreSelector,
    SparseLDASelector,
    SparseLinearModelProjection,
    SparsePCASelector,
    SPLSSelector,
    SubspaceScoreSelector,
)
from pixsel._lazy import map_row_blocks
from pixsel.decomposition import (
    KernelLPP,
    LocalityPreservingProjection,
    NeighborhoodPreservingEmbedding,
    SpatiallySmoothLPP,
    SpectralRegressionLPP,
)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 120)
    X = rng.standard_normal((120, 16)) + y[:, None] * np.linspace(0, 2, 16)
    return X, y


ESTIMATORS = [
    SparseLDASelector(n_features_to_select=4),
    SparsePCASelector(n_features_to_select=4),
    CardinalSPLSSelector(4, n_components=2),
    SPLSSelector(0.5, n_components=2),
    SubspaceScoreSelector(4, rank=3),
    ScoreSelector(4, criterion="variance"),
    GreedySparsePCA(n_components=2, n_nonzero_coefs=4),
    SparseLinearModelProjection(n_components=2, n_atoms=8, max_iter=3, random_state=0),
    LocalityPreservingProjection(n_components=2),
    NeighborhoodPreservingEmbedding(n_components=2),
    SpectralRegressionLPP(n_components=2),
    SpatiallySmoothLPP(n_components=2, image_shape=(4, 4)),
    KernelLPP(n_components=2),
]


class _CountReads:
    """A Dask array whose chunks count how often they are computed."""

    def __init__(self, X, rows):
        self.calls = 0
        self.X = X
        self.array = da.from_array(X, chunks=(rows, X.shape[1])).map_blocks(
            self._read, dtype=X.dtype, meta=np.empty((0, 0), X.dtype)
        )

    def _read(self, block):
        self.calls += 1
        return block


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_transform_of_dask_is_lazy_dask_equal_to_numpy(est, data):
    X, y = data
    est.fit(X, y)
    ref = est.transform(X)
    src = _CountReads(X, rows=50)
    with dask.config.set(scheduler="sync"):
        out = est.transform(src.array)
        assert isinstance(out, da.Array) and src.calls == 0  # nothing read yet
        assert out.shape == ref.shape and out.chunks[0] == (50, 50, 20)
        got = out.compute()
    assert src.calls == 3
    assert got.dtype == ref.dtype
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)
    if hasattr(est, "get_support"):
        assert type(est.get_support()) is np.ndarray  # masks stay small NumPy


def test_uint8_images_keep_their_dtype_through_selection(data):
    X, y = data
    Xu = (np.clip(X * 20 + 100, 0, 255)).astype(np.uint8)
    sel = SparseLDASelector(n_features_to_select=3).fit(Xu, y)
    out = sel.transform(da.from_array(Xu, chunks=(32, 8)))  # columns chunked too: rejoined per row block
    assert out.dtype == np.uint8 and out.chunks[1] == (3,)
    assert np.array_equal(out.compute(), sel.transform(Xu))


def test_wrong_width_is_reported_before_anything_runs(data):
    X, y = data
    est = GreedySparsePCA(n_components=1, n_nonzero_coefs=3).fit(X)
    with pytest.raises(ValueError, match="X has 15 features, but GreedySparsePCA is expecting 16"):
        est.transform(da.zeros((10, 15), chunks=5))
    sel = SparseLDASelector(n_features_to_select=2).fit(X, y)
    with pytest.raises(ValueError, match="X has 17 features, but SparseLDASelector is expecting 16"):
        sel.transform(da.zeros((10, 17), chunks=5))
    with pytest.raises(ValueError, match="must be 2-D"):
        map_row_blocks(lambda b: b, da.zeros((4, 2, 2), chunks=2))


def test_unfitted_estimator_raises_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        GreedySparsePCA().transform(da.zeros((4, 3), chunks=2))
    with pytest.raises(NotFittedError):
        SparseLDASelector().transform(da.zeros((4, 3), chunks=2))
