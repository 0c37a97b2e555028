"""Forced features (``always_select``) on the path selectors and ``greedy_path``: brute-force oracles."""

import numpy as np
import pytest

from pixsel.selection import SparseLDASelector, SparsePCASelector
from pixsel.spectral import greedy_path, objective_on_support


def _problem(form, seed, p=8):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, p))
    B = X.T @ X / 40 + 0.1 * np.eye(p)
    if form == "vector":
        A = rng.standard_normal(p)
    elif form == "factor":
        A = rng.standard_normal((p, 3))
    else:
        M = rng.standard_normal((p, p))
        A = M @ M.T
    return A, B


def _brute_forward(A, B, F, criterion):
    """Forced greedy by evaluating every candidate from scratch (ties: lowest index)."""
    S, objs = list(F), []
    while len(S) < A.shape[0]:
        cand = [j for j in range(A.shape[0]) if j not in S]
        vals = [objective_on_support(A, B, S + [j], criterion=criterion) for j in cand]
        S.append(cand[int(np.argmax(vals))])
        objs.append(max(vals))
    return S, objs


def _brute_backward(A, B, F, criterion):
    S, removed, objs = list(range(A.shape[0])), [], {}
    while len(S) > len(F):
        cand = [j for j in S if j not in F]
        vals = [objective_on_support(A, B, [s for s in S if s != j], criterion=criterion) for j in cand]
        j = cand[int(np.argmax(vals))]
        removed.append(j)
        S.remove(j)
        objs[len(S)] = max(vals)
    return removed, objs


CASES = [("vector", "trace"), ("factor", "trace"), ("full", "trace"), ("factor", "max-eig"), ("full", "max-eig")]


@pytest.mark.parametrize("form,criterion", CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_forward_matches_brute_force(form, criterion, seed):
    A, B = _problem(form, seed)
    F = [5, 1] if seed != 2 else [3]
    path = greedy_path(A, B, criterion=criterion, always_select=F)
    order, objs = _brute_forward(A, B, sorted(F), criterion)
    assert path.order.tolist() == order
    np.testing.assert_allclose(path.objective[len(F):], objs, rtol=1e-9)
    np.testing.assert_allclose(path.objective[len(F) - 1],
                               objective_on_support(A, B, F, criterion=criterion), rtol=1e-10)
    assert np.isnan(path.objective[: len(F) - 1]).all()
    for k in range(len(F), A.shape[0] + 1):
        assert set(F) <= set(path.support(k).tolist())


@pytest.mark.parametrize("form", ["vector", "factor", "full"])
def test_backward_matches_brute_force(form):
    A, B = _problem(form, 3)
    F = [0, 6]
    path = greedy_path(A, B, criterion="trace", direction="backward", always_select=F)
    removed, objs = _brute_backward(A, B, F, "trace")
    p = A.shape[0]
    assert path.order[: p - len(F)].tolist() == removed
    np.testing.assert_allclose([path.objective[k - 1] for k in range(len(F) + 1, p)],
                               [objs[k] for k in range(len(F) + 1, p)], rtol=1e-9)
    for k in range(len(F), p + 1):
        assert set(F) <= set(path.support(k).tolist())


def test_max_k_counts_forced_and_max_eig_backward_refused():
    A, B = _problem("factor", 4)
    path = greedy_path(A, B, criterion="max-eig", always_select=[2], max_k=3)
    assert len(path.order) == 3 and path.order[0] == 2
    with pytest.raises(ValueError, match="direction='forward'"):
        greedy_path(A, B, criterion="max-eig", direction="backward", always_select=[2])


def _data(n_classes, seed=0, p=10):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), 20)
    X = rng.standard_normal((len(y), p)) + 0.8 * rng.standard_normal((n_classes, p))[y]
    return X, y


@pytest.mark.parametrize("n_classes,criterion,direction",
                         [(2, "trace", "dual"), (3, "trace", "dual"), (3, "trace", "backward"),
                          (3, "max-eig", "forward")])
def test_lda_selector_supports_contain_forced(n_classes, criterion, direction):
    X, y = _data(n_classes)
    F = [7, 2]
    sel = SparseLDASelector(4, criterion=criterion, direction=direction, always_select=F, path="full").fit(X, y)
    assert set(F) <= set(sel.get_support(indices=True).tolist())
    assert sel.always_select_.tolist() == [2, 7]
    for k in range(2, X.shape[1] + 1):
        assert set(F) <= set(sel.get_support_at(k, indices=True).tolist())
    S = sel.get_support(indices=True)
    if direction == "forward":  # the forced features enter first
        assert sorted(sel.ranking_[F].tolist()) == [1, 2]
    assert np.isfinite(sel.objective_path_[3]) and np.isnan(sel.objective_path_[0])
    assert len(S) == 4
    for small in (1, np.int64(1)):
        with pytest.raises(ValueError, match="k >= 2"):
            sel.get_support_at(small)


def test_lda_forward_path_matches_brute_force():
    X, y = _data(3, seed=5)
    sel = SparseLDASelector(5, always_select=[4], path="full").fit(X, y)
    ref = SparseLDASelector(5, path="full").fit(X, y)
    a, B = ref.forward_path_.A, ref.forward_path_.B
    order, objs = _brute_forward(a, B, [4], "trace")
    assert sel.forward_path_.order.tolist() == order
    np.testing.assert_allclose(sel.objective_path_[1:], objs, rtol=1e-8)


@pytest.mark.parametrize("Est,n_classes", [(SparseLDASelector, 2), (SparseLDASelector, 3), (SparsePCASelector, 0)])
@pytest.mark.parametrize("F", [None, []])
def test_empty_forced_is_todays_fit(Est, n_classes, F):
    X, y = _data(max(n_classes, 2))
    y = y if n_classes else None
    base = Est(4, direction="dual").fit(X, y)
    sel = Est(4, direction="dual", always_select=F).fit(X, y)
    np.testing.assert_array_equal(sel.support_, base.support_)
    np.testing.assert_array_equal(sel.objective_path_, base.objective_path_)
    np.testing.assert_array_equal(sel.forward_path_.order, base.forward_path_.order)
    assert sel.always_select_.size == 0


def test_spca_forced_forward_matches_brute_force():
    X, _ = _data(2, seed=7)
    sel = SparsePCASelector(5, always_select=[0, 9]).fit(X)
    C = np.cov(X, rowvar=False)
    order, objs = _brute_forward(C, None, [0, 9], "max-eig")
    assert sel.forward_path_.order.tolist() == order[:5]
    np.testing.assert_allclose(sel.objective_path_[2:], objs[:3], rtol=1e-9)
    assert set([0, 9]) <= set(sel.get_support(indices=True).tolist())
    np.testing.assert_allclose(sel.explained_variance_, objs[2], rtol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(sel.components_), 1.0)
    assert not sel.components_[0, ~sel.support_].any()


@pytest.mark.parametrize("params,match", [
    (dict(always_select=[11]), "outside"),
    (dict(always_select=[-1]), "outside"),
    (dict(always_select=[1, 1]), "repeats"),
    (dict(always_select=[0.5]), "integer"),
    (dict(always_select=[0, 1, 2], n_features_to_select=2), "at least 3"),
    (dict(always_select=[0], stability=3), "stability=None"),
    (dict(always_select=[0], algorithm="implicit"), "algorithm='dense'"),
    (dict(always_select=[0], groups=np.arange(10) // 2), "without groups"),
    (dict(always_select=[0], criterion="max-eig", direction="dual"), "direction='forward'"),
])
def test_lda_errors_say_the_fix(params, match):
    X, y = _data(3)
    params = {"n_features_to_select": 4, **params}
    with pytest.raises(ValueError, match=match):
        SparseLDASelector(**params).fit(X, y)


@pytest.mark.parametrize("params", [dict(direction="dual"), dict(certificate=True)])
def test_spca_refuses_backward_and_certificate(params):
    X, _ = _data(2)
    with pytest.raises(ValueError, match="direction='forward'"):
        SparsePCASelector(3, always_select=[1], **params).fit(X)


def test_k_equal_to_forced_selects_exactly_them():
    X, y = _data(3)
    sel = SparseLDASelector(3, direction="dual", always_select=[9, 0, 4]).fit(X, y)
    assert sel.get_support(indices=True).tolist() == [0, 4, 9]
    np.testing.assert_allclose(sel.objective_path_[2], objective_on_support(
        sel.forward_path_.A, sel.forward_path_.B, [0, 4, 9], criterion="trace"), rtol=1e-10)
    every = SparsePCASelector(10, always_select=np.arange(10)).fit(X)
    assert every.support_.all()


@pytest.mark.parametrize("n_classes,criterion", [(2, "auto"), (3, "trace"), (3, "auto"), (3, "max-eig")])
def test_lda_exact_is_the_best_support_with_the_forced_features(n_classes, criterion):
    """solver='exact' with always_select: the certified support is the best of the supports of size
    k that contain the forced features (each valued by the same selector with all k forced, the
    greedy then has nothing to choose), and here it is not the unconstrained optimum."""
    from itertools import combinations

    rng = np.random.default_rng(n_classes)
    X = rng.standard_normal((90, 8))
    y = np.arange(90) % n_classes
    X[y == 1, :3] += 0.8
    X[y == n_classes - 1, 5] -= 0.7
    kw = dict(criterion=criterion, algorithm="dense", refine=False)
    sel = SparseLDASelector(3, solver="exact", always_select=[6], **kw).fit(X, y)
    S = sel.get_support(indices=True)
    assert sel.status_ == "optimal" and 6 in S
    values = {T: SparseLDASelector(3, always_select=[6, *T], **kw).fit(X, y).objective_path_[2]
              for T in combinations([j for j in range(8) if j != 6], 2)}
    best = max(values.values())
    np.testing.assert_allclose(sel.objective_path_[2], best, rtol=1e-9)  # (the path's entry at k = 3)
    np.testing.assert_allclose(values[tuple(j for j in S if j != 6)], best, rtol=1e-9)
    assert sel.upper_bound_ >= best * (1 - 1e-12)
    free = SparseLDASelector(3, solver="exact", **kw).fit(X, y)
    assert 6 not in free.get_support(indices=True) and free.objective_path_[2] > best


def test_spca_exact_is_the_best_support_with_the_forced_features():
    """SparsePCASelector(solver='exact', always_select=F): the certified support is the brute-force
    best of the supports of size k that contain F (largest eigenvalue of the covariance block), and
    here not the unconstrained optimum."""
    from itertools import combinations

    X, _ = _data(4)
    p = X.shape[1]
    C = np.cov(X.T)

    def lam(S):
        return float(np.linalg.eigvalsh(C[np.ix_(S, S)])[-1])

    free_best = max(combinations(range(p), 3), key=lambda S: lam(list(S)))
    F = [j for j in range(p) if j not in free_best][:1]
    sel = SparsePCASelector(3, solver="exact", always_select=F, refine=False).fit(X)
    S = sel.get_support(indices=True)
    best = max(lam([*F, *T]) for T in combinations([j for j in range(p) if j not in F], 2))
    assert sel.status_ == "optimal" and F[0] in S
    np.testing.assert_allclose(lam(list(S)), best, rtol=1e-9)
    np.testing.assert_allclose(sel.explained_variance_, best, rtol=1e-9)
    assert sel.upper_bound_ >= best * (1 - 1e-12) and best < lam(list(free_best))
