"""plain_search (the paper's depth-first ESLDA) and exact_support's ablation options agree with
the certified solver and the brute-force oracle."""

import numpy as np
import pytest

from pixsel.spectral import exact_support, plain_search



def _pair(rng, p, form):
    """A random vector / factor / PSD numerator and an SPD B."""
    X = rng.standard_normal((p + 2, p))
    B = X.T @ X / (p + 2) + 0.05 * np.eye(p)
    if form == "vector":
        return rng.standard_normal(p), B
    if form == "factor":
        return rng.standard_normal((p, 3)), B
    Y = rng.standard_normal((p, p))
    return Y @ Y.T / p, B


@pytest.mark.parametrize("form", ["vector", "psd"])
@pytest.mark.parametrize("branch_rule", ["lowest-index", "largest-ratio"])
def test_plain_search_agrees(form, branch_rule, oracle):
    rng = np.random.default_rng(9)
    for _ in range(8):
        A, B = _pair(rng, 10, form)
        fast = exact_support(A, B, 5)
        plain = plain_search(A, B, 5, branch_rule=branch_rule)
        assert plain.status == fast.status == "optimal"
        assert plain.objective == pytest.approx(fast.objective, rel=1e-9)
    assert plain.objective == pytest.approx(oracle.best(A, B, 5), rel=1e-9)


def test_plain_search_stopped_reports_the_root_bound(oracle):
    rng = np.random.default_rng(3)
    A, B = _pair(rng, 12, "vector")
    res = plain_search(A, B, 6, node_limit=3)
    assert res.status == "node_limit" and res.n_nodes == 3
    root = float(A @ np.linalg.solve(B, A))
    assert res.upper_bound == pytest.approx(root, rel=1e-12)
    assert res.upper_bound >= oracle.best(A, B, 6) * (1 - 1e-12)


@pytest.mark.parametrize("branch_rule", ["important-include", "gain-include", "backward-exclude"])
@pytest.mark.parametrize("bounds", ["cardinality", "inclusion"])
@pytest.mark.parametrize("form", ["vector", "factor"])
def test_ablation_options_reach_the_same_optimum(branch_rule, bounds, form, oracle):
    rng = np.random.default_rng(11)
    for _ in range(4):
        A, B = _pair(rng, 11, form)
        res = exact_support(A, B, 5, branch_rule=branch_rule, bounds=bounds)
        assert res.status == "optimal"
        assert res.objective == pytest.approx(oracle.best(A, B, 5), rel=1e-9)


@pytest.mark.parametrize(
    "fn, kwargs, match",
    [
        (exact_support, {"branch_rule": "random"}, "'branch_rule' parameter of exact_support"),
        (exact_support, {"bounds": "none"}, "'bounds' parameter of exact_support"),
        (plain_search, {"branch_rule": "important-include"}, "'branch_rule' parameter of plain_search"),
        (plain_search, {"node_limit": -1}, "'node_limit' parameter of plain_search"),
    ],
)
def test_bad_options(fn, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fn(np.ones(4), None, 2, **kwargs)
