"""SparseLinearModelProjection: oracles, limits, bad input."""

import numpy as np
import pytest
from sklearn.decomposition import sparse_encode

from pixsel.decomposition import SparseLinearModelProjection
from pixsel.projection import estimate_sigma_tau, kernel_lasso_codes, kernel_lasso_factor, slm_projection


def _sparse_data(seed=0, n=120, N=8, K=12, tau=0.5, sigma=0.05, density=0.25):
    rng = np.random.default_rng(seed)
    atoms = rng.normal(size=(K, N))
    atoms /= np.linalg.norm(atoms, axis=1, keepdims=True)
    A = rng.laplace(scale=tau, size=(n, K)) * (rng.random((n, K)) < density)
    return A @ atoms + sigma * rng.normal(size=(n, N)), atoms


def _gram_equal(Y1, Y2, rtol=1e-8):
    np.testing.assert_allclose(Y1 @ Y1.T, Y2 @ Y2.T, rtol=rtol, atol=rtol * np.abs(Y2 @ Y2.T).max())


def test_given_dictionary_and_scales_is_the_closed_form():
    X, atoms = _sparse_data()
    est = SparseLinearModelProjection(3, dictionary=atoms, sigma=0.1, tau=0.4).fit(X)
    ref = slm_projection(atoms, 3, sigma=0.1, tau=0.4)
    np.testing.assert_allclose(est.components_, ref.components)
    np.testing.assert_allclose(est.transform(X), X @ ref.components.T)
    assert est.n_iter_ == 0 and est.sigma_ == 0.1 and est.tau_ == 0.4


def test_estimated_scales_follow_the_documented_estimator():
    X, atoms = _sparse_data(1)
    est = SparseLinearModelProjection(2, dictionary=atoms, alpha=0.02, coding_max_iter=5000).fit(X)
    codes = sparse_encode(X, atoms, algorithm="lasso_lars", alpha=0.02)
    s, t = estimate_sigma_tau(X, codes, atoms)
    # tau: Laplace ML scale of the codes; sigma: ML white-noise level of the residuals (CD vs LARS)
    assert est.sigma_ == pytest.approx(s, rel=1e-3) and est.tau_ == pytest.approx(t, rel=1e-3)
    assert 0.0 < est.sigma_ < 0.2 and 0.0 < est.tau_
    default = SparseLinearModelProjection(2, dictionary=atoms, alpha=0.02).fit(X)  # codes of 100 sweeps: within 1 %
    assert default.tau_ == pytest.approx(t, rel=1e-2) and default.sigma_ == pytest.approx(s, rel=1e-2)
    prior = SparseLinearModelProjection(2, dictionary=atoms, alpha=0.02, sigma="prior").fit(X)
    assert prior.sigma_ == pytest.approx(np.sqrt(0.02 * prior.tau_))  # the lasso's sigma^2 / tau = alpha
    given_tau = SparseLinearModelProjection(2, dictionary=atoms, alpha=0.02, tau=0.3, sigma="prior").fit(X)
    assert given_tau.sigma_ == pytest.approx(np.sqrt(0.02 * 0.3))


def test_general_model_with_given_equal_scales_reduces_to_standard():
    X, atoms = _sparse_data(2)
    std = SparseLinearModelProjection(2, dictionary=atoms, sigma=0.1, tau=0.5).fit(X)
    gen = SparseLinearModelProjection(2, dictionary=atoms, sigma=0.1, tau=0.5, model="general").fit(X)
    _gram_equal(gen.transform(X), std.transform(X), rtol=1e-5)
    # with estimated per-atom scales the general model is a different (valid) projection
    gen2 = SparseLinearModelProjection(2, dictionary=atoms, model="general").fit(X)
    assert gen2.code_var_.shape == (12,) and gen2.noise_var_.shape == (8,)
    assert np.all(np.isfinite(gen2.components_))


def test_kernel_lasso_codes_with_linear_kernel_equal_sklearn_lasso():
    X, atoms = _sparse_data(3, n=30)
    R, W = kernel_lasso_factor(atoms @ atoms.T)
    lasso = lambda Z, R, alpha: sparse_encode(Z, R.T, algorithm="lasso_lars", alpha=alpha)
    got = kernel_lasso_codes(X @ atoms.T, R, W, 0.05, lasso)
    ref = sparse_encode(X, atoms, algorithm="lasso_lars", alpha=0.05)
    np.testing.assert_allclose(got, ref, atol=1e-8)


def test_kernel_preimage_linear_kernel_equals_linear_model():
    X, atoms = _sparse_data(4)
    lin = SparseLinearModelProjection(3, dictionary=atoms, sigma=0.1, tau=0.5).fit(X)
    ker = SparseLinearModelProjection(3, dictionary=atoms, sigma=0.1, tau=0.5, kernel="linear").fit(X)
    _gram_equal(ker.transform(X), lin.transform(X))


def test_kernel_representer_dictionary_is_consistent_with_linear_projection():
    X, _ = _sparse_data(5, n=40)
    ker = SparseLinearModelProjection(3, n_atoms=8, kernel="linear", max_iter=100, tol=1e-2, random_state=0).fit(X)
    atoms = ker.dictionary_coef_.T @ ker.basis_  # D = Phi(basis) F with Phi = identity
    np.testing.assert_allclose(np.linalg.norm(atoms, axis=1), 1.0, rtol=1e-8)  # unit atoms in H
    ref = slm_projection(atoms, 3, sigma=ker.sigma_, tau=ker.tau_)
    _gram_equal(ker.transform(X), X @ ref.components.T, rtol=1e-7)
    assert ker.sigma_ == pytest.approx(np.sqrt(ker.alpha * ker.tau_))
    assert all(np.diff(ker.history_) <= 1e-12 * ker.history_[0])  # monotone kernel DL


def test_learned_dictionary_determinism_and_no_mutation():
    X, _ = _sparse_data(6, n=50)
    X32 = X.astype(np.float32)
    Xc = X32.copy()
    a = SparseLinearModelProjection(2, n_atoms=10, max_iter=3, random_state=0).fit(X32)
    b = SparseLinearModelProjection(2, n_atoms=10, max_iter=3, random_state=0).fit(X32)
    np.testing.assert_array_equal(a.transform(X32), b.transform(X32))
    np.testing.assert_array_equal(X32, Xc)
    assert a.dictionary_.shape == (10, 8) and a.components_.shape == (2, 8)
    atoms = np.ones((3, 8))
    a_before = atoms.copy()
    SparseLinearModelProjection(2, dictionary=atoms, sigma=0.1, tau=1.0).fit(X)
    np.testing.assert_array_equal(atoms, a_before)


def test_bad_input_is_reported_clearly():
    X, atoms = _sparse_data(7)
    with pytest.raises(ValueError, match="at most n_features=8"):
        SparseLinearModelProjection(9, dictionary=atoms).fit(X)
    with pytest.raises(ValueError, match="sigma"):
        SparseLinearModelProjection(2, dictionary=atoms, sigma=-1.0).fit(X)
    with pytest.raises(ValueError, match="tau"):
        SparseLinearModelProjection(2, dictionary=atoms, tau=0.0).fit(X)
    with pytest.raises(ValueError, match="shape"):
        SparseLinearModelProjection(2, dictionary=atoms[:, :5]).fit(X)
    with pytest.raises(ValueError, match="Lower alpha or pass tau"):
        SparseLinearModelProjection(2, dictionary=atoms, alpha=1e6).fit(X)
    with pytest.raises(ValueError, match="positive semidefinite"):
        SparseLinearModelProjection(2, dictionary=atoms, kernel=lambda a, b: -(a @ b.T), sigma=0.1, tau=1.0).fit(X)
    with pytest.raises(ValueError, match="linear only"):
        SparseLinearModelProjection(2, model="general", kernel="rbf").fit(X)
    with pytest.raises(ValueError, match="'sigma' parameter"):
        SparseLinearModelProjection(2, dictionary=atoms, sigma="mad").fit(X)
    with pytest.raises(ValueError, match="at most n_atoms"):
        SparseLinearModelProjection(5, dictionary=atoms[:4], kernel="rbf", sigma=0.1, tau=1.0).fit(X)


def test_rank_deficient_dictionary_in_the_estimator():
    X, atoms = _sparse_data(8)
    low = atoms[:3]  # 3 atoms in R^8: D D^T has rank 3
    est = SparseLinearModelProjection(5, dictionary=low, sigma=0.0, tau=1.0).fit(X)
    assert est.rank_ == 3
    np.testing.assert_array_equal(est.components_[3:], 0.0)
    np.testing.assert_array_equal(est.transform(X)[:, 3:], 0.0)


def test_default_fit_is_quiet_and_deterministic_with_dense_codes():
    import warnings

    rng = np.random.default_rng(11)
    X = rng.normal(size=(60, 12)) * 10.0  # tiny alpha relative to the data: dense, ill-conditioned codes
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no lasso ConvergenceWarning floods (nothing printed by default)
        a = SparseLinearModelProjection(3, n_atoms=16, max_iter=5, random_state=1).fit(X)
        k1 = SparseLinearModelProjection(3, n_atoms=10, kernel="rbf", gamma=0.01, max_iter=5, random_state=1).fit(X)
    b = SparseLinearModelProjection(3, n_atoms=16, max_iter=5, random_state=1).fit(X)
    k2 = SparseLinearModelProjection(3, n_atoms=10, kernel="rbf", gamma=0.01, max_iter=5, random_state=1).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(k1.transform(X), k2.transform(X))
    assert a.sigma_ > 0 and k1.sigma_ == pytest.approx(np.sqrt(0.05 * k1.tau_))
    assert len(k1.history_) == k1.n_iter_ and isinstance(k1.converged_, bool)


def test_kernel_slm_is_linear_slm_on_the_empirical_kernel_map():
    """Kernel SLM on K equals the linear algorithm on the rows of Phi = U diag(sqrt(l)) (K = U diag(l) U^T).

    The dictionary learned from K and the one learned by the same lasso + MOD loop on the rows of
    Phi are the same (atoms Phi^T F), and so are the projections of the training samples and of
    new points, whose coordinates are k(x, X) U diag(l)^(-1/2).
    """
    from sklearn.metrics.pairwise import rbf_kernel

    from pixsel.projection import lasso_gram_cd
    from pixsel.projection._kernel_coding import kernel_dictionary_update

    rng = np.random.default_rng(12)
    X, X_new = rng.normal(size=(30, 4)), rng.normal(size=(7, 4))
    ker = SparseLinearModelProjection(3, n_atoms=8, alpha=0.05, kernel="rbf", gamma=0.3, max_iter=4, tol=0.0,
                                      random_state=0).fit(X)
    K = rbf_kernel(X, gamma=0.3)
    lam, U = np.linalg.eigh(K)
    assert lam.min() > 1e-10  # full rank: Phi Phi^T = K exactly
    Phi = U * np.sqrt(lam)
    # the linear loop on the rows of Phi, started from the same atoms (the samples chosen by the estimator)
    initial = np.sort(np.random.RandomState(0).choice(30, size=8, replace=False))
    D = Phi[initial].T / np.linalg.norm(Phi[initial], axis=1)  # atoms as columns, unit norm
    A = None
    for it in range(4):
        A = lasso_gram_cd(D.T @ D, Phi @ D, 0.05, init=A, max_iter=10, tol=1e-4, compiled=False).codes
        if it < 3:  # max_iter reached: the estimator's F is the MOD step after the last codes
            D = Phi.T @ kernel_dictionary_update(Phi @ Phi.T, A, previous=np.linalg.solve(Phi.T, D))
    D = Phi.T @ kernel_dictionary_update(Phi @ Phi.T, A, previous=np.linalg.solve(Phi.T, D))
    np.testing.assert_allclose(Phi.T @ ker.dictionary_coef_, D, atol=1e-8)
    lin = slm_projection(D.T, 3, sigma=ker.sigma_, tau=ker.tau_)
    assert ker.tau_ == pytest.approx(np.mean(np.abs(A)), rel=1e-10)
    _gram_equal(ker.transform(X), Phi @ lin.components.T, rtol=1e-7)
    phi_new = rbf_kernel(X_new, X, gamma=0.3) @ U / np.sqrt(lam)
    _gram_equal(ker.transform(X_new), phi_new @ lin.components.T, rtol=1e-7)


@pytest.mark.parametrize("fit_algorithm", ["minibatch", "batch"])
def test_a_callable_progress_receives_each_epoch_and_nothing_is_drawn(fit_algorithm, capsys):
    X, _ = _sparse_data(3, n=60)
    calls = []
    est = SparseLinearModelProjection(2, n_atoms=10, max_iter=4, batch_size=20, fit_algorithm=fit_algorithm,
                                      random_state=0, progress=lambda *a: calls.append(a)).fit(X)
    # epoch i of max_iter, in order, once each, as many as the dictionary learning ran
    assert calls and [c[0] for c in calls] == list(range(1, len(calls) + 1))
    assert all(total == 4 and what == "SLM dictionary (epochs)" for _, total, what in calls)
    if fit_algorithm == "minibatch":  # it counts steps: n_iter_ epochs (batch counts a callback per 5 iterations)
        assert len(calls) == est.n_iter_
    assert capsys.readouterr().err == ""
    quiet = SparseLinearModelProjection(2, n_atoms=10, max_iter=4, batch_size=20, fit_algorithm=fit_algorithm,
                                        random_state=0).fit(X)
    np.testing.assert_array_equal(est.components_, quiet.components_)
    calls.clear()
    k = SparseLinearModelProjection(2, n_atoms=8, kernel="rbf", gamma=0.1, max_iter=3, random_state=0,
                                    progress=lambda *a: calls.append(a)).fit(X)
    assert calls == [(i, 3, "kernel SLM dictionary (iterations)") for i in range(1, k.n_iter_ + 1)]
