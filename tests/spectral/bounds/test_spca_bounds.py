"""Sparse PCA node bounds (spectral/bounds/_spca_bounds.py) against brute force.

Every bound must be >= the best lambda_max(A_SS) over the node's supports (F <= S <= C,
|S| = k); the exact solver with every bound set must return the enumeration optimum; a stopped
solve's bound must never be below it."""

import itertools

import numpy as np
import pytest

from pixsel.spectral import exact_support
from pixsel.spectral.exact._solve import BOUND_SETS
from pixsel.spectral.bounds._spca_bounds import (
    RowTable,
    generalize,
    row_bound,
    row_bounds_path,
    sdp_bounds_path,
    sdp_dual_bound,
    sdp_dual_value,
    spca_bounds_path,
    top_eigenpair_bound,
    top_eigenvalue_bound,
)

from ..exact.test_exact_support import _pair, brute_force


def node_optimum(A, k, C, F, B=None):
    """max lambda_max(A_SS, B_SS) over |S| = k, F <= S <= C, by enumeration (textbook eigh)."""
    free = [c for c in C if c not in F]
    best = -np.inf
    for T in itertools.combinations(free, k - len(F)):
        S = sorted(list(F) + list(T))
        As = A[np.ix_(S, S)]
        if B is None:
            v = np.linalg.eigvalsh(As)[-1]
        else:
            Li = np.linalg.inv(np.linalg.cholesky(B[np.ix_(S, S)]))
            v = np.linalg.eigvalsh(Li @ As @ Li.T)[-1]
        best = max(best, v)
    return best


def _matrix(rng, p, kind):
    Y = rng.standard_normal((p, p))
    if kind == "psd":
        return Y @ Y.T / p
    if kind == "indefinite":
        return (Y + Y.T) / 2
    M = rng.standard_normal((p, 2)) + 1.0  # low rank, positively correlated (pixel-like)
    return M @ M.T


def _below(value, opt):
    return value < opt - 1e-9 * max(1.0, abs(opt))


@pytest.mark.parametrize("kind", ["psd", "indefinite", "lowrank"])
def test_node_bounds_never_below_node_optimum(kind):
    """50 random nodes per kind (150 in all), p <= 9, random (F, C), B = I and general B."""
    rng = np.random.default_rng(["psd", "indefinite", "lowrank"].index(kind) + 140)
    for _ in range(50):
        p = int(rng.integers(3, 10))
        k = int(rng.integers(1, p + 1))
        A = _matrix(rng, p, kind)
        C = np.flatnonzero(rng.random(p) < 0.8)
        if len(C) < k:
            C = np.arange(p)
        F = np.sort(rng.choice(C, size=int(rng.integers(0, k + 1)), replace=False))
        opt = node_optimum(A, k, C.tolist(), F.tolist())
        assert not _below(row_bound(A, k, candidates=C, fixed=F), opt)
        b, Z = sdp_dual_bound(A, k, candidates=C, max_iter=10)
        assert not _below(b, opt)
        assert not _below(sdp_dual_value(A[np.ix_(C, C)], Z, k), opt)
        # any symmetric Z is a certificate, and the one of a parent node certifies its children
        R = rng.standard_normal((p, p))
        assert not _below(sdp_dual_value(A, (R + R.T) / 2, k, candidates=C), opt)
        bp, Zp = sdp_dual_bound(A, k, max_iter=5)
        assert not _below(sdp_dual_value(A, Zp, k, candidates=C), opt)
        # general B: the bound on lambda_max(A_SS) divided by lambda_min(B) (lambda_max if < 0)
        X = rng.standard_normal((p + 2, p))
        B = X.T @ X / (p + 2) + 0.05 * np.eye(p)
        wB = np.linalg.eigvalsh(B)
        optB = node_optimum(A, k, C.tolist(), F.tolist(), B)
        assert not _below(generalize(min(row_bound(A, k, candidates=C, fixed=F), b), wB[0], wB[-1]), optB)


@pytest.mark.parametrize("kind", ["psd", "indefinite", "lowrank"])
def test_path_bounds_every_k(kind):
    rng = np.random.default_rng(["psd", "indefinite", "lowrank"].index(kind) + 7)
    for _ in range(12):
        p = int(rng.integers(3, 10))
        A = _matrix(rng, p, kind)
        opt = np.array([node_optimum(A, k, list(range(p)), []) for k in range(1, p + 1)])
        for ub in (row_bounds_path(A), sdp_bounds_path(A), spca_bounds_path(A, refine=[2, p - 1])):
            assert not np.any(ub < opt - 1e-9 * np.maximum(1.0, np.abs(opt)))
        # k = 1 is exact: max A_ii (the soft-thresholding family reaches it at rho = max |A_ij|)
        assert sdp_bounds_path(A)[0] == pytest.approx(np.max(np.diag(A)), rel=1e-8)
        ub = spca_bounds_path(A)
        assert np.all(np.diff(ub) >= 0)
        assert ub[-1] == pytest.approx(opt[-1], rel=1e-8)


def test_bounds_are_tight_on_a_planted_block():
    """A strong block on 4 features plus weak noise: both bounds are within 5 % at k = 4, far
    below lambda_max of the whole matrix (which the inclusion bound alone would report)."""
    rng = np.random.default_rng(3)
    p, k = 40, 4
    v = np.zeros(p)
    v[:k] = 1.0
    N = rng.standard_normal((p, p)) * 0.05
    A = 3 * np.outer(v, v) + 0.3 * np.ones((p, p)) + N @ N.T + np.eye(p) * 0.5
    opt = np.linalg.eigvalsh(A[:k, :k])[-1]
    lam = np.linalg.eigvalsh(A)[-1]
    rb = row_bound(A, k)
    sb, _ = sdp_dual_bound(A, k, max_iter=30)
    assert opt <= rb <= 1.05 * opt and opt <= sb <= 1.05 * opt
    # and a k larger than the block: the relaxation stays below lambda_max(A)
    assert sdp_dual_bound(A, 10)[0] < lam


@pytest.mark.parametrize("bounds", list(BOUND_SETS))
@pytest.mark.parametrize("kind", ["psd", "indefinite"])
def test_exact_support_with_each_bound_set(bounds, kind):
    """~25 random pairs per (set, kind): optimal status and the enumeration optimum."""
    rng = np.random.default_rng([*BOUND_SETS].index(bounds) * 2 + (kind == "psd"))
    for _ in range(25):
        p = int(rng.integers(4, 10))
        k = int(rng.integers(2, p))
        A, B = _pair(rng, p, kind)
        best = brute_force(A, np.eye(p) if B is None else B, k, "max-eig")
        res = exact_support(A, B, k, bounds=bounds)
        assert res.status == "optimal"
        assert res.objective == pytest.approx(best, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("bounds", ["cardinality", "sdp"])
def test_stopped_solves_bound_below_lambda_max_and_above_optimum(bounds):
    rng = np.random.default_rng(21)
    for _ in range(4):
        p, k = 11, int(rng.integers(3, 8))
        A = _matrix(rng, p, "lowrank") + 0.1 * _matrix(rng, p, "psd")
        best = brute_force(A, np.eye(p), k, "max-eig")
        for limit in (1, 2, 5):
            res = exact_support(A, None, k, node_limit=limit, bounds=bounds)
            assert res.upper_bound >= best * (1 - 1e-9)
            assert res.objective <= best * (1 + 1e-9)
    # a stopped solve reports the node bounds, not only lambda_max(A): on a planted block
    v = np.zeros(30)
    v[:3] = 1.0
    A = 2 * np.outer(v, v) + np.eye(30) + 0.3 * np.ones((30, 30))
    res = exact_support(A, None, 3, node_limit=1, bounds=bounds)
    assert res.upper_bound < 0.8 * np.linalg.eigvalsh(A)[-1]


def test_bad_node():
    A = np.eye(4)
    with pytest.raises(ValueError, match="subset of candidates"):
        row_bound(A, 2, candidates=[0, 1], fixed=[2])
    with pytest.raises(ValueError, match="no support of size"):
        row_bound(A, 3, candidates=[0, 1])


def _row_bound_textbook(A, k, C, F, psd):
    """The row bounds written out row by row (Gershgorin, Frobenius, trace), no sorting tricks."""
    C, F = list(C), set(F)
    t = k - len(F)
    gersh, fro_rows = {}, {}
    for i in C:
        fixed = [abs(A[i, j]) for j in F if j != i]
        free = sorted((abs(A[i, j]) for j in C if j not in F and j != i), reverse=True)
        slots = t if i in F else t - 1
        top = free[:max(slots, 0)]
        gersh[i] = A[i, i] + sum(fixed) + sum(top)
        fro_rows[i] = A[i, i] ** 2 + sum(x * x for x in fixed) + sum(x * x for x in top)
    if t > 0:
        g = max(gersh.values())
        fro_free = sum(sorted((fro_rows[i] for i in C if i not in F), reverse=True)[:t])
    else:
        g = max(gersh[i] for i in F)
        fro_free = 0.0
    best = min(g, np.sqrt(max(sum(fro_rows[i] for i in F) + fro_free, 0.0)))
    if psd:
        best = min(best, sum(A[i, i] for i in F) + sum(sorted((A[i, i] for i in C if i not in F), reverse=True)[:t]))
    return best


def test_row_table_answers_every_node_of_its_candidates_as_the_textbook_bound():
    """One table per (A, C), asked at many F (as a dive asks it): each answer is the textbook row
    bound (to the rounding slack), also with ties among the entries and an indefinite A."""
    rng = np.random.default_rng(7)
    for trial in range(40):
        p = int(rng.integers(3, 14))
        A = _matrix(rng, p, ["psd", "indefinite", "lowrank"][trial % 3])
        if trial % 4 == 0:
            A = np.round(A * 2) / 2  # ties
        psd = bool(np.linalg.eigvalsh(A)[0] >= -1e-12 * np.abs(A).max())
        k = int(rng.integers(1, p + 1))
        C = np.sort(rng.choice(p, size=int(rng.integers(k, p + 1)), replace=False))
        table = RowTable(A, C, k, psd)
        for _ in range(6):
            F = np.sort(rng.choice(C, size=int(rng.integers(0, k + 1)), replace=False))
            want = _row_bound_textbook(A, k, C, F, psd)
            got = table.bound(np.isin(C, F))
            assert got == pytest.approx(want, rel=1e-9, abs=1e-9)
            assert got == row_bound(A, k, candidates=C, fixed=F, psd=psd)
            assert not _below(got, node_optimum(A, k, C, F))


@pytest.mark.parametrize("n", [40, 300])
def test_top_eigenpair_bound_is_certified_and_its_vector_is_the_eigenvector(n):
    """Dense below 256 (exact to rounding, which the callers' slack covers), Lanczos and a
    Cholesky proof above (never below lambda_max): within a relative 1e-6 of it, the same value
    as top_eigenvalue_bound, and the vector the top one."""
    rng = np.random.default_rng(n)
    Y = rng.standard_normal((n, n // 2)) + 0.3
    M = Y @ Y.T / n
    w, V = np.linalg.eigh(M)
    value, v = top_eigenpair_bound(M)
    assert value >= w[-1] * (1 - (1e-12 if n <= 256 else 0.0)) and value <= w[-1] * (1 + 1e-6)
    assert value == top_eigenvalue_bound(M)
    assert top_eigenpair_bound(M, vector=False)[1] is None
    assert abs(float(v @ V[:, -1])) == pytest.approx(1.0, abs=1e-8)
    # a cap the caller holds: Lanczos reaching it skips the proof (inf, the vector still given);
    # a cap above lambda_max changes nothing; the dense route ignores it
    below, above = w[-1] * 0.999, w[-1] * 1.5
    capped, v2 = top_eigenpair_bound(M, cap=below)
    assert (capped == np.inf) if n > 256 else (capped == value)
    assert abs(float(v2 @ V[:, -1])) == pytest.approx(1.0, abs=1e-8)
    assert top_eigenpair_bound(M, cap=above)[0] == value
