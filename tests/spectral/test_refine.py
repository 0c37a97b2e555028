import numpy as np
import pytest

from pixsel.spectral import greedy_path
from pixsel.spectral._refine import refine_support


@pytest.mark.parametrize("seed", range(4))
def test_never_worse_same_size_and_exact_value(oracle, seed):
    rng = np.random.default_rng(seed)
    p = 10
    A = np.cov(rng.standard_normal((30, p)) @ (np.eye(p) + 0.6 * rng.standard_normal((p, p))), rowvar=False)
    path = greedy_path(A, form="full")
    for k in (2, 4, 7):
        start = rng.choice(p, k, replace=False)
        S, value, info = refine_support(A, start)
        assert len(S) == k and len(set(S)) == k
        assert value == pytest.approx(oracle.value(A, None, S), rel=1e-12)
        assert value >= oracle.value(A, None, start) * (1 - 1e-12)
        S2, v2, _ = refine_support(A, path.support(k))
        assert v2 >= path.objective[k - 1] * (1 - 1e-12)
        assert v2 <= oracle.best(A, None, k) * (1 + 1e-12)


def test_swap_escapes_a_bad_start():
    A = np.array([[1.0, 0.9, 0.0, 0.0], [0.9, 1.0, 0.0, 0.0], [0.0, 0.0, 1.5, 0.0], [0.0, 0.0, 0.0, 0.1]])
    S, value, info = refine_support(A, [1, 3])
    assert S.tolist() == [0, 1] and value == pytest.approx(1.9)
