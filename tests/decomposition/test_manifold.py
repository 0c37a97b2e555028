"""The manifold baseline transformers (LPP, NPE, kernel LPP): planted structure and limits."""

import numpy as np

from pixsel.decomposition import KernelLPP, LocalityPreservingProjection, NeighborhoodPreservingEmbedding


def test_lpp_recovers_a_planted_one_dimensional_manifold():
    rng = np.random.default_rng(0)
    s = np.sort(rng.uniform(0, 1, size=150))
    basis = rng.normal(size=(2, 10))
    X = np.c_[s, 0.1 * np.sin(20 * s)] @ basis + 0.001 * rng.normal(size=(150, 10))
    for est in (LocalityPreservingProjection(1, n_neighbors=6), NeighborhoodPreservingEmbedding(1, n_neighbors=6)):
        y = est.fit_transform(X)[:, 0]
        assert abs(np.corrcoef(y, s)[0, 1]) > 0.95, type(est).__name__


def test_kernel_lpp_linear_kernel_equals_lpp_estimator():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 4)) @ rng.normal(size=(4, 4))
    Y = LocalityPreservingProjection(2, n_neighbors=5).fit(X).transform(X[:10])
    Yk = KernelLPP(2, kernel="linear", n_neighbors=5).fit(X).transform(X[:10])
    s = np.sign(np.sum(Y * Yk, axis=0))
    np.testing.assert_allclose(Yk * s, Y, rtol=1e-5, atol=1e-7)
