"""The certified path: the best support of EVERY size in one search tree (leaps and bounds).

:func:`exact_path` solves ``max f(S)`` over ``|S| = k`` for all ``k = 1..max_k`` at once, in the
spirit of Furnival and Wilson's leaps and bounds (Technometrics 1974) for best-subset regression.
Two-class sparse LDA *is* best-subset regression: ``f(S) = a_S^T B_SS^{-1} a_S`` is increasing in
the ``R^2`` of regressing the class indicator on ``X_S``, and every ``f`` of
:mod:`pixsel.spectral.exact` is monotone under inclusion (Moghaddam, Weiss and Avidan 2006, Theorem 1).

Tree. A node is an ordered set ``S`` whose first ``m`` entries are fixed in; its subtree holds the
supports ``T`` with ``S[:m] <= T <= S`` (the "dropping columns" tree of the regression
literature). Its children drop one free variable each: the ``c``-th free variable (in decreasing
order of the loss its removal causes) is dropped with the ``c`` more important ones fixed, so
that every subset is reached exactly once and the largest subtrees get the smallest values.
Every node is a distinct support, so its value is a candidate of size ``|S|`` and, by
monotonicity, a bound for every size of its subtree: a child is expanded only while, for some
size ``j`` of its subtree, its bound beats the incumbent of size ``j`` (one bound per size, one
incumbent per size, seeded by the forward and backward greedy paths and, for additive problems,
raised by a 1-swap local search between sizes (:mod:`._swap`); an incumbent of size ``j - 1``
plus any feature is one of size ``j``, so the incumbents are kept non-decreasing).

Per-size bounds at a node (``F`` its free part, ``P = B_SS^{-1}``, ``W = P M_S``; vectors and
``'trace'``): ``f(S)`` (inclusion); backward ``f(S) - (sum of the |S| - j smallest losses
delta_i = |W_i|^2 / P_ii, i in F) / nu`` with ``nu >= lambda_max`` of the correlation matrix of
``P_FF`` (Gershgorin); forward ``f(S[:m]) + (sum of the j - m largest gains g_i) / mu`` with the
gains given the fixed part and ``mu <= lambda_min`` of the correlation matrix of the Schur
complement ``R = P_FF^{-1}`` (the bounds of :mod:`pixsel.spectral.exact`, one per size). For a
factor with ``'max-eig'`` the children's values are exact (batched ``r x r`` eigenproblems of the
downdated ``G = M_S^T P M_S``) and the forward bound holds by Weyl's inequality. A full symmetric
``A`` with ``'max-eig'`` is shifted to ``A + c B`` (positive semi-definite; every ``f`` moves by
``c``, so the optima are the same) and factored once.

Along the depth-first search a child's inverse is the parent's after one rank-one downdate; every
``_REFRESH`` levels it is refactorized from scratch to reset rounding. The open subtrees on the
stack carry their per-size bounds, so a stopped search (limits, Ctrl-C) still certifies, per
size, the largest open bound (and the sizes no open subtree can improve are optimal).

Small sizes and windows. The tree bounds a small size only through the value of a much larger
set, so for additive problems (a vector, or ``'trace'``) with at least ``_ENUM_MIN_FEATURES``
features the sizes ``3..K`` are first enumerated exactly (:mod:`._allk_enum`: every support in
lexicographic order, rank-one Schur-complement updates, exact pair loops at the last two
levels, inclusion-pruned; ``K`` the largest size within a work budget, 7 at ``p = 60``). The
compiled search then certifies the remaining sizes in windows of ``_WINDOW`` consecutive sizes,
the largest first, one tree per window with every other open size switched off: a tree that
keeps every size alive never finishes the sizes it could certify. The two meet in the middle:
before each window, while the enumeration's next size (that size alone: the smaller ones are
solved) is predicted to cost less than one size of the window (each from its last time and
growth), the enumeration goes first; and a window predicted to take ``PROBE_MIN_S`` seconds
or more is first probed by the enumeration of its largest size alone within the window's
predicted seconds per size (:func:`_probe_from_top`; an overrun ends the probing). On Sonar,
with no time limit: windows down to size 36, sizes 35..28 by probes, 8..27 one at a time from
the bottom. Under a time limit, when the next window is predicted to
need more than twice the time left, the enumeration is extended one size at a time while its
own predicted time fits; and the first window, whose time nothing predicts yet, gets a share
(``_FIRST_WINDOW_SHARE``) of the time left before the enumeration takes the rest from the bottom,
unless its largest size is at most half of the features (``_FIRST_WINDOW_MIN_FRACTION``): the
tree, which starts from the whole set, is then farther from it than the enumeration, which takes
the whole time at once.
In the
compiled search the per-size factors are cardinality-aware (``nu_t``, ``mu_t`` from the
``t - 1`` largest correlations per row, Gershgorin), the backward bound is also at most the
``t``-th smallest single loss (monotonicity), and the forward bound, which costs one inverse per
node, is only sampled once it has made fewer than half of the nodes it was tried on dead. Sizes no finished
window certifies are bounded by the open subtrees of the window that was stopped, or by the
whole set's value, for two-class LDA then by the perspective relaxation
(:mod:`pixsel.spectral.bounds._perspective`, valid at any dual point) and, with ``bounds='sdp'``,
by the rank-one (pairwise) convexification (:mod:`pixsel.spectral.bounds._sdp_root`: one or
two semidefinite relaxations, each of whose splits of ``B`` bounds every size), and every size's bound is
capped by the bound (or optimum) of the next larger size (monotonicity). Before those caps, the
incumbents of the open sizes of an additive problem are raised by a local search that also
exchanges two features at a time (:func:`._swap.two_swap_search`; the search's incumbents are
1-swap optima already), so that every reported gap is measured from the best support found.

Several cores (``n_jobs > 1``): the enumeration of one size and a window of the tree need nothing
from each other but incumbents, so the sizes become tasks on worker processes, the enumeration
from the bottom and the windows from the top, with a second route to each open size once every
size is held (:mod:`._allk_parallel`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..._routes import follow, require_compiled
from ..._threads import blas_limit
from ..._validation import check_int
from .._dispatch import greedy_path
from .._path import objective_on_support
from ..bounds._certificates import inclusion_bounds
from ..bounds._perspective import perspective_bounds_path
from ._result import CERTIFIED, STATUSES, SearchState, status_of_stop
from ._exclude import lift_path, restrict_initial, restricted
from ._search import count_node, run_until_stopped
from ._solve import _check_limits, _factor_of_psd, _on_host, _validate, exact_route, keep_order
from . import _allk_enum, _allk_numba, _allk_parallel, _swap

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Literal

    from numpy.typing import ArrayLike

    from ..._routes import Route

__all__ = ["ExactPath", "exact_path"]

PATH_STATUSES = STATUSES  # one vocabulary with exact_support (see _result.STATUSES)
#: refactorize the node inverse from scratch every this many levels of a dive
_REFRESH = 8
#: the compiled search (``_allk_numba``) runs where ``gap_tol == 0``;
#: tests switch it off to check the NumPy search against the same oracle
_USE_NUMBA = True
#: the search keeps one p x p inverse per tree level (p + 1 of them): above this it refuses
MAX_FEATURES = 256
#: additive problems with at least ``_ENUM_MIN_FEATURES`` features enumerate the sizes ``3..K``
#: (``_allk_enum``; ``K`` from its work budget) before the tree (below, the tree alone takes well
#: under a second); tests switch it off to exercise the tree on every size
_USE_ENUM = True
_ENUM_MIN_FEATURES = 24
#: the compiled search certifies the open sizes in windows of this many consecutive sizes, the
#: largest first (each window one tree, every other open size switched off)
_WINDOW = 4
#: under a time limit, the tree's first window may use this share of the time left before it
#: hands the rest to the enumeration from the bottom (no window time yet predicts whether it
#: finishes: on a 100-pixel image problem a window of large sizes can spend the whole limit
#: unfinished where the enumeration alone certifies the small sizes quickly)
_FIRST_WINDOW_SHARE = 0.1
#: ... but only when the window's largest size is above this fraction of the features: the tree
#: starts from the whole set and drops features, so a window at or below half of them is farther
#: from its start than from the enumeration's (on the 100 highest-variance USPS pixels with every
#: k <= 30, the tree certified nothing in its share and the enumeration lost that time); below,
#: the enumeration takes the whole time from the bottom
_FIRST_WINDOW_MIN_FRACTION = 0.5
#: rounds of refining the perspective relaxation's diagonal (``bounds._perspective.refine_diagonal``)
#: at the open size with the largest gap when a stopped two-class path is capped by the relaxation
_PERSPECTIVE_REFINE = 8
#: ``bounds='sdp'`` under a time limit: the share of it kept from the search for the semidefinite
#: relaxation that caps the open sizes (one solve, then one certified evaluation per open size)
_SDP_SHARE = 0.3
#: a stopped search's open sizes get a 2-swap local search from their incumbents
#: (:func:`._swap.two_swap_search`) where one sweep costs at most this much arithmetic
#: (:func:`._swap.two_swap_work`: the sizes up to 48 of 100 features, up to 32 of 256)
_TWO_SWAP_WORK = 1.5e8
#: ... and all of them together at most this much (deterministic, so that a path under a node limit
#: stays reproducible; a time limit caps the seconds as well)
_TWO_SWAP_TOTAL = 3e9
#: the bound sets of :func:`exact_path` (``bounds=``; the vocabulary of :func:`exact_support`)
PATH_BOUNDS = ("cardinality", "sdp")
#: ``n_jobs > 1`` starts worker processes (about a second) only from this many features on: below,
#: one process finishes first; tests lower it to run the parallel search on brute-force sizes
_PARALLEL_MIN_FEATURES = 24
#: the kinds of problem (additive or not) whose compiled kernels this process has run once
#: (:func:`_compile_kernels`)
_KERNELS_READY = set()


def _compile_kernels(additive, route=None):
    """Run the compiled route once, on small problems of the same kind (``additive`` or not),
    before the first search of the process times anything.

    The search plans from the seconds it measures (which sizes the enumeration takes, when a
    window is probed from the top, when the tree hands over): a first window or enumeration
    that includes Numba's compilation (seconds with an empty cache) looks slow and the plan goes
    wrong: on UCI Sonar every size took several times longer in a process whose cache was empty.
    With a filled cache this only loads the kernels. ``route``: the calling search's (its greedy
    starts' route), passed on so that the table is not asked again.
    """
    if additive in _KERNELS_READY:
        return
    _KERNELS_READY.add(additive)
    rng = np.random.default_rng(0)
    # at 24 features (_ENUM_MIN_FEATURES) the enumeration certifies every size of an additive
    # problem; at 12 the tree's windows do (the only route of a non-additive problem)
    for p in (24, 12) if additive else (12,):
        G = rng.standard_normal((2 * p, p))
        B = G.T @ G / (2 * p) + 0.1 * np.eye(p)
        if additive:
            exact_path(rng.standard_normal(p), B, route=route)
        else:
            F = rng.standard_normal((p, 2))
            exact_path(F @ F.T, B, criterion="max-eig", route=route)


@dataclass
class ExactPath:
    """The outcome of :func:`exact_path`: per size ``k = 1..max_k`` a support with a certificate.

    Attributes
    ----------
    supports : list of ndarray
        ``supports[k - 1]``: the sorted indices of the best support of size ``k`` found.
    objective : ndarray of shape (max_k,)
        Their objectives, recomputed from scratch (:func:`objective_on_support`).
    upper_bound : ndarray of shape (max_k,)
        Certified upper bounds: no support of size ``k`` has an objective above
        ``upper_bound[k - 1]``. Equal to ``objective`` where the status is ``'optimal'``.
    status : ndarray of str of shape (max_k,)
        Per size, the vocabulary of :class:`ExactResult`: ``'optimal'`` (proved),
        ``'gap_reached'`` (proved within ``gap_tol``) or, for a size not proved, why the search
        ended first: ``'time_limit'``, ``'node_limit'`` or ``'interrupted'`` (Ctrl-C); its bound
        is still certified. (Earlier versions wrote ``'stopped'`` for all three; :attr:`certified`
        is the test that reads both.)
    n_nodes : int
        Search-tree nodes expanded (one node = one support evaluated with all its children).
    time : float
        Wall-clock seconds.
    search_status : str
        The status of the whole path in the same words: ``'optimal'`` (every size proved
        optimal), ``'gap_reached'`` (every size proved, some within ``gap_tol``), else why the
        search ended (``'time_limit'``, ``'node_limit'`` or ``'interrupted'``). Replaces
        ``stop_reason`` (deprecated), whose ``'completed'`` it splits into the first two.
    criterion : str
    info : dict
        ``'greedy_forward'``, ``'greedy_backward'``: the objectives of the greedy supports that
        seeded the incumbents (the dual pass, per size); ``'form'``; ``'shift'``;
        ``'enumeration'``: the sizes enumerated exactly (``'max_size'``, ``'completed'``, and
        ``'extended'``: the sizes added when the tree handed its time over), its nodes, pair
        evaluations, pruned subtrees and seconds; ``'tree'``: windows searched and how often the
        forward bound was tried and made a node dead; ``'swap'``: the greedy incumbents the swap
        local search raised (``'improved'``) and its seconds; ``'parallel'``: ``'n_jobs'`` and,
        with more than one, ``'tasks'`` (kind, sizes, status and seconds of every task).
    """

    supports: list
    objective: np.ndarray
    upper_bound: np.ndarray
    status: np.ndarray
    n_nodes: int
    time: float
    search_status: str
    criterion: str = "max-eig"
    info: dict = field(default_factory=dict, repr=False)

    @property
    def max_k(self) -> int:
        return len(self.objective)

    @property
    def k(self) -> np.ndarray:
        """The sizes ``1..max_k``."""
        return np.arange(1, self.max_k + 1)

    @property
    def stop_reason(self) -> str:
        """Deprecated: use :attr:`search_status` (``'completed'`` here is ``'optimal'`` or
        ``'gap_reached'`` there; the limits are the same words)."""
        import warnings

        warnings.warn("ExactPath.stop_reason is deprecated and will be removed; use search_status, where "
                      "'optimal' or 'gap_reached' replace 'completed' (the limits keep their words).",
                      FutureWarning, stacklevel=2)
        return "completed" if self.search_status in CERTIFIED else self.search_status

    @property
    def gap(self) -> np.ndarray:
        """``upper_bound - objective`` per size (absolute, >= 0)."""
        return np.maximum(self.upper_bound - self.objective, 0.0)

    @property
    def relative_gap(self) -> np.ndarray:
        """The certified gap ``(upper_bound - objective) / |objective|`` per size (``inf`` where the
        objective is 0 and the gap is not), as defined in the documentation's exact-search page
        ("Status and certified gap")."""
        gap = self.gap
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(gap > 0, gap / np.abs(self.objective), 0.0)
        return np.where((gap > 0) & (self.objective == 0), np.inf, rel)

    @property
    def certified(self) -> np.ndarray:
        """Boolean per size: ``'optimal'`` or ``'gap_reached'``."""
        return np.isin(self.status, CERTIFIED)

    def support(self, k: int) -> np.ndarray:
        """The best support of size ``k`` found (sorted indices)."""
        k = check_int(k, "k", low=1, high=self.max_k, owner="ExactPath.support")
        return self.supports[k - 1]

    def to_dict(self) -> dict:
        """A JSON-ready summary (lists, per-size entries in the order ``k = 1..max_k``)."""
        return {
            "k": self.k.tolist(),
            "supports": [s.tolist() for s in self.supports],
            "objective": self.objective.tolist(),
            "upper_bound": self.upper_bound.tolist(),
            "relative_gap": [float(g) for g in self.relative_gap],
            "status": self.status.tolist(),
            "n_nodes": int(self.n_nodes),
            "time_s": float(self.time),
            "search_status": self.search_status,
            # the deprecated field in its old words, for readers of files written before
            "stop_reason": "completed" if self.search_status in CERTIFIED else self.search_status,
            "criterion": self.criterion,
        }


class _PathSearch:
    """Depth-first leaps-and-bounds search over the dropping-columns tree (see the module doc)."""

    def __init__(self, M, B, max_k, additive, gap_tol, time_limit, node_limit, callback):
        self.M = M
        self.B = B
        self.p, self.r = M.shape
        self.max_k = max_k
        self.additive = additive
        self.gap_tol = gap_tol
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.callback = callback
        p = self.p
        self.inc = np.full(p + 1, -np.inf)  # incumbent value per size (index = size)
        self.sup = [None] * (p + 1)
        self.theta = np.full(p + 1, -np.inf)
        self.tol_max = np.full(p + 1, -np.inf)  # largest bound discarded only because of gap_tol
        # sizes outside 1..max_k are never of interest: their threshold is +inf
        self.out = np.ones(p + 1, bool)
        self.out[1 : max_k + 1] = False
        self.stack = []
        self.current = None
        self.n_nodes = 0
        self.partner = None  # (count_node's turn for another search; the path search has none)
        self.halt = None  # (count_node's stop from another thread; the path search has none)
        self.node_offset = 0  # nodes spent before the tree (the enumeration of small sizes)
        self.tree_info = {"windows": 0, "forward_tried": 0, "forward_pruned": 0}
        self.enum = None  # a completed enumeration the tree may extend (see _extend_enumeration)
        self.t0 = time.perf_counter()

    # ---- incumbents
    def offer(self, value, support):
        """A support and its value; incumbents stay non-decreasing in the size."""
        j = len(support)
        if j == 0:
            self._refresh()
            return
        if not value > self.inc[j]:
            return
        S = np.sort(np.asarray(support, dtype=np.intp))
        self.inc[j] = value
        self.sup[j] = S
        # a support of size j plus any feature is one of size j + 1 at least as good
        if j < self.p and self.inc[j + 1] < value:
            free = np.ones(self.p, bool)
            free[S] = False
            rest = np.flatnonzero(free)
            while j < self.p and self.inc[j + 1] < value:
                S = np.sort(np.append(S, rest[0]))
                rest = rest[1:]
                j += 1
                self.inc[j] = value
                self.sup[j] = S
        self._refresh()

    def _refresh(self):
        inc = self.inc
        self.theta = inc + self.gap_tol * np.abs(np.where(np.isfinite(inc), inc, 0.0))
        self.theta[self.out] = np.inf

    # ---- limits and progress
    def tick(self):
        count_node(self, time_mask=31)  # the clock every 32 nodes

    def upper_bounds(self):
        """Certified bound per size (index = size): incumbents and every open subtree."""
        ub = np.maximum(self.inc, self.tol_max)
        entries = list(self.stack)
        if self.current is not None:
            entries.append(self.current)
        for lo, hi, frame, c in entries:
            eub = np.minimum(frame[5][lo : hi + 1], frame[7][c])
            np.maximum(ub[lo : hi + 1], eub, out=ub[lo : hi + 1])
        return ub

    def report(self):
        if self.callback is None:
            return
        ub = self.upper_bounds()[1 : self.max_k + 1]
        inc = self.inc[1 : self.max_k + 1]
        gaps = ub - inc
        j = int(np.argmax(gaps))
        self.callback(SearchState(
            nodes=self.n_nodes, incumbent=float(inc[j]), bound=float(ub[j]), gap=float(gaps[j]),
            elapsed=time.perf_counter() - self.t0,
        ))

    # ---- the tree
    def _fresh(self, S):
        BSS = self.B[np.ix_(S, S)]
        P = np.linalg.inv(BSS)
        P = (P + P.T) / 2
        W = P @ self.M[S]
        G = self.M[S].T @ W
        return P, W, (G + G.T) / 2

    def value_of(self, S):
        """``f(S)`` from scratch for the factor ``M`` (a square ``M`` is a factor here too)."""
        S = np.asarray(S, dtype=np.intp)
        return self._value(self._fresh(S)[2])

    def _value(self, G):
        if self.additive:
            return float(np.trace(G))
        return float(np.linalg.eigvalsh(G)[-1])

    def run(self):
        p = self.p
        S = np.arange(p)
        P, W, G = self._fresh(S)
        val = self._value(G)
        self.offer(val, S)
        # a frame is an expanded node: (S ordered with its first m fixed, m, P, W, G, ub, order,
        # cval, depth); an entry (lo, hi, frame, c) is its c-th child, built when popped
        root = (S, 0, P, W, G, np.full(p + 1, val), None, np.array([val]), -1)
        self.stack.append((1, min(p - 1, self.max_k), root, -1))

        def loop():
            while self.stack:
                e = self.stack[-1]
                self.tick()
                self.stack.pop()
                self.current = e
                self._expand(*self._child(*e))
                self.current = None

        return run_until_stopped(loop, self.report, "completed")

    def _child(self, lo, hi, frame, c):
        """The node of entry ``(lo, hi, frame, c)``: one rank-one downdate of the parent."""
        S, m, P, W, G, ub, order, cval, depth = frame
        if c < 0:  # the root
            return lo, hi, ub, S, m, P, W, G, 0
        t = m + int(order[c])
        idx = np.concatenate((np.arange(m), m + order[:c], m + order[c + 1 :]))
        Sc = S[idx]
        if (depth + 1) % _REFRESH == 0:
            Pc, Wc, Gc = self._fresh(Sc)
        else:
            u = P[:, t] / P[t, t]
            wt = W[t]
            Pc = (P - np.outer(u, P[t]))[np.ix_(idx, idx)]
            Wc = (W - np.outer(u, wt))[idx]
            Gc = G - np.outer(wt / P[t, t], wt)
        return lo, hi, np.minimum(ub, cval[c]), Sc, m + c, Pc, Wc, Gc, depth + 1

    def _expand(self, lo, hi, ub, S, m, P, W, G, depth):
        theta = self.theta
        if lo > hi or not np.any(ub[lo : hi + 1] > theta[lo : hi + 1]):
            self._record_tol(lo, hi, ub)
            return
        s = len(S)
        val = self._value(G)
        # ---- per-size bounds of this node (sizes lo..hi, all < s)
        Wf = W[m:]
        dP = np.diag(P)[m:]
        d2 = np.einsum("ij,ij->i", Wf, Wf) / dP  # additive: the exact loss of dropping i
        nf = s - m
        ub = ub.copy()
        sizes = np.arange(lo, hi + 1)
        absP = np.abs(P[m:, m:])
        if self.additive:
            isq = 1.0 / np.sqrt(dP)
            nu = max(1.0, float(np.max(isq * (absP @ isq))))
            csum = np.concatenate(([0.0], np.cumsum(np.sort(d2))))
            np.minimum(ub[lo : hi + 1], val - csum[s - sizes] / nu, out=ub[lo : hi + 1])
        # forward: f(S[:m]) + top gains given the fixed part / mu
        R = np.linalg.inv(P[m:, m:])
        R = (R + R.T) / 2
        Rm = R @ Wf
        GI = G - Wf.T @ Rm
        fI = self._value((GI + GI.T) / 2) if m > 0 else 0.0
        dR = np.diag(R)
        gains = np.einsum("ij,ij->i", Rm, Rm) / dR
        sq = np.sqrt(dR)
        mu = min(1.0, 1.0 / float(np.max(sq * (absP @ sq))))
        csum_g = np.concatenate(([0.0], np.cumsum(np.sort(gains)[::-1])))
        np.minimum(ub[lo : hi + 1], fI + csum_g[sizes - m] / mu, out=ub[lo : hi + 1])
        if not np.any(ub[lo : hi + 1] > theta[lo : hi + 1]):
            self._record_tol(lo, hi, ub)
            return
        # ---- children: drop the c-th free variable (most important first), fix the c before it
        if self.additive:
            cval = val - d2
        else:
            Gs = G[None, :, :] - Wf[:, :, None] * (Wf[:, None, :] / dP[:, None, None])
            cval = np.linalg.eigvalsh(Gs)[:, -1]
        order = np.argsort(cval, kind="stable")  # lowest child value (most important) first
        best = int(order[-1])
        if cval[best] > self.inc[s - 1]:
            self.offer(float(cval[best]), np.delete(S, m + best))
            theta = self.theta
        # child c covers sizes m + c .. s - 2; expand it when min(ub_j, cval) > theta_j for some j
        top = min(s - 2, hi)
        if top < max(m, 1):
            return
        T = np.where(ub > theta, theta, np.inf)
        T[self.out] = np.inf
        # suffix minimum of T over j = m + c .. top
        seg = T[m : top + 1]
        suff = np.minimum.accumulate(seg[::-1])[::-1]
        ncand = min(nf, top - m + 1)
        cv_sorted = cval[order[:ncand]]
        push = cv_sorted > suff[:ncand]
        if self.gap_tol > 0:
            for c in np.flatnonzero(~push):
                self._record_tol(max(m + c, 1), top, np.minimum(ub, cv_sorted[c]))
        if not np.any(push):
            return
        frame = (S, m, P, W, G, ub, order, cval[order], depth)
        for c in np.flatnonzero(push):
            self.stack.append((max(m + c, 1), min(s - 2, self.max_k), frame, int(c)))

    def _record_tol(self, lo, hi, ub):
        if self.gap_tol > 0 and lo <= hi:
            seg = ub[lo : hi + 1]
            keep = (seg > self.inc[lo : hi + 1]) & (seg <= self.theta[lo : hi + 1])
            if np.any(keep):
                np.maximum(self.tol_max[lo : hi + 1], np.where(keep, seg, -np.inf), out=self.tol_max[lo : hi + 1])


def _next_window(search, done):
    """The next window: the ``_WINDOW`` largest open sizes no finished window holds."""
    return [j for j in range(search.max_k, 0, -1) if not search.out[j] and j not in done][:_WINDOW]


def _run_compiled(search):
    """Run the compiled kernel in chunks, one tree per window of sizes (largest first: a window
    is searched with every other open size switched off, and certified when its tree is done);
    returns (stop_reason, inc, sup, ub, n_nodes) indexed by size."""
    p = search.p
    root = search.value_of(np.arange(p))
    ub = np.full(p + 1, root)  # sizes no finished window certifies keep the whole set's value
    stop_reason = "completed"
    n = 0
    done, window_times = set(), []
    probing = search.enum is not None and search.node_limit is None
    while True:
        window = _next_window(search, done)
        if window and _extend_wanted(search, window_times):
            # the next window would not finish: the time left goes to enumerating small sizes first
            stop_reason = _extend_enumeration(search)
            if stop_reason != "completed":
                break
            window = _next_window(search, done)
        while _enum_cheaper(search, window, window_times, done):
            # the enumeration's next size costs less than a size of the next window
            stop_reason = _enumerate_next(search)
            if stop_reason != "completed":
                break
            window = _next_window(search, done)
        if stop_reason != "completed" or not window:
            break
        if probing and search.enum is not None and window_times:
            predicted = _window_prediction(window, window_times, done)
            if predicted >= _allk_parallel.PROBE_MIN_S:
                stop_reason = _probe_from_top(search, window, predicted / len(window))
                if stop_reason == "completed":
                    continue
                if stop_reason != "budget":
                    break
                stop_reason, probing = "completed", False
        t_window = time.perf_counter()
        handover = None
        if (not window_times and search.enum is not None and search.time_limit is not None
                and search.node_limit is None):
            handover = t_window + _FIRST_WINDOW_SHARE * (search.t0 + search.time_limit - t_window)
            if max(window) <= _FIRST_WINDOW_MIN_FRACTION * p and not search.tree_info.get("skipped_first_window"):
                # the window is nearer the enumeration's end than the tree's: no share for it
                search.tree_info["skipped_first_window"] = True
                search.tree_info["handover_s"] = time.perf_counter() - search.t0
                stop_reason = _enumerate_until_stopped(search)
                if stop_reason == "completed":  # the enumeration met the top: any size left goes to the tree
                    continue
                break
        kern = _allk_numba.PathKernel.of_sizes(search.M, search.B, search.max_k, search.additive, search.inc,
                                               search.sup, window)
        stop_reason, stepped = _drive(
            search, kern, _allk_numba.CHUNK, lambda stepped, n=n: n + stepped, deadline=handover, late="handover",
            report=lambda stepped, n=n, kern=kern, window=window: _report_kernel(search, kern, n + stepped, window, ub),
        )
        n += stepped
        search.tree_info["forward_tried"] += int(kern.counters[1])
        search.tree_info["forward_pruned"] += int(kern.counters[2])
        search.tree_info["windows"] += 1
        inc, sup = kern.incumbents()
        for j in sorted(window, reverse=True):
            if inc[j] > search.inc[j]:
                search.offer(float(inc[j]), sup[j])
        if stop_reason == "completed":
            ub[window] = search.inc[window]
            done.update(window)
            window_times.append(time.perf_counter() - t_window)
            continue
        open_ub = kern.upper_bounds()
        if np.any(np.isinf(open_ub) & (open_ub > 0)):  # the root was never expanded
            open_ub = np.where(np.isinf(open_ub) & (open_ub > 0), root, open_ub)
        ub[window] = np.maximum(search.inc[window], open_ub[window])
        if stop_reason == "handover":
            # the first window did not finish in its share: the enumeration gets the rest
            search.tree_info["handover_s"] = time.perf_counter() - search.t0
            stop_reason = _enumerate_until_stopped(search)
            if stop_reason == "completed":  # the enumeration met the top: any size left goes to the tree
                continue
        break
    if search.callback is not None:
        _report_kernel(search, None, n, [], ub)
    return stop_reason, search.inc.copy(), list(search.sup), ub, n


def _drive(search, kern, chunk, used, *, deadline=None, late="budget", report=None):
    """Step a resumable compiled kernel ``chunk`` nodes at a time while it is ``open``, under the
    search's limits: the one driver of the tree's windows and of the enumerations.

    ``used(stepped)`` gives the nodes the node limit counts (``stepped``: the nodes stepped here
    so far, the sum of what ``kern.step`` returned); ``report(stepped)`` runs after every chunk
    when the search has a callback. Returns ``(stop_reason, stepped)``, the reason one of
    ``'completed'``, ``'node_limit'``, ``'time_limit'``, ``late`` (past ``deadline``) and
    ``'interrupted'`` (Ctrl-C).
    """
    stop_reason = "completed"
    stepped = 0
    try:
        while kern.open:
            budget = chunk
            if search.node_limit is not None:
                budget = min(budget, search.node_limit - used(stepped))
                if budget <= 0:
                    stop_reason = "node_limit"
                    break
            stepped += kern.step(budget)
            if search.time_limit is not None and time.perf_counter() - search.t0 > search.time_limit and kern.open:
                stop_reason = "time_limit"
                break
            if deadline is not None and time.perf_counter() > deadline and kern.open:
                stop_reason = late
                break
            if search.callback is not None and report is not None:
                report(stepped)
    except KeyboardInterrupt:
        stop_reason = "interrupted"
    return stop_reason, stepped


def _report_kernel(search, kern, n, window, ub):
    """Progress: the size with the largest gap (closed sizes have none; the window's bounds come
    from the open subtrees, the other sizes' from ``ub``)."""
    inc = search.inc.copy()
    ub = ub.copy()
    if kern is not None:
        kinc, _ = kern.incumbents()
        kub = kern.upper_bounds()
        inc[window] = np.maximum(inc[window], kinc[window])
        ub[window] = np.maximum(inc[window], kub[window])
    closed = search.out  # solved in closed form (or beyond max_k): no gap
    inc, ub = inc[1 : search.max_k + 1], ub[1 : search.max_k + 1]
    with np.errstate(invalid="ignore"):
        gaps = np.where(closed[1 : search.max_k + 1], 0.0, np.maximum(ub - inc, 0.0))
    j = int(np.argmax(gaps))
    search.callback(SearchState(nodes=n + search.node_offset, incumbent=float(inc[j]), bound=float(inc[j] + gaps[j]),
                                gap=float(gaps[j]), elapsed=time.perf_counter() - search.t0))


def _enumerate_small(search):
    """Sizes 1, 2 (every pair, a 2 x 2 generalized eigenproblem in closed form) and ``p`` are
    solved by enumeration in ``O(p^2 r)``; the search then ignores them. Returns their sizes."""
    M, B, p = search.M, search.B, search.p
    closed = {}
    d = np.diag(B)
    n2 = np.einsum("ij,ij->i", M, M)
    single = n2 / d
    i = int(np.argmax(single))
    search.offer(float(single[i]), [i])
    closed[1] = [i]
    if p >= 2 and search.max_k >= 2:
        a12 = M @ M.T
        det = np.outer(d, d) - B**2
        np.fill_diagonal(det, 1.0)
        tr = (np.outer(n2, d) + np.outer(d, n2) - 2 * a12 * B) / det  # sum of the two eigenvalues
        if search.additive:
            val = tr
        else:
            prod = (np.outer(n2, n2) - a12**2) / det
            val = (tr + np.sqrt(np.maximum(tr**2 - 4 * prod, 0.0))) / 2
        val[np.tril_indices(p)] = -np.inf
        i, j = np.unravel_index(int(np.argmax(val)), val.shape)
        S = [int(i), int(j)]
        search.offer(search.value_of(S), S)  # the closed form picks it; its value from scratch
        closed[2] = S
    closed[p] = list(range(p))
    search.closed = {}
    for j in closed:
        if j <= search.max_k:
            search.closed[j] = (search.inc[j], search.sup[j], search.inc[j])
            search.out[j] = True
    search.offer(-np.inf, [])  # refresh the thresholds
    return list(search.closed)


def _enumerate_sizes(search, order):
    """Sizes ``3..K`` of an additive problem by enumeration (:mod:`._allk_enum`), ``K`` the
    largest size within the work budget, under the search's limits. Returns ``(stop_reason,
    sizes closed, info)``; a stopped enumeration closes nothing but its incumbents are offered.
    A completed one leaves ``search.enum`` so that the tree can extend it (:func:`_extend_enumeration`)."""
    K = _allk_enum.enumeration_size(search.p, search.r, search.max_k)
    info = {"max_size": K, "nodes": 0, "pair_evaluations": 0, "pruned": 0, "time_s": 0.0, "completed": True,
            "extended": 0, "from_top": [], "size_s": {}}
    if K < 3:
        return "completed", [], info
    t = time.perf_counter()
    root = search.value_of(np.arange(search.p)) if search.callback is not None else None
    stop_reason, kern = _run_enum(search, order, K, root)
    _account_enum(info, kern, time.perf_counter() - t)
    info["completed"] = stop_reason == "completed"
    if stop_reason != "completed":
        return stop_reason, [], info
    search.enum = {"order": order, "K": K, "times": [time.perf_counter() - t], "info": info, "root": root}
    return stop_reason, _close_enumerated(search, K), info


def _account_enum(info, kern, seconds):
    info["nodes"] += kern.n_nodes
    info["pair_evaluations"] += int(kern.state[2])
    info["pruned"] += int(kern.state[3])
    info["time_s"] += seconds


def _close_enumerated(search, K, low=3):
    """Mark the sizes ``low..K`` solved (an enumeration of them completed); returns the new ones."""
    sizes = [j for j in range(low, K + 1) if j not in search.closed]
    for j in sizes:
        search.closed[j] = (search.inc[j], search.sup[j], search.inc[j])
        search.out[j] = True
    search.offer(-np.inf, [])  # refresh the thresholds
    return sizes


def _extend_wanted(search, window_times):
    """Whether the tree should hand its time to the enumeration before its next window: under a
    time limit (and no node limit), once the last window took over a second and the next one,
    predicted as the last one's time times its growth over the one before, would need more than
    twice the time left (the windows' growth itself grows, on Sonar from 2.5 to 7 per four sizes,
    so a near miss of the prediction is left to the window: handing over then can cost the window
    its four sizes for one enumerated size)."""
    if search.enum is None or search.time_limit is None or search.node_limit is not None or len(window_times) < 2:
        return False
    last, before = window_times[-1], window_times[-2]
    if last < 1.0:
        return False
    left = search.t0 + search.time_limit - time.perf_counter()
    return last * max(last / max(before, 1e-3), 1.0) > 2.0 * left


def _enum_next(search):
    """The next size the enumeration would add and its predicted seconds, or ``None`` when it
    has met the sizes the tree closed (or the top). The prediction is the last enumeration's time
    times the growth over the one before; before two are timed, times the growth of the
    enumeration's unpruned work estimate (pessimistic: pruning slows the growth)."""
    en = search.enum
    if en is None:
        return None
    K = en["K"]
    if K + 1 > min(search.max_k, search.p - 1) or search.out[K + 1]:
        return None
    times = en["times"]
    if len(times) > 1:
        growth = times[-1] / max(times[-2], 1e-6)
    else:
        growth = _allk_enum.enumeration_growth(search.p, search.r, K)
    return K + 1, times[-1] * max(growth, 1.0)


def _enumerate_next(search):
    """Enumerate the next size (the sizes ``1..K`` are solved: that size alone); returns the stop
    reason (``'completed'`` unless a limit or Ctrl-C ended it). A completed size is closed."""
    en = search.enum
    K = en["K"]
    t = time.perf_counter()
    stop_reason, kern = _run_enum(search, en["order"], K + 1, en["root"], off=range(1, K + 1))
    en["times"].append(time.perf_counter() - t)
    _account_enum(en["info"], kern, en["times"][-1])
    en["info"]["size_s"][K + 1] = en["times"][-1]
    if stop_reason == "completed":
        en["K"] = K + 1
        en["info"]["max_size"] = K + 1
        en["info"]["extended"] += 1
        _close_enumerated(search, K + 1)
    return stop_reason


def _enum_cheaper(search, window, window_times, done):
    """Whether the enumeration's next size is predicted to cost less than one size of the tree's
    next window (:func:`_window_prediction`, shared by its sizes): the tree certifies the sizes
    from the top, the enumeration from the bottom, and each step goes to the cheaper of the two,
    so that they meet where their costs cross (with or without a time limit; never under a node
    limit, which keeps the search reproducible)."""
    if not window or not window_times or search.node_limit is not None:
        return False
    nxt = _enum_next(search)
    if nxt is None:
        return False
    return nxt[1] < _window_prediction(window, window_times, done) / len(window)


def _window_prediction(window, window_times, done):
    """Predicted seconds of the tree's next ``window``: the last window's time times the windows'
    growth (:func:`._allk_parallel.window_growth`) once per ``_WINDOW`` sizes between the lowest
    size a window certified (``done``) and the top of this one (sizes enumerated from the top in
    between still leave the tree that far to go)."""
    steps = max(1, math.ceil((min(done) - max(window)) / _WINDOW)) if done else 1
    return window_times[-1] * _allk_parallel.window_growth(window_times) ** steps


def _probe_from_top(search, window, budget):
    """Enumerate the largest size of the tree's next window alone within ``budget`` seconds (the
    window's predicted seconds per size): near the top the enumeration of one size can cost far
    less than the tree's window (on UCI Sonar, near the top, by an order of magnitude). Returns the stop reason: ``'completed'`` (the size is closed), ``'budget'`` (the tree
    goes on, and no more probes), or that of a limit or Ctrl-C."""
    en = search.enum
    j = max(window)
    t = time.perf_counter()
    stop_reason, kern = _run_enum(search, en["order"], j, en["root"], off=range(1, j), deadline=t + budget)
    _account_enum(en["info"], kern, time.perf_counter() - t)
    if stop_reason == "completed":
        _close_enumerated(search, j, low=j)
        en["info"]["from_top"].append(j)
    return stop_reason


def _extend_enumeration(search):
    """Enumerate one size more at a time while its predicted time (:func:`_enum_next`) fits in the
    time left. Returns the stop reason (``'completed'`` unless the time limit or Ctrl-C ended an
    enumeration); each completed size is closed."""
    deadline = search.t0 + search.time_limit
    while True:
        nxt = _enum_next(search)
        if nxt is None or time.perf_counter() + nxt[1] > deadline:
            break
        stop_reason = _enumerate_next(search)
        if stop_reason != "completed":
            return stop_reason
    search.enum = None  # extended as far as the time allows: not again
    return "completed"


def _enumerate_until_stopped(search):
    """Enumerate one size more at a time (each the next size alone) until a limit stops one or
    the sizes run out; returns the stop reason (``'completed'`` when every size got closed)."""
    while _enum_next(search) is not None:
        stop_reason = _enumerate_next(search)
        if stop_reason != "completed":
            return stop_reason
    return "completed"


def _run_enum(search, order, K, root, off=(), deadline=None):
    """One enumeration of the sizes ``1..K`` but ``off`` under the search's limits (and, if given,
    stopped as ``'budget'`` past ``deadline``); returns ``(stop_reason, kernel)``. Its incumbents
    are offered whether or not it completed."""
    kern = _allk_enum.EnumKernel(search.M, search.B, K, order, search.inc, off=off)
    stop_reason, _ = _drive(search, kern, _allk_enum.CHUNK, lambda stepped: kern.n_nodes, deadline=deadline,
                            late="budget", report=lambda stepped: _report_enum(search, kern, root))
    for _j, (value, S) in sorted(kern.improved().items(), reverse=True):
        search.offer(value, S)
    return stop_reason, kern


def _report_enum(search, kern, root):
    """Progress during the enumeration: the open sizes are bounded by the whole set's value."""
    inc = search.inc[1 : search.max_k + 1].copy()
    K = kern.K
    found = kern.inc[1 : K + 1]
    inc[: K] = np.maximum(inc[: K], np.where(np.isfinite(found), found, -np.inf))
    closed = search.out[1 : search.max_k + 1]
    gaps = np.where(closed, 0.0, root - inc)
    j = int(np.argmax(gaps))
    search.callback(SearchState(nodes=kern.n_nodes, incumbent=float(inc[j]), bound=float(inc[j] + gaps[j]),
                                gap=float(gaps[j]), elapsed=time.perf_counter() - search.t0))


def _greedy_start(M, B, form, criterion, max_k, search, route=None):
    """Offer the forward and backward greedy supports of every size (the dual pass); returns
    their objectives per size in the search's (possibly shifted) scale, the features ordered
    by the backward path (the one it keeps longest first) and the two paths."""
    fw = greedy_path(M, B, direction="forward", criterion=criterion, form=form, max_k=max_k, route=route)
    bw = greedy_path(M, B, direction="backward", criterion=criterion, form=form, route=route)
    vals = np.empty((2, max_k))
    for k in range(max_k, 0, -1):  # from the top: few non-decreasing fix-ups in offer
        for i, path in enumerate((fw, bw)):
            vals[i, k - 1] = path.objective[k - 1]
            search.offer(vals[i, k - 1], path.support(k))
    # the features in the order the backward path keeps them (the last one dropped first)
    return vals, keep_order(bw, search.p), (fw, bw)


def _improve_start(search, paths):
    """Raise the greedy incumbents of an additive problem by swap local search (:mod:`._swap`);
    returns ``{'improved': sizes raised, 'time_s': seconds}``."""
    t = time.perf_counter()
    sup, val = list(search.sup), search.inc.copy()
    deadline = None if search.time_limit is None else search.t0 + search.time_limit
    starts = [path.support for path in paths]
    sizes = _swap.improve_incumbents(search.M, search.B, sup, val, search.max_k, starts=starts, deadline=deadline)
    for j in sorted(sizes, reverse=True):
        search.offer(float(val[j]), sup[j])
    return {"improved": len(sizes), "time_s": time.perf_counter() - t}


def _start_initial(M, B, criterion, initial, search):
    for S in initial:
        S = np.unique(np.asarray(S, dtype=np.intp))
        if S.ndim != 1 or len(S) == 0 or S.min() < 0 or S.max() >= search.p:
            raise ValueError(
                f"initial must be a list of supports, each of distinct indices in [0, {search.p - 1}]; "
                f"got {np.asarray(S).tolist()}."
            )
        search.offer(search.value_of(S), S)


def _refine_open(search, inc, sup, ub, max_k, time_limit):
    """Raise the incumbents of the sizes a stopped search leaves open by 2-swap local search
    (additive problems, in place; :func:`._swap.two_swap_search`), smallest size first.

    The search's incumbents are 1-swap optima already (its swap pass and the neighbour
    exchanges), but not always 2-swap ones. Every value kept is its support's, and a size only
    changes when the new support is better, so no incumbent is ever lowered. Sizes whose sweep
    costs more than ``_TWO_SWAP_WORK`` are skipped, and it stops once the sweeps have cost
    ``_TWO_SWAP_TOTAL``; under a time limit the seconds are capped like
    the perspective caps' (2 s, or 2 % of the limit if more). Returns ``{'sizes', 'improved',
    'time_s'}``.
    """
    t = time.perf_counter()
    info = {"sizes": 0, "improved": 0, "time_s": 0.0}
    p = search.p
    sizes = [j for j in range(1, max_k + 1) if ub[j] > inc[j] and sup[j] is not None
             and _swap.two_swap_work(p, j) <= _TWO_SWAP_WORK]
    deadline = None if time_limit is None else t + max(2.0, 0.02 * time_limit)
    work = 0.0
    for j in sizes:
        if (deadline is not None and time.perf_counter() > deadline) or work > _TWO_SWAP_TOTAL:
            break
        S, f, moves = _swap.two_swap_search(search.M, search.B, sup[j], deadline=deadline)
        work += (moves + 1) * _swap.two_swap_work(p, j)
        info["sizes"] += 1
        if _swap._beats(f, inc[j]):
            inc[j], sup[j] = f, S
            info["improved"] += 1
    info["time_s"] = time.perf_counter() - t
    return info


def _spectral_caps(M2, B, criterion, inc, ub, max_k):
    """Cap the bound of every open size by the inclusion principle summed over the ``j`` largest
    generalized eigenvalues of the whole pair (additive objectives with a factor; in place).

    An open size is otherwise bounded by its stopped subtrees or by the whole set's value; for
    the column subset this cap is the kept mass of the ``j`` leading principal components.
    """
    if not criterion.additive or M2.shape[1] == 1 or not any(ub[j] > inc[j] for j in range(1, max_k + 1)):
        return
    cap = inclusion_bounds(M2, B, criterion=criterion, form="factor")
    for j in range(1, max_k + 1):
        if ub[j] > inc[j]:
            ub[j] = min(ub[j], max(float(cap[j - 1]), inc[j]))


def _perspective_caps(M2, B, form, inc, ub, max_k, time_limit):
    """Cap the bound of every open size by the perspective relaxation (two-class LDA, in place).

    The search leaves an open size bounded by its stopped subtrees or by the whole set's value;
    the relaxation (:mod:`pixsel.spectral.bounds._perspective`) is valid at any dual point, so a
    few dozen steps per size suffice. The largest open size goes first (its bound also caps every
    smaller size, by monotonicity), and the diagonal is refined once at the size with the largest
    relative gap; the seconds are capped (2 s, or 2 % of the time limit if more).
    """
    open_sizes = [j for j in range(max_k, 0, -1) if ub[j] > inc[j]]
    info = {"sizes": 0, "improved": 0, "time_s": 0.0}
    if form != "vector" or M2.shape[1] != 1 or not open_sizes:
        return info
    t = time.perf_counter()
    Bm = np.eye(M2.shape[0]) if B is None else B
    deadline = t + max(2.0, 0.02 * (time_limit or 0.0))
    bounds = perspective_bounds_path(M2[:, 0], Bm, open_sizes, deadline=deadline, refine=_PERSPECTIVE_REFINE,
                                     incumbents=[inc[j] for j in open_sizes])
    for j, b in zip(open_sizes, bounds):
        if b < ub[j]:
            ub[j] = max(b, inc[j])
            info["improved"] += 1
    info["sizes"] = int(np.count_nonzero(np.isfinite(bounds)))
    info["time_s"] = time.perf_counter() - t
    return info


def _sdp_caps(M2, B, form, inc, ub, max_k, deadline):
    """Cap the bound of every open size by the rank-one (pairwise) convexification (two-class LDA,
    ``bounds='sdp'``, in place).

    A semidefinite relaxation (:func:`pixsel.spectral.bounds.sdp_decomposition`, Clarabel, the
    ``conic`` extra) at one size gives a split ``B = C + diag(d) + sum of 2 x 2 blocks`` that is
    valid for EVERY size, tightest near the size it was solved at; each open size then pays one
    certified evaluation (:func:`pixsel.spectral.bounds.mixed_split_bound`: the split mixed with
    the perspective diagonal, the best of five mixtures), largest size first. The first solve is
    at the smallest open size (its gap is the largest), a second at the median open size when
    the time left is predicted to fit it (the first solve's seconds, plus a fifth); each size
    keeps its smallest bound. Valid whatever the solver's status (an early stop only weakens a
    split). ``deadline``: a ``time.perf_counter()`` value that bounds the solves (their time
    limits) and the evaluations (sizes left are skipped).
    """
    from ..bounds._sdp_root import mixed_split_bound, sdp_decomposition

    open_sizes = [j for j in range(max_k, 0, -1) if ub[j] > inc[j]]
    info = {"k": [], "status": [], "sizes": 0, "improved": 0, "time_s": 0.0}
    if form != "vector" or M2.shape[1] != 1 or not open_sizes:
        return info
    t = time.perf_counter()
    a = M2[:, 0]
    Bm = np.eye(M2.shape[0]) if B is None else B
    improved = set()
    plan = list(dict.fromkeys([open_sizes[-1], open_sizes[len(open_sizes) // 2]]))
    for n_solve, ks in enumerate(plan):
        t1 = time.perf_counter()
        if n_solve > 0 and deadline is not None and t1 + 1.2 * (t1 - t) > deadline:
            break  # the second solve is predicted not to fit
        # a solve may take the time left but a second per open size (the evaluations)
        solve_s = None if deadline is None else max(1.0, deadline - t1 - 1.0 * len(open_sizes))
        d, pairs, P, sdp = sdp_decomposition(a, Bm, int(ks), time_limit=solve_s)
        info["k"].append(int(ks))
        info["status"].append(sdp["status"])
        done = 0
        for j in open_sizes:
            if deadline is not None and time.perf_counter() > deadline and (done > 0 or n_solve > 0):
                break
            b, _ = mixed_split_bound(a, Bm, j, d, pairs, P, iters=60, z0=sdp["z"] if j == ks else None)
            done += 1
            if b < ub[j]:
                ub[j] = max(b, inc[j])
                improved.add(j)
        info["sizes"] = max(info["sizes"], done)
    info["improved"] = len(improved)
    info["time_s"] = time.perf_counter() - t
    return info


def _excluded_path(A, B, never_select, criterion, max_k, initial, options):
    """:func:`exact_path` without the features of ``never_select``, or None where it excludes none:
    the search on the other features, mapped back (:mod:`._exclude`)."""
    owner = "exact_path"
    A, B, form, _, _ = _validate(A, B, 1, criterion, owner)
    p = A.shape[0]
    if max_k is not None:
        max_k = check_int(max_k, "max_k", low=1, high=p, owner=owner)
    pair = restricted(A, B, form, never_select, max_k, owner)
    if pair is None:
        return None
    E, R, AR, BR = pair
    if initial is not None:
        initial = [restrict_initial(S, E, R, p, owner) for S in initial]
    return lift_path(exact_path(AR, BR, criterion=criterion, max_k=max_k, initial=initial, **options), R, E)


def exact_path(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    criterion: Literal["max-eig", "trace"] = "max-eig",
    max_k: int | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    gap_tol: float = 0.0,
    callback: Callable[[SearchState], None] | None = None,
    initial: Sequence[ArrayLike] | None = None,
    n_jobs: int | None = None,
    never_select: ArrayLike | None = None,
    route: Route | None = None,
    bounds: Literal["cardinality", "sdp"] = "cardinality",
) -> ExactPath:
    """The certified best support of every size ``k = 1..max_k`` from one search tree.

    Leaps and bounds (Furnival and Wilson 1974) for the sparse generalized eigenproblems of
    :func:`exact_support`: one depth-first search over the "dropping columns" tree, one bound
    and one incumbent per size, incumbents seeded by the forward and backward greedy paths (for
    additive problems raised by a 1-swap local search). A node is pruned for size ``j`` when its
    bound for ``j`` (inclusion, and the backward and forward cardinality bounds of
    :mod:`pixsel.spectral.exact`) cannot beat the incumbent of size ``j``. Small sizes of
    additive problems are enumerated exactly, the other sizes are certified in windows, the
    largest first, and the two meet where one enumerated size costs more than one size of a
    window (under a time limit the enumeration also takes over when the next window is predicted
    not to finish); a size's bound never exceeds the next larger size's. See
    :mod:`pixsel.spectral.exact._allk`. BLAS runs on one thread inside the search.

    Parameters
    ----------
    A : ndarray of shape (p,), (p, r) or (p, p)
        A vector ``a`` (two-class LDA), a factor ``M`` (``A = M M^T``, non-square) or a full
        symmetric matrix (``'max-eig'``: any symmetric; ``'trace'``: positive semi-definite).
    B : ndarray of shape (p, p) or None
        Symmetric positive definite; ``None`` means the identity.
    criterion : {'max-eig', 'trace'}
        As in :func:`exact_support` (the same for a vector).
    max_k : int or None
        The largest size of interest (default ``p``). The search still walks down from all
        ``p`` features, but prunes every size above ``max_k``.
    time_limit : float or None
        Seconds after which the search stops; every size then gets a certified bound. A search
        stopped with open sizes then spends at most ``max(2, 0.02 * time_limit)`` seconds more
        on each of two finishing steps (two-pixel exchanges for the open sizes' supports, and,
        for a vector, the perspective relaxation's caps on their bounds), so a call with a
        limit of a few seconds returns a few seconds after it.
    node_limit : int or None
        Nodes after which the search stops.
    gap_tol : float, default 0
        Relative tolerance per size: subtrees whose bound for size ``k`` is within
        ``gap_tol * |incumbent_k|`` of the incumbent are not searched for ``k`` (status
        ``'gap_reached'`` where that happened).
    callback : callable or None
        Called every 1024 nodes and at the end with a :class:`SearchState` describing the size
        with the largest absolute gap (``nodes``, ``incumbent``, ``bound``, ``gap``, ``elapsed``).
    initial : list of array-like of int or None
        Extra starting supports (any sizes) offered besides the greedy ones.
    n_jobs : int or None, default None
        Worker processes (joblib's convention: ``None`` is 1, ``-1`` every CPU). With more than
        one, the sizes become independent tasks (the enumeration of one size, or a window of the
        tree) run side by side and, once every size is held, a second route to each open size
        (:mod:`pixsel.spectral.exact._allk_parallel`); the optima are the same. Needs the compiled
        search (``gap_tol == 0``); a ``node_limit`` keeps the search on one process, so that it
        stays reproducible, and so do fewer than 24 features (one process finishes before the
        workers would have started).
    never_select : array-like of int or None, default None
        Features no support may contain (FastCan's ``indices_exclude``). The search runs on the
        pair restricted to the other features, so each size's certificate bounds every support
        of that size without them; the path has at most ``p - len(never_select)`` sizes
        (``max_k``, at most that, defaults to it), its supports are in the original indices and
        ``info['never_select']`` holds the sorted excluded indices. ``initial`` may not contain
        excluded features; the 256-feature limit applies to the features left.
    route : Route or None, default None
        Where the greedy starts run (:func:`pixsel._routes.choose`, ``'exact'`` family: the
        compiled greedy kernels or the NumPy ones, by the size; the search's own tree is compiled
        at every size); an estimator passes the route its ``fit`` resolved, None asks the route
        table once for the arrays given.
    bounds : {'cardinality', 'sdp'}
        ``'cardinality'`` (default): the search's bounds, and every size the search leaves open
        capped by the perspective relaxation (two-class LDA). ``'sdp'`` (two-class LDA, a vector
        ``A``; else as ``'cardinality'``): the open sizes are also capped by the rank-one
        (pairwise) convexification of Atamtürk and Gómez ("Rank-one convexification for sparse
        regression", JMLR 2025): a semidefinite relaxation at the smallest open size, and one at
        the median open size where the time allows, each giving a split of ``B`` that bounds
        every size (:mod:`pixsel.spectral.bounds._sdp_root`; it needs the conic solver
        Clarabel, ``pip install pixsel[conic]``). Under a time limit the search keeps 70 % of it
        and the relaxations the rest. It tightens the certified bounds of the open sizes (it
        certifies a size only when a bound reaches the incumbent); it costs the search 30 % of
        its time, so it is not the default.

    Returns
    -------
    ExactPath
        Per size: support, objective, certified upper bound, status, relative gap (the
        certified gap of the documentation's exact-search page); the nodes and seconds spent.
        Ctrl-C returns the certified partial result (the sizes not proved and
        ``search_status`` say ``'interrupted'``).

    See Also
    --------
    exact_support : one size, best-first, with variable fixing (faster for a single ``k``).

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.2, 0.9, 0.1])
    >>> B = np.eye(4) + 0.5 * np.ones((4, 4))
    >>> path = exact_path(a, B)
    >>> path.status.tolist()
    ['optimal', 'optimal', 'optimal', 'optimal']
    >>> path.support(2).tolist()
    [0, 2]
    """
    require_compiled("The exact search (exact_path)")  # a compiled branch and bound: Numba is optional
    if never_select is not None:
        options = dict(time_limit=time_limit, node_limit=node_limit, gap_tol=gap_tol, callback=callback,
                       n_jobs=n_jobs, route=route, bounds=bounds)
        path = _excluded_path(A, B, never_select, criterion, max_k, initial, options)
        if path is not None:
            return path
    owner = "exact_path"
    t0 = time.perf_counter()
    route = exact_route(route, A, B)
    A, B, form, _, criterion = _validate(A, B, 1, criterion, owner)
    route = _on_host(route, A)
    p = A.shape[0]
    if p > MAX_FEATURES:
        raise ValueError(
            f"exact_path searches every size of at most {MAX_FEATURES} features (it keeps one p x p "
            f"inverse per tree level); got {p}. Select fewer candidate features first (for example "
            "the union of the greedy supports), certify single sizes with exact_support, or, for sparse PCA "
            "(B = None), plan every size within a time limit with exact_spca_path."
        )
    max_k = p if max_k is None else check_int(max_k, "max_k", low=1, high=p, owner=owner)
    time_limit, node_limit, gap_tol = _check_limits(time_limit, node_limit, gap_tol, owner)
    if bounds not in PATH_BOUNDS:
        raise ValueError(f"{owner}: bounds must be one of {PATH_BOUNDS}; got {bounds!r}.")
    use_sdp = bounds == "sdp" and form == "vector"
    if use_sdp:
        from ..bounds._sdp_root import _need_clarabel

        _need_clarabel()  # before the search: a clear error naming the extra
    search_limit = time_limit if not use_sdp or time_limit is None else (1.0 - _SDP_SHARE) * time_limit
    n_jobs = _allk_parallel.effective_jobs(n_jobs, owner)
    shift = 0.0
    if form == "full":
        if criterion.largest_eigenvalue:
            # lambda_max(A + c B, B) = lambda_max(A, B) + c on every support: same optima
            L = np.linalg.cholesky(B)
            lmin = float(np.linalg.eigvalsh(np.linalg.solve(L, np.linalg.solve(L, A).T))[0])
            scale = max(float(np.max(np.abs(A))), np.finfo(float).tiny)
            shift = max(0.0, -lmin) + (1e-12 * scale if lmin < 0 else 0.0)
        M = _factor_of_psd(A + shift * B)
        mform = "factor"
    else:
        M = A
        mform = form
    M2 = M[:, None] if M.ndim == 1 else M
    additive = M2.shape[1] == 1 or criterion.additive
    if gap_tol == 0 and _USE_NUMBA:
        _compile_kernels(additive, route)  # the search plans from its timings: none may include compilation
    with blas_limit(1):
        search = _PathSearch(M2, B, max_k, additive, gap_tol, search_limit, node_limit, callback)
        search.t0 = t0
        # (the factor's greedy paths, not the full matrix's: faster, and the same supports)
        with follow(route):  # the greedy starts on the route
            greedy, order, paths = _greedy_start(M, B, mform, criterion, max_k, search, route)
        greedy = greedy - shift
        if initial is not None:
            _start_initial(M, B, criterion, initial, search)
        swap_info = _improve_start(search, paths) if additive else {"improved": 0, "time_s": 0.0}
        _enumerate_small(search)  # sizes 1, 2 and p, into search.closed like every enumerated size
        enum_info = {"max_size": 2, "nodes": 0, "pair_evaluations": 0, "pruned": 0, "time_s": 0.0, "completed": True,
                     "extended": 0, "from_top": []}
        stop_reason = "completed"
        use_enum = additive and _USE_ENUM and p >= _ENUM_MIN_FEATURES
        compiled = gap_tol == 0 and _USE_NUMBA
        parallel = (n_jobs > 1 and compiled and node_limit is None and p >= _PARALLEL_MIN_FEATURES
                    and not np.all(search.out[1 : max_k + 1]))
        parallel_info = {"n_jobs": 1}
        if use_enum and not parallel:
            stop_reason, _, enum_info = _enumerate_sizes(search, order)
        if parallel:
            stop_reason, inc, sup, ub, n_nodes, enum_info, parallel_info = _allk_parallel.run_parallel(
                search, order, n_jobs, use_enum)
            tol_max = np.full(p + 1, -np.inf)
        elif stop_reason != "completed" or np.all(search.out[1 : max_k + 1]):
            # the tree is not needed, or never started: then its root bounds every open size
            inc, sup, n_nodes = search.inc, search.sup, enum_info["nodes"]
            ub = np.full(p + 1, search.value_of(np.arange(p)) if stop_reason != "completed" else -np.inf)
            tol_max = np.full(p + 1, -np.inf)
        elif compiled:
            search.node_offset = enum_info["nodes"]
            if node_limit is not None:
                search.node_limit = node_limit - enum_info["nodes"]
            stop_reason, inc, sup, ub, n_nodes = _run_compiled(search)
            n_nodes += enum_info["nodes"]
            tol_max = np.full(p + 1, -np.inf)
        else:
            search.n_nodes = enum_info["nodes"]
            stop_reason = search.run()
            inc, sup, ub, n_nodes, tol_max = search.inc, search.sup, search.upper_bounds(), search.n_nodes, search.tol_max
        for j in search.closed:  # solved by enumeration: no subtree is searched for them
            inc[j], sup[j], ub[j] = search.closed[j]
        # f is monotone under inclusion, so the optimum of size j is at most that of size j + 1:
        # a certified bound of a larger size caps every smaller one
        ub = np.asarray(ub, dtype=np.float64).copy()
        refine_info = _refine_open(search, inc, sup, ub, max_k, search_limit) if additive else None
        relax_info = _perspective_caps(M2, B, form, inc, ub, max_k, search_limit)
        sdp_info = None
        if use_sdp:
            sdp_info = _sdp_caps(M2, B, form, inc, ub, max_k, None if time_limit is None else t0 + time_limit)
        _spectral_caps(M2, B, criterion, inc, ub, max_k)
        for j in range(max_k - 1, 0, -1):
            ub[j] = min(ub[j], max(ub[j + 1], inc[j + 1]))
    supports, obj, ubs, status = [], np.empty(max_k), np.empty(max_k), []
    for j in range(1, max_k + 1):
        S = sup[j]
        supports.append(S)
        o = objective_on_support(A, B, S, criterion=criterion)
        obj[j - 1] = o
        if ub[j] <= inc[j]:
            st, u = "optimal", o
        elif tol_max[j] >= ub[j]:
            st, u = "gap_reached", ub[j] - shift
        else:
            st, u = status_of_stop(stop_reason), ub[j] - shift
        ubs[j - 1] = max(u, o)
        status.append(st)
    if all(st in CERTIFIED for st in status):
        search_status = "optimal" if all(st == "optimal" for st in status) else "gap_reached"
    else:
        search_status = status_of_stop(stop_reason)
    return ExactPath(
        supports=supports,
        objective=obj,
        upper_bound=ubs,
        status=np.array(status),
        n_nodes=n_nodes,
        time=time.perf_counter() - t0,
        search_status=search_status,
        criterion=criterion.name,
        info={"form": form, "shift": shift, "greedy_forward": greedy[0], "greedy_backward": greedy[1],
              "enumeration": enum_info, "tree": search.tree_info, "swap": swap_info, "parallel": parallel_info,
              "perspective": relax_info, "sdp": sdp_info, "two_swap": refine_info},
    )
