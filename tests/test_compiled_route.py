"""The compiled/NumPy rule of the route table: small NumPy problems run the NumPy kernels (the
oracles of the compiled ones) until this process has loaded the compiled kernels of their form, so
a first fit on 8x8 digits neither compiles nor loads a Numba kernel, and a process that has loaded
them runs small problems compiled too; the results are those of the compiled kernels."""

import dataclasses
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_digits

from pixsel import SparseLDASelector, SparsePCASelector
from pixsel import _routes
from pixsel._routes import compiled_enabled, compiled_kernels, compiled_pays, sized_kernels
from pixsel.spectral import greedy_path
from pixsel.spectral.greedy import _rank_one


@pytest.fixture
def nothing_loaded(monkeypatch):
    """The route table sees no compiled greedy kernel loaded (other tests of this process may have
    loaded them): the size rule alone, as in a fresh process."""
    monkeypatch.setattr(_routes, "COMPILED_MODULES",
                        {form: (f"pixsel._no_such_module_{form}",) for form in _routes.COMPILED_MODULES})


_FRESH = r"""
import json, sys
from sklearn.datasets import load_digits
from pixsel import ColumnSubsetSelector, PathSelectorCV, SparseLDASelector, SparsePCASelector, lda_paths
X, y = load_digits(return_X_y=True)
lda_paths(X, y % 2)  # the demo's paths: greedy and thresholding
SparseLDASelector(8).fit(X, y % 2)
SparseLDASelector(8).fit(X, y)
SparseLDASelector(8, criterion="max-eig", direction="dual").fit(X, y)
SparsePCASelector(8).fit(X)
ColumnSubsetSelector(8).fit(X)
PathSelectorCV(SparseLDASelector(1), cv=3).fit(X, y % 2)
print(json.dumps({"numba": "numba" in sys.modules}))
"""


def test_first_fits_on_digits_import_no_numba(tmp_path):
    """A fresh process with an empty compile cache: no Numba import, nothing compiled or loaded."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"numba": False}
    assert not any(tmp_path.iterdir())  # nothing written to the cache


_FRESH_FACES = r"""
import json, sys
import numpy as np
from pixsel import SparseLDASelector
rng = np.random.default_rng(0)
y = np.repeat(np.arange(38), 5)  # 38 people, 5 images each, 32 x 32 pixels: the implicit form
X = rng.standard_normal((len(y), 1024)) + 0.5 * rng.standard_normal((38, 1024))[y]
sel = SparseLDASelector(50).fit(X, y)  # the swaps at k = 50: a table of 48,700 values
print(json.dumps({"numba": "numba" in sys.modules, "algorithm": sel.algorithm_}))
"""


def test_first_fit_on_many_classes_of_faces_imports_no_numba(tmp_path):
    """The swaps' compiled pass waits for compiled kernels loaded by something else: a fresh
    process's default fit of many classes (no Numba kernel of its own) does not import Numba."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _FRESH_FACES], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"numba": False, "algorithm": "implicit"}


@pytest.mark.parametrize("make, which", [
    (lambda: SparseLDASelector(8), "binary"),
    (lambda: SparseLDASelector(8, direction="dual"), "binary"),
    (lambda: SparseLDASelector(8, criterion="max-eig", direction="dual"), "multi"),
    (lambda: SparsePCASelector(8), None),
    (lambda: SparsePCASelector(8, direction="dual"), None),
])
def test_numpy_route_gives_the_compiled_results(nothing_loaded, make, which):
    """On digits (p = 64) the route takes the NumPy kernels; forced compiled, the same supports
    and objectives (to rounding)."""
    X, y = load_digits(return_X_y=True)
    target = None if which is None else (y % 2 if which == "binary" else y)
    fit = (lambda est: est.fit(X)) if target is None else (lambda est: est.fit(X, target))
    numpy_est = fit(make())
    assert numpy_est.route_ == "numpy"
    with compiled_kernels(True):
        compiled_est = fit(make())
    np.testing.assert_array_equal(numpy_est.get_support(), compiled_est.get_support())
    np.testing.assert_allclose(numpy_est.objective_path_, compiled_est.objective_path_, rtol=1e-9, atol=1e-12)


@pytest.mark.skipif(not _routes.HAVE_NUMBA, reason="the compiled kernels need Numba")
def test_forced_compiled_kernels_are_reported(nothing_loaded):
    """Inside ``compiled_kernels(True)`` a fit whose route chose NumPy runs the compiled kernels, and
    says so (``route_``); one whose search has no Numba loop (a short two-class forward pass) stays
    ``'numpy'``."""
    X, y = load_digits(return_X_y=True)
    with compiled_kernels(True):
        dual = SparseLDASelector(8, direction="dual").fit(X, y % 2)
        forward = SparseLDASelector(8, direction="forward", refine=False).fit(X, y % 2)
    assert dual.route_ == "compiled" and "forced" in dual.route_reason_, dual.route_reason_
    assert forward.route_ == "numpy" and "forced" not in forward.route_reason_
    assert SparseLDASelector(8, direction="dual").fit(X, y % 2).route_ == "numpy"  # outside the block


def test_rule(nothing_loaded):
    assert compiled_pays(_routes.COMPILED_MIN_FEATURES - 1)[0] is False
    assert compiled_pays(_routes.COMPILED_MIN_FEATURES)[0] is True
    assert compiled_pays(None)[0] is True  # sizes unknown: the kernels' own default
    assert compiled_pays(64, rank=_routes.COMPILED_MAX_NUMPY_RANK + 1)[0] is True
    assert "NumPy kernels" in compiled_pays(64)[1]


def test_rule_without_numba(monkeypatch):
    monkeypatch.setattr(_routes, "HAVE_NUMBA", False)
    assert compiled_pays(4096) == (False, "Numba is not installed: the NumPy kernels")
    assert not compiled_enabled()


def _record_panel_kernel(monkeypatch):
    """Record what the binary kernel's helper hands back: the Numba kernel or None (NumPy loop)."""
    got = []
    original = _rank_one._compiled

    def recording(name):
        kernel = original(name)
        got.append(kernel is not None)
        return kernel

    monkeypatch.setattr(_rank_one, "_compiled", recording)
    return got


def _pair(p, seed=0):
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((2 * p, p))
    return rng.standard_normal(p), G.T @ G / (2 * p) + 0.1 * np.eye(p)


def test_entry_point_follows_the_size(nothing_loaded, monkeypatch):
    """A direct ``greedy_path`` decides by the size of its first argument: a small multiclass factor
    takes the NumPy kernels, a large one the compiled ones; a two-class vector the NumPy kernels at
    every size until its compiled ones are loaded (the loaded rule)."""
    got = _record_panel_kernel(monkeypatch)
    a, B = _pair(40)
    small = greedy_path(a, B)
    assert not any(got)  # a NumPy loop (p = 40: the unblocked one, which asks for no panel kernel)
    a_big, B_big = _pair(_routes.COMPILED_MIN_FEATURES)
    seen = []
    original = _routes._decided

    def recording(route, A, steps=None, family="greedy"):
        seen.append(original(route, A, steps, family))
        return seen[-1]

    monkeypatch.setattr(_routes, "_decided", recording)
    got.clear()
    big = greedy_path(a_big, B_big)
    assert seen == [False] and not any(got)  # p = 512, two classes: the NumPy panel loop
    M = np.random.default_rng(1).standard_normal((_routes.COMPILED_MIN_FEATURES, 3))
    greedy_path(M, B_big, max_k=3)
    greedy_path(M[:40], B, max_k=3)
    assert seen[1:] == [_routes.HAVE_NUMBA, False]  # a factor: the size rule
    if not _routes.HAVE_NUMBA:
        return
    got.clear()
    with compiled_kernels(True):  # forced: the outermost decision wins over the size
        forced = greedy_path(a, B)
        forced_big = greedy_path(a_big, B_big)
    assert got and all(got)  # the compiled panel loop
    np.testing.assert_array_equal(small.order, forced.order)
    np.testing.assert_allclose(small.objective, forced.objective, rtol=1e-10)
    np.testing.assert_array_equal(big.order, forced_big.order)
    np.testing.assert_allclose(big.objective, forced_big.objective, rtol=1e-10)


def test_sized_kernels_outermost_decision_wins(nothing_loaded):
    seen = []

    @sized_kernels
    def inner(A):
        seen.append(compiled_enabled())

    @sized_kernels
    def outer(A):
        inner(np.zeros(4096))  # a larger argument inside keeps the outer route
        seen.append(compiled_enabled())

    outer(np.zeros(8))
    assert seen == [False, False]
    assert compiled_enabled() == _routes.HAVE_NUMBA  # restored after the call


@pytest.mark.skipif(not _routes.HAVE_NUMBA, reason="the compiled kernels need Numba")
def test_loaded_kernels_take_small_problems(monkeypatch):
    """Once this process has imported a form's compiled kernels, small problems of that form run
    them (they cost nothing more to use); the other forms keep the NumPy kernels until theirs are."""
    from pixsel.spectral.greedy import _rank_one_jit  # noqa: F401 - what a large two-class fit imports

    monkeypatch.setitem(_routes.COMPILED_MODULES, "factor", ("pixsel._no_such_module_factor",))
    assert _routes.compiled_loaded("vector") and not _routes.compiled_loaded("factor")
    pays, why = compiled_pays(64, form="vector")
    assert pays and "loaded" in why
    assert compiled_pays(64, rank=9)[0] is False  # a factor: its kernels are not loaded
    r = _routes.choose("greedy", xp=np, n_samples=100, n_features=64, n_classes=2)
    assert r.name == "compiled" and "loaded" in r.reason
    assert _routes.choose("greedy", xp=np, n_samples=100, n_features=64, n_classes=10).name == "numpy"
    got = _record_panel_kernel(monkeypatch)
    a, B = _pair(40)
    path = greedy_path(a, B)
    assert got and all(got)  # the compiled panel loop, on a small problem
    with compiled_kernels(False):
        reference = greedy_path(a, B)
    np.testing.assert_array_equal(path.order, reference.order)
    np.testing.assert_allclose(path.objective, reference.objective, rtol=1e-10)


def test_a_routes_decision_is_followed(nothing_loaded, monkeypatch):
    """The route passed to an entry point decides (the fit's, resolved once), not the size again."""
    got = _record_panel_kernel(monkeypatch)
    a, B = _pair(40)
    numpy_route = _routes.choose("greedy", xp=np, n_samples=80, n_features=40, n_classes=2)
    assert numpy_route.name == "numpy"
    greedy_path(a, B, route=numpy_route)
    assert not any(got)  # the NumPy route's (unblocked) loop
    if _routes.HAVE_NUMBA:
        got.clear()
        greedy_path(a, B, route=dataclasses.replace(numpy_route, name="compiled"))
        assert got and all(got)


@pytest.mark.parametrize("make, target", [
    (lambda: SparseLDASelector(3), "binary"),
    (lambda: SparseLDASelector(3, solver="exact"), "binary"),
    (lambda: SparsePCASelector(3), None),
])
def test_fitted_route(nothing_loaded, make, target):
    """``route_`` and ``route_reason_`` say which kernels the fit ran, and why."""
    X, y = load_digits(return_X_y=True)
    X = X[:200, 20:44]
    est = make().fit(X, y[:200] % 2) if target else make().fit(X)
    assert est.route_ == "numpy"
    assert "NumPy kernels" in est.route_reason_ and "p = 24" in est.route_reason_


_FRESH_LARGE = r"""
import json, sys
import numpy as np
from pixsel import SparseLDASelector, SparsePCASelector
rng = np.random.default_rng(0)
X = rng.standard_normal((700, 520))  # p >= 512: the compiled route, whatever this process loaded
y = rng.integers(0, int(sys.argv[1]), 700)
X += 0.3 * rng.standard_normal((int(sys.argv[1]), 520))[y]
est = eval(sys.argv[2])
est = est.fit(X) if isinstance(est, SparsePCASelector) else est.fit(X, y)
numba = any(m == "numba" or (m.startswith("pixsel.") and m.endswith("_jit")) for m in sys.modules)
print(json.dumps({"route": est.route_, "reason": est.route_reason_, "numba": numba}))
"""


@pytest.mark.skipif(not _routes.HAVE_NUMBA, reason="the compiled route needs Numba")
@pytest.mark.parametrize("n_classes, make, compiled", [
    (5, "SparseLDASelector(8)", False),  # the correlation criterion's forward pass and swaps: BLAS work
    (5, "SparseLDASelector(8, criterion='trace', beam_width=3)", False),
    (5, "SparseLDASelector(8, stability=2, random_state=0)", False),
    (5, "SparseLDASelector(8, criterion='max-eig')", True),  # the secular steps
    (5, "SparseLDASelector(8, criterion='max-eig', direction='backward')", True),
    (2, "SparseLDASelector(3, solver='exact', time_limit=30)", None),  # the search's only engine: compiled
])
def test_fitted_route_says_whether_a_compiled_kernel_ran(n_classes, make, compiled):
    """On the compiled route (p >= 512), ``route_`` is ``'compiled'`` exactly when the fit ran a
    Numba kernel: the oracle is a fresh process, where a greedy kernel imports its Numba module
    right before its first compiled call; a search with no compiled kernel reports ``'numpy'``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _FRESH_LARGE, str(max(n_classes, 2)), make], capture_output=True,
                         text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert "p = 520 features: the Numba-compiled kernels" in got["reason"]
    if compiled is None:  # the exact search: the compiled route stands, whether its engine was needed or not
        assert got["route"] == "compiled" and "this one has none" not in got["reason"], got
        return
    assert got["numba"] == compiled, got
    assert got["route"] == ("compiled" if compiled else "numpy"), got
    assert ("this one has none" in got["reason"]) == (not compiled)


_FRESH_LOADED = r"""
import json, sys
import numpy as np
from pixsel import SparseLDASelector, SparsePCASelector
from pixsel._routes import compiled_kernels
rng = np.random.default_rng(0)
if sys.argv[1] == "pca":  # a full matrix
    X, y = rng.standard_normal((700, 520)) @ (np.eye(520) + 0.2 * rng.standard_normal((520, 520))), None
else:  # two classes: a vector
    X, y = rng.standard_normal((700, 520)), rng.integers(0, 2, 700)
    X += 0.3 * rng.standard_normal((2, 520))[y]
make = lambda: eval(sys.argv[2])
first = make().fit(X, y)
out = {"route": first.route_, "reason": first.route_reason_, "numba": "numba" in sys.modules}
with compiled_kernels(True):  # something loads the compiled kernels of this form
    forced = make().fit(X, y)
later = make().fit(X, y)
out.update(later_route=later.route_, later_reason=later.route_reason_,
           same=first.get_support().tolist() == later.get_support().tolist() == forced.get_support().tolist(),
           objectives=[first.objective_path_.tolist(), later.objective_path_.tolist()])
print(json.dumps(out))
"""


@pytest.mark.skipif(not _routes.HAVE_NUMBA, reason="the compiled route needs Numba")
@pytest.mark.parametrize("data, make, rule", [
    ("pca", "SparsePCASelector(8)", "a full matrix, a path of 8 steps"),
    ("lda", "SparseLDASelector(8, direction='backward')", "a two-class vector"),
    ("lda", "SparseLDASelector(8, direction='dual', path='full')", "a two-class vector"),
])
def test_loaded_only_forms_run_numpy_kernels_until_the_compiled_ones_are_loaded(data, make, rule):
    """Sparse PCA's short forward path (a full matrix) and two-class paths of any length (a
    vector: a backward pass, a whole dual path) take the NumPy kernels at every size in a fresh
    process, importing no Numba at p = 520; once the process has loaded the compiled kernels of
    their form, a fit at that size runs them (its ``route_`` says so: these searches have a Numba
    loop), with the same support and objectives."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _FRESH_LOADED, data, make], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["route"] == "numpy" and not got["numba"], got
    assert f"p = 520 features, {rule}: the NumPy kernels" in got["reason"]
    assert got["later_route"] == "compiled" and "has loaded their compiled kernels" in got["later_reason"], got
    assert got["same"]
    np.testing.assert_allclose(*got["objectives"], rtol=1e-9)


def test_full_matrix_rule(nothing_loaded):
    """The size rule does not apply to a full matrix's greedy kernels; the exact family keeps it."""
    big, short = _routes.COMPILED_MIN_FEATURES * 8, _routes.LOADED_ONLY_MAX_STEPS
    assert compiled_pays(big, form="full", steps=short)[0] is False
    # a longer path, or one of unknown length (a whole path), keeps the size rule
    assert compiled_pays(big, form="full", steps=short + 1)[0] is _routes.HAVE_NUMBA
    assert compiled_pays(big, form="full")[0] is _routes.HAVE_NUMBA
    assert compiled_pays(big, form="full", steps=short, family="exact")[0] is _routes.HAVE_NUMBA
    assert compiled_pays(big, form="factor", rank=4, steps=short)[0] is _routes.HAVE_NUMBA  # not a loaded-only form


def test_two_class_rule(nothing_loaded):
    """A two-class vector takes the loaded rule on a path of any length; the exact family keeps the
    size rule."""
    big = _routes.COMPILED_MIN_FEATURES * 8
    for steps in (None, 8, _routes.LOADED_ONLY_MAX_STEPS + 1, big):
        pays, why = compiled_pays(big, form="vector", steps=steps)
        assert pays is False and "a two-class vector: the NumPy kernels" in why
    assert compiled_pays(big, form="vector", family="exact")[0] is _routes.HAVE_NUMBA
    # paths over groups: a vector keeps the size rule, a full matrix's short path takes the loaded rule
    assert compiled_pays(big, form="vector", family="groups")[0] is _routes.HAVE_NUMBA
    assert compiled_pays(64, form="vector", family="groups")[0] is False
    assert compiled_pays(big, form="full", steps=8, family="groups")[0] is False


def test_group_paths_keep_the_size_rule_at_the_door(nothing_loaded, monkeypatch):
    """A direct ``group_greedy_path`` of a vector decides by the groups' rule (the size rule), a
    ``greedy_path`` of the same vector by the two-class loaded rule; a fit over groups says so."""
    from pixsel.spectral import group_greedy_path

    seen = []
    original = _routes._decided

    def recording(route, A, steps=None, family="greedy"):
        seen.append((family, original(route, A, steps, family)))
        return seen[-1][1]

    monkeypatch.setattr(_routes, "_decided", recording)
    a, B = _pair(_routes.COMPILED_MIN_FEATURES)
    groups = np.arange(a.size) // 4
    grouped = group_greedy_path(a, B, groups, max_k=3)
    greedy_path(a, B, max_k=3)
    assert seen == [("groups", _routes.HAVE_NUMBA), ("greedy", False)]
    with compiled_kernels(False):
        reference = group_greedy_path(a, B, groups, max_k=3)
    np.testing.assert_array_equal(grouped.order, reference.order)
    r = _routes.resize(_routes.choose("greedy", xp=np), n_samples=900, n_features=a.size, n_classes=2,
                       algorithm="dense", search="groups")
    assert r.name == ("compiled" if _routes.HAVE_NUMBA else "numpy")


def test_full_matrix_rule_at_the_kernels_doors(nothing_loaded):
    """A direct ``greedy_path`` of a full matrix follows the same rule: NumPy for a short forward
    path, the size rule for the whole path."""
    seen = []
    original = _routes._decided

    def recording(route, A, steps=None, family="greedy"):
        out = original(route, A, steps, family)
        seen.append(out)
        return out

    rng = np.random.default_rng(0)
    X = rng.standard_normal((600, 520))
    C = np.cov(X, rowvar=False)
    try:
        _routes._decided = recording
        path = greedy_path(C, max_k=5, certificate=None)
    finally:
        _routes._decided = original
    assert seen == [False] and path.order.size == 5
    assert _routes._decided(None, C) is _routes.HAVE_NUMBA  # the whole path: the size rule
    assert _routes._decided(None, C, 5) is False

