"""Shared pieces of the exact-solver benchmarks: generators, baselines, classifier.

Everything solver-related goes through pixsel's public API. Thresholding baselines:

* ST (simple thresholding, Moghaddam, Weiss and Avidan (ICML 2006), section 3): ``pixsel.spectral.simple_thresholding_path`` -
  rank ``|v|``, ``v`` the principal eigenvector of ``C = B^{-1/2} A B^{-1/2}`` (for two classes
  ``v ~ B^{-1/2} a``), every prefix renormalized (the paper's "fix");
* FT (thresholding of the generalized eigenvector ``x = B^{-1/2} v``, for two classes the dense
  Fisher discriminant ``B^{-1} a``): ``fisher_thresholding_path`` for vectors, a local
  ``eigh(A, B)`` ranking for matrices.

The greedy dual pass (``dual_pass_objectives``) is ``pixsel.spectral.greedy_path`` forward and
backward, for a vector ``a`` and a full matrix ``A`` alike.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from pixsel.spectral import fisher_thresholding_path, greedy_path, simple_thresholding_path


def brownian_kernel(n, gamma, length):
    """Covariance ``exp(-|i - j|^gamma / length)`` of a Brownian-type process on ``n`` points.

    ``gamma`` in (0, 2] sets the smoothness: ``gamma = 1`` is the Ornstein-Uhlenbeck (Markov,
    rough) process, ``gamma -> 0`` nearly white, ``gamma = 2`` the infinitely smooth Gaussian
    kernel (fractional-Brownian-type family, Hurst exponent gamma / 2).
    """
    i = np.arange(n)
    return np.exp(-np.abs(i[:, None] - i[None, :]) ** gamma / length)


def sample_cov(K, m, rng):
    """Sample covariance of ``m`` draws of N(0, K) (a random Wishart matrix around ``K``)."""
    n = len(K)
    w, V = np.linalg.eigh(K)
    L = V * np.sqrt(np.maximum(w, 0.0))
    X = rng.standard_normal((m, n)) @ L.T
    return X.T @ X / m


def random_pair(n, rng, m=None):
    """A random pair (A, B) for the Monte Carlo study (Moghaddam, Weiss and Avidan (ICML 2006), section 3.1).

    A and B are sample covariances (``m = 2n`` draws) of two independent Brownian-type processes
    whose smoothness ``gamma ~ U(0.1, 2]`` and length ``l ~ U(1, n)`` are drawn per matrix; B
    gets the ridge ``1e-3 trace(B) / n`` (pixsel's 'auto' regularization) so that smooth, nearly
    singular draws stay positive definite.
    """
    m = 2 * n if m is None else m
    mats = []
    for _ in range(2):
        gamma = rng.uniform(0.1, 2.0)
        length = rng.uniform(1.0, n)
        mats.append(sample_cov(brownian_kernel(n, gamma, length), m, rng))
    A, B = mats
    B = B + 1e-3 * np.trace(B) / n * np.eye(n)
    return (A + A.T) / 2, (B + B.T) / 2


def principal_vector(A, B):
    """Principal generalized eigenvector of (A, B) (``B^{-1} a`` for a vector ``a``)."""
    if A.ndim == 1:
        return sla.solve(B, A, assume_a="pos")
    return sla.eigh(A, B)[1][:, -1]


def st_order(A, B):
    """ST ranking (``simple_thresholding_path``), best first."""
    return simple_thresholding_path(A, B).order


def ft_order(A, B):
    """FT ranking: ``|x|`` of the principal generalized eigenvector (``B^{-1} a``), best first."""
    if np.ndim(A) == 1:
        return fisher_thresholding_path(A, B).order
    return np.argsort(-np.abs(principal_vector(A, B)), kind="stable")


def pearson_order(X, y):
    """Variables ranked by |Pearson correlation| with the labels (largest first)."""
    Xc = X - X.mean(0)
    yc = y - y.mean()
    den = np.sqrt((Xc**2).sum(0) * (yc**2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(den > 0, (Xc * yc[:, None]).sum(0) / den, 0.0)
    return np.argsort(-np.abs(r), kind="stable")


def dual_pass_objectives(A, B):
    """Forward and backward greedy objectives and supports for every k (``greedy_path``)."""
    fw = greedy_path(A, B, direction="forward")
    bw = greedy_path(A, B, direction="backward")
    ks = range(1, len(B) + 1)
    return fw.objective, bw.objective, [fw.support(k) for k in ks], [bw.support(k) for k in ks]


def fisher_predict(Xtr, ytr, Xte, support, B_reg, a):
    """Classify by the sparse discriminant on ``support``.

    Threshold rule: ``w = B_SS^{-1} a_S`` (``a`` = mean(class 1) - mean(class 0), ``B`` the
    regularized pooled within-class covariance, both from the training samples only); a test
    sample ``x`` is assigned to class 1 when ``w^T (x - (m0 + m1) / 2) > 0`` (the midpoint of the
    projected class means, equal priors).
    """
    S = np.asarray(support)
    w = sla.solve(B_reg[np.ix_(S, S)], a[S], assume_a="pos")
    m0 = Xtr[ytr == 0][:, S].mean(0)
    m1 = Xtr[ytr == 1][:, S].mean(0)
    return ((Xte[:, S] - (m0 + m1) / 2) @ w > 0).astype(int)
