"""The general model (10)-(11): objective identity, Monte Carlo oracle, solver, gradient."""

import numpy as np
import pytest

from pixsel.projection import general_slm_projection, slm_projection
from pixsel.projection._general_slm import general_slm_objective
from pixsel.projection._slm import slm_objective
from pixsel.projection._general_slm import _value_grad


def test_equal_variances_give_objective_6_exactly():
    rng = np.random.default_rng(0)
    atoms = rng.normal(size=(7, 4))
    sigma, tau = 0.35, 0.8
    for _ in range(3):
        L = rng.normal(size=(2, 4))
        got = general_slm_objective(L, atoms, np.full(7, 2 * tau**2), np.full(4, sigma**2))
        assert got == pytest.approx(slm_objective(L, atoms, sigma, tau), rel=1e-12)


def test_general_objective_is_the_expected_squared_error_with_unequal_variances():
    rng = np.random.default_rng(1)
    N, K, M = 3, 4, 2
    atoms = rng.normal(size=(K, N))
    taus = np.array([0.3, 0.6, 0.9, 0.5])
    noise_sd = np.array([0.1, 0.5, 0.3])
    L = rng.normal(size=(M, N)) * 0.6
    n = 200_000
    a1 = rng.laplace(scale=taus, size=(n, K))
    a2 = rng.laplace(scale=taus, size=(n, K))
    x1 = a1 @ atoms + noise_sd * rng.normal(size=(n, N))
    x2 = a2 @ atoms + noise_sd * rng.normal(size=(n, N))
    d = np.sum((x1 @ L.T) * (x2 @ L.T), axis=1) - np.sum(a1 * a2, axis=1)
    mc, se = np.mean(d * d), np.std(d * d) / np.sqrt(n)
    assert abs(mc - general_slm_objective(L, atoms, 2 * taus**2, noise_sd**2)) < 5 * se


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    atoms = rng.normal(size=(5, 4))
    v = rng.uniform(0.2, 2.0, size=5)
    s = rng.uniform(0.01, 0.5, size=4)
    L = rng.normal(size=(2, 4))
    E = atoms.T * np.sqrt(v)
    f, g = _value_grad(L, E, np.sqrt(s), v)
    h = 1e-6
    num = np.zeros_like(L)
    for idx in np.ndindex(*L.shape):
        Lp, Lm = L.copy(), L.copy()
        Lp[idx] += h
        Lm[idx] -= h
        num[idx] = (_value_grad(Lp, E, np.sqrt(s), v)[0] - _value_grad(Lm, E, np.sqrt(s), v)[0]) / (2 * h)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_solver_reduces_to_closed_form_with_equal_variances(seed):
    rng = np.random.default_rng(seed)
    atoms = rng.normal(size=(8, 5))
    sigma, tau, M = 0.3, 0.7, 2
    closed = slm_projection(atoms, M, sigma=sigma, tau=tau)
    res = general_slm_projection(
        atoms, M, code_var=np.full(8, 2 * tau**2), noise_var=np.full(5, sigma**2),
        init=rng.normal(size=(M, 5)) * 0.1,  # far from the answer
    )
    assert res.converged
    assert res.objective == pytest.approx(slm_objective(closed.components, atoms, sigma, tau), rel=1e-7)
    S, S_ref = res.components.T @ res.components, closed.components.T @ closed.components
    np.testing.assert_allclose(S, S_ref, atol=1e-5)
    # eigenvalues of S are the squared gains f(lambda)^2 (f is not monotone, so compare sorted)
    np.testing.assert_allclose(res.eigenvalues, np.sort(closed.gains**2)[::-1], rtol=1e-6)


def test_solver_improves_on_the_equal_variance_surrogate():
    rng = np.random.default_rng(3)
    atoms = rng.normal(size=(10, 6))
    v = rng.uniform(0.05, 3.0, size=10)
    s = rng.uniform(0.01, 1.0, size=6)
    res = general_slm_projection(atoms, 3, code_var=v, noise_var=s)
    init = slm_projection(atoms, 3, sigma=float(np.sqrt(s.mean())), tau=float(np.sqrt(v.mean() / 2))).components
    f0 = general_slm_objective(init, atoms, v, s)
    assert res.converged and res.objective < f0
    # a local minimum: no random perturbation does better
    for _ in range(10):
        Lp = res.components + 1e-3 * rng.normal(size=res.components.shape)
        assert general_slm_objective(Lp, atoms, v, s) >= res.objective - 1e-12
    # rows are orthogonal (canonical rotation), sorted by decreasing norm
    G = res.components @ res.components.T
    np.testing.assert_allclose(G - np.diag(np.diag(G)), 0.0, atol=1e-9)
    assert np.all(np.diff(res.eigenvalues) <= 1e-12)


def test_general_bad_input():
    atoms = np.ones((3, 2))
    with pytest.raises(ValueError, match="code_var"):
        general_slm_projection(atoms, 1, code_var=[1.0, -1.0, 1.0], noise_var=[1.0, 1.0])
    with pytest.raises(ValueError, match="noise_var"):
        general_slm_projection(atoms, 1, code_var=[1.0, 1.0, 1.0], noise_var=[1.0])
    with pytest.raises(ValueError, match="identically zero"):
        general_slm_projection(atoms, 1, code_var=np.zeros(3), noise_var=[1.0, 1.0])
    with pytest.raises(ValueError, match="n_components"):
        general_slm_projection(atoms, 3, code_var=np.ones(3), noise_var=[1.0, 1.0])
