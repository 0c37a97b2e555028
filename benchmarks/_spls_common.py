"""Shared pieces of the sparse-PLS benchmarks: the simulated model of Eq.(10) and the baselines.

Every method returns the sorted indices it selects. The target count is reached exactly by
naive variance, sparse PCA and cardinal SPLS; group lasso and SPLS-eta are tuned (bisection on
their penalty) to the count closest to the target, and the count they reach is reported.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import MultiTaskLasso

from pixsel import CardinalSPLSSelector, SPLSSelector

N_LATENT = 10
N_TRUE = 200
N_RESPONSES = 5


def simulate(rng, sigma, *, n_samples=100, n_features=1000, reading="std"):
    """Eq.(10): ``x = z A + e`` for the first 200 features, i.i.d. noise for the rest, ``y = z B + f``.

    ``reading`` says how the paper's ``N(0, v)`` is read for ``A ~ N(0, 0.2)``, ``B ~ N(0, 0.3)``
    and the noise features ``N(0, 0.3)``: ``'std'`` (v is the standard deviation, as the paper
    states explicitly for ``e`` and ``f``) or ``'var'`` (v is the variance). ``e`` and ``f`` always
    have standard deviation ``sigma`` (the paper: "standard deviation values of e_i and f_i").
    ``A`` and ``B`` are drawn once per call (once per repetition).
    """
    s = (lambda v: v) if reading == "std" else np.sqrt
    z = rng.standard_normal((n_samples, N_LATENT))
    A = rng.normal(0.0, s(0.2), (N_LATENT, N_TRUE))
    B = rng.normal(0.0, s(0.3), (N_LATENT, N_RESPONSES))
    X = np.empty((n_samples, n_features))
    X[:, :N_TRUE] = z @ A + rng.normal(0.0, sigma, (n_samples, N_TRUE))
    X[:, N_TRUE:] = rng.normal(0.0, s(0.3), (n_samples, n_features - N_TRUE))
    Y = z @ B + rng.normal(0.0, sigma, (n_samples, N_RESPONSES))
    return X, Y


def naive_variance(X, k):
    """The ``k`` features of largest variance (ties: lowest index)."""
    return np.sort(np.argsort(-X.var(axis=0), kind="stable")[:k])


def greedy_sparse_pca(X, k):
    """Approximate greedy sparse PCA (d'Aspremont, Bach and El Ghaoui, 2008; the paper's [16]).

    The paper's baseline, kept here on purpose: it is *not* pixsel's exact greedy GSPCA
    (``pixsel.SparsePCASelector``, whose every step is exact), which ``bench_spls_recall_gspca``
    compares with it. Start from the feature of largest variance; with ``x`` the leading eigenvector of ``sum_{j in S} a_j a_j^T``
    (``a_j`` the centred columns; an ``n_samples`` x ``n_samples`` matrix), add the feature
    maximizing ``(x^T a_i)^2``. ``O(k (n^3 + n p))``.
    """
    Xc = X - X.mean(axis=0)
    n = Xc.shape[0]
    free = np.ones(Xc.shape[1], dtype=bool)
    i = int(np.argmax(np.einsum("ij,ij->j", Xc, Xc)))
    S = [i]
    free[i] = False
    G = np.outer(Xc[:, i], Xc[:, i])
    for _ in range(k - 1):
        x = sla.eigh(G, subset_by_index=[n - 1, n - 1])[1][:, 0]
        score = (x @ Xc) ** 2
        score[~free] = -np.inf
        i = int(np.argmax(score))
        S.append(i)
        free[i] = False
        G += np.outer(Xc[:, i], Xc[:, i])
    return np.sort(np.array(S))


def _bisect_count(fit_count, lo, hi, k, *, increasing, max_fits=16, rel_tol=0.02):
    """Bisection on a scalar parameter in [lo, hi] for a selected count close to ``k``.

    ``fit_count(v) -> (count, support)``; ``increasing`` says whether the count grows with ``v``.
    Returns ``(v, count, support, n_fits)`` for the count closest to ``k`` seen.
    """
    best = None
    for fits in range(1, max_fits + 1):  # noqa: B007 - the count is read after the loop
        mid = 0.5 * (lo + hi)
        count, support = fit_count(mid)
        if best is None or abs(count - k) < abs(best[1] - k):
            best = (mid, count, support)
        if abs(count - k) <= rel_tol * k:
            break
        if (count < k) == increasing:
            lo = mid
        else:
            hi = mid
    return (*best, fits)


def group_lasso(X, Y, k, *, max_fits=16):
    """``MultiTaskLasso`` (one group per feature across the responses) with alpha bisected (in
    log scale) to select about ``k`` features. Returns ``(support, alpha, n_fits)``."""
    Xc = X - X.mean(axis=0)
    Yc = Y - Y.mean(axis=0)
    alpha_max = float(np.max(np.linalg.norm(Xc.T @ Yc, axis=1))) / len(X)

    def fit_count(log_alpha):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m = MultiTaskLasso(alpha=float(np.exp(log_alpha)), tol=1e-3, max_iter=2000).fit(X, Y)
        support = np.flatnonzero(np.linalg.norm(m.coef_, axis=0))
        return len(support), support

    v, _, support, fits = _bisect_count(
        fit_count, np.log(alpha_max * 1e-4), np.log(alpha_max), k, increasing=False, max_fits=max_fits
    )
    return support, float(np.exp(v)), fits


def group_lasso_path_tuned(X, Y, k, *, factor=0.8, refine=4, min_ratio=1e-3):
    """Group lasso tuned along a warm-started path (cheaper than bisection for many features).

    alpha goes down geometrically from ``alpha_max`` (warm starts) until at least ``k`` features
    are selected, then ``refine`` bisection steps between the last two alphas. With few samples
    the group lasso cannot select more than about ``n_samples * n_responses`` features; the path
    then stops at ``min_ratio * alpha_max`` and the largest selection reached is returned.
    Returns ``(support, alpha, n_fits)``.
    """
    Xc = X - X.mean(axis=0)
    Yc = Y - Y.mean(axis=0)
    alpha_max = float(np.max(np.linalg.norm(Xc.T @ Yc, axis=1))) / len(X)
    model = MultiTaskLasso(alpha=alpha_max, tol=1e-3, max_iter=2000, warm_start=True)
    fits = 0

    def count(a):
        nonlocal fits
        fits += 1
        model.set_params(alpha=a)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, Y)
        return np.flatnonzero(np.linalg.norm(model.coef_, axis=0))

    alpha = hi = alpha_max
    S = count(alpha)
    while len(S) < k and alpha * factor >= min_ratio * alpha_max:
        hi, alpha = alpha, alpha * factor
        S = count(alpha)
    best = (alpha, S)
    if len(S) >= k:
        lo = alpha
        for _ in range(refine):
            mid = float(np.sqrt(lo * hi))
            Sm = count(mid)
            if abs(len(Sm) - k) < abs(len(best[1]) - k):
                best = (mid, Sm)
            if len(Sm) < k:
                hi = mid
            else:
                lo = mid
    return best[1], best[0], fits


def spls_eta_tuned(X, Y, k, *, n_components=5, max_fits=16):
    """SPLS-eta with ``eta`` bisected to select about ``k`` features. Returns ``(support, eta, n_fits)``."""

    def fit_count(eta):
        sel = _quiet_fit(SPLSSelector(eta, n_components=n_components, target="continuous"), X, Y)
        return sel.n_features_selected_, sel.get_support(indices=True)

    eta, _, support, fits = _bisect_count(fit_count, 0.0, 1.0, k, increasing=False, max_fits=max_fits)
    return support, float(eta), fits


def _quiet_fit(est, X, Y):
    """Fit, silencing the ConvergenceWarning of the alternating c/w optimization (the R package
    spls stops at maxstep = 100 silently too); the selection is used as it is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, Y)


def spls_eta_at(X, Y, eta, *, n_components=5):
    est = SPLSSelector(eta, n_components=n_components, target="continuous")
    return _quiet_fit(est, X, Y).get_support(indices=True)


def cardinal(X, Y, k, *, n_components=5):
    est = CardinalSPLSSelector(k, n_components=n_components, target="continuous")
    return _quiet_fit(est, X, Y).get_support(indices=True)
