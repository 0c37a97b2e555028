"""Block Krylov SVD: against numpy's dense SVD, implicit centring, Dask == NumPy."""

import numpy as np
import pytest

from pixsel.scores import block_krylov_svd


def _lowrank(n, p, decay, seed=0):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, min(n, p))))
    V, _ = np.linalg.qr(rng.standard_normal((p, min(n, p))))
    s = decay ** np.arange(min(n, p))
    return (U * s) @ V.T + 3.0  # a large mean to exercise the implicit centring


@pytest.mark.parametrize("n,p", [(80, 30), (30, 80)])
def test_matches_dense_svd(n, p):
    A = _lowrank(n, p, 0.8)
    rank = 5
    res = block_krylov_svd(A, rank, n_iter=6, random_state=0)
    Ac = A - A.mean(axis=0)
    _, s, Vt = np.linalg.svd(Ac, full_matrices=False)
    np.testing.assert_allclose(res.singular_values, s[:rank], rtol=1e-8)
    # same subspace and (with the sign convention) the same vectors
    np.testing.assert_allclose(np.abs(res.components @ Vt[:rank].T), np.eye(rank), atol=1e-6)
    np.testing.assert_allclose(res.column_sq_norms, np.sum(Ac ** 2, axis=0), rtol=1e-10)
    np.testing.assert_allclose(res.mean, A.mean(axis=0), rtol=1e-12)


def test_uncentred_and_rows_orthonormal():
    A = _lowrank(50, 40, 0.7, seed=3)
    res = block_krylov_svd(A, 4, center=False, random_state=1)
    s = np.linalg.svd(A, compute_uv=False)
    np.testing.assert_allclose(res.singular_values, s[:4], rtol=1e-8)
    np.testing.assert_allclose(res.components @ res.components.T, np.eye(4), atol=1e-12)
    assert np.all(res.mean == 0)


def test_krylov_space_capped_at_p():
    """Small p: the basis cannot exceed p vectors; the answer is then exact."""
    A = _lowrank(40, 12, 0.9, seed=5)
    res = block_krylov_svd(A, 3, n_iter=10, block_size=8, random_state=0)
    assert res.krylov_dim <= 12
    s = np.linalg.svd(A - A.mean(0), compute_uv=False)
    np.testing.assert_allclose(res.singular_values, s[:3], rtol=1e-10)


def test_more_iterations_converge_on_slow_decay():
    """Planted gap-free spectrum: the error falls with the number of Krylov steps."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((200, 80))
    exact = np.linalg.svd(A - A.mean(0), compute_uv=False)[:5]
    errs = [np.max(np.abs(block_krylov_svd(A, 5, n_iter=q, block_size=5, random_state=0)
                          .singular_values - exact) / exact) for q in (0, 2, 8)]
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 1e-3


def test_deterministic_and_float32_agrees():
    A = _lowrank(60, 25, 0.8, seed=7)
    r1 = block_krylov_svd(A, 4, random_state=42)
    r2 = block_krylov_svd(A, 4, random_state=42)
    np.testing.assert_array_equal(r1.components, r2.components)
    r32 = block_krylov_svd(A.astype(np.float32), 4, random_state=42)
    np.testing.assert_allclose(r32.singular_values, r1.singular_values, rtol=1e-4)
    np.testing.assert_allclose(r32.components, r1.components, atol=1e-3)


def test_does_not_modify_input():
    A = _lowrank(30, 20, 0.8)
    before = A.copy()
    block_krylov_svd(A, 3, random_state=0)
    np.testing.assert_array_equal(A, before)


def test_dask_equals_numpy():
    import dask.array as da
    A = _lowrank(90, 30, 0.8, seed=2)
    dA = da.from_array(A, chunks=(25, 30))
    rn = block_krylov_svd(A, 4, random_state=3)
    rd = block_krylov_svd(dA, 4, random_state=3)
    np.testing.assert_allclose(rd.singular_values, rn.singular_values, rtol=1e-8)
    np.testing.assert_allclose(rd.components, rn.components, atol=1e-7)
    np.testing.assert_allclose(rd.column_sq_norms, rn.column_sq_norms, rtol=1e-10)
    # several column chunks too (rechunked to whole rows inside, per pass)
    rc = block_krylov_svd(da.from_array(A, chunks=(30, 7)), 4, random_state=3)
    np.testing.assert_allclose(rc.components, rn.components, atol=1e-7)
