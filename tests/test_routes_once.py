"""The route is resolved once per fit: :func:`pixsel._routes.choose` is asked once by an estimator's
``fit`` (once per fold fit, plus the refit, for the cross-validated options), and the kernels and
``stats/`` functions it calls follow the route passed down (``route=``) instead of asking again."""

import sys

import numpy as np
import pytest

from pixsel import _routes
from pixsel.selection import (
    CardinalSPLSSelector,
    ColumnSubsetSelector,
    PathSelectorCV,
    ScoreSelector,
    SparseLDASelector,
    SparsePCASelector,
    SPLSSelector,
    SubspaceScoreSelector,
)


@pytest.fixture
def choose_calls(monkeypatch):
    """Every ``choose`` call made, as the family asked: the table's own name and every pixsel module
    that imported it by name are patched with one counting wrapper."""
    calls = []
    original = _routes.choose

    def counting(family, **kwargs):
        calls.append(family)
        return original(family, **kwargs)

    holders = [m for name, m in list(sys.modules.items())
               if name.startswith("pixsel") and m is not None and getattr(m, "choose", None) is original]
    assert _routes in holders
    for module in holders:
        monkeypatch.setattr(module, "choose", counting)
    return calls


def _data(n_classes, n=90, p=10):
    rng = np.random.default_rng(0)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, p)) + 0.5 * y[:, None] * (np.arange(p) < 3)
    return X, y


def test_two_class_lda_fit_asks_once(choose_calls):
    X, y = _data(2)
    SparseLDASelector(n_features_to_select=3).fit(X, y)
    assert choose_calls == ["greedy"]


def test_default_three_class_lda_fit_asks_once(choose_calls):
    X, y = _data(3)
    sel = SparseLDASelector().fit(X, y)
    assert sel.support_.sum() == 10
    assert choose_calls == ["greedy"]


@pytest.mark.parametrize("direction", ["forward", "backward", "dual"])
def test_lda_fit_asks_once_in_every_direction(choose_calls, direction):
    X, y = _data(3)
    SparseLDASelector(n_features_to_select=3, direction=direction).fit(X, y)
    assert choose_calls == ["greedy"]


@pytest.mark.parametrize("options, n_fits", [
    ({"solver": "exact"}, 1),
    ({"criterion": ["trace", "max-eig"]}, 2 * 3 + 1),  # every criterion on 3 folds, then the fit
    ({"direction": "cv"}, 3 + 1),
    ({"stability": 4, "random_state": 0}, 4 + 1),  # every resample, then the fit
    ({"always_select": [0]}, 1),
    ({"never_select": [1], "beam_width": 2}, 1),
    ({"refine": 5}, 1),
    ({"algorithm": "implicit", "refine": False}, 1),
])
def test_lda_options_ask_once_per_fit_they_run(choose_calls, options, n_fits):
    X, y = _data(3)
    SparseLDASelector(n_features_to_select=3, **options).fit(X, y)
    assert choose_calls == ["greedy"] * n_fits


@pytest.mark.parametrize("selector, family", [
    (CardinalSPLSSelector(n_features_to_select=3), "pls"),
    (SPLSSelector(), "pls"),
    (SubspaceScoreSelector(n_features_to_select=3), "scores"),
    (ScoreSelector(n_features_to_select=3), "scores"),
    (SparsePCASelector(n_features_to_select=3, solver="exact"), "greedy"),
])
def test_other_selectors_ask_once(choose_calls, selector, family):
    X, y = _data(3)
    selector.fit(X, y)
    assert choose_calls == [family]


def test_grouped_lda_fit_asks_once(choose_calls):
    X, y = _data(3, p=16)
    SparseLDASelector(n_features_to_select=2, patch_size=(2, 2)).fit(X.reshape(-1, 4, 4), y)
    assert choose_calls == ["greedy"]


def test_sparse_pca_fit_asks_once(choose_calls):
    X, _ = _data(2)
    SparsePCASelector(n_features_to_select=3).fit(X)
    assert choose_calls == ["greedy"]


def test_column_subset_fit_asks_at_most_once(choose_calls):
    # a NumPy-only fit (its statistics and search on host arrays): nothing for the table to decide
    X, _ = _data(2)
    ColumnSubsetSelector(n_features_to_select=3).fit(X)
    assert len(choose_calls) <= 1


def test_path_selector_cv_asks_once_per_fold_fit_and_the_refit(choose_calls):
    X, y = _data(3)
    PathSelectorCV(SparseLDASelector(), cv=3).fit(X, y)
    assert choose_calls == ["greedy"] * (3 + 1)


def test_a_kernel_called_alone_still_asks(choose_calls):
    # route=None (a direct call of a public kernel) keeps asking the table itself
    from pixsel.pls import cardinal_spls
    from pixsel.spectral import greedy_path

    greedy_path(np.array([1.0, 2.0, 0.5]))
    X, y = _data(2)
    cardinal_spls(X, y[:, None].astype(float), 3, 1)
    assert choose_calls == ["greedy", "pls"]


def test_resize_keeps_the_placement_and_decides_the_sizes():
    r = _routes.choose("greedy", xp=np)
    big = _routes.resize(r, n_samples=100, n_features=_routes.IMPLICIT_MIN_FEATURES + 1)
    assert (big.backend, big.algorithm) == ("numpy", "implicit")
    assert _routes.resize(r, n_samples=100, n_features=64) == _routes.choose("greedy", xp=np, n_samples=100,
                                                                              n_features=64)
    dask = _routes.resize(_routes.choose("greedy", dask=True), n_samples=100, n_features=64)
    assert (dask.name, dask.backend) == ("dask", "dask")


def test_placement_is_the_tables_rule():
    xps = pytest.importorskip("array_api_strict")
    cpu, dev1 = xps.Device("CPU_DEVICE"), xps.Device("device1")
    assert _routes.placement(np) == "numpy"
    assert _routes.placement(xps, cpu) == "host" == _routes.choose("statistics", xp=xps, device=cpu).backend
    assert _routes.placement(xps, dev1) == "device" == _routes.choose("statistics", xp=xps, device=dev1).backend
    # the fit's route decides when given
    assert _routes.placement(xps, dev1, route=_routes.choose("greedy", xp=np)) == "numpy"


@pytest.mark.parametrize("search", ["exact_support", "exact_path", "plain_search"])
@pytest.mark.parametrize("form", ["vector", "factor", "full"])
def test_an_exact_search_asks_once(choose_calls, search, form):
    # its greedy starts (forward and backward paths) follow the search's route instead of asking
    from pixsel import spectral

    X, y = _data(3, p=8)
    M = np.stack([X[y == c].mean(0) - X.mean(0) for c in (1, 2)], axis=1)
    A = {"vector": M[:, 0], "factor": M, "full": np.cov(X.T)}[form]
    B = None if form == "full" else np.cov(X.T) + 0.1 * np.eye(8)
    if search == "exact_path":
        assert spectral.exact_path(A, B).search_status == "optimal"
    else:
        assert getattr(spectral, search)(A, B, 3).status == "optimal"
    assert choose_calls == ["exact"]


def test_exact_fit_passes_its_route_to_the_search(choose_calls, monkeypatch):
    # the search gets the fit's route (completed for the exact family), so the fit asks once
    from pixsel.selection import _exact_fit

    seen = []
    original = _exact_fit.exact_support

    def recording(*args, **kwargs):
        seen.append(kwargs.get("route"))
        return original(*args, **kwargs)

    monkeypatch.setattr(_exact_fit, "exact_support", recording)
    X, y = _data(2)
    SparseLDASelector(n_features_to_select=3, solver="exact").fit(X, y)
    assert choose_calls == ["greedy"]
    assert len(seen) == 1 and seen[0].family == "greedy" and seen[0].backend == "numpy"
    exact = _routes.resize(seen[0], family="exact", n_features=10, n_classes=2)
    assert (exact.family, exact.name) == ("exact", seen[0].name)
