"""Estimators under ``sklearn.set_config(array_api_dispatch=True)``, run by test_estimators.py in a
process with ``SCIPY_ARRAY_API=1`` (scikit-learn refuses dispatch unless SciPy's array API support
was switched on before SciPy was imported, and switching it on for the whole suite changes other
estimators' common checks).

The rule (scikit-learn's): everything follows X, the namespace and the device; fitted arrays
stay on X's device; ``get_support`` returns NumPy booleans.
"""

import unittest

import numpy as np
import pytest
import sklearn
from sklearn.utils import estimator_checks
from sklearn.utils.estimator_checks import check_array_api_input

from pixsel._array_api import _force_array_api, device_of, to_numpy
from pixsel.decomposition import SparseLinearModelProjection
from pixsel.selection import (
    CardinalSPLSSelector,
    ScoreSelector,
    SparseLDASelector,
    SparsePCASelector,
    SPLSSelector,
    SubspaceScoreSelector,
)

torch = pytest.importorskip("torch")


def _sklearn_namespaces():
    """(namespace, device_name) for scikit-learn's own check: the CPU ones, and torch-cuda and
    CuPy when a GPU is there (never required)."""
    out = [("array_api_strict", None), ("torch", "cpu")]
    if torch.cuda.is_available():  # pragma: no cover - only on a machine with a GPU
        out.append(("torch", "cuda"))
    try:  # pragma: no cover - only on a machine with a GPU
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            out.append(("cupy", None))
    except Exception:  # ImportError, or no driver / device
        pass
    return [pytest.param(ns, id=ns[0] if ns[1] in (None, "cpu") else f"{ns[0]}-{ns[1]}") for ns in out]


SKLEARN_NAMESPACES = _sklearn_namespaces()


@pytest.fixture(autouse=True)
def dispatch():
    with sklearn.config_context(array_api_dispatch=True):
        yield


@pytest.fixture(autouse=True, params=["array-api-kernels", "cpu-policy"])
def _array_api_kernels(request):
    """Every check twice: with the array-API kernels forced on the CPU, and under the CPU policy
    (NumPy's kernels on views of X, the results back on X's device)."""
    with _force_array_api(request.param == "array-api-kernels"):
        yield


def _data(n=120, p=16, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.standard_normal((n, p)) * np.linspace(0.2, 3, p) + 50.0
    X[:, 2] += 3.0 * y
    return X, y


ESTIMATORS = [
    SubspaceScoreSelector(5, rank=3, random_state=0),
    SubspaceScoreSelector(5, rank=3, mode="sample", random_state=0),
    ScoreSelector(4, criterion="variance"),
    ScoreSelector(4, criterion="fisher"),
    ScoreSelector(4, criterion="supervised_laplacian", mode="sample", random_state=0),
    ScoreSelector(4, criterion="uniform", mode="sample", random_state=1),
]


def _fitted_arrays(est):
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")
            and hasattr(v, "shape") and k != "support_"}


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_follows_X(lib, dtype, est):
    X, y = _data()
    ref = sklearn.base.clone(est)
    with sklearn.config_context(array_api_dispatch=False):
        ref.fit(X, y)
    got = sklearn.base.clone(est).fit(lib.asarray(X, dtype), lib.asarray(y))
    mask = got.get_support()
    assert isinstance(mask, np.ndarray) and mask.dtype == bool
    np.testing.assert_array_equal(mask, ref.get_support())
    arrays = _fitted_arrays(got)
    assert "scores_" in arrays and "weights_" in arrays
    for name, value in arrays.items():  # every fitted array on X's device
        assert type(value).__module__.split(".")[0] == lib.name, name
        assert device_of(value) == lib.device, name
    rtol = 1e-3 if dtype == "float32" else 1e-8
    np.testing.assert_allclose(lib.host(got.scores_, np.float64), ref.scores_, rtol=rtol,
                               atol=rtol * float(np.max(np.abs(ref.scores_))))
    Xt = got.transform(lib.asarray(X, dtype))
    assert type(Xt).__module__.split(".")[0] == lib.name and Xt.dtype == getattr(lib.xp, dtype)
    np.testing.assert_allclose(lib.host(Xt, np.float64), ref.transform(X), rtol=1e-6)
    back = got.inverse_transform(Xt)
    np.testing.assert_allclose(lib.host(back, np.float64), ref.inverse_transform(ref.transform(X)),
                               rtol=1e-6)


PATH_SELECTORS = [
    SparseLDASelector(4),
    SparseLDASelector(4, direction="forward", criterion="trace"),
    SparseLDASelector(4, regularization="ledoit-wolf"),
    SparsePCASelector(3, direction="dual", certificate=True),
    SparsePCASelector(3, refine=False),
]


@pytest.mark.parametrize(
    "est, binary",
    [(est, True) for est in PATH_SELECTORS]
    + [(est, False) for est in PATH_SELECTORS if isinstance(est, SparseLDASelector)],  # 3 classes
    ids=lambda v: repr(v) if not isinstance(v, bool) else ("2 classes" if v else "3 classes"),
)
def test_path_selectors_follow_X(lib, dtype, est, binary):
    """The path selectors: the NumPy support, every fitted array on X's device, coef_ /
    components_ to a dtype-appropriate tolerance; float32 on the device against float64."""
    X, y = _data(p=10)
    if binary:
        y = (y > 0).astype(np.int64)
    ref = sklearn.base.clone(est)
    with sklearn.config_context(array_api_dispatch=False):
        ref.fit(X, y)
    got = sklearn.base.clone(est).fit(lib.asarray(X, dtype), lib.asarray(y))
    mask = got.get_support()
    assert isinstance(mask, np.ndarray) and mask.dtype == bool
    np.testing.assert_array_equal(mask, ref.get_support())
    np.testing.assert_array_equal(got.get_support_at(2), ref.get_support_at(2))
    arrays = dict(_fitted_arrays(got), support_=got.support_)
    assert "objective_path_" in arrays
    for name, value in arrays.items():
        if name == "classes_":
            continue
        assert type(value).__module__.split(".")[0] == lib.name, name
        assert device_of(value) == lib.device, name
    rtol = 2e-4 if dtype == "float32" else 1e-8
    name = "coef_" if hasattr(ref, "coef_") else "components_"
    want = getattr(ref, name)
    np.testing.assert_allclose(lib.host(getattr(got, name), np.float64), want, rtol=rtol,
                               atol=rtol * float(np.max(np.abs(want))))
    np.testing.assert_allclose(lib.host(got.objective_path_, np.float64), ref.objective_path_, rtol=rtol)
    Xt = got.transform(lib.asarray(X, dtype))
    assert type(Xt).__module__.split(".")[0] == lib.name
    back = got.inverse_transform(Xt)
    np.testing.assert_allclose(lib.host(back, np.float64), ref.inverse_transform(ref.transform(X)), rtol=1e-6)


@pytest.mark.parametrize("target", ["classes", "continuous"])
@pytest.mark.parametrize("est", [CardinalSPLSSelector(4, n_components=2), SPLSSelector(0.5, n_components=2)], ids=repr)
def test_spls_selectors_follow_X(lib, dtype, est, target):
    X, y = _data(p=12)
    if target == "continuous":
        y = X[:, 2] - 0.5 * X[:, 5] + 0.1 * np.sin(np.arange(len(X)))
    ref = sklearn.base.clone(est).set_params(target=target)
    with sklearn.config_context(array_api_dispatch=False):
        ref.fit(X, y)
    got = sklearn.base.clone(ref).fit(lib.asarray(X, dtype), lib.asarray(y, dtype if target == "continuous" else None))
    np.testing.assert_array_equal(got.get_support(), ref.get_support())
    arrays = dict(_fitted_arrays(got), support_=got.support_)
    assert {"coef_", "intercept_", "x_rotations_", "iteration_added_"} <= set(arrays)
    for name, value in arrays.items():
        if name == "classes_":
            continue
        assert type(value).__module__.split(".")[0] == lib.name, name
        assert device_of(value) == lib.device, name
    rtol = 2e-3 if dtype == "float32" else 1e-8
    np.testing.assert_allclose(lib.host(got.coef_, np.float64), ref.coef_, rtol=rtol,
                               atol=rtol * float(np.max(np.abs(ref.coef_))))
    pred = got.predict(lib.asarray(X, dtype))
    if target == "classes":
        np.testing.assert_array_equal(lib.host(pred), ref.predict(X))
    else:
        np.testing.assert_allclose(lib.host(pred, np.float64), ref.predict(X), rtol=rtol,
                                   atol=rtol * float(np.max(np.abs(ref.predict(X)))))
    back = got.inverse_transform(got.transform(lib.asarray(X, dtype)))
    np.testing.assert_allclose(lib.host(back, np.float64), ref.inverse_transform(ref.transform(X)), rtol=1e-6)


def test_exact_solver_on_device_statistics(lib):
    """solver='exact' takes the device statistics to the host once and certifies the same support."""
    X, y = _data(p=10)
    y = (y > 0).astype(np.int64)
    ref = SparseLDASelector(3, solver="exact")
    with sklearn.config_context(array_api_dispatch=False):
        ref.fit(X, y)
    got = SparseLDASelector(3, solver="exact").fit(lib.asarray(X), lib.asarray(y))
    np.testing.assert_array_equal(got.get_support(), ref.get_support())
    assert got.status_ == ref.status_ == "optimal"
    assert lib.scalar(got.upper_bound_) == pytest.approx(ref.upper_bound_, rel=1e-9)


@pytest.mark.parametrize("est", [SparseLDASelector(4, algorithm="implicit"),
                                 SparseLDASelector(4, algorithm="implicit", criterion="trace"),
                                 SparsePCASelector(3, algorithm="implicit")], ids=repr)
def test_implicit_follows_X(lib, dtype, est):
    """algorithm='implicit': the passes over X on its device (DeviceGramOperator when the
    array-API kernels are forced), the path on the host: NumPy's support and weights."""
    X, y = _data(p=40)
    ref = sklearn.base.clone(est)
    with sklearn.config_context(array_api_dispatch=False):
        ref.fit(X.astype(dtype), y)
    got = sklearn.base.clone(est).fit(lib.asarray(X, dtype), lib.asarray(y))
    assert got.algorithm_ == "implicit"
    np.testing.assert_array_equal(got.get_support(), ref.get_support())
    arrays = dict(_fitted_arrays(got), support_=got.support_)
    for name, value in arrays.items():
        if name == "classes_":
            continue
        assert type(value).__module__.split(".")[0] == lib.name, name
        assert device_of(value) == lib.device, name
    name = "coef_" if hasattr(ref, "coef_") else "components_"
    np.testing.assert_allclose(lib.host(getattr(got, name), np.float64), getattr(ref, name), rtol=1e-9,
                               atol=1e-9 * float(np.max(np.abs(getattr(ref, name)))))
    np.testing.assert_allclose(lib.host(got.objective_path_, np.float64), ref.objective_path_, rtol=1e-9)


def test_implicit_on_another_device():
    """A device NumPy cannot view (array-api-strict's fake device1): the device operator, no switch."""
    xps = pytest.importorskip("array_api_strict")
    dev = xps.Device("device1")
    X, y = _data(p=40)
    with _force_array_api(False):
        got = SparseLDASelector(4, algorithm="implicit").fit(xps.asarray(X, device=dev), xps.asarray(y, device=dev))
    with sklearn.config_context(array_api_dispatch=False):
        ref = SparseLDASelector(4, algorithm="implicit").fit(X, y)
    np.testing.assert_array_equal(got.get_support(), ref.get_support())
    assert got.coef_.device == dev
    np.testing.assert_allclose(to_numpy(got.coef_), ref.coef_, rtol=1e-9)


def test_tag_on_converted_estimators():
    from sklearn.utils import get_tags

    for est in (SubspaceScoreSelector(), ScoreSelector(), SparseLDASelector(), SparsePCASelector(),
                CardinalSPLSSelector(), SPLSSelector()):
        assert get_tags(est).array_api_support, est


@pytest.mark.parametrize("est", [ScoreSelector(3, criterion="fisher"), SparseLDASelector(3),
                                 CardinalSPLSSelector(3, n_components=2)], ids=repr)
def test_y_follows_X(lib, est):
    """scikit-learn's rule: y of another library (or a NumPy y) moves to X's; same fit."""
    X, y = _data()
    want = sklearn.base.clone(est).fit(X, y).get_support()
    assert sklearn.base.clone(est).fit(X, lib.asarray(y)).get_support().tolist() == want.tolist()
    got = sklearn.base.clone(est).fit(lib.asarray(X), y)
    assert got.get_support().tolist() == want.tolist()
    assert type(got.support_).__module__.split(".")[0] == lib.name


@pytest.mark.parametrize("est", [ScoreSelector(3, criterion="fisher"), SparseLDASelector(3)], ids=repr)
def test_transform_in_another_library_named(lib, est):
    """A model fitted in one library refuses X of another in transform (scikit-learn's rule),
    with a message that names the method and the fix; NumPy on NumPy still works."""
    X, y = _data()
    got = sklearn.base.clone(est).fit(lib.asarray(X), y)
    name = type(est).__name__
    with pytest.raises(ValueError, match=rf"{name}\.transform\(\) must use the same namespace.*Convert X"):
        got.transform(X)
    on_numpy = sklearn.base.clone(est).fit(X, y)
    with pytest.raises(ValueError, match="must use the same namespace"):
        on_numpy.transform(lib.asarray(X))
    assert on_numpy.transform(X).shape == (len(X), 3)


def test_float16_refused():
    X, _ = _data()
    with pytest.raises(TypeError, match=r"X has dtype torch\.float16.*X\.to\(torch\.float32\)"):
        SubspaceScoreSelector(3, rank=2).fit(torch.asarray(X, dtype=torch.float16))


def test_laplacian_says_numpy_only():
    X, _ = _data()
    with pytest.raises(TypeError, match="criterion='laplacian' .* runs on NumPy only"):
        ScoreSelector(3, criterion="laplacian").fit(torch.asarray(X))


@pytest.mark.parametrize("est", [SubspaceScoreSelector(3, rank=2, random_state=0), ScoreSelector(3, criterion="variance"),
                                 SparseLDASelector(3), SparsePCASelector(3, direction="dual"),
                                 CardinalSPLSSelector(3, n_components=2)],
                         ids=repr)
@pytest.mark.parametrize("namespace", SKLEARN_NAMESPACES)
@pytest.mark.parametrize("dtype_name", ["float64", "float32"])
def test_scikit_learn_array_api_check(est, namespace, dtype_name):
    """scikit-learn's own check: fit/transform with array inputs, attributes in the namespace."""
    name, device_name = namespace
    pytest.importorskip(name)
    check_array_api_input(type(est).__name__, est, array_namespace=name, device_name=device_name,
                          dtype_name=dtype_name, check_values=True)


SLMS = [SparseLinearModelProjection(2, n_atoms=12, max_iter=3, random_state=0),
        SparseLinearModelProjection(2, n_atoms=10, max_iter=3, kernel="rbf", gamma=0.01, random_state=0)]


@pytest.mark.parametrize("est", SLMS, ids=["linear", "kernel"])
def test_slm_follows_X(lib, dtype, est):
    """SLM: fitted on a host copy (dictionary learning has no array-API support), fitted arrays
    on X's device, transform of new data in X's library and float dtype, equal to NumPy's."""
    X, _ = _data(p=10)
    X = (X - X.mean(0)) / 10
    ref = sklearn.base.clone(est)
    with sklearn.config_context(array_api_dispatch=False):
        ref.fit(X.astype(dtype))
    got = sklearn.base.clone(est).fit(lib.asarray(X, dtype))
    for name, value in _fitted_arrays(got).items():
        assert type(value).__module__.split(".")[0] == lib.name, name
        assert device_of(value) == lib.device, name
    Xt = got.transform(lib.asarray(X, dtype))
    assert type(Xt).__module__.split(".")[0] == lib.name and Xt.dtype == getattr(lib.xp, dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-10
    want = ref.transform(X)
    np.testing.assert_allclose(lib.host(Xt, np.float64), want, rtol=rtol, atol=rtol * float(np.abs(want).max()))
    with pytest.raises(ValueError, match=r"transform\(\) must use the same namespace.*Convert X"):
        got.transform(X)  # NumPy X on a model fitted in another library: named


@pytest.mark.parametrize("namespace", SKLEARN_NAMESPACES)
@pytest.mark.parametrize("est", SLMS, ids=["linear", "kernel"])
def test_slm_scikit_learn_array_api_check(est, namespace):
    name, device_name = namespace
    pytest.importorskip(name)
    check_array_api_input(type(est).__name__, est, array_namespace=name, device_name=device_name,
                          dtype_name="float64", check_values=True)


ALL_DISPATCHED = [SubspaceScoreSelector(3, rank=2, random_state=0), ScoreSelector(3, criterion="variance"),
                  SparseLDASelector(3), SparsePCASelector(3), CardinalSPLSSelector(3, n_components=2),
                  SPLSSelector(), *SLMS]


@pytest.mark.parametrize("est", ALL_DISPATCHED, ids=repr)
def test_scikit_learn_same_namespace_check(est):
    """scikit-learn's check (1.9 and later): predict/transform refuse another library than fit's."""
    check = getattr(estimator_checks, "check_array_api_same_namespace", None)
    if check is None:
        pytest.skip("scikit-learn < 1.9 has no check_array_api_same_namespace")
    pytest.importorskip("array_api_strict")
    check(type(est).__name__, est, array_namespace="array_api_strict")


@pytest.mark.parametrize("est", ALL_DISPATCHED, ids=repr)
def test_scikit_learn_mixed_inputs_check(est):
    """scikit-learn's check (1.9 and later): y of another library or device than X follows X."""
    check = getattr(estimator_checks, "check_array_api_mixed_inputs", None)
    if check is None:
        pytest.skip("scikit-learn < 1.9 has no check_array_api_mixed_inputs")
    from sklearn.utils._array_api import yield_mixed_namespace_input_permutations

    ran = 0
    for other, X_at, _ in yield_mixed_namespace_input_permutations():
        try:
            check(type(est).__name__, est, X_ns_and_device=X_at, other_ns_and_device=other)
        except (unittest.SkipTest, pytest.skip.Exception):  # a namespace or device this machine lacks
            continue
        ran += 1
    assert ran >= 1  # at least the CPU combinations ran


def test_colour_stacks_of_other_libraries_follow_X():
    """A colour image stack of array-api-strict (the standard and nothing more: no ``reshape``
    method) is flattened in its own library; the fitted selection and the transform follow X and
    equal NumPy's on the flattened images."""
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(0)
    X = rng.random((60, 6, 5, 3)) + 1.0
    y = np.arange(60) % 3
    X[y == 1, 1, 2] += 1.0
    flat = X.reshape(60, -1)
    Xd, yd = xps.asarray(X), xps.asarray(y)
    for make in (lambda: SubspaceScoreSelector(4, rank=2, mode="top", random_state=0),
                 lambda: ScoreSelector(4, criterion="fisher"), lambda: SparseLDASelector(3)):
        est = make().fit(Xd, yd)
        out = est.transform(Xd)
        with sklearn.config_context(array_api_dispatch=False):
            ref = make().fit(X, y)
        assert est.image_shape_ == (6, 5, 3), est.image_shape_
        np.testing.assert_array_equal(est.get_support_image(), ref.get_support_image())
        assert type(out).__module__.split(".")[0] == "array_api_strict" and device_of(out) == device_of(Xd)
        np.testing.assert_allclose(to_numpy(out), flat[:, ref.get_support()])
        np.testing.assert_array_equal(to_numpy(est.ranking_), ref.ranking_)
