"""The greedy paths on any array library: the same order as the NumPy kernel, the same objective
to rounding; float32 input computes in float64 (as the NumPy kernel does)."""

import numpy as np
import pytest

from pixsel.spectral import greedy_path, rank_one_greedy_path


def _pair(p, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((3 * p, p))
    return rng.standard_normal(p), Z.T @ Z / (3 * p) + 0.1 * np.eye(p)


@pytest.mark.parametrize("p", [1, 7, 90])
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_rank_one_path_matches_numpy(lib, p, direction):
    a, B = _pair(p, seed=p)
    ref = rank_one_greedy_path(a, B, direction=direction)
    for fn in (lambda: rank_one_greedy_path(lib.asarray(a), lib.asarray(B), direction=direction),
               lambda: greedy_path(lib.asarray(a), lib.asarray(B), direction=direction)):
        got = fn()
        np.testing.assert_array_equal(got.order, ref.order)
        np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
        assert got.info["array_api"]


def test_blocks_do_not_change_the_path(lib):
    a, B = _pair(70, seed=3)
    ref = rank_one_greedy_path(a, B, direction="forward", block_size=1)
    got = rank_one_greedy_path(lib.asarray(a), lib.asarray(B), direction="forward", block_size=8)
    np.testing.assert_array_equal(got.order, ref.order)


def test_float32_input_computes_in_float64(lib):
    a, B = _pair(40, seed=4)
    a32, B32 = a.astype(np.float32), B.astype(np.float32)
    ref = rank_one_greedy_path(a32, B32, direction="forward")
    got = rank_one_greedy_path(lib.asarray(a32, "float32"), lib.asarray(B32, "float32"), direction="forward")
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-9)


def test_mixed_libraries_refused(lib):
    a, B = _pair(5)
    with pytest.raises(TypeError, match="Convert B first"):
        greedy_path(lib.asarray(a), B)


def test_identity_B_and_certificates(lib):
    a, B = _pair(12, seed=5)
    ref = greedy_path(a, None, certificate="inclusion")
    got = greedy_path(lib.asarray(a), None, certificate="inclusion")
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.upper_bound, ref.upper_bound, rtol=1e-10)
    np.testing.assert_allclose(got.weights(3), ref.weights(3), rtol=1e-10, atol=1e-12)


def test_factor_and_full_forms_run_on_the_host(lib):
    rng = np.random.default_rng(6)
    M = rng.standard_normal((15, 2))
    _, B = _pair(15, seed=6)
    ref = greedy_path(M, B, direction="forward")
    got = greedy_path(lib.asarray(M), lib.asarray(B), direction="forward")
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
    assert got.info["array_api"] == "host"


def test_bad_pairs_named(lib):
    a, B = _pair(6)
    with pytest.raises(ValueError, match="B must be symmetric"):
        rank_one_greedy_path(lib.asarray(a), lib.asarray(B + np.triu(np.ones((6, 6)), 1)))
    with pytest.raises(ValueError, match=r"B must have shape \(6, 6\)"):
        rank_one_greedy_path(lib.asarray(a), lib.asarray(B[:5, :5]))
    with pytest.raises(TypeError, match="no drift checkpoints"):
        rank_one_greedy_path(lib.asarray(a), lib.asarray(B), check_every=3)
