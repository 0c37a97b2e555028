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


def _full(p, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((2 * p, p)) * np.linspace(0.3, 2.0, p)
    Z[:, : p // 3] += 1.5 * rng.standard_normal((2 * p, 1))  # a planted correlated block
    return Z.T @ Z / (2 * p)


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
@pytest.mark.parametrize("r", [1, 3])
def test_factor_form_on_device(lib, direction, criterion, r):
    rng = np.random.default_rng(6 + r)
    M = rng.standard_normal((15, r))
    _, B = _pair(15, seed=6)
    ref = greedy_path(M, B, direction=direction, criterion=criterion)
    got = greedy_path(lib.asarray(M), lib.asarray(B), direction=direction, criterion=criterion)
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
    assert got.info["array_api"] is True and got.info["form"] == "factor"


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
@pytest.mark.parametrize("identity", [True, False])
def test_full_form_on_device(lib, direction, criterion, identity):
    A = _full(14, seed=7)
    B = None if identity else _pair(14, seed=8)[1]
    ref = greedy_path(A, B, direction=direction, criterion=criterion)
    got = greedy_path(lib.asarray(A), None if B is None else lib.asarray(B), direction=direction,
                      criterion=criterion)
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
    assert got.info["array_api"] is True and got.info["form"] == "full"


def test_max_k_and_certificates_on_device(lib):
    A = _full(20, seed=9)
    ref = greedy_path(A, direction="forward", max_k=6, certificate="dual")
    got = greedy_path(lib.asarray(A), direction="forward", max_k=6, certificate="dual")
    np.testing.assert_array_equal(got.order, ref.order)
    assert len(got.objective) == 6
    np.testing.assert_allclose(got.upper_bound, ref.upper_bound, rtol=1e-9)
    a, B = _pair(12, seed=10)
    ref = greedy_path(a, B, max_k=4)
    got = greedy_path(lib.asarray(a), lib.asarray(B), max_k=4)
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)


def test_float32_full_form_against_float64(lib):
    """float32 statistics on the device are computed in float64 where the device has it; the
    path then matches the float64 path of the rounded matrix, and the float64 path of the exact
    one to float32 precision."""
    A = _full(16, seed=11)
    A32 = A.astype(np.float32)
    got = greedy_path(lib.asarray(A32, "float32"), direction="forward")
    ref32 = greedy_path(A32.astype(np.float64), direction="forward")
    np.testing.assert_array_equal(got.order, ref32.order)
    np.testing.assert_allclose(got.objective, greedy_path(A, direction="forward").objective, rtol=1e-5)


def test_bad_pairs_named(lib):
    a, B = _pair(6)
    with pytest.raises(ValueError, match="B must be symmetric"):
        rank_one_greedy_path(lib.asarray(a), lib.asarray(B + np.triu(np.ones((6, 6)), 1)))
    with pytest.raises(ValueError, match=r"B must have shape \(6, 6\)"):
        rank_one_greedy_path(lib.asarray(a), lib.asarray(B[:5, :5]))
    with pytest.raises(TypeError, match="no drift checkpoints"):
        rank_one_greedy_path(lib.asarray(a), lib.asarray(B), check_every=3)


@pytest.mark.parametrize("kind", ["fisher", "simple-vector", "simple-full", "simple-factor"])
def test_thresholding_paths_on_device(lib, kind):
    from pixsel.spectral import fisher_thresholding_path, simple_thresholding_path

    a, B = _pair(13, seed=12)
    A = {"fisher": a, "simple-vector": a, "simple-full": _full(13, seed=13),
         "simple-factor": np.random.default_rng(14).standard_normal((13, 2))}[kind]
    fn = fisher_thresholding_path if kind == "fisher" else simple_thresholding_path
    ref = fn(A, B)
    got = fn(lib.asarray(A), lib.asarray(B))
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)
    np.testing.assert_allclose(np.abs(lib.host(got.info["scores"], np.float64)), np.abs(ref.info["scores"]),
                               rtol=1e-8, atol=1e-12)


def test_thresholding_refuses_singular_B(lib):
    from pixsel.spectral import fisher_thresholding_path, simple_thresholding_path

    a = np.ones(4)
    B = np.diag([1.0, 1.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="Regularize B first"):
        fisher_thresholding_path(lib.asarray(a), lib.asarray(B))
    with pytest.raises(ValueError, match="Regularize B first"):
        simple_thresholding_path(lib.asarray(a), lib.asarray(B))
