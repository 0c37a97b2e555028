"""Oracles for the EP and Laplace kernels: quadrature, finite differences, each other."""

import numpy as np
import pytest
from scipy import integrate, optimize
from scipy.stats import norm

from pixsel.gp import (
    SquaredExponential,
    ep_binary_probit,
    ep_predict,
    laplace_binary_probit,
    laplace_predict,
)
from pixsel.gp._ep import ep_log_marginal_grad
from pixsel.gp._laplace import laplace_log_marginal_grad


def _posterior_moments_1d(k, y):
    """Exact Z, mean and variance of p(f | y) for the prior N(0, k) and likelihood Phi(y f)."""
    w = lambda f: norm.cdf(y * f) * norm.pdf(f, 0.0, np.sqrt(k))
    Z = integrate.quad(w, -40, 40, epsabs=1e-13)[0]
    m = integrate.quad(lambda f: f * w(f), -40, 40, epsabs=1e-13)[0] / Z
    v = integrate.quad(lambda f: f * f * w(f), -40, 40, epsabs=1e-13)[0] / Z - m * m
    return Z, m, v


@pytest.mark.parametrize("algorithm", ["sequential", "parallel"])
@pytest.mark.parametrize("k,y", [(0.3, 1.0), (2.0, 1.0), (5.0, -1.0)])
def test_ep_one_point_is_exact(algorithm, k, y):
    # With one site the cavity is the prior, so EP matches the exact posterior moments and Z.
    Z, m, v = _posterior_moments_1d(k, y)
    st = ep_binary_probit(np.array([[k]]), np.array([y]), algorithm=algorithm, tol=1e-12)
    assert st.converged
    assert np.exp(st.log_Z) == pytest.approx(Z, rel=1e-8)
    assert st.mu[0] == pytest.approx(m, rel=1e-7)
    assert st.var[0] == pytest.approx(v, rel=1e-7)


def test_ep_one_point_predictive_moments():
    # f* | y has mean (k*/k) E[f|y] and variance k** - k*^2/k + (k*/k)^2 Var[f|y] exactly.
    k, ks, kss, y = 1.5, 0.9, 1.5, 1.0
    _, m, v = _posterior_moments_1d(k, y)
    st = ep_binary_probit(np.array([[k]]), np.array([y]), tol=1e-12)
    fm, fv, lp_pos, lp_neg = ep_predict(np.array([[k]]), np.array([[ks]]), np.array([kss]), np.array([y]), st)
    assert fm[0] == pytest.approx(ks / k * m, rel=1e-7)
    assert fv[0] == pytest.approx(kss - ks**2 / k + (ks / k) ** 2 * v, rel=1e-7)
    assert np.exp(lp_pos[0]) + np.exp(lp_neg[0]) == pytest.approx(1.0)
    assert np.exp(lp_pos[0]) == pytest.approx(norm.cdf(fm[0] / np.sqrt(1 + fv[0])))


def test_laplace_one_point_mode_and_evidence():
    k, y = 2.0, -1.0
    res = optimize.minimize_scalar(lambda f: -norm.logcdf(y * f) + f * f / (2 * k), bounds=(-10, 10),
                                   method="bounded", options={"xatol": 1e-12})
    st = laplace_binary_probit(np.array([[k]]), np.array([y]), tol=1e-14)
    assert st.f[0] == pytest.approx(res.x, abs=1e-6)
    f = st.f[0]
    r = norm.pdf(f) / norm.cdf(y * f)
    W = r * r + y * f * r
    expected = norm.logcdf(y * f) - f * f / (2 * k) - 0.5 * np.log(1 + k * W)
    assert st.log_Z == pytest.approx(expected, rel=1e-10)


def _problem(n=50, p=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.sign(X[:, 0] + 0.5 * rng.normal(size=n))
    return X, y


def test_parallel_and_sequential_ep_reach_the_same_fixed_point():
    X, y = _problem()
    ker = SquaredExponential(False, 3)
    K = ker(np.array([0.3, 0.2]), X)
    a = ep_binary_probit(K, y, algorithm="sequential", tol=1e-11)
    b = ep_binary_probit(K, y, algorithm="parallel", damping=0.6, tol=1e-11)
    assert a.converged and b.converged
    np.testing.assert_allclose(a.tau, b.tau, atol=1e-8)
    np.testing.assert_allclose(a.nu, b.nu, atol=1e-8)
    assert a.log_Z == pytest.approx(b.log_Z, abs=1e-9)


def test_method_is_a_deprecated_alias_of_algorithm():
    X, y = _problem(n=20)
    K = SquaredExponential(False, 3)(np.array([0.3, 0.2]), X)
    want = ep_binary_probit(K, y, algorithm="sequential", tol=1e-10)
    with pytest.warns(FutureWarning, match="renamed algorithm"):
        got = ep_binary_probit(K, y, method="sequential", tol=1e-10)
    np.testing.assert_array_equal(got.tau, want.tau)
    with pytest.raises(ValueError, match="'algorithm' parameter of ep_binary_probit"):
        ep_binary_probit(K, y, algorithm="serial")


def _fd(fun, theta, h=1e-5):
    out = np.empty(len(theta))
    for j in range(len(theta)):
        e = np.zeros(len(theta))
        e[j] = h
        out[j] = (fun(theta + e) - fun(theta - e)) / (2 * h)
    return out


@pytest.mark.parametrize("ard", [False, True])
@pytest.mark.parametrize("approx", ["ep", "laplace"])
def test_log_marginal_gradient_matches_finite_differences(ard, approx):
    X, y = _problem(n=40)
    ker = SquaredExponential(ard, 3)
    theta = np.array([0.4, 0.1, -0.2, 0.3]) if ard else np.array([0.4, 0.1])
    K = ker(theta, X)
    if approx == "ep":
        st = ep_binary_probit(K, y, algorithm="sequential", tol=1e-12)
        g = ep_log_marginal_grad(ker, theta, X, K, st)
        warm = (st.tau, st.nu)
        fun = lambda t: ep_binary_probit(ker(t, X), y, init=warm, algorithm="sequential", tol=1e-12).log_Z
    else:
        st = laplace_binary_probit(K, y, tol=1e-15)
        g = laplace_log_marginal_grad(ker, theta, X, K, y, st)
        fun = lambda t: laplace_binary_probit(ker(t, X), y, tol=1e-15).log_Z
    np.testing.assert_allclose(g, _fd(fun, theta), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ard", [False, True])
def test_kernel_gradient_contractions_match_dense_derivatives(ard):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 4))
    ker = SquaredExponential(ard, 4)
    theta = rng.normal(size=ker.n_params) * 0.3
    K = ker(theta, X)
    M = rng.normal(size=(12, 12))
    M = M + M.T
    v = rng.normal(size=12)
    for j in range(ker.n_params):
        e = np.zeros(ker.n_params)
        e[j] = 1e-6
        dK = (ker(theta + e, X) - ker(theta - e, X)) / 2e-6
        assert ker.grad_contract(theta, X, K, M)[j] == pytest.approx(np.sum(M * dK), rel=1e-6, abs=1e-8)
        np.testing.assert_allclose(ker.grad_matvec(theta, X, K, v)[:, j], dK @ v, rtol=1e-6, atol=1e-8)
    # the cross-covariance agrees with the training covariance
    np.testing.assert_allclose(ker(theta, X, X), K, atol=1e-12)


def test_ep_and_laplace_agree_on_an_easy_problem():
    X, y = _problem(n=80, p=2, seed=3)
    Xt, yt = _problem(n=200, p=2, seed=4)
    ker = SquaredExponential(False, 2)
    theta = np.array([0.5, 0.3])
    K, Ks, kss = ker(theta, X), ker(theta, X, Xt), ker.diag(theta, Xt)
    e = ep_binary_probit(K, y, tol=1e-10)
    la = laplace_binary_probit(K, y)
    pe = np.exp(ep_predict(K, Ks, kss, y, e)[2])
    pl = np.exp(laplace_predict(K, Ks, kss, y, la)[2])
    assert np.mean((pe > 0.5) == (pl > 0.5)) > 0.97
    assert np.max(np.abs(pe - pl)) < 0.15
    # both close to the truth on an easy problem
    assert np.mean((pe > 0.5) == (yt > 0)) > 0.85
    # Laplace underestimates the evidence of a probit GPC here (Kuss & Rasmussen, JMLR 2005)
    assert e.log_Z > la.log_Z
    assert abs(e.log_Z - la.log_Z) < 0.1 * abs(e.log_Z)
