"""Every public estimator passes scikit-learn's common checks at its DEFAULT parameters (issue 13).

The checks use data with 1 to 5 features. The selectors' default ``n_features_to_select = 10``
then selects all of them with a ``UserWarning``, as scikit-learn's ``SelectKBest`` does, and the
ranks / components are capped to the data and recorded (``rank_``, ``n_iterations_``). That one
warning is expected, hence the filter.
"""

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from pixsel import (
    CardinalSPLSSelector,
    ColumnSubsetSelector,
    GreedySparsePCA,
    PixelReconstructor,
    ScoreSelector,
    SparseLDASelector,
    SparseLinearModelProjection,
    SparsePCASelector,
    SPLSSelector,
    SubspaceScoreSelector,
)

DEFAULTS = [SparseLDASelector(), SparsePCASelector(), CardinalSPLSSelector(), SPLSSelector(),
            SubspaceScoreSelector(), ScoreSelector(), GreedySparsePCA(), SparseLinearModelProjection(),
            ColumnSubsetSelector(), PixelReconstructor()]


@pytest.mark.filterwarnings("ignore:.*is greater than n_features.*:UserWarning")
@parametrize_with_checks(DEFAULTS)
def test_common_checks_at_default_parameters(estimator, check):
    check(estimator)


@pytest.mark.parametrize("est", [SparseLDASelector(), SparsePCASelector(), ScoreSelector(),
                                 SubspaceScoreSelector(), CardinalSPLSSelector(),
                                 ColumnSubsetSelector(), PixelReconstructor()], ids=lambda e: type(e).__name__)
def test_k_above_n_features_selects_all_with_a_warning(est):
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((30, 4)), np.arange(30) % 2
    with pytest.warns(UserWarning, match="n_features_to_select=10 is greater than n_features=4"):
        est.fit(X, y)
    assert est.get_support().all() and est.n_features_to_select == 10  # the parameter is untouched


def test_ranks_and_components_are_capped_and_recorded():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((30, 4)), np.arange(30) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        sub = SubspaceScoreSelector(2).fit(X)
        pls = CardinalSPLSSelector(3).fit(X, y)
    assert sub.rank == 10 and sub.rank_ == 3  # min(n_samples, n_features) - 1
    assert pls.n_components == 5 and pls.n_iterations_ == 4  # n_features
    assert SPLSSelector().fit(X[:4], y[:4]).n_iterations_ == 3  # n_samples - 1


@pytest.mark.parametrize("cls", [SparseLDASelector, SparsePCASelector])
def test_progress_and_solver_limits_are_parameters(cls):
    est = cls(3, solver="exact")
    est.set_params(progress=False, time_limit=5.0, node_limit=100, gap_tol=0.01)
    assert est.get_params()["node_limit"] == 100 and est.get_params()["gap_tol"] == 0.01
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((40, 8)), np.arange(40) % 2
    est.fit(X, y)
    assert est.status_ in ("optimal", "gap_reached") and 0 <= est.gap_ <= 0.01 + 1e-12
