"""Local improvement of one sparse PCA support (``B = I``): truncated power steps, then swaps.

The greedy path is nested, so at a given ``k`` its support can be beaten by supports that are
not reachable by adding one feature at a time. :func:`refine_support` starts from any support
and only ever moves to a support of larger ``lambda_max(A_S)`` (so the result is never worse):

1. truncated power iterations (Yuan and Zhang, JMLR 2013): ``x <- top_k(A x)``, each support
   renormalized (Moghaddam, Weiss and Avidan, 2006, Proposition 2) and accepted only if it improves;
2. swap local search over the *whole* 1-swap neighbourhood (``screen=True``, the default):
   from the eigendecomposition of ``A_SS``, every addition gets its exact value ``add_j``
   (bordered secular equation), an upper bound ``mu_j`` on the second eigenvalue of
   ``A_{S+j}`` and that matrix's top eigenvector ``z_j``; then every swap ``(i, j)`` gets the
   certified upper bound ``add_j - (add_j - mu_j) z_ij^2`` (``S - i + j`` is ``S + j`` without
   coordinate ``i``) and the second-order estimate ``RQ(z_j`` without entry ``i)`` -- all
   ``k (p - k)`` of them in ``O(p k^2)``. Swaps whose bound cannot beat ``lambda_max(A_SS)``
   are skipped (on Extended Yale B, p = 1024, all but 22 of 92,400 at k = 100); the others are
   evaluated exactly by decreasing estimate and the first improving one is taken. A sweep that
   evaluates or excludes every swap and finds none certifies a 1-swap local optimum
   (``info['swap_sweep_complete']``). When no single swap improves, the splicing of abess
   (Zhu et al. PNAS 2020) exchanges the ``m`` least harmful removals with the ``m`` best
   additions, ``m = 2, 4, 8, ...``. (``screen=False``: the ``n_try`` least harmful removals
   paired with the ``n_try`` best additions, as before the screening.)
3. first-order exchanges (when 2 finds nothing): the ``n_exchange`` features of smallest
   ``|x_i|`` in ``S`` and of largest ``|(A x)_j|`` outside (``x`` the leading eigenvector) form
   every ``m``-for-``m`` exchange, ``m <= max_exchange``; each gets the certified lower bound of
   the Rayleigh-Ritz problem on ``span(x_{S - R}, y_{S - R}, e_J)`` (``y`` the second
   eigenvector; ``O(m^3)`` each, all of them batched) and the best few are evaluated exactly;
4. grow-and-shrink (when 2 and 3 find nothing): ``m`` exact greedy additions from ``S`` then
   ``m`` exact greedy removals, ``m = 1, 2, 4, ..., max_grow`` -- exchanges of correlated groups
   that no single swap reaches (screened: each addition evaluates only the candidates whose
   arrow upper bound reaches the best 2 x 2 lower bound, or, from ``k = 8``, all the additions
   are one certified Krylov forward path from ``S``; a shrink is skipped when no size-``k``
   subset of the grown support can beat the current value).
It stops when no move improves or after ``max_swaps`` accepted moves. Every accepted move
strictly improves, so the result is deterministic and never worse.

Most candidate supports do not improve, and deciding that costs less than their eigenvalue:
a screened swap ``S - i + j`` is first settled by a few Krylov steps from the top eigenvector
of ``A_{S+j}`` without entry ``i``, whose Ritz value is a lower bound and, with
``lambda_2(A_T) <= mu_j`` (interlacing), Kato-Temple's ``rho + |r|^2 / (rho - mu_j)`` an upper
one (:func:`_certified_top`); every other candidate (splicing, exchanges, the end of a
grow-and-shrink) is first tested by one Cholesky factorization of ``(thr - delta) I - A_T``,
whose success proves ``lambda_max(A_T) < thr`` (:func:`_exceeds`). Only an undecided candidate
gets its exact value, so every decision is the one exact eigenvalues give (up to rounding
margins of order ``1e-12``). The grow-and-shrink removals are deterministic functions of the
support they start from, so a group whose removals reach a support an earlier group went
through ends where that one ended and is not evaluated again.

Cost per swap iteration: one ``k x k`` ``eigh``, ``O(p k^2)`` for the additions and the swap
bounds and a few ``O(k^2)`` certified checks (``n_try^2`` ``k x k`` eigenvalue problems
unscreened); phase 3 costs ``O(C(n_exchange, m)^2 m^3)`` plus a few ``k x k`` Cholesky
factorizations, phase 4 at most ``2 max_grow`` eigendecompositions of size ``<= k + max_grow``
(fewer when groups share removals).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import scipy.linalg as sla
from scipy.linalg.lapack import dpotrf as _potrf

from ..._routes import compiled_enabled, note_compiled, sized_kernels
from ._fullrank_krylov import forward_krylov
from .._operators import DenseOperator
from ._secular import EPS as _EPS
from ._secular import arrow3_max, deleted_top, eig2_max, secular_border

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = ["refine_support"]

# From this support size on, the screened grow-and-shrink takes its ``max_grow`` greedy
# additions from one certified Krylov forward path started at ``S`` (a few ``O(k^2)`` passes
# per addition) instead of one ``O(k^3)`` ``eigh`` per addition; the eigendecomposition is
# then needed only at the grown supports the removals start from.
_KRYLOV_GROW = 8


def _lam(A, S):
    return float(sla.eigh(A[np.ix_(S, S)], eigvals_only=True, subset_by_index=[len(S) - 1, len(S) - 1])[0])



def _exceeds(A, T, thr):
    """``lambda_max(A_T)`` when it may exceed ``thr``, else ``None`` (then it certainly does not).

    One Cholesky factorization of ``sigma I - A_T`` (a sixth of the subset ``eigh`` of
    :func:`_lam`): its success proves ``sigma I - A_T + E`` positive definite with
    ``|E|_2 <= (n + 1) eps tr(sigma I - A_T)`` (the backward error of Cholesky), so with
    ``sigma = thr - delta``, ``delta`` twice that, ``lambda_max(A_T) < thr``. Otherwise the exact
    value is returned, so a caller that compares it with ``thr`` decides exactly as with
    :func:`_lam` alone.
    """
    n = len(T)
    M = A.take(T, axis=0).take(T, axis=1)
    tr = n * thr - np.trace(M)
    delta = 2.0 * (n + 1) * _EPS * max(tr, 0.0) + 4 * _EPS * abs(thr)
    M = -M
    M[np.diag_indices(n)] += thr - delta
    if tr > 0 and _potrf(M, lower=0, clean=0, overwrite_a=1)[1] == 0:
        return None
    return _lam(A, T)


def _top_pair(A, S):
    """``lambda_max(A_S)`` and its eigenvector (LAPACK's subset solver: a third of a full ``eigh``)."""
    w, v = sla.eigh(A[np.ix_(S, S)], subset_by_index=[len(S) - 1, len(S) - 1], driver="evr")
    return float(w[0]), v[:, 0]


def _add_values(A, S, theta, V):
    """Exact ``lambda_max(A_{S+j})`` of every ``j`` outside ``S`` (bordered secular equation)."""
    p = A.shape[0]
    out = np.setdiff1d(np.arange(p), S)
    b = A[np.ix_(out, S)] @ V
    c = np.diag(A)[out]
    return out, _border_top(theta, b, c)


def _best_addition(A, S, theta, V):
    """``argmax_j lambda_max(A_{S+j})`` over ``j`` outside ``S`` (ties: lowest index), screened.

    Every candidate gets the 2 x 2 Rayleigh-Ritz lower bound on ``(x_1, e_j)`` and the 3 x 3
    arrow upper bound ``(theta_1, theta_2; b_1, |b_rest|; A_jj)`` from ``b_1 = x_1 . A_{S,j}``
    and ``|A_{S,j}|`` (``O(p k)``); only those whose upper bound reaches the best lower bound
    get the exact value (bordered secular equation), so the ``O(p k^2)`` product of
    :func:`_add_values` shrinks to the few survivors.
    """
    p = A.shape[0]
    out = np.setdiff1d(np.arange(p), S)
    AoS = A[np.ix_(out, S)]
    c = np.diag(A)[out]
    th1 = theta[-1]
    th2 = theta[-2] if len(theta) > 1 else theta[-1]
    b1 = AoS @ V[:, -1]
    bn2 = np.einsum("ij,ij->i", AoS, AoS)
    lower = np.maximum(eig2_max(th1, b1, c), np.maximum(th1, c))
    beta = np.sqrt(np.maximum(bn2 - b1 * b1, 0.0))
    upper = arrow3_max(th1, th2, c, b1, beta)
    scale = abs(th1) + np.abs(c).max() + np.sqrt(bn2.max()) + 1e-300
    surv = np.flatnonzero(upper >= lower.max() - 1e-10 * scale)
    vals = _border_top(theta, AoS[surv] @ V, c[surv])
    return int(out[surv[int(np.argmax(vals))]])


def _border_top(theta, b, c):
    """``lambda_max([[diag(theta), b_j], [b_j^T, c_j]])`` of every row ``j``: Newton from the 2 x 2
    Rayleigh-Ritz value on ``(x_1, e_j)`` (a lower bound, so a few steps, not a climb from the pole)."""
    lo = np.maximum(eig2_max(theta[-1], b[:, -1], c), np.maximum(theta[-1], c))
    hi = np.maximum(theta[-1], c) + np.linalg.norm(b, axis=1)
    return secular_border(theta, b, c, np.minimum(lo, hi), hi)


def _remove_values(theta, V, screen=False):
    """Exact ``lambda_max(A_{S-i})`` of every ``i`` in ``S`` (deleted-row secular equation).

    ``screen``: only the rows whose upper bound ``hi_i`` reaches the largest lower bound
    ``lo`` get their exact value (the others are ``-inf``: none of them can be, or tie, the
    argmax), so a greedy removal solves a few secular equations, not ``k``.
    """
    k = len(theta)
    if k == 1:
        return np.zeros(1)
    w2 = V * V
    wh = w2 / w2.sum(axis=1, keepdims=True)
    th1, th2 = theta[-1], theta[-2]
    a1 = wh[:, -1]
    hi = th1 - (th1 - th2) * a1  # the deleted-row bracket (see _fullrank_dense.backward_secular)
    with np.errstate(divide="ignore", invalid="ignore"):
        rq = (th1 * (1 - 2 * a1) + a1 * (wh @ theta)) / (1 - a1)
    lo = np.minimum(np.maximum(th2, np.where(1 - a1 > 1e-12, rq, th2)), hi)
    if not screen:
        return deleted_top(theta, wh, lo, hi)
    margin = 1e-10 * (abs(th1) + abs(theta[0]))  # rounding in the bracket
    surv = np.flatnonzero(hi + margin >= lo.max())
    vals = np.full(k, -np.inf)
    vals[surv] = deleted_top(theta, wh[surv], lo[surv], hi[surv])
    return vals


def _second_root_jit():
    """:func:`pixsel.spectral.greedy._refine_jit.second_root_rows` (or ``None`` without Numba)."""
    if not compiled_enabled():  # the route chose the NumPy kernels
        return None
    note_compiled()
    from ._refine_jit import second_root_rows
    return second_root_rows


def _second_root(theta, b, c, max_iter=60, compiled=True):
    """Upper bounds on the second largest eigenvalue of every bordered ``[[diag(theta), b_j], [b_j^T, c_j]]``.

    ``theta`` ascending (``theta[-1]`` the largest). The second eigenvalue is the root in
    ``[theta_2, theta_1]`` of the increasing ``phi(lam) = lam - c - sum_l b_l^2 / (lam - theta_l)``
    (or an end of that interval when ``b_1`` or ``b_2`` vanishes). Safeguarded Newton steps keep
    a bracket ``[lo, hi]`` with ``phi(hi) >= 0``; ``hi`` is returned, so it is an upper bound
    even when the iteration stops early. ``compiled``: the same iteration row by row in Numba
    (:func:`pixsel.spectral.greedy._refine_jit.second_root_rows`, which also closes the bracket from the
    Newton side instead of bisecting it; the vectorized one pays a dozen array calls per step
    on ``(p - k) x k`` temporaries).
    """
    n, k = b.shape
    th1 = theta[-1]
    if k == 1:  # the 2 x 2 problem in closed form
        return 0.5 * (th1 + c) - np.sqrt(0.25 * (th1 - c) ** 2 + b[:, 0] ** 2)
    jit = _second_root_jit() if compiled else None
    if jit is not None:
        return jit(np.ascontiguousarray(theta, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64),
                   np.ascontiguousarray(np.broadcast_to(c, (n,)), dtype=np.float64), max_iter)
    lo = np.full(n, theta[-2])
    hi = np.full(n, th1)
    b2 = b * b
    scale = abs(th1) + abs(theta[0]) + 1e-300
    lam = 0.5 * (lo + hi)
    active = np.ones(n, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(max_iter):
            ia = np.flatnonzero(active)
            if len(ia) == 0:
                break
            la = lam[ia]
            diff = la[:, None] - theta[None, :]
            q = b2[ia] / diff
            phi = la - c[ia] - q.sum(axis=1)
            dphi = 1.0 + (q / diff).sum(axis=1)
            pos = ~(phi < 0)  # phi(la) >= 0 (or nan at a pole): the root is at or left of la
            hi[ia] = np.where(pos, la, hi[ia])
            lo[ia] = np.where(pos, lo[ia], la)
            new = la - phi / dphi
            bad = ~((new > lo[ia]) & (new < hi[ia]))
            new[bad] = 0.5 * (lo[ia][bad] + hi[ia][bad])
            lam[ia] = new
            done = hi[ia] - lo[ia] <= 1e-9 * (th1 - theta[-2]) + 4 * _EPS * scale
            active[ia[done]] = False
    return hi


def _swap_bounds(A, S, theta, V, rem, thr=None):
    """Bounds on ``lambda_max(A_T)``, ``T = S - i + j``, for every ``i`` in ``S`` and ``j`` outside.

    With ``M = A_{S+j}`` (bordered: ``lambda_1 = add_j``, ``lambda_2 <= mu_j`` from
    :func:`_second_root`, top eigenvector ``z_j``), ``T`` is ``S + j`` without coordinate ``i``,
    so (the deleted-row secular equation) ``lambda_max(A_T) <= add_j - (add_j - mu_j) z_ij^2``.
    Also ``A_{S-i} <= rem_i I`` gives ``lambda_max(A_T) <= eig2_max(rem_i, |A_{S-i,j}|, A_jj)``.
    The smaller of the two is returned as ``upper`` (rigorous up to a rounding margin), and the
    Rayleigh quotient of ``z_j`` with entry ``i`` zeroed as ``lower`` (an estimate that orders
    the exact evaluations). Returns ``out, add, upper, lower`` (``k x (p - k)``).

    ``thr``: only the columns ``j`` where some bound with the interlacing value
    ``mu_j = theta_1`` still exceeds ``thr`` get the exact second root (the Newton solve that
    dominates the cost); the others keep that weaker bound, which already excludes every swap
    of theirs (the bound increases with ``mu_j``, so the set of swaps above ``thr`` is the same).
    """
    return _swap_data(A, S, theta, V, rem, thr)[:4]


def _swap_data(A, S, theta, V, rem, thr=None):
    """:func:`_swap_bounds` plus ``mu`` (upper bounds on ``lambda_2(A_{S+j})``) and ``Z``
    (``k x (p - k)``: the top eigenvector of each ``A_{S+j}`` on ``S``, up to its norm)."""
    p = A.shape[0]
    out = np.setdiff1d(np.arange(p), S)
    AoS = A.take(S, axis=0).take(out, axis=1).T  # A[out][:, S] (a faster gather)
    b = AoS @ V
    c = np.diag(A)[out]
    th1 = theta[-1]
    add = _border_top(theta, b, c)
    scale = abs(th1) + np.abs(c).max() + 1e-300
    with np.errstate(divide="ignore", invalid="ignore"):
        y = b / (add[:, None] - theta[None, :])
    ok = (add - th1 > 1e-9 * scale) & np.all(np.isfinite(y), axis=1)
    y[~ok] = 0.0
    Z = V @ y.T  # (k, n_out): the top eigenvector of A_{S+j} on S, up to its norm
    z2 = Z * Z / (1.0 + (y * y).sum(axis=1))[None, :]
    z2[:, ~ok] = 0.0
    dz2 = np.maximum(z2 - 1e-9, 0.0)  # a rounding margin keeps the bound on the safe side
    border = np.sqrt(np.maximum((AoS * AoS).sum(axis=1)[None, :] - AoS.T**2, 0.0))
    upper_b = eig2_max(rem[:, None], border, c[None, :])
    if thr is None:
        mu = _second_root(theta, b, c)
    else:  # lambda_2(A_{S+j}) <= theta_1 (interlacing); the exact root only where it matters
        mu = np.full(len(out), th1)
        crude = np.minimum(add[None, :] - (add - mu)[None, :] * dz2, upper_b) + 1e-11 * scale
        cols = np.flatnonzero((crude > thr).any(axis=0))
        if len(cols):
            mu[cols] = _second_root(theta, b[cols], c[cols])
    upper = add[None, :] - (add - mu)[None, :] * dz2
    upper = np.minimum(upper, upper_b)
    upper += 1e-11 * scale
    dA = np.diag(A)[S]
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = add[None, :] - z2 * (add[None, :] - dA[:, None]) / (1.0 - z2)
    lower = np.where(np.isfinite(lower), lower, -np.inf)
    return out, add, upper, lower, mu, Z, ok


def _certified_top(M, x0, alpha, f, margin, dim=6, cycles=3):
    """Decide ``lambda_max(M) > f`` from a few Krylov steps, or ``None`` when not certain.

    ``x0`` a warm start (close to the top eigenvector), ``alpha >= lambda_2(M)``. Each cycle is
    a Rayleigh-Ritz step on ``span(x, M x, ..., M^(dim-1) x)`` restarted from its top Ritz
    vector: the Ritz value ``rho <= lambda_max(M)``, and, with the residual ``r`` of the Ritz
    pair and ``rho > alpha``, Kato-Temple gives ``lambda_max(M) <= rho + |r|^2 / (rho - alpha)``.
    Returns ``(True, rho)`` when ``rho - margin > f``, ``(False, upper)`` when
    ``upper + margin <= f`` and ``None`` after ``cycles`` cycles without a decision.
    """
    n = M.shape[0]
    x = x0 / np.linalg.norm(x0)
    dim = min(dim, n)
    for _ in range(cycles):
        Q = np.empty((n, dim))
        MQ = np.empty((n, dim))
        Q[:, 0] = x
        d = dim
        for t in range(dim):
            MQ[:, t] = M @ Q[:, t]
            if t + 1 == dim:
                break
            w = MQ[:, t].copy()
            for _ in range(2):  # full reorthogonalization, twice
                w -= Q[:, : t + 1] @ (Q[:, : t + 1].T @ w)
            nw = np.linalg.norm(w)
            if nw <= 1e-10 * np.linalg.norm(MQ[:, t]):
                d = t + 1  # an invariant subspace: the Ritz pairs are exact up to rounding
                break
            Q[:, t + 1] = w / nw
        H = Q[:, :d].T @ MQ[:, :d]
        h, G = np.linalg.eigh(0.5 * (H + H.T))
        x = Q[:, :d] @ G[:, -1]
        Mx = MQ[:, :d] @ G[:, -1]
        nx = np.linalg.norm(x)
        x, Mx = x / nx, Mx / nx
        rho = float(x @ Mx)
        if rho - margin > f:
            return True, rho
        if rho > alpha:
            r = np.linalg.norm(Mx - rho * x)
            upper = rho + r * r / (rho - alpha)
            if upper + margin <= f:
                return False, upper
    return None


def _screened_swap(A, S, theta, V, rem, f, n_first, max_eval, certify=True):
    """The best exact 1-swap among the unscreened ones, or ``None`` when none improves on ``f``.

    Every swap whose upper bound (:func:`_swap_bounds`) is at most ``f`` is skipped. The rest
    are evaluated, by decreasing estimate, and the first that improves is returned (first
    improvement); after ``n_first`` of them, the others by decreasing upper bound, up to
    ``max_eval`` evaluations in all. Returns ``(move, n_eval, complete, out, add)``, ``complete``
    telling whether every unscreened swap was either evaluated or bounded below ``f``, and
    ``out, add`` the exact value of every single addition (for the splicing moves).

    ``certify``: each evaluation first tries :func:`_certified_top` from the top eigenvector of
    ``A_{S+j}`` without entry ``i`` (``lambda_2(A_T) <= mu_j`` by interlacing), which settles
    "improves or not" in a few ``O(k^2)`` products; only undecided swaps get the exact ``eigh``.
    A swap is taken only on a certified lower bound above ``f``, so the move value of an
    accepted swap may be that lower bound (``move[1] <= lambda_max(A_T)``), not the exact value.
    """
    thr = f * (1 + 1e-12)
    out, add, upper, lower, mu, Z, ok = _swap_data(A, S, theta, V, rem, thr)
    ii, jj = np.nonzero(upper > thr)
    if len(ii) == 0:
        return None, 0, True, out, add
    ub = upper[ii, jj]
    est = lower[ii, jj]
    scale = abs(theta[-1]) + np.abs(np.diag(A)[out]).max() + 1e-300
    margin = 1e-12 * scale

    def improves(q, best):
        """``(improves, value)``; ``value`` exact unless certified."""
        i, j = ii[q], jj[q]
        T = np.sort(np.append(S[S != S[i]], out[j]))
        if certify:
            x = np.zeros(A.shape[0])
            x[S] = Z[:, j] if ok[j] else V[:, -1]
            x[out[j]] = 1.0 if ok[j] else 0.0
            x[S[i]] = 0.0
            x0 = x[T]
            if np.any(x0):
                dec = _certified_top(A.take(T, axis=0).take(T, axis=1), x0, mu[j] + 1e-11 * scale, best, margin)
                if dec is not None:
                    return T, dec[0], dec[1]
        v = _exceeds(A, T, best)
        return T, v is not None and v > best, v

    first = np.lexsort((jj, ii, -est))[:n_first]  # largest estimate first; ties by index
    best, n_eval = thr, 0
    done = np.zeros(len(ii), dtype=bool)
    for q in first:
        T, better, v = improves(q, best)
        n_eval += 1
        done[q] = True
        if better:  # first improvement: the estimates are accurate, the first one usually wins
            return (T, v), n_eval, True, out, add
    rest = np.flatnonzero(~done)
    rest = rest[np.lexsort((jj[rest], ii[rest], -ub[rest]))]
    for q in rest:
        if ub[q] <= best:
            return None, n_eval, True, out, add
        if n_eval >= max_eval:
            return None, n_eval, False, out, add
        T, better, v = improves(q, best)
        n_eval += 1
        if better:
            return (T, v), n_eval, True, out, add
    return None, n_eval, True, out, add


def _exchange_bounds(A, S, theta, V, n_exchange, max_exchange):
    """Rayleigh-Ritz lower bounds ``(lb, R, J)`` of every first-order ``m``-for-``m`` exchange.

    ``lb <= lambda_max(A_T)``, ``T = S - R + J``: the Rayleigh-Ritz value on the span of the two
    leading eigenvectors of ``A_SS`` with ``R`` zeroed and of ``e_J``.
    """
    p, k = A.shape[0], len(S)
    out_list = []
    if k < 2:
        return out_list
    X = np.zeros((p, 2))
    X[S] = V[:, [-1, -2]]
    G = A @ X
    out = np.setdiff1d(np.arange(p), S)
    rem_c = S[np.argsort(np.abs(X[S, 0]), kind="stable")][:n_exchange]
    add_c = out[np.argsort(-np.abs(G[out, 0]), kind="stable")][:n_exchange]
    top2 = np.diag(theta[[-1, -2]])
    for m in range(1, min(max_exchange, len(rem_c), len(add_c)) + 1):
        adds = np.array(list(combinations(add_c, m)), dtype=np.intp)  # (nA, m)
        rems = np.array(list(combinations(rem_c, m)), dtype=np.intp)  # (nR, m)
        CAA = A[adds[:, :, None], adds[:, None, :]]
        # every R at once: (x, y) with R zeroed, their Gram matrix and its whitening
        XR, GR = X[rems], G[rems]  # (nR, m, 2)
        XRt, GRt = np.swapaxes(XR, 1, 2), np.swapaxes(GR, 1, 2)
        YCY = top2 - XRt @ GR - GRt @ XR + XRt @ A[rems[:, :, None], rems[:, None, :]] @ XR
        wY, QY = np.linalg.eigh(np.eye(2) - XRt @ XR)
        CAY = G[adds][None] - A[adds[None, :, :, None], rems[:, None, None, :]] @ XR[:, None]  # (nR, nA, m, 2)
        nR, nA = len(rems), len(adds)
        if np.all(wY > 1e-10):  # the usual case: rank 2 for every R, one batched eigvalsh
            Wh = QY / np.sqrt(wY)[:, None, :]
            H = np.empty((nR, nA, 2 + m, 2 + m))
            H[:, :, :2, :2] = (np.swapaxes(Wh, 1, 2) @ YCY @ Wh)[:, None]
            H[:, :, 2:, :2] = CAY @ Wh[:, None]
            H[:, :, :2, 2:] = np.swapaxes(H[:, :, 2:, :2], 2, 3)
            H[:, :, 2:, 2:] = CAA[None]
            lb = np.linalg.eigvalsh(H)[..., -1]
            for q in range(nR):
                R = rems[q].tolist()
                out_list.extend((lb[q, a_], R, adds[a_]) for a_ in range(nA))
            continue
        for q, R in enumerate(rems):
            keep = wY[q] > 1e-10
            if not keep.any():
                continue
            Wh = QY[q][:, keep] / np.sqrt(wY[q][keep])
            r = Wh.shape[1]
            H = np.empty((len(adds), r + m, r + m))
            H[:, :r, :r] = Wh.T @ YCY[q] @ Wh
            H[:, r:, :r] = CAY[q] @ Wh
            H[:, :r, r:] = np.swapaxes(H[:, r:, :r], 1, 2)
            H[:, r:, r:] = CAA
            lb = np.linalg.eigvalsh(H)[:, -1]
            R = R.tolist()
            out_list.extend((lb[a_], R, adds[a_]) for a_ in range(len(adds)))
    return out_list


def _exchange_move(A, S, theta, V, f, n_exchange, max_exchange, n_eval=4):
    """Best improving exchange among the ``n_eval`` of largest lower bound above ``f``, or ``None``."""
    cands = [c for c in _exchange_bounds(A, S, theta, V, n_exchange, max_exchange) if c[0] > f]
    cands.sort(key=lambda c: (-c[0], c[1], c[2].tolist()))
    best, best_T = f, None
    for _, R, J in cands[:n_eval]:
        T = np.sort(np.concatenate([np.setdiff1d(S, R), J]))
        thr = best * (1 + 1e-12)
        v = _exceeds(A, T, thr)
        if v is not None and v > thr:
            best, best_T = v, T
    return None if best_T is None else (best_T, best)


def _grow_shrink_move(A, S, f, max_grow, screen=False):
    """``m`` exact greedy additions then ``m`` exact greedy removals, ``m = 1, 2, 4, ...``.

    With ``screen``, the removals from the grown support ``U`` are skipped when no size-``k``
    subset of ``U`` can beat the best value so far: for ``T = U - R``, ``|R| = m``,
    ``lambda_max(A_T) <= lambda_1 - (lambda_1 - lambda_2) sum_{r in R} z_r^2`` (``z`` the top
    eigenvector of ``A_UU``; the restriction argument of the deleted-row bound), at most the
    same with the ``m`` smallest ``z_r^2``. Returns ``(move or None, n_pruned)``.
    """
    p, k = A.shape[0], len(S)
    best, best_T = f, None
    T = S.copy()
    m = n_pruned = 0
    seen = {}  # support (bytes) reached by the removals -> the support they end at
    targets = []
    g = 1
    while g <= min(max_grow, p - k):
        targets.append(g)
        g *= 2
    if screen and targets and k >= _KRYLOV_GROW:  # all the additions at once, as the forward path from S
        adds = forward_krylov(DenseOperator(A), k + targets[-1], start=S)[0][k:]
    else:
        adds = None
        theta, V = np.linalg.eigh(A[np.ix_(T, T)])
    for target in targets:
        if adds is not None:
            m = target
            T = np.sort(np.concatenate([S, adds[:m]]))
            theta, V = np.linalg.eigh(A[np.ix_(T, T)])
        while m < target:
            if screen:
                j = _best_addition(A, T, theta, V)
            else:
                out, add = _add_values(A, T, theta, V)
                j = out[int(np.argmax(add))]
            T = np.sort(np.append(T, j))
            theta, V = np.linalg.eigh(A[np.ix_(T, T)])
            m += 1
        if screen:
            z2 = np.sort(V[:, -1] ** 2)[:m].sum()
            scale = abs(theta[-1]) + abs(theta[0])
            bound = theta[-1] - (theta[-1] - theta[-2]) * max(z2 - 1e-9, 0.0) + 1e-11 * scale
            if bound <= best * (1 + 1e-12):
                n_pruned += 1
                continue
        U = T.copy()
        th, W = theta, V
        chain, known = [], None
        for step in range(m):
            if step:
                known = seen.get(U.tobytes())
                if known is not None:  # an earlier group's removals went on from this very support
                    break
                th, W = np.linalg.eigh(A[np.ix_(U, U)])
            chain.append(U.tobytes())
            U = np.delete(U, int(np.argmax(_remove_values(th, W, screen=screen))))
        if known is not None:
            U = known
        for key in chain:
            seen[key] = U
        if known is not None or np.array_equal(U, S):
            # the greedy removals are deterministic: the same end support as before (already
            # compared with the best), or S itself, which cannot improve on f
            continue
        thr = best * (1 + 1e-12)
        v = _exceeds(A, U, thr)
        if v is not None and v > thr:
            best, best_T = v, U
    return (None if best_T is None else (best_T, best)), n_pruned


@sized_kernels  # small NumPy problems run the NumPy kernels (pixsel._routes.compiled_pays)
def refine_support(
    A: ArrayLike,
    support: ArrayLike,
    *,
    max_power: int = 50,
    max_swaps: int = 200,
    n_try: int = 4,
    n_exchange: int = 6,
    max_exchange: int = 3,
    max_grow: int | None = None,
    screen: bool = True,
    max_eval: int = 16,
) -> tuple[NDArray, float, dict[str, Any]]:
    """Improve a sparse PCA support of fixed size (``B = I``); never returns a worse one.

    Parameters
    ----------
    A : ndarray of shape (p, p)
        Symmetric positive semidefinite (a covariance).
    support : array-like of int
        Starting support (for example ``greedy_path(A).support(k)``).
    max_power, max_swaps : int
        Iteration limits of the two phases.
    n_try : int
        Removals and additions paired in each swap step.
    n_exchange, max_exchange : int
        First-order candidates on each side and the largest exchange size of phase 3
        (``n_exchange=0`` skips it).
    max_grow : int or None
        Largest group size of the grow-and-shrink moves (``0`` skips them). ``None``: 32 when
        ``k <= 64``, else 16 (the moves cost about ``3 max_grow`` eigendecompositions of size
        ``k``; on 300 Extended Yale B faces at 16 x 16, ``k = 20``, only groups of 32 reach
        abess's support).
    screen : bool
        ``True`` (default): phase 2 sweeps *every* 1-swap, skipping those whose upper bound
        cannot beat the current value and evaluating the rest exactly (the ``n_try**2`` of
        largest estimate first, then by decreasing bound, at most ``max_eval``), and
        grow-and-shrink skips the removals that provably cannot improve. ``False``: the
        unscreened moves (the ``n_try`` least harmful removals paired with the ``n_try`` best
        additions; every grow-and-shrink group evaluated), as before the screening.
    max_eval : int
        Screened sweep: most exact evaluations per swap step.

    Returns
    -------
    support : ndarray of int
        Sorted improved support of the same size.
    value : float
        Its ``lambda_max(A_S)``.
    info : dict
        ``n_power``, ``n_swaps``, ``n_exchanges`` and ``n_grow_shrink`` accepted moves;
        ``n_swap_evals`` exact swap evaluations; ``swap_sweep_complete``: the last screened
        sweep evaluated or excluded every 1-swap (so the result is a 1-swap local optimum);
        ``n_grow_pruned`` grow-and-shrink groups skipped by the bound.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.9, 0.0, 0.0], [0.9, 1.0, 0.0, 0.0], [0.0, 0.0, 1.5, 0.0], [0.0, 0.0, 0.0, 0.1]])
    >>> S, value, _ = refine_support(A, [1, 3])
    >>> S.tolist(), round(value, 6)
    ([0, 1], 1.9)
    """
    A = np.asarray(A, dtype=np.float64)
    p = A.shape[0]
    S = np.sort(np.asarray(support, dtype=np.intp))
    k = len(S)
    if max_grow is None:
        max_grow = 32 if k <= 64 else 16
    info = {"n_power": 0, "n_swaps": 0, "n_exchanges": 0, "n_grow_shrink": 0, "n_swap_evals": 0,
            "swap_sweep_complete": screen, "n_grow_pruned": 0}
    if k == 0 or k == p:
        return S, (_lam(A, S) if k else 0.0), info
    f, x_S = _top_pair(A, S)
    n_power = n_swaps = n_exch = n_grow = 0
    x = np.zeros(p)
    x[S] = x_S
    for _ in range(max_power):
        y = A @ x
        T = np.sort(np.argsort(-np.abs(y), kind="stable")[:k])
        if np.array_equal(T, S):
            break
        th1, x_T = _top_pair(A, T)  # the top pair only: the full eigh is needed once, after
        if th1 <= f * (1 + 1e-14):
            break
        S, f = T, th1
        x = np.zeros(p)
        x[S] = x_T
        n_power += 1
    for _ in range(max_swaps):
        theta, V = np.linalg.eigh(A[np.ix_(S, S)])  # once per accepted move
        f = theta[-1]
        rem = _remove_values(theta, V)
        best, best_T = f, None
        if screen:
            move, n_ev, complete, out, add = _screened_swap(A, S, theta, V, rem, f, n_try * n_try, max_eval)
            info["n_swap_evals"] += n_ev
            info["swap_sweep_complete"] = complete
            if move is not None:
                best_T, best = move
        else:
            out, add = _add_values(A, S, theta, V)
            for i in S[np.argsort(-rem, kind="stable")][:n_try]:
                for j in out[np.argsort(-add, kind="stable")][:n_try]:
                    T = np.sort(np.append(S[S != i], j))
                    v = _lam(A, T)
                    if v > best * (1 + 1e-12):
                        best, best_T = v, T
        if best_T is None or not screen:
            rem_order = S[np.argsort(-rem, kind="stable")]  # least harmful removal first
            add_order = out[np.argsort(-add, kind="stable")]  # best addition first
            m = 2  # splicing: exchange the m least harmful for the m best, m = 2, 4, 8, ...
            while m <= min(k, p - k):
                T = np.sort(np.concatenate([np.setdiff1d(S, rem_order[:m]), add_order[:m]]))
                thr = best * (1 + 1e-12)
                v = _exceeds(A, T, thr)
                if v is not None and v > thr:
                    best, best_T = v, T
                m *= 2
        if best_T is None and n_exchange > 0:
            move = _exchange_move(A, S, theta, V, f, n_exchange, max_exchange)
            if move is not None:
                (best_T, best), n_exch = move, n_exch + 1
        if best_T is None and max_grow > 0:
            move, pruned = _grow_shrink_move(A, S, f, max_grow, screen=screen)
            info["n_grow_pruned"] += pruned
            if move is not None:
                (best_T, best), n_grow = move, n_grow + 1
        if best_T is None:
            break
        S, f = best_T, None  # a certified swap's value may be a lower bound: eigh on the next round
        n_swaps += 1
    info.update(n_power=n_power, n_swaps=n_swaps, n_exchanges=n_exch, n_grow_shrink=n_grow)
    return S, float(_lam(A, S) if f is None else f), info
