"""exact_path(bounds='sdp'): the open sizes capped by the rank-one convexification, against brute force."""

import sys

import numpy as np
import pytest

from pixsel.spectral import exact_path

from .test_exact_path import _below, banded_lda, enumerate_all

pytest.importorskip("clarabel")


@pytest.fixture(scope="module")
def problem():
    a, B = banded_lda(np.random.default_rng(11), 10, 30, 0.01)
    return a, B, enumerate_all(a, B, "max-eig")


def test_stopped_path_caps_never_below_brute_force(problem):
    """The same stopped search (a node limit: the root only), capped by the perspective relaxation alone and then
    also by the pair split: every bound stays at or above the enumerated optimum, each open size's
    bound is at most the perspective one, and the searches themselves (supports, objectives, the
    sizes proved) are the same."""
    a, B, opt = problem
    for limit in (0,):
        plain = exact_path(a, B, node_limit=limit)
        sdp = exact_path(a, B, node_limit=limit, bounds="sdp")
        assert not np.any(_below(sdp.upper_bound, opt))
        assert np.all(sdp.upper_bound <= plain.upper_bound * (1 + 1e-12) + 1e-12)
        np.testing.assert_allclose(sdp.objective, plain.objective, rtol=1e-12)
        assert np.all(sdp.status[plain.status == "optimal"] == "optimal")
        info = sdp.info["sdp"]
        open_sizes = np.flatnonzero(plain.status != "optimal") + 1
        assert info["sizes"] == open_sizes.size
        # the smallest open size first, then the median one (no time limit: both solved)
        desc = open_sizes[::-1].tolist()
        assert info["k"] == list(dict.fromkeys([desc[-1], desc[len(desc) // 2]]))
        assert len(info["k"]) == 2 and info["status"] == ["Solved", "Solved"]
        # on these correlated features the pair split tightens some open size
        assert info["improved"] >= 1
        assert np.any(sdp.upper_bound < plain.upper_bound * (1 - 1e-6))


def test_completed_path_is_the_optimum(problem):
    """A search that completes needs no caps: the optimum of every size, no relaxation solved."""
    a, B, opt = problem
    path = exact_path(a, B, bounds="sdp")
    assert np.all(path.status == "optimal")
    np.testing.assert_allclose(path.objective, opt, rtol=1e-8)
    assert path.info["sdp"]["k"] == [] and path.info["sdp"]["sizes"] == 0


def test_other_forms_and_bad_values(problem):
    a, B, _ = problem
    # a factor (multiclass) problem is left to the search: 'sdp' is 'cardinality' there
    rng = np.random.default_rng(0)
    assert exact_path(rng.standard_normal((10, 2)), B, node_limit=0, bounds="sdp").info["sdp"] is None
    with pytest.raises(ValueError, match="bounds must be one of"):
        exact_path(a, B, bounds="perspective")


def test_missing_solver_names_the_extra(problem, monkeypatch):
    """Asked for explicitly without Clarabel: an error naming the extra, before any search."""
    a, B, _ = problem
    monkeypatch.setitem(sys.modules, "clarabel", None)
    with pytest.raises(ImportError, match=r"pixsel\[conic\]"):
        exact_path(a, B, bounds="sdp")
    # the default needs no solver
    assert np.all(exact_path(a, B, node_limit=0).upper_bound > 0)
