"""The criterion objects: values against textbook formulas, incremental steps against values,
bounds against brute force, the name mapping, and a new criterion run by the existing searches."""

from itertools import combinations, product

import numpy as np
import pytest

from pixsel.scores import column_subset_objective, greedy_column_subset
from pixsel.spectral import exact_path, exact_support, greedy_path
from pixsel.spectral._criteria import (
    CRITERIA,
    ColumnSubset,
    Correlation,
    Criterion,
    MaxEig,
    SparsePCA,
    Trace,
    TwoClassLDA,
    as_criterion,
    criterion_named,
)
from pixsel.spectral.bounds import certify, inclusion_bounds


def _spd(rng, p, n=None):
    X = rng.standard_normal((n or 3 * p, p))
    return X.T @ X / len(X) + 0.1 * np.eye(p)


def _supports(p, sizes=None):
    for k in sizes or range(1, p + 1):
        yield from combinations(range(p), k)


def _gen_eigs(A_S, B_S):
    """Textbook: the eigenvalues of B_S^{-1} A_S (real for symmetric A_S, SPD B_S), ascending."""
    return np.sort(np.linalg.eigvals(np.linalg.inv(B_S) @ A_S).real)


@pytest.fixture
def problem():
    rng = np.random.default_rng(3)
    p, r = 6, 3
    M = rng.standard_normal((p, r))
    A = rng.standard_normal((p, p))
    return M, (A + A.T) / 2, _spd(rng, p), rng.standard_normal(p), _spd(rng, p)


# -- values against textbook formulas ------------------------------------------------------------


def test_max_eig_and_trace_values_on_every_support(problem):
    M, A, B, _, _ = problem
    for S in _supports(len(B)):
        ix = np.ix_(S, S)
        for AA in (A, M @ M.T):
            w = _gen_eigs(AA[ix], B[ix])
            assert MaxEig().value(AA, B, S) == pytest.approx(w[-1], rel=1e-10, abs=1e-12)
            assert Trace().value(AA, B, S) == pytest.approx(np.trace(np.linalg.inv(B[ix]) @ AA[ix]), rel=1e-10,
                                                            abs=1e-12)
        # the factor is read as A = M M^T
        assert MaxEig().value(M, B, S) == pytest.approx(MaxEig().value(M @ M.T, B, S), rel=1e-10)
        assert Trace().value(M, B, S) == pytest.approx(Trace().value(M @ M.T, B, S), rel=1e-10)


def test_two_class_lda_value_is_the_textbook_ratio_and_both_criteria(problem):
    _, _, B, a, _ = problem
    crit = TwoClassLDA()
    for S in _supports(len(a)):
        S = list(S)
        textbook = a[S] @ np.linalg.inv(B[np.ix_(S, S)]) @ a[S]
        assert crit.value(a, B, S) == pytest.approx(textbook, rel=1e-10)
        assert MaxEig().value(np.outer(a, a), B, S) == pytest.approx(textbook, rel=1e-8)
        assert Trace().value(np.outer(a, a), B, S) == pytest.approx(textbook, rel=1e-8)
    assert crit.additive and crit.largest_eigenvalue and crit.monotone
    with pytest.raises(ValueError, match="needs the vector a"):
        crit.value(np.eye(3), None, [0])


def test_sparse_pca_value_is_the_largest_eigenvalue_of_the_block(problem):
    _, _, _, _, C = problem
    for S in _supports(len(C)):
        assert SparsePCA().value(C, None, S) == pytest.approx(np.linalg.eigvalsh(C[np.ix_(S, S)])[-1], rel=1e-12)
    assert SparsePCA().value(C, np.eye(len(C)), [0, 2]) == SparsePCA().value(C, None, [0, 2])
    with pytest.raises(ValueError, match="B=None"):
        SparsePCA().value(C, C, [0])


def test_sparse_pca_runs_the_searches_of_the_largest_eigenvalue(problem):
    _, _, _, _, C = problem
    crit = SparsePCA()
    A, B, form = crit.pair(C)
    for direction in ("forward", "backward"):
        path = greedy_path(A, B, direction=direction, criterion=crit, form=form)
        ref = greedy_path(C, direction=direction, criterion="max-eig")
        assert np.array_equal(path.order, ref.order) and np.array_equal(path.objective, ref.objective)
        assert path.info["criterion"] == "spca"
    for k in (2, 4):
        best = max(crit.value(C, None, S) for S in combinations(range(len(C)), k))
        res = exact_support(A, B, k, criterion=crit)
        assert res.status == "optimal" and res.criterion == "spca"
        assert res.objective == pytest.approx(best, rel=1e-9)


def test_column_subset_value_is_the_explained_variance(problem):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 6)) @ rng.standard_normal((6, 6))
    X -= X.mean(axis=0)
    C = X.T @ X / len(X)
    crit = ColumnSubset()
    A, B, form = crit.pair(C)
    assert form == "full"
    for S in _supports(6):
        S = list(S)
        textbook = np.trace(C[:, S] @ np.linalg.inv(C[np.ix_(S, S)]) @ C[S, :])
        # the variance of X that the least-squares fit on the chosen columns explains
        P = X[:, S] @ np.linalg.pinv(X[:, S])
        explained = np.sum((P @ X) ** 2) / len(X)
        assert crit.objective(C, S) == pytest.approx(textbook, rel=1e-9)
        assert explained == pytest.approx(textbook, rel=1e-8)
        assert crit.value(A, B, S) == pytest.approx(textbook, rel=1e-8)
        assert column_subset_objective(C, S) == pytest.approx(textbook, rel=1e-8)
    assert crit.objective(C, []) == 0.0 and crit.value(A, B, []) == 0.0


def _labelled(seed=0, n=60, p=6, C=4):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(C), n // C)
    X = rng.standard_normal((C, p))[y] + rng.standard_normal((n, p)) @ rng.standard_normal((p, p))
    return X, y


@pytest.mark.parametrize("C", [2, 4])
def test_correlation_value_is_the_sum_of_the_squared_canonical_correlations(C):
    """Oracle: the canonical correlations between X_S and the one-hot labels, as the singular
    values of Q_X^T Q_Y (orthonormal bases of the centered blocks, Bjorck and Golub 1973)."""
    X, y = _labelled(C=C)
    n = len(X)
    Xc = X - X.mean(axis=0)
    T = Xc.T @ Xc / n  # total covariance
    classes, counts = np.unique(y, return_counts=True)
    D = np.stack([X[y == c].mean(axis=0) - X.mean(axis=0) for c in classes], axis=1)
    M = D * np.sqrt(counts / n)  # between covariance M M^T
    W = T - M @ M.T  # within covariance
    Y = (y[:, None] == classes[None, :]).astype(float)
    Qy = np.linalg.qr(Y - Y.mean(axis=0))[0][:, : C - 1]
    crit = Correlation()
    forms = [M, M @ M.T]
    if C == 2:  # a vector a with a a^T the between covariance
        forms.append((X[y == 1].mean(axis=0) - X[y == 0].mean(axis=0)) * np.sqrt(counts.prod()) / n)
    for A in forms:
        Ap, Bp, form = crit.pair(A, W)
        assert form is None and Ap is A  # the form stays the kernels' to read
        np.testing.assert_allclose(Bp, T, rtol=1e-12, atol=1e-12)
    for S in _supports(6):
        S = list(S)
        rho = np.linalg.svd(np.linalg.qr(Xc[:, S])[0].T @ Qy, compute_uv=False)
        for A in forms:
            assert crit.value(*crit.pair(A, W)[:2], S) == pytest.approx(np.sum(rho**2), rel=1e-9)
            assert crit.objective(A, W, S) == pytest.approx(np.sum(rho**2), rel=1e-9)
        # each eigenvalue lambda of (A_SS, W_SS) counts as lambda / (1 + lambda)
        lam = _gen_eigs((M @ M.T)[np.ix_(S, S)], W[np.ix_(S, S)])
        assert np.sum(lam / (1 + lam)) == pytest.approx(np.sum(rho**2), rel=1e-8)
    assert crit.additive and crit.monotone and crit.needs_dense_pair and not crit.largest_eigenvalue
    with pytest.raises(ValueError, match="pass B"):
        crit.pair(M)


def test_correlation_on_the_total_gram_operator_is_the_trace():
    """implicit_on_total: the trace searched on the Gram operator of X about its overall mean (what
    the implicit route reaches through X) is the correlation criterion of the labelled pair; with
    a ridge, (B + lam I) + A on both sides."""
    from pixsel.stats import CenteredGramOperator

    X, y = _labelled(2, n=80, p=7, C=4)
    within = CenteredGramOperator(X, y)
    M = within.class_means.between_factor
    W = within.submatrix(np.arange(7))
    crit = Correlation()
    assert crit.implicit_on_total == "trace"
    lam = 0.3
    T = CenteredGramOperator(X).with_alpha(lam)  # y=None: centred at the overall mean
    np.testing.assert_allclose(T.submatrix(np.arange(7)), crit.pair(M, W + lam * np.eye(7))[1], rtol=1e-12,
                               atol=1e-12)
    trace = criterion_named(crit.implicit_on_total)
    for S in _supports(7, [1, 3, 5]):
        S = list(S)
        assert trace.value(M, T.submatrix(np.arange(7)), S) == pytest.approx(
            crit.objective(M, W + lam * np.eye(7), S), rel=1e-10)
    assert criterion_named("trace").implicit_on_total is None


def test_correlation_runs_the_searches_of_the_trace():
    """The greedy path, the swaps and the exact search on the pair Correlation.pair gives; the
    exact optimum is the brute-force one."""
    X, y = _labelled(1, n=80, p=7, C=4)
    Xc = X - X.mean(axis=0)
    classes, counts = np.unique(y, return_counts=True)
    M = np.stack([X[y == c].mean(axis=0) - X.mean(axis=0) for c in classes], axis=1) * np.sqrt(counts / len(X))
    W = Xc.T @ Xc / len(X) - M @ M.T
    crit = Correlation()
    A, B, _ = crit.pair(M, W)
    path = greedy_path(A, B, direction="forward", criterion=crit)
    assert path.info["criterion"] == "correlation"
    for k in range(1, 8):
        S = path.order[:k]
        assert path.objective[k - 1] == pytest.approx(crit.objective(M, W, S), rel=1e-9)
        best = max(crit.objective(M, W, T) for T in _supports(7, [k]))
        res = exact_support(A, B, k, criterion=crit)
        assert res.status == "optimal" and res.criterion == "correlation"
        assert res.objective == pytest.approx(best, rel=1e-9)
        assert path.objective[k - 1] <= best * (1 + 1e-12)
        assert certify(path).upper_bound[k - 1] >= best * (1 - 1e-9)  # a bound never below the optimum


def test_reductions_agree(problem):
    M, A, B, _, _ = problem
    rng = np.random.default_rng(1)
    K = rng.standard_normal((4, 3, 3))
    K = K + np.swapaxes(K, 1, 2)
    for crit in (MaxEig(), Trace(), SparsePCA(), ColumnSubset(), TwoClassLDA()):
        for G in K:
            w = np.linalg.eigvalsh(G)
            ref = w.sum() if crit.additive else w[-1]
            assert crit.of_matrix(G) == pytest.approx(ref, rel=1e-12)
            assert crit.of_eigenvalues(w) == pytest.approx(ref, rel=1e-12)
        assert np.allclose(crit.of_stack(K), [crit.of_matrix(G) for G in K], rtol=1e-12)


# -- the incremental steps against value differences ---------------------------------------------


def _factor_state(M, B, S):
    """The factor form's state on support S: G, the candidates' whitened rows and pivots."""
    S = list(S)
    R = [j for j in range(len(B)) if j not in S]
    BSS_inv = np.linalg.inv(B[np.ix_(S, S)])
    G = M[S].T @ BSS_inv @ M[S]
    Uc = M[R] - B[np.ix_(R, S)] @ BSS_inv @ M[S]
    dc = np.diag(B)[R] - np.einsum("ij,jk,ik->i", B[np.ix_(R, S)], BSS_inv, B[np.ix_(R, S)])
    W = BSS_inv @ M[S]
    return (G + G.T) / 2, Uc, dc, W, np.diag(BSS_inv), R


@pytest.mark.parametrize("crit", [MaxEig(), Trace(), ColumnSubset()], ids=repr)
@pytest.mark.parametrize("r", [1, 3])
def test_gains_and_losses_match_the_values(problem, crit, r):
    M, _, B, _, _ = problem
    M = M[:, :r]
    p = len(B)
    for S in _supports(p, sizes=[1, 2, 4]):
        G, Uc, dc, W, Pd, R = _factor_state(M, B, S)
        f = crit.value(M, B, S)
        want_add = [crit.value(M, B, sorted([*S, j])) for j in R]
        for method in ("auto", "eigh"):
            vals, _ = crit.gains(Uc, dc, G, f, method=method)
            vals = np.asarray(vals)
            if crit.largest_eigenvalue and r > 1:  # screened: -inf cannot win
                keep = np.isfinite(vals)
                assert vals.max() == pytest.approx(max(want_add), rel=1e-9)
                assert np.allclose(vals[keep], np.array(want_add)[keep], rtol=1e-9)
            else:
                assert np.allclose(vals, want_add, rtol=1e-9, atol=1e-12)
        want_drop = [crit.value(M, B, [i for i in S if i != j]) for j in S]
        assert np.allclose(crit.losses(W, Pd, G), want_drop, rtol=1e-8, atol=1e-10)


# -- bounds --------------------------------------------------------------------------------------


@pytest.mark.parametrize("crit", [MaxEig(), Trace()], ids=repr)
def test_inclusion_bounds_never_below_the_brute_force_optimum(problem, crit):
    M, A, B, _, C = problem
    for AA, BB in ((M @ M.T, B), (C, None), (A, B)):
        if crit.additive and np.linalg.eigvalsh(AA)[0] < 0:
            continue  # the trace of an indefinite pair has no inclusion bound
        gen = np.sort(_gen_eigs(AA, np.eye(len(AA)) if BB is None else BB))
        ub = crit.inclusion_bounds(gen)
        ub_public = inclusion_bounds(AA, BB, criterion=crit.name, form="full")
        for k in range(1, len(AA) + 1):
            best = max(crit.value(AA, BB, S) for S in combinations(range(len(AA)), k))
            assert ub[k - 1] >= best - 1e-9
            assert ub_public[k - 1] >= best - 1e-9


# -- the mapping from names ----------------------------------------------------------------------


def test_as_criterion_maps_names_objects_and_classes():
    assert set(CRITERIA) == {"max-eig", "trace"}
    assert as_criterion("max-eig") == MaxEig() and as_criterion("trace") == Trace()
    obj = ColumnSubset()
    assert as_criterion(obj) is obj
    assert as_criterion(SparsePCA) == SparsePCA()
    assert criterion_named("column-subset") == ColumnSubset() and criterion_named("trace") == Trace()
    assert criterion_named("correlation") == Correlation() and "correlation" not in CRITERIA
    assert MaxEig() != SparsePCA() and len({MaxEig(), MaxEig(), Trace()}) == 2


@pytest.mark.parametrize("bad", ["max_eig", "spca", None, 3, "Trace"])
def test_as_criterion_errors(bad):
    msg = f"The 'criterion' parameter of greedy_path must be one of {{'max-eig', 'trace'}}. Got {bad!r} instead."
    with pytest.raises(ValueError) as exc:
        as_criterion(bad, owner="greedy_path")
    assert str(exc.value) == msg
    with pytest.raises(ValueError) as exc:
        greedy_path(np.eye(3), criterion=bad)
    assert str(exc.value) == msg
    with pytest.raises(ValueError, match=r"^The 'criterion' parameter must be one of"):
        as_criterion(bad)


def test_a_bare_criterion_has_no_spectrum():
    with pytest.raises(NotImplementedError):
        Criterion().of_eigenvalues(np.ones(2))
    with pytest.raises(NotImplementedError):
        Criterion().inclusion_bounds(np.ones(2))


# -- the kernels take the object -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["max-eig", "trace"])
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_kernels_take_the_object_as_the_name(problem, name, direction):
    M, A, B, a, C = problem
    for AA, BB in ((M, B), (C, None), (C, B), (a, B)):
        by_name = greedy_path(AA, BB, direction=direction, criterion=name)
        by_obj = greedy_path(AA, BB, direction=direction, criterion=as_criterion(name))
        assert np.array_equal(by_name.order, by_obj.order)
        assert np.array_equal(by_name.objective, by_obj.objective)
        assert by_obj.info["criterion"] == name


# -- a new criterion through the existing machinery ----------------------------------------------


@pytest.fixture
def covariance():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((50, 8)) @ rng.standard_normal((8, 8)) + 0.3 * rng.standard_normal((50, 8))
    X -= X.mean(axis=0)
    return X.T @ X / len(X)


def test_column_subset_greedy_paths(covariance):
    C = covariance
    crit = ColumnSubset()
    A, B, form = crit.pair(C)
    best = {k: max(crit.objective(C, S) for S in combinations(range(8), k)) for k in range(1, 9)}
    for direction, (AA, ff) in product(("forward", "backward"), ((A, form), (C, "factor"))):
        path = greedy_path(AA, B, direction=direction, criterion=crit, form=ff)
        assert path.info["criterion"] == "column-subset"
        for k in range(1, 9):
            value = crit.objective(C, path.support(k))
            assert path.objective[k - 1] == pytest.approx(value, rel=1e-8)
            assert value <= best[k] * (1 + 1e-12)
        assert path.objective[-1] == pytest.approx(np.trace(C), rel=1e-10)  # all columns explain all
    # the forward path is the greedy column-subset method (Farahat, Ghodsi and Kamel)
    order, objective = greedy_column_subset(C, 8)
    for AA, ff in ((A, form), (C, "factor")):
        forward = greedy_path(AA, B, criterion=crit, form=ff)
        assert forward.order.tolist() == order.tolist()
        assert np.allclose(forward.objective, objective, rtol=1e-9)
    # its certified bounds hold
    certify(forward, dual=False)
    assert np.all(forward.upper_bound >= np.array([best[k] for k in range(1, 9)]) - 1e-9)


def test_column_subset_exact_search(covariance):
    C = covariance
    crit = ColumnSubset()
    for k in (2, 3, 5):
        best = max(crit.objective(C, S) for S in combinations(range(8), k))
        res = exact_support(C @ C, C, k, criterion="trace")  # the full form of the same pair
        assert res.status == "optimal"
        assert res.objective == pytest.approx(best, rel=1e-9)
        assert crit.objective(C, res.support) == pytest.approx(best, rel=1e-9)
        A, B, _ = crit.pair(C)
        res_obj = exact_support(A, B, k, criterion=crit)
        assert res_obj.criterion == "column-subset"
        assert res_obj.objective == pytest.approx(best, rel=1e-9)
    every = exact_path(*crit.pair(C)[:2], criterion=crit)
    for k in range(1, 9):
        best = max(crit.objective(C, S) for S in combinations(range(8), k))
        assert every.objective[k - 1] == pytest.approx(best, rel=1e-9)


def test_column_subset_swap_refinement(covariance):
    """The swaps take the column-subset criterion as it is: never below the support they start
    from, the value they report is the criterion's on their support, and they end at a 1-swap
    local optimum (checked against every single exchange)."""
    from pixsel.spectral import swap_refine

    C = covariance
    crit = ColumnSubset()
    A, B, _ = crit.pair(C)
    for k in (2, 3, 4):
        for start in ([0, 1, 2, 3][:k], list(range(8 - k, 8))):
            res = swap_refine(A, B, start, criterion=crit)
            assert res.objective >= crit.objective(C, start) - 1e-12
            assert res.objective == pytest.approx(crit.objective(C, res.support), rel=1e-9)
            S = set(res.support.tolist())
            for i in S:
                for j in set(range(8)) - S:
                    assert crit.objective(C, sorted(S - {i} | {j})) <= res.objective * (1 + 1e-9)


class _TopTwo(Criterion):
    """A criterion defined by its spectrum alone: the sum of the two largest eigenvalues."""

    name = "test-top-two"

    def of_eigenvalues(self, vals, xp=np):
        return vals[-2:].sum(axis=0)


def _greedy_by_values(crit, M, B, direction):
    """Textbook greedy: every step evaluates every candidate support from scratch (ties: lowest)."""
    p = len(B)
    S = [] if direction == "forward" else list(range(p))
    order, objective = [], []
    if direction == "backward":
        objective.append(crit.value(M, B, S))
    for _ in range(p if direction == "forward" else p - 1):
        cand = [j for j in range(p) if (j not in S) == (direction == "forward")]
        vals = [crit.value(M, B, sorted([*S, j]) if direction == "forward" else [i for i in S if i != j])
                for j in cand]
        j = cand[int(np.argmax(vals))]
        order.append(j)
        objective.append(max(vals))
        S = sorted([*S, j]) if direction == "forward" else [i for i in S if i != j]
    if direction == "backward":
        order.append(S[0])
        return order, objective[::-1]
    return order, objective


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_a_new_criterion_is_one_class_for_the_factor_form_greedy_path(problem, direction):
    M, _, B, _, _ = problem
    crit = _TopTwo()
    S = [0, 2, 3]
    assert crit.value(M, B, S) == pytest.approx(_gen_eigs((M @ M.T)[np.ix_(S, S)], B[np.ix_(S, S)])[-2:].sum())
    path = greedy_path(M, B, direction=direction, criterion=crit, form="factor")
    order, objective = _greedy_by_values(crit, M, B, direction)
    assert path.order.tolist() == order
    assert np.allclose(path.objective, objective, rtol=1e-9)
    assert path.info["criterion"] == "test-top-two"


def test_kernels_without_its_update_refuse_a_new_criterion(problem):
    M, A, B, _, _ = problem
    with pytest.raises(ValueError, match="fullrank_greedy_path computes additive criteria and the largest"):
        greedy_path(M @ M.T, B, criterion=_TopTwo(), form="full")
    with pytest.raises(ValueError, match="exact_support computes additive criteria"):
        exact_support(M, B, 2, criterion=_TopTwo())
