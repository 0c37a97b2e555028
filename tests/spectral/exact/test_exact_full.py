"""The full-matrix sparse PCA search (spectral/exact/_full.py): a dive's reused work and the
certified Lanczos bound of large nodes, against recomputing every node and against brute force."""

import numpy as np
import pytest

from pixsel.spectral import exact_support
from pixsel.spectral.exact import _full
from pixsel.spectral.exact._full import FullBnB


def _pixel_like(rng, n, p):
    """A covariance of smooth 1-D 'images': neighbouring features strongly correlated."""
    X = np.cumsum(rng.standard_normal((n, p)), axis=1) + rng.standard_normal((n, p))
    X -= X.mean(axis=0)
    return X.T @ X / n


@pytest.mark.parametrize("bounds", ["cardinality", "sdp"])
def test_reusing_a_dives_work_walks_the_same_tree(monkeypatch, bounds):
    """With and without the reuse: the same nodes, support, objective and bound, at several k."""
    rng = np.random.default_rng(3)
    A = _pixel_like(rng, 80, 40)
    for k in (3, 6, 12):
        runs = []
        for reuse in (False, True):
            monkeypatch.setattr(FullBnB, "reuse", reuse)
            r = exact_support(A, None, k, bounds=bounds, node_limit=60)
            runs.append((r.status, r.n_nodes, r.support.tolist(), r.objective, r.upper_bound))
        assert runs[0] == runs[1]


def test_large_nodes_certified_by_lanczos_reach_the_brute_force_optimum(monkeypatch):
    """p = 530 (above the size where a node is decomposed densely), k = 2: the optimum of every
    pair (closed form of the 2 x 2 eigenvalue), certified, with the root bounded by Lanczos."""
    sizes = []
    lanczos = _full.top_eigenpair_bound
    monkeypatch.setattr(_full, "top_eigenpair_bound", lambda M, **kw: sizes.append(len(M)) or lanczos(M, **kw))
    rng = np.random.default_rng(11)
    A = _pixel_like(rng, 60, 530)
    d = np.diag(A)
    lam = (d[:, None] + d[None, :]) / 2 + np.sqrt(((d[:, None] - d[None, :]) / 2) ** 2 + A**2)
    np.fill_diagonal(lam, -np.inf)
    best = float(lam.max())
    r = exact_support(A, None, 2)
    assert r.status == "optimal"
    assert r.objective == pytest.approx(best, rel=1e-10)
    assert r.upper_bound >= best * (1 - 1e-12)
    i, j = r.support
    assert lam[i, j] == pytest.approx(best, rel=1e-10)
    assert sizes and max(sizes) == 530
