"""The route table (pixsel._routes): one test per row, the forced algorithm, bad input."""

import numpy as np
import pytest

from pixsel import _routes
from pixsel._array_api import _force_array_api
from pixsel._routes import resize, IMPLICIT_MIN_FEATURES, ROUTE_NAMES, Route, choose, implicit_pays

xps = pytest.importorskip("array_api_strict")
CPU = xps.Device("CPU_DEVICE")
DEVICE1 = xps.Device("device1")
BIG = IMPLICIT_MIN_FEATURES + 1  # the first size the implicit row takes


# -- one test per row, in the order of the table -----------------------------------------------
def test_dask_row_statistics_chunk_by_chunk():
    r = choose("greedy", xp=np, dask=True, n_samples=500, n_features=64)
    assert (r.name, r.backend, r.algorithm) == ("dask", "dask", "dense")
    assert r.xp is np and r.device is None and not r.foreign
    assert choose("statistics", dask=True).name == "dask"
    assert choose("scores", dask=True).name == "dask"


def test_dask_row_only_for_families_with_a_chunked_route():
    # PLS has no chunked route: the Dask array is read as NumPy (scikit-learn's validation)
    r = choose("pls", xp=np, dask=True)
    assert (r.name, r.backend) == ("numpy", "numpy")


def test_implicit_row_auto_takes_it_above_the_threshold_with_fewer_samples():
    r = choose("greedy", xp=np, n_samples=BIG - 1, n_features=BIG)
    assert (r.name, r.algorithm, r.backend) == ("implicit", "implicit", "numpy")
    assert r.implicit and "no p x p matrix" in r.reason


@pytest.mark.parametrize(
    "n, p",
    [(100, IMPLICIT_MIN_FEATURES), (BIG, BIG), (20000, BIG)],
    ids=["p at the threshold", "n == p", "n > p"],
)
def test_implicit_row_not_taken_below_the_threshold_or_with_many_samples(n, p):
    r = choose("greedy", xp=np, n_samples=n, n_features=p)
    assert r.algorithm == "dense" and r.name in ("compiled", "numpy")


def test_implicit_row_follows_the_data_where_it_lives():
    assert choose("greedy", dask=True, n_samples=10, n_features=BIG).backend == "dask"
    assert choose("greedy", xp=xps, device=CPU, n_samples=10, n_features=BIG).backend == "host"
    r = choose("greedy", xp=xps, device=DEVICE1, n_samples=10, n_features=BIG)
    assert (r.name, r.backend, r.xp, r.device) == ("implicit", "device", xps, DEVICE1)


def test_implicit_row_only_for_families_with_an_implicit_kernel():
    for family in ("statistics", "scores", "pls", "exact", "thresholding", "projection"):
        assert choose(family, xp=np, n_samples=10, n_features=BIG).algorithm == "dense"


def test_implicit_row_needs_the_sizes_under_auto():
    assert choose("greedy", xp=np).algorithm == "dense"
    assert choose("greedy", xp=np, n_features=BIG).algorithm == "dense"


def test_array_api_row_on_a_device():
    r = choose("greedy", xp=xps, device=DEVICE1, n_samples=10, n_features=5)
    assert (r.name, r.backend, r.algorithm) == ("array_api", "device", "dense")
    assert r.on_device and r.foreign and r.xp is xps and r.device == DEVICE1


def test_array_api_row_on_a_cpu_inside_the_private_switch():
    with _force_array_api():
        assert choose("pls", xp=xps, device=CPU).name == "array_api"
    assert choose("pls", xp=xps, device=CPU).name == "host"  # the switch is scoped


def test_host_row_cpu_arrays_of_another_library_take_numpys_kernels():
    r = choose("scores", xp=xps, device=CPU)
    assert (r.name, r.backend) == ("host", "host")
    assert r.foreign and not r.on_device and r.xp is xps and r.device == CPU


def test_host_row_for_families_without_an_array_api_kernel_even_on_a_device():
    for family in ("exact", "projection"):
        r = choose(family, xp=xps, device=DEVICE1)
        assert (r.name, r.xp, r.device) == ("host", xps, DEVICE1)


def test_compiled_row_when_numba_imports(monkeypatch):
    monkeypatch.setattr(_routes, "HAVE_NUMBA", True)
    # as in a fresh process: no compiled kernel loaded yet (other tests may have loaded them)
    monkeypatch.setattr(_routes, "COMPILED_MODULES", {form: () for form in _routes.COMPILED_MODULES})
    assert choose("greedy", xp=np, n_samples=2000, n_features=1024, n_classes=10).name == "compiled"
    # two classes (a vector): the NumPy kernels until the compiled ones are loaded, at every size,
    # unless the fit runs the exact search (solver='exact'), which keeps the size rule
    assert choose("greedy", xp=np, n_samples=2000, n_features=1024, n_classes=2).name == "numpy"
    assert choose("greedy", xp=np, n_samples=2000, n_features=8192, n_classes=2, algorithm="dense").name == "numpy"
    assert resize(choose("greedy", xp=np), n_samples=2000, n_features=1024, n_classes=2,
                  search="exact").name == "compiled"
    # sparse PCA's full matrix, a short forward path: the NumPy kernels until its compiled ones are
    # loaded, at every size; a long path or one of unknown length: the size rule
    assert resize(choose("greedy", xp=np), n_samples=2000, n_features=1024, path_steps=20).name == "numpy"
    assert resize(choose("greedy", xp=np), n_samples=2000, n_features=1024, path_steps=1000).name == "compiled"
    assert choose("greedy", xp=np, n_samples=2000, n_features=1024).name == "compiled"
    assert choose("exact", xp=np, n_features=1024).name == "compiled"  # its greedy starts keep the size rule
    assert choose("greedy", xp=np, n_samples=10, n_features=5).name == "numpy"  # small: the NumPy kernels
    assert choose("greedy", xp=np, n_samples=100, n_features=64, n_classes=40).name == "compiled"  # rank 39
    assert choose("exact", xp=np).name == "compiled"
    # the exact search's greedy starts follow the same size rule (its own engine compiles when it runs)
    assert choose("exact", xp=np, n_features=12, n_classes=2).name == "numpy"
    assert choose("exact", xp=np, n_features=1024, n_classes=2).name == "compiled"
    assert choose("statistics", xp=np).name == "numpy"  # no compiled kernel in that family


def test_numpy_row_without_numba(monkeypatch):
    monkeypatch.setattr(_routes, "HAVE_NUMBA", False)
    r = choose("greedy", xp=np, n_samples=10, n_features=5)
    assert (r.name, r.backend, r.algorithm) == ("numpy", "numpy", "dense")
    assert choose("greedy", xp=None).name == "numpy"


def test_every_route_name_is_in_the_table():
    names = set()
    for family in _routes.FAMILIES:
        for kw in (dict(xp=np), dict(dask=True), dict(xp=xps, device=CPU), dict(xp=xps, device=DEVICE1)):
            for algorithm in ("auto", "dense"):
                names.add(choose(family, n_samples=10, n_features=BIG, algorithm=algorithm, **kw).name)
    assert names <= set(ROUTE_NAMES)
    assert {"dask", "implicit", "array_api", "host"} <= names


# -- forced algorithm ---------------------------------------------------------------------------
def test_forced_dense_never_takes_the_implicit_row():
    r = choose("greedy", xp=np, n_samples=10, n_features=10 * BIG, algorithm="dense")
    assert r.algorithm == "dense"


def test_forced_implicit_at_any_size():
    r = choose("greedy", xp=np, n_samples=1000, n_features=3, algorithm="implicit")
    assert r.name == "implicit" and "asked" in r.reason
    assert choose("greedy", dask=True, algorithm="implicit").backend == "dask"


def test_implicit_pays_reasons_name_the_rule():
    pays, why = implicit_pays(100, BIG)
    assert pays and str(BIG) in why
    pays, why = implicit_pays(BIG, BIG)
    assert not pays and "n = " in why


# -- bad input ----------------------------------------------------------------------------------
def test_unknown_family():
    with pytest.raises(ValueError, match="Unknown kernel family 'greedyy'"):
        choose("greedyy", xp=np)


@pytest.mark.parametrize("algorithm", ["Dense", "sparse", None])
def test_unknown_algorithm(algorithm):
    with pytest.raises(ValueError, match="'algorithm' parameter must be one of"):
        choose("greedy", xp=np, algorithm=algorithm)


def test_implicit_for_a_family_without_an_implicit_kernel():
    with pytest.raises(ValueError, match="algorithm='implicit' exists only for the greedy family"):
        choose("pls", xp=np, algorithm="implicit")


def test_route_is_immutable():
    r = choose("greedy", xp=np)
    assert isinstance(r, Route)
    with pytest.raises(AttributeError):
        r.name = "numpy"


def test_cost_model_takes_the_implicit_form_when_k_is_small_and_the_dense_form_expensive():
    from pixsel._routes import DENSE_MATERIAL_FLOPS, path_costs

    # 400 faces of 64 x 64 pixels, 40 people, k = 20: passes over X, below the memory threshold
    r = choose("greedy", xp=np, n_samples=400, n_features=4096, n_classes=40, k=20)
    assert r.implicit and "flops" in r.reason
    # the same sizes without k (no cost model), or k near p, or a cheap dense fit: dense
    assert not choose("greedy", xp=np, n_samples=400, n_features=4096).implicit
    assert not choose("greedy", xp=np, n_samples=400, n_features=4096, n_classes=40, k=4096).implicit
    assert not choose("greedy", xp=np, n_samples=200, n_features=1024, n_classes=40, k=50).implicit
    assert path_costs(200, 1024, 40, 50)["dense"] < DENSE_MATERIAL_FLOPS
    # never with more samples than features, and 'dense' forces the form
    assert not choose("greedy", xp=np, n_samples=5000, n_features=4096, n_classes=50, k=50).implicit
    assert not choose("greedy", xp=np, n_samples=400, n_features=4096, n_classes=40, k=20,
                      algorithm="dense").implicit
    c = path_costs(400, 4096, 40, 20)
    assert c["implicit"] < c["dense"] / 100
