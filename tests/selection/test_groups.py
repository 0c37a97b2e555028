"""Selecting whole groups: colour pixels, patches and given ids in the path selectors."""

import numpy as np
import pytest

from pixsel import SparseLDASelector, SparsePCASelector
from pixsel.selection import patch_groups, pixel_groups
from pixsel.spectral import objective_on_support
from pixsel.spectral._groups import brute_force_groups


def _colour(seed=0, n=90, h=5, w=4):
    """A colour stack whose class differs at pixels (1, 2) (all channels) and (3, 0) (red; the last
    row for fewer rows)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, h, w, 3))
    y = np.arange(n) % 2
    X[y == 1, 1, 2, :] += 1.2
    X[y == 1, min(3, h - 1), 0, 0] += 2.0
    return X, y


def test_a_colour_stack_selects_whole_pixels():
    X, y = _colour()
    sel = SparseLDASelector(2).fit(X, y)
    assert sel.image_shape_ == (5, 4, 3)
    assert sel.n_groups_ == 20 and sel.group_support_.sum() == 2
    assert sel.image_support_.shape == (5, 4)
    assert {tuple(ij) for ij in np.argwhere(sel.image_support_)} == {(1, 2), (3, 0)}
    mask = sel.get_support()
    assert mask.shape == (60,) and sel.n_features_selected_ == 6 == mask.sum()
    # every channel of a chosen pixel, none of the others
    np.testing.assert_array_equal(mask.reshape(5, 4, 3), np.repeat(sel.image_support_[:, :, None], 3, axis=2))
    np.testing.assert_array_equal(sel.transform(X), X.reshape(len(X), -1)[:, mask])
    np.testing.assert_array_equal(sel.transform(X.reshape(len(X), -1)), sel.transform(X))
    # the objective at k is that of the union (the selector's own statistics)
    fwd = sel.forward_path_
    assert np.isclose(fwd.objective[1], objective_on_support(fwd.A, fwd.B, fwd.support(2)))
    assert sel.get_support_at(3, indices=True).size == 9


def test_channels_select_single_features_of_a_colour_stack():
    X, y = _colour()
    sel = SparseLDASelector(2, groups="channels").fit(X, y)
    assert sel.n_features_selected_ == 2 and sel.groups_ is None and sel.image_support_.shape == (5, 4)


@pytest.mark.parametrize("direction", ["forward", "backward", "dual"])
def test_groups_of_one_feature_give_todays_selection(direction):
    X, y = _colour(1)
    X2 = X.reshape(len(X), -1)
    ref = SparseLDASelector(4, direction=direction).fit(X2, y)
    sel = SparseLDASelector(4, direction=direction, groups=np.arange(60)).fit(X2, y)
    np.testing.assert_array_equal(sel.get_support(), ref.get_support())
    np.testing.assert_allclose(sel.objective_path_, ref.objective_path_, rtol=1e-9)
    assert len(sel.objective_path_) == len(ref.objective_path_)
    for k in (1, 7, len(ref.objective_path_)):
        np.testing.assert_array_equal(sel.get_support_at(k), ref.get_support_at(k))


def test_multiclass_groups_of_one_feature_give_todays_forward_path():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((120, 12))
    y = np.arange(120) % 3
    X[y == 1, 2] += 1.5
    X[y == 2, 7] += 1.0
    ref = SparseLDASelector(3, direction="forward", path="full").fit(X, y)
    sel = SparseLDASelector(3, direction="forward", path="full", groups=np.arange(12)).fit(X, y)
    np.testing.assert_array_equal(sel.forward_path_.order, ref.forward_path_.order)
    np.testing.assert_allclose(sel.objective_path_, ref.objective_path_, rtol=1e-9)


def test_sparse_pca_groups_of_one_feature_give_todays_forward_path():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 10)) * rng.uniform(0.5, 3, 10)
    ref = SparsePCASelector(4, refine=False).fit(X)
    sel = SparsePCASelector(4, groups=np.arange(10)).fit(X)
    np.testing.assert_array_equal(sel.get_support(), ref.get_support())
    assert np.isclose(sel.explained_variance_, ref.explained_variance_)


@pytest.mark.parametrize("Est", [SparseLDASelector, SparsePCASelector])
def test_exact_group_search_is_the_brute_force_optimum(Est):
    X, y = _colour(4, n=60, h=3, w=3)
    sel = Est(3, solver="exact").fit(X, y)
    assert sel.status_ == "optimal" and sel.gap_ == 0.0
    path = sel.forward_path_
    codes, best = brute_force_groups(path.A, path.B, pixel_groups((3, 3, 3)), 3)
    np.testing.assert_array_equal(np.flatnonzero(sel.group_support_), codes)
    assert np.isclose(sel.objective_path_[2], best)


def test_an_exact_group_search_stopped_early_warns_and_keeps_its_certificate():
    from sklearn.exceptions import ConvergenceWarning

    X, y = _colour(4, n=60, h=3, w=3)
    with pytest.warns(ConvergenceWarning, match="exact group search stopped .* no union of 3 groups exceeds"):
        sel = SparseLDASelector(3, solver="exact", node_limit=0).fit(X, y)
    assert sel.status_ != "optimal" and sel.n_nodes_ == 0
    assert sel.upper_bound_ >= sel.objective_path_[2] and sel.gap_ >= 0
    assert sel.group_support_.sum() == 3  # the greedy groups at k, the incumbent, are kept


def test_patches_of_a_grey_and_a_colour_stack():
    X, y = _colour(5, h=4, w=6)
    sel = SparseLDASelector(1, patch_size=(2, 3)).fit(X, y)  # (1, 2) and (3, 0) are in two patches
    assert sel.n_groups_ == 4 and sel.n_features_selected_ == 2 * 3 * 3
    assert sel.image_support_.sum() == 6
    grey = SparseLDASelector(2, patch_size=(2, 2)).fit(X[..., 0], y)
    assert grey.image_shape_ == (4, 6) and grey.n_features_selected_ == 8
    assert grey.image_support_[3, 0]  # the red difference is a grey one too
    np.testing.assert_array_equal(patch_groups((2, 4, 2), (1, 2)), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3])


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"n_features_to_select": 21}, r"counts pixels .* range \[1, 20\] .* Got 21"),
        ({"patch_size": (2, 3)}, r"patch_size=\(2, 3\) does not tile images of 5 x 4 pixels"),
        ({"groups": np.arange(59)}, "X has 60 features but groups has 59 entries"),
        ({"groups": np.r_[np.nan, np.arange(59.0)]}, "NaN"),
        ({"groups": "pixels"}, "'channels' or None"),
        ({"groups": np.arange(60), "patch_size": (1, 1)}, "not both"),
        ({"algorithm": "implicit"}, "algorithm='dense'"),
    ],
)
def test_bad_groups_say_how_to_fix_them(params, match):
    X, y = _colour()
    with pytest.raises(ValueError, match=match):
        SparseLDASelector(**params).fit(X, y)


def test_patches_need_the_image_shape():
    X, y = _colour()
    with pytest.raises(ValueError, match=r"pass X as an image stack"):
        SparsePCASelector(2, patch_size=(1, 2)).fit(X.reshape(len(X), -1))
    sel = SparseLDASelector(2).fit(X, y)
    with pytest.raises(ValueError, match=r"fitted on images of shape \(5, 4, 3\)"):
        sel.transform(X[:, :4])


def test_the_callers_stack_is_not_modified():
    X, y = _colour()
    before = X.copy()
    SparsePCASelector(2).fit(X)
    SparseLDASelector(2, solver="exact").fit(X, y)
    np.testing.assert_array_equal(X, before)
