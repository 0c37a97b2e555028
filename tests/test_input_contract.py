"""The estimators' input contract: text refused as scikit-learn refuses it, errors that name the
fix for empty and non-finite X, image stacks (n, h, w) accepted with image_shape_ kept and the
support available as an image."""

import numpy as np
import pytest
from sklearn.feature_selection import SelectKBest

from pixsel import (
    CardinalSPLSSelector,
    GreedySparsePCA,
    PathSelectorCV,
    ScoreSelector,
    SparseLDASelector,
    SparseLinearModelProjection,
    SparsePCASelector,
    SubspaceScoreSelector,
)
from pixsel.decomposition import LocalityPreservingProjection
from pixsel.gp import GaussianProcessProbitClassifier

SELECTORS = [
    lambda: SparseLDASelector(4),
    lambda: SparsePCASelector(4),
    lambda: CardinalSPLSSelector(4),
    lambda: SubspaceScoreSelector(4, random_state=0),
    lambda: ScoreSelector(4),
]
OTHERS = [
    lambda: PathSelectorCV(SparseLDASelector(1), cv=3),
    lambda: GreedySparsePCA(2),
    lambda: SparseLinearModelProjection(2, n_atoms=12, random_state=0),
    lambda: LocalityPreservingProjection(2),
    lambda: GaussianProcessProbitClassifier(),
]


def _data(shape=(6, 5), n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, *shape))
    y = np.arange(n) % 2
    X[y == 1, 1, 2] += 2.0  # one informative pixel
    return X, y


@pytest.mark.parametrize("make", SELECTORS + OTHERS)
def test_numeric_strings_are_refused_like_scikit_learn(make):
    X, y = _data()
    text = X.reshape(len(X), -1).astype(str)
    with pytest.raises((TypeError, ValueError)):  # scikit-learn's own selectors refuse them too
        SelectKBest(k=2).fit(text, y)
    with pytest.raises(TypeError, match=r"X holds text .*X\.astype\(float\)"):
        make().fit(text, y)


@pytest.mark.parametrize("make", SELECTORS)
def test_image_stacks_are_accepted_and_the_support_is_an_image(make):
    X, y = _data()
    flat = X.reshape(len(X), -1)
    est = make().fit(X, y)
    assert est.image_shape_ == (6, 5) and est.n_features_in_ == 30
    ref = make().fit(flat, y)
    np.testing.assert_array_equal(est.get_support(), ref.get_support())  # the same fit as flattened
    image = est.get_support_image()
    assert image.shape == (6, 5) and image.dtype == bool
    np.testing.assert_array_equal(image.ravel(), est.get_support())
    np.testing.assert_array_equal(est.transform(X), ref.transform(flat))
    with pytest.raises(ValueError, match=r"images of shape \(6, 5\).*[Rr]esize them"):
        est.transform(X[:, :5, :6])
    # a later 2-D fit forgets the image shape, and says how to give it
    est.fit(flat, y)
    assert getattr(est, "image_shape_", None) is None
    with pytest.raises(ValueError, match=r"image_shape=\(height, width\)"):
        est.get_support_image()
    assert est.get_support_image((6, 5)).shape == (6, 5)


@pytest.mark.parametrize("make", OTHERS)
def test_every_other_estimator_accepts_image_stacks(make):
    X, y = _data()
    est = make().fit(X, y)
    assert est.image_shape_ == (6, 5) and est.n_features_in_ == 30
    out = est.transform(X) if hasattr(est, "transform") else est.predict(X)
    assert out.shape[0] == len(X)


@pytest.mark.parametrize("fill, match", [
    ("nan", r"1 NaN or infinite value\(s\), the first at index \(3, 5\).*SimpleImputer"),
    ("inf", r"1 NaN or infinite value\(s\), the first at index \(3, 5\)"),
    ("empty", r"no samples .*at least 2 samples"),
])
def test_bad_values_name_the_fix(fill, match):
    X, y = _data()
    X = X.reshape(len(X), -1)
    if fill == "empty":
        X, y = X[:0], y[:0]
    else:
        X[3, 5] = np.nan if fill == "nan" else np.inf
    with pytest.raises(ValueError, match=match) as info:
        SparseLDASelector(2).fit(X, y)
    assert "HistGradientBoosting" not in str(info.value)


def test_the_callers_stack_is_not_modified():
    X, y = _data()
    before = X.copy()
    SparseLDASelector(3).fit(X, y)
    np.testing.assert_array_equal(X, before)
