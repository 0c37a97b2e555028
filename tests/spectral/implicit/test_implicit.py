import numpy as np
import pytest

from pixsel.spectral import greedy_path
from pixsel._routes import implicit_pays
from pixsel.spectral.implicit._implicit import implicit_greedy_path
from pixsel.stats import CenteredGramOperator, class_statistics


def _lda(X, y, max_k, alpha, criterion="max-eig"):
    B = CenteredGramOperator(X, y, alpha=alpha)
    cm = B.class_means
    return implicit_greedy_path(cm.between if cm.n_classes == 2 else cm.between_factor, B,
                                max_k=max_k, criterion=criterion)


def _data(rng, n=30, p=80, C=2, dtype=np.float64):
    y = np.arange(n) % C
    X = rng.standard_normal((n, p)) + 0.3 * rng.standard_normal((1, p))
    X[:, :5] += 1.5 * y[:, None] * rng.standard_normal(5)
    return X.astype(dtype), y


@pytest.mark.parametrize("C", [2, 4])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_lda_matches_dense_forward(C, criterion):
    rng = np.random.default_rng(C)
    X, y = _data(rng, C=C)
    X0 = X.copy()
    alpha = 0.05
    imp = _lda(X, y, 25, alpha, criterion)
    st = class_statistics(X, y)
    B = st.within + alpha * np.eye(X.shape[1])
    A = st.between if C == 2 else st.between_factor
    dense = greedy_path(A, B, criterion=criterion, max_k=25)
    np.testing.assert_array_equal(imp.order, dense.order)
    np.testing.assert_allclose(imp.objective, dense.objective, rtol=1e-8)
    np.testing.assert_array_equal(X, X0)
    w = imp.weights(5)
    np.testing.assert_allclose(np.abs(w), np.abs(dense.weights(5)) / np.linalg.norm(dense.weights(5)) * np.linalg.norm(w), rtol=1e-6, atol=1e-10)


def test_pca_matches_dense_forward():
    rng = np.random.default_rng(5)
    X, _ = _data(rng, n=25, p=60)
    imp = implicit_greedy_path(CenteredGramOperator(X), max_k=20)
    A = np.cov(X, rowvar=False, bias=True)
    dense = greedy_path(A, max_k=20)
    np.testing.assert_array_equal(imp.order, dense.order)
    np.testing.assert_allclose(imp.objective, dense.objective, rtol=1e-9)
    z = imp.weights(4)
    assert z @ A @ z == pytest.approx(dense.objective[3], rel=1e-9)


def test_float32_data_same_order():
    rng = np.random.default_rng(7)
    X, y = _data(rng, n=40, p=100)
    o64 = _lda(X, y, 10, 0.1).order
    o32 = _lda(X.astype(np.float32), y, 10, 0.1).order
    np.testing.assert_array_equal(o32, o64)


def test_rule_and_errors():
    assert implicit_pays(100, 10000)[0] and not implicit_pays(20000, 10000)[0]  # the one rule: pixsel._routes
    X = np.ones((4, 6))
    with pytest.raises(ValueError, match="max_k"):
        implicit_greedy_path(CenteredGramOperator(X), max_k=7)
    with pytest.raises(ValueError, match="max_k"):
        implicit_greedy_path(np.ones(6), CenteredGramOperator(X, alpha=1.0), max_k=7)
    with pytest.raises(TypeError, match="CenteredGramOperator"):
        implicit_greedy_path(X.T @ X, max_k=2)  # a dense matrix goes to greedy_path
    with pytest.raises(ValueError, match="must match"):
        implicit_greedy_path(np.ones(5), CenteredGramOperator(X, alpha=1.0), max_k=2)


@pytest.mark.parametrize("C", [None, 2, 3])
def test_implicit_paths_carry_certified_bounds(oracle, C):
    rng = np.random.default_rng(11)
    X, y = _data(rng, n=20, p=9, C=C or 2)
    if C is None:
        path = implicit_greedy_path(CenteredGramOperator(X), max_k=5)
    else:
        path = _lda(X, y, 5, 0.1)
    if C is None:
        A, B = np.cov(X, rowvar=False, bias=True), None
    else:
        st = class_statistics(X, y)
        A, B = (st.between if C == 2 else st.between_factor), st.within + 0.1 * np.eye(9)
    for k in range(1, 6):
        assert path.upper_bound[k - 1] >= oracle.best(A, B, k) * (1 - 1e-12)


# ----------------------------------------------------------- issue 12/15: float64 accumulation,
# ----------------------------------------------------------- multiclass cost, blocking, Dask

from pixsel.spectral.implicit._implicit import top_eig_rank_one


def _bounds(theta, W):
    return theta[-1] + W[:, -1] ** 2, theta[-1] + (W**2).sum(axis=1)


@pytest.mark.parametrize("case", ["random", "zero", "repeated", "no-top-component"])
def test_top_eig_rank_one_equals_eigvalsh(case):
    rng = np.random.default_rng(3)
    r = 6
    theta = np.sort(rng.exponential(size=r)) * 5
    W = rng.standard_normal((40, r))
    if case == "zero":  # G = 0 at the first step: lambda = |w|^2
        theta = np.zeros(r)
    elif case == "repeated":
        theta[-3:] = theta[-1]
    elif case == "no-top-component":
        W[:, -1] = 0.0
    lam = top_eig_rank_one(theta, W, *_bounds(theta, W))
    ref = [np.linalg.eigvalsh(np.diag(theta) + np.outer(w, w))[-1] for w in W]
    np.testing.assert_allclose(lam, ref, rtol=1e-13, atol=1e-13 * max(ref))


def test_top_eig_rank_one_pruned_keeps_the_maximum():
    rng = np.random.default_rng(4)
    theta = np.sort(rng.exponential(size=9))
    W = rng.standard_normal((300, 9)) * rng.exponential(size=(300, 1))
    lo, hi = _bounds(theta, W)
    exact = top_eig_rank_one(theta, W, lo, hi)
    pruned = top_eig_rank_one(theta, W, lo, hi, prune=True)
    assert np.argmax(pruned) == np.argmax(exact)
    assert pruned.max() == pytest.approx(exact.max(), rel=1e-14)
    assert np.all(pruned <= exact * (1 + 1e-14)) and np.all(pruned >= lo)


@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_many_classes_match_dense_forward(criterion):
    # r = 7: the screening by the two-pole bounds and the secular equation decide every step
    rng = np.random.default_rng(8)
    X, y = _data(rng, n=64, p=90, C=8)
    imp = _lda(X, y, 40, 0.02, criterion)
    st = class_statistics(X, y)
    dense = greedy_path(st.between_factor, st.within + 0.02 * np.eye(90), criterion=criterion, max_k=40)
    np.testing.assert_array_equal(imp.order, dense.order)
    np.testing.assert_allclose(imp.objective, dense.objective, rtol=1e-9)


@pytest.mark.parametrize("C", [2, 5])
def test_blocking_changes_passes_not_the_path(C):
    rng = np.random.default_rng(9)
    X, y = _data(rng, n=50, p=120, C=C)
    paths = {b: _lda(X, y, 30, 0.05) if b is None else
             implicit_greedy_path(*_lda_args(X, y, 0.05), max_k=30, block_size=b) for b in (None, 1, 4, 64)}
    for _b, path in paths.items():
        np.testing.assert_array_equal(path.order, paths[1].order)
        np.testing.assert_allclose(path.objective, paths[1].objective, rtol=1e-13)  # gemv vs gemm
    assert paths[1].info["n_column_passes"] == 30  # one pass per selected feature
    assert paths[64].info["n_column_passes"] < 30
    assert paths[64].info["n_column_passes"] + paths[64].info["n_column_hits"] == 30


def test_a_short_pass_reads_no_column_it_cannot_use():
    # 3 steps with blocks of 64: the passes read at most the columns of the steps left
    rng = np.random.default_rng(9)
    X, y = _data(rng, n=50, p=120, C=2)
    a, B = _lda_args(X, y, 0.05)
    read = []
    columns = B.columns
    B.columns = lambda idx: read.append(len(np.atleast_1d(idx))) or columns(idx)
    short = implicit_greedy_path(a, B, max_k=3, block_size=64)
    assert read and sum(read) <= 3
    whole = implicit_greedy_path(*_lda_args(X, y, 0.05), max_k=30, block_size=64)
    np.testing.assert_array_equal(short.order, whole.order[:3])
    np.testing.assert_allclose(short.objective, whole.objective[:3], rtol=1e-12)


def _lda_args(X, y, alpha):
    B = CenteredGramOperator(X, y, alpha=alpha)
    cm = B.class_means
    return (cm.between if cm.n_classes == 2 else cm.between_factor), B


class _Float32Accumulation(CenteredGramOperator):
    """The former operator: products accumulated in X's float32 (what the float64 policy fixes)."""

    def columns(self, idx):
        idx = np.asarray(idx)
        XS = (self.X[:, idx] - self.means[:, idx][self.codes]).astype(self.X.dtype)
        cols = (self.X.T @ XS).astype(np.float64) / self.n
        cols[idx, np.arange(len(idx))] += self.alpha
        return cols


@pytest.mark.parametrize("C", [2, 4])
def test_float32_data_give_the_float64_path(C):
    # N = 60 < p = 150, a small ridge, k up to 55: the Schur pivots get small, which is where a
    # float32 accumulation drifts (the control below shows it would fail this test)
    rng = np.random.default_rng(12)
    X64, y = _data(rng, n=60, p=150, C=C)
    X64 = (X64 + 4.0).astype(np.float32).astype(np.float64)  # exactly representable in float32
    X32 = X64.astype(np.float32)
    p64 = _lda(X64, y, 55, 1e-4)
    p32 = _lda(X32, y, 55, 1e-4)
    np.testing.assert_array_equal(p32.order, p64.order)
    np.testing.assert_allclose(p32.objective, p64.objective, rtol=1e-10)
    a, B = _lda_args(X32, y, 1e-4)
    B32 = _Float32Accumulation(X32, y, alpha=1e-4)
    drift = implicit_greedy_path(a, B32, max_k=55).objective
    assert np.max(np.abs(drift / p64.objective - 1)) > 1e-6


def test_operator_counts_passes_and_dask_chunks_agree():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(13)
    X, y = _data(rng, n=45, p=70, C=3, dtype=np.float32)
    ref = _lda(X, y, 20, 0.05)
    B = CenteredGramOperator(da.from_array(X, chunks=(10, 70)), y, alpha=0.05)
    assert B.n_passes == 1  # the class means
    path = implicit_greedy_path(B.class_means.between_factor, B, max_k=20, block_size=8)
    np.testing.assert_array_equal(path.order, ref.order)
    np.testing.assert_allclose(path.objective, ref.objective, rtol=1e-10)
    assert B.n_passes == 2 + path.info["n_column_passes"]  # + the diagonal
    np.testing.assert_allclose(path.weights(6), ref.weights(6), rtol=1e-8, atol=1e-12)
    G = CenteredGramOperator(X, y, alpha=0.05, block_bytes=8 * 45 * 7)  # tiles of 7 columns
    np.testing.assert_allclose(G.columns([3, 69, 0]), B.columns([3, 69, 0]), rtol=1e-12)
    np.testing.assert_allclose(G.diag(), B.diag(), rtol=1e-12)


def test_operator_nan_in_a_dask_chunk_named_at_its_global_row():
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(0).standard_normal((30, 6))
    X[17, 4] = np.nan
    with pytest.raises(ValueError, match="17"):
        CenteredGramOperator(da.from_array(X, chunks=(10, 6)), np.arange(30) % 2)
    with pytest.raises(ValueError, match="No samples of class"):
        CenteredGramOperator(X[:4], [0, 0, 0, 0], classes=[0, 1])


def _small_int_images(dtype, rng, n, p, C):
    y = np.arange(n) % C
    if dtype == np.bool_:
        X = rng.random((n, p)) < 0.3 + 0.2 * (y[:, None] == 1) * (np.arange(p) < 4)
    elif dtype == np.int8:
        X = (rng.integers(-100, 100, (n, p)) + 20 * y[:, None] * (np.arange(p) < 4)).astype(np.int8)
    else:
        X = (rng.integers(120, 230, (n, p)) + 25 * y[:, None] * (np.arange(p) < 4)).astype(np.uint8)
    X[:, 7] = X[0, 7]  # a constant pixel (the image border): zero within-class variance, exactly
    X[:, 9] = np.where(y == 1, X[0, 9], X[1, 9])  # constant within each class
    return X, y


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.bool_])
def test_small_integer_images_exact_float32_tiles(dtype):
    # 2100 rows: three tiles of <= 1024 rows; block_bytes of 9 float32 columns: column tiles
    rng = np.random.default_rng(31)
    X, y = _small_int_images(dtype, rng, 2100, 40, 3)
    X0 = X.copy()
    G = CenteredGramOperator(X, y, alpha=0.0, block_bytes=4 * 1024 * 9)
    assert G.X is X  # kept as uint8 / int8 / bool: no float64 copy
    Xf = X.astype(np.float64)
    Xc = Xf - np.stack([Xf[y == c].mean(axis=0) for c in range(3)])[y]
    dense = Xc.T @ Xc / len(X)
    scale = np.abs(dense).max()
    idx = [3, 7, 0, 39, 9, 12]
    np.testing.assert_allclose(G.columns(idx), dense[:, idx], rtol=1e-13, atol=1e-14 * scale)
    np.testing.assert_allclose(G.diag(), np.diag(dense), rtol=1e-13, atol=1e-14 * scale)
    np.testing.assert_allclose(G.submatrix(idx), dense[np.ix_(idx, idx)], rtol=1e-13, atol=1e-14 * scale)
    np.testing.assert_allclose(G.class_means.means, CenteredGramOperator(Xf, y).class_means.means, rtol=1e-15)
    # exactly zero where the pixel is constant (within each class): no cancellation residue
    assert G.diag()[7] == 0 and G.diag()[9] == 0
    assert not np.any(G.column(7)) and not np.any(G.column(9))
    np.testing.assert_array_equal(X, X0)
    # the path equals the float64 path of the same values (and a dense control)
    ref = _lda(Xf, y, 25, 0.01)
    got = _lda(X, y, 25, 0.01)
    np.testing.assert_array_equal(got.order, ref.order)
    np.testing.assert_allclose(got.objective, ref.objective, rtol=1e-10)


def test_small_integer_images_dask_chunks_give_the_numpy_panels_exactly():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(32)
    X, y = _small_int_images(np.uint8, rng, 1500, 30, 4)
    G = CenteredGramOperator(X, y, alpha=0.5)
    D = CenteredGramOperator(da.from_array(X, chunks=(400, 30)), y, alpha=0.5)
    # integer partials are exact: any chunking and order gives the same bits
    np.testing.assert_array_equal(D.columns([2, 29, 5]), G.columns([2, 29, 5]))
    np.testing.assert_array_equal(D.diag(), G.diag())
    np.testing.assert_array_equal(D.submatrix([1, 3]), G.submatrix([1, 3]))
    np.testing.assert_array_equal(D.class_means.means, G.class_means.means)
    with D.cached():  # no dask.distributed client: nothing is kept, the passes read X
        assert D._state["chunks"] is None
        np.testing.assert_array_equal(D.column(4), G.column(4))


def test_cache_option_is_checked():
    with pytest.raises(ValueError, match="cache"):
        CenteredGramOperator(np.ones((4, 3)), cache="always")


def test_prefetch_ranking_is_the_stable_argsort_prefix():
    """The block of columns the implicit pass fetches is ranked by the first ``m`` of a stable
    argsort of the candidates' keys, found without sorting them all: the same indices, ties
    (equal keys, infinities, signed zeros) in index order, NaN keys through the full sort."""
    from pixsel.spectral.implicit._implicit import _first_by_key

    rng = np.random.default_rng(0)
    for t in range(400):
        n, m = int(rng.integers(1, 200)), int(rng.integers(1, 40))
        keys = rng.integers(-4, 4, n).astype(float) if t % 2 else rng.standard_normal(n)
        keys[rng.integers(0, n, 2)] = [np.inf, -0.0][t % 2]
        if t % 9 == 0:
            keys[rng.integers(0, n)] = np.nan
        assert np.array_equal(_first_by_key(keys, m), np.argsort(keys, kind="stable")[:m])
