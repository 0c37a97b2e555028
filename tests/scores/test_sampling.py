"""Sampling with rescaling: exact unbiasedness by enumeration and by Monte Carlo."""

import itertools

import numpy as np
import pytest

from pixsel.scores import sample_distinct_features, sample_features, top_features
from pixsel.scores._sampling import merge_draws


def _sketch_gram(A, idx, w):
    C = A[:, idx] * w
    return C @ C.T


def test_merged_sketch_exactly_unbiased_by_enumeration():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((4, 5))
    prob = np.array([0.1, 0.4, 0.2, 0.25, 0.05])
    c = 3
    expect = np.zeros((4, 4))
    for draws in itertools.product(range(5), repeat=c):
        pr = np.prod(prob[list(draws)])
        idx, cnt, w = merge_draws(draws, prob)
        expect += pr * _sketch_gram(A, idx, w)
    np.testing.assert_allclose(expect, A @ A.T, rtol=1e-12)


def test_merging_does_not_change_the_sketch():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((3, 6))
    prob = rng.random(6)
    prob /= prob.sum()
    draws = np.array([4, 1, 4, 4, 0])
    unmerged = A[:, draws] / np.sqrt(len(draws) * prob[draws])
    idx, cnt, w = merge_draws(draws, prob)
    np.testing.assert_allclose(_sketch_gram(A, idx, w), unmerged @ unmerged.T, rtol=1e-12)
    assert cnt.tolist() == [1, 1, 3] and idx.tolist() == [0, 1, 4]


def test_sampler_unbiased_monte_carlo():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((3, 8))
    imp = rng.random(8) + 0.05
    target = A @ A.T
    gen = np.random.default_rng(3)
    T = 4000
    samples = np.empty((T, 3, 3))
    for t in range(T):
        idx, cnt, w, _ = sample_features(imp, 4, gen)
        samples[t] = _sketch_gram(A, idx, w)
    mean = samples.mean(0)
    se = samples.std(0) / np.sqrt(T)
    assert np.all(np.abs(mean - target) < 4.5 * se + 1e-12)
    # and the sampler's frequencies follow the probabilities
    counts = np.zeros(8)
    for _ in range(2000):
        idx, cnt, _, prob = sample_features(imp, 5, gen)
        counts[idx] += cnt
    freq = counts / counts.sum()
    assert np.all(np.abs(freq - prob) < 5 * np.sqrt(prob * (1 - prob) / counts.sum()))


def test_zero_importance_never_drawn_and_deterministic():
    imp = np.array([0.0, 2.0, 0.0, 1.0])
    a = sample_features(imp, 50, np.random.default_rng(5))
    b = sample_features(imp, 50, np.random.default_rng(5))
    assert set(a[0].tolist()) <= {1, 3}
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_bad_importance_rejected():
    import pytest

    for bad in ([0.0, 0.0], [1.0, -1.0], [1.0, np.inf]):
        with pytest.raises(ValueError, match="mode='top'"):
            sample_features(np.array(bad), 2, np.random.default_rng(0))


def test_top_features_ties_to_lowest_index():
    assert top_features([2.0, 5.0, 5.0, 5.0], 2).tolist() == [1, 2]
    assert top_features([1.0, 1.0, 1.0], 3).tolist() == [0, 1, 2]


def _successive_inclusion(prob, k):
    """Exact inclusion probabilities of successive sampling (each draw proportional to ``prob``
    among the features not drawn yet), by enumerating every ordered draw of ``k`` features."""
    import itertools

    p = len(prob)
    incl = np.zeros(p)
    for seq in itertools.permutations(range(p), k):
        pr, left = 1.0, 1.0
        for i in seq:
            pr *= prob[i] / left
            left -= prob[i]
        for i in seq:
            incl[i] += pr
    return incl


def test_distinct_draws_follow_successive_sampling():
    """Oracle: the empirical inclusion frequency of each feature over many draws matches the
    exact inclusion probability of successive sampling (enumerated), and every draw has exactly
    k distinct features."""
    imp = np.array([5.0, 1.0, 0.5, 3.0, 0.0, 2.0])
    k, n = 3, 20000
    rng = np.random.default_rng(3)
    counts = np.zeros(len(imp))
    for _ in range(n):
        idx, prob = sample_distinct_features(imp, k, rng)
        assert len(idx) == k and len(np.unique(idx)) == k and np.all(np.diff(idx) > 0)
        counts[idx] += 1
    exact = _successive_inclusion(imp / imp.sum(), k)
    assert exact[4] == 0 and counts[4] == 0  # a zero score is never drawn
    np.testing.assert_allclose(exact.sum(), k)
    se = np.sqrt(exact * (1 - exact) / n)
    assert np.all(np.abs(counts / n - exact) <= 5 * se + 1e-12), (counts / n, exact)
    np.testing.assert_allclose(prob, imp / imp.sum())


def test_distinct_draws_limit_cases_and_errors():
    rng = np.random.default_rng(0)
    # as many features as positive scores: all of them, whatever the draw
    idx, _ = sample_distinct_features([0.0, 2.0, 1.0, 0.0, 4.0], 3, rng)
    assert idx.tolist() == [1, 2, 4]
    # one overwhelming score is always drawn first (planted)
    for seed in range(20):
        assert 7 in sample_distinct_features(np.r_[np.ones(7), 1e9], 2, np.random.RandomState(seed))[0]
    with pytest.raises(ValueError, match="only 2 of the 4 are positive"):
        sample_distinct_features([0.0, 1.0, 1.0, 0.0], 3, rng)
    with pytest.raises(ValueError, match="non-negative"):
        sample_distinct_features([1.0, -1.0, 2.0], 1, rng)
