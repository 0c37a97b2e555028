"""Column-subset kernels against brute force, the textbook projection and planted low-rank truth."""

from itertools import combinations

import numpy as np
import pytest

from pixsel.scores._column_subset import column_subset_objective, greedy_column_subset, pivoted_qr_columns


def _kept_mass(A, S):
    """Textbook ``||P_S A||_F^2`` by least squares on the chosen columns."""
    C = A[:, list(S)]
    coef, *_ = np.linalg.lstsq(C, A, rcond=None)
    return float(np.sum((C @ coef) ** 2))


@pytest.mark.parametrize("seed", range(4))
def test_objective_is_the_projection_mass(seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((12, 7))
    for S in ([0], [2, 5], [1, 3, 6]):
        assert column_subset_objective(A.T @ A, S) == pytest.approx(_kept_mass(A, S), rel=1e-10)


@pytest.mark.parametrize("seed", range(6))
def test_greedy_takes_the_best_augmentation_at_every_step(seed):
    """Brute force over every candidate at every step: the kernel's choice is the argmax and its
    objective is the textbook projection mass; at k = 1 that is the brute-force best subset."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((10, 8)) @ np.diag(rng.uniform(0.2, 2.0, 8))
    A[:, 3] = A[:, 0] + 0.5 * A[:, 1]  # a column inside the span of two others
    order, obj = greedy_column_subset(A.T @ A, 6)
    chosen = []
    for t, i in enumerate(order):
        cand = [j for j in range(8) if j not in chosen]
        mass = {j: _kept_mass(A, chosen + [j]) for j in cand}
        best = max(mass.values())
        assert mass[int(i)] == pytest.approx(best, rel=1e-9)
        chosen.append(int(i))
        assert obj[t] == pytest.approx(_kept_mass(A, chosen), rel=1e-9)
    single = max(combinations(range(8), 1), key=lambda S: _kept_mass(A, S))
    assert int(order[0]) == single[0]
    assert np.all(np.diff(obj) >= -1e-9) and obj[-1] <= np.trace(A.T @ A) * (1 + 1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_greedy_near_brute_force_best_subset(seed):
    """On small sizes the greedy subset keeps nearly the mass of the brute-force best subset
    (equal on most draws), and never more than it."""
    rng = np.random.default_rng(10 + seed)
    A = rng.standard_normal((9, 3)) @ rng.standard_normal((3, 9)) + 0.3 * rng.standard_normal((9, 9))
    G = A.T @ A
    for k in (2, 3):
        order, obj = greedy_column_subset(G, k)
        best = max(_kept_mass(A, S) for S in combinations(range(9), k))
        assert obj[-1] <= best * (1 + 1e-9)
        assert obj[-1] >= 0.9 * best


@pytest.mark.parametrize("seed", range(4))
def test_planted_low_rank_recovered_exactly(seed):
    """A = C W with C of r independent columns planted among p: both methods keep all of A with r
    columns (zero residual), and the greedy one picks r columns that span the planted C."""
    rng = np.random.default_rng(seed)
    n, p, r = 30, 20, 4
    C = rng.standard_normal((n, r))
    A = C @ rng.standard_normal((r, p))
    total = float(np.sum(A**2))
    order, obj = greedy_column_subset(A.T @ A, r)
    assert obj[-1] == pytest.approx(total, rel=1e-8)
    assert _kept_mass(A, order) == pytest.approx(total, rel=1e-8)
    piv = pivoted_qr_columns(A, r)
    assert _kept_mass(A, piv) == pytest.approx(total, rel=1e-8)
    # beyond the rank nothing is left: the kernel fills by lowest index without gain
    order, obj = greedy_column_subset(A.T @ A, r + 2)
    assert len(set(order.tolist())) == r + 2 and obj[-1] == pytest.approx(total, rel=1e-8)


def test_pivoted_qr_is_the_largest_residual_rule():
    """Textbook pivoting: each pivot is the column of largest norm after projecting out the
    previous pivots (computed here by least squares)."""
    rng = np.random.default_rng(3)
    A = rng.standard_normal((15, 9)) * rng.uniform(0.1, 3.0, 9)
    piv = pivoted_qr_columns(A, 5)
    chosen = []
    for i in piv:
        if chosen:
            C = A[:, chosen]
            R = A - C @ np.linalg.lstsq(C, A, rcond=None)[0]
        else:
            R = A
        norms = np.sum(R**2, axis=0)
        norms[chosen] = -1
        assert int(i) == int(np.argmax(norms))
        chosen.append(int(i))


def test_inputs_not_modified_and_ties_to_lowest_index():
    A = np.eye(4)
    G = A.T @ A
    G0 = G.copy()
    order, obj = greedy_column_subset(G, 2)
    assert order.tolist() == [0, 1] and np.array_equal(G, G0)
    assert obj.tolist() == [1.0, 2.0]
