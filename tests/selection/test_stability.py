"""Stability option of the path selectors, ranking_ (entry order) and the frequency figure."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils import check_random_state

from pixsel.selection import SparseLDASelector, SparsePCASelector
from pixsel.selection._base import half_samples
from pixsel.viz import plot_selection_frequencies


def _planted_lda(seed, n=120, p=30):
    """Features 0-2 carry the class difference, the rest are noise."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.standard_normal((n, p))
    X[:, :3] += 3.0 * y[:, None]
    return X, y


def test_frequencies_are_the_resampled_supports():
    """Oracle: the frequencies equal a by-hand loop over the same half-samples."""
    X, y = _planted_lda(0)
    sel = SparseLDASelector(4, stability=6, random_state=3).fit(X, y)
    rng = check_random_state(3)
    counts = np.zeros(X.shape[1])
    for _ in range(6):
        idx = half_samples(y, len(y), rng)
        assert np.all(np.bincount(y[idx]) == np.bincount(y) // 2)  # every class halved
        counts += SparseLDASelector(4).fit(X[idx], y[idx]).get_support()
    assert np.array_equal(sel.selection_frequencies_, counts / 6)
    assert sel.scores_ is sel.selection_frequencies_
    mask = sel.get_support()
    freq = sel.selection_frequencies_
    assert mask.sum() == 4 and freq[mask].min() >= freq[~mask].max()  # the most frequent are kept


@pytest.mark.parametrize("seed", range(2))
def test_planted_features_always_selected(seed):
    X, y = _planted_lda(seed)
    X0 = X.copy()
    sel = SparseLDASelector(3, stability=10, random_state=seed).fit(X, y)
    assert sel.get_support(indices=True).tolist() == [0, 1, 2]
    freq = sel.selection_frequencies_
    assert freq[:3].min() >= 0.7 and freq[:3].min() > freq[3:].max()  # planted above every noise pixel
    assert sel.coef_.shape == (3,) and np.array_equal(X, X0) and sel.stability == 10


def test_stability_on_sparse_pca():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100, 6))
    X[:, [1, 4]] += 3 * rng.standard_normal((100, 1))
    sel = SparsePCASelector(2, stability=8, random_state=0).fit(X)
    assert sel.get_support(indices=True).tolist() == [1, 4]
    assert sel.selection_frequencies_[[1, 4]].tolist() == [1.0, 1.0]
    assert abs(abs(sel.components_[0, 1]) - 2**-0.5) < 0.05


@pytest.mark.parametrize("direction", ["forward", "backward", "dual"])
def test_ranking_is_the_entry_order(direction):
    X, y = _planted_lda(1, p=12)
    sel = SparseLDASelector(5, direction=direction).fit(X, y)
    assert np.array_equal(np.flatnonzero(sel.ranking_ <= 5), sel.get_support(indices=True))
    path = sel._best_path(5)
    entry = path.order[::-1] if path.direction == "backward" else path.order
    assert sel.ranking_[entry[0]] == 1 and sel.ranking_[entry[2]] == 3
    for k in (1, 2, 3, 4):  # nested: the first k entries are the path's support at k
        assert set(np.flatnonzero(sel.ranking_ <= k)) == set(path.support(k).tolist())


def test_stability_off_by_default_and_clone_keeps_it():
    X, y = _planted_lda(2)
    sel = SparseLDASelector(3).fit(X, y)
    assert not hasattr(sel, "selection_frequencies_")
    assert clone(SparseLDASelector(3, stability=5, random_state=1)).get_params()["stability"] == 5


@pytest.mark.parametrize("kw, match", [({"stability": 1}, "stability"),
                                       ({"stability": 4, "solver": "exact"}, "solver='greedy'")])
def test_bad_stability_says_how_to_fix(kw, match):
    X, y = _planted_lda(0)
    with pytest.raises(ValueError, match=match):
        SparseLDASelector(3, **kw).fit(X, y)


def test_frequency_figure_checks_the_shape():
    freq = np.linspace(0, 1, 16)
    fig = plot_selection_frequencies(freq, (4, 4), support=freq > 0.8)
    img = fig.axes[0].images[0].get_array()
    assert img.shape == (4, 4) and img[3, 3] == 1.0
    assert fig.axes[0].images[0].get_clim() == (0.0, 1.0)
    with pytest.raises(ValueError, match="image_shape"):
        plot_selection_frequencies(freq, (3, 4))
