"""The public solvers: :func:`exact_support` (certified best-first branch and bound) and
:func:`plain_search` (ESLDA's depth-first search, a named baseline)."""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from ..._array_api import get_namespace, to_host
from ..._routes import choose, follow, require_compiled, resize
from ..._threads import blas_limit
from ..._validation import check_excluded, check_forced, check_int, check_options, check_pair, check_real
from .._criteria import MaxEig, spectral_criterion
from .._dispatch import greedy_path
from .._path import objective_on_support, weights_on_support
from ..bounds._certificates import inclusion_bounds
from ..greedy import refine_support
from ._exclude import lift_result, restrict_initial, restricted
from ._feasible import Feasibility
from ._force import forced_pair
from ._factor import BRANCH_RULES, FactorBnB
from ._full import FullBnB
from ._plain import PLAIN_BRANCH_RULES, plain_dfs
from ._result import ExactResult
from ._search import Search, Stop
from . import _allk_enum, _allk_numba, _swap

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from ..._routes import Route

__all__ = ["exact_support", "plain_search"]

#: Named bound sets of :func:`exact_support` (``bounds=``). For a full ``A`` with ``'max-eig'``
#: each is a tuple of the node bounds of :class:`~pixsel.spectral.exact._full.FullBnB`:
#: ``'row'`` (Gershgorin / Frobenius / trace from the ``k`` largest entries per row) and
#: ``'sdp'`` (the dual point of the sparse PCA semidefinite relaxation), ``'sdp-node'`` (that
#: dual point improved at every node by warm-started first-order steps); the inclusion bound is
#: always on. Vector and factor problems have their own cardinality bounds (forward / backward
#: gains and variable fixing): every set but ``'inclusion'`` turns them on.
BOUND_SETS = {
    "cardinality": ("row",),
    "inclusion": (),
    "sdp": ("row", "sdp"),
    "sdp-node": ("row", "sdp", "sdp-node"),
}
BOUNDS = tuple(BOUND_SETS)

#: Additive problems (a vector, or ``'trace'``) run a compiled exact search of size ``k`` beside
#: the branch and bound, sharing the time 1:1 and the incumbent, once the branch and bound has
#: run ``_PARTNER_AFTER`` seconds without finishing: the enumeration of every support of size
#: ``k`` (:mod:`._allk_enum`) for ``3 <= k <= _ENUM_MAX_FRACTION * p``, otherwise the
#: leaps-and-bounds tree of ``exact_path`` with size ``k`` alone open (:mod:`._allk_numba`). On
#: UCI Sonar (``p = 60``) and on 60 Extended Yale B pixels the enumeration partner certifies
#: sizes in the middle where the tree partner leaves gaps (bench_exact_speed). Tests switch it off (``_USE_PARTNER``), force it (``_PARTNER_AFTER = 0``) or
#: choose the tree (``_ENUM_MAX_FRACTION = 0``); either kernel only where its arrays fit in
#: ``_PARTNER_MAX_BYTES``.
_USE_PARTNER = True
_PARTNER_AFTER = 0.25
_ENUM_MAX_FRACTION = 1.0
_PARTNER_MAX_BYTES = 64 * 2**20


def _table_sizes(A):
    """The sizes the route table reads: ``p``, and the form of ``A`` told by the classes (two: a
    vector; ``r + 1``: a ``p x r`` factor; none: a full matrix)."""
    shape = tuple(getattr(A, "shape", np.shape(A)))
    factor = len(shape) == 2 and shape[0] != shape[1]
    return {"n_features": int(shape[0]) if shape else None,
            "n_classes": 2 if len(shape) == 1 else (int(shape[1]) + 1 if factor else None)}


def exact_route(route, A, B):
    """The route of one exact search, asked of the route table once (``'exact'`` family): where the
    arrays live (another library's are copied to the host: the search is branchy CPU work) and, by
    the size and form of ``A``, whether its greedy starts run the compiled kernels or the NumPy
    ones (:func:`pixsel._routes.compiled_pays`). A route given by a fit (of its own family, for
    example the greedy route of a selector with ``solver='exact'``) is completed with the sizes
    instead of asking again."""
    if route is None:
        xp, dev = get_namespace(A, B, names=["A", "B"])
        return choose("exact", xp=xp, device=dev, **_table_sizes(A))
    if route.family == "exact":
        return route
    return resize(route, family="exact", **_table_sizes(A))


def _on_host(route, A):
    """The route of the search's own greedy calls: its arrays are host NumPy arrays now (a copy of
    another library's), so the NumPy placement, compiled or NumPy kernels by the sizes."""
    if not route.foreign:
        return route
    host = dataclasses.replace(route, backend="numpy", xp=np, device=None)
    return resize(host, family="exact", **_table_sizes(A))


def _validate(A, B, k, criterion, owner):
    """Checked float64 ``(A, B, form, k, criterion)``; ``B`` is the identity when None.

    A square ``A`` is always read as the full symmetric matrix here (a factor is ``p x r`` with
    ``r != p``); ``A`` and ``B`` are symmetrized so that the bounds see exactly symmetric data.
    """
    A, B = to_host(A, B)  # statistics on a device (PyTorch, CuPy...): one host copy, the search is CPU work
    A0 = np.asarray(A)
    form = "vector" if A0.ndim == 1 else ("full" if A0.ndim == 2 and A0.shape[0] == A0.shape[1] else "factor")
    A, B = check_pair(A0, B, form=form, owner=owner)
    p = A.shape[0]
    if form == "full":
        A = (A + A.T) / 2
    elif A is A0:  # the caller's array: the search must not hold on to it
        A = A.copy()
    if B is None:
        B = np.eye(p)
    else:
        B = (B + B.T) / 2
        try:
            np.linalg.cholesky(B)
        except np.linalg.LinAlgError:
            raise ValueError(
                "B must be positive definite (its Cholesky factorization failed). Regularize it, for "
                "example with pixsel.stats.regularize(B, 'auto'), or pass B=None for the identity."
            ) from None
    k = check_int(k, "k", low=1, high=p, owner=owner)
    criterion = spectral_criterion(criterion, owner=owner)
    if form == "vector":
        criterion = MaxEig()  # both criteria coincide for A = a a^T
    return A, B, form, k, criterion


def _check_limits(time_limit, node_limit, gap_tol, owner):
    if time_limit is not None:
        time_limit = check_real(time_limit, "time_limit", low=0, owner=owner)
    if node_limit is not None:
        node_limit = check_int(node_limit, "node_limit", low=0, owner=owner)
    gap_tol = check_real(gap_tol, "gap_tol", low=0, owner=owner)
    return time_limit, node_limit, gap_tol


def _factor_of_psd(A):
    """``M`` with ``M M^T = A`` for a positive semi-definite symmetric ``A`` (else ValueError)."""
    vals, vecs = np.linalg.eigh(A)
    scale = max(float(np.max(np.abs(vals))), np.finfo(float).tiny)
    tol = A.shape[0] * np.finfo(float).eps * scale * 10
    if vals[0] < -1e-8 * scale:
        raise ValueError(
            "criterion='trace' needs a positive semi-definite A (the trace of an indefinite pair is "
            f"not monotone under inclusion, so no bound applies); A has eigenvalue {vals[0]:.3g}."
        )
    keep = vals > tol
    if not np.any(keep):
        keep[-1] = True
    return vecs[:, keep] * np.sqrt(np.maximum(vals[keep], 0.0))


#: above this many features the backward greedy pass (``O(p)`` deletions of ``O(p^2)`` each on a
#: full ``A``) is skipped at the start: forward greedy plus :func:`refine_support` instead
_BACKWARD_MAX_P = 256


def _start(A, B, form, k, criterion, initial, search, route=None):
    """Offer the incumbents: the dual-pass greedy supports (Moghaddam, Weiss and Avidan 2006, section 2.3) or ``initial``.

    For sparse PCA (full ``A``, ``B = I``, ``'max-eig'``) the best greedy support is then
    improved by :func:`refine_support` (truncated power steps and swaps; never worse); on more
    than ``_BACKWARD_MAX_P`` features the backward pass is skipped. For additive objectives (a
    vector, or a factor with ``'trace'``) each greedy support is improved by the closed-form
    1-swap local search of :mod:`._swap`.
    """
    p = A.shape[0]
    spca = form == "full" and criterion.largest_eigenvalue and np.array_equal(B, np.eye(p))
    if search.feasible is not None:
        # placement constraints: the caller's start where it satisfies them (the greedy passes do
        # not know them); without one the search starts with no incumbent
        if initial is not None:
            S = np.unique(np.asarray(initial, dtype=np.intp))
            if S.shape != (k,) or S.min() < 0 or S.max() >= p:
                raise ValueError(f"initial must hold {k} distinct indices in [0, {p - 1}]; got "
                                 f"{np.asarray(initial).tolist()}.")
            if search.forced is not None and np.setdiff1d(np.flatnonzero(search.forced), S).size:
                raise ValueError("initial must contain every always_select feature.")
            if search.feasible.admits(S):
                search.offer(objective_on_support(A, B, S, criterion=criterion), S)
        return
    if search.forced is not None:
        # forced features: the forward greedy from them (the only pass that keeps them for the
        # largest eigenvalue), or the caller's start, which must contain them; no swaps
        F = np.flatnonzero(search.forced)
        if initial is None:
            S = greedy_path(A, B, direction="forward", criterion=criterion, form=form, max_k=k, route=route,
                            always_select=F).support(k)
        else:
            S = np.unique(np.asarray(initial, dtype=np.intp))
            if S.shape != (k,) or S.min() < 0 or S.max() >= p or np.setdiff1d(F, S).size:
                raise ValueError(f"initial must hold {k} distinct indices in [0, {p - 1}] that contain every "
                                 f"always_select feature; got {np.asarray(initial).tolist()}.")
        search.offer(objective_on_support(A, B, S, criterion=criterion), S)
        return
    if initial is None:
        cands = [greedy_path(A, B, direction="forward", criterion=criterion, form=form, max_k=k,
                             route=route).support(k)]
        if not (form == "full" and p > _BACKWARD_MAX_P):
            search.backward_path = greedy_path(A, B, direction="backward", criterion=criterion, form=form,
                                               route=route)
            cands.append(search.backward_path.support(k))
    else:
        init = np.unique(np.asarray(initial, dtype=np.intp))
        if init.shape != (k,) or init.min() < 0 or init.max() >= p:
            raise ValueError(
                f"initial must hold {k} distinct indices in [0, {p - 1}]; got {np.asarray(initial).tolist()}."
            )
        cands = [init]
    for S in cands:
        search.offer(objective_on_support(A, B, S, criterion=criterion), S)
    if spca and initial is None and 1 < k < p:
        S, value, _ = refine_support(A, search.best_support)
        search.offer(value, S)
    if (form == "vector" or criterion.additive) and initial is None and 1 < k < p:
        # additive objectives: every greedy support is improved by the 1-swap local search (a full
        # positive semi-definite A on its factor, as the search itself runs it)
        M = A[:, None] if form == "vector" else (_factor_of_psd(A) if form == "full" else A)
        for S in cands:
            S, value, _ = _swap.swap_search(M, B, S)
            search.offer(value, S)


def keep_order(backward_path, p):
    """The features in the order a backward greedy path keeps them (the last one dropped first):
    the order in which the enumeration branches (its most important features first)."""
    seen = np.zeros(p, bool)
    order = []
    for j in range(1, p + 1):
        for i in backward_path.support(j):
            if not seen[i]:
                seen[i] = True
                order.append(int(i))
    return np.array(order, dtype=np.intp)


def _partner_kernel(kind, M, B, k, order, conflict=None):
    """The compiled search of size ``k`` a partner runs: the enumeration (branching in
    ``order``; ``conflict``: the pairs of features no support holds, or None) or
    ``exact_path``'s tree with every other size switched off."""
    p = B.shape[0]
    if kind == "enumeration":
        return _allk_enum.EnumKernel(M, B, k, order, np.full(k + 1, -np.inf), off=range(1, k), conflict=conflict)
    return _allk_numba.PathKernel.of_sizes(M, B, k, True, np.full(p + 1, -np.inf), [None] * (p + 1), [k])


#: the partner kinds whose kernels ran in this process (:func:`_warm_partner`)
_PARTNERS_READY = set()


def _warm_partner(kind):
    """Run the partner's kernel of this ``kind`` once, on a small problem, before it is timed.

    Compiles it (or loads it from Numba's cache) on the same argument types, so that the
    partner's first turn measures the search alone.
    """
    if kind in _PARTNERS_READY:
        return
    _PARTNERS_READY.add(kind)
    rng = np.random.default_rng(0)
    p = 8
    G = rng.standard_normal((2 * p, p))
    kern = _partner_kernel(kind, rng.standard_normal((p, 1)), G.T @ G / (2 * p) + 0.1 * np.eye(p), 3, np.arange(p))
    while kern.open:
        kern.step(_allk_enum.CHUNK if kind == "enumeration" else _allk_numba.CHUNK)


class _Partner:
    """A compiled exact search of size ``k`` run beside the branch and bound of an additive problem.

    ``kind`` is ``'enumeration'`` (every support of size ``k``, inclusion-pruned) or ``'tree'``
    (``exact_path``'s tree with every other size switched off). :meth:`turn`, called at every
    node, gives it as much time as the branch and bound has had (once that exceeds
    ``_PARTNER_AFTER``); the two share the incumbent both ways. When it completes, the incumbent is
    optimal and it raises ``Stop('optimal')``; a stopped tree still certifies a bound (its open
    subtrees), and the result reports the smaller of the two searches' bounds. The kernel is built
    on the first turn, so a branch and bound that finishes within ``_PARTNER_AFTER`` pays nothing.
    """

    def __init__(self, kind, M, B, k, search):
        self.kind, self.M, self.B, self.k, self.search = kind, M, B, k, search
        self.kern = None
        self.t_start = time.perf_counter()
        self.t_used = 0.0
        self.completed = False

    @staticmethod
    def choose(M, B, k, search):
        """The kind of partner for this problem, or ``None``. Under placement constraints only a
        minimum distance is known to a partner (the enumeration skips conflicting pairs), and only
        without features fixed in at the root."""
        p, r = M.shape
        if not _USE_PARTNER or search.node_limit is not None or not 2 <= k <= p - 2:
            return None
        constrained = search.feasible is not None
        if constrained and (not search.feasible.conflicts_only or search.forced is not None):
            return None
        if 3 <= k <= _ENUM_MAX_FRACTION * p and _allk_enum.enumeration_bytes(p, r, k) <= _PARTNER_MAX_BYTES:
            return "enumeration"
        if not constrained and (p + 1) * (p * p + p * r + r * r) * 8 <= _PARTNER_MAX_BYTES:
            return "tree"
        return None

    def _build(self):
        order = None
        if self.kind == "enumeration":
            # the start's backward path where it ran (any order is exact; this one prunes early)
            bw = self.search.backward_path
            if bw is None:
                bw = greedy_path(self.M, self.B, direction="backward", criterion="trace", form="factor",
                                 route=self.search.route)
            order = keep_order(bw, self.B.shape[0])
        feasible = self.search.feasible
        self.kern = _partner_kernel(self.kind, self.M, self.B, self.k, order,
                                    conflict=None if feasible is None else feasible.conflict)

    def _share_incumbent(self):
        """The branch and bound's incumbent prunes the partner's search."""
        search, kern, k = self.search, self.kern, self.k
        if search.best > kern.inc[k]:
            kern.inc[k] = search.best
            if self.kind == "enumeration":
                kern._inc0[k] = search.best  # reported only if beaten
            else:
                kern.inc_sup[k] = -1
                kern.inc_sup[k, :k] = search.best_support

    def _offer_found(self):
        search, kern, k = self.search, self.kern, self.k
        if self.kind == "enumeration":
            for value, S in kern.improved().values():
                if search.feasible is None or search.feasible.admits(S):  # (conflict-free by construction)
                    search.offer(value, S)
            kern._inc0[k] = kern.inc[k]
        else:
            inc, sup = kern.incumbents()
            if sup[k] is not None and inc[k] > search.best:
                search.offer(float(inc[k]), sup[k])

    def turn(self):
        now = time.perf_counter()
        bnb = now - self.t_start - self.t_used
        if self.completed or bnb < max(_PARTNER_AFTER, self.t_used):
            return
        search = self.search
        chunk = _allk_enum.CHUNK if self.kind == "enumeration" else _allk_numba.CHUNK
        try:
            if self.kern is None:
                # the partner is given the branch and bound's measured seconds: compiling its
                # kernel (seconds with an empty cache) counts for neither search
                _warm_partner(self.kind)
                compiled = time.perf_counter()
                self.t_start += compiled - now
                now = compiled
                self._build()
            kern = self.kern
            self._share_incumbent()
            deadline = math.inf if search.time_limit is None else search.t0 + search.time_limit
            while kern.open:
                kern.step(chunk)
                t = time.perf_counter()
                if self.t_used + (t - now) >= bnb or t > deadline:
                    break
        finally:
            self.t_used += time.perf_counter() - now
            if self.kern is not None:
                self._offer_found()
        if not self.kern.open:
            self.completed = True
            # every support of size k was valued or pruned against the incumbent: it is optimal
            # (a tolerance discard of the branch and bound no longer matters)
            search.tol_max = -math.inf
            raise Stop("optimal")

    def bound(self):
        """A certified bound on size ``k`` from a stopped tree (``inf`` where there is none)."""
        if self.kind != "tree" or self.kern is None or self.completed:
            return math.inf
        return float(self.kern.upper_bounds()[self.k])

    def info(self):
        kern = self.kern
        if kern is None:
            nodes = 0
        else:
            nodes = kern.n_nodes if self.kind == "enumeration" else int(kern.counters[0])
        return {"kind": self.kind, "started": kern is not None, "completed": self.completed, "nodes": nodes,
                "time_s": self.t_used}


def _closed_form(A, B, form, k, criterion, search):
    """``k = 1`` (the best single ratio ``A_ii / B_ii``) and ``k = p`` (the whole set)."""
    p = A.shape[0]
    if k == 1:
        diagA = A**2 if form == "vector" else (np.sum(A**2, axis=1) if form == "factor" else np.diag(A))
        S = [int(np.argmax(diagA / np.diag(B)))]
    else:
        S = np.arange(p)
    search.offer(objective_on_support(A, B, S, criterion=criterion), S)
    search.n_nodes = 1
    return "optimal"


def _result(A, B, form, k, criterion, search, status, t0):
    """The :class:`ExactResult` of a finished or stopped search (objective recomputed)."""
    p = A.shape[0]
    S = search.best_support
    obj = objective_on_support(A, B, S, criterion=criterion)
    enum = None if search.partner is None else search.partner.info()
    ub = search.upper_bound()
    if search.partner is not None and status != "optimal":
        # both searches certify a bound on size k: the smaller holds
        ub = min(ub, max(search.partner.bound(), search.best))
    if status == "optimal":
        # the search proved that no support beats the incumbent: its direct value is the optimum
        # (the incremental value it was compared with differs from it by rounding only)
        ub = obj
        if search.tol_max > max(obj, search.best):
            status = "gap_reached"
            ub = search.tol_max
    if status != "optimal" and criterion.additive and form != "vector":
        # the inclusion principle summed over the k largest generalized eigenvalues of the whole
        # pair bounds every support of size k (for the column subset: principal components)
        ub = min(ub, float(inclusion_bounds(A, B, criterion=criterion, form=form)[k - 1]))
    ub = max(ub, obj)
    if not math.isfinite(ub):
        ub = objective_on_support(A, B, np.arange(p), criterion=criterion)
    return ExactResult(
        support=S,
        objective=obj,
        weights=weights_on_support(A if form != "factor" else A @ A.T, B, S),
        upper_bound=float(ub),
        gap=float(max(ub - obj, 0.0)),
        n_nodes=search.n_nodes + (0 if enum is None else enum["nodes"]),
        time=time.perf_counter() - t0,
        status=status,
        k=k,
        criterion=criterion.name,
        info={} if enum is None else {"partner": enum},
    )


def _solve(A, B, k, owner, criterion, limits, initial, callback, options, run, route=None, forced=None,
           feasible=None):
    """Validate, resolve the route once (:func:`exact_route`), offer the incumbents (the greedy
    kernels on the route), then ``run(A, B, form, k, criterion, search)`` (unless a closed form
    applies) with BLAS on one thread, and build the result."""
    t0 = time.perf_counter()
    route = exact_route(route, A, B)
    A, B, form, k, criterion = _validate(A, B, k, criterion, owner)
    time_limit, node_limit, gap_tol = _check_limits(*limits, owner)
    for name, (value, choices) in options.items():
        check_options(value, name, choices, owner=owner)
    return _searched(A, B, form, k, criterion, (time_limit, node_limit, gap_tol), initial, callback, run,
                     _on_host(route, A), t0, forced=forced, feasible=feasible)


def _searched(A, B, form, k, criterion, limits, initial, callback, run, route, t0, halt=None, forced=None,
              feasible=None):
    """:func:`_solve` after the checks: the incumbents, the search (or a closed form) and the result.
    ``forced``: sorted indices every support contains (the root node's fixed-in set)."""
    time_limit, node_limit, gap_tol = limits
    with blas_limit(1):
        search = Search(A.shape[0], k, gap_tol, time_limit, node_limit, callback)
        search.t0, search.route, search.halt = t0, route, halt
        if forced is not None and len(forced):
            search.forced = np.zeros(A.shape[0], bool)
            search.forced[forced] = True
        search.feasible = feasible
        with follow(route):  # the greedy starts (and the swaps of sparse PCA) on the route
            _start(A, B, form, k, criterion, initial, search, route)
        if (k == 1 or k == A.shape[0]) and feasible is None:
            status = _closed_form(A, B, form, k, criterion, search)
        else:
            status = run(A, B, form, k, criterion, search)
        if search.best_support is None:  # (placement constraints) no support found
            raise ValueError(f"No support of size {k} satisfying the placement constraints was found"
                             + (" (the search stopped first: raise time_limit / node_limit)." if status != "optimal"
                                else ": none exists. Relax the constraints or lower k."))
        return _result(A, B, form, k, criterion, search, status, t0)


def _excluded_support(A, B, k, never_select, criterion, initial, options, always_select=None, feasible=None):
    """:func:`exact_support` without the features of ``never_select``, or None where it excludes
    none: the search on the other features, mapped back (:mod:`._exclude`); ``always_select``
    (checked, disjoint from them) is forced there too."""
    owner = "exact_support"
    A, B, form, k, _ = _validate(A, B, k, criterion, owner)
    p = A.shape[0]
    pair = restricted(A, B, form, never_select, k, owner)
    if pair is None:
        return None
    E, R, AR, BR = pair
    if initial is not None:
        given = initial
        initial = restrict_initial(initial, E, R, p, owner)
        if len(initial) != k:
            raise ValueError(f"initial must hold {k} distinct indices in [0, {p - 1}]; got {np.asarray(given).tolist()}.")
    forced = None if always_select is None else np.searchsorted(R, always_select).astype(np.intp)
    res = lift_result(exact_support(AR, BR, k, criterion=criterion, initial=initial, always_select=forced,
                                    constraints=None if feasible is None else feasible.restrict(R), **options),
                      R, E, p)
    if always_select is not None:
        res.info["always_select"] = np.asarray(always_select, dtype=np.intp).copy()
    return res


def _forced_support(A, B, k, always_select, never_select, criterion, initial, options, feasible=None):
    """:func:`exact_support` with the features of ``always_select`` in every support (and none of
    ``never_select``): ``(result, F)``. For objectives that add up over features, the forced
    features' objective plus the search of ``k - len(F)`` others on the pair given them
    (:mod:`._force`); otherwise ``(None, F)``, the checked forced features, which the search
    then fixes in at its root. ``(None, None)`` where it forces none."""
    owner = "exact_support"
    A, B, form, k, crit = _validate(A, B, k, criterion, owner)
    p = A.shape[0]
    F = check_forced(always_select, p, owner=owner)
    if not len(F):
        return None, None
    E = check_excluded(never_select, p, always_select=F, k=k, owner=owner)
    if len(F) > k:
        raise ValueError(f"{owner}: always_select has {len(F)} features, more than k = {k} (k counts the forced "
                         f"features); ask for k >= {len(F)} or force fewer.")
    R = np.setdiff1d(np.arange(p), np.union1d(F, E))
    t0 = time.perf_counter()
    inner_initial = None
    if initial is not None:
        S0 = np.unique(np.asarray(initial))
        if (S0.ndim != 1 or len(S0) != k or not np.issubdtype(S0.dtype, np.integer) or S0[0] < 0
                or S0[-1] >= p or np.setdiff1d(F, S0).size or np.intersect1d(S0, E).size):
            raise ValueError(f"{owner}: initial must hold {k} distinct indices in [0, {p - 1}] that contain every "
                             f"always_select feature and no never_select one; got {np.asarray(initial).tolist()}.")
        inner_initial = np.searchsorted(R, np.setdiff1d(S0, F)).astype(np.intp)
    if k > len(F) and (feasible is not None
                       or not (form == "vector" or crit.additive or (form == "factor" and A.shape[1] == 1))):
        # the largest eigenvalue of a matrix pair does not split, and placement constraints read the
        # whole support: the forced features fixed in at the root
        return None, F
    inner, f_forced = None, 0.0
    if k > len(F):
        M = A[:, None] if form == "vector" else (_factor_of_psd(A) if form == "full" else A)
        Mp, Bp, f_forced = forced_pair(M, B, F, R, owner)
        callback = options.get("callback")
        if callback is not None:  # the states in the whole problem's values: the forced features' objective added
            options = dict(options, callback=lambda st: callback(dataclasses.replace(
                st, incumbent=st.incumbent + f_forced, bound=st.bound + f_forced)))
        inner = exact_support(Mp[:, 0] if form == "vector" else Mp, Bp, k - len(F),
                              criterion="max-eig" if form == "vector" else "trace", initial=inner_initial,
                              **options)
        support = np.sort(np.concatenate([F, R[inner.support]]))
    else:
        support = F
        if feasible is not None and not feasible.admits(F):
            raise ValueError(f"No support of size {k} satisfying the placement constraints was found: the "
                             f"{k} always_select features break them. Relax the constraints or force others.")
    obj = objective_on_support(A, B, support, criterion=crit)
    status = "optimal" if inner is None else inner.status
    # as a search's own result: a proved optimum is the direct value of its support (the reduced
    # problem's value differs from it by rounding only); else the reduced certificate plus f(F)
    ub = obj if status == "optimal" else max(inner.upper_bound + f_forced, obj)
    info = {} if inner is None else dict(inner.info)
    info["always_select"] = F.copy()
    if len(E):
        info["never_select"] = E.copy()
    return ExactResult(
        support=support,
        objective=obj,
        weights=weights_on_support(A if form != "factor" else A @ A.T, B, support),
        upper_bound=float(ub),
        gap=float(max(ub - obj, 0.0)),
        n_nodes=0 if inner is None else inner.n_nodes,
        time=time.perf_counter() - t0,
        status=status,
        k=k,
        criterion=crit.name,
        info=info,
    ), F


def exact_support(
    A: ArrayLike,
    B: ArrayLike | None = None,
    k: int = 1,
    *,
    criterion: Literal["max-eig", "trace"] = "max-eig",
    time_limit: float | None = None,
    node_limit: int | None = None,
    gap_tol: float = 0.0,
    initial: ArrayLike | None = None,
    callback: Callable[..., Any] | None = None,
    branch_rule: Literal["important-include", "gain-include", "backward-exclude"] = "important-include",
    bounds: Literal["cardinality", "inclusion", "sdp", "sdp-node"] = "cardinality",
    fixing: bool | None = None,
    never_select: ArrayLike | None = None,
    route: Route | None = None,
    always_select: ArrayLike | None = None,
    constraints: Any = None,
) -> ExactResult:
    """The best support of size ``k`` for a sparse generalized eigenproblem, with a certificate.

    Maximizes ``f(S) = lambda_max(A_SS, B_SS)`` (``'max-eig'``, the generalized Rayleigh
    quotient, Eq. 3 of Moghaddam, Weiss and Avidan 2006) or ``tr(B_SS^{-1} A_SS)`` (``'trace'``) over ``|S| = k`` by
    branch and bound on the generalized inclusion principle (ibid., Theorem 1), initialized
    by the dual-pass greedy support (and ``initial``). See :mod:`pixsel.spectral.exact` for the
    bounds. BLAS runs on one thread inside the search (``pixsel._threads.blas_limit``): its many
    small factorizations only slow down with more; the limit is undone on return.

    For additive objectives (a vector ``a``, or ``'trace'``; no node limit) a branch and bound
    still open after 0.25 s is joined by a compiled exact search of size ``k``, the kernels of
    :func:`exact_path`: for ``3 <= k <= p - 2`` the enumeration of every support of size ``k``
    (where its arrays fit in 64 MiB), at ``k = 2`` the leaps-and-bounds tree with size ``k``
    alone open. The two share the time 1:1 and the incumbent; whichever finishes first proves
    the optimum, and a stopped solve reports the smaller of their certified bounds
    (``info['partner']``). On UCI Sonar (``p = 60``) the partner certifies sizes in the middle
    that the branch and bound alone leaves open (figures on the docs' benchmarks page).

    Parameters
    ----------
    A : ndarray of shape (p,), (p, r) or (p, p)
        A vector ``a`` (two-class LDA, ``A = a a^T``), a factor ``M`` with ``A = M M^T``
        (non-square), or a full symmetric matrix.
    B : ndarray of shape (p, p) or None
        Symmetric positive definite; ``None`` means the identity (sparse PCA). ``A`` and ``B``
        may be arrays of another library (statistics computed on a GPU): they are copied to
        the host once (the search is branchy CPU work).
    k : int
        Support size, ``1 <= k <= p``.
    criterion : {'max-eig', 'trace'}
        ``'trace'`` needs ``A`` positive semi-definite (vectors and factors always are). For a
        vector both criteria coincide.
    time_limit : float or None
        Seconds after which the search stops with status ``'time_limit'``.
    node_limit : int or None
        Number of nodes after which the search stops with status ``'node_limit'``.
    gap_tol : float, default 0
        Relative tolerance: nodes whose bound is within ``gap_tol * |incumbent|`` of the
        incumbent are discarded. With ``gap_tol > 0`` the search may end with ``'gap_reached'``.
    initial : array-like of int of shape (k,) or None
        The starting incumbent. ``None`` (default): the better of the forward and backward greedy
        supports (the dual pass of Moghaddam, Weiss and Avidan 2006, section 2.3). Given, the greedy passes are skipped
        (pass the dual-pass support when it is already known, e.g. from a greedy path).
    callback : callable or None, default None
        Called as ``callback(state)`` every 1024 nodes and once at the end, with a read-only
        :class:`SearchState` (``nodes``, ``incumbent``, ``bound``, ``gap``, ``elapsed``). The
        kernel draws nothing itself; :func:`pixsel._progress.search_progress` turns this into a
        progress bar for estimators and the CLI.
    branch_rule : {'important-include', 'gain-include', 'backward-exclude'}
        Branching variable of the vector / factor search (the best of the three measured by
        ``benchmarks/bench_exact_ablation.py`` is the default; see
        :data:`pixsel.spectral.exact._factor.BRANCH_RULES`).
    bounds : {'cardinality', 'inclusion', 'sdp', 'sdp-node'}
        ``'cardinality'`` (default): the cardinality-aware bounds and variable fixing besides the
        inclusion bound; ``'inclusion'``: the inclusion bound only (an ablation); ``'sdp'``
        (full ``A``, ``'max-eig'``; else as ``'cardinality'``): also the dual bound of the
        sparse PCA semidefinite relaxation, minimized once at the root by a first-order method
        and reused at every node (:mod:`pixsel.spectral.bounds._spca_bounds`; for ``B != I``
        divided by ``lambda_min(B)``); ``'sdp-node'``: that dual point further improved at every
        node (measured slower: benchmarks/bench_exact_ablation.py). See :data:`BOUND_SETS`.
    fixing : bool or None, default None
        Variable fixing in the full-matrix search (``A`` full, ``'max-eig'``): at every node
        the bound of each free variable's exclusion (``lambda_max`` on ``U - j`` from the node's
        eigendecomposition by a secular equation; with ``'sdp'`` also the dual bound on
        ``U - j``) is computed, and a variable whose exclusion cannot beat the incumbent is
        fixed in without branching. ``None``: on with every bound set but ``'inclusion'``.
        (Vector and factor problems always fix with their cardinality bounds.)
    never_select : array-like of int or None, default None
        Features no support may contain (FastCan's ``indices_exclude``). The search runs on the
        pair restricted to the other features (a support outside ``never_select`` reads only
        those rows and columns), so the certificate bounds every support of size ``k`` without
        them; ``support`` and ``weights`` are in the original indices and
        ``info['never_select']`` holds the sorted excluded indices. At least ``k`` features must
        be left, and ``initial`` may not contain excluded features.
    route : Route or None, default None
        Where the search's greedy starts run (:func:`pixsel._routes.choose`, ``'exact'`` family:
        the compiled greedy kernels or the NumPy ones, by the size); an estimator passes the
        route its ``fit`` resolved, None asks the route table once for the arrays given.
    always_select : array-like of int or None, default None
        Features every support contains (installed sensors, forced pixels), counted in ``k``.
        For objectives that add up over features, a vector ``a`` or ``'trace'`` (the column
        subset's kept mass is one): the objective of the forced features ``F`` plus that of the
        others given them (Schur complements of ``B_FF``, :mod:`pixsel.spectral.exact._force`),
        so the search runs on the pair of the other features at size ``k - len(F)``, and its
        certificate, raised by ``f(F)``, bounds every support of size ``k`` containing ``F``.
        The largest generalized eigenvalue of a matrix pair (``'max-eig'``, sparse PCA) does not
        split so: there ``F`` is fixed in at the root of the tree (every node's fixed-in set
        contains it), the search starts from the forward greedy from ``F``, and its bounds,
        valid for the supports of each node, bound the constrained problem.
        ``info['always_select']`` holds the sorted forced indices; ``initial`` must contain
        them.
    constraints : PlacementConstraints or None, default None
        Placement constraints (:func:`pixsel.scores.placement_constraints`): a budget on the
        features' costs, at most and at least so many per region, a minimum distance between
        chosen pixels (its installed and excluded pixels are ``always_select`` and
        ``never_select``). They change which supports count, not the objective, so the bounds
        still hold; each node is pruned when no feasible completion can exist, and the free
        features no feasible completion takes are excluded (:mod:`pixsel.spectral.exact._feasible`);
        every support offered is feasible. The greedy starts do not know them: ``initial``
        (a feasible support, e.g. the constrained greedy's) is the start, without it the search
        starts with none. Not with the largest eigenvalue of a full matrix ``A`` (sparse PCA).
        The compiled enumeration that joins the search of an additive objective after 0.25 s
        runs under a minimum distance alone (it skips the conflicting pairs), not beside a
        budget, regions or features fixed in with them. A ``ValueError`` when no feasible
        support exists.

    Returns
    -------
    ExactResult
        The support, objective, weights, certified ``upper_bound``, ``gap``, ``n_nodes``,
        ``time`` and ``status``. Ctrl-C during the search returns the best result so far with
        status ``'interrupted'`` (its bound is still certified).

    See Also
    --------
    plain_search : ESLDA's depth-first search (a baseline).

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.2, 0.9, 0.1])
    >>> B = np.eye(4) + 0.5 * np.ones((4, 4))
    >>> res = exact_support(a, B, 2)
    >>> res.status, res.support.tolist()
    ('optimal', [0, 2])
    """
    require_compiled("The exact search (exact_support)")  # a compiled branch and bound: Numba is optional
    forced = None
    feasible = constraints if constraints is None or isinstance(constraints, Feasibility) else \
        Feasibility.from_placement(constraints)
    if always_select is not None:
        options = dict(time_limit=time_limit, node_limit=node_limit, gap_tol=gap_tol, callback=callback,
                       branch_rule=branch_rule, bounds=bounds, fixing=fixing, route=route)
        res, forced = _forced_support(A, B, k, always_select, never_select, criterion, initial, options,
                                      feasible=feasible)
        if res is not None:
            return res
    if never_select is not None:
        options = dict(time_limit=time_limit, node_limit=node_limit, gap_tol=gap_tol, callback=callback,
                       branch_rule=branch_rule, bounds=bounds, fixing=fixing, route=route)
        res = _excluded_support(A, B, k, never_select, criterion, initial, options, always_select=forced,
                                feasible=feasible)
        if res is not None:
            return res
    use_bounds = bounds != "inclusion"

    def run(A, B, form, k, criterion, search):
        additive = form == "vector" or (criterion.additive or (form == "factor" and A.shape[1] == 1))
        if additive:  # (under placement constraints: a minimum distance alone, see _Partner.choose)
            M = A[:, None] if form == "vector" else (_factor_of_psd(A) if form == "full" else A)
            kind = _Partner.choose(M, B, k, search)
            if kind is not None:
                search.partner = _Partner(kind, M, B, k, search)
        if form == "full" and not criterion.additive:
            if search.feasible is not None:
                raise ValueError("exact_support: placement constraints (budget, regions, distance) run in the "
                                 "search of vectors and factors; the largest eigenvalue of a full matrix A "
                                 "(sparse PCA) takes always_select and never_select only.")
            return _run_full(A, B, k, search, bounds, use_bounds if fixing is None else bool(fixing))
        if form == "full":
            solver = FactorBnB(_factor_of_psd(A), B, k, criterion, search, branch_rule=branch_rule, use_bounds=use_bounds)
        else:
            solver = FactorBnB(A, B, k, criterion, search, branch_rule=branch_rule, use_bounds=use_bounds)
        p = A.shape[0]
        search.heap = [(-math.inf, 0, search.root_in(), np.ones(p, bool))]
        return search.run(solver.dive)

    options = {"branch_rule": (branch_rule, BRANCH_RULES), "bounds": (bounds, BOUNDS)}
    res = _solve(A, B, k, "exact_support", criterion, (time_limit, node_limit, gap_tol), initial, callback, options,
                 run, route, forced=forced, feasible=feasible)
    if forced is not None:
        res.info["always_select"] = forced.copy()
    return res


def _run_full(A, B, k, search, bounds, fixing, spectrum=None):
    """The branch and bound of a full ``A`` with ``'max-eig'`` (:class:`FullBnB`), its root keyed by
    the bound known before it (so that a search stopped before its first node still reports one)."""
    solver = FullBnB(A, B, k, search, bounds=BOUND_SETS[bounds],
                     sdp_time=None if search.time_limit is None else 0.25 * search.time_limit,
                     node_iter=10 if "sdp-node" in BOUND_SETS[bounds] else 0, fixing=fixing, spectrum=spectrum)
    p = A.shape[0]
    search.heap = [(-solver.root_bound(), 0, search.root_in(), np.ones(p, bool))]
    return search.run(solver.dive)


def spca_size(A: np.ndarray, k: int, time_limit: float, initial: np.ndarray, spectrum: tuple[float, float],
              halt: Any = None) -> ExactResult:
    """One size of :func:`~pixsel.spectral.exact.exact_spca_path`: ``exact_support(A, None, k,
    time_limit=time_limit, bounds='sdp', initial=initial)`` on an ``A`` the caller checked once
    (symmetric positive semi-definite float64, held unchanged) whose smallest and largest
    eigenvalues it passes (``spectrum``): the checks, the route and the eigendecomposition of
    ``A`` are not repeated at every size (on 1024 pixels about 0.15 s a size). ``halt`` (a
    ``threading.Event`` or None) stops the search at its next node once set (status
    ``'interrupted'``), for a search in a worker thread, which Ctrl-C does not reach."""
    t0 = time.perf_counter()

    def run(A, B, form, k, criterion, search):
        return _run_full(A, B, k, search, "sdp", True, spectrum)

    return _searched(A, np.eye(A.shape[0]), "full", k, MaxEig(), (time_limit, None, 0.0), initial, None, run,
                     _on_host(exact_route(None, A, None), A), t0, halt)


def plain_search(
    A: ArrayLike,
    B: ArrayLike | None = None,
    k: int = 1,
    *,
    criterion: str = "max-eig",
    time_limit: Any = None,
    node_limit: Any = None,
    initial: Any = None,
    callback: Any = None,
    branch_rule: Literal["lowest-index", "largest-ratio"] = "lowest-index",
    route: Route | None = None,
) -> ExactResult:
    """The paper's exact search (ESLDA, Moghaddam, Weiss and Avidan 2006), kept as a named baseline.

    Depth-first over the same ``(I, U)`` tree as :func:`exact_support`, with the inclusion bound
    ``f(U)`` only, evaluated from scratch at every node (one fresh factorization), started from
    the same incumbent. When a limit stops it, the only certificate a depth-first stack holds is
    the root bound ``f(all features)``. Use :func:`exact_support` for real work; this function
    exists so that benchmarks measure ESLDA through the public API.

    Parameters
    ----------
    A, B, k, criterion, time_limit, node_limit, initial, callback, route
        As in :func:`exact_support`.
    branch_rule : {'lowest-index', 'largest-ratio'}
        Which undecided feature to branch on (include child first): the lowest index (the
        paper), or the first in the static order of the single-feature objectives
        ``A_jj / B_jj``, largest first.

    Returns
    -------
    ExactResult

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.2, 0.9, 0.1])
    >>> B = np.eye(4) + 0.5 * np.ones((4, 4))
    >>> res = plain_search(a, B, 2)
    >>> res.status, res.support.tolist()
    ('optimal', [0, 2])
    """

    def run(A, B, form, k, criterion, search):
        p = A.shape[0]
        if branch_rule == "lowest-index":
            ranking = np.arange(p)
        else:
            diagA = A**2 if form == "vector" else (np.sum(A**2, axis=1) if form == "factor" else np.diag(A))
            ranking = np.lexsort((np.arange(p), -(diagA / np.diag(B))))
        return plain_dfs(lambda S: objective_on_support(A, B, S, criterion=criterion), p, k, search, ranking=ranking)

    options = {"branch_rule": (branch_rule, PLAIN_BRANCH_RULES)}
    return _solve(A, B, k, "plain_search", criterion, (time_limit, node_limit, 0.0), initial, callback, options, run,
                  route)
