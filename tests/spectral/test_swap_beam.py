"""greedy_path's searches: beam search over the forward pass and swaps at every size.

Oracles: width 1 is the forward pass bit for bit; a beam as wide as the number of supports of
every size is exhaustive, so it reaches the brute-force optimum at every size; every size's value
is the objective recomputed on its support and never below the forward pass's; forced and
excluded features are respected; bad widths and unsupported combinations are refused."""

import itertools

import numpy as np
import pytest

from pixsel.spectral import greedy_path, objective_on_support


def _problem(seed, p, r):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((p + 5, p)) @ (np.eye(p) + 0.7 * rng.standard_normal((p, p)) / np.sqrt(p))
    B = X.T @ X / (p + 5) + 0.05 * np.eye(p)
    return (rng.standard_normal((p, r)) if r else rng.standard_normal(p)), B


@pytest.mark.parametrize("r", [0, 3])
def test_width_one_is_the_forward_pass_bit_for_bit(r):
    A, B = _problem(0, 15, r)
    plain = greedy_path(A, B, criterion="trace", max_k=10)
    one = greedy_path(A, B, criterion="trace", max_k=10, beam_width=1)
    np.testing.assert_array_equal(plain.order, one.order)
    np.testing.assert_array_equal(plain.objective, one.objective)
    assert "supports" not in one.info


@pytest.mark.parametrize("r", [0, 2])
@pytest.mark.parametrize("seed", range(4))
def test_an_exhaustive_beam_reaches_the_optimum_of_every_size(r, seed):
    p = 8
    A, B = _problem(seed, p, r)
    beam = greedy_path(A, B, criterion="trace", max_k=p - 1, beam_width=70)  # C(8, t) <= 70 for all t
    for k in range(1, p):
        best = max(objective_on_support(A, B, list(S), criterion="trace") for S in itertools.combinations(range(p), k))
        assert beam.objective[k - 1] == pytest.approx(best, rel=1e-9)
        assert objective_on_support(A, B, beam.support(k), criterion="trace") == pytest.approx(best, rel=1e-9)


@pytest.mark.parametrize("r", [0, 3])
@pytest.mark.parametrize(("width", "refine"), [(3, False), (1, True), (3, True)])
def test_searched_paths_never_below_the_forward_pass(r, width, refine):
    for seed in range(3):
        A, B = _problem(10 + seed, 20, r)
        fwd = greedy_path(A, B, criterion="trace", max_k=12)
        got = greedy_path(A, B, criterion="trace", max_k=12, beam_width=width, refine=refine)
        assert len(got.objective) == 12
        for k in range(1, 13):
            S = got.support(k)
            assert len(S) == k == len(np.unique(S))
            f = objective_on_support(A, B, S, criterion="trace")
            assert got.objective[k - 1] == pytest.approx(f, rel=1e-9)
            assert f >= fwd.objective[k - 1] * (1 - 1e-12)


def test_refine_every_size_with_max_eig():
    A, B = _problem(3, 14, 3)
    fwd = greedy_path(A, B, criterion="max-eig", max_k=8)
    got = greedy_path(A, B, criterion="max-eig", max_k=8, refine=True)
    for k in range(1, 9):
        f = objective_on_support(A, B, got.support(k), criterion="max-eig")
        assert got.objective[k - 1] == pytest.approx(f, rel=1e-9) and f >= fwd.objective[k - 1] * (1 - 1e-12)


@pytest.mark.parametrize(("width", "refine"), [(4, False), (4, True), (1, True)])
def test_forced_and_excluded_features_in_the_searches(width, refine):
    A, B = _problem(5, 16, 2)
    F, E = [2, 9], [0, 4, 11]
    got = greedy_path(A, B, criterion="trace", max_k=8, beam_width=width, refine=refine, always_select=F,
                      never_select=E)
    assert np.isnan(got.objective[0])
    for k in range(2, 9):
        S = set(got.support(k).tolist())
        assert set(F) <= S and not S & set(E)
        assert got.objective[k - 1] == pytest.approx(
            objective_on_support(A, B, sorted(S), criterion="trace"), rel=1e-9)


def test_bad_searches_are_refused():
    A, B = _problem(6, 10, 2)
    with pytest.raises(ValueError, match="'beam_width' parameter of greedy_path must be an int >= 1"):
        greedy_path(A, B, criterion="trace", max_k=4, beam_width=0)
    with pytest.raises(ValueError, match="direction='forward' with beam_width"):
        greedy_path(A, B, criterion="trace", direction="backward", beam_width=2)
    with pytest.raises(ValueError, match="criterion='trace' or beam_width=1"):
        greedy_path(A, B, criterion="max-eig", max_k=4, beam_width=2)
    with pytest.raises(ValueError, match="'refine' parameter of greedy_path"):
        greedy_path(A, B, criterion="trace", max_k=4, refine=-2)
    with pytest.raises(ValueError, match="both always_select and never_select"):
        greedy_path(A, B, criterion="trace", max_k=4, always_select=[1], never_select=[1, 2])
    with pytest.raises(ValueError, match="fewer than the 5 to select"):
        greedy_path(A, B, criterion="trace", max_k=5, never_select=list(range(6)))


def test_beam_with_a_full_matrix_is_the_beam_with_its_factor():
    M, B = _problem(8, 12, 3)
    full = greedy_path(M @ M.T, B, criterion="trace", max_k=6, beam_width=4)
    factor = greedy_path(M, B, criterion="trace", max_k=6, beam_width=4)
    np.testing.assert_allclose(full.objective, factor.objective, rtol=1e-9)
    for k in range(1, 7):
        np.testing.assert_array_equal(full.support(k), factor.support(k))


@pytest.mark.parametrize("r", [0, 3])
@pytest.mark.parametrize(("width", "refine"), [(3, False), (4, True)])
def test_searches_through_a_gram_operator_are_the_dense_searches(r, width, refine):
    """The implicit form: ``B`` read through its columns gives the supports of the formed matrix."""
    from pixsel.stats import CenteredGramOperator

    rng = np.random.default_rng(11 + r)
    n, p = 30, 40  # fewer samples than features: the ridge makes B positive definite
    X = rng.standard_normal((n, p)) @ (np.eye(p) + 0.6 * rng.standard_normal((p, p)) / np.sqrt(p))
    op = CenteredGramOperator(X, alpha=0.2)
    B = op.columns(np.arange(p))  # the same matrix, formed
    A = rng.standard_normal((p, r)) if r else rng.standard_normal(p)
    dense = greedy_path(A, B, criterion="trace", max_k=8, beam_width=width, refine=refine)
    implicit = greedy_path(A, op, criterion="trace", max_k=8, beam_width=width, refine=refine)
    assert len(implicit.objective) == 8
    np.testing.assert_allclose(implicit.objective, dense.objective, rtol=1e-9)
    for k in range(1, 9):
        np.testing.assert_array_equal(np.sort(implicit.support(k)), np.sort(dense.support(k)))
    assert implicit.weights(8).shape == (p,)  # the operator's path: its weights read the operator


def test_searches_through_a_gram_operator_refuse_what_needs_the_matrix():
    from pixsel.stats import CenteredGramOperator

    rng = np.random.default_rng(4)
    X = rng.standard_normal((20, 12))
    op = CenteredGramOperator(X, alpha=0.1)
    a = rng.standard_normal((12, 2))
    with pytest.raises(ValueError, match="drop always_select and never_select"):
        greedy_path(a, op, criterion="trace", max_k=4, beam_width=2, never_select=[1])
    with pytest.raises(ValueError, match="criterion='trace' or beam_width=1"):
        greedy_path(a, op, criterion="max-eig", max_k=4, beam_width=2)
    with pytest.raises(ValueError, match="needs max_k"):
        greedy_path(a, op, criterion="trace", beam_width=2)


def test_the_beams_top_candidates_are_the_stable_sorts():
    """Each member's ``w`` best additions come from a partition: the first ``w`` of a stable sort
    of all the gains (ties to the lower index), with ties and excluded (-inf) features."""
    from pixsel.spectral.greedy._beam import _top

    rng = np.random.default_rng(0)
    for _ in range(500):
        p = int(rng.integers(1, 40))
        g = rng.integers(-3, 4, p).astype(float)  # many ties
        g[rng.random(p) < 0.2] = -np.inf
        w = int(rng.integers(1, 8))
        np.testing.assert_array_equal(_top(g, w), np.argsort(-g, kind="stable")[:w])


def test_the_beams_sizes_are_reported_after_the_forward_pass():
    """``callback``: the forward pass's steps, then every size the beam reaches, on the dense pair
    and through a Gram operator alike."""
    from pixsel.stats import CenteredGramOperator

    rng = np.random.default_rng(12)
    X = rng.standard_normal((30, 40))
    op = CenteredGramOperator(X, alpha=0.2)
    M = rng.standard_normal((40, 3))
    for B in (op.columns(np.arange(40)), op):
        calls = []
        greedy_path(M, B, criterion="trace", max_k=6, beam_width=3, callback=lambda d, t: calls.append((d, t)))
        assert calls == [(i, 6) for i in range(1, 7)] * 2
