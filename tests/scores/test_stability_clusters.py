"""Kernels of cluster stability selection: the correlation clusters and the selection order."""

import numpy as np
import pytest

from pixsel.scores import cluster_stability_order, correlation_clusters


def _textbook_order(S, labels, ranking):
    """Cluster stability selection written out with loops: cluster frequencies, members ranked
    by (frequency, entry, index), clusters by (frequency, representative's frequency, its entry,
    its index), then round-robin over the clusters."""
    R, p = len(S), len(S[0])
    clusters = sorted(set(labels))
    members = {c: [j for j in range(p) if labels[j] == c] for c in clusters}
    freq = [sum(S[r][j] for r in range(R)) / R for j in range(p)]
    cfreq = {c: sum(any(S[r][j] for j in members[c]) for r in range(R)) / R for c in clusters}
    for c in clusters:
        members[c].sort(key=lambda j: (-freq[j], ranking[j], j))
    ranked = sorted(clusters, key=lambda c: (-cfreq[c], -freq[members[c][0]], ranking[members[c][0]],
                                              members[c][0]))
    order, depth = [], 0
    while len(order) < p:
        order += [members[c][depth] for c in ranked if depth < len(members[c])]
        depth += 1
    return order, freq, [cfreq[c] for c in clusters]


@pytest.mark.parametrize("seed", range(12))
def test_order_matches_the_textbook_loops(seed):
    rng = np.random.default_rng(seed)
    R, p = int(rng.integers(1, 7)), int(rng.integers(1, 12))
    S = rng.random((R, p)) < 0.35
    n_clusters = int(rng.integers(1, p + 1))
    labels = np.concatenate([np.arange(n_clusters), rng.integers(0, n_clusters, p - n_clusters)])
    rng.shuffle(labels)
    _, first = np.unique(labels, return_index=True)  # renumber clusters by their first feature
    labels = np.argsort(np.argsort(first))[labels]
    ranking = rng.integers(1, 5, p)  # ties in the entry rank, as a forward pass leaves them
    order, freq, cfreq = cluster_stability_order(S, labels, ranking)
    want_order, want_freq, want_cfreq = _textbook_order(S.tolist(), labels.tolist(), ranking.tolist())
    assert order.tolist() == want_order
    assert np.allclose(freq, want_freq) and np.allclose(cfreq, want_cfreq)


def test_singleton_clusters_give_the_plain_order():
    rng = np.random.default_rng(1)
    S = rng.random((20, 40)) < 0.2
    ranking = rng.permutation(40) + 1
    order, freq, cfreq = cluster_stability_order(S, np.arange(40), ranking)
    assert np.array_equal(order, np.lexsort((ranking, -S.sum(0) / 20)))
    assert np.array_equal(freq, cfreq)


def test_split_counts_are_pooled():
    """Planted: features 0-3 are one spot, selected in every resample by a different member
    (each 0.25), feature 4 alone in 60 %: plain counting ranks feature 4 first and the spot's
    members below it; the cluster counts the spot in every resample and puts it first."""
    S = np.zeros((20, 6), dtype=bool)
    S[np.arange(20), np.arange(20) % 4] = True
    S[:12, 4] = True
    plain, _, _ = cluster_stability_order(S, np.arange(6), np.arange(1, 7))
    assert plain[0] == 4
    order, freq, cfreq = cluster_stability_order(S, [0, 0, 0, 0, 1, 2], np.arange(1, 7))
    assert cfreq.tolist() == [1.0, 0.6, 0.0] and order[:2].tolist() == [0, 4]  # tie among 0-3: earlier entry


def test_clusters_of_planted_blocks():
    """Planted: three blocks of near-copies (r > 0.99 inside, about 0 across) and a constant
    feature; the clusters are the blocks, the constant feature alone."""
    rng = np.random.default_rng(0)
    n, base = 400, rng.standard_normal((400, 3))
    cols = [base[:, b] + 0.05 * rng.standard_normal(n) for b in (0, 0, 1, 2, 1, 2, 2)] + [np.full(n, 3.0)]
    cols[2] = -2 * cols[2]  # the sign and the scale do not matter
    labels = correlation_clusters(np.cov(np.column_stack(cols), rowvar=False), 0.9)
    assert labels.tolist() == [0, 0, 1, 2, 1, 2, 2, 3]
    assert correlation_clusters(np.cov(np.column_stack(cols), rowvar=False), 1.0).tolist() == list(range(8))


def test_threshold_one_pools_exact_duplicates_only():
    rng = np.random.default_rng(1)
    x, z = rng.standard_normal((2, 50)) * 7.3
    X = np.column_stack([x, z, 3.1 * x - 2.0, -x / 7, z + 1e-3 * x])  # copies of x up to sign and scale
    assert correlation_clusters(np.cov(X, rowvar=False), 1.0).tolist() == [0, 1, 0, 0, 2]


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.8])
def test_every_pair_in_a_cluster_reaches_the_threshold(threshold):
    """Complete linkage: no chaining, every pair inside a cluster has |r| >= threshold; and two
    clusters that could merge would not keep that property (maximality of the last merge)."""
    rng = np.random.default_rng(3)
    t = np.arange(200)
    X = np.column_stack([np.sin(t / 20 + s) + 0.3 * rng.standard_normal(200) for s in np.linspace(0, 3, 15)])
    C = np.cov(X, rowvar=False)
    R = np.abs(np.corrcoef(X, rowvar=False))
    labels = correlation_clusters(C, threshold)
    for c in np.unique(labels):
        m = labels == c
        assert R[np.ix_(m, m)].min() >= threshold - 1e-12
    assert np.unique(labels).size < 15  # something was pooled on this smooth signal


@pytest.mark.parametrize("threshold", [0.0, -0.1, 1.01])
def test_kernel_refuses_a_threshold_out_of_range(threshold):
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        correlation_clusters(np.eye(3), threshold)


def test_kernel_refuses_bad_shapes():
    with pytest.raises(ValueError, match="square"):
        correlation_clusters(np.ones((2, 3)), 0.9)
    with pytest.raises(ValueError, match="n_features"):
        cluster_stability_order(np.ones((3, 4), bool), [0, 1, 2], [1, 2, 3, 4])
    with pytest.raises(ValueError, match="0 .. n_clusters - 1"):
        cluster_stability_order(np.ones((3, 3), bool), [0, 2, 2], [1, 2, 3])


def test_full_ties_go_to_the_lower_index_of_the_representative():
    """Clusters {0, 3} and {1, 2} tie on every count and entry: the one whose representative
    has the lower index comes first (feature 1 before feature 3), in each round."""
    S = np.array([[0, 1, 0, 1], [0, 1, 0, 1]], dtype=bool)
    order, _, _ = cluster_stability_order(S, [0, 1, 1, 0], [1, 1, 1, 1])
    assert order.tolist() == [1, 3, 2, 0]
    assert order.tolist() == _textbook_order(S.tolist(), [0, 1, 1, 0], [1, 1, 1, 1])[0]
