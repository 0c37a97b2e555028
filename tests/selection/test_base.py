"""The path-selector base shared by SparseLDASelector and SparsePCASelector."""

import numpy as np
import pytest

from pixsel.decomposition import GreedySparsePCA
from pixsel.selection import SparseLDASelector, SparsePCASelector
from pixsel.spectral import greedy_path, objective_on_support


@pytest.fixture
def blobs():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 8)) + np.outer(y, [1.5, 0, 0, 1.0, 0, 0, 0, 0])
    return X, y


@pytest.mark.parametrize("direction", ["forward", "backward", "dual"])
def test_lda_objective_path_and_get_support_at_agree(blobs, direction):
    X, y = blobs
    sel = SparseLDASelector(3, direction=direction, regularization=0.1).fit(X, y)
    from pixsel.stats import class_statistics, regularize

    st = class_statistics(X, y)
    B, _ = regularize(st.within, 0.1)
    for k in range(1, 9):
        S = sel.get_support_at(k, indices=True)
        assert len(S) == k
        assert objective_on_support(st.between, B, S) == pytest.approx(sel.objective_path_[k - 1], rel=1e-9)


def test_spca_objective_path_matches_paths_and_supports(blobs):
    X, _ = blobs
    C = np.cov(X, rowvar=False)
    sel = SparsePCASelector(3, direction="dual", refine=False).fit(X)
    fwd = greedy_path(C, direction="forward", form="full", max_k=3, certificate=None)
    bwd = greedy_path(C, direction="backward", form="full", certificate=None)
    want = bwd.objective.copy()
    want[:3] = np.maximum(want[:3], fwd.objective)
    np.testing.assert_allclose(sel.objective_path_, want, rtol=1e-12)
    for k in range(1, 9):
        S = sel.get_support_at(k, indices=True)
        assert objective_on_support(C, None, S) == pytest.approx(sel.objective_path_[k - 1], rel=1e-9)
    assert sel.explained_variance_ == sel.objective_path_[2]
    # forward only: the path stops at k
    fwd_only = SparsePCASelector(3, direction="forward").fit(X)
    assert len(fwd_only.objective_path_) == 3
    with pytest.raises(ValueError, match="stopped at k = 3; .* n_features_to_select=4"):
        fwd_only.get_support_at(4)


def test_spca_refined_objective_path_entry_is_the_refined_support(blobs):
    X, _ = blobs
    sel = SparsePCASelector(4, refine=True).fit(X)
    C = np.cov(X, rowvar=False)
    S = sel.get_support_at(4, indices=True)
    assert objective_on_support(C, None, S) == pytest.approx(sel.objective_path_[3], rel=1e-9)
    assert sel.objective_path_[3] == sel.explained_variance_


def test_gspca_first_component_is_the_selectors_component(blobs):
    X, _ = blobs
    for direction in ("forward", "backward", "dual"):
        sel = SparsePCASelector(3, direction=direction, refine=False).fit(X)
        gs = GreedySparsePCA(n_components=1, n_nonzero_coefs=3, direction=direction).fit(X)
        np.testing.assert_array_equal(gs.supports_[0], sel.get_support(indices=True))
        np.testing.assert_allclose(gs.components_[0], sel.components_[0], atol=1e-12)
        assert gs.component_variance_[0] == pytest.approx(sel.explained_variance_, rel=1e-12)


@pytest.mark.parametrize("Est", [SparseLDASelector, SparsePCASelector])
def test_progress_is_a_parameter_and_quiet_by_default(Est, blobs, capsys):
    X, y = blobs
    est = Est(2, solver="exact")
    assert est.get_params()["progress"] is False
    est.fit(X, y)
    assert est.status_ == "optimal"
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
