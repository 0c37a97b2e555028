"""The secular-equation primitives against dense eigenvalue oracles."""

import numpy as np
import pytest

from pixsel.spectral.greedy._secular import arrow3_max, arrow4_max, eig2_max, secular_border, secular_deleted, top2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_secular_border_is_the_top_eigenvalue_of_the_bordered_matrix(seed):
    rng = np.random.default_rng(seed)
    t, n = 6, 50
    theta = np.sort(rng.standard_normal(t))
    b = rng.standard_normal((n, t)) * rng.choice([1e-3, 1.0], (n, t))
    c = rng.standard_normal(n) * 2
    M = np.zeros((n, t + 1, t + 1))
    M[:, np.arange(t), np.arange(t)] = theta
    M[:, :t, t] = M[:, t, :t] = b
    M[:, t, t] = c
    exact = np.linalg.eigvalsh(M)[:, -1]
    # the brackets the kernel uses: the 2 x 2 problem on (x_1, e_i) and the 3 x 3 arrow
    b1 = b[:, -1]
    beta = np.sqrt(np.maximum((b * b).sum(axis=1) - b1 * b1, 0.0))
    lo = np.maximum(eig2_max(theta[-1], b1, c), np.maximum(theta[-1], c))
    hi = arrow3_max(theta[-1], theta[-2], c, b1, beta)
    assert np.all(lo <= exact * (1 + 1e-12) + 1e-12) and np.all(hi >= exact)
    lo = np.minimum(lo, hi)
    np.testing.assert_allclose(secular_border(theta, b, c, lo, hi), exact, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_secular_deleted_is_the_top_eigenvalue_after_deleting_a_row(seed):
    rng = np.random.default_rng(seed)
    p = 7
    Y = rng.standard_normal((p, p))
    A = Y @ Y.T
    theta, X = np.linalg.eigh(A)
    w2 = X**2
    wh = w2 / w2.sum(axis=1, keepdims=True)
    exact = np.array([np.linalg.eigvalsh(np.delete(np.delete(A, i, 0), i, 1))[-1] for i in range(p)])
    lo = np.full(p, theta[-2])
    hi = theta[-1] - (theta[-1] - theta[-2]) * wh[:, -1]
    np.testing.assert_allclose(secular_deleted(theta, wh, lo, hi), exact, rtol=1e-11)


def test_arrow4_and_top2_against_eigh():
    rng = np.random.default_rng(3)
    n = 200
    d1, d2, d3, c, b1, b2, b3 = rng.standard_normal((7, n))
    T = np.zeros((n, 4, 4))
    T[:, 0, 0], T[:, 1, 1], T[:, 2, 2], T[:, 3, 3] = d1, d2, d3, c
    T[:, 0, 3] = T[:, 3, 0] = b1
    T[:, 1, 3] = T[:, 3, 1] = b2
    T[:, 2, 3] = T[:, 3, 2] = b3
    exact = np.linalg.eigvalsh(T)[:, -1]
    ub = arrow4_max(d1, d2, d3, c, b1, b2, b3)
    assert np.all(ub >= exact) and np.all(ub - exact <= 1e-10 * (1 + np.abs(exact)))
    M = T[0]
    th1, th2, v = top2(M)
    w = np.linalg.eigvalsh(M)
    assert th1 == pytest.approx(w[-1], rel=1e-12) and th2 == pytest.approx(w[-2], rel=1e-12)
    np.testing.assert_allclose(M @ v, th1 * v, atol=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_arrow4_compiled_matches_eigh_with_decoupled_and_repeated_poles(seed):
    """Scalar poles take the compiled secular route: an upper bound within 1e-11 of eigvalsh,
    also where a pole is decoupled (b = 0, the answer is the pole) or repeated."""
    rng = np.random.default_rng(seed)
    n = 300
    d = rng.standard_normal(3) * 10.0 ** rng.integers(-3, 4)
    if seed % 2:
        d[1] = d[0]
    c = rng.standard_normal(n) * abs(d).max()
    b = rng.standard_normal((n, 3)) * rng.choice([1.0, 1e-6, 0.0], size=(n, 3)) * abs(d).max()
    T = np.zeros((n, 4, 4))
    T[:, [0, 1, 2], [0, 1, 2]] = d
    T[:, 3, 3] = c
    T[:, 3, :3] = T[:, :3, 3] = b
    exact = np.linalg.eigvalsh(T)[:, -1]
    ub = arrow4_max(*d, c, *b.T)
    ref = arrow4_max(*d, c, *b.T, compiled=False)
    scale = np.abs(d).sum() + np.abs(c) + np.abs(b).sum(axis=1)
    assert np.all(ub >= exact) and np.all(ub - exact <= 1e-11 * scale)
    np.testing.assert_allclose(ub, ref, rtol=0, atol=1e-11 * scale.max())


def test_closed_form_3x3_bound_is_an_upper_bound():
    rng = np.random.default_rng(0)
    n = 2000
    a = rng.standard_normal(n) * 3
    b = a - np.abs(rng.standard_normal(n)) * rng.choice([0, 1e-9, 1.0], n)  # near-double cases
    c, d, e = rng.standard_normal((3, n)) * rng.choice([1e-6, 1.0], (3, n))
    T = np.zeros((n, 3, 3))
    T[:, 0, 0], T[:, 1, 1], T[:, 2, 2] = a, b, c
    T[:, 0, 2] = T[:, 2, 0] = d
    T[:, 1, 2] = T[:, 2, 1] = e
    exact = np.linalg.eigvalsh(T)[:, -1]
    ub = arrow3_max(a, b, c, d, e)
    assert np.all(ub >= exact)
    assert np.all(ub - exact <= 1e-6 * (np.abs(a) + np.abs(b) + np.abs(c) + np.hypot(d, e)))


# ------------------------------------------------------------------ compiled row loops vs NumPy
@pytest.mark.parametrize("seed", range(4))
def test_compiled_secular_solvers_equal_the_numpy_ones(seed):
    from pixsel.spectral.greedy._secular import secular_border, secular_deleted

    rng = np.random.default_rng(seed)
    for k in (1, 2, 9, 40):
        for n in (0, 1, 13):
            theta = np.sort(rng.standard_normal(k)) * 3
            b = rng.standard_normal((n, k))
            b[: n // 3, -1] = 0.0  # rows decoupled from the top pole
            c = rng.standard_normal(n)
            lo = np.maximum(theta[-1], c)
            hi = lo + np.linalg.norm(b, axis=1)
            np.testing.assert_allclose(
                secular_border(theta, b, c, lo, hi), secular_border(theta, b, c, lo, hi, compiled=False),
                rtol=1e-13, atol=1e-13,
            )
            if k > 1 and n:
                X = np.linalg.qr(rng.standard_normal((k, k)))[0][: min(n, k)]
                w2 = X * X
                hi2 = theta[-1] - (theta[-1] - theta[-2]) * w2[:, -1]
                lo2 = np.full(len(w2), theta[-2])
                new = secular_deleted(theta, w2, lo2, hi2)
                np.testing.assert_allclose(new, secular_deleted(theta, w2, lo2, hi2, compiled=False), rtol=1e-13, atol=1e-13)
                # and the root is lambda_max of the diagonal restricted to w's orthogonal complement
                for r in range(len(w2)):
                    Q = np.linalg.qr(np.column_stack([np.sqrt(w2[r]), rng.standard_normal((k, k - 1))]))[0][:, 1:]
                    exact = np.linalg.eigvalsh(Q.T @ np.diag(theta) @ Q)[-1]
                    assert new[r] == pytest.approx(exact, rel=1e-10, abs=1e-12)
