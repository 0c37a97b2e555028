"""Cardinal SPLS and SPLS-eta on any array library: the NumPy support and coefficients to a
dtype-appropriate tolerance, the result's arrays in the input's library and on its device."""

import numpy as np
import pytest

from pixsel.pls import cardinal_spls, spls_eta


def _data(q, seed=0, n=60, p=25):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) + 10.0
    W = np.zeros((p, q))
    W[[0, 3, 7, 11], :] = rng.choice([-2.0, 2.0], size=(4, q)) * np.array([[3.0], [2.5], [2.0], [1.5]])
    Y = (X - 10.0) @ W + 0.1 * rng.standard_normal((n, q))
    X[:, 20] = 4.0  # a constant column is never selected
    return X, (Y[:, 0] if q == 1 else Y)


@pytest.mark.parametrize("q", [1, 3])
@pytest.mark.parametrize("method", ["cardinal", "eta"])
def test_spls_on_device(lib, dtype, method, q):
    X, Y = _data(q, seed=q)
    run = (lambda A, B: cardinal_spls(A, B, 6, 3)) if method == "cardinal" else (lambda A, B: spls_eta(A, B, 0.5, 3))
    ref = run(X, Y)
    got = run(lib.asarray(X, dtype), lib.asarray(Y, dtype))
    # every result is brought to the host before NumPy compares it (a CUDA tensor has no __array__)
    np.testing.assert_array_equal(lib.host(got.support), ref.support)
    assert [lib.host(h).tolist() for h in got.history] == [np.asarray(h).tolist() for h in ref.history]
    for arr in (got.coef, got.x_mean, got.model.x_rotations):
        assert lib.owns(arr)
    rtol = 2e-3 if dtype == "float32" else 1e-8  # float32 on the device against float64 NumPy
    scale = np.abs(ref.coef).max()
    np.testing.assert_allclose(lib.host(got.coef, np.float64), ref.coef, rtol=rtol, atol=rtol * scale)
    pred = got.predict(lib.asarray(X, dtype))
    np.testing.assert_allclose(lib.host(pred, np.float64), ref.predict(X), rtol=rtol,
                               atol=rtol * np.abs(ref.predict(X)).max())


def test_spls_mixed_libraries_refused(lib):
    X, Y = _data(1)
    with pytest.raises(TypeError, match="Convert Y first"):
        cardinal_spls(lib.asarray(X), Y, 3, 2)
