"""Oracle tests of the blocked rank-one greedy kernel (pixsel.spectral.rank_one_greedy_path)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixsel.spectral import objective_on_support
from pixsel.spectral.greedy import greedy_path_reference
from pixsel.spectral.greedy._rank_one import _greedy_backward, _greedy_forward
from pixsel.spectral import rank_one_greedy_path as greedy_path  # the binary kernel itself (spectral.greedy_path dispatches)


def random_pair(rng, p, n=None):
    """A random SPD scatter (a sample covariance with more samples than features) and a vector."""
    n = 2 * p + 3 if n is None else n
    X = rng.standard_normal((n, p)) * rng.uniform(0.5, 2.0, size=p)
    B = X.T @ X / n
    a = rng.standard_normal(p)
    return a, B


def conditioned_pair(rng, p, cond):
    """SPD B with a prescribed condition number (log-spaced spectrum, random eigenvectors)."""
    Q, _ = np.linalg.qr(rng.standard_normal((p, p)))
    s = np.logspace(0, np.log10(cond), p)
    B = (Q * s) @ Q.T
    return rng.standard_normal(p), (B + B.T) / 2


# --------------------------------------------------------------------------- brute-force oracles
@pytest.mark.parametrize("seed", range(25))
def test_forward_choice_is_bruteforce_argmax(seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(2, 13))
    a, B = random_pair(rng, p)
    path = greedy_path(a, B, direction="forward", block_size=int(rng.integers(1, 5)))
    chosen = []
    for step, j in enumerate(path.order):
        candidates = [i for i in range(p) if i not in chosen]
        values = np.array([objective_on_support(a, B, chosen + [i]) for i in candidates])
        best = values.max()
        assert objective_on_support(a, B, chosen + [int(j)]) == pytest.approx(best, rel=1e-10)
        # ties go to the lowest index
        assert int(j) == candidates[int(np.flatnonzero(values >= best * (1 - 1e-12))[0])]
        chosen.append(int(j))
        assert path.objective[step] == pytest.approx(objective_on_support(a, B, chosen), rel=1e-10)


@pytest.mark.parametrize("seed", range(25))
def test_backward_removal_is_bruteforce_argmax(seed):
    rng = np.random.default_rng(100 + seed)
    p = int(rng.integers(2, 13))
    a, B = random_pair(rng, p)
    path = greedy_path(a, B, direction="backward", block_size=int(rng.integers(1, 5)))
    alive = list(range(p))
    assert path.objective[p - 1] == pytest.approx(objective_on_support(a, B, alive), rel=1e-10)
    for j in path.order[:-1]:
        values = np.array([objective_on_support(a, B, [i for i in alive if i != c]) for c in alive])
        best = values.max()
        assert objective_on_support(a, B, [i for i in alive if i != int(j)]) == pytest.approx(best, rel=1e-10)
        assert int(j) == alive[int(np.flatnonzero(values >= best * (1 - 1e-12))[0])]
        alive.remove(int(j))
        k = len(alive)
        assert path.objective[k - 1] == pytest.approx(objective_on_support(a, B, alive), rel=1e-10)
        np.testing.assert_array_equal(path.support(k), alive)
    assert alive == [int(path.order[-1])]  # the last survivor is last


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_weights_are_the_discriminant_on_the_support(direction):
    rng = np.random.default_rng(7)
    a, B = random_pair(rng, 9)
    path = greedy_path(a, B, direction=direction)
    for k in (1, 4, 9):
        S = path.support(k)
        z = path.weights(k)
        np.testing.assert_allclose(z[S], np.linalg.solve(B[np.ix_(S, S)], a[S]), rtol=1e-10)
        assert np.count_nonzero(z) <= k
        assert float(a @ z) == pytest.approx(path.objective[k - 1], rel=1e-10)


# --------------------------------------------------------------------------- blocked == unblocked
@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("seed", range(6))
def test_blocked_equals_reference_for_every_block_size(direction, seed):
    rng = np.random.default_rng(200 + seed)
    p = int(rng.integers(5, 40))
    a, B = random_pair(rng, p)
    ref = greedy_path_reference(a, B, direction)
    for block_size in (1, 2, 3, 8, p, p + 7, None):
        path = greedy_path(a, B, direction=direction, block_size=block_size)
        np.testing.assert_array_equal(path.order, ref.order)
        np.testing.assert_allclose(path.objective, ref.objective, rtol=1e-10)
        assert path.objective.dtype == np.float64 and path.objective.shape == (p,)


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_blocked_equals_reference_with_compaction(direction):
    """At p = 300 several panels run and the working matrix is compacted in place."""
    rng = np.random.default_rng(3)
    a, B = random_pair(rng, 300, n=900)
    ref = greedy_path_reference(a, B, direction)
    path = greedy_path(a, B, direction=direction, block_size=16)
    np.testing.assert_array_equal(path.order, ref.order)
    np.testing.assert_allclose(path.objective, ref.objective, rtol=1e-9)
    assert path.info["compactions"] > 0
    assert path.info["checkpoints"], "no drift checkpoint was taken"
    assert max(d for _, d in path.info["checkpoints"]) < 1e-10
    assert path.info["refactors"] == []


@pytest.mark.parametrize("kernel", [_greedy_forward, _greedy_backward])
def test_refactor_rebuilds_the_same_path(kernel):
    """Forcing a rebuild of the working matrix at every checkpoint changes nothing."""
    rng = np.random.default_rng(11)
    a, B = random_pair(rng, 60)
    direction = "forward" if kernel is _greedy_forward else "backward"
    ref = greedy_path_reference(a, B, direction)
    order, objective, info = kernel(a, B, block_size=4, check_every=5, force_refactor=True)
    assert len(info["refactors"]) >= 5
    np.testing.assert_array_equal(order, ref.order)
    np.testing.assert_allclose(objective, ref.objective, rtol=1e-10)


# --------------------------------------------------------------------------- conditioning
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    p=st.integers(2, 12),
    log_cond=st.floats(0.0, 10.0),
    direction=st.sampled_from(["forward", "backward"]),
    block_size=st.integers(1, 6),
)
def test_ill_conditioned_b_matches_direct_solves(seed, p, log_cond, direction, block_size):
    rng = np.random.default_rng(seed)
    a, B = conditioned_pair(rng, p, 10.0**log_cond)
    path = greedy_path(a, B, direction=direction, block_size=block_size, check_every=2)
    ref = greedy_path_reference(a, B, direction)
    # accuracy of any f on these pairs: about cond * eps
    rtol = max(1e-10, 10.0**log_cond * 1e-14)
    for k in range(1, p + 1):
        direct = objective_on_support(a, B, path.support(k))
        assert path.objective[k - 1] == pytest.approx(direct, rel=rtol, abs=rtol * path.objective[-1])
    # same greedy values as the textbook kernel (orders agree except at numerical near-ties)
    np.testing.assert_allclose(path.objective, ref.objective, rtol=rtol, atol=rtol * abs(ref.objective).max())


# --------------------------------------------------------------------------- dtype, degenerate input
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_float32_input_is_computed_in_float64(direction):
    rng = np.random.default_rng(5)
    a, B = random_pair(rng, 20)
    a32, B32 = a.astype(np.float32), B.astype(np.float32)
    path = greedy_path(a32, B32, direction=direction)
    ref = greedy_path_reference(a32.astype(np.float64), B32.astype(np.float64), direction)
    np.testing.assert_array_equal(path.order, ref.order)
    np.testing.assert_allclose(path.objective, ref.objective, rtol=1e-10)
    assert path.objective.dtype == np.float64
    # float32 rounding of the inputs moves f by about 1e-6 relative, not more
    np.testing.assert_allclose(path.objective[-1], objective_on_support(a, B, range(20)), rtol=1e-4)


def test_duplicated_and_constant_features_give_zero_gain_without_warnings():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((50, 6))
    X = np.column_stack([X, X[:, 2], np.zeros(50), X[:, 0] + X[:, 1]])  # 6: copy of 2, 7: constant, 8: sum
    B = X.T @ X / 50
    a = np.concatenate([rng.standard_normal(6), [0.0, 0.0, 0.0]])
    a[6] = a[2]
    a[8] = a[0] + a[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = greedy_path(a, B, direction="forward", block_size=3)
    order = path.order.tolist()
    assert order.index(2) < order.index(6)  # the duplicate with the lower index comes first
    assert path.info["zero_pivots"] >= 3
    full = objective_on_support(a, B, range(6))
    assert path.objective[-1] == pytest.approx(full, rel=1e-8)  # redundant features add nothing
    assert np.all(np.diff(path.objective) >= -1e-12 * full)
    assert np.all(np.isfinite(path.objective))


def test_singular_b_backward_suggests_regularization():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((4, 8))  # fewer samples than features: rank 4
    B = X.T @ X / 4
    with pytest.raises(ValueError, match="regularization='auto'"):
        greedy_path(rng.standard_normal(8), B, direction="backward")
    with pytest.raises(ValueError, match="regularization='auto'"):
        greedy_path(np.ones(2), np.zeros((2, 2)), direction="backward")
    # the forward path is defined for a in the range of B (a difference of sample means is):
    # the first 4 steps gain, the remaining features are in their span and add (numerically) nothing
    a = X.T @ rng.standard_normal(4) / 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = greedy_path(a, B, direction="forward")
    assert np.all(np.isfinite(path.objective))
    assert path.objective[3] == pytest.approx(objective_on_support(a, B, path.support(4)), rel=1e-8)
    np.testing.assert_allclose(path.objective[4:], path.objective[3], rtol=1e-6)


def test_rank_deficient_b_with_checkpoints_at_every_step():
    """Forward checkpoints on a numerically singular support neither fail nor warn."""
    rng = np.random.default_rng(10)
    X = rng.standard_normal((10, 40))
    B = X.T @ X / 10  # rank 10
    a = X.T @ rng.standard_normal(10) / 10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = greedy_path(a, B, direction="forward", block_size=3, check_every=1)
    assert len(path.info["checkpoints"]) >= 10
    assert np.all(np.isfinite(path.objective))
    assert path.objective[9] == pytest.approx(objective_on_support(a, B, path.support(10)), rel=1e-6)
    np.testing.assert_allclose(path.objective[10:], path.objective[9], rtol=1e-6)


def test_single_feature():
    for direction in ("forward", "backward"):
        path = greedy_path([3.0], [[2.0]], direction=direction)
        assert path.order.tolist() == [0]
        assert path.objective[0] == pytest.approx(4.5, rel=1e-15)


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_callers_arrays_are_unchanged(direction):
    rng = np.random.default_rng(12)
    a, B = random_pair(rng, 40)
    for a_in, B_in in ((a, B), (a.astype(np.float32), np.asfortranarray(B))):
        a0, B0 = a_in.copy(), B_in.copy()
        greedy_path(a_in, B_in, direction=direction, block_size=4)
        np.testing.assert_array_equal(a_in, a0)
        np.testing.assert_array_equal(B_in, B0)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"a": np.ones((3, 1))}, ValueError, "1-D array"),
        ({"a": np.array([1.0, np.nan, 0.0])}, ValueError, "NaN or infinite"),
        ({"B": np.full((3, 3), np.inf)}, ValueError, "NaN or infinite"),
        ({"B": np.ones((3, 2))}, ValueError, "square"),
        ({"B": np.triu(np.ones((3, 3)))}, ValueError, "symmetric"),
        ({"a": np.ones(4)}, ValueError, "same features"),
        ({"a": np.array(["x", "y", "z"])}, TypeError, "real numbers"),
        ({"direction": "sideways"}, ValueError, "'direction' parameter of rank_one_greedy_path"),
        ({"block_size": 0}, ValueError, "'block_size' parameter of rank_one_greedy_path"),
        ({"drift_tol": -1.0}, ValueError, "'drift_tol' parameter"),
    ],
)
def test_bad_input_errors_say_how_to_fix(kwargs, error, match):
    args = {"a": np.ones(3), "B": np.eye(3)} | kwargs
    a, B = args.pop("a"), args.pop("B")
    with pytest.raises(error, match=match):
        greedy_path(a, B, **args)


def test_selection_rules_break_near_ties_to_the_lowest_index():
    from pixsel.spectral.greedy._rank_one import _select_max, _select_min

    live = np.ones(5, dtype=bool)
    tol = np.full(5, 1e-300)
    d = np.ones(5)
    v = np.sqrt(np.array([1.0, 2.0, 1.0, 2.0 * (1 + 1e-14), 0.5]))
    assert _select_max(v, d, live, tol) == 1  # 3 wins by 1e-14 relative: a tie, lowest index
    v[3] = np.sqrt(2.0 * (1 + 1e-9))
    assert _select_max(v, d, live, tol) == 3  # a real difference
    tol[3] = np.inf  # a dead row gains nothing
    assert _select_max(v, d, live, tol) == 1
    assert _select_max(np.zeros(5), d, np.array([False, False, True, True, True]), np.full(5, 1e-300)) == 2
    pen = np.zeros(5)
    w = np.sqrt(np.array([3.0, 0.5, 2.0, 0.5 * (1 - 1e-14), 0.7]))
    assert _select_min(w, d, pen) == 1
    pen[1] = np.inf  # dead
    assert _select_min(w, d, pen) == 3


def test_checkpoint_factorization_is_scipys_to_the_bit():
    """The drift checkpoints factor and solve by the LAPACK calls of SciPy's ``cho_factor`` and
    ``solve_triangular``: the same numbers, and the error that marks a singular block."""
    import scipy.linalg as sla

    from pixsel.spectral._linalg import lower_cholesky as _lower_cholesky
    from pixsel.spectral._linalg import solve_lower as _solve_lower

    rng = np.random.default_rng(1)
    for k in (1, 2, 7, 30):
        Z = rng.standard_normal((k + 4, k + 3))
        B, a = Z.T @ Z, rng.standard_normal(k + 3)
        S = np.sort(rng.choice(k + 3, k, replace=False))
        T = np.setdiff1d(np.arange(k + 3), S)
        c0 = sla.cho_factor(B[np.ix_(S, S)], lower=True, check_finite=False)[0]
        c1 = _lower_cholesky(B[np.ix_(S, S)])
        assert np.array_equal(np.tril(c0), np.tril(c1))
        for b in (a[S], B[np.ix_(S, T)]):
            assert np.array_equal(_solve_lower(c1, b), sla.solve_triangular(c0, b, lower=True, check_finite=False))
    with pytest.raises(np.linalg.LinAlgError):
        _lower_cholesky(-np.eye(3))
