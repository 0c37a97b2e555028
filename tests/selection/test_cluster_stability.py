"""Cluster stability selection (``stability_correlation``) of the path selectors."""

import numpy as np
import pytest

from pixsel.selection import SparseLDASelector, SparsePCASelector


def _planted_copies(seed, n=120, copies=(1, 10, 10), noise=10, jitter=0.05):
    """Three class-bearing sources (a single feature, then two of ``copies`` near-duplicates each,
    correlation about 0.999 inside a source), then ``noise`` pure-noise features. Returns
    ``X, y, source`` (``source[j]``: the source of feature ``j``, -1 for noise)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    cols, source = [], []
    for s, c in enumerate(copies):
        base = rng.standard_normal(n) + 1.5 * y
        for _ in range(c):
            cols.append(base + jitter * rng.standard_normal(n))
            source.append(s)
    for _ in range(noise):
        cols.append(rng.standard_normal(n))
        source.append(-1)
    return np.column_stack(cols), y, np.array(source)


@pytest.fixture(scope="module")
def fits():
    """Plain and cluster stability on the planted copies, seeds 0-3 (k = 3, 10 resamples)."""
    out = []
    for seed in range(4):
        X, y, source = _planted_copies(seed)
        X0 = X.copy()
        plain = SparseLDASelector(3, stability=10, random_state=seed).fit(X, y)
        clustered = SparseLDASelector(3, stability=10, stability_correlation=0.9, random_state=seed).fit(X, y)
        assert np.array_equal(X, X0)  # the caller's array untouched
        out.append((source, plain, clustered))
    return out


def test_copies_split_plain_counts_and_clusters_recover_the_sources(fits):
    """Planted truth: the near-duplicates of a source share its selections, so plain stability
    splits the count among them (seed 0: two copies of one source win, the other source is
    lost), while the cluster version counts the source once and keeps one member of each."""
    for source, plain, clustered in fits:
        assert sorted(source[clustered.get_support()].tolist()) == [0, 1, 2]
        labels = clustered.stability_clusters_
        for s in (1, 2):  # each source of copies is one cluster, selected by (nearly) every resample
            assert np.unique(labels[source == s]).size == 1
            members = source == s
            assert clustered.cluster_frequencies_[labels[members][0]] >= 0.9
            assert plain.selection_frequencies_[members].max() <= 0.8  # the count split among copies
        assert np.array_equal(plain.selection_frequencies_, clustered.selection_frequencies_)  # same resamples
        rep = np.flatnonzero(clustered.get_support() & (source == 1))[0]
        freq = clustered.selection_frequencies_
        assert freq[rep] == freq[source == 1].max()  # the source's most frequently selected copy
    source, plain, _ = fits[0]
    assert sorted(source[plain.get_support()].tolist()) != [0, 1, 2]


@pytest.mark.parametrize("threshold", [1.0, 0.9])
def test_no_correlated_pairs_is_plain_stability_bit_for_bit(threshold):
    """Limit case: without pairs at the threshold every cluster is one feature, and the result
    is plain stability selection's, to the bit."""
    rng = np.random.default_rng(5)
    y = np.arange(90) % 3
    X = rng.standard_normal((90, 14))
    X[:, :3] += 1.2 * y[:, None]
    assert np.abs(np.corrcoef(X, rowvar=False) - np.eye(14)).max() < 0.9
    plain = SparseLDASelector(4, stability=6, random_state=2).fit(X, y)
    clustered = SparseLDASelector(4, stability=6, stability_correlation=threshold, random_state=2).fit(X, y)
    assert np.array_equal(clustered.stability_clusters_, np.arange(14))
    assert np.array_equal(clustered.get_support(), plain.get_support())
    assert np.array_equal(clustered.selection_frequencies_, plain.selection_frequencies_)
    assert np.array_equal(clustered.cluster_frequencies_, plain.selection_frequencies_)
    assert np.array_equal(clustered.coef_, plain.coef_)
    assert not hasattr(plain, "stability_clusters_")


def test_sparse_pca_pools_duplicates():
    """SparsePCASelector shares the option: a near-copy (r about 0.99995) joins its feature's cluster,
    the other dominant feature (r = 0.9 with it) stays apart at the threshold 0.95."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100, 6))
    z = 3 * rng.standard_normal(100)
    X[:, 1] += z
    X[:, 4] += z
    X[:, 2] = X[:, 1] + 0.01 * rng.standard_normal(100)  # a near-copy of feature 1
    sel = SparsePCASelector(2, stability=8, stability_correlation=0.95, random_state=0).fit(X)
    labels = sel.stability_clusters_
    assert labels[1] == labels[2] != labels[4] and np.unique(labels).size == 5
    assert sel.cluster_frequencies_[labels[1]] == 1.0
    support = sel.get_support(indices=True).tolist()
    assert 4 in support and len(set(support) & {1, 2}) == 1  # one member of the pair, and the other feature
    plain = SparsePCASelector(2, stability=8, stability_correlation=1.0, random_state=0).fit(X)
    assert np.array_equal(plain.get_support(), SparsePCASelector(2, stability=8, random_state=0).fit(X).get_support())


@pytest.mark.parametrize("value", [0, 0.0, -0.2, 1.5, "high"])
def test_threshold_out_of_range_says_how_to_fix(value):
    X, y, _ = _planted_copies(0, copies=(1, 2, 2), noise=2)
    with pytest.raises(ValueError, match=r"stability_correlation.*\(0, 1\].*e\.g\. 0\.9"):
        SparseLDASelector(2, stability=4, stability_correlation=value).fit(X, y)


def test_threshold_without_stability_is_refused():
    X, y, _ = _planted_copies(0, copies=(1, 2, 2), noise=2)
    with pytest.raises(ValueError, match="stability=N"):
        SparseLDASelector(2, stability_correlation=0.9).fit(X, y)
    with pytest.raises(ValueError, match="stability=N"):
        SparsePCASelector(2, stability_correlation=0.9).fit(X)


def test_a_refit_without_clusters_leaves_no_cluster_attributes():
    X, y, _ = _planted_copies(1, copies=(1, 3, 3), noise=3)
    sel = SparseLDASelector(3, stability=4, stability_correlation=0.9, random_state=0).fit(X, y)
    assert sel.stability_clusters_.shape == (X.shape[1],)
    sel.set_params(stability_correlation=None).fit(X, y)
    assert not hasattr(sel, "stability_clusters_") and not hasattr(sel, "cluster_frequencies_")
    assert sel.selection_frequencies_.shape == (X.shape[1],)
