"""exact_support against a brute-force enumeration oracle, limits, certificates, validation.

The paper's baseline (plain_search) and the ablation options are in test_plain_search.py."""

import itertools
import math

import numpy as np
import pytest

from pixsel.spectral import (
    ExactResult,
    exact_support,
    greedy_path,
    objective_on_support,
)
from pixsel.spectral.exact._result import tighten_path_bound


def _value(A, B, S, criterion):
    """Textbook objective from scratch: eigenvalues of the pair on S (not the solver's code)."""
    S = list(S)
    Bs = B[np.ix_(S, S)]
    if A.ndim == 1:
        As = np.outer(A[S], A[S])
    elif A.shape[0] != A.shape[1]:
        As = A[S] @ A[S].T
    else:
        As = A[np.ix_(S, S)]
    L = np.linalg.cholesky(Bs)
    Li = np.linalg.inv(L)
    vals = np.linalg.eigvalsh(Li @ As @ Li.T)
    return float(vals.sum() if criterion == "trace" else vals[-1])


def brute_force(A, B, k, criterion):
    p = len(B)
    return max(_value(A, B, S, criterion) for S in itertools.combinations(range(p), k))


def _pair(rng, p, form, rank=None):
    """A random problem of the given form; B is a random SPD matrix or None (identity)."""
    if rng.random() < 0.25:
        B = None
    else:
        X = rng.standard_normal((p + 2, p))
        B = X.T @ X / (p + 2) + 0.05 * np.eye(p)
    if form == "vector":
        A = rng.standard_normal(p)
    elif form == "factor":
        A = rng.standard_normal((p, rank or int(rng.integers(1, max(2, p // 2)))))
    elif form == "psd":
        Y = rng.standard_normal((p, p))
        A = Y @ Y.T / p
    else:  # symmetric indefinite
        Y = rng.standard_normal((p, p))
        A = (Y + Y.T) / 2
    return A, B


CASES = [
    ("vector", "max-eig"),
    ("factor", "max-eig"),
    ("factor", "trace"),
    ("psd", "max-eig"),
    ("psd", "trace"),
    ("indefinite", "max-eig"),
]


@pytest.mark.parametrize("form,criterion", CASES)
def test_matches_enumeration(form, criterion):
    """~60 random pairs per case (360 in all), p <= 10: status optimal and the enumeration optimum."""
    rng = np.random.default_rng(hash((form, criterion)) % 2**32)
    for _ in range(60):
        p = int(rng.integers(3, 11))
        k = int(rng.integers(1, p + 1))
        A, B = _pair(rng, p, form)
        Bf = np.eye(p) if B is None else B
        res = exact_support(A, B, k, criterion=criterion)
        best = brute_force(A, Bf, k, criterion)
        assert res.status == "optimal"
        assert len(res.support) == k and len(set(res.support.tolist())) == k
        assert res.objective == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert _value(A, Bf, res.support, criterion) == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert res.upper_bound >= best - 1e-9 * abs(best)
        assert res.gap <= 1e-9 * max(1.0, abs(best))


@pytest.mark.slow
@pytest.mark.parametrize("form,criterion", [("vector", "max-eig"), ("factor", "trace"), ("psd", "max-eig")])
def test_matches_enumeration_p14(form, criterion):
    """The largest size of the oracle (p = 13, 14), mid-range k (the most candidates)."""
    rng = np.random.default_rng(14)
    for p in (13, 14):
        k = p // 2
        A, B = _pair(rng, p, form, rank=3)
        res = exact_support(A, B, k, criterion=criterion)
        best = brute_force(A, np.eye(p) if B is None else B, k, criterion)
        assert res.status == "optimal"
        assert res.objective == pytest.approx(best, rel=1e-9)


def test_vector_is_best_subset_regression():
    """Binary LDA = best-subset least squares: f = R^2 / (1 - R^2) with T = B + a a^T."""
    rng = np.random.default_rng(3)
    n, p, k = 80, 9, 4
    X = rng.standard_normal((n, p)) @ rng.standard_normal((p, p))
    y = rng.integers(0, 2, n).astype(float)
    X[y == 1, :3] += 1.0
    Xc, yc = X - X.mean(0), y - y.mean()
    best_r2 = -1.0
    for S in itertools.combinations(range(p), k):
        beta = np.linalg.lstsq(Xc[:, S], yc, rcond=None)[0]
        r2 = 1 - np.sum((yc - Xc[:, S] @ beta) ** 2) / np.sum(yc**2)
        best_r2 = max(best_r2, r2)
    pi1 = y.mean()
    m1, m0 = X[y == 1].mean(0), X[y == 0].mean(0)
    a = m1 - m0
    T = Xc.T @ Xc / n
    B = T - pi1 * (1 - pi1) * np.outer(a, a)  # within-class covariance
    res = exact_support(np.sqrt(pi1 * (1 - pi1)) * a, B, k)
    assert res.objective / (1 + res.objective) == pytest.approx(best_r2, rel=1e-9)


@pytest.mark.parametrize("form,criterion", [("vector", "max-eig"), ("factor", "max-eig"), ("psd", "max-eig")])
def test_stopped_bound_never_below_optimum(form, criterion):
    rng = np.random.default_rng(7)
    for _trial in range(12):
        p = 12
        k = int(rng.integers(3, 10))
        A, B = _pair(rng, p, form, rank=3)
        best = brute_force(A, np.eye(p) if B is None else B, k, criterion)
        for limit in (0, 1, 3):
            res = exact_support(A, B, k, criterion=criterion, node_limit=limit)
            assert res.n_nodes <= limit
            assert res.status in ("node_limit", "optimal")
            assert res.upper_bound >= best * (1 - 1e-9) - 1e-12
            assert res.objective <= best * (1 + 1e-9) + 1e-12
            assert res.gap == pytest.approx(res.upper_bound - res.objective, abs=1e-12)


@pytest.mark.parametrize("with_B", [False, True], ids=["sparse-pca", "pair"])
def test_a_search_stopped_before_its_root_reports_the_root_bound(with_B):
    """Stopped before its first node, a full-matrix search reports the bound known at the root
    (the root's inclusion bound lambda_max(A) / lambda_min(B), or the SDP dual bound where smaller),
    not an unbounded gap; never below the brute-force optimum."""
    rng = np.random.default_rng(3)
    p, k = 10, 4
    X = np.cumsum(rng.standard_normal((30, p)), axis=1)
    A = X.T @ X / 30
    B = np.eye(p) + 0.3 * np.diag(rng.random(p)) if with_B else None
    Bf = np.eye(p) if B is None else B
    best = brute_force(A, Bf, k, "max-eig")
    for bounds in ("cardinality", "sdp"):
        res = exact_support(A, B, k, time_limit=0.0, bounds=bounds)
        assert res.status == "time_limit" and res.n_nodes <= 1  # the tick that stopped it
        top = np.linalg.eigvalsh(A)[-1] / np.linalg.eigvalsh(Bf)[0]
        assert best * (1 - 1e-9) <= res.upper_bound <= top * (1 + 1e-12)


def test_node_limit_status_and_time_limit():
    rng = np.random.default_rng(11)
    p, k = 30, 15
    X = rng.standard_normal((40, p))
    X = np.cumsum(X, axis=1)  # Brownian-type columns: a hard, correlated B
    B = X.T @ X / 40 + 1e-3 * np.eye(p)
    a = rng.standard_normal(p)
    res = exact_support(a, B, k, node_limit=2)
    assert res.status == "node_limit" and res.n_nodes == 2
    assert res.upper_bound > res.objective
    res = exact_support(a, B, k, time_limit=0.0)
    assert res.status == "time_limit"
    assert res.time < 5.0
    assert res.upper_bound >= res.objective


def test_gap_tol():
    rng = np.random.default_rng(5)
    for _ in range(10):
        A, B = _pair(rng, 12, "psd")
        best = brute_force(A, np.eye(12) if B is None else B, 6, "max-eig")
        res = exact_support(A, B, 6, gap_tol=0.05)
        assert res.status in ("optimal", "gap_reached")
        assert res.objective >= best / 1.05 - 1e-12
        assert res.upper_bound >= best * (1 - 1e-9)
        assert res.upper_bound <= res.objective * 1.05 + 1e-9


def test_interrupt_returns_certified_result(monkeypatch):
    """Ctrl-C inside the search returns the incumbent with a valid bound, status 'interrupted'."""
    import pixsel.spectral.exact._search as mod

    rng = np.random.default_rng(2)
    A, B = _pair(rng, 12, "vector")
    best = brute_force(A, np.eye(12) if B is None else B, 6, "max-eig")
    original = mod.Search.tick

    def tick(self):
        original(self)
        if self.n_nodes >= 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(mod.Search, "tick", tick)
    res = exact_support(A, B, 6)
    assert res.status in ("interrupted", "optimal")
    assert res.upper_bound >= best * (1 - 1e-9)
    assert res.objective == pytest.approx(objective_on_support(A, B, res.support))


def test_limit_cases():
    rng = np.random.default_rng(4)
    A, B = _pair(rng, 8, "psd")
    B = B if B is not None else np.eye(8)
    # k = p is the unconstrained generalized eigenproblem
    res = exact_support(A, B, 8)
    L = np.linalg.inv(np.linalg.cholesky(B))
    assert res.objective == pytest.approx(np.linalg.eigvalsh(L @ A @ L.T)[-1], rel=1e-10)
    # k = 1 is the best single ratio A_ii / B_ii
    res = exact_support(A, B, 1)
    assert res.support.tolist() == [int(np.argmax(np.diag(A) / np.diag(B)))]
    # B = None is sparse PCA
    res = exact_support(A, None, 3)
    assert res.objective == pytest.approx(brute_force(A, np.eye(8), 3, "max-eig"), rel=1e-10)


def test_weights_and_planted_support():
    """A planted discriminant on 3 of 12 independent variables is recovered exactly."""
    p = 12
    a = np.zeros(p)
    a[[2, 5, 9]] = [3.0, -2.0, 2.5]
    a += 0.01 * np.random.default_rng(0).standard_normal(p)
    res = exact_support(a, np.eye(p), 3)
    assert res.support.tolist() == [2, 5, 9]
    assert np.count_nonzero(res.weights) == 3
    np.testing.assert_allclose(res.weights[[2, 5, 9]], a[[2, 5, 9]], rtol=1e-12)


def test_initial_and_float32_and_no_mutation():
    rng = np.random.default_rng(8)
    A, B = _pair(rng, 10, "factor", rank=2)
    B = np.eye(10) if B is None else B
    A0, B0 = A.copy(), B.copy()
    ref = exact_support(A, B, 4)
    res = exact_support(A, B, 4, initial=ref.support)
    assert res.support.tolist() == ref.support.tolist()
    res32 = exact_support(A.astype(np.float32), B.astype(np.float32), 4)
    assert res32.support.tolist() == ref.support.tolist()
    np.testing.assert_array_equal(A, A0)
    np.testing.assert_array_equal(B, B0)
    assert isinstance(ref, ExactResult) and ref.certified and ref.relative_gap == 0.0


def test_tighten_path_bound():
    rng = np.random.default_rng(12)
    a, B = _pair(rng, 12, "vector")
    B = np.eye(12) if B is None else B
    path = greedy_path(a, B, direction="forward")
    res = exact_support(a, B, 6, node_limit=1)
    tight = tighten_path_bound(path, res)
    before = np.full(12, np.inf) if path.upper_bound is None else path.upper_bound.copy()
    assert tight.upper_bound[5] == pytest.approx(max(min(res.upper_bound, before[5]), path.objective[5]))
    assert np.array_equal(np.delete(tight.upper_bound, 5), np.delete(before, 5))  # other k untouched
    assert np.array_equal(np.full(12, np.inf) if path.upper_bound is None else path.upper_bound, before)  # input unmodified
    done = tighten_path_bound(tight, exact_support(a, B, 6))
    assert done.upper_bound[5] == pytest.approx(brute_force(a, B, 6, "max-eig"), rel=1e-9)
    assert done.gap[5] >= -1e-9


def test_callback_receives_read_only_states_ending_with_the_certificate(capsys):
    rng = np.random.default_rng(1)
    A, B = _pair(rng, 12, "full")
    states = []
    res = exact_support(A, B, 6, callback=states.append)
    assert res.status == "optimal" and states
    last = states[-1]
    assert last.nodes == res.n_nodes and last.elapsed >= 0
    assert last.incumbent == pytest.approx(res.objective, rel=1e-9)
    assert last.gap == pytest.approx(last.bound - last.incumbent)
    with pytest.raises(AttributeError):
        last.nodes = 0  # frozen
    assert capsys.readouterr().err == ""  # the kernel itself prints nothing


def test_tqdm_callback_from_progress_module():
    from pixsel._progress import search_progress

    rng = np.random.default_rng(1)
    A, B = _pair(rng, 8, "vector")
    with search_progress(True, delay=0.0, terminal=True) as callback:
        res = exact_support(A, B, 4, callback=callback)
        assert callback.bar.n == res.n_nodes
    assert res.status == "optimal"


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(A=np.ones(4), B=-np.eye(4), k=2), "positive definite"),
        (dict(A=np.ones(4), B=np.eye(3), k=2), r"shape \(4, 4\)"),
        (dict(A=np.ones(4), B=None, k=5), "'k' parameter"),
        (dict(A=np.ones((4, 4)) - 2 * np.eye(4), B=None, k=2, criterion="trace"), "positive semi-definite"),
        (dict(A=np.ones(4), B=None, k=2, criterion="sum"), "'criterion' parameter"),
        (dict(A=np.ones(4), B=None, k=2, initial=[0, 0]), "distinct indices"),
        (dict(A=np.array([1.0, np.nan]), B=None, k=1), "NaN"),
        (dict(A=np.ones(4), B=None, k=2, time_limit=-1.0), "'time_limit' parameter"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        exact_support(**kwargs)


def test_relative_gap_property():
    r = ExactResult(np.array([0]), 2.0, np.zeros(1), 3.0, 1.0, 1, 0.0, "node_limit")
    assert r.relative_gap == 0.5 and not r.certified
    r = ExactResult(np.array([0]), 0.0, np.zeros(1), 1.0, 1.0, 1, 0.0, "node_limit")
    assert math.isinf(r.relative_gap)
