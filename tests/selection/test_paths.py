"""lda_paths / pca_paths: the whole-path functions behind ``pixsel path``."""

import numpy as np
import pytest

import pixsel
from pixsel.selection import PathSet, lda_paths, pca_paths
from pixsel.spectral import (
    fisher_thresholding_path,
    greedy_path,
    objective_on_support,
    simple_thresholding,
    simple_thresholding_path,
    sparsity_lower_bound,
)
from pixsel.stats import class_statistics, regularize


def _two_class(seed=0, n=60, p=9):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p)) + 0.8 * y[:, None] * (np.arange(p) < 3)
    return X, y


def test_public_from_package_root():
    assert pixsel.lda_paths is lda_paths and pixsel.pca_paths is pca_paths and pixsel.PathSet is PathSet


def test_lda_two_class_matches_pipeline_by_hand():
    X, y = _two_class()
    X0 = X.copy()
    ps = lda_paths(X, y)
    np.testing.assert_array_equal(X, X0)
    st = class_statistics(X, y)
    B, reg = regularize(st.within, "auto", X=X, y=y, means=st.means, classes=st.classes)
    a = st.between
    want = {
        "forward": greedy_path(a, B, direction="forward", certificate="auto"),
        "backward": greedy_path(a, B, direction="backward", certificate="auto"),
        "fisher": fisher_thresholding_path(a, B),
        "simple": simple_thresholding_path(a, B),
    }
    assert list(ps.paths) == list(want)
    for name, path in want.items():
        np.testing.assert_array_equal(ps.paths[name].order, path.order)
        np.testing.assert_array_equal(ps.paths[name].objective, path.objective)
    np.testing.assert_array_equal(ps.lower_bound, sparsity_lower_bound(a, B))
    ub = np.minimum(want["forward"].upper_bound, want["backward"].upper_bound)
    np.testing.assert_array_equal(ps.upper_bound, ub)
    assert ps.regularization.to_dict() == reg.to_dict()


def test_lda_bounds_sandwich_the_brute_force_optimum():
    from itertools import combinations

    X, y = _two_class(seed=1, p=7)
    ps = lda_paths(X, y, regularization=0.1)
    st = class_statistics(X, y)
    B, _ = regularize(st.within, 0.1)
    p = X.shape[1]
    for k in range(1, p + 1):
        best = max(objective_on_support(st.between, B, list(S)) for S in combinations(range(p), k))
        assert ps.lower_bound[k - 1] <= best + 1e-9
        assert ps.upper_bound[k - 1] >= best - 1e-9
        assert max(path.objective[k - 1] for path in ps.paths.values()) <= best + 1e-9


def test_lda_multiclass():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 20)
    X = rng.normal(size=(60, 8)) + np.eye(3)[y] @ rng.normal(size=(3, 8))
    ps = lda_paths(X, y)
    assert sorted(ps.paths) == ["backward", "forward", "simple"]
    assert ps.lower_bound is None
    st = class_statistics(X, y)
    B, _ = regularize(st.within, "auto", X=X, y=y, means=st.means, classes=st.classes)
    fwd = greedy_path(st.between_factor, B, direction="forward", certificate="auto")
    np.testing.assert_array_equal(ps.paths["forward"].objective, fwd.objective)
    want = simple_thresholding(st.between_factor, B)
    np.testing.assert_array_equal(ps.paths["simple"].order, want.order)
    assert ps.upper_bound is not None
    assert np.all(ps.upper_bound >= ps.paths["forward"].objective - 1e-9)


def test_pca_paths_match_kernels_and_pca_limit():
    X = np.random.default_rng(2).normal(size=(40, 7))
    ps = pca_paths(X)
    C = np.cov(X, rowvar=False)
    fwd = greedy_path(C, direction="forward", form="full", certificate="dual")
    np.testing.assert_array_equal(ps.paths["forward"].order, fwd.order)
    np.testing.assert_array_equal(ps.upper_bound, np.minimum(fwd.upper_bound, ps.paths["backward"].upper_bound))
    # k = p is ordinary PCA: the largest eigenvalue of the covariance
    for path in ps.paths.values():
        assert path.objective[-1] == pytest.approx(np.linalg.eigvalsh(C)[-1], rel=1e-10)
    assert ps.lower_bound is None and ps.regularization is None


def test_progress_is_quiet_by_default(capsys):
    X, y = _two_class()
    lda_paths(X, y)
    pca_paths(X)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
