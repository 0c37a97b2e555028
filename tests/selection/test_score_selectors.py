"""SubspaceScoreSelector and ScoreSelector: sklearn compatibility, modes, bad input."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from pixsel.scores import fisher_score, laplacian_score, subspace_scores
from pixsel.selection import ScoreSelector, SubspaceScoreSelector


@parametrize_with_checks(
    [
        SubspaceScoreSelector(1, rank=1, mode="top", random_state=0),
        SubspaceScoreSelector(2, rank=1, mode="sample", random_state=0),
        SubspaceScoreSelector(2, rank=1, mode="distinct", random_state=0),
        ScoreSelector(1, criterion="variance"),
        ScoreSelector(1, criterion="fisher", mode="sample", random_state=0),
        ScoreSelector(1, criterion="laplacian", n_neighbors=2),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _faces(seed=0, n=60, side=6):
    """Planted structure: a few informative pixels, the rest small noise."""
    rng = np.random.default_rng(seed)
    p = side * side
    X = 0.05 * rng.standard_normal((n, p))
    y = np.repeat(np.arange(3), n // 3)
    X[:, 7] += 2.0 * y
    X[:, 20] += rng.standard_normal(n) * 3.0
    X[:, 30] -= 1.5 * (y == 1)
    return X, y


def test_top_mode_matches_kernel_and_sum_of_leverage():
    X, _ = _faces()
    sel = SubspaceScoreSelector(4, rank=3, mode="top", random_state=0).fit(X)
    res = subspace_scores(X, 3, random_state=np.random.RandomState(0))
    np.testing.assert_allclose(sel.scores_, res.scores, rtol=1e-10)
    np.testing.assert_allclose(sel.leverage_.sum(), 3.0, rtol=1e-10)
    top = np.argsort(-sel.scores_, kind="stable")[:4]
    assert sorted(top.tolist()) == sel.get_support(indices=True).tolist()
    assert {7, 20, 30} <= set(sel.get_support(indices=True).tolist())
    np.testing.assert_array_equal(sel.transform(X), X[:, sel.support_])
    assert sel.weights_.tolist() == [1.0] * 4


def test_default_mode_draws_exactly_k_distinct_unscaled_features():
    """The default is 'distinct' (the best measured mode; 'top' takes clumps of neighbouring
    pixels on images): k distinct features, none constant, unscaled, repeatable by seed."""
    X, _ = _faces(2)
    X[:, 0] = 1.0  # a constant pixel has score 0 and is never drawn
    assert SubspaceScoreSelector().get_params()["mode"] == "distinct"
    sel = SubspaceScoreSelector(10, rank=3, random_state=4).fit(X)
    idx = sel.get_support(indices=True)
    assert len(idx) == 10 and 0 not in idx and sel.weights_.tolist() == [1.0] * 10
    np.testing.assert_array_equal(sel.transform(X), X[:, idx])
    np.testing.assert_array_equal(SubspaceScoreSelector(10, rank=3, random_state=4).fit(X).get_support(indices=True), idx)
    top = SubspaceScoreSelector(10, rank=3, mode="top", random_state=4).fit(X)
    np.testing.assert_array_equal(top.get_support(), top.ranking_ <= 10)  # 'top' by name: the k best scores
    np.testing.assert_array_equal(top.ranking_, sel.ranking_)  # the same scores, ranked the same


def test_sample_mode_rescales_and_merges_duplicates():
    X, _ = _faces(1)
    sel = SubspaceScoreSelector(30, rank=3, mode="sample", random_state=3).fit(X)
    idx = sel.get_support(indices=True)
    assert sel.draw_counts_.sum() == 30
    assert len(idx) == len(sel.weights_) == len(sel.draw_counts_) <= 30
    assert np.any(sel.draw_counts_ > 1)  # the planted pixels dominate the scores
    prob = sel.probabilities_
    np.testing.assert_allclose(prob, sel.scores_ / sel.scores_.sum())
    np.testing.assert_allclose(sel.weights_, np.sqrt(sel.draw_counts_ / (30 * prob[idx])))
    Xt = sel.transform(X)
    np.testing.assert_allclose(Xt, X[:, idx] * sel.weights_)
    # the merged sketch equals the unmerged one (all 30 columns, each 1/sqrt(c p))
    draws = np.repeat(idx, sel.draw_counts_)
    full = X[:, draws] / np.sqrt(30 * prob[draws])
    np.testing.assert_allclose(Xt @ Xt.T, full @ full.T, rtol=1e-10)
    np.testing.assert_allclose(sel.inverse_transform(Xt)[:, idx], X[:, idx])


def test_distinct_mode_draws_exactly_k_distinct_unscaled_features():
    """mode='distinct': k distinct features (no draw lost to a repeat, where the i.i.d. draws of
    'sample' repeat the planted pixels), drawn with the scores' probabilities, columns unscaled,
    reproducible with random_state."""
    X, _ = _faces(1)
    sel = SubspaceScoreSelector(30, rank=3, mode="distinct", random_state=3).fit(X)
    idx = sel.get_support(indices=True)
    assert len(idx) == 30 and sel.draw_counts_.tolist() == [1] * 30 and sel.weights_.tolist() == [1.0] * 30
    assert {7, 20, 30} <= set(idx.tolist())  # the planted pixels carry most of the probability
    np.testing.assert_allclose(sel.probabilities_, sel.scores_ / sel.scores_.sum())
    np.testing.assert_array_equal(sel.transform(X), X[:, idx])
    again = SubspaceScoreSelector(30, rank=3, mode="distinct", random_state=3).fit(X)
    np.testing.assert_array_equal(again.support_, sel.support_)
    sampled = SubspaceScoreSelector(30, rank=3, mode="sample", random_state=3).fit(X)
    assert sampled.support_.sum() < 30  # i.i.d. draws repeat features: fewer distinct ones
    fisher = ScoreSelector(5, criterion="fisher", mode="distinct", random_state=0).fit(*_faces(2))
    assert fisher.support_.sum() == 5
    Xc = X.copy()
    Xc[:, :20] = 1.0  # 20 constant pixels score 0: at most 16 can be drawn
    with pytest.raises(ValueError, match="positive scores"):
        SubspaceScoreSelector(30, rank=2, mode="distinct", random_state=0).fit(Xc)


def test_determinism():
    X, y = _faces(3)
    a = SubspaceScoreSelector(10, rank=4, mode="sample", random_state=7).fit(X)
    b = SubspaceScoreSelector(10, rank=4, mode="sample", random_state=7).fit(X)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    c = ScoreSelector(10, criterion="variance", mode="sample", random_state=7).fit(X)
    d = ScoreSelector(10, criterion="variance", mode="sample", random_state=7).fit(X)
    np.testing.assert_array_equal(c.weights_, d.weights_)


def test_score_selector_directions():
    X, y = _faces(4)
    lap = ScoreSelector(3, criterion="laplacian").fit(X)
    np.testing.assert_allclose(lap.scores_, laplacian_score(X, 5))
    best = np.sort(np.argsort(lap.scores_, kind="stable")[:3])  # lowest Laplacian score
    np.testing.assert_array_equal(lap.get_support(indices=True), best)
    assert lap.higher_is_better_ is False
    fis = ScoreSelector(2, criterion="fisher").fit(X, y)
    np.testing.assert_allclose(fis.scores_, fisher_score(X, y))
    assert fis.get_support(indices=True).tolist() == [7, 30]
    sup = ScoreSelector(2, criterion="supervised_laplacian").fit(X, y)
    assert sup.get_support(indices=True).tolist() == [7, 30]
    var = ScoreSelector(1, criterion="variance").fit(X)
    assert var.get_support(indices=True).tolist() == [20]
    uni = ScoreSelector(3, criterion="uniform").fit(X)
    assert uni.get_support(indices=True).tolist() == [0, 1, 2]


@pytest.mark.parametrize("rank", [0, 2.5])
def test_bad_rank(rank):
    X, _ = _faces()
    with pytest.raises((ValueError, TypeError), match="rank"):
        SubspaceScoreSelector(3, rank=rank).fit(X)


@pytest.mark.parametrize("rank", [36, 60])
def test_rank_is_capped_to_the_data(rank):
    X, _ = _faces()  # 60 x 36: at most rank 35 says something (issue 13: capped, recorded)
    sel = SubspaceScoreSelector(3, rank=rank).fit(X)
    assert sel.rank == rank and sel.rank_ == 35 and sel.singular_values_.shape == (35,)


def test_bad_n_features_and_options():
    X, y = _faces()
    with pytest.raises(ValueError, match=r"n_features_to_select.*\[1, 36\]"):
        SubspaceScoreSelector(0, rank=2, mode="sample").fit(X)
    with pytest.warns(UserWarning, match="all 36 features are selected"):
        assert SubspaceScoreSelector(37, rank=2).fit(X).get_support().all()
    with pytest.raises(ValueError, match="mode"):
        SubspaceScoreSelector(3, rank=2, mode="best").fit(X)
    with pytest.raises(ValueError, match="gamma"):
        SubspaceScoreSelector(3, rank=2, gamma="auto").fit(X)
    with pytest.raises(ValueError, match="gamma"):
        SubspaceScoreSelector(3, rank=2, gamma=-1.0).fit(X)
    with pytest.raises(ValueError, match="supervised"):
        ScoreSelector(3, criterion="fisher").fit(X)
    with pytest.raises(ValueError, match="criterion"):
        ScoreSelector(3, criterion="chi2").fit(X, y)


def test_nan_and_constant_columns():
    X, y = _faces()
    Xn = X.copy()
    Xn[4, 5] = np.nan
    for est in (SubspaceScoreSelector(3, rank=2), ScoreSelector(3, criterion="variance")):
        with pytest.raises(ValueError, match="NaN"):
            est.fit(Xn)
    Xc = X.copy()
    Xc[:, :10] = 1.0
    sel = SubspaceScoreSelector(20, rank=2, mode="sample", random_state=0).fit(Xc)
    assert not sel.support_[:10].any()
    assert np.all(sel.scores_[:10] < 1e-12)
    with pytest.raises(ValueError, match="constant"):
        SubspaceScoreSelector(3, rank=2).fit(np.ones((10, 5)))
    with pytest.raises(ValueError, match="mode='top'"):  # Fisher is +inf on a perfect pixel
        Xp = X.copy()
        Xp[:, 3] = y
        ScoreSelector(3, criterion="fisher", mode="sample").fit(Xp, y)


def test_uint8_and_no_mutation_and_clone():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 255, size=(40, 16)).astype(np.uint8)
    before = X.copy()
    est = SubspaceScoreSelector(4, rank=3, random_state=0)
    sel = clone(est).fit(X)
    np.testing.assert_array_equal(X, before)
    ref = SubspaceScoreSelector(4, rank=3, random_state=0).fit(X.astype(np.float64))
    np.testing.assert_allclose(sel.scores_, ref.scores_)
    assert est.get_params()["rank"] == 3


def test_dask_equals_numpy():
    import dask.array as da
    X, y = _faces(5, n=90)
    dX = da.from_array(X, chunks=(45, 36))
    a = SubspaceScoreSelector(5, rank=3, gamma="theory", random_state=0).fit(X)
    b = SubspaceScoreSelector(5, rank=3, gamma="theory", random_state=0).fit(dX)
    np.testing.assert_allclose(b.scores_, a.scores_, rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_allclose(np.asarray(b.transform(dX)), a.transform(X))
    f1 = ScoreSelector(3, criterion="fisher").fit(X, y)
    f2 = ScoreSelector(3, criterion="fisher").fit(dX, y)
    np.testing.assert_allclose(f2.scores_, f1.scores_, rtol=1e-10)
    with pytest.raises(TypeError, match="compute"):
        ScoreSelector(3, criterion="laplacian").fit(dX)


def test_score_selector_takes_k_first_and_explains_the_old_order():
    X = np.random.default_rng(0).normal(size=(20, 5))
    assert ScoreSelector(2).fit(X).n_features_to_select_ == 2
    with pytest.raises(TypeError, match=r"criterion='fisher'"):
        ScoreSelector("fisher").fit(X)
    with pytest.raises(TypeError):
        ScoreSelector("fisher", 3)  # criterion is keyword-only


def test_every_score_has_one_step_and_it_computes_that_score():
    from pixsel.scores import SCORES, fisher_score, variance_score
    from pixsel.selection._scores import _SCORE_STEPS

    assert set(_SCORE_STEPS) == set(SCORES)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 6)), np.repeat([0, 1, 2], 10)
    np.testing.assert_allclose(ScoreSelector(3, criterion="variance").fit(X).scores_, variance_score(X))
    np.testing.assert_allclose(ScoreSelector(3, criterion="fisher").fit(X, y).scores_, fisher_score(X, y))
