"""Oracles shared by the spectral tests: direct evaluation on a support, greedy by brute force."""

from itertools import combinations
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.linalg as sla


def value_on_support(A, B, S, criterion="max-eig"):
    """Criterion of the pair on ``S`` computed from scratch (A: vector, p x r factor or p x p)."""
    S = np.asarray(sorted(S), dtype=np.intp)
    A = np.asarray(A, dtype=np.float64)
    p = A.shape[0]
    B = np.eye(p) if B is None else np.asarray(B, dtype=np.float64)
    BSS = B[np.ix_(S, S)]
    if A.ndim == 1:
        A = A[:, None]
    if A.shape[1] != p or not np.allclose(A, A.T):
        MS = A[S]
        G = MS.T @ sla.solve(BSS, MS, assume_a="pos")
        vals = np.linalg.eigvalsh((G + G.T) / 2)
    else:
        vals = sla.eigh(A[np.ix_(S, S)], BSS, eigvals_only=True)
    return float(vals.sum() if criterion == "trace" else vals[-1])


@pytest.fixture
def usps_pixel_pair(shared_data):
    """``usps_pixel_pair(p, offset)``: two-class LDA on ``p`` of the highest-variance USPS 3-vs-5
    training pixels (from the ``offset``-th): ``a = m3 - m5`` and the pooled covariance plus
    ``1e-3`` of its mean diagonal."""

    def make(p, offset):
        d = shared_data("usps_3v5_split.npz")
        X = np.asarray(d["X_train"], dtype=np.float64)
        y = np.asarray(d["y_train"])
        cols = np.sort(np.argsort(-X.var(axis=0), kind="stable")[offset : offset + p])
        X0, X1 = X[y == 3][:, cols], X[y == 5][:, cols]
        a = X0.mean(0) - X1.mean(0)
        C = (np.cov(X0, rowvar=False) * (len(X0) - 1) + np.cov(X1, rowvar=False) * (len(X1) - 1)) / (len(X) - 2)
        return a, C + 1e-3 * np.mean(np.diag(C)) * np.eye(p)

    return make


def greedy_oracle(A, B, direction, criterion="max-eig"):
    """Textbook greedy: every candidate evaluated from scratch; ties -> lowest index."""
    p = np.asarray(A).shape[0]
    if direction == "forward":
        S, order, obj = [], [], []
        for _ in range(p):
            best, bj = -np.inf, None
            for i in range(p):
                if i in S:
                    continue
                v = value_on_support(A, B, S + [i], criterion)
                if bj is None or v > best + 1e-12 * max(1.0, abs(best)):
                    best, bj = v, i
            S.append(bj)
            order.append(bj)
            obj.append(best)
        return np.array(order), np.array(obj)
    S = list(range(p))
    removed, obj = [], np.empty(p)
    obj[p - 1] = value_on_support(A, B, S, criterion)
    for _step in range(p - 1):
        best, bj = -np.inf, None
        for i in S:
            v = value_on_support(A, B, [s for s in S if s != i], criterion)
            if bj is None or v > best + 1e-12 * max(1.0, abs(best)):
                best, bj = v, i
        S.remove(bj)
        removed.append(bj)
        obj[len(S) - 1] = best
    removed.append(S[0])
    return np.array(removed), obj


def brute_force_best(A, B, k, criterion="max-eig"):
    p = np.asarray(A).shape[0]
    return max(value_on_support(A, B, list(S), criterion) for S in combinations(range(p), k))


def random_spd(rng, p, cond=1.0):
    W = rng.standard_normal((p, p + 2))
    return W @ W.T / (p + 2) + cond * 0.1 * np.eye(p)


def sample_covariance(rng, p, n):
    """Sample covariance of ``n`` draws with unequal column scales, plus a small ridge."""
    X = rng.standard_normal((n, p)) * rng.uniform(0.2, 3.0, p)
    return X.T @ X / n + 1e-3 * np.eye(p)


def spiked_covariance(rng, p, n, k, strength):
    """Covariance of noise plus one sparse spike on ``k`` planted features (returned)."""
    support = rng.choice(p, k, replace=False)
    u = np.zeros(p)
    u[support] = rng.choice([-1.0, 1.0], k) * rng.uniform(0.5, 1.0, k)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((n, p)) + np.sqrt(strength) * rng.standard_normal((n, 1)) * u
    return np.cov(X, rowvar=False), support


@pytest.fixture
def oracle():
    return SimpleNamespace(
        value=value_on_support, greedy=greedy_oracle, best=brute_force_best, spd=random_spd,
        cov=sample_covariance, spike=spiked_covariance,
    )
