"""The compiled multiclass steps: secular roots against eigensolvers, paths against the reference."""


import numpy as np
import pytest

from pixsel.spectral.greedy import _multiclass, _multiclass_jit
from pixsel.spectral.greedy._multiclass import multiclass_greedy_path
from pixsel.spectral.greedy._multiclass_jit import top_eig_added, top_eig_removed


@pytest.mark.parametrize("seed", range(6))
def test_top_eig_added_matches_eigvalsh(seed):
    rng = np.random.default_rng(seed)
    r, n = int(rng.integers(2, 9)), 40
    G = rng.standard_normal((r, r + 1))
    G = G @ G.T
    if seed % 2:  # rank deficient (an early step: |S| < r) with a repeated eigenvalue
        G = G - np.linalg.eigh(G)[1][:, :2] @ np.diag(np.linalg.eigh(G)[0][:2]) @ np.linalg.eigh(G)[1][:, :2].T
    theta, V = np.linalg.eigh(G)
    U = rng.standard_normal((n, r))
    U[0] = 0.0  # adds nothing
    U[1] = V[:, -1] * 0.3  # along the top eigenvector only
    dc = rng.uniform(0.5, 2.0, n)
    vals, n_solved = top_eig_added(theta, np.ascontiguousarray(U @ V), dc, -np.inf)
    ref = np.linalg.eigvalsh(G[None] + (U / np.sqrt(dc)[:, None])[:, :, None] * (U / np.sqrt(dc)[:, None])[:, None, :])[:, -1]
    best = int(np.argmax(ref))
    assert vals[best] == pytest.approx(ref[best], rel=1e-12)
    assert int(np.argmax(vals)) == best
    solved = np.isfinite(vals)
    np.testing.assert_allclose(vals[solved], ref[solved], rtol=1e-11)
    assert np.all(ref[~solved] < ref[best])  # ruled out: certified below the best
    assert 1 <= n_solved <= n


@pytest.mark.parametrize("seed", range(6))
def test_top_eig_removed_matches_eigvalsh(seed):
    rng = np.random.default_rng(10 + seed)
    r, n = int(rng.integers(1, 9)), 40
    F = rng.standard_normal((r, r + 2))
    G = F @ F.T
    theta, V = np.linalg.eigh(G)
    # rows w with G - w w^T >= 0 (as in the backward path): w = G^{1/2} x with |x| <= 1
    X = rng.standard_normal((n, r))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(1.0, 3.0, (n, 1))
    X[0] = V[:, -1] * 0.0
    Wr = X @ (V * np.sqrt(theta)) @ V.T
    dc = np.ones(n)
    vals = top_eig_removed(theta, np.ascontiguousarray(Wr @ V), dc)
    ref = np.linalg.eigvalsh(G[None] - Wr[:, :, None] * Wr[:, None, :])[:, -1]
    np.testing.assert_allclose(vals, ref, rtol=1e-10, atol=1e-12 * theta[-1])


def _problem(seed):
    rng = np.random.default_rng(seed)
    p, r = int(rng.integers(4, 30)), int(rng.integers(2, 7))
    M = rng.standard_normal((p, r)) * rng.uniform(0.1, 2.0, r)
    if seed % 4 == 0:
        M[:, -1] = M[:, 0]  # rank below r
    W = rng.standard_normal((p, p + 3))
    return M, W @ W.T / (p + 3) + 0.1 * np.eye(p)


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_same_paths_as_the_eigh_reference(direction, criterion, monkeypatch):
    """Same orders (ties by lowest index) and objectives as one eigensolve per candidate (the
    compiled loops at every size: the trace's small backward passes otherwise run NumPy)."""
    monkeypatch.setattr(_multiclass, "_NUMPY_TRACE_BACKWARD_MAX", 0)
    for seed in range(40):
        M, B = _problem(seed)
        fast = multiclass_greedy_path(M, B, direction=direction, criterion=criterion)
        ref = multiclass_greedy_path(M, B, direction=direction, criterion=criterion, method="eigh")
        np.testing.assert_array_equal(fast.order, ref.order, err_msg=f"seed {seed}")
        np.testing.assert_allclose(fast.objective, ref.objective, rtol=1e-10, err_msg=f"seed {seed}")


def test_screening_rules_out_most_candidates():
    rng = np.random.default_rng(0)
    p, r = 120, 9
    M = rng.standard_normal((p, r))
    W = rng.standard_normal((p, 2 * p))
    B = W @ W.T / (2 * p) + 0.1 * np.eye(p)
    for direction in ("forward", "backward"):
        path = multiclass_greedy_path(M, B, direction=direction)
        assert path.info["n_secular"] < p * p / 10  # far below one solve per candidate and step


def test_ties_go_to_the_lowest_index():
    M = np.zeros((6, 3))
    M[[1, 4], 0] = 1.0  # two identical features, and duplicates of a second one
    M[[2, 5], 1] = 0.5
    for direction in ("forward", "backward"):
        fast = multiclass_greedy_path(M, np.eye(6), direction=direction)
        ref = multiclass_greedy_path(M, np.eye(6), direction=direction, method="eigh")
        np.testing.assert_array_equal(fast.order, ref.order)


def test_same_path_on_faces(shared_data):
    """Real data (38 people, the first 120 pixels of a 4 x 4 downsample): same orders."""
    from pixsel.stats import class_statistics, regularize

    d = shared_data("extyaleb_32x32.npz")  # PIXSEL_DATA, or the shared folder beside the checkout
    X = d["X"].reshape(-1, 32, 32)[:, ::2, ::2].reshape(len(d["X"]), -1)[:, :120].astype(np.float64)
    st = class_statistics(X, d["y"])
    B, _ = regularize(st.within, "auto", X=X, y=d["y"], means=st.means, classes=st.classes)
    for direction in ("forward", "backward"):
        fast = multiclass_greedy_path(st.between_factor, B, direction=direction)
        ref = multiclass_greedy_path(st.between_factor, B, direction=direction, method="eigh")
        np.testing.assert_array_equal(fast.order, ref.order)


@pytest.mark.parametrize("method", ["auto", "eigh"])
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_callback_reports_every_step_and_keeps_the_path(direction, method):
    M, B = _problem(3)
    p = M.shape[0]
    seen = []
    path = multiclass_greedy_path(M, B, direction=direction, method=method,
                                  callback=lambda done, total: seen.append((done, total)))
    plain = multiclass_greedy_path(M, B, direction=direction, method=method)
    np.testing.assert_array_equal(path.order, plain.order)
    assert seen and all(t == p for _, t in seen)
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] in (p - 1, p)


def test_small_trace_backward_runs_numpy_and_large_the_compiled_loop(monkeypatch):
    """Up to _NUMPY_TRACE_BACKWARD_MAX features the trace's backward pass never calls the compiled
    loop (no Numba compilation on a first fit); above it, it does; the path is the same."""
    calls = []
    compiled = _multiclass_jit.backward_path

    def counting(*args):
        calls.append(1)
        return compiled(*args)

    monkeypatch.setattr(_multiclass_jit, "backward_path", counting)
    M, B = _problem(3)
    small = multiclass_greedy_path(M, B, direction="backward", criterion="trace")
    assert not calls
    monkeypatch.setattr(_multiclass, "_NUMPY_TRACE_BACKWARD_MAX", 0)
    large = multiclass_greedy_path(M, B, direction="backward", criterion="trace")
    assert calls
    np.testing.assert_array_equal(small.order, large.order)
    np.testing.assert_allclose(small.objective, large.objective, rtol=1e-10)
