"""Every public selector on image stacks: grey ``(n, h, w)`` and colour ``(n, h, w, c)``.

One contract, one mechanism (``ImageSelectorMixin`` and ``pixsel._validation.image_stack``): the
stack is flattened in C order, its shape kept in ``image_shape_``, ``get_support_image()`` is
``get_support()`` in that shape, ``transform`` reads the stack as ``fit`` did, ``ranking_`` is
there where the selector ranks, scikit-learn's model selection works on stacks, and the caller's
array is never written to.
"""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline

import pixsel
from pixsel import (
    CardinalSPLSSelector,
    ColumnSubsetSelector,
    PathSelectorCV,
    ScoreSelector,
    SparseLDASelector,
    SparsePCASelector,
    SPLSSelector,
    SubspaceScoreSelector,
)
from pixsel._validation import image_stack

#: every public selector, at small settings; the grid GridSearchCV searches on a stack
SELECTORS = {
    "SparseLDASelector": (lambda: SparseLDASelector(3), {"n_features_to_select": [2, 3]}),
    "SparsePCASelector": (lambda: SparsePCASelector(3), {"n_features_to_select": [2, 3]}),
    "CardinalSPLSSelector": (lambda: CardinalSPLSSelector(3), {"n_features_to_select": [2, 3]}),
    "SPLSSelector": (lambda: SPLSSelector(eta=0.7), {"eta": [0.5, 0.7]}),
    "SubspaceScoreSelector": (lambda: SubspaceScoreSelector(3, rank=2, random_state=0), {"n_features_to_select": [2, 3]}),
    "ScoreSelector": (lambda: ScoreSelector(3), {"n_features_to_select": [2, 3]}),
    "ColumnSubsetSelector": (lambda: ColumnSubsetSelector(3), {"n_features_to_select": [2, 3]}),
    "PathSelectorCV": (lambda: PathSelectorCV(SparseLDASelector(), k_grid=[1, 2, 3], cv=3), {"rule": ["best", "one-se"]}),
}
#: selectors whose support is the top of ``ranking_`` (the first ``n_features_to_select_``)
TOP_OF_RANKING = {"SparseLDASelector", "SparsePCASelector", "ScoreSelector", "ColumnSubsetSelector", "PathSelectorCV"}
#: a colour stack makes these choose whole pixels (all channels of a pixel, a group); the others
#: choose channel values, exactly as on the flattened rows
GROUP_PIXELS = {"SparseLDASelector", "SparsePCASelector"}
SHAPES = {"grey": (6, 5), "colour": (6, 5, 3)}


def _stack(kind, n=60, seed=0):
    """uint8 images, as read from PNG files; class 1 brighter at one pixel, class 2 at another."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 200, size=(n, *SHAPES[kind])).astype(np.uint8)
    y = np.arange(n) % 3
    X[y == 1, 1, 2] += 50
    X[y == 2, 4, 1] += 50
    return X, y


def test_every_public_selector_is_covered():
    public = {name for name in pixsel.__all__ if name.endswith(("Selector", "SelectorCV"))}
    assert public == set(SELECTORS)


@pytest.mark.parametrize("kind", sorted(SHAPES))
@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_selector_fits_and_transforms_an_image_stack(name, kind):
    X, y = _stack(kind)
    X.setflags(write=False)  # any write into the caller's array raises
    before = X.copy()
    n, shape = len(X), SHAPES[kind]
    flat = X.reshape(n, -1)
    est = SELECTORS[name][0]().fit(X, y)
    assert est.image_shape_ == shape and est.n_features_in_ == int(np.prod(shape))

    support = est.get_support()
    image = est.get_support_image()
    assert image.shape == shape and image.dtype == bool and support.any()
    np.testing.assert_array_equal(image, support.reshape(shape))
    if kind == "colour" and name in GROUP_PIXELS:  # whole pixels: every channel or none
        assert np.all(image.all(axis=2) == image.any(axis=2))

    out = est.transform(X)  # the stack read as fit read it
    np.testing.assert_array_equal(out, est.transform(flat))
    np.testing.assert_allclose(out, flat[:, support])
    if not (kind == "colour" and name in GROUP_PIXELS):  # the same fit as on the flattened rows
        np.testing.assert_array_equal(SELECTORS[name][0]().fit(flat, y).get_support(), support)

    if name in TOP_OF_RANKING | {"SubspaceScoreSelector"}:
        ranking = np.asarray(est.ranking_)
        assert ranking.shape == (est.n_features_in_,) and ranking.dtype.kind in "iu" and ranking.min() == 1
        if name in TOP_OF_RANKING:
            np.testing.assert_array_equal(ranking <= est.n_features_to_select_, support)
        else:  # sampled by the scores: ranking_ orders the scores (1 = highest)
            assert np.all(np.diff(np.asarray(est.scores_)[np.argsort(ranking)]) <= 0)
            assert sorted(ranking.tolist()) == list(range(1, ranking.size + 1))
    else:  # the SPLS selectors add features by iteration, they do not rank them
        assert not hasattr(est, "ranking_")
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize("kind", sorted(SHAPES))
@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_grid_search_on_an_image_stack(name, kind):
    X, y = _stack(kind, n=90)
    before = X.copy()
    make, grid = SELECTORS[name]
    pipe = Pipeline([("select", make()), ("knn", KNeighborsClassifier(1))])
    gs = GridSearchCV(pipe, {f"select__{k}": v for k, v in grid.items()}, cv=3, error_score="raise").fit(X, y)
    assert gs.best_estimator_["select"].image_shape_ == SHAPES[kind]
    assert gs.predict(X).shape == (len(X),)  # the pipeline's transform reads the stack
    assert np.all(np.isfinite(gs.cv_results_["mean_test_score"]))
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_other_images_at_transform_are_refused_with_the_fix(name):
    X, y = _stack("colour")
    est = SELECTORS[name][0]().fit(X, y)
    with pytest.raises(ValueError, match=r"fitted on images of shape \(6, 5, 3\).*resize them to \(6, 5, 3\)"):
        est.transform(np.zeros((4, 5, 6, 3)))
    with pytest.raises(ValueError, match=r"pass a colour stack of shape \(n_samples, 6, 5, 3\)"):
        est.transform(np.zeros((4, 6, 5, 1)))
    grey = SELECTORS[name][0]().fit(*_stack("grey"))
    with pytest.raises(ValueError, match=r"convert them to grey, a stack of shape \(n_samples, 6, 5\)"):
        grey.transform(X)


def test_a_fit_on_rows_forgets_the_images_and_reads_any_stack_of_its_size():
    X, y = _stack("colour")
    est = ColumnSubsetSelector(4).fit(X, y)
    est.fit(X.reshape(len(X), -1))
    assert est.image_shape_ is None
    with pytest.raises(ValueError, match=r"image_shape=\(height, width\)"):
        est.get_support_image()
    assert est.get_support_image((6, 5, 3)).shape == (6, 5, 3)
    np.testing.assert_array_equal(est.transform(X), est.transform(X.reshape(len(X), -1)))


def test_image_stack_reshapes_in_c_order_without_a_copy_and_refuses_five_dimensions():
    X = np.arange(2 * 3 * 4 * 2).reshape(2, 3, 4, 2)
    flat, shape = image_stack(X)
    assert shape == (3, 4, 2) and flat.shape == (2, 24) and np.shares_memory(flat, X)
    assert flat[1, (2 * 4 + 3) * 2 + 1] == X[1, 2, 3, 1]  # feature (i * w + j) * c + ch
    with pytest.raises(ValueError, match=r"ColumnSubsetSelector takes X .* got 5 dimensions.*reshape"):
        ColumnSubsetSelector(2).fit(np.zeros((4, 2, 2, 2, 2)))


def test_path_selector_cv_refit_keeps_no_ranking_of_an_earlier_selector():
    X, y = _stack("grey")
    est = PathSelectorCV(SparseLDASelector(), k_grid=[1, 2], cv=3).fit(X, y)
    assert est.ranking_.shape == (30,)
    est.set_params(selector=CardinalSPLSSelector()).fit(X, y)
    assert not hasattr(est, "ranking_") and est.support_.sum() == est.n_features_to_select_
