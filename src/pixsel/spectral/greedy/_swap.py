"""Swap refinement of a support of size ``k``: one feature in for one out while the objective rises.

A greedy path is nested, so its support of size ``k`` can miss supports that no sequence of
single additions reaches. From any support ``S`` of size ``k`` this search values every 1-swap
``S - i + j`` (``i`` in ``S``, ``j`` outside) from the factorization of the current support alone
(no refit per candidate), moves to the best improving one and starts again; it stops when no swap
improves (a 1-swap local optimum), after ``max_sweeps`` moves or at ``time_limit``, keeping the best
support found.
Every move is checked on the objective recomputed from scratch on the new support before it is
taken, so the value never falls (monotone by construction, whatever the rounding) and the search
cannot cycle.

Two ways of valuing a swap, by criterion:

* **additive** (a vector ``a``, two-class LDA; or ``criterion='trace'`` with a factor ``M``,
  ``A = M M^T``): ``f(S) = tr(M_S^T B_SS^{-1} M_S)`` and every swap's value is exact in closed form
  from ``P = B_SS^{-1}``: dropping ``i`` is a rank-one downdate of ``P``, adding ``j`` a Schur
  complement (the formulas of :mod:`pixsel.spectral.exact._swap`, which this reuses); all
  ``k (p - k)`` values cost ``O(k p r)`` from ``T = P B_S,out``, the Schur complements and the
  residuals of the features outside. Those (and ``P``) are computed from scratch (``O(k^2 p + k p r)``)
  at the start and every few moves; after each move in between they are updated, ``O(k p + p r + k^2)``:
  dropping ``i`` is the downdate ``T <- T - (P_:i / P_ii) T_i,:``, adding ``j`` a bordering whose
  row for ``j`` is ``-v / s`` and whose rank one ``u v^T / s`` joins the other rows, with
  ``u = T_:j`` (given ``S - i``), ``s`` the Schur complement of ``j`` and ``v_c = B_j,S-i t_c -
  B_jc``. A move whose value from the updated sweep strays from its value recomputed from scratch
  sends the next sweep back to scratch, and a move that the recompute refuses is decided again by
  a sweep from scratch, so the moves are those of a search that recomputes every sweep (up to
  rounding). On the compiled route (Numba) a sweep values the swaps and keeps the best in one
  pass (:mod:`pixsel.spectral.greedy._swap_jit`, the same numbers) instead of writing the table.
* **largest eigenvalue** (``criterion='max-eig'`` with a factor or a full symmetric ``A``): with
  ``(lambda, z)`` the top generalized eigenpair of ``(A_SS, B_SS)``, every swap gets the certified
  lower bound of the Rayleigh-Ritz problem on ``span(z without entry i, e_j)`` (a 2 x 2 pencil whose
  entries are rank-one corrections of ``z^T A z``, ``z^T B z`` and of the products ``A_out,S z``,
  ``B_out,S z``): ``O(k p r)`` for all swaps. The swap of best bound is taken when its bound beats
  ``lambda``; otherwise the ``n_exact`` swaps of best bound are evaluated exactly (``O(k^3)``
  each) and the best improving one is taken. The search then ends at a support that no screened
  swap improves (not a certified 1-swap local optimum).

Forced features (``always_select``) never leave and excluded ones (``never_select``) never enter.

The additive search reads ``B`` only through its columns on the support and its diagonal
(``B_S,:`` and ``diag B``), so ``B`` may also be a Gram operator of the data (the column-access
protocol of :class:`pixsel.stats.CenteredGramOperator`: ``p``, ``diag()``, ``columns(idx)``),
never formed: each move reads one more column, ``O(n p)``.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
from scipy.linalg.blas import dger as _GER

from .._criteria import spectral_criterion
from .._path import objective_on_support
from .._linalg import lower_cholesky
from ..exact._swap import _POTRS, _beats, _complement, _inverse_of_factor, _outside_of_columns, _value_of_block
from ..._routes import compiled_enabled, compiled_loaded, note_compiled, sized_kernels
from ..._validation import MAX_SWAP_SWEEPS, index_set

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["SwapResult", "swap_refine"]

#: Moves allowed by default (each takes the best swap of a sweep over all ``k (p - k)`` swaps)
MAX_SWEEPS = MAX_SWAP_SWEEPS
#: With the largest eigenvalue, swaps evaluated exactly when no Ritz bound beats the current value
N_EXACT = 8
#: ``z`` without entry ``i`` counts as zero when its ``B``-norm squared is below this (``z^T B z = 1``)
_VANISH = 1e-8


@dataclass
class SwapResult:
    """The outcome of :func:`swap_refine`.

    Attributes
    ----------
    support : ndarray of int
        The refined support, sorted.
    objective : float
        Its objective (recomputed from scratch), never below ``start_objective``.
    start_objective : float
        The objective of the support the search started from.
    n_swaps : int
        Moves taken.
    converged : bool
        True when the last sweep found no improving swap (False: stopped by ``max_sweeps`` or
        ``time_limit``).
    """

    support: np.ndarray
    objective: float
    start_objective: float
    n_swaps: int
    converged: bool


@sized_kernels
def swap_refine(
    A: ArrayLike,
    B: ArrayLike | None,
    support: ArrayLike,
    *,
    criterion: str = "trace",
    max_sweeps: int = MAX_SWEEPS,
    always_select: ArrayLike | None = None,
    never_select: ArrayLike | None = None,
    n_exact: int = N_EXACT,
    time_limit: float | None = None,
) -> SwapResult:
    """Raise the objective of ``support`` by exchanging one feature in for one out, while it rises.

    Parameters
    ----------
    A : ndarray of shape (n_features,), (n_features, r) or (n_features, n_features)
        A vector ``a`` (``A = a a^T``), a factor ``M`` (``A = M M^T``) or a symmetric matrix.
    B : ndarray of shape (n_features, n_features), Gram operator or None
        Symmetric positive definite denominator; None is the identity. With the additive
        criteria, also a Gram operator read through its columns (see the module docstring).
    support : array-like of int
        The support to start from (its size ``k`` is kept).
    criterion : {'trace', 'max-eig'}
        The sum or the largest of the generalized eigenvalues of ``(A_SS, B_SS)`` (the same for a
        vector ``A``).
    max_sweeps : int
        Moves allowed (each costs one sweep over all swaps); 0 returns the start.
    always_select, never_select : array-like of int or None
        Features that never leave (they must be in ``support``) and that never enter (they must
        not be).
    n_exact : int
        With the largest eigenvalue: swaps evaluated exactly when no Ritz bound beats the value.
    time_limit : float or None
        Seconds after which no new sweep starts (the best support so far is returned; 0 returns
        the start). None: only ``max_sweeps`` stops it.

    Returns
    -------
    SwapResult

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.2, 2.0, 0.1])
    >>> r = swap_refine(a, np.eye(4), [0, 1])
    >>> r.support.tolist(), round(r.objective, 6), round(r.start_objective, 6)
    ([0, 2], 5.0, 1.04)
    """
    owner = "swap_refine"
    A = np.asarray(A, dtype=np.float64)
    p = A.shape[0]
    operator = B is not None and _is_operator(B)
    if operator and B.p != p:
        raise ValueError(f"{owner}: the Gram operator B has {B.p} features; A has {p}.")
    if not operator:
        B = None if B is None else np.asarray(B, dtype=np.float64)
    if B is not None and not operator and B.shape != (p, p):
        raise ValueError(f"{owner}: B must be of shape ({p}, {p}) to match A; got {B.shape}.")
    S = index_set(support, p, "support", owner=owner)
    if len(S) == 0:
        raise ValueError(f"{owner}: the support to refine is empty; pass at least one feature index.")
    F = index_set(always_select, p, "always_select", owner=owner)
    E = index_set(never_select, p, "never_select", owner=owner)
    if len(F) and np.setdiff1d(F, S).size:
        raise ValueError(f"{owner}: the support misses always_select features {np.setdiff1d(F, S).tolist()}; "
                         "start from a support that contains them.")
    if len(E) and np.intersect1d(E, S).size:
        raise ValueError(f"{owner}: the support contains never_select features {np.intersect1d(E, S).tolist()}; "
                         "start from a support without them.")
    crit = spectral_criterion(criterion, owner=owner)  # the closed-form swaps or the largest eigenvalue's
    if isinstance(max_sweeps, bool) or not isinstance(max_sweeps, (int, np.integer)) or max_sweeps < 0:
        raise ValueError(f"{owner}: max_sweeps must be an int >= 0; got {max_sweeps!r}.")
    if time_limit is not None and not time_limit >= 0:
        raise ValueError(f"{owner}: time_limit must be None or a number of seconds >= 0; got {time_limit!r}.")
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    can_leave = np.ones(p, bool)
    can_leave[F] = False
    can_enter = np.ones(p, bool)
    can_enter[E] = False
    full = A.ndim == 2 and A.shape[1] == p and p > 1
    additive = A.ndim == 1 or (crit.additive and not full)
    if crit.additive and full:
        w, V = np.linalg.eigh((A + A.T) / 2)
        if w.min() < -1e-10 * max(1.0, abs(w).max()):
            raise ValueError(f"{owner}: the trace criterion with a full A needs A positive semidefinite; pass "
                             "criterion='max-eig' or a factor M with A = M M^T.")
        keep = w > 1e-14 * max(1.0, w.max())
        A, additive, full = V[:, keep] * np.sqrt(w[keep]), True, False
    if additive:
        M = A[:, None] if A.ndim == 1 else A
        # the updated sweeps pay where a column is a pass over the data (a Gram operator) or the
        # table is large; else the sweeps from scratch
        updated = operator or len(S) * (p - len(S)) > _PLAIN_TABLE
        return _additive(M, _Columns(np.eye(p) if B is None else B), S, can_leave, can_enter, int(max_sweeps),
                         deadline, refresh=_REFRESH if updated else 1)
    if operator:
        raise ValueError(f"{owner}: with a Gram operator B the swaps run for additive criteria (a vector A, or "
                         "criterion='trace' with a factor); pass B as a p x p array for criterion='max-eig'.")
    return _max_eig(A, B, S, full, can_leave, can_enter, int(max_sweeps), int(n_exact), deadline)


def _is_operator(B):
    """A Gram operator read through its columns (not an array)."""
    return all(hasattr(B, name) for name in ("columns", "diag", "p")) and not hasattr(B, "__array__")


class _Columns:
    """``B`` as the additive swaps read it: its columns on a support and its diagonal, from a
    ``p x p`` array or from a Gram operator (one pass over the data for each new column)."""

    def __init__(self, B):
        self.B = B
        self.array = isinstance(B, np.ndarray)
        self.diag = np.diag(B).copy() if self.array else np.asarray(B.diag(), dtype=np.float64)
        self._cache = {}

    def panel(self, S):
        """``B[:, S]`` (``p x k``), columns read once each."""
        if self.array:
            return self.B[:, S]
        self.read(S)
        return np.stack([self._cache[int(j)] for j in S], axis=1)

    def read(self, S):
        """Read the columns of ``S`` not read yet, in one call of the operator (one pass over the data)."""
        missing = [int(j) for j in S if int(j) not in self._cache]
        if missing:
            cols = np.asarray(self.B.columns(np.asarray(missing, dtype=np.intp)), dtype=np.float64)
            for c, j in enumerate(missing):
                self._cache[j] = cols[:, c]

    def column(self, j):
        """``B[:, j]``."""
        if self.array:
            return self.B[:, j]
        self.read([j])
        return self._cache[int(j)]

    def block(self, S):
        """``B[S][:, S]``, the same numbers as ``panel(S)[S]`` without the ``p x k`` panel."""
        if self.array:
            return self.B[S][:, S]  # the numbers of B[np.ix_(S, S)], without building the index grid
        self.read(S)
        return np.stack([self._cache[int(j)][S] for j in S], axis=1)

    def state(self, M, S):
        """``f(S)``, ``P = B_SS^{-1}`` and ``W = P M_S`` from one Cholesky of ``B_SS``."""
        return _value_of_block(M, self.block(S), S)

    def check(self, M, S):
        """``f(S)`` and ``W = B_SS^{-1} M_S`` from one Cholesky of ``B_SS``, without the inverse
        (``O(k^3 / 3 + k^2 r)``; the inverse would add ``O(k^3)``), and the Cholesky factor."""
        c = lower_cholesky(self.block(S))
        MS = M[S]
        W, info = _POTRS(c, MS, lower=True, overwrite_b=False)
        if info != 0:  # pragma: no cover - LAPACK argument error only
            raise ValueError(f"illegal value in {-info}th argument of internal potrs")
        return float((MS * W).sum()), c, W

    def outside(self, M, S, P):
        """The features outside ``S`` (sorted) and their ``T = P B_S,out``, ``s0``, ``R0``
        (:func:`pixsel.spectral.exact._swap._outside_of_columns`)."""
        out = _complement(len(self.diag), S)
        return (out, *_outside_of_columns(M, self.panel(S)[out].T, self.diag[out], S, out, P))


def _out_of_time(deadline):
    return deadline is not None and time.perf_counter() >= deadline


class _Sweep:
    """What every sweep of the additive search reads, for the support ``S`` and the features
    ``out`` outside it, both in the order of their positions (sorted after a recompute from
    scratch; a move puts the feature that enters at the position of the one that leaves, and
    that one at the position of the other outside): ``f``, ``P = B_SS^{-1}``, ``W = P M_S`` and
    ``T = P B_S,out``, ``s0``, ``R0`` (the module docstring of :mod:`pixsel.spectral.exact._swap`).

    :meth:`move` updates ``T``, ``s0`` and ``R0`` for ``S - i + j`` by a downdate and a bordering
    (``O(k q + q r + k^2)``, ``q = p - k``) instead of the ``k x k`` by ``k x q`` product, and
    ``P`` by the same downdate and bordering (``O(k^2)`` instead of an inverse, ``O(k^3)``); ``W``
    of the new support is that of the Cholesky solve that checks the move."""

    def __init__(self, M, B, S):
        self.M, self.B = M, B
        self._buffers = None  # the k x q tables of the values, written again by every sweep
        self.reset(S, *B.state(M, S))

    def reset(self, S, f, P, W):
        """From scratch for the sorted support ``S`` of value ``f`` (``P``, ``W`` its own)."""
        self.S, self.f, self.P, self.W = S, f, P, W
        self.out, self.T, self.s0, self.R0 = self.B.outside(self.M, S, P)
        self.moves = 0  # since the last recompute from scratch

    @property
    def sorted(self):
        return self.moves == 0

    def values(self):
        """Every swap's value, ``(k, q)`` (rows: ``S``, columns: ``out``, in their position order)."""
        if self._buffers is None or self._buffers[0].shape != self.T.shape:
            self._buffers = np.empty(self.T.shape), np.empty(self.T.shape)
        return _swap_values(self.T, self.s0, self.R0, self.P, self.W, self.f, *self._buffers)

    def best(self, can_leave, can_enter, compiled, limited=(True, True)):
        """``(a, b, value)`` of the best swap allowed (:func:`_best`'s choice among equal values);
        ``a = -1`` when none has a finite value. ``compiled``: in one pass of
        :func:`pixsel.spectral.greedy._swap_jit.best_swap` (the same numbers), without the table.
        ``limited``: whether some feature cannot leave and whether some cannot enter (False: the
        mask is all True and is not read)."""
        if not compiled:
            val = self.values()
            if limited[0] and not can_leave.all():
                val[~can_leave[self.S], :] = -np.inf
            if limited[1] and not can_enter.all():
                val[:, ~can_enter[self.out]] = -np.inf
            a, b = _best(val, self)
            v = float(val[a, b])
            return (a, b, v) if v > -math.inf else (-1, -1, -math.inf)
        note_compiled()
        from ._swap_jit import best_swap

        W, R0 = self.W, self.R0
        e = 1.0 / np.diag(self.P)
        wl = np.einsum("ij,ij->i", W, W)
        if R0.shape[1] == 1:
            C2, rr = np.empty((1, 1)), np.empty(1)
        else:
            C2, rr = (2.0 * W) @ R0.T, np.einsum("ij,ij->i", R0, R0)
        c = np.ascontiguousarray
        a, b, v = best_swap(c(self.T), self.s0, c(R0), c(W), e, self.f - wl * e, c(C2), wl, rr,
                            can_leave[self.S], can_enter[self.out], self.S, self.out)
        return int(a), int(b), float(v)

    def move(self, a, b, g, Wt, St):
        """Take the swap of ``S[a]`` out and ``out[b]`` in; ``St`` is the new support sorted, ``g``
        and ``Wt`` its value and ``B_StSt^{-1} M_St`` (the move's check)."""
        M, B, S, out, T, P = self.M, self.B, self.S, self.out, self.T, self.P
        i, j = int(S[a]), int(out[b])
        Ta = T[a].copy()
        c = P[:, a] / P[a, a]  # dropping i: P_-i = P - c P_a,: (row and column a then zero)
        c[a] = 0.0
        Bj = B.column(j)
        BjS = Bj[S]
        BjS[a] = 0.0  # B_j,S-i (i's position holds nothing)
        u = T[:, b] - c * Ta[b]  # t_j given S - i
        u[a] = 0.0
        s = B.diag[j] - BjS @ u  # Schur complement of j given S - i
        v = BjS @ T - (BjS @ c) * Ta - Bj[out]  # B_j,S-i t_c - B_jc for every c outside (t_c given S - i)
        # s0 and R0 of every feature outside, given S - i, then given S - i + j
        Ra = (Ta[b] / P[a, a]) * self.W[a] + self.R0[b]  # j's residual given S - i
        self.s0 += Ta * Ta / P[a, a] - v * v / s
        self.R0 += np.outer(Ta / P[a, a], self.W[a]) + np.outer(v / s, Ra)
        # T given S - i + j: the rows of S - i lose the downdate's rank one and gain the bordering's
        # (in place: two rank-one updates of T's transpose, Fortran-ordered), j's row is -v / s
        Tt = _GER(-1.0, Ta, c, a=T.T, overwrite_a=True)
        Tt = _GER(1.0, v, u / s, a=Tt, overwrite_a=True)
        T = self.T = Tt.T
        T[a] = -v / s
        # P of S - i + j in the positions' order: the downdate P - P_:a P_a: / P_aa (row and column
        # a then zero), then the bordering by j, whose column is -u / s and whose rank one
        # u u^T / s joins the rest (the inverse of a bordered matrix)
        # (in place: two rank-one updates of P's transpose, as for T; P is symmetric and the
        # sweep's own, and a product x_i y_j on the transpose is the y_j x_i of P)
        Pa = P[:, a].copy()
        Pt = _GER(-1.0, Pa / P[a, a], Pa, a=P.T, overwrite_a=True)
        Pt = _GER(1.0, u / s, u, a=Pt, overwrite_a=True)
        P = Pt.T
        P[a, :] = P[:, a] = -u / s
        P[a, a] = 1.0 / s
        S = S.copy()
        S[a] = j
        out = out.copy()
        out[b] = i
        # W of the new support in the positions' order, from its check's solve (sorted)
        W = Wt[np.searchsorted(St, S)]
        # i's own column, now outside: directly (O(k^2 + k r))
        BiS = B.column(i)[S]
        ti = P @ BiS
        T[:, b] = ti
        self.s0[b] = B.diag[i] - BiS @ ti
        self.R0[b] = M[i] - ti @ M[S]
        self.S, self.out, self.f, self.P, self.W = S, out, g, P, W
        self.moves += 1


_JIT = "pixsel.spectral.greedy._swap_jit"


def _compiled_sweep():
    """Whether the swaps are valued by the compiled pass: where the route allows compiled kernels
    and this process has loaded Numba's kernels already (a compiled greedy kernel of this fit or
    an earlier one, or the pass itself), so that the first fit of a fresh process never waits for
    Numba's import or a compilation for its swaps alone (on Extended Yale B with 5 images per
    person, 38 classes, the first default fit took 0.6-1.3 s that way, against 0.04-0.4 s)."""
    return compiled_enabled() and (compiled_loaded() or sys.modules.get(_JIT) is not None)


#: Swap tables (``k (p - k)`` values) up to this size are searched from scratch at every sweep
#: (``refresh=1``) where ``B`` is an array: there the updates' bookkeeping costs more than
#: recomputing. Measured on the default fit (from scratch against updated): USPS 3 vs 5, NumPy
#: route, k = 10 / 50 / 100: 0.67 / 3.1 / 11.9 ms against 0.76 / 3.6 / 13.2 ms (the swaps alone);
#: Extended Yale B, 5 per person, compiled route, k = 10 (about 10,000 values): 11.7 against
#: 13.5 ms, k = 50: 73 against 53 ms; colon (a Gram operator) k = 5 / 50: 5.0 / 47.5 against
#: 4.5 / 27.7 ms. Larger tables take the updates on both routes since a move also updates ``P``
#: (an ``O(k^2)`` bordering instead of an ``O(k^3)`` inverse): the swaps of the default fit on
#: Extended Yale B with 5 images per person at k = 150 (NumPy route) took 310 ms from scratch
#: against 139 ms updated, and with 10 per person at k = 618 about 1.3 s against 0.6 s.
_PLAIN_TABLE = 16384


#: Moves between two recomputes from scratch of what the sweeps read (the updates in between are
#: exact up to rounding, which this bounds)
_REFRESH = 8
#: A move's value from the updated sweep and from the refit may differ by this relative amount;
#: beyond it the next sweep starts from scratch
_DRIFT = 1e-9


def _additive(M, B, S, can_leave, can_enter, max_sweeps, deadline, refresh=_REFRESH):
    """Best-improvement swaps valued in closed form (:mod:`pixsel.spectral.exact._swap`); ``B`` a
    :class:`_Columns`. ``refresh``: moves between recomputes from scratch (1: every sweep)."""
    sweep = _Sweep(M, B, S)
    f0, n, converged = sweep.f, 0, False
    p = len(B.diag)
    if len(S) == p or not can_enter[sweep.out].any() or not can_leave[S].any():
        return SwapResult(S, sweep.f, f0, 0, True)
    compiled = _compiled_sweep()
    limited = (not can_leave.all(), not can_enter.all())
    while n < max_sweeps and not _out_of_time(deadline):
        if sweep.moves >= refresh:  # from scratch: P as well, whose moves updated it
            sweep.reset(np.sort(sweep.S), sweep.f, *_sorted_state(sweep, B))
        f = sweep.f
        a, b, value = sweep.best(can_leave, can_enter, compiled, limited)
        if a < 0 or not _beats(value, f):
            converged = True
            break
        St = sweep.S.copy()  # S - i + j, sorted
        St[a] = sweep.out[b]
        St.sort()
        g, L, Wt = B.check(M, St)
        if not _beats(g, f):  # the closed form and the refit disagree by rounding: stop here
            if not sweep.sorted:  # the sweep from scratch decides (as every sweep did before updates)
                sweep.reset(np.sort(sweep.S), f, *_sorted_state(sweep, B))
                continue
            converged = True
            break
        drift = abs(value - g) > _DRIFT * abs(g)
        if refresh > 1 and not drift:
            sweep.move(a, b, g, Wt, St)
        else:
            P = _inverse_of_factor(L)
            sweep.reset(St, g, (P + P.T) / 2, Wt)
        n += 1
    return SwapResult(np.sort(sweep.S), sweep.f, f0, n, converged)


def _swap_values(T, s0, R0, P, W, f, num=None, den=None):
    """The values of :func:`pixsel.spectral.exact._swap._swap_values_of` (``k x q``), in fewer
    passes over the table: with ``e_i = 1 / P_ii``,

        val_ij = f - e_i |W_i|^2 + |R0_j + e_i T_ij W_i|^2 / (s0_j + e_i T_ij^2),

    the residual's square written as a square with one column (two classes), expanded through
    ``W R0^T`` with more. ``num`` and ``den``: ``k x q`` arrays to write into (``num`` is
    returned), else new ones. Entries that are not finite are left as they are (:func:`_best`
    reads them as ``-inf``)."""
    num = np.empty(T.shape) if num is None else num
    den = np.empty(T.shape) if den is None else den
    e = 1.0 / P.diagonal()
    wl = np.einsum("ij,ij->i", W, W)
    if R0.shape[1] == 1:
        np.multiply(T, (W[:, 0] * e)[:, None], out=num)
        num += R0[:, 0]
        num *= num
        np.multiply(T, T, out=den)
        den *= e[:, None]
    else:
        np.matmul(2.0 * W, R0.T, out=num)
        np.multiply(T, e[:, None], out=den)  # U = T / P_ii
        num += den * wl[:, None]
        num *= den  # 2 U (W R0^T) + U^2 |W|^2
        num += np.einsum("ij,ij->i", R0, R0)[None, :]
        den *= T
    den += s0[None, :]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        num /= den
    num += (f - wl * e)[:, None]
    return num


def _sorted_state(sweep, B):
    """``P`` and ``W`` of ``sweep``'s support in its sorted order, from scratch (the moves since
    the last recompute updated ``P``)."""
    return B.state(sweep.M, np.sort(sweep.S))[1:]


def _best(val, sweep):
    """The position ``(a, b)`` of the best swap; ties: the lowest ``(S[a], out[b])``, row-major
    in the sorted orders (the first maximum once the sweep is sorted)."""
    a, b = divmod(int(val.argmax()), val.shape[1])
    top = float(val[a, b])
    if not math.isfinite(top) and not top == -math.inf:  # nan or +inf: not a value
        val[~np.isfinite(val)] = -np.inf
        a, b = divmod(int(val.argmax()), val.shape[1])
    if sweep.sorted:
        return a, b
    tie = np.flatnonzero(val == val[a, b])
    if len(tie) > 1:
        ra, rb = np.divmod(tie, val.shape[1])
        c = np.lexsort((sweep.out[rb], sweep.S[ra]))[0]
        a, b = int(ra[c]), int(rb[c])
    return a, b


def _max_eig(A, B, S, full, can_leave, can_enter, max_sweeps, n_exact, deadline):
    """Swaps screened by 2 x 2 Rayleigh-Ritz lower bounds, taken when they verify exactly."""
    p = A.shape[0]

    def value(T):
        return objective_on_support(A, B, T, criterion="max-eig")

    f = value(S)
    f0, n, converged = f, 0, False
    while n < max_sweeps and not _out_of_time(deadline):
        out = _complement(p, S)
        if len(out) == 0:
            converged = True
            break
        bound = _ritz_bounds(A, B, S, out, full)
        bound[~can_leave[S], :] = -np.inf
        bound[:, ~can_enter[out]] = -np.inf
        flat = np.argsort(-bound, axis=None, kind="stable")
        flat = flat[np.isfinite(bound.ravel()[flat])]
        if len(flat) == 0:
            converged = True
            break
        best_T, best_g = None, f
        i, j = np.unravel_index(int(flat[0]), bound.shape)
        if _beats(bound[i, j], f):  # a certified improvement: take it
            T = np.sort(np.append(np.delete(S, i), out[j]))
            best_T, best_g = T, value(T)
        else:  # no bound beats f: the most promising swaps, exactly
            for c in flat[:n_exact]:
                i, j = np.unravel_index(int(c), bound.shape)
                T = np.sort(np.append(np.delete(S, i), out[j]))
                g = value(T)
                if _beats(g, best_g):
                    best_T, best_g = T, g
        if best_T is None or not _beats(best_g, f):
            converged = True
            break
        S, f = best_T, best_g
        n += 1
    return SwapResult(S, f, f0, n, converged)


def _ritz_bounds(A, B, S, out, full) -> NDArray:
    """For every swap ``(i, j)``, ``i`` in ``S``, ``j`` in ``out``: the largest eigenvalue of the
    pencil restricted to ``span(z - z_i e_i, e_j)``, a lower bound on ``lambda_max`` of
    ``S - i + j`` (``z`` the top generalized eigenvector on ``S``, ``z^T B_SS z = 1``)."""
    if full:
        ASS, AoS = A[np.ix_(S, S)], A[np.ix_(out, S)]
        Ajj = A[out, out]
    else:
        MS, Mo = A[S], A[out]
        ASS, AoS = MS @ MS.T, Mo @ MS.T
        Ajj = np.einsum("ij,ij->i", Mo, Mo)
    if B is None:
        BSS, BoS, Bjj = np.eye(len(S)), np.zeros((len(out), len(S))), np.ones(len(out))
    else:
        BSS, BoS, Bjj = B[np.ix_(S, S)], B[np.ix_(out, S)], B[out, out]
    vals, vecs = sla.eigh(ASS, BSS)
    lam, z = vals[-1], vecs[:, -1]
    Az, Bz = ASS @ z, BSS @ z
    zz = z * z
    a11 = (lam - 2 * z * Az + zz * np.diag(ASS))[:, None]  # u = z without entry i
    b11 = (1.0 - 2 * z * Bz + zz * np.diag(BSS))[:, None]
    a12 = (AoS @ z)[None, :] - AoS.T * z[:, None]  # e_j^T A u
    b12 = (BoS @ z)[None, :] - BoS.T * z[:, None]
    a22, b22 = Ajj[None, :], Bjj[None, :]
    # det(a - mu b) = qa mu^2 + qb mu + qc
    qa = b11 * b22 - b12 * b12
    qb = -(a11 * b22 + a22 * b11 - 2 * a12 * b12)
    qc = a11 * a22 - a12 * a12
    with np.errstate(divide="ignore", invalid="ignore"):
        disc = np.sqrt(np.maximum(qb * qb - 4 * qa * qc, 0.0))
        mu = (-qb + disc) / (2 * qa)
        single = np.broadcast_to(a22 / b22, mu.shape)
    # b11 = u^T B u in units of z^T B z = 1: below _VANISH, u is rounding (z = e_i): e_j alone
    mu = np.where((b11 > _VANISH) & (qa > 0), mu, single)
    return np.where(np.isfinite(mu), mu, -np.inf)
