"""scikit-learn common checks for every transformer of pixsel.decomposition.

``model='general'`` of SparseLinearModelProjection differs from the standard model only in the
projection kernel (tested in tests/projection and test_slm_estimator.py); it is left out here to
keep this file fast.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from pixsel.decomposition import (
    KernelLPP,
    LocalityPreservingProjection,
    NeighborhoodPreservingEmbedding,
    SparseLinearModelProjection,
    SpatiallySmoothLPP,
    SpectralRegressionLPP,
)

ESTIMATORS = [
    SparseLinearModelProjection(n_components=2, n_atoms=5, max_iter=2),
    SparseLinearModelProjection(n_components=2, n_atoms=5, max_iter=200, kernel="rbf", n_basis=12),
    LocalityPreservingProjection(n_components=2, n_neighbors=3),
    NeighborhoodPreservingEmbedding(n_components=2, n_neighbors=3),
    SpectralRegressionLPP(n_components=2, n_neighbors=3),
    SpatiallySmoothLPP(n_components=2, n_neighbors=3),
    KernelLPP(n_components=2, n_neighbors=3),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
