"""solver='exact' of the selectors (issue 4); ``pixsel select --solver exact`` is in tests/cli."""

import itertools

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from pixsel import SparseLDASelector
from pixsel.selection import SparsePCASelector
from pixsel.spectral import objective_on_support
from pixsel.stats import class_statistics, regularize

@parametrize_with_checks([SparseLDASelector(n_features_to_select=1, solver="exact")])
def test_sklearn_compatible_exact(estimator, check):
    check(estimator)


def _data(seed, n=120, p=11):
    rng = np.random.default_rng(seed)
    X = np.cumsum(rng.standard_normal((n, p)), axis=1)  # correlated columns: greedy can miss
    y = rng.integers(0, 2, n)
    X += np.outer(y, rng.standard_normal(p))
    return X, y


def test_exact_selector_is_the_enumeration_optimum():
    misses = 0
    for seed in range(6):
        X, y = _data(seed)
        k = 5
        sel = SparseLDASelector(k, solver="exact").fit(X, y)
        greedy = SparseLDASelector(k).fit(X, y)
        st = class_statistics(X, y)
        B, _ = regularize(st.within, "ledoit-wolf-floor", X=X, y=y, means=st.means, classes=st.classes)  # the default
        a = st.between
        best = max(objective_on_support(a, B, list(S)) for S in itertools.combinations(range(X.shape[1]), k))
        got = objective_on_support(a, B, sel.get_support(indices=True))
        assert got == pytest.approx(best, rel=1e-9)
        assert sel.status_ == "optimal" and sel.gap_ == 0.0 and sel.n_nodes_ >= 1
        assert sel.upper_bound_ == pytest.approx(best, rel=1e-9)
        assert sel.objective_path_[k - 1] == pytest.approx(best, rel=1e-9)
        assert sel.coef_.shape == (k,)
        misses += objective_on_support(a, B, greedy.get_support(indices=True)) < best * (1 - 1e-9)
        assert not hasattr(greedy, "status_")


def test_exact_selector_limit_warns_and_keeps_certificate():
    X, y = _data(0, p=40)
    with pytest.warns(ConvergenceWarning, match="before proving optimality"):
        sel = SparseLDASelector(20, solver="exact", time_limit=0.0).fit(X, y)
    assert sel.status_ == "time_limit"
    assert sel.upper_bound_ >= sel.objective_path_[19] and sel.gap_ >= 0
    assert sel.get_support().sum() == 20


def test_bad_solver():
    X, y = _data(0)
    with pytest.raises(ValueError, match="'solver' parameter of SparseLDASelector"):
        SparseLDASelector(2, solver="bnb").fit(X, y)
    with pytest.raises(ValueError, match="'time_limit' parameter"):
        SparseLDASelector(2, solver="exact", time_limit=-1.0).fit(X, y)


@parametrize_with_checks([SparsePCASelector(n_features_to_select=1, solver="exact")])
def test_sklearn_compatible_spca_exact(estimator, check):
    check(estimator)


def test_exact_spca_is_the_enumeration_optimum():
    rng = np.random.default_rng(4)
    for _seed in range(4):
        X = rng.standard_normal((60, 11)) @ rng.standard_normal((11, 11))
        k = 4
        sel = SparsePCASelector(k, solver="exact").fit(X)
        C = np.cov(X, rowvar=False)
        best = max(np.linalg.eigvalsh(C[np.ix_(S, S)])[-1] for S in itertools.combinations(range(11), k))
        S = sel.get_support(indices=True)
        assert np.linalg.eigvalsh(C[np.ix_(S, S)])[-1] == pytest.approx(best, rel=1e-9)
        assert sel.explained_variance_ == pytest.approx(best, rel=1e-9)
        assert sel.status_ == "optimal" and sel.gap_ == pytest.approx(0.0, abs=1e-9 * best)
        assert sel.upper_bound_ == pytest.approx(best, rel=1e-9)
        comp = sel.components_[0]
        assert np.linalg.norm(comp) == pytest.approx(1.0)
        assert comp @ C @ comp == pytest.approx(best, rel=1e-9)
        assert set(np.flatnonzero(comp)) <= set(S.tolist())


def test_exact_spca_limits_and_errors():
    rng = np.random.default_rng(0)
    X = np.cumsum(rng.standard_normal((50, 30)), axis=1)
    with pytest.warns(ConvergenceWarning, match="before proving optimality"):
        sel = SparsePCASelector(15, solver="exact", time_limit=0.0).fit(X)
    assert sel.status_ == "time_limit" and sel.upper_bound_ >= sel.explained_variance_
    with pytest.raises(ValueError, match="algorithm='dense'"):
        SparsePCASelector(2, solver="exact", algorithm="implicit").fit(X)
    with pytest.raises(ValueError, match="'solver' parameter of SparsePCASelector"):
        SparsePCASelector(2, solver="bnb").fit(X)


def test_get_support_at_k_is_the_exact_selection():
    # a suppressor-rich problem where greedy misses the optimum at k = 3
    rng = np.random.default_rng(5)
    for _ in range(20):
        X = rng.standard_normal((80, 8)) @ rng.standard_normal((8, 8))
        y = rng.integers(0, 2, 80)
        X[y == 1] += rng.standard_normal(8) * 0.5
        greedy = SparseLDASelector(3).fit(X, y)
        exact = SparseLDASelector(3, solver="exact").fit(X, y)
        if exact.objective_path_[2] > greedy.objective_path_[2] * (1 + 1e-9):
            break
    else:
        pytest.fail("no instance where the exact solver improves on greedy")
    S = exact.get_support(indices=True)
    assert not np.array_equal(S, greedy.get_support(indices=True))
    assert np.array_equal(exact.get_support_at(3, indices=True), S)
    st = class_statistics(X, y)
    B, _ = regularize(st.within, "ledoit-wolf-floor", X=X, y=y, means=st.means, classes=st.classes)  # the default
    assert objective_on_support(st.between, B, S) == pytest.approx(exact.objective_path_[2], rel=1e-9)
