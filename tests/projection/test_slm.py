"""Oracle tests of the sparse-linear-model projections (linear, noiseless, kernel, estimation)."""

import numpy as np
import pytest
import scipy.optimize as sopt

from pixsel.projection import (
    estimate_sigma_tau,
    estimate_variances,
    kernel_dictionary_learning,
    kernel_lasso_codes,
    kernel_lasso_factor,
    kernel_slm_projection,
    lasso_gram_cd,
    slm_projection,
)
from pixsel.projection._kernel_coding import kernel_dictionary_update
from pixsel.projection._slm import slm_gain, slm_objective


def _problem(seed, N=4, K=6):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(K, N))


def _objective_and_grad(x, atoms, M, sigma, tau):
    N = atoms.shape[1]
    L = x.reshape(M, N)
    D = atoms.T
    P = L @ D
    G = P.T @ P - np.eye(D.shape[1])
    SD = L.T @ P
    S = L.T @ L
    f = 4 * tau**4 * np.sum(G**2) + 4 * tau**2 * sigma**2 * np.sum(SD**2) + sigma**4 * np.sum(S**2)
    # gradient w.r.t. S, then chain rule S = L^T L
    gS = 8 * tau**4 * D @ G @ D.T + 4 * tau**2 * sigma**2 * (2 * SD @ D.T) + 2 * sigma**4 * S
    gS = 0.5 * (gS + gS.T)
    return f, (2 * L @ gS).ravel()


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("sigma,tau", [(0.3, 0.7), (1.0, 0.5), (0.05, 1.0)])
def test_closed_form_is_the_minimizer_of_objective_6(seed, sigma, tau):
    atoms = _problem(seed)
    M = 2
    res = slm_projection(atoms, M, sigma=sigma, tau=tau)
    f_closed = slm_objective(res.components, atoms, sigma, tau)
    rng = np.random.default_rng(100 + seed)
    best = None
    for _ in range(6):
        x0 = rng.normal(size=M * atoms.shape[1]) * 0.3
        r = sopt.minimize(_objective_and_grad, x0, args=(atoms, M, sigma, tau), jac=True, method="BFGS",
                          options={"gtol": 1e-11, "maxiter": 5000})
        assert r.fun >= f_closed * (1 - 1e-9) - 1e-12  # nothing beats the closed form
        if best is None or r.fun < best.fun:
            best = r
    assert best.fun == pytest.approx(f_closed, rel=1e-7)
    L_num = best.x.reshape(M, -1)
    # the minimizer is unique up to a rotation: S = L^T L must agree
    np.testing.assert_allclose(L_num.T @ L_num, res.components.T @ res.components, atol=1e-5)
    # the self-written objective agrees with the kernel's objective
    assert _objective_and_grad(res.components.ravel(), atoms, M, sigma, tau)[0] == pytest.approx(f_closed)


def test_objective_6_is_the_expected_squared_inner_product_error():
    """Monte Carlo of E[(y1.y2 - a1.a2)^2] under the sparse linear model equals objective (6)."""
    rng = np.random.default_rng(5)
    N, K, M, sigma, tau = 3, 5, 2, 0.4, 0.6
    atoms = rng.normal(size=(K, N))
    L = rng.normal(size=(M, N)) * 0.5
    n = 200_000
    a1 = rng.laplace(scale=tau, size=(n, K))
    a2 = rng.laplace(scale=tau, size=(n, K))
    x1 = a1 @ atoms + sigma * rng.normal(size=(n, N))
    x2 = a2 @ atoms + sigma * rng.normal(size=(n, N))
    d = np.sum((x1 @ L.T) * (x2 @ L.T), axis=1) - np.sum(a1 * a2, axis=1)
    mc, se = np.mean(d * d), np.std(d * d) / np.sqrt(n)
    assert abs(mc - slm_objective(L, atoms, sigma, tau)) < 5 * se


def test_gain_formula_matches_eq8_as_printed():
    lam, s, t = np.array([0.1, 1.0, 7.0]), 0.3, 0.8
    f8 = np.sqrt(4 * t**4 * lam / (s**4 + 4 * t**2 * s**2 * lam + 4 * t**4 * lam**2))
    np.testing.assert_allclose(slm_gain(lam, s, t), f8, rtol=1e-12)


def test_noiseless_limit_whitens_the_atoms():
    atoms = _problem(3, N=5, K=9)
    M = 3
    res = slm_projection(atoms, M, sigma=0.0, tau=1.3)
    # textbook: eigenpairs of D D^T, L = diag(lambda^-1/2) V^T
    lam, V = np.linalg.eigh(atoms.T @ atoms)
    lam, V = lam[::-1][:M], V[:, ::-1][:, :M]
    L_ref = (V / np.sqrt(lam)).T
    np.testing.assert_allclose(res.components.T @ res.components, L_ref.T @ L_ref, rtol=1e-10, atol=1e-12)
    P = res.components @ atoms.T
    np.testing.assert_allclose(P @ P.T, np.eye(M), atol=1e-10)  # L D has orthonormal rows
    # objective (6) at sigma = 0, tau = 1 is 4 ||D^T S D - I||^2 = 4 (K - M) at the optimum
    assert slm_objective(res.components, atoms, 0.0, 1.0) == pytest.approx(4 * (atoms.shape[0] - M))
    # sigma -> 0 is continuous
    near = slm_projection(atoms, M, sigma=1e-7, tau=1.3).components
    np.testing.assert_allclose(near, res.components, rtol=1e-6)


def test_rank_deficient_dictionary_gives_zero_rows_and_no_division():
    rng = np.random.default_rng(0)
    atoms = rng.normal(size=(6, 2)) @ rng.normal(size=(2, 5))  # rank 2 in R^5
    for sigma in (0.0, 0.2):
        with np.errstate(all="raise"):
            res = slm_projection(atoms, 4, sigma=sigma, tau=1.0)
        assert res.rank == 2
        assert np.all(np.isfinite(res.components))
        np.testing.assert_array_equal(res.components[2:], 0.0)
        np.testing.assert_array_equal(res.eigenvalues[2:], 0.0)
        assert np.all(np.linalg.norm(res.components[:2], axis=1) > 0)
    # fewer atoms than features: M up to N allowed, extra rows zero
    res = slm_projection(rng.normal(size=(2, 5)), 5, sigma=0.0, tau=1.0)
    assert res.rank == 2 and np.all(res.components[2:] == 0)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"n_components": 5}, "n_components"),
        ({"n_components": 0}, "n_components"),
        ({"sigma": -0.1}, "sigma"),
        ({"tau": 0.0}, "tau"),
    ],
)
def test_bad_input_linear(kwargs, match):
    args = {"n_components": 2, "sigma": 0.1, "tau": 1.0} | kwargs
    with pytest.raises(ValueError, match=match):
        slm_projection(_problem(0), args.pop("n_components"), **args)


def test_kernel_with_linear_kernel_equals_linear_version():
    rng = np.random.default_rng(7)
    atoms = rng.normal(size=(8, 5))
    X = rng.normal(size=(20, 5))
    for sigma in (0.0, 0.3):
        M = 3
        lin = slm_projection(atoms, M, sigma=sigma, tau=0.9)
        ker = kernel_slm_projection(atoms @ atoms.T, M, sigma=sigma, tau=0.9)
        Y_lin = X @ lin.components.T
        Y_ker = (X @ atoms.T) @ ker.components
        np.testing.assert_allclose(Y_ker @ Y_ker.T, Y_lin @ Y_lin.T, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(ker.eigenvalues, lin.eigenvalues, rtol=1e-10)
        # with distinct eigenvalues the columns agree up to sign
        s = np.sign(np.sum(Y_ker * Y_lin, axis=0))
        np.testing.assert_allclose(Y_ker * s, Y_lin, rtol=1e-8, atol=1e-10)


def test_kernel_bad_input_and_rank_deficiency():
    with pytest.raises(ValueError, match="positive semidefinite"):
        kernel_slm_projection(np.array([[1.0, 2.0], [2.0, 1.0]]), 1, sigma=0.1, tau=1.0)
    with pytest.raises(ValueError, match="symmetric"):
        kernel_slm_projection(np.array([[1.0, 0.5], [0.0, 1.0]]), 1, sigma=0.1, tau=1.0)
    with pytest.raises(ValueError, match="n_components"):
        kernel_slm_projection(np.eye(3), 4, sigma=0.1, tau=1.0)
    v = np.array([[1.0, 2.0, 0.0]])
    with np.errstate(all="raise"):
        res = kernel_slm_projection(v.T @ v, 2, sigma=0.0, tau=1.0)
    assert res.rank == 1 and np.all(res.components[:, 1] == 0) and np.all(np.isfinite(res.components))


def test_kernel_lasso_reduces_to_ordinary_lasso_objective():
    rng = np.random.default_rng(2)
    Dm = rng.normal(size=(6, 3))  # 6 atoms in a 3-dim feature space: K_DD has rank 3
    gram = Dm @ Dm.T
    R, W = kernel_lasso_factor(gram)
    assert R.shape == (3, 6)
    np.testing.assert_allclose(R.T @ R, gram, atol=1e-10)
    phi = rng.normal(size=3)
    z = W @ (Dm @ phi)
    consts = []
    for _ in range(5):
        a = rng.normal(size=6)
        direct = np.sum((phi - Dm.T @ a) ** 2)
        consts.append(direct - np.sum((z - R @ a) ** 2))
    np.testing.assert_allclose(consts, consts[0], atol=1e-9)
    assert consts[0] == pytest.approx(0.0, abs=1e-9)  # phi lies in the span of the atoms here


def test_kernel_dictionary_update_is_mod_with_linear_kernel():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 4))  # basis = training samples
    A = rng.laplace(size=(12, 5))
    F = kernel_dictionary_update(X @ X.T, A)
    D = X.T @ F  # atoms as columns in R^4
    # textbook MOD: D = X^T A (A^T A)^-1, then unit-norm columns
    D_ref = X.T @ A @ np.linalg.inv(A.T @ A)
    D_ref /= np.linalg.norm(D_ref, axis=0)
    np.testing.assert_allclose(D, D_ref, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(D, axis=0), 1.0)
    # unused atom keeps its previous coefficients
    A[:, 2] = 0.0
    prev = rng.normal(size=(12, 5))
    F2 = kernel_dictionary_update(X @ X.T, A, previous=prev)
    d2 = prev[:, 2] / np.sqrt(prev[:, 2] @ (X @ X.T) @ prev[:, 2])
    np.testing.assert_allclose(F2[:, 2], d2)


def test_kernel_dictionary_learning_with_linear_kernel_is_dictionary_learning():
    from sklearn.decomposition import sparse_encode

    rng = np.random.default_rng(4)
    X = rng.normal(size=(15, 4))
    calls = []

    def lasso(Z, R, alpha):
        calls.append(Z.shape)
        return sparse_encode(Z, R.T, algorithm="lasso_lars", alpha=alpha)

    initial = np.array([1, 5, 9])
    F, A, n_iter, history, converged = kernel_dictionary_learning(X @ X.T, initial, 0.1, lasso, max_iter=1, tol=0.0)
    assert n_iter == 1 and len(history) == 1 and not converged and len(calls) == 1
    # the start: the chosen samples scaled to unit norm; the codes are the ordinary lasso codes
    D0 = X[initial] / np.linalg.norm(X[initial], axis=1, keepdims=True)  # atoms as rows
    np.testing.assert_allclose(A, sparse_encode(X, D0, algorithm="lasso_lars", alpha=0.1), atol=1e-8)
    direct = 0.5 * np.sum((X - A @ D0) ** 2) + 0.1 * np.abs(A).sum()
    assert history[0] == pytest.approx(direct, rel=1e-10)
    # F was updated once after the codes: the MOD step of those codes
    np.testing.assert_allclose(F, kernel_dictionary_update(X @ X.T, A, previous=F), atol=1e-10)
    F, A, n_iter, history, converged = kernel_dictionary_learning(X @ X.T, initial, 0.1, lasso, max_iter=200, tol=1e-6)
    assert converged and n_iter == len(history) < 200
    R, W = kernel_lasso_factor(F.T @ X @ X.T @ F)
    np.testing.assert_allclose(A, kernel_lasso_codes(X @ X.T @ F, R, W, 0.1, lasso), atol=1e-10)


def test_sigma_tau_estimators_recover_planted_values():
    rng = np.random.default_rng(4)
    n, K, N, sigma, tau = 20000, 6, 5, 0.1, 0.5
    atoms = rng.normal(size=(K, N))
    A = rng.laplace(scale=tau, size=(n, K))
    X = A @ atoms + sigma * rng.normal(size=(n, N))
    s_hat, t_hat = estimate_sigma_tau(X, A, atoms)
    assert s_hat == pytest.approx(sigma, rel=0.02)
    assert t_hat == pytest.approx(tau, rel=0.02)
    taus = np.linspace(0.2, 1.0, K)
    noise = np.linspace(0.05, 0.3, N)
    A = rng.laplace(scale=taus, size=(n, K))
    X = A @ atoms + noise * rng.normal(size=(n, N))
    cv, nv = estimate_variances(X, A, atoms)
    np.testing.assert_allclose(cv, 2 * taus**2, rtol=0.05)
    np.testing.assert_allclose(nv, noise**2, rtol=0.05)


def test_inputs_are_not_modified_and_results_are_deterministic():
    atoms = _problem(9)
    before = atoms.copy()
    r1 = slm_projection(atoms, 3, sigma=0.2, tau=1.0)
    r2 = slm_projection(atoms, 3, sigma=0.2, tau=1.0)
    np.testing.assert_array_equal(atoms, before)
    np.testing.assert_array_equal(r1.components, r2.components)


def test_float32_atoms_agree_with_float64():
    atoms = _problem(11).astype(np.float32)
    r32 = slm_projection(atoms, 2, sigma=0.2, tau=1.0).components
    r64 = slm_projection(atoms.astype(np.float64), 2, sigma=0.2, tau=1.0).components
    np.testing.assert_allclose(r32, r64, rtol=1e-12)


def test_rbf_preimages_fixed_points():
    from pixsel.projection import rbf_preimages

    rng = np.random.default_rng(12)
    X = rng.normal(size=(6, 3))
    # an atom that is exactly Phi(x_j) has pre-image x_j (also with a negative sign)
    F = np.zeros((6, 2))
    F[4, 0] = 1.0
    F[1, 1] = -2.0
    np.testing.assert_allclose(rbf_preimages(X, F, gamma=0.5), X[[4, 1]])
    # two equally weighted points: the midpoint, by symmetry
    Z = rbf_preimages(X[:2], np.array([[0.5], [0.5]]), gamma=0.2)
    np.testing.assert_allclose(Z[0], X[:2].mean(axis=0), atol=1e-7)
    # the pre-image is at least as aligned with the atom as the best basis sample
    F = rng.uniform(0, 1, size=(6, 1))
    z = rbf_preimages(X, F, gamma=0.3)

    def align(p):
        return float(np.exp(-0.3 * np.sum((X - p) ** 2, axis=1)) @ F[:, 0])

    assert align(z[0]) >= max(align(x) for x in X) - 1e-12
    with pytest.raises(ValueError, match="gamma"):
        rbf_preimages(X, F, gamma=0.0)


def _lasso_objective(A, X, atoms, alpha):
    return 0.5 * np.sum((X - A @ atoms) ** 2) + alpha * np.abs(A).sum()


@pytest.mark.parametrize("seed", [0, 1])
def test_lasso_gram_cd_matches_lars_objective(seed):
    from sklearn.decomposition import sparse_encode

    rng = np.random.default_rng(seed)
    atoms = rng.normal(size=(12, 8))
    atoms[3] = atoms[2] + 0.1 * rng.normal(size=8)  # two correlated atoms
    X = rng.normal(size=(40, 8))
    ref = sparse_encode(X, atoms, algorithm="lasso_lars", alpha=0.1)
    res = lasso_gram_cd(atoms @ atoms.T, X @ atoms.T, 0.1, max_iter=20000, tol=1e-9)
    assert res.converged and res.codes.shape == (40, 12)
    f_ref, f_cd = _lasso_objective(ref, X, atoms, 0.1), _lasso_objective(res.codes, X, atoms, 0.1)
    assert f_cd <= f_ref * (1 + 1e-8) and f_cd == pytest.approx(f_ref, rel=1e-8)
    # optimality (KKT) of every sample: |c - G a| <= alpha, with equality and sign on the support
    Q = X @ atoms.T - res.codes @ (atoms @ atoms.T)
    assert np.all(np.abs(Q) <= 0.1 + 1e-6)
    on = res.codes != 0
    np.testing.assert_allclose(Q[on], 0.1 * np.sign(res.codes[on]), atol=1e-6)


def test_lasso_gram_cd_closed_form_warm_start_and_zero_atom():
    G = np.diag([2.0, 1.0, 0.0])  # orthogonal atoms (one of zero norm): soft-thresholding
    C = np.array([[3.0, -0.5, 7.0], [-1.0, 2.5, -7.0]])
    res = lasso_gram_cd(G, C, 1.0)
    np.testing.assert_allclose(res.codes, [[1.0, 0.0, 0.0], [0.0, 1.5, 0.0]])
    assert res.converged and res.n_iter <= 2
    init = res.codes.copy()
    again = lasso_gram_cd(G, C, 1.0, init=init)
    assert again.n_iter == 1 and np.array_equal(init, res.codes)  # the warm start is not modified
    assert not lasso_gram_cd(np.array([[1.0, 0.9], [0.9, 1.0]]), [[1.0, 0.5]], 0.0, max_iter=1).converged


def test_kernel_dictionary_learning_gram_cd_follows_the_lars_path():
    from sklearn.decomposition import sparse_encode

    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 6))
    initial = np.array([0, 4, 7, 11, 20, 25, 29])
    lars = lambda Z, R, a: sparse_encode(Z, R.T, algorithm="lasso_lars", alpha=a)
    _, _, _, h_lars, _ = kernel_dictionary_learning(X @ X.T, initial, 0.2, lars, max_iter=6, tol=0.0)
    F, A, _, h_cd, _ = kernel_dictionary_learning(X @ X.T, initial, 0.2, max_iter=6, tol=0.0, coder_max_iter=500)
    np.testing.assert_allclose(h_cd, h_lars, rtol=1e-4)  # the new coder's objective, iteration by iteration
    assert all(np.diff(h_cd) <= 1e-9 * h_cd[0])  # monotone
    seen = []
    F2, A2, *_ = kernel_dictionary_learning(X @ X.T, initial, 0.2, max_iter=6, tol=0.0, coder_max_iter=500,
                                            callback=lambda i, f: seen.append((i, f)))
    np.testing.assert_array_equal(F2, F)  # deterministic
    assert [i for i, _ in seen] == list(range(1, 7)) and seen[-1][1] == h_cd[-1]


def test_kernel_dictionary_learning_default_coder_budget_stays_close():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(30, 6))
    initial = np.array([0, 4, 7, 11, 20, 25, 29])
    *_, h_exact, _ = kernel_dictionary_learning(X @ X.T, initial, 0.2, max_iter=6, tol=0.0, coder_max_iter=500)
    *_, h_fast, _ = kernel_dictionary_learning(X @ X.T, initial, 0.2, max_iter=6, tol=0.0)
    assert h_fast[-1] == pytest.approx(h_exact[-1], rel=1e-2)  # 10 warm-started sweeps per iteration


@pytest.mark.parametrize("max_iter", [3, 500])
def test_lasso_gram_cd_compiled_loop_equals_numpy_loop(max_iter):
    rng = np.random.default_rng(7)
    atoms = rng.normal(size=(15, 10))
    atoms[4] = atoms[3] + 0.05 * rng.normal(size=10)  # correlated atoms: many sweeps
    atoms[9] = 0.0  # an atom of zero norm stays 0
    X = rng.normal(size=(25, 10))
    G, C = atoms @ atoms.T, X @ atoms.T
    init = np.where(rng.random((25, 15)) < 0.2, rng.normal(size=(25, 15)), 0.0)
    init[:, 9] = 0.0
    init_copy = init.copy()
    for start in (None, init):
        ref = lasso_gram_cd(G, C, 0.3, init=start, max_iter=max_iter, tol=1e-6, compiled=False)
        jit = lasso_gram_cd(G, C, 0.3, init=start, max_iter=max_iter, tol=1e-6)
        np.testing.assert_allclose(jit.codes, ref.codes, rtol=0, atol=1e-12)
        assert (jit.n_iter, jit.converged) == (ref.n_iter, ref.converged)
        assert np.all(jit.codes[:, 9] == 0) and 0.05 < np.mean(jit.codes != 0) < 0.9
    assert ref.converged == (max_iter == 500)
    np.testing.assert_array_equal(init, init_copy)


@pytest.mark.parametrize("sparse_products", [True, False])
def test_kernel_dictionary_learning_lazy_update_equals_dense_mod_steps(sparse_products, monkeypatch):
    """The iteration's K F, F^T K F and F (formed lazily from sparse codes) are the dense MOD steps."""
    from pixsel.projection import _kernel_coding

    monkeypatch.setattr(_kernel_coding, "_SPARSE_DENSITY", 1.0 if sparse_products else 0.0)
    rng = np.random.default_rng(8)
    X = np.zeros((40, 6))
    X[:, :5] = rng.normal(size=(40, 5))
    X[39] = [0, 0, 0, 0, 0, 0.1]  # its atom (e_6) correlates with one sample, below alpha: no code, kept
    Kxx = X @ X.T
    initial = np.array([0, 3, 6, 9, 12, 20, 21, 30, 35, 39])
    alpha = 0.35
    F = np.zeros((40, 10))
    F[initial, np.arange(10)] = 1.0 / np.sqrt(np.diag(Kxx)[initial])  # unit atoms in H
    A, history, unused_seen = None, [], 0
    for _ in range(6):
        G = F.T @ Kxx @ F
        A = lasso_gram_cd(G, Kxx @ F, alpha, init=A, max_iter=10, tol=1e-4, compiled=False).codes
        history.append(0.5 * (np.trace(Kxx) - 2 * np.sum(A * (Kxx @ F)) + np.sum((A @ G) * A)) + alpha * np.abs(A).sum())
        unused_seen += int(np.sum(~np.any(A != 0, axis=0)))
        F = kernel_dictionary_update(Kxx, A, previous=F)
    assert unused_seen > 0
    F_got, A_got, n_iter, h_got, _ = kernel_dictionary_learning(Kxx, initial, alpha, max_iter=6, tol=0.0)
    assert n_iter == 6
    np.testing.assert_allclose(h_got, history, rtol=1e-10)
    np.testing.assert_allclose(A_got, A, atol=1e-9)
    np.testing.assert_allclose(F_got, F, atol=1e-9)  # max_iter reached: F after the last update
    from pixsel.projection._kernel_coding import _dictionary_learning

    for max_iter, tol in ((6, 0.0), (50, 1e-3)):  # stopped by max_iter, converged
        F_got, *_, converged, Kdd = _dictionary_learning(Kxx, initial, alpha, max_iter=max_iter, tol=tol)
        assert converged == (tol > 0)
        np.testing.assert_allclose(Kdd, F_got.T @ Kxx @ F_got, atol=1e-9)  # the atoms' Gram of the F returned
