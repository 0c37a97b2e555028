"""Path helpers and sparse components (spectral/_path.py, spectral/_components.py)."""

import itertools

import numpy as np
import pytest

from pixsel.spectral import (
    SparsePath,
    best_objective,
    greedy_path,
    greedy_sparse_component,
    leading_component,
    pick_path,
    weights_on_support,
)


def _path(obj, direction):
    obj = np.asarray(obj, dtype=float)
    return SparsePath(order=np.arange(len(obj)), objective=obj, direction=direction, A=np.eye(len(obj)))


def test_pick_path_prefers_larger_ties_backward_and_skips_short_paths():
    f, b = _path([3.0, 2.0, 1.0], "forward"), _path([1.0, 2.0, 5.0], "backward")
    assert pick_path(f, b, 1) is f
    assert pick_path(f, b, 2) is b  # tie -> backward
    assert pick_path(f, None, 2) is f and pick_path(None, b, 2) is b
    short = _path([3.0], "forward")
    assert pick_path(short, b, 2) is b


def test_best_objective_is_elementwise_max_as_long_as_the_longest():
    f, b = _path([3.0], "forward"), _path([1.0, 2.0, 5.0], "backward")
    np.testing.assert_array_equal(best_objective(f, b), [3.0, 2.0, 5.0])
    np.testing.assert_array_equal(best_objective(None, b), [1.0, 2.0, 5.0])


def test_leading_component_is_the_top_eigenpair_on_the_support():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 7))
    C = np.cov(X, rowvar=False)
    S = np.array([1, 4, 5])
    lam, v = leading_component(C, S)
    w, U = np.linalg.eigh(C[np.ix_(S, S)])
    assert lam == pytest.approx(w[-1], rel=1e-12)
    assert np.count_nonzero(v) == 3 and np.all(v[[0, 2, 3, 6]] == 0)
    assert np.linalg.norm(v) == pytest.approx(1.0)
    np.testing.assert_allclose(C[np.ix_(S, S)] @ v[S], lam * v[S], atol=1e-12)
    assert v[S][np.argmax(np.abs(v[S]))] > 0  # sign convention


@pytest.mark.parametrize("direction", ["forward", "backward", "dual"])
def test_greedy_sparse_component_is_the_better_greedy_support(direction):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 6)) @ rng.normal(size=(6, 6))
    C = np.cov(X, rowvar=False)
    k = 3
    fwd, bwd, best, variance, comp = greedy_sparse_component(C, k, direction)
    assert (fwd is None) == (direction == "backward") and (bwd is None) == (direction == "forward")
    S = best.support(k)
    assert variance == pytest.approx(np.linalg.eigvalsh(C[np.ix_(S, S)])[-1], rel=1e-12)
    # never worse than the forward greedy, never better than brute force over all supports
    f = greedy_path(C, direction="forward", form="full", max_k=k, certificate=None).objective[k - 1]
    top = max(np.linalg.eigvalsh(C[np.ix_(T, T)])[-1] for T in map(list, itertools.combinations(range(6), k)))
    assert variance <= top * (1 + 1e-12)
    if direction != "backward":
        assert variance >= f * (1 - 1e-12)
    np.testing.assert_array_equal(np.flatnonzero(comp), np.sort(S))


@pytest.mark.parametrize("form", ["vector", "factor", "full"])
def test_weights_on_support_accepts_arrays_of_another_library(form):
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(7)
    p = 6
    R = rng.normal(size=(p, p))
    B = R @ R.T + p * np.eye(p)
    A = {"vector": rng.normal(size=p), "factor": rng.normal(size=(p, 2)), "full": np.cov(rng.normal(size=(20, p)).T)}[form]
    S = [0, 2, 5]
    want = weights_on_support(A, B, S)
    got = weights_on_support(xps.asarray(A), xps.asarray(B), S)
    assert type(got) is type(xps.asarray(B)) and got.shape == (p,)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)


def test_weights_on_support_vector_solves_or_falls_back_to_the_pseudo_inverse():
    """The two-class discriminant: ``B_SS^{-1} a_S`` (a textbook solve) for a positive definite
    block, the minimum-norm least squares solution for a singular one; zero off the support."""
    rng = np.random.default_rng(3)
    p = 7
    R = rng.normal(size=(p, p))
    B = R @ R.T + np.eye(p)
    a = rng.normal(size=p)
    S = np.array([1, 3, 4, 6])
    z = weights_on_support(a, B, S)
    np.testing.assert_allclose(z[S], np.linalg.solve(B[np.ix_(S, S)], a[S]), rtol=1e-12)
    assert not z[np.setdiff1d(np.arange(p), S)].any()
    Bs = B.copy()
    Bs[:, 4] = Bs[:, 3]  # columns and rows 3 and 4 equal: B_SS singular
    Bs[4, :] = Bs[3, :]
    z = weights_on_support(a, Bs, S)
    np.testing.assert_allclose(z[S], np.linalg.pinv(Bs[np.ix_(S, S)]) @ a[S], rtol=1e-8, atol=1e-10)
