"""Sampling with rescaling: exact unbiasedness by enumeration and by Monte Carlo."""

import itertools

import numpy as np

from pixsel.scores import merge_draws, sample_features, top_features


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
