"""Exact sparse generalized eigenproblems by branch and bound, with certified bounds.

Problem: ``max f(S)`` over supports ``|S| = k`` where ``f(S) = lambda_max(A_SS, B_SS)``
(``'max-eig'``) or ``tr(B_SS^{-1} A_SS)`` (``'trace'``). For a vector ``a`` (two-class LDA)
``f(S) = a_S^T B_SS^{-1} a_S``; for a factor ``M`` (``A = M M^T``, ``p x r``) the generalized
eigenvalues on ``S`` are those of ``G_S = M_S^T B_SS^{-1} M_S`` (``r x r``).

Search tree. A node is a pair ``(I, U)`` with ``I`` (fixed in) contained in ``U`` (fixed in plus
undecided); every support of the subtree satisfies ``I <= S <= U``. By the generalized
inclusion principle (paper 002, Theorem 1, Eq. 7-8) ``f`` is monotone under inclusion, so
``f(U)`` bounds every completion (the *inclusion bound*, the only bound of the paper's ESLDA).

Factor problems (vectors and ``p x r`` factors) keep, along a depth-first dive, the inverse
``P = B_UU^{-1}``, ``W = P M_U`` and ``G_U = M_U^T W`` (backward side) and the Schur complement
``R = B_FF - B_FI B_II^{-1} B_IF`` with ``Rm = M_F - B_FI B_II^{-1} M_I`` and ``G_I``
(forward side, ``F = U - I``). Excluding ``j`` is a rank-one downdate of ``P`` (``f(U - j) =
f(U) - |W_j|^2 / P_jj`` for the trace and for vectors), including ``j`` is one pivoted-Cholesky
step on ``R``; no node of a dive is factorized from scratch. Nodes popped from the best-first
queue are refactorized once (which also resets rounding). Two cardinality-aware bounds are
tried besides the inclusion bound, both ``O(|U|^2)`` from the kept matrices:

* forward: ``f(I + J) - f(I) <= sum_{j in J} g_j / mu`` where ``g_j = |Rm_j|^2 / R_jj`` are the
  single-variable gains given ``I`` and ``mu <= lambda_min`` of the correlation matrix of
  ``R_FF`` (Gershgorin on its inverse ``D^{1/2} P_FF D^{1/2}``), so the best ``k - |I|`` gains
  bound the completion (Weyl's inequality makes this valid for ``'max-eig'`` too);
* backward (vectors and ``'trace'``): removing ``J`` from ``U`` loses at least
  ``sum_{j in J} delta_j / nu`` with ``delta_j = |W_j|^2 / P_jj`` and ``nu >= lambda_max`` of the
  correlation matrix of ``P_FF`` (Gershgorin), so the ``|U| - k`` smallest losses bound it.

The same bounds fix variables without branching: ``j`` is fixed in when every support without
it is bounded below the incumbent, fixed out when every support with it is. Nodes are explored
best-first by bound, each popped node followed by a depth-first dive so that incumbents improve
early. Branching variable: the free ``j`` whose exclusion lowers the inclusion bound most
(largest ``|W_j|^2 / P_jj``); its include child is dived into, its exclude child queued. Of the
three rules measured (``_BRANCH_RULE``; benchmarks/bench_exact_ablation.py) this was fastest.

Full symmetric ``A`` (``'max-eig'``) uses the inclusion bound tested by a Cholesky
factorization of ``theta B_UU - A_UU`` (``theta`` = incumbent): it succeeds exactly when
``lambda_max(A_UU, B_UU) < theta``, so nodes below the incumbent are discarded without any
eigenvalue computation; before it a Gershgorin-type cardinality bound
``max_i (sum of the k largest |A_ij|, j in U) / lambda_min(B)`` is tried. A positive
semi-definite full ``A`` with ``'trace'`` is factored once (``A = M M^T``) and solved as a factor
problem.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla

from .._threads import blas_limit
from .._validation import check_int, check_options, check_real, check_square_symmetric, check_finite
from ._dispatch import greedy_path
from ._path import SparsePath, objective_on_support, weights_on_support

__all__ = ["ExactResult", "SearchState", "exact_support", "tighten_path_bound"]

_BRANCH_RULE = "important-include"  # measured best of three rules (docs/issue-4.md)
_BATCH_EIG_MAX_R = 64
_FIXING = True
_STATUSES = ("optimal", "gap_reached", "time_limit", "node_limit", "interrupted")


@dataclass(frozen=True)
class SearchState:
    """Where a branch-and-bound search stands, as passed to ``exact_support(callback=...)``.

    Attributes
    ----------
    nodes : int
        Nodes processed so far.
    incumbent : float
        Objective of the best support found so far.
    bound : float
        Certified upper bound on every support of size ``k`` (so far).
    gap : float
        ``bound - incumbent``.
    elapsed : float
        Seconds since the search started.
    """

    nodes: int
    incumbent: float
    bound: float
    gap: float
    elapsed: float


@dataclass
class ExactResult:
    """The outcome of :func:`exact_support`.

    Attributes
    ----------
    support : ndarray of shape (k,)
        Sorted indices of the best support found.
    objective : float
        Its objective, recomputed from scratch with :func:`objective_on_support` (for ``'trace'``
        the trace ``tr(B_SS^{-1} A_SS)``).
    weights : ndarray of shape (p,)
        The renormalized weights on the support (principal generalized eigenvector,
        :func:`weights_on_support`), zero elsewhere.
    upper_bound : float
        A certified upper bound on the objective of *every* support of size ``k``. Equal to
        ``objective`` (up to rounding) when ``status == 'optimal'``.
    gap : float
        ``upper_bound - objective`` (absolute, >= 0).
    n_nodes : int
        Search-tree nodes processed.
    time : float
        Wall-clock seconds.
    status : str
        ``'optimal'`` (search completed, the support is optimal), ``'gap_reached'`` (search
        completed with the relative ``gap_tol``: the objective is within it of the optimum),
        ``'time_limit'``, ``'node_limit'`` (stopped by a limit; the bound is still certified) or
        ``'interrupted'`` (Ctrl-C: the best support and a certified bound are returned instead
        of losing the work).
    """

    support: np.ndarray
    objective: float
    weights: np.ndarray
    upper_bound: float
    gap: float
    n_nodes: int
    time: float
    status: str
    k: int = 0
    criterion: str = "max-eig"
    info: dict = field(default_factory=dict, repr=False)

    @property
    def relative_gap(self) -> float:
        """``gap / |objective|`` (``inf`` when the objective is 0 and the gap is not)."""
        if self.gap <= 0:
            return 0.0
        return self.gap / abs(self.objective) if self.objective != 0 else math.inf

    @property
    def certified(self) -> bool:
        """True when the search completed (``'optimal'`` or ``'gap_reached'``)."""
        return self.status in ("optimal", "gap_reached")


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------


def _classify(A):
    A = np.asarray(A)
    if A.ndim == 1:
        return "vector"
    if A.ndim == 2 and A.shape[0] == A.shape[1]:
        return "full"
    if A.ndim == 2:
        return "factor"
    raise ValueError(
        f"A must be a vector of shape (p,), a factor of shape (p, r) with r < p, or a symmetric "
        f"matrix of shape (p, p); got an array with shape {A.shape}."
    )


def _validate(A, B, k, criterion):
    owner = "exact_support"
    A = np.asarray(A)
    if A.dtype.kind not in "fiub":
        raise TypeError(f"A must hold real numbers; got dtype {A.dtype}.")
    A = check_finite(A.astype(np.float64), "A")
    form = _classify(A)
    p = A.shape[0]
    if p == 0:
        raise ValueError("A is empty: there is nothing to select.")
    if form == "full":
        A = check_square_symmetric(A, "A")
        A = (A + A.T) / 2
    if B is None:
        B = np.eye(p)
    else:
        B = check_square_symmetric(B, "B")
        B = (B + B.T) / 2
        if B.shape[0] != p:
            raise ValueError(f"B must have shape ({p}, {p}) to match A; got {B.shape}.")
    try:
        np.linalg.cholesky(B)
    except np.linalg.LinAlgError:
        raise ValueError(
            "B must be positive definite (its Cholesky factorization failed). Regularize it, for "
            "example with pixsel.stats.regularize(B, 'auto'), or pass B=None for the identity."
        ) from None
    k = check_int(k, "k", low=1, high=p, owner=owner)
    criterion = check_options(criterion, "criterion", ("max-eig", "trace"), owner=owner)
    if form == "factor" and A.shape[1] == 0:
        raise ValueError("The factor A has no columns: A = M M^T would be zero.")
    return A, B, form, k, criterion


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


def _criterion_value(A, B, S, criterion):
    """Direct (from scratch) objective, the oracle used for the returned value."""
    S = np.asarray(S, dtype=np.intp)
    if len(S) == 0:
        return 0.0
    if criterion == "max-eig" or A.ndim == 1:
        if A.ndim == 2 and A.shape[0] != A.shape[1]:
            MS = A[S]
            G = MS.T @ sla.cho_solve(sla.cho_factor(B[np.ix_(S, S)]), MS)
            return float(np.linalg.eigvalsh((G + G.T) / 2)[-1])
        return objective_on_support(A, B, S)
    BSS = B[np.ix_(S, S)]
    ASS = A[np.ix_(S, S)] if A.shape[0] == A.shape[1] else A[S] @ A[S].T
    return float(np.trace(sla.cho_solve(sla.cho_factor(BSS), ASS)))


# ---------------------------------------------------------------------------------------------
# incumbents
# ---------------------------------------------------------------------------------------------


def _greedy_incumbent(A, B, k, criterion, form):
    """Forward and backward greedy supports at ``k`` (the paper's dual pass; the best is kept)."""
    cands = []
    for direction in ("forward", "backward"):
        max_k = k if direction == "forward" else None
        path = greedy_path(A, B, direction=direction, criterion=criterion, form=form, max_k=max_k)
        cands.append(path.support(k))
    return cands


# ---------------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------------


class _Stop(Exception):
    def __init__(self, status):
        self.status = status


class _Search:
    """Shared bookkeeping: incumbent, queue, limits, progress, certified bound."""

    def __init__(self, p, k, gap_tol, time_limit, node_limit, callback):
        self.p = p
        self.k = k
        self.gap_tol = gap_tol
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.best = -math.inf
        self.best_support = None
        self.theta = -math.inf
        self.tol_max = -math.inf  # largest bound discarded only because of gap_tol
        self.heap = []
        self.counter = 0
        self.n_nodes = 0
        self.t0 = time.perf_counter()
        self.dive_key = -math.inf
        self.callback = callback

    # incumbent / threshold
    def _set_theta(self):
        b = self.best
        self.theta = b + self.gap_tol * abs(b) if math.isfinite(b) else b

    def offer(self, value, support):
        if value > self.best:
            self.best = float(value)
            self.best_support = np.sort(np.asarray(support, dtype=np.intp))
            self._set_theta()

    def discard(self, bound):
        """True when ``bound`` cannot beat the incumbent (records tolerance-only discards)."""
        if bound <= self.theta:
            if bound > self.best:
                self.tol_max = max(self.tol_max, bound)
            return True
        return False

    def discard_many(self, bounds):
        """Vectorized :meth:`discard`: a boolean mask of the bounds that cannot beat the incumbent."""
        out = bounds <= self.theta
        if self.theta > self.best and np.any(out):
            self.tol_max = max(self.tol_max, float(np.max(bounds[out])))
        return out

    def push(self, key, Imask, Umask):
        if self.discard(key):
            return
        self.counter += 1
        heapq.heappush(self.heap, (-key, self.counter, Imask, Umask))

    def upper_bound(self):
        ub = max(self.best, self.tol_max, self.dive_key)
        if self.heap:
            ub = max(ub, -self.heap[0][0])
        return ub

    def tick(self):
        self.n_nodes += 1
        if self.node_limit is not None and self.n_nodes > self.node_limit:
            self.n_nodes -= 1
            raise _Stop("node_limit")
        if self.time_limit is not None and (self.n_nodes & 31) == 0:
            if time.perf_counter() - self.t0 > self.time_limit:
                raise _Stop("time_limit")
        if self.callback is not None and (self.n_nodes & 1023) == 0:
            self.report()

    def state(self):
        """The read-only record passed to the callback."""
        ub = self.upper_bound()
        return SearchState(
            nodes=self.n_nodes, incumbent=self.best, bound=ub, gap=ub - self.best,
            elapsed=time.perf_counter() - self.t0,
        )

    def report(self):
        if self.callback is not None:
            self.callback(self.state())

    def run(self, dive):
        """Best-first over the queue; every popped node is the root of a depth-first dive."""
        status = "optimal"
        try:
            while self.heap:
                negkey, _, Imask, Umask = heapq.heappop(self.heap)
                key = -negkey
                if self.discard(key):
                    continue
                self.dive_key = key
                dive(Imask, Umask, key)
                self.dive_key = -math.inf
        except _Stop as stop:
            status = stop.status
        except KeyboardInterrupt:
            status = "interrupted"
        self.report()
        return status


class _FactorBnB:
    """Branch and bound for a vector or a ``p x r`` factor ``M`` (``A = M M^T``)."""

    def __init__(self, M, B, k, criterion, search, use_bounds=True):
        self.M = M if M.ndim == 2 else M[:, None]
        self.B = B
        self.k = k
        self.r = self.M.shape[1]
        self.trace = criterion == "trace" or self.r == 1
        self.s = search
        self.use_bounds = use_bounds

    def crit(self, G):
        if self.r == 1:
            return float(G[0, 0])
        if self.trace:
            return float(np.trace(G))
        return float(np.linalg.eigvalsh(G)[-1])

    def _state(self, Imask, Umask):
        """Fresh factorization of a popped node."""
        B, M = self.B, self.M
        U = np.flatnonzero(Umask)
        inI = Imask[U]
        BUU = B[np.ix_(U, U)]
        P = np.linalg.inv(BUU)
        P = (P + P.T) / 2
        MU = M[U]
        W = P @ MU
        G = MU.T @ W
        I = np.flatnonzero(inI)
        if len(I):
            X = np.linalg.solve(BUU[np.ix_(I, I)], np.hstack([BUU[I], MU[I]]))
            XB, XM = X[:, : len(U)], X[:, len(U) :]  # B_II^{-1} B_IU, B_II^{-1} M_I
            R = BUU - BUU[:, I] @ XB
            Rm = MU - XB.T @ MU[I]
            GI = MU[I].T @ XM
            GI = (GI + GI.T) / 2
        else:
            R = BUU.copy()
            Rm = MU.copy()
            GI = np.zeros((self.r, self.r))
        return {
            "U": U, "alive": np.ones(len(U), bool), "inI": inI.copy(), "P": P, "W": W, "G": G,
            "R": R, "Rm": Rm, "GI": GI,
        }

    @staticmethod
    def _exclude(st, t):
        P, W = st["P"], st["W"]
        u = P[:, t].copy()
        pi = u[t]
        wt = W[t].copy()
        v = u / pi
        P -= v[:, None] * u
        W -= v[:, None] * wt
        st["G"] = st["G"] - (wt / pi)[:, None] * wt
        P[t, :] = 0.0
        P[:, t] = 0.0
        W[t] = 0.0
        st["alive"][t] = False

    @staticmethod
    def _include(st, t):
        R, Rm = st["R"], st["Rm"]
        c = R[:, t].copy()
        rt = Rm[t].copy()
        v = c / c[t]
        st["GI"] = st["GI"] + (rt / c[t])[:, None] * rt
        R -= v[:, None] * c
        Rm -= v[:, None] * rt
        st["inI"][t] = True

    def _masks(self, st):
        Imask = np.zeros(self.s.p, bool)
        Umask = np.zeros(self.s.p, bool)
        U = st["U"]
        Umask[U[st["alive"]]] = True
        Imask[U[st["alive"] & st["inI"]]] = True
        return Imask, Umask

    def dive(self, Imask, Umask, key):
        st = self._state(Imask, Umask)
        s, k = self.s, self.k
        while True:
            s.tick()
            # process the node, fixing variables until nothing changes
            while True:
                alive, inI = st["alive"], st["inI"]
                free = np.flatnonzero(alive & ~inI)
                m = int(np.count_nonzero(alive & inI))
                u = m + len(free)
                if m > k or u < k:
                    return
                fU = self.crit(st["G"])
                if s.discard(fU):
                    return
                key = min(key, fU)
                s.dive_key = key
                if u == k:
                    s.offer(fU, st["U"][alive])
                    return
                if m == k:
                    s.offer(self.crit(st["GI"]), st["U"][alive & inI])
                    return
                if not self.use_bounds:
                    break
                fixed, nb = self._bounds_and_fixing(st, free, m, u, fU)
                if fixed is None:
                    return  # pruned
                key = min(key, nb)
                s.dive_key = key
                if not fixed:
                    break
            # branch (see _BRANCH_RULE)
            R, Rm, P, W = st["R"], st["Rm"], st["P"], st["W"]
            rule = _BRANCH_RULE
            if rule == "gain-include":
                g = np.einsum("ij,ij->i", Rm[free], Rm[free]) / np.diag(R)[free]
                t = int(free[np.argmax(g)])
            else:
                dl = np.einsum("ij,ij->i", W[free], W[free]) / np.diag(P)[free]
                t = int(free[np.argmin(dl)] if rule == "backward-exclude" else free[np.argmax(dl)])
            Im, Um = self._masks(st)
            if rule == "backward-exclude":
                Im[st["U"][t]] = True
                s.push(key, Im, Um)
                self._exclude(st, t)
                continue
            # exclude child goes to the queue (key: its inclusion bound)
            if self.r == 1 or self.trace:
                e = fU - float(W[t] @ W[t]) / P[t, t]
            else:
                wt = W[t]
                e = float(np.linalg.eigvalsh(st["G"] - np.outer(wt, wt) / P[t, t])[-1])
            Um[st["U"][t]] = False
            s.push(min(e, key), Im, Um)
            self._include(st, t)

    def _bounds_and_fixing(self, st, free, m, u, fU):
        """Cardinality bounds at the node; returns (None | fixed?, bound). None means pruned."""
        s, k = self.s, self.k
        P, W, R, Rm = st["P"], st["W"], st["R"], st["Rm"]
        need = k - m  # still to add
        drop = u - k  # still to remove
        nf = len(free)
        absP = np.abs(P[np.ix_(free, free)])
        dP = P[free, free]
        dR = R[free, free]
        Rmf = Rm[free]
        g = np.einsum("ij,ij->i", Rmf, Rmf) / dR  # forward gains given I
        # mu <= lambda_min(corr(R_FF)): Gershgorin on its inverse D^1/2 P_FF D^1/2 (D = diag R_FF)
        sq = np.sqrt(dR)
        mu = min(1.0, 1.0 / float(np.max(sq * (absP @ sq))))
        fI = self.crit(st["GI"])
        order_g = np.argsort(-g, kind="stable")
        csum_g = np.zeros(nf + 1)
        np.cumsum(g[order_g], out=csum_g[1:])
        bound = min(fU, fI + csum_g[need] / mu)
        back = self.r == 1 or self.trace
        if back:
            Wf = W[free]
            delta = np.einsum("ij,ij->i", Wf, Wf) / dP
            # nu >= lambda_max(corr(P_FF)) by Gershgorin
            isq = 1.0 / np.sqrt(dP)
            nu = max(1.0, float(np.max(isq * (absP @ isq))))
            order_d = np.argsort(delta, kind="stable")
            csum_d = np.zeros(nf + 1)
            np.cumsum(delta[order_d], out=csum_d[1:])
            bound = min(bound, fU - csum_d[drop] / nu)
        if s.discard(bound):
            return None, bound
        if not _FIXING:
            return False, bound
        # fixing; top-t sums of the gains without j, from the rank of j
        rank_g = np.empty(nf, np.intp)
        rank_g[order_g] = np.arange(nf)
        t1 = need - 1
        top_wo = np.where(rank_g < t1, csum_g[min(t1 + 1, nf)] - g, csum_g[t1])
        inc_bound = fI + (g + top_wo) / mu  # every support containing j
        top_need_wo = np.where(rank_g < need, csum_g[min(need + 1, nf)] - g, csum_g[need])
        exc_bound = fI + top_need_wo / mu  # every support without j
        if back:
            rank_d = np.empty(nf, np.intp)
            rank_d[order_d] = np.arange(nf)
            # containing j: `drop` others are removed from F - j
            low_wo = np.where(rank_d < drop, csum_d[min(drop + 1, nf)] - delta, csum_d[drop])
            inc_bound = np.minimum(inc_bound, fU - low_wo / nu)
            # without j: j and drop - 1 others are removed (removing j alone is exact)
            low_wo1 = np.where(rank_d < drop - 1, csum_d[min(drop, nf)] - delta, csum_d[drop - 1])
            exc_bound = np.minimum(exc_bound, fU - np.maximum(delta, (delta + low_wo1) / nu))
        elif self.r <= _BATCH_EIG_MAX_R:
            # exact inclusion bound of every exclude child: r x r eigenproblems in one batch
            Wf = W[free]
            Gs = st["G"][None, :, :] - Wf[:, :, None] * (Wf[:, None, :] / dP[:, None, None])
            exc_bound = np.minimum(exc_bound, np.linalg.eigvalsh(Gs)[:, -1])
        fix_out = s.discard_many(inc_bound)
        fix_in = s.discard_many(exc_bound)
        if np.any(fix_in & fix_out):
            return None, bound  # no improving support either way
        n_in = int(np.count_nonzero(fix_in))
        n_out = int(np.count_nonzero(fix_out))
        if n_in == 0 and n_out == 0:
            return False, bound
        if m + n_in > k or u - n_out < k:
            return None, bound
        for t in free[fix_out]:
            self._exclude(st, int(t))
        for t in free[fix_in]:
            self._include(st, int(t))
        return True, bound


class _FullBnB:
    """Branch and bound for a full symmetric ``A`` with ``'max-eig'`` (fresh work per node)."""

    def __init__(self, A, B, k, search, use_bounds=True):
        self.A = A
        self.B = B
        self.k = k
        self.s = search
        self.use_bounds = use_bounds
        self.absA = np.abs(A)
        self.lmin_B = float(np.linalg.eigvalsh(B)[0])
        self.identity = bool(np.array_equal(B, np.eye(len(B))))

    def _gersh(self, Imask, Umask):
        """max over i in U of (sum of the k largest |A_ij|, j in U, I first) / lambda_min(B)."""
        U = np.flatnonzero(Umask)
        k = self.k
        sub = self.absA[np.ix_(U, U)]
        inI = Imask[U]
        m = int(np.count_nonzero(inI))
        fixed = sub[:, inI].sum(axis=1)
        rest = sub[:, ~inI]
        t = k - m
        if t <= 0:
            tops = fixed
        elif t >= rest.shape[1]:
            tops = fixed + rest.sum(axis=1)
        else:
            part = -np.partition(-rest, t - 1, axis=1)[:, :t]
            tops = fixed + part.sum(axis=1)
        val = float(np.max(tops))
        return val / self.lmin_B if val > 0 else 0.0

    def _below(self, U, theta):
        """True when lambda_max(A_UU, B_UU) < theta (Cholesky of theta B - A succeeds)."""
        if not math.isfinite(theta):
            return False
        Mx = theta * self.B[np.ix_(U, U)] - self.A[np.ix_(U, U)]
        try:
            np.linalg.cholesky(Mx)
            if theta > self.s.best:
                self.s.tol_max = max(self.s.tol_max, theta)
            return True
        except np.linalg.LinAlgError:
            return False

    def _eig(self, U):
        ix = np.ix_(U, U)
        if self.identity:
            vals, vecs = np.linalg.eigh(self.A[ix])
            return float(vals[-1]), vecs[:, -1]
        Li = np.linalg.inv(np.linalg.cholesky(self.B[ix]))
        vals, vecs = np.linalg.eigh(Li @ self.A[ix] @ Li.T)
        return float(vals[-1]), Li.T @ vecs[:, -1]

    def dive(self, Imask, Umask, key):
        s, k = self.s, self.k
        Imask = Imask.copy()
        Umask = Umask.copy()
        while True:
            s.tick()
            U = np.flatnonzero(Umask)
            u = len(U)
            m = int(np.count_nonzero(Imask))
            if m > k or u < k:
                return
            if self.use_bounds:
                if u > k and m < k and s.discard(min(key, self._gersh(Imask, Umask))):
                    return
                if self._below(U, s.theta):
                    return
            fU, v = self._eig(U)
            if s.discard(fU):
                return
            key = min(key, fU)
            s.dive_key = key
            if u == k:
                s.offer(fU, U)
                return
            if m == k:
                I = np.flatnonzero(Imask)
                s.offer(self._eig(I)[0], I)
                return
            freepos = np.flatnonzero(~Imask[U])
            w = v[freepos] ** 2 * np.diag(self.B)[U[freepos]]
            t = int(U[freepos[np.argmax(w)]])
            # exclude child to the queue, keyed by the parent's bound (evaluated when popped)
            Ue = Umask.copy()
            Ue[t] = False
            s.push(key, Imask.copy(), Ue)
            Imask[t] = True


def _plain_dfs(A, B, k, criterion, form, search):
    """The paper's ESLDA: depth-first, inclusion bound only, a fresh factorization per node."""
    p = A.shape[0]

    def bound(U):
        return _criterion_value(A, B, U, criterion)

    stack = [(np.zeros(p, bool), np.ones(p, bool))]
    status = "optimal"
    try:
        while stack:
            Imask, Umask = stack.pop()
            search.tick()
            U = np.flatnonzero(Umask)
            m = int(np.count_nonzero(Imask))
            if m > k or len(U) < k:
                continue
            fU = bound(U)
            if search.discard(fU):
                continue
            if len(U) == k:
                search.offer(fU, U)
                continue
            if m == k:
                I = np.flatnonzero(Imask)
                search.offer(bound(I), I)
                continue
            t = int(np.flatnonzero(Umask & ~Imask)[0])
            Ue = Umask.copy()
            Ue[t] = False
            Ii = Imask.copy()
            Ii[t] = True
            stack.append((Imask, Ue))
            stack.append((Ii, Umask))
    except _Stop as stop:
        status = stop.status
    except KeyboardInterrupt:
        status = "interrupted"
    search.report()
    if status != "optimal":
        # a depth-first stack holds no bounds; the root bound f(all) is the only certificate
        search.heap = [(-bound(np.arange(p)), 0, None, None)]
    return status


def exact_support(
    A,
    B=None,
    k=1,
    *,
    criterion="max-eig",
    time_limit=None,
    node_limit=None,
    gap_tol=0.0,
    initial=None,
    callback=None,
    strategy="best-first",
):
    """The best support of size ``k`` for a sparse generalized eigenproblem, with a certificate.

    Maximizes ``f(S) = lambda_max(A_SS, B_SS)`` (``'max-eig'``, the generalized Rayleigh
    quotient of paper 002, Eq. 3) or ``tr(B_SS^{-1} A_SS)`` (``'trace'``) over ``|S| = k`` by
    branch and bound on the generalized inclusion principle (paper 002, Theorem 1), initialized
    by the dual-pass greedy support (and ``initial``). See the module docstring for the bounds.

    Parameters
    ----------
    A : ndarray of shape (p,), (p, r) or (p, p)
        A vector ``a`` (two-class LDA, ``A = a a^T``), a factor ``M`` with ``A = M M^T``
        (non-square), or a full symmetric matrix.
    B : ndarray of shape (p, p) or None
        Symmetric positive definite; ``None`` means the identity (sparse PCA).
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
        supports (the dual pass, paper 002 section 2.3). Given, the greedy passes are skipped
        (pass the dual-pass support when it is already known, e.g. from a greedy path).
    callback : callable or None, default None
        Called as ``callback(state)`` every 1024 nodes and once at the end, with a read-only
        :class:`SearchState` (``nodes``, ``incumbent``, ``bound``, ``gap``, ``elapsed``). The
        kernel draws nothing itself; :func:`pixsel._progress.search_progress` turns this into a
        progress bar for estimators and the CLI.
    strategy : {'best-first', 'plain'}
        ``'best-first'`` (default): the solver described in the module docstring. ``'plain'``:
        the paper's ESLDA for comparison (depth-first, inclusion bound only, a fresh
        factorization per node); when stopped early its bound is the root bound.

    Returns
    -------
    ExactResult
        The support, objective, weights, certified ``upper_bound``, ``gap``, ``n_nodes``,
        ``time`` and ``status``. Ctrl-C during the search returns the best result so far with
        status ``'interrupted'`` (its bound is still certified).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.2, 0.9, 0.1])
    >>> B = np.eye(4) + 0.5 * np.ones((4, 4))
    >>> res = exact_support(a, B, 2)
    >>> res.status, res.support.tolist()
    ('optimal', [0, 2])
    """
    # BLAS threads only slow down the many small factorizations of a search
    with blas_limit(1):
        return _exact_support(A, B, k, criterion, time_limit, node_limit, gap_tol, initial, callback, strategy)


def _exact_support(A, B, k, criterion, time_limit, node_limit, gap_tol, initial, callback, strategy):
    t0 = time.perf_counter()
    A, B, form, k, criterion = _validate(A, B, k, criterion)
    strategy = check_options(strategy, "strategy", ("best-first", "plain"), owner="exact_support")
    if time_limit is not None:
        time_limit = check_real(time_limit, "time_limit", low=0, owner="exact_support")
    if node_limit is not None:
        node_limit = check_int(node_limit, "node_limit", low=0, owner="exact_support")
    gap_tol = check_real(gap_tol, "gap_tol", low=0, owner="exact_support")
    p = A.shape[0]
    if form == "vector":
        criterion_eff = "max-eig"
    else:
        criterion_eff = criterion

    search = _Search(p, k, gap_tol, time_limit, node_limit, callback)
    search.t0 = t0
    # incumbents: dual-pass greedy and the caller's support
    cands = [] if initial is not None else _greedy_incumbent(A, B, k, criterion_eff, form)
    if initial is not None:
        init = np.unique(np.asarray(initial, dtype=np.intp))
        if init.shape != (k,) or init.min() < 0 or init.max() >= p:
            raise ValueError(
                f"initial must hold {k} distinct indices in [0, {p - 1}]; got {np.asarray(initial).tolist()}."
            )
        cands.append(init)
    for S in cands:
        search.offer(_criterion_value(A, B, S, criterion_eff), S)

    if k == 1 or k == p:
        # closed forms: the best single ratio A_ii / B_ii, or the whole set
        if k == 1:
            diagA = A**2 if form == "vector" else (np.sum(A**2, axis=1) if form == "factor" else np.diag(A))
            S = [int(np.argmax(diagA / np.diag(B)))]
        else:
            S = np.arange(p)
        search.offer(_criterion_value(A, B, S, criterion_eff), S)
        search.n_nodes = 1
        status = "optimal"
    elif strategy == "plain":
        status = _plain_dfs(A, B, k, criterion_eff, form, search)
    else:
        if form == "full" and criterion_eff == "trace":
            M = _factor_of_psd(A)
            solver = _FactorBnB(M, B, k, "trace", search)
        elif form == "full":
            solver = _FullBnB(A, B, k, search)
        else:
            solver = _FactorBnB(A, B, k, criterion_eff, search)
        root_key = math.inf
        search.heap = [(-root_key, 0, np.zeros(p, bool), np.ones(p, bool))]
        status = search.run(solver.dive)

    S = search.best_support
    obj = _criterion_value(A, B, S, criterion_eff)
    ub = search.upper_bound()
    if status == "optimal":
        # the search proved that no support beats the incumbent: its direct value is the optimum
        # (the incremental value it was compared with differs from it by rounding only)
        ub = obj
        if search.tol_max > max(obj, search.best):
            status = "gap_reached"
            ub = search.tol_max
    ub = max(ub, obj)
    if not math.isfinite(ub):
        ub = _criterion_value(A, B, np.arange(p), criterion_eff)
    return ExactResult(
        support=S,
        objective=obj,
        weights=weights_on_support(A if form != "factor" else A @ A.T, B, S),
        upper_bound=float(ub),
        gap=float(max(ub - obj, 0.0)),
        n_nodes=search.n_nodes,
        time=time.perf_counter() - t0,
        status=status,
        k=k,
        criterion=criterion_eff,
    )


def tighten_path_bound(path, result):
    """A copy of ``path`` whose ``upper_bound`` at ``result.k`` uses the solve's certificate.

    The certified bound of a finished or stopped :func:`exact_support` bounds every support of
    size ``k``, so it can replace a looser entry of a greedy path's ``upper_bound`` (the smaller
    of the two is kept). Where the path has no bound yet, the other entries are ``inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.spectral import greedy_path
    >>> a = np.array([1.0, 0.2, 0.9, 0.1]); B = np.eye(4) + 0.5 * np.ones((4, 4))
    >>> path = greedy_path(a, B, direction="forward")
    >>> res = exact_support(a, B, 2)
    >>> tight = tighten_path_bound(path, res)
    >>> bool(np.isclose(tight.upper_bound[1], res.upper_bound))
    True
    """
    if not isinstance(path, SparsePath):
        raise TypeError(f"path must be a SparsePath; got {type(path).__name__}.")
    if not isinstance(result, ExactResult):
        raise TypeError(f"result must be an ExactResult; got {type(result).__name__}.")
    k = path._check_k(result.k)
    ub = np.full(path.n_features, np.inf) if path.upper_bound is None else np.array(path.upper_bound, float)
    ub[k - 1] = min(ub[k - 1], result.upper_bound)
    # the path's own support at k is feasible: the bound never goes below it
    ub[k - 1] = max(ub[k - 1], path.objective[k - 1])
    info = dict(path.info)
    info.setdefault("exact", {})[int(k)] = {"status": result.status, "n_nodes": result.n_nodes}
    return SparsePath(
        order=path.order, objective=path.objective, direction=path.direction, A=path.A, B=path.B,
        upper_bound=ub, info=info,
    )
