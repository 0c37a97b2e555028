"""The route table: the one place where pixsel decides *how* a kernel family runs.

Every public entry (a kernel door such as :func:`pixsel.spectral.greedy_path`, or an estimator's
``fit``) asks :func:`choose` for a :class:`Route` and follows it; nothing else branches on the
array library or on the sizes. The answer depends on the family, on where the data lives
(NumPy, another array library on a CPU or on a device, Dask) and, for the families that can work
without a ``p x p`` matrix, on the sizes. ``Route.name`` is one of:

==============  ================================================================================
``name``        what runs
==============  ================================================================================
``'dask'``      X is a Dask array: statistics chunk by chunk where the chunks live (the workers of
                a ``dask.distributed`` cluster), then the NumPy kernels on the small statistics.
``'implicit'``  no ``p x p`` matrix: the passes go through ``X`` (or a Gram operator), wherever X
                lives (``Route.backend`` says where: NumPy, a host view, a device, Dask chunks).
``'array_api'`` an array of another library on an accelerator (CUDA, CuPy, array-api-strict's
                fake devices, or any library inside the tests' private switch
                :func:`pixsel._array_api._force_array_api`): the array-API kernels on its device.
``'host'``      an array of another library on a CPU (a PyTorch ``cpu`` tensor,
                array-api-strict's ``CPU_DEVICE``): NumPy's kernels on host views (DLPack, no
                copy), the results back in X's library (the CPU policy of
                :mod:`pixsel._array_api`).
``'compiled'``  NumPy input to a family that has Numba kernels (greedy paths, exact search) and
                Numba installed, for a problem large enough to pay for loading them
                (:func:`compiled_pays`: ``p >= COMPILED_MIN_FEATURES``, or a multiclass
                numerator of rank above ``COMPILED_MAX_NUMPY_RANK``), or of any size once this
                process has loaded the compiled kernels of its form (:func:`compiled_loaded`:
                an earlier fit ran them, so they cost nothing more to use). Two-class paths and
                short forward paths of a full matrix (sparse PCA; :data:`LOADED_ONLY_FORMS`)
                take only the second rule: their NumPy kernels come close to the compiled ones,
                which a new process would spend half a second loading.
``'numpy'``     NumPy input otherwise: the NumPy kernels (the oracles of the compiled ones), which
                answer a small problem before Numba would have loaded, so a first fit on 8x8 digits
                neither compiles nor loads a compiled kernel.
==============  ================================================================================

The greedy kernels follow the compiled/NumPy decision through :func:`sized_kernels` (on the
entry points :func:`pixsel.spectral.greedy_path`, :func:`pixsel.spectral.refine_support`,
:func:`pixsel.spectral.rank_one_greedy_path` and the thresholding paths' prefix objectives:
the route passed to them, else the size of their first argument) and :func:`compiled_enabled`
(asked before a Numba module is imported). The exact searches (:func:`pixsel.spectral.exact_support`,
:func:`pixsel.spectral.exact_path`) resolve their route once and run their greedy starts under it
(:func:`follow`); their own compiled engines (``exact_path``'s tree, ``exact_support``'s partner
search) load when they run, at every size. A fitted :class:`~pixsel.SparseLDASelector` or
:class:`~pixsel.SparsePCASelector` keeps the name and the reason of its route (``route_``,
``route_reason_``) as the fit ran it: a ``'compiled'`` route whose search has no Numba loop (the
forward pass of the trace criterion, say) is reported as ``'numpy'``, which each greedy kernel
tells by :func:`note_compiled` on its compiled branch (:func:`record_compiled`).

The rows are tried in that order. Besides the greedy family's ``'compiled'`` size rule, the
size-dependent row is ``'implicit'``, and only for
the families of :data:`IMPLICIT_FAMILIES` under ``algorithm='auto'``: :func:`implicit_pays`
holds the rules, both with fewer samples than features (the dense matrix is then of rank below
``p``): ``p > 4096`` features (the dense ``p x p`` matrix would be over 128 MiB), or, for a
sparse LDA fit (``n_classes`` and ``k`` known), a cost model (:func:`path_costs`: forming,
inverting and eliminating from the ``p x p`` matrix against ``k`` columns through ``X``). Change a rule here, and its row
in ``tests/test_routes.py``; the estimators and kernels follow.

``algorithm`` forces the form: ``'dense'`` never takes the implicit row, ``'implicit'`` always
does (an error for a family without an implicit kernel). Where the data lives is not forced
here: it follows the data (scikit-learn's ``array_api_dispatch`` rule for estimators, see
:func:`pixsel._backend.fit_route`).

A fit resolves its route once: the estimator asks :func:`choose` for the data's placement
(:func:`pixsel._backend.fit_route`, before validation), completes that answer with the sizes
(:func:`resize`: the implicit and compiled rows) and passes it down (``route=``) to the kernels'
public entry points and the ``stats/`` functions it calls. Called on their own (``route=None``),
these ask the table for the arrays given; the ``stats/`` functions (and the other kernels that
run NumPy's code on host views of another library's CPU arrays) follow :func:`placement`, the one
rule for where a kernel runs.

Examples
--------
>>> import numpy as np
>>> r = choose("greedy", xp=np, n_samples=2414, n_features=1024, n_classes=38)
>>> r.name in ("compiled", "numpy"), r.algorithm
(True, 'dense')
>>> choose("greedy", xp=np, n_samples=2000, n_features=16384).name
'implicit'
>>> choose("greedy", xp=np, n_samples=2000, n_features=16384, algorithm="dense").algorithm
'dense'
>>> choose("statistics", xp=np, dask=True).name
'dask'
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import importlib.util
import sys

import numpy as np

from ._array_api import is_numpy, runs_on_host

__all__ = [
    "FAMILIES",
    "IMPLICIT_FAMILIES",
    "COMPILED_FAMILIES",
    "IMPLICIT_MIN_FEATURES",
    "DENSE_MATERIAL_FLOPS",
    "IMPLICIT_ADVANTAGE",
    "ROUTE_NAMES",
    "ALGORITHMS",
    "Route",
    "choose",
    "resize",
    "placement",
    "implicit_pays",
    "path_costs",
    "lowrank_backward_pays",
    "lowrank_backward_kernels",
    "COMPILED_MIN_FEATURES",
    "COMPILED_MAX_NUMPY_RANK",
    "COMPILED_MODULES",
    "LOADED_ONLY_FORMS",
    "compiled_pays",
    "compiled_loaded",
    "compiled_enabled",
    "note_compiled",
    "record_compiled",
    "require_compiled",
    "follow",
    "compiled_kernels",
    "sized_kernels",
]

#: The kernel families that have a route (one public door each).
FAMILIES = (
    "greedy",  # greedy sparse LDA / PCA paths (pixsel.spectral.greedy_path)
    "exact",  # branch and bound, exact paths (pixsel.spectral.exact_support / exact_path)
    "thresholding",  # simple and Fisher thresholding paths
    "statistics",  # class statistics, covariance, column statistics (pixsel.stats)
    "scores",  # subspace and classical feature scores (pixsel.scores)
    "pls",  # SIMPLS, SPLS-eta, cardinal SPLS (pixsel.pls)
    "projection",  # sparse-linear-model projections and manifold baselines (host-only fits)
)

#: Families with a kernel that needs no ``p x p`` matrix (``algorithm='implicit'``).
IMPLICIT_FAMILIES = frozenset({"greedy"})

#: Families whose NumPy route is a Numba-compiled kernel (its NumPy loop kept as the oracle).
COMPILED_FAMILIES = frozenset({"greedy", "exact"})

#: Compiled families whose kernels follow the size rule of :func:`compiled_pays` (their entry
#: points carry :func:`sized_kernels`; the exact searches' greedy starts follow their route).
SIZED_FAMILIES = frozenset({"greedy", "exact"})

#: Families whose kernels are branchy host work: arrays of another library are copied to the
#: host once and NumPy's kernels run (there is no array-API kernel).
HOST_ONLY_FAMILIES = frozenset({"exact", "projection"})

#: Families whose Dask route exists (statistics chunk by chunk, then the small kernels).
DASK_FAMILIES = frozenset({"greedy", "statistics", "scores", "thresholding"})

#: ``algorithm='auto'`` takes the implicit row above this many features (and with fewer samples
#: than features): a float64 ``p x p`` matrix of ``p = 4096`` is 128 MiB.
IMPLICIT_MIN_FEATURES = 4096

#: The route names, in the order their rows are tried.
ROUTE_NAMES = ("dask", "implicit", "array_api", "host", "compiled", "numpy")

#: The values of ``algorithm``: the form of the computation, not where it runs.
ALGORITHMS = ("auto", "dense", "implicit")

#: Whether Numba is installed (the extra ``numba``: ``pip install 'pixsel[numba]'``), asked without
#: importing it. Without it every greedy family runs its NumPy kernels, at every size; the exact
#: searches, compiled branch and bounds with no NumPy engine, refuse with :func:`require_compiled`.
HAVE_NUMBA = importlib.util.find_spec("numba") is not None

#: NumPy input with fewer features than this runs the NumPy kernels of the compiled families (the
#: oracles of the compiled ones): at these sizes they answer in milliseconds to a few tenths of a
#: second, less than a new process spends loading the compiled kernels from Numba's cache, and far
#: less than compiling them when the cache is empty (seconds per kernel family).
COMPILED_MIN_FEATURES = 512

#: ... and only while the numerator's rank is at most this (a factor ``M`` of ``r = C - 1``
#: columns): the NumPy multiclass passes solve a batch of ``r x r`` eigenproblems per step, which
#: grows as ``r^3``, where the compiled ones solve a secular equation per candidate.
COMPILED_MAX_NUMPY_RANK = 16

#: Numerator forms whose greedy kernels run compiled only once this process has loaded them, at
#: every size (the loaded rule of :func:`compiled_pays`), where loading them costs a new process
#: about half a second and compiling them, with an empty cache, some fifteen:
#:
#: * a vector (two-class LDA), on any path: its NumPy kernels are blocked BLAS, as fast as the
#:   compiled ones on a forward pass and within a fifth on the backward and dual passes (measured
#:   by hand on whole paths, one BLAS thread: 0.17 against 0.16 s for a backward pass and 0.22
#:   against 0.19 s for a dual pass of the 1024 pixels of Extended Yale B, 3.8 against 3.2 s for a
#:   dual pass of 64x64 Olivetti faces; 1.6 times as long, 0.12 against 0.075 s, in a backward fit
#:   by the ``n``-form pass on 190 faces), so a fit pays less than the load. Not its paths over groups of
#:   features, which keep the size rule: their NumPy block updates fall behind the compiled steps
#:   by more than the load on large images (3.6 against 2.1 s forward, 6.9 against 5.1 s backward,
#:   4096 pixels in 2x2 groups; 0.11 against 0.04 s at 1024);
#: * a full matrix (sparse PCA) on a forward path of at most :data:`LOADED_ONLY_MAX_STEPS` steps,
#:   whose NumPy kernels come within a few hundredths of a second of the compiled ones per fit
#:   (32x32 faces at k = 20: ``benchmarks/bench_first_fit.py --faces --compiled``, its "again"
#:   column).
LOADED_ONLY_FORMS = frozenset({"vector", "full"})

#: The most forward steps of a full matrix's path under the loaded rule: the NumPy kernels' excess
#: grows with the steps (measured by hand on the greedy path of a sample covariance, one BLAS
#: thread: 0.07-0.10 s at 128 steps on 48x48 and 64x64 Brodatz patches, 0.20-0.33 s at 256, 1.0 s
#: for the whole path of 1024 pixels of faces), and a longer path, or one of unknown length,
#: keeps the size rule. A vector's paths take the loaded rule at any length.
LOADED_ONLY_MAX_STEPS = 128

#: The Numba modules of the greedy kernels, by the form of the numerator (a vector for two-class
#: LDA, a factor for more classes, a full matrix for sparse PCA): once one is imported, this process
#: has run (compiled or loaded from Numba's cache) the kernels of that form. Each kernel's helper
#: imports its module right before its first compiled call, never ahead.
COMPILED_MODULES = {
    "vector": ("pixsel.spectral.greedy._rank_one_jit",),
    "factor": ("pixsel.spectral.greedy._multiclass_jit",),
    "full": ("pixsel.spectral.greedy._fullrank_jit",),
}

#: The route's decision in force for the kernels called now: None (no sized entry point above:
#: the kernels' own default, compiled), True (compiled) or False (NumPy). The outermost decision
#: wins, so every kernel of one fit follows the route its entry point chose.
_COMPILED = contextvars.ContextVar("pixsel_compiled_kernels", default=None)


def compiled_loaded(form=None) -> bool:
    """Whether this process has loaded the compiled greedy kernels of ``form`` already.

    True once the Numba module of that form (:data:`COMPILED_MODULES`) is imported: an earlier call
    ran its kernels, so Numba is imported and they are compiled or loaded; a later call pays
    nothing to use them. ``None``: the module of any form. A look-up in ``sys.modules``, nothing
    is imported.

    Examples
    --------
    >>> isinstance(compiled_loaded("vector"), bool)
    True
    """
    names = COMPILED_MODULES[form] if form is not None else [n for ns in COMPILED_MODULES.values() for n in ns]
    return "numba" in sys.modules and any(sys.modules.get(name) is not None for name in names)


def compiled_pays(n_features, rank=1, form=None, *, family="greedy", steps=None):
    """Whether a compiled family's kernels should run compiled on a NumPy problem of this size, and why.

    The compiled kernels run on large problems (``p >= COMPILED_MIN_FEATURES``, or a numerator of
    rank above :data:`COMPILED_MAX_NUMPY_RANK`), and on small ones once this process has loaded
    them (:func:`compiled_loaded`); the NumPy kernels on a small problem otherwise, where they
    answer sooner than Numba would load (or compile) the compiled ones. The greedy kernels of a
    vector (two-class LDA), and of a full matrix on a forward path of at most
    :data:`LOADED_ONLY_MAX_STEPS` steps (:data:`LOADED_ONLY_FORMS`), follow the second rule at
    every size: compiled once loaded, NumPy before.

    Parameters
    ----------
    n_features : int or None
        ``p``; None (unknown) keeps the compiled kernels.
    rank : int
        The numerator's rank (1 for a vector or a full matrix's rank-one steps, ``r`` for a factor).
    form : {'vector', 'factor', 'full'} or None
        The numerator's form, whose compiled kernels :func:`compiled_loaded` looks for; None: a
        factor when ``rank > 1``, else any form.
    family : str, default='greedy'
        The kernel family; the exact searches (``'exact'``) keep the size rule for their greedy
        starts (their own engines are compiled at every size); ``'groups'``, the greedy paths over
        groups of features, keep it for a vector (a full matrix's short paths take the loaded
        rule there too).
    steps : int or None
        The forward steps of the path the kernels run (None: unknown, or not a forward path).

    Returns
    -------
    pays : bool
    reason : str

    Examples
    --------
    >>> compiled_pays(1024)[0], compiled_pays(64, rank=40)[0]
    (True, True)
    >>> compiled_pays(1024, form="full", steps=20)[0] == compiled_loaded("full")   # sparse PCA: once loaded
    True
    >>> compiled_pays(1024, form="full")[0]   # a whole path: the size rule
    True
    >>> compiled_pays(64, form="vector")[0] == compiled_loaded("vector")
    True
    >>> compiled_pays(4096, form="vector")[0] == compiled_loaded("vector")   # two classes: once loaded
    True
    >>> compiled_pays(4096, form="vector", family="exact")[0]   # an exact search's greedy start: the size rule
    True
    >>> compiled_pays(4096, form="vector", family="groups")[0]   # a path over groups: the size rule
    True
    """
    if not HAVE_NUMBA:
        return False, "Numba is not installed: the NumPy kernels"
    if n_features is None:
        return True, "the Numba-compiled kernels"
    p, r = int(n_features), int(rank)
    if form is None and r > 1:
        form = "factor"
    short = steps is not None and int(steps) <= LOADED_ONLY_MAX_STEPS
    if form == "vector":  # any path, but not over groups: their steps keep the size rule
        loaded_only = family == "greedy"
    else:  # a full matrix's short forward path, over single features or groups
        loaded_only = form in LOADED_ONLY_FORMS and family in ("greedy", "groups") and short
    if loaded_only:
        what = "a two-class vector" if form == "vector" else f"a full matrix, a path of {int(steps)} steps"
        if compiled_loaded(form):
            return True, (f"p = {p} features, {what}, and this process has loaded their compiled kernels "
                          "already: the Numba-compiled kernels")
        near = ("as fast as the compiled ones or within a fifth" if form == "vector"
                else "within a few hundredths of a second of the compiled ones")
        return False, (f"p = {p} features, {what}: the NumPy kernels, {near}, which would cost this process "
                       "about half a second to load (seconds to compile)")
    if p >= COMPILED_MIN_FEATURES:
        return True, f"p = {p} features: the Numba-compiled kernels"
    if r > COMPILED_MAX_NUMPY_RANK:
        return True, f"a numerator of rank {r} > {COMPILED_MAX_NUMPY_RANK}: the Numba-compiled kernels"
    if compiled_loaded(form):
        return True, (f"p = {p} features, and this process has loaded the compiled kernels already: the "
                      "Numba-compiled kernels, faster than the NumPy ones once loaded")
    return False, (f"p = {p} < {COMPILED_MIN_FEATURES} features: the NumPy kernels, faster here than "
                   "loading (or compiling) the compiled ones")


def compiled_enabled() -> bool:
    """Whether a compiled family's kernel called now may run its Numba loops.

    True unless Numba is missing or the route in force (:func:`sized_kernels`,
    :func:`compiled_kernels`) chose the NumPy kernels. The kernels' ``_compiled`` helpers ask it
    before importing their Numba module, so a NumPy route never imports Numba.
    """
    return HAVE_NUMBA and _COMPILED.get() is not False


#: The records open in this context (:func:`record_compiled`), innermost last: each a one-item
#: list set to True when a greedy kernel runs a Numba loop (:func:`note_compiled`).
_RAN = contextvars.ContextVar("pixsel_compiled_ran", default=())


def note_compiled() -> None:
    """Say that a greedy kernel runs a Numba loop now: every open :func:`record_compiled` learns it.

    Called on the compiled branch of each greedy kernel (where it imports its Numba module), so a
    fit on the ``'compiled'`` route can tell whether its search had a compiled kernel at all.
    """
    for box in _RAN.get():
        box[0] = True


@contextlib.contextmanager
def record_compiled():
    """Within: a record (a one-item list, ``[False]`` at the start) that :func:`note_compiled` sets
    to ``[True]`` when a greedy kernel runs a Numba loop in this context (records nest: an inner
    fit's kernels also set the outer records; a thread started inside does not report to them)."""
    box = [False]
    token = _RAN.set(_RAN.get() + (box,))
    try:
        yield box
    finally:
        _RAN.reset(token)


def require_compiled(needed_for: str) -> None:
    """Refuse, before any work, what only the compiled kernels run when Numba is not installed.

    Raises :class:`pixsel._optional.MissingExtraError` (an ``ImportError``; the command line's exit
    2) naming the extra that installs Numba; nothing is imported to ask. ``needed_for`` completes
    "... needs the optional package 'numba'", e.g. ``"SparseLDASelector(solver='exact')"``.

    Examples
    --------
    >>> require_compiled("The exact search") if HAVE_NUMBA else None
    """
    if not HAVE_NUMBA:
        from ._optional import missing

        raise missing(extra="numba", package="numba", needed_for=needed_for)


@contextlib.contextmanager
def compiled_kernels(enabled):
    """Within: the compiled families' kernels run compiled (``True``) or NumPy (``False``),
    whatever the sizes (the warm-up and the oracle tests force one or the other); ``None``
    restores the sized rule."""
    token = _COMPILED.set(None if enabled is None else bool(enabled))
    try:
        yield
    finally:
        _COMPILED.reset(token)


def _size_of(A):
    """``(p, rank, form)`` of a kernel's first argument: a vector, a factor, a square matrix or an operator."""
    if hasattr(A, "p") and not hasattr(A, "shape"):
        return int(A.p), 1, None
    shape = getattr(A, "shape", None)
    if shape is None:
        return None, 1, None
    if len(shape) == 2 and shape[0] != shape[1]:
        return int(shape[0]), int(shape[1]), "factor"
    if len(shape) == 1:
        return int(shape[0]), 1, "vector"
    return (int(shape[0]) if len(shape) else None), 1, ("full" if len(shape) == 2 else None)


def _decided(route, A, steps=None, family="greedy"):
    """The compiled/NumPy decision for a call: its route's, when it is one of those two rows;
    :func:`compiled_pays` for the size of ``A`` otherwise (a direct call, or a route that
    placed the data elsewhere, such as Dask statistics handed to the NumPy kernels)."""
    if route is not None and route.name in ("compiled", "numpy"):
        return route.name == "compiled"
    return compiled_pays(*_size_of(A), family=family, steps=steps)[0]


@contextlib.contextmanager
def follow(route, A=None, *, steps=None, family="greedy"):
    """Within: the compiled families' kernels follow ``route`` (compiled or NumPy; for another row,
    the size of ``A`` and the forward ``steps`` of its path, by the rule of ``family``), unless an
    outer entry point or :func:`compiled_kernels` decided already.
    The exact searches run their greedy starts under it."""
    if _COMPILED.get() is not None:
        yield
        return
    token = _COMPILED.set(_decided(route, A, steps, family))  # compiled_kernels' effect, without its second generator
    try:
        yield
    finally:
        _COMPILED.reset(token)


def sized_kernels(fn=None, *, family="greedy"):
    """Decorate a kernel family's entry point: every kernel it calls follows the route passed to it
    (``route=``), or :func:`compiled_pays` for the size of its first argument (by the rule of
    ``family``: ``@sized_kernels(family='groups')`` for the paths over groups), unless an outer
    entry point or :func:`compiled_kernels` decided already."""
    if fn is None:
        return functools.partial(sized_kernels, family=family)

    @functools.wraps(fn)
    def entry(A, *args, **kwargs):
        steps = kwargs.get("max_k") if kwargs.get("direction", "forward") == "forward" else None
        with follow(kwargs.get("route"), A, steps=steps, family=family):
            return fn(A, *args, **kwargs)

    return entry


@dataclasses.dataclass(frozen=True)
class Route:
    """The route chosen for one call: which kernels run, where, and why.

    Attributes
    ----------
    name : str
        One of :data:`ROUTE_NAMES` (see the module's table).
    reason : str
        One sentence a reader (or a ``progress`` line) can print: the rule that fired.
    family : str
    algorithm : {'dense', 'implicit'}
        The form actually run (``'auto'`` resolved).
    backend : {'numpy', 'host', 'device', 'dask'}
        Where the arrays live and whose kernels run on them: NumPy arrays, another library's
        arrays on a CPU (NumPy kernels on host views), on a device (array-API kernels), Dask.
    xp : module
        The namespace of the results (NumPy for ``'numpy'`` and ``'dask'``).
    device : object or None
        The device of the results (None for NumPy).
    """

    name: str
    reason: str
    family: str
    algorithm: str
    backend: str
    xp: object = np
    device: object = None

    @property
    def implicit(self) -> bool:
        """True when no ``p x p`` matrix is formed."""
        return self.algorithm == "implicit"

    @property
    def foreign(self) -> bool:
        """True when the arrays are of another library (results go back to it, on its device)."""
        return self.backend in ("host", "device")

    @property
    def on_device(self) -> bool:
        """True when the array-API kernels run on the arrays' device."""
        return self.backend == "device"


#: The cost model takes the implicit form only when the dense form would cost more than this many
#: floating-point operations (several seconds on one core): below it the dense fit, dual pass
#: included, is interactive anyway and keeps every ``k``.
DENSE_MATERIAL_FLOPS = 1e10

#: ... and when the implicit form is at least this many times cheaper by the model (its passes
#: over ``X`` run at a lower rate than the dense kernels' BLAS-3 and compiled loops).
IMPLICIT_ADVANTAGE = 4.0


def path_costs(n_samples, n_features, n_classes, k):
    """Modelled floating-point operations of a sparse LDA fit by the dense and the implicit form.

    ``r = C - 1`` (at least 1) and ``k`` the size asked for:

    * dense: the within-class scatter ``n p^2``, the inverse of ``B`` and the backward pass's
      downdates of the dual pass ``~ p^3``, the forward pass ``p k (k + r^2)``;
    * implicit: ``k`` columns of ``B`` through ``X`` (two passes of ``n p`` each) and the same
      forward pass, ``2 n p k + p k (k + r^2)``; forward only.

    Examples
    --------
    >>> c = path_costs(400, 4096, 40, 20)
    >>> c["dense"] > 1e10, c["implicit"] < c["dense"] / 100
    (True, True)
    """
    n, p, k = int(n_samples), int(n_features), int(k)
    r = max(int(n_classes) - 1, 1) if n_classes is not None else 1
    forward = p * k * (k + r * r)
    return {"dense": float(n) * p * p + float(p) ** 3 + forward, "implicit": 2.0 * n * p * k + forward}


#: Whether the sparse LDA fits may take the backward pass in the ``n``-dimensional form (True, the
#: default) or keep the dense pass (False: to compare the two or time the choice).
_LOWRANK = contextvars.ContextVar("pixsel_lowrank_backward", default=True)


@contextlib.contextmanager
def lowrank_backward_kernels(enabled):
    """Within: the sparse LDA fits may take the ``n``-form backward pass (``True``) or never (``False``)."""
    token = _LOWRANK.set(bool(enabled))
    try:
        yield
    finally:
        _LOWRANK.reset(token)


def lowrank_backward_pays(route, n_samples, n_features, *, ridge, criterion, n_forced=0, n_excluded=0):
    """Whether the backward pass of a sparse LDA fit runs in the ``n``-dimensional form, and why.

    With fewer samples than features the regularized within-class covariance is
    ``B = lam I + U U^T`` with ``U`` of shape ``(p, n)`` (:func:`pixsel.stats.regularized_factor`),
    and :func:`pixsel.spectral.lowrank_backward_path` removes features by updates of an ``n x n``
    system, ``~ p^2 n + n^3`` operations instead of the dense pass's ``~ p^3``. It gives the dense
    pass's order; it runs when all of these hold:

    * NumPy arrays in memory (not Dask, not another library's arrays) and the dense form;
    * ``n < p``;
    * a ridge ``lam > 0`` (any regularization but ``'none'``);
    * a criterion that searches the pair ``(A, B)`` itself (``'trace'``, ``'max-eig'``), or
      ``(A, B + A)`` with ``A = M M^T`` of low rank (``'correlation'``, whose ``B + A`` is
      ``lam I + [U M] [U M]^T``: pass ``n_samples`` plus the columns of ``M``); not another
      criterion with ``needs_dense_pair``;
    * no forced and no excluded features;
    * not turned off by :func:`pixsel.config.lowrank_backward`.

    Parameters
    ----------
    route : Route
    n_samples, n_features : int
    ridge : float
        ``lam``, the multiple of the identity in the regularized ``B``.
    criterion : Criterion
        The fit's criterion object (:func:`pixsel.spectral.criterion_named`).
    n_forced, n_excluded : int
        The numbers of ``always_select`` and ``never_select`` features.

    Returns
    -------
    pays : bool
    reason : str

    Examples
    --------
    >>> from pixsel.spectral import criterion_named
    >>> r, trace = choose("greedy", xp=np, algorithm="dense"), criterion_named("trace")
    >>> lowrank_backward_pays(r, 50, 400, ridge=1.0, criterion=trace)[0]
    True
    >>> lowrank_backward_pays(r, 500, 400, ridge=1.0, criterion=trace)[0]
    False
    >>> lowrank_backward_pays(r, 50, 400, ridge=1.0, criterion=criterion_named("correlation"))[0]
    True
    >>> lowrank_backward_pays(r, 50, 400, ridge=1.0, criterion=criterion_named("column-subset"))[0]
    False
    """
    n, p = int(n_samples), int(n_features)
    if not _LOWRANK.get():
        return False, "the n-form backward pass turned off (pixsel.config.lowrank_backward): the dense backward pass"
    if route.backend != "numpy" or route.implicit:
        return False, f"the {route.backend} route with algorithm={route.algorithm!r}: the dense backward pass"
    if n >= p:
        return False, f"n = {n} >= p = {p}: B has full rank, the dense backward pass"
    if not ridge > 0:
        return False, "no ridge (regularization='none'): B is not lam I + U U^T, the dense backward pass"
    if criterion.needs_dense_pair and criterion.implicit_on_total is None:
        return False, f"criterion={criterion.name!r} searches another pair: the dense backward pass"
    if n_forced or n_excluded:
        return False, "always_select or never_select: the dense backward pass"
    return True, (f"n = {n} < p = {p}: B = lam I + U U^T, the backward pass by n x n updates "
                  f"(~{float(p) * p * n + float(n) ** 3:.2g} flops against ~{float(p) ** 3:.2g})")


def implicit_pays(n_samples, n_features, n_classes=None, k=None, forward_steps=None, row_products=False):
    """Whether ``algorithm='auto'`` should avoid the ``p x p`` matrix, and why.

    Three rules, all only with fewer samples than features (the ``p x p`` matrix is then of rank
    below ``p``, and the implicit form's passes over ``X`` cost less than forming it):

    * memory: ``p > IMPLICIT_MIN_FEATURES`` (a float64 ``p x p`` matrix over 128 MiB);
    * cost, when ``n_classes`` and ``k`` are known (a sparse LDA fit): the dense form would
      cost over :data:`DENSE_MATERIAL_FLOPS` and the implicit one is at least
      :data:`IMPLICIT_ADVANTAGE` times cheaper by :func:`path_costs`;
    * a forward pass alone (``forward_steps``: the fit runs the forward pass only, for that many
      steps, and reads nothing else of the ``p x p`` matrix): its passes over ``X``, ``2 n p``
      per step, at least :data:`IMPLICIT_ADVANTAGE` times cheaper than forming the matrix
      (``n p^2``, and the inverse ``p^3`` that the two-class kernel starts from), whatever the
      size: the dense form's extra work buys nothing the fit uses. ``row_products``: the fit also
      needs the ``n x n`` products of the rows (a Ledoit-Wolf intensity without the matrix,
      ``n^2 p``, matrix products at the rate of the dense form's), added to the passes' cost.

    The implicit form runs the forward pass only.

    Returns
    -------
    pays : bool
    reason : str

    Examples
    --------
    >>> implicit_pays(2000, 16384)[0], implicit_pays(2414, 1024)[0], implicit_pays(20000, 10000)[0]
    (True, False, False)
    >>> implicit_pays(400, 4096, 40, 20)[0], implicit_pays(400, 4096)[0], implicit_pays(200, 1024, 40, 50)[0]
    (True, False, False)
    >>> implicit_pays(190, 1024, 38, 10, forward_steps=10)[0], implicit_pays(190, 1024, 38, 200, forward_steps=200)[0]
    (True, False)
    >>> implicit_pays(31, 2000, 2, 10, forward_steps=10)[0], implicit_pays(900, 64, 10, 10, forward_steps=10)[0]
    (True, False)
    >>> implicit_pays(340, 1024, 68, 10, 10, row_products=True)[0], implicit_pays(1000, 1024, 10, 10, 10, True)[0]
    (True, False)
    """
    n, p = int(n_samples), int(n_features)
    if n >= p:
        return False, f"n = {n} >= p = {p}: the p x p matrix is cheaper than passes over X"
    if p > IMPLICIT_MIN_FEATURES:
        return True, f"p = {p} > {IMPLICIT_MIN_FEATURES} features and n = {n} < p: passes over X, no p x p matrix"
    if forward_steps is not None and n_classes is not None:
        formed = float(n) * p * p + (float(p) ** 3 if int(n_classes) <= 2 else 0.0)
        passes = 2.0 * n * p * int(forward_steps)
        products = float(n) * n * p if row_products else 0.0  # BLAS-3, at the dense kernels' rate
        if IMPLICIT_ADVANTAGE * passes + products < formed:
            return True, (f"n = {n} < p = {p}, a forward pass of {int(forward_steps)} steps: passes over X "
                          f"({passes + products:.2g} flops) cost less than forming the p x p matrix ({formed:.2g})")
    if n_classes is None or k is None:
        return False, f"p = {p} <= {IMPLICIT_MIN_FEATURES} features: the p x p matrix is small enough to form"
    cost = path_costs(n, p, n_classes, k)
    dense, implicit = cost["dense"], cost["implicit"]
    if dense > DENSE_MATERIAL_FLOPS and IMPLICIT_ADVANTAGE * implicit < dense:
        return True, (f"n = {n} < p = {p}, k = {k}: passes over X ({implicit:.2g} flops) cost less than "
                      f"forming and inverting the p x p matrix ({dense:.2g})")
    return False, (f"n = {n}, p = {p}, k = {k}: the p x p matrix costs {dense:.2g} flops against "
                   f"{implicit:.2g} for passes over X")


def _check(family, algorithm):
    if family not in FAMILIES:
        raise ValueError(f"Unknown kernel family {family!r}; choose one of {', '.join(map(repr, FAMILIES))}.")
    if algorithm not in ALGORITHMS:
        raise ValueError(
            f"The 'algorithm' parameter must be one of {', '.join(map(repr, ALGORITHMS))}. "
            f"Got {algorithm!r} instead."
        )
    if algorithm == "implicit" and family not in IMPLICIT_FAMILIES:
        raise ValueError(
            f"algorithm='implicit' exists only for the {', '.join(sorted(IMPLICIT_FAMILIES))} family; "
            f"the {family!r} family forms its matrices. Use algorithm='auto' or 'dense'."
        )


def _backend(family, xp, device, dask):
    """Where the arrays live and whose kernels run: the first four rows of the table."""
    if dask:
        if family not in DASK_FAMILIES:
            return "numpy", "a Dask array: this family runs on NumPy (compute the array first)"
        return "dask", "a Dask array: statistics chunk by chunk where the chunks live"
    if xp is None or is_numpy(xp):
        return "numpy", "NumPy arrays"
    if family in HOST_ONLY_FAMILIES:
        return "host", "no array-API kernel for this family: one host copy, NumPy's kernels"
    if runs_on_host(xp, device):
        return "host", f"arrays on a CPU ({device!r}): NumPy's kernels on host views"
    return "device", f"arrays on device {device!r}: the array-API kernels there"


def placement(xp, device=None, *, route=None, family="statistics"):
    """Where a kernel of ``family`` runs on arrays of ``xp`` on ``device``: ``'numpy'``, ``'host'``
    (another library on a CPU: NumPy's kernel on host views, no copy: the CPU policy of
    :mod:`pixsel._array_api`) or ``'device'`` (the array-API kernel there).

    The one rule the kernels and ``stats/`` functions follow: ``route`` (the :class:`Route` of the
    fit that calls them) decides when given, the table's placement rows otherwise (a direct call).

    Examples
    --------
    >>> import numpy as np
    >>> placement(np), placement(np, route=choose("statistics", dask=True))
    ('numpy', 'dask')
    """
    if route is not None:
        return route.backend
    return _backend(family, xp, device, False)[0]


def choose(
    family,
    *,
    xp=None,
    device=None,
    dask=False,
    n_samples=None,
    n_features=None,
    n_classes=None,
    k=None,
    algorithm="auto",
) -> Route:
    """The route of one call of a kernel family (see the module's table).

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`.
    xp : module or None
        The namespace of the arrays (None or NumPy for NumPy).
    device : object or None
        Their device.
    dask : bool
        True for a Dask ``X``.
    n_samples, n_features, n_classes, k : int or None
        The sizes; ``n_samples`` and ``n_features`` are needed for the implicit row under
        ``algorithm='auto'`` (without them the dense form is taken).
    algorithm : {'auto', 'dense', 'implicit'}
        Force the form, or let the table decide.

    Returns
    -------
    Route

    Raises
    ------
    ValueError
        An unknown family or algorithm, or ``'implicit'`` for a family without an implicit
        kernel.

    Examples
    --------
    >>> import numpy as np
    >>> r = choose("greedy", xp=np, n_samples=100, n_features=8192, algorithm="implicit")
    >>> r.name, r.backend
    ('implicit', 'numpy')
    >>> choose("pls", xp=np).name
    'numpy'
    """
    _check(family, algorithm)
    return _decide(family, xp, device, dask, n_samples, n_features, n_classes, k, algorithm)


def resize(route, *, family=None, n_samples=None, n_features=None, n_classes=None, k=None,
           algorithm="auto", forward_steps=None, row_products=False, path_steps=None, search=None) -> Route:
    """``route`` completed with the sizes a fit knows once its data is validated: the same
    placement (the data's library, device, Dask), the size-dependent rows (implicit, compiled)
    decided. An estimator's ``fit`` asks :func:`choose` once (before validation, for the placement)
    and completes that answer here; the kernels it calls receive the result (``route=``).
    ``forward_steps``: the fit runs a forward pass of that many steps and reads nothing else of
    the ``p x p`` matrix (the third rule of :func:`implicit_pays`); ``row_products``: it also needs
    the ``n x n`` products of the rows there.
    ``family`` (default: the route's) gives the same data's route for another family's kernels,
    such as the exact search that a greedy fit runs with ``solver='exact'``. ``path_steps``: the
    forward greedy steps the fit runs in all, when it runs only forward paths (the compiled rule
    of a full matrix, :func:`compiled_pays`). ``search``: the kernel family whose compiled rule
    the fit follows, when it is not the route's own: ``'exact'`` for a greedy selector with
    ``solver='exact'``, whose greedy path and exact search then take the exact family's size rule
    (the exact search's own route decides the same for the calls it makes); ``'groups'`` for a fit
    over groups of features.

    Examples
    --------
    >>> import numpy as np
    >>> r = resize(choose("greedy", xp=np), n_samples=100, n_features=8192)
    >>> r.name, r.backend
    ('implicit', 'numpy')
    """
    family = route.family if family is None else family
    _check(family, algorithm)
    return _decide(family, route.xp if route.foreign else None, route.device, route.backend == "dask",
                   n_samples, n_features, n_classes, k, algorithm, forward_steps, row_products, path_steps,
                   search)


def _decide(family, xp, device, dask, n_samples, n_features, n_classes, k, algorithm, forward_steps=None,
            row_products=False, path_steps=None, search=None):
    """The table's rows in order (:func:`choose` after its checks)."""
    backend, where = _backend(family, xp, device, dask)
    results_xp = xp if backend in ("host", "device") else np
    results_dev = device if backend in ("host", "device") else None
    route = dict(family=family, backend=backend, xp=results_xp, device=results_dev)

    if family in IMPLICIT_FAMILIES:
        if algorithm == "implicit":
            return Route("implicit", f"algorithm='implicit' asked; {where}", algorithm="implicit", **route)
        if algorithm == "auto" and n_samples is not None and n_features is not None:
            pays, why = implicit_pays(n_samples, n_features, n_classes, k, forward_steps, row_products)
            if pays:
                return Route("implicit", f"{why}; {where}", algorithm="implicit", **route)
            where = f"{why}; {where}"
    if backend == "dask":
        return Route("dask", where, algorithm="dense", **route)
    if backend == "device":
        return Route("array_api", where, algorithm="dense", **route)
    if backend == "host":
        return Route("host", where, algorithm="dense", **route)
    if family in COMPILED_FAMILIES:
        sized = family in SIZED_FAMILIES
        rank = 1 if n_classes is None else max(int(n_classes) - 1, 1)
        form = "full" if n_classes is None else ("vector" if rank == 1 else "factor")  # sparse PCA / LDA
        pays, why = compiled_pays(n_features if sized else None, rank, form, family=search or family,
                                  steps=path_steps)
        if pays:
            return Route("compiled", f"{where}: {why}", algorithm="dense", **route)
        return Route("numpy", f"{where}: {why}", algorithm="dense", **route)
    return Route("numpy", f"{where}: the NumPy kernels", algorithm="dense", **route)
