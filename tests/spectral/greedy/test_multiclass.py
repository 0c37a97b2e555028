import numpy as np
import pytest

from pixsel.spectral.greedy import greedy_path_reference
from pixsel.spectral.greedy._multiclass import multiclass_greedy_path


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_greedy_oracle(oracle, direction, criterion, seed):
    rng = np.random.default_rng(seed)
    p, r = 9, 3
    M = rng.standard_normal((p, r))
    B = oracle.spd(rng, p)
    path = multiclass_greedy_path(M, B, direction=direction, criterion=criterion)
    order, obj = oracle.greedy(M, B, direction, criterion)
    np.testing.assert_array_equal(path.order, order)
    np.testing.assert_allclose(path.objective, obj, rtol=1e-9, atol=1e-12)
    for k in (1, 4, p):
        assert path.objective[k - 1] == pytest.approx(oracle.value(M, B, path.support(k), criterion), rel=1e-9)


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_identity_B_and_rank_deficient_factor(oracle, direction):
    rng = np.random.default_rng(5)
    p = 8
    M = rng.standard_normal((p, 2)) @ np.array([[1.0, 2.0, -1.0], [0.5, 1.0, -0.5]])  # rank 1, r = 3
    path = multiclass_greedy_path(M, None, direction=direction)
    order, obj = oracle.greedy(M, None, direction)
    np.testing.assert_allclose(path.objective, obj, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(path.order, order)


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_rank_one_reduces_to_binary_reference(direction):
    rng = np.random.default_rng(3)
    p = 20
    a = rng.standard_normal(p)
    W = rng.standard_normal((p, 30))
    B = W @ W.T / 30 + 0.05 * np.eye(p)
    ref = greedy_path_reference(a, B, direction)
    for criterion in ("max-eig", "trace"):
        path = multiclass_greedy_path(a[:, None], B, direction=direction, criterion=criterion)
        np.testing.assert_array_equal(path.order, ref.order)
        np.testing.assert_allclose(path.objective, ref.objective, rtol=1e-9)


def test_full_support_is_plain_lda():
    """k = p: the objective is the top LDA eigenvalue of (S_b, S_w) and the sum for 'trace'."""
    rng = np.random.default_rng(7)
    p, r = 10, 4
    M = rng.standard_normal((p, r))
    B = np.cov(rng.standard_normal((p, 40))) + 0.1 * np.eye(p)
    vals = np.linalg.eigvals(np.linalg.solve(B, M @ M.T)).real
    for direction in ("forward", "backward"):
        mx = multiclass_greedy_path(M, B, direction=direction).objective[-1]
        tr = multiclass_greedy_path(M, B, direction=direction, criterion="trace").objective[-1]
        assert mx == pytest.approx(vals.max(), rel=1e-9)
        assert tr == pytest.approx(vals.sum(), rel=1e-9)


def test_max_k_truncates_forward():
    rng = np.random.default_rng(2)
    M = rng.standard_normal((15, 3))
    full = multiclass_greedy_path(M, np.eye(15))
    part = multiclass_greedy_path(M, np.eye(15), max_k=5)
    np.testing.assert_array_equal(part.order, full.order[:5])
    np.testing.assert_allclose(part.objective, full.objective[:5])


def test_does_not_modify_inputs():
    rng = np.random.default_rng(4)
    M = rng.standard_normal((6, 2))
    B = np.eye(6) + 0.1
    M0, B0 = M.copy(), B.copy()
    for d in ("forward", "backward"):
        multiclass_greedy_path(M, B, direction=d)
    np.testing.assert_array_equal(M, M0)
    np.testing.assert_array_equal(B, B0)


def test_bad_parameters():
    with pytest.raises(ValueError, match="criterion"):
        multiclass_greedy_path(np.ones((3, 2)), criterion="det")
    with pytest.raises(ValueError, match="direction"):
        multiclass_greedy_path(np.ones((3, 2)), direction="sideways")


def test_forward_ties_go_to_the_lowest_index_after_rows_move():
    """The forward loop keeps the candidates' rows in a block and swaps a chosen row out of it:
    choosing feature 0 moves feature 5's row ahead of feature 1's, its exact tie; 1 must still
    come first, and so must 2 before 3 before 4 (trace on B = I: descending ``|M_i|^2``)."""
    M = np.zeros((6, 2))
    M[0] = [3.0, 0.0]
    M[[1, 5]] = [0.0, 1.0]
    M[[2, 3, 4]] = [0.2, 0.0]
    for method in ("auto", "eigh"):
        path = multiclass_greedy_path(M, np.eye(6), criterion="trace", method=method)
        assert path.order.tolist() == [0, 1, 5, 2, 3, 4]
        np.testing.assert_allclose(path.objective, [9.0, 10.0, 11.0, 11.04, 11.08, 11.12])
