"""The reconstruction kernels against brute-force fold refits and the textbook Gaussian conditional."""

import numpy as np
import pytest

from pixsel.scores._reconstruction import (
    conditional_solve,
    fold_prior_products,
    fold_products,
    fold_products_from_outer,
    noise_cv_errors,
)

GRID = (0.0, 0.001, 0.03, 0.3, 2.0)


def _data(seed, n, p, rank=4, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, rank)) @ rng.standard_normal((rank, p)) + noise * rng.standard_normal((n, p)) + 2.0
    return X - X.mean(axis=0)


def _brute_force_cv(A, cols, grid, n_folds=3, T=None, rho=0.0):
    """Refit each fold: the training part's covariance (shrunk to ``(1 - rho) C_fold + rho T``, T
    fixed, when given), the textbook conditional mean of the held-out rows."""
    n, p = A.shape
    folds = np.arange(n) % n_folds
    num, den = np.zeros(len(grid)), 0.0
    for f in range(n_folds):
        tr, te = A[folds != f], A[folds == f]
        C = np.cov(tr, rowvar=False)
        if T is not None:
            C = (1 - rho) * C + rho * T
        R = te - tr.mean(axis=0)
        den += np.sum(R ** 2)
        for g, a in enumerate(grid):
            K = C[np.ix_(cols, cols)] + a * np.trace(C) / p * np.eye(len(cols))
            rec = np.linalg.solve(K, R[:, cols].T).T @ C[cols]
            num[g] += np.sum((R - rec) ** 2)
    return np.sqrt(num / den)


@pytest.mark.parametrize("shape", [(31, 12), (20, 45), (12, 12)])
@pytest.mark.parametrize("seed", range(3))
def test_cv_errors_equal_the_brute_force_fold_refits(shape, seed):
    """Both forms of the fold products (from the data, and from A A^T) give the refit errors."""
    n, p = shape
    A = _data(seed, n, p)
    cols = np.random.default_rng(seed).choice(p, 5, replace=False)
    expected = _brute_force_cv(A, cols, GRID)
    S = A.T @ A[:, cols]
    from_data = noise_cv_errors(fold_products(A, S, cols, 3), p, GRID)
    from_outer = noise_cv_errors(fold_products_from_outer(A @ A.T, A[:, cols], 3), p, GRID)
    np.testing.assert_allclose(from_data, expected, rtol=1e-8)
    np.testing.assert_allclose(from_outer, expected, rtol=1e-8)
    assert np.all(np.diff(expected) != 0)  # the grid's errors differ: the check can tell them apart


def test_fold_products_agree_in_both_forms_and_leave_the_input_untouched():
    A = _data(5, 17, 30)
    before = A.copy()
    cols = np.array([3, 0, 29, 11])
    a = fold_products(A, A.T @ A[:, cols], cols, 4)
    b = fold_products_from_outer(A @ A.T, A[:, cols], 4)
    # the squared row norms given (each fold's sum of squares from them, its rows not read for it)
    c = fold_products(A, A.T @ A[:, cols], cols, 4, row_sq=np.einsum("ij,ij->i", A, A))
    assert np.array_equal(A, before)
    assert [f["size"] for f in a] == [5, 4, 4, 4] == [f["size"] for f in b] == [f["size"] for f in c]
    for fa, fb, fc in zip(a, b, c):
        for key in fa:
            np.testing.assert_allclose(fa[key], fb[key], rtol=1e-10, atol=1e-10 * np.sum(A * A))
            np.testing.assert_allclose(fc[key], fb[key], rtol=1e-10, atol=1e-10 * np.sum(A * A))


@pytest.mark.parametrize("n_folds", [2, 3, 5])
def test_fold_products_are_the_textbook_products_of_every_fold(n_folds):
    """Each fold's products against the direct ones of its rows (the last fold's P is S minus the others')."""
    A = _data(11, 23, 9)
    cols = np.array([8, 2, 5])
    for f, fo in enumerate(fold_products(A, A.T @ A[:, cols], cols, n_folds)):
        T, R = A[f::n_folds], np.delete(A, np.s_[f::n_folds], axis=0)
        P, D, t = T.T @ T[:, cols], R.T @ R[:, cols], T.sum(axis=0)
        want = {"size": T.shape[0], "sq": np.sum(T * T), "tt": t @ t, "ts": t[cols], "DtD": D.T @ D, "PtD": P.T @ D,
                "Dss": D[cols], "Pss": P[cols], "dt": t @ D, "pt": t @ P}
        assert want.keys() == fo.keys()
        for key in want:
            np.testing.assert_allclose(fo[key], want[key], rtol=1e-10, atol=1e-10 * np.sum(A * A) ** 2)


def test_cv_errors_without_noise_and_a_duplicated_reading():
    """a = 0 with two identical readings: the pseudo-inverse drops the null direction, as the refit's lstsq."""
    A = _data(7, 24, 10)
    A[:, 4] = A[:, 1]
    cols = np.array([1, 4, 7])
    errors = noise_cv_errors(fold_products(A, A.T @ A[:, cols], cols, 3), 10, (0.0,))
    folds = np.arange(24) % 3
    num = den = 0.0
    for f in range(3):
        tr, te = A[folds != f], A[folds == f]
        C, R = np.cov(tr, rowvar=False), te - tr.mean(axis=0)
        rec = R[:, cols] @ np.linalg.pinv(C[np.ix_(cols, cols)]) @ C[cols]
        num, den = num + np.sum((R - rec) ** 2), den + np.sum(R ** 2)
    assert errors[0] == pytest.approx(np.sqrt(num / den), rel=1e-7)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("noise", [0.0, 0.05, 3.0])
def test_conditional_solve_is_the_textbook_conditional(noise, order):
    """The same map and variances whether the covariance columns are stored row- or column-major."""
    A = _data(2, 40, 15)
    C_full = A.T @ A / 39
    rows = np.array([6, 2, 13])
    C = np.asarray(C_full[:, rows], order=order)
    W, var = conditional_solve(C, rows, noise, np.diag(C_full))
    K = C_full[np.ix_(rows, rows)] + noise * np.eye(3)
    np.testing.assert_allclose(W, np.linalg.inv(K), rtol=1e-9)
    textbook = np.diag(C_full) - np.einsum("ij,ji->i", C, np.linalg.solve(K, C.T))
    np.testing.assert_allclose(var, np.clip(textbook, 0, None), rtol=1e-9, atol=1e-12 * C_full.max())
    if noise == 0.0:  # a measured pixel without noise is known exactly
        assert np.all(var[rows] == 0.0)
    else:
        assert np.all(var[rows] > 0.0)
    assert conditional_solve(C, rows, noise)[1] is None


@pytest.mark.parametrize("shape", [(31, 12), (20, 45)])
@pytest.mark.parametrize("rho", [0.0, 0.4, 1.0])
def test_shrunk_cv_errors_equal_the_brute_force_fold_refits(shape, rho):
    """With a prior covariance T (any symmetric positive matrix), both forms of the fold products and
    the prior's products give the refit errors of (1 - rho) C_fold + rho T; rho = 0 is the plain CV."""
    n, p = shape
    A = _data(7, n, p)
    rng = np.random.default_rng(3)
    L = rng.standard_normal((p, p))
    T = L @ L.T / p + np.eye(p)
    cols = rng.choice(p, 5, replace=False)
    expected = _brute_force_cv(A, cols, GRID, T=T, rho=rho)
    prior = {"rho": rho, "Tss": T[np.ix_(cols, cols)], "TtT": T[:, cols].T @ T[:, cols], "trace": np.trace(T)}
    extra = fold_prior_products(A[:, cols], (A @ T)[:, cols], 3)
    for folds in (fold_products(A, A.T @ A[:, cols], cols, 3), fold_products_from_outer(A @ A.T, A[:, cols], 3)):
        for fo, more in zip(folds, extra):
            fo.update(more)
        np.testing.assert_allclose(noise_cv_errors(folds, p, GRID, prior=prior), expected, rtol=1e-8)
    if rho == 0:
        np.testing.assert_allclose(expected, _brute_force_cv(A, cols, GRID), rtol=1e-12)
    else:
        assert not np.allclose(expected, _brute_force_cv(A, cols, GRID), rtol=1e-3)  # the prior changes the errors
