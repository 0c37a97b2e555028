"""The statistics of pixsel.stats against textbook NumPy, NumPy == Dask, and the centred Gram
operator against the explicit centred X^T X."""

import dask.array as da
import numpy as np
import pytest

from pixsel.stats import (
    AUTO_RIDGE,
    CenteredGramOperator,
    between_class_factor,
    centered_gram_matmat,
    centered_projected_gram,
    class_means,
    class_statistics,
    class_sums,
    column_moments,
    covariance,
    graph_moments,
    heat_kernel_knn_graph,
    regularize,
    ridge_regularization,
)
from pixsel.stats._reduce import block_reduce, sum_partials


def _data(n=300, p=11, C=3, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) * 200 + 50).astype(dtype)  # large means: cancellation-prone
    y = rng.integers(0, C, n)
    return X, y


# ----------------------------------------------------------------------------- block reduction


def test_block_reduce_any_block_size_and_dask_chunks_same_sum():
    X, _ = _data(n=97, p=5)
    ref = X.sum(axis=0)
    for block_bytes in (8, 40 * 8, 10**9):  # 1 row, 8 rows, all rows per block
        got = block_reduce(lambda b: b.sum(axis=0), sum_partials, X, block_bytes=block_bytes)
        np.testing.assert_allclose(got, ref, rtol=1e-13)
    for chunks in ((97, 5), (10, 5), (7, 2)):  # one chunk, many row chunks, column chunks
        got = block_reduce(lambda b: b.sum(axis=0), sum_partials, da.from_array(X, chunks=chunks))
        np.testing.assert_allclose(got, ref, rtol=1e-13)


def _graphs(X):
    """Dask arrays over X whose chunks are built by graphs of every shape the fold meets."""
    base = da.from_array(X, chunks=(10, X.shape[1]))  # one shared in-memory array
    yield base
    yield da.from_array(X, chunks=(13, 2))  # column chunks: merged by a rechunk
    yield base.persist()  # chunks that are data, not tasks
    yield base.rechunk((25, X.shape[1]))  # an output chunk gathers several input chunks
    yield base.map_overlap(lambda b: b, depth=(1, 0), boundary="none")  # neighbours shared by 2 chunks
    yield (base * 2.0 - base) + da.zeros_like(base)  # elementwise over two inputs
    yield da.concatenate([base[:50], base[50:]])
    yield da.from_delayed(__import__("dask").delayed(np.array)(X), X.shape, X.dtype).rechunk((30, -1))


def test_block_reduce_reads_each_chunk_inside_its_fold_task_for_any_graph():
    import dask

    X, _ = _data(n=97, p=5)
    codes = np.arange(97) % 3
    part = lambda b, c: np.stack([b[c == k].sum(axis=0) for k in range(3)])
    ref = part(X, codes)
    for Xd in _graphs(X):
        for scheduler, chains in (("threads", None), ("sync", 3)):
            with dask.config.set(scheduler=scheduler):
                got = block_reduce(part, sum_partials, Xd, codes, chains=chains)
            np.testing.assert_allclose(got, ref, rtol=1e-13)


def test_block_reduce_graph_has_one_task_per_chunk():
    from pixsel.stats._reduce import _fused_reads

    X, _ = _data(n=40_000, p=40)
    fold = lambda acc, xb, s: xb
    for rows, shared in ((4000, True), (100, False)):  # chunks of 1.3 MB, of 32 kB
        graph, reads = _fused_reads(da.from_array(X, chunks=(rows, 40)))
        assert len(reads) == 40_000 // rows
        t = reads[3](("chunk-test", 3), fold, None, 3 * rows)
        assert t.key == ("chunk-test", 3)
        if shared:  # a large in-memory chunk stays a key of the graph, referenced by the task
            assert len(t.dependencies) == 1 and next(iter(t.dependencies)) in graph
        else:  # small data are copied into the task, which depends on nothing
            assert not t.dependencies
        np.testing.assert_array_equal(t({k: graph[k]() for k in t.dependencies}), X[3 * rows : 4 * rows])
    X = X[:97]
    import tempfile

    zarr = pytest.importorskip("zarr")
    with tempfile.TemporaryDirectory() as tmp:
        zarr.save_array(tmp + "/x.zarr", X)
        Xz = da.from_zarr(tmp + "/x.zarr", chunks=(10, 40))
        graph, reads = _fused_reads(Xz)
        t = reads[3](("chunk-test", 3), lambda acc, xb, s: xb, None, 30)
        # the store's array object is small: copied into the task, which depends on nothing
        assert not t.dependencies
        np.testing.assert_array_equal(t({}), X[30:40])


def test_block_reduce_slices_row_arrays_with_the_rows():
    X = np.arange(20.0).reshape(10, 2)
    codes = np.arange(10) % 2
    part = lambda b, c: np.array([b[c == 0, 0].sum(), b[c == 1, 0].sum()])
    expected = [X[::2, 0].sum(), X[1::2, 0].sum()]
    assert block_reduce(part, sum_partials, X, codes, block_bytes=3 * 16).tolist() == expected
    assert block_reduce(part, sum_partials, da.from_array(X, chunks=(3, 2)), codes).tolist() == expected


# ----------------------------------------------------------------------------- class means


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("C", [1, 2, 4])
def test_class_means_textbook(dtype, C):
    X, y = _data(C=C, dtype=dtype, seed=C)
    cm = class_means(X, y)
    X64 = X.astype(np.float64)
    expected = np.stack([X64[y == c].mean(axis=0) for c in range(C)])
    np.testing.assert_allclose(cm.means, expected, rtol=1e-12)
    np.testing.assert_allclose(cm.mean, X64.mean(axis=0), rtol=1e-12)
    assert cm.counts.tolist() == np.bincount(y).tolist() and cm.n_samples == len(X)
    assert cm.classes.tolist() == list(range(C)) and cm.means.dtype == np.float64


def test_class_means_without_labels_is_the_mean_and_agrees_with_class_statistics():
    X, y = _data()
    np.testing.assert_allclose(class_means(X).means[0], X.mean(axis=0), rtol=1e-12)
    st = class_statistics(X, y)
    cm = class_means(X, y)
    np.testing.assert_allclose(cm.means, st.means, rtol=1e-12)
    np.testing.assert_allclose(cm.between_factor @ cm.between_factor.T, st.between_covariance,
                               rtol=1e-9, atol=1e-12 * np.abs(st.between_covariance).max())


def test_class_means_dask_equals_numpy_and_errors():
    X, y = _data(n=500, p=13, dtype=np.uint8)
    ref = class_means(X, y)
    got = class_means(da.from_array(X, chunks=(77, 5)), y)
    np.testing.assert_allclose(got.means, ref.means, rtol=1e-13)
    assert np.array_equal(got.counts, ref.counts)
    with pytest.raises(ValueError, match="No samples of class"):
        class_means(X, y, classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="not in 'classes'"):
        class_means(X, y, classes=[0, 1])
    Xn = X.astype(np.float64)
    Xn[4, 7] = np.inf
    with pytest.raises(ValueError, match=r"index \(4, 7\)"):
        class_means(Xn, y)


@pytest.mark.parametrize("C", [2, 3, 6])
def test_between_class_factor_textbook(C):
    rng = np.random.default_rng(C)
    means = rng.standard_normal((C, 7))
    counts = rng.integers(1, 30, C)
    pi = counts / counts.sum()
    m = pi @ means
    Sb = sum(pi[c] * np.outer(means[c] - m, means[c] - m) for c in range(C))
    M = between_class_factor(means, counts)
    assert M.shape == (7, C - 1)
    np.testing.assert_allclose(M @ M.T, Sb, atol=1e-12 * np.abs(Sb).max())
    if C == 2:
        a = means[1] - means[0]
        np.testing.assert_allclose(M @ M.T, pi[0] * pi[1] * np.outer(a, a), atol=1e-12)


# ----------------------------------------------------------------------------- column statistics


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_column_moments_textbook_and_dask(dtype):
    X, _ = _data(n=400, p=9, dtype=dtype)
    X64 = X.astype(np.float64)
    mean, ss = column_moments(X)
    np.testing.assert_allclose(mean, X64.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(ss, ((X64 - X64.mean(axis=0)) ** 2).sum(axis=0), rtol=1e-9)
    m0, ss0 = column_moments(X, center=False)
    assert not np.any(m0) and np.allclose(ss0, (X64 ** 2).sum(axis=0), rtol=1e-12)
    dm, dss = column_moments(da.from_array(X, chunks=(33, 4)))
    np.testing.assert_allclose(dm, mean, rtol=1e-12)
    np.testing.assert_allclose(dss, ss, rtol=1e-9)


def test_column_moments_nan_detected_numpy_and_dask():  # moved from tests/scores/test_krylov.py
    A = np.ones((10, 4))
    A[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"the first at index \(3, 2\)"):  # row 3, column 2
        column_moments(A)
    with pytest.raises(ValueError, match=r"rows 0 to 4\) contains 1 NaN .* index \(3, 2\)"):
        column_moments(da.from_array(A, chunks=(5, 4)))


@pytest.mark.parametrize("C", [2, 5])
def test_class_sums_textbook_and_dask(C):
    X, y = _data(n=350, p=8, C=C, dtype=np.uint8, seed=C)
    X64 = X.astype(np.float64)
    F = X64 - X64.mean(axis=0)
    cs = class_sums(X, y)
    np.testing.assert_allclose(cs.mean, X64.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(cs.sums, np.stack([F[y == c].sum(0) for c in range(C)]),
                               atol=1e-9 * np.abs(F).sum(0).max())
    np.testing.assert_allclose(cs.squares, np.stack([(F[y == c] ** 2).sum(0) for c in range(C)]), rtol=1e-10)
    assert cs.counts.tolist() == np.bincount(y).tolist()
    dcs = class_sums(da.from_array(X, chunks=(41, 8)), y)
    np.testing.assert_allclose(dcs.sums, cs.sums, atol=1e-9 * np.abs(F).sum(0).max())
    np.testing.assert_allclose(dcs.squares, cs.squares, rtol=1e-12)
    Xn = X64.copy()
    Xn[0, 5] = np.nan
    with pytest.raises(ValueError, match=r"the first at index \(0, 5\)"):  # row 0, column 5
        class_sums(Xn, y)


# ----------------------------------------------------------------------------- centred Gram


@pytest.mark.parametrize("labels", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_centered_gram_operator_equals_explicit(labels, dtype):
    X, y = _data(n=40, p=15, C=3, dtype=dtype, seed=4)
    X0 = X.copy()
    alpha = 0.3
    G = CenteredGramOperator(X, y if labels else None, alpha=alpha)
    X64 = X.astype(np.float64)
    if labels:
        Xc = X64 - np.stack([X64[y == c].mean(0) for c in range(3)])[y]
    else:
        Xc = X64 - X64.mean(axis=0)
    explicit = Xc.T @ Xc / len(X) + alpha * np.eye(15)
    rtol = 1e-5 if dtype == np.float32 else 1e-9
    scale = np.abs(explicit).max()
    np.testing.assert_allclose(G.diag(), np.diag(explicit), rtol=rtol)
    for j in (0, 7, 14):
        np.testing.assert_allclose(G.column(j), explicit[:, j], atol=rtol * scale)
    idx = [3, 9, 1]
    np.testing.assert_allclose(G.columns(idx), explicit[:, idx], atol=rtol * scale)
    np.testing.assert_allclose(G.submatrix(idx), explicit[np.ix_(idx, idx)], rtol=1e-9)
    assert G.mean_variance() == pytest.approx(np.trace(explicit) / 15 - alpha, rel=1e-9)
    assert G.X is X and np.array_equal(X, X0)  # float data are used in place, never modified
    G2 = G.with_alpha(0.0)
    assert G2.alpha == 0.0 and G.alpha == alpha and G2.X is X
    np.testing.assert_allclose(G2.submatrix(idx), explicit[np.ix_(idx, idx)] - alpha * np.eye(3), rtol=1e-9)


def test_centered_gram_operator_integer_data_and_bad_alpha():
    X = np.arange(24, dtype=np.uint8).reshape(6, 4)
    G = CenteredGramOperator(X)
    assert G.X is X  # uint8 / int8 / bool images are kept (exact float32 tiles), no float64 copy
    assert CenteredGramOperator(X.astype(np.uint16)).X.dtype == np.float64
    with pytest.raises(ValueError, match="alpha"):
        CenteredGramOperator(X, alpha=-1.0)


@pytest.mark.parametrize("center", [True, False])
def test_krylov_passes_equal_explicit_and_dask(center):
    rng = np.random.default_rng(2)
    A = rng.standard_normal((70, 12)) + 4.0
    mean = A.mean(axis=0) if center else np.zeros(12)
    Ac = A - mean
    V = rng.standard_normal((12, 3))
    np.testing.assert_allclose(centered_gram_matmat(A, V, mean), Ac.T @ (Ac @ V), rtol=1e-10)
    np.testing.assert_allclose(centered_projected_gram(A, V, mean), (Ac @ V).T @ (Ac @ V), rtol=1e-10)
    dA = da.from_array(A, chunks=(16, 5))
    np.testing.assert_allclose(centered_gram_matmat(dA, V, mean), Ac.T @ (Ac @ V), rtol=1e-10)
    np.testing.assert_allclose(centered_projected_gram(dA, V, mean), (Ac @ V).T @ (Ac @ V), rtol=1e-10)


# ----------------------------------------------------------------------------- ridge policy


def test_ridge_policy_is_the_one_regularize_uses():
    B = np.diag([2.0, 0.0, 1.0])
    mu = np.trace(B) / 3
    for reg in ("auto", "rda", "none", None, 0.0, 0.25):
        _, info = regularize(B, reg)
        assert info == ridge_regularization(reg, mu)
    # 'rda': B plus its mean variance, twice the covariance shrunk halfway to mu I (gamma = 1/2)
    B_rda, info = regularize(B, "rda")
    assert info.method == "rda" and info.alpha == mu
    np.testing.assert_allclose(B_rda, 2 * (0.5 * B + 0.5 * mu * np.eye(3)))
    assert ridge_regularization("rda", 0.0).alpha == 1.0  # every feature constant
    info = ridge_regularization("auto", mu)
    assert info.method == "auto" and info.alpha == pytest.approx(AUTO_RIDGE * mu) and info.mu == mu
    assert ridge_regularization("auto", 0.0).alpha == AUTO_RIDGE  # every feature constant
    assert ridge_regularization(0.0, mu).method == "ridge"
    with pytest.raises(ValueError, match="finite number >= 0"):
        ridge_regularization(-1.0, mu)
    for reg in ("ledoit-wolf", "ledoit-wolf-floor"):
        with pytest.raises(ValueError, match="needs the data"):
            ridge_regularization(reg, mu)
    with pytest.raises(ValueError, match="Got 'lots' instead"):
        ridge_regularization("lots", mu)


# ----------------------------------------------------------------------------- graph forms


@pytest.mark.parametrize("sparse", [False, True])
def test_graph_moments_textbook(sparse):
    import scipy.sparse as sp

    rng = np.random.default_rng(8)
    X = rng.standard_normal((25, 6)) + 100.0  # a large mean: the forms are taken about it
    W = rng.random((25, 25)) * (rng.random((25, 25)) < 0.3)
    S = W + W.T
    d = S.sum(axis=1)
    F = X - X.mean(axis=0)
    m = graph_moments(X, sp.csr_matrix(S) if sparse else S)
    np.testing.assert_allclose(m.dff, np.diag(F.T @ np.diag(d) @ F), rtol=1e-10)
    np.testing.assert_allclose(m.fsf, np.diag(F.T @ S @ F), rtol=1e-9, atol=1e-9 * m.dff.max())
    np.testing.assert_allclose(m.df, d @ F, atol=1e-9 * np.abs(d).sum() * np.abs(F).max())
    assert m.dsum == pytest.approx(d.sum(), rel=1e-12)


def test_heat_kernel_graph_is_symmetric_knn():
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    S, t = heat_kernel_knn_graph(X, 1, t=2.0)
    D = S.toarray()
    assert t == 2.0 and np.array_equal(D, D.T) and not np.any(np.diag(D))
    assert D[0, 1] == pytest.approx(np.exp(-1 / 2)) and D[2, 3] == pytest.approx(np.exp(-16 / 2))
    assert D[0, 2] == 0  # 2's nearest neighbour is 1, and 0's is 1


# ----------------------------------------------------------------------------- folding and chains


def test_block_reduce_folds_partials_two_at_a_time_numpy_and_dask():
    X, _ = _data(n=97, p=5)
    seen = []

    def merge(parts):
        seen.append(len(parts))
        return sum_partials(parts)

    ref = X.sum(axis=0)
    got = block_reduce(lambda b: b.sum(axis=0), merge, X, block_bytes=8 * 5 * 3)  # 33 blocks
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    assert max(seen) == 2 and len(seen) == 33  # never a list of all the partials
    for chains in (1, 2, 3, 20):
        seen.clear()
        got = block_reduce(lambda b: b.sum(axis=0), merge, da.from_array(X, chunks=(10, 5)), chains=chains)
        np.testing.assert_allclose(got, ref, rtol=1e-13)
        assert max(seen) <= max(2, min(chains, 4))  # chunks folded in pairs; <= 4 chains merged at the end


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.bool_])
def test_small_integer_statistics_are_exact_beyond_float32_range(dtype):
    # every value at the far end of the range: sums of z^2 pass 2^24 after 1024 rows, so the
    # float32 products are only exact because they are flushed to float64 every 1024 rows
    rng = np.random.default_rng(7)
    n, p = 5000, 6
    info = np.iinfo(dtype) if dtype != np.bool_ else None
    lo, hi = (0, 1) if info is None else (info.min, info.max)
    X = np.where(rng.random((n, p)) < 0.9, hi, lo).astype(dtype)
    X[:, 0] = hi  # a constant column: its variance is exactly 0
    y = rng.integers(0, 2, n)
    st = class_statistics(X, y)
    X64 = X.astype(np.float64)
    means = np.stack([X64[y == c].mean(0) for c in range(2)])
    W = sum((X64[y == c] - means[c]).T @ (X64[y == c] - means[c]) for c in range(2)) / n
    np.testing.assert_allclose(st.within, W, rtol=1e-13, atol=1e-14 * np.abs(W).max())
    assert st.within[0, 0] == 0 and np.array_equal(st.within, st.within.T)
    np.testing.assert_allclose(st.means, means, rtol=1e-15)
    got = class_statistics(da.from_array(X, chunks=(1300, p)), y)
    np.testing.assert_allclose(got.within, W, rtol=1e-13, atol=1e-14 * np.abs(W).max())


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.bool_, np.float64])
def test_covariance_is_numpys_for_every_image_dtype(dtype):
    """8-bit images take the exact single-precision products (2500 rows: beyond one float32
    tile), other dtypes np.cov: the sample covariance to rounding, exactly symmetric, in C order
    (the kernels read its rows; the 8-bit path's would be Fortran order), the caller's array
    untouched."""
    rng = np.random.default_rng(3)
    if dtype == np.bool_:
        X = rng.random((2500, 9)) < 0.3
    else:
        lo, hi = (np.iinfo(dtype).min, np.iinfo(dtype).max) if dtype != np.float64 else (-1e3, 1e3)
        X = rng.uniform(lo, hi, (2500, 9)).astype(dtype)
    X[:, 4] = X[0, 4]  # a constant pixel: variance 0
    before = X.copy()
    C = covariance(X)
    ref = np.cov(X.astype(np.float64), rowvar=False)
    np.testing.assert_allclose(C, ref, rtol=1e-12, atol=1e-13 * np.abs(ref).max())
    assert C.dtype == np.float64 and C.flags.c_contiguous and np.array_equal(C, C.T)
    assert np.array_equal(X, before)
    if dtype != np.float64:  # exact integer sums: a constant pixel's variance is 0, not rounding
        assert C[4, 4] == 0


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
def test_dask_scatter_in_column_panels_equals_numpy(dtype, monkeypatch):
    # a large p x p is reduced one column panel per pass (a worker holds panels, not p x p):
    # panels of a few columns, of whole multiples of the product panel, and one panel
    from pixsel.stats import _moments

    X, y = _data(n=700, p=23, C=3, dtype=dtype, seed=4)
    ref = class_statistics(X, y)
    Xd = da.from_array(X, chunks=(150, 23))
    monkeypatch.setattr(_moments, "_PANEL", 4)
    for limit in (8 * 23 * 3, 8 * 23 * 9, 8 * 23 * 23):
        monkeypatch.setattr(_moments, "_PARTIAL_BYTES", limit)
        panels = _moments._column_panels(23)
        assert panels[0][0] == 0 and panels[-1][1] == 23 and (len(panels) == 1) == (limit == 8 * 23 * 23)
        assert all(8 * (23 - j0) * (j1 - j0) <= limit for j0, j1 in panels)
        got = class_statistics(Xd, y)
        np.testing.assert_allclose(got.within, ref.within, rtol=1e-12, atol=1e-12 * np.abs(ref.within).max())
        np.testing.assert_allclose(got.means, ref.means, rtol=1e-14)
        assert np.array_equal(got.within, got.within.T) and np.array_equal(got.counts, ref.counts)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float32_products_are_close_to_float64_and_opt_in(dtype):
    X, y = _data(n=3000, p=40, C=3, dtype=dtype, seed=5)  # large means: centred before rounding
    X[:, 3] = X[:, 4] * 0.5 + 1.0  # a collinear pair
    exact = class_statistics(X, y)
    for Xi in (X, da.from_array(X, chunks=(700, 40))):
        fast = class_statistics(Xi, y, products="float32")
        scale = np.abs(exact.within).max()
        err = np.abs(fast.within - exact.within).max() / scale
        assert 0 < err < 1e-5  # rounded (float32 products), but to float32 accuracy
        np.testing.assert_allclose(fast.means, exact.means, rtol=1e-6)
        assert np.array_equal(fast.within, fast.within.T) and fast.within.dtype == np.float64
    with pytest.raises(ValueError, match=r"'products' parameter of class_statistics must be one of"):
        class_statistics(X, y, products="half")
    Xn = X.copy()
    Xn[2345, 7] = np.nan
    with pytest.raises(ValueError, match=r"\(2345, 7\)"):
        class_statistics(da.from_array(Xn, chunks=(700, 40)), y, products="float32")


def test_float32_products_change_nothing_for_small_integer_images():
    X, y = _data(n=2000, p=17, C=2, dtype=np.uint8, seed=6)
    a, b = class_statistics(X, y), class_statistics(X, y, products="float32")
    assert np.array_equal(a.within, b.within) and np.array_equal(a.means, b.means)


def test_parallel_slots_follow_the_scheduler():
    import dask

    from pixsel.stats._reduce import _parallel_slots

    with dask.config.set(scheduler="sync"):
        assert _parallel_slots() == 1
    with dask.config.set(scheduler="threads", num_workers=3):
        assert _parallel_slots() == 3


@pytest.mark.parametrize("panel", [4, 5, 1024])
def test_small_integer_statistics_by_column_panels(panel, monkeypatch):
    from pixsel.stats import _moments

    monkeypatch.setattr(_moments, "_PANEL", panel)
    monkeypatch.setattr(_moments, "_EXACT_ROWS", 64)  # several tiles, a short last one
    X, y = _data(n=300, p=11, C=3, dtype=np.uint8, seed=5)
    st = class_statistics(X, y)
    X64 = X.astype(np.float64)
    means = np.stack([X64[y == c].mean(0) for c in range(3)])
    W = sum((X64[y == c] - means[c]).T @ (X64[y == c] - means[c]) for c in range(3)) / len(X)
    np.testing.assert_allclose(st.within, W, rtol=1e-13, atol=1e-14 * np.abs(W).max())
    assert np.array_equal(st.within, st.within.T)


@pytest.mark.parametrize("method", ["ledoit-wolf", "ledoit-wolf-floor"])
def test_shrinkage_of_a_zero_covariance_is_refused(method):
    """One sample per class: the within-class covariance is zero and so is any shrinkage of it
    towards its mean variance; refused with the fix, where a ridge still regularizes."""
    from pixsel.stats import class_statistics, regularize

    X = np.arange(12.0).reshape(3, 4) ** 2
    y = np.array([0, 1, 2])
    st = class_statistics(X, y)
    assert not np.any(st.within)
    with pytest.raises(ValueError, match="within-class covariance is zero.*regularization='auto'"):
        regularize(st.within, method, X=X, y=y, means=st.means, classes=st.classes)
    B, info = regularize(st.within, "auto", X=X, y=y, means=st.means, classes=st.classes)
    assert info.alpha > 0 and np.all(np.linalg.eigvalsh(B) > 0)
