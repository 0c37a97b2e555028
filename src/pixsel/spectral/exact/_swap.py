"""Swap local search for the incumbents of an additive problem (a vector ``a`` or ``'trace'``).

The greedy paths are nested, so at a given size their support can be far from the best one: on
UCI Sonar (two-class LDA, ``p = 60``) the better of the forward and backward greedy supports is
up to 9 % below the optimum at the sizes from 3 to 23, and a branch and bound whose incumbents
are that low has to open every subtree whose bound lies between the two. A 1-swap local search
from the greedy supports reaches the optima of sizes 3 to 9 there at a small fraction of the search's cost.

Every 1-swap of ``S`` (drop ``i in S``, add ``j not in S``) is valued at once, in closed form.
With ``P = B_SS^{-1}``, ``W = P M_S`` and ``f(S) = tr(M_S^T W)``:

* dropping ``i`` loses ``|W_i|^2 / P_ii`` and turns ``P`` into ``P - P_:i P_i: / P_ii``;
* adding ``j`` to ``S - i`` then gains ``|R_j|^2 / s_j`` with the Schur complement
  ``s_j = s0_j + T_ij^2 / P_ii`` and residual ``R_j = R0_j + (T_ij / P_ii) W_i``, where
  ``T = P B_S,out``, ``s0_j = B_jj - B_j,S T_:j`` and ``R0 = M_out - T^T M_S`` are those of ``S``.

so all ``k (p - k)`` swaps cost two matrix products. The search takes the best swap while it
improves (checked on the value recomputed from scratch, so rounding cannot make it cycle), and
the sizes exchange supports: a local optimum of size ``k - 1`` plus its best feature, and one of
size ``k + 1`` minus its least useful one, are offered to size ``k`` and searched from again.
Every value returned is that of its support, so the incumbents stay valid lower bounds.
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np
from scipy.linalg import cho_solve, get_lapack_funcs

from .._linalg import lower_cholesky

__all__ = ["best_two_swap", "improve_incumbents", "swap_search", "two_swap_search", "two_swap_work"]

#: a move is taken only if it raises f by more than this relative amount (rounding)
_RTOL = 1e-12


def _beats(g, f):
    return g > f + _RTOL * abs(f) if math.isfinite(f) else g > f


def _value(M, B, S):
    """``f(S) = tr(M_S^T B_SS^{-1} M_S)``, ``P = B_SS^{-1}`` and ``W = P M_S`` from one Cholesky."""
    return _value_of_block(M, B[np.ix_(S, S)], S)


#: LAPACK's float64 solve from a Cholesky factor (what ``cho_solve`` calls)
(_POTRS,) = get_lapack_funcs(("potrs",), (np.empty((1, 1)),))


def _cholesky_inverse(BSS):
    """``B_SS^{-1}`` by ``cho_solve(cho_factor(B_SS, lower=True), I)``: a float64 block by the
    LAPACK calls those make (:func:`~pixsel.spectral._linalg.lower_cholesky`), with their checks;
    the same numbers, without SciPy's per-call wrappers (a swap search makes one per move)."""
    return _inverse_of_factor(lower_cholesky(BSS))


def _inverse_of_factor(c):
    """``B_SS^{-1}`` from the lower Cholesky factor ``c`` of ``B_SS`` (``cho_solve((c, True), I)``
    by its LAPACK call)."""
    k = len(c)
    if not (c.dtype == np.float64 and c.ndim == 2 and c.size):
        return cho_solve((c, True), np.eye(k))
    P, info = _POTRS(c, _identity(k) if k <= _SHARED_IDENTITY else np.eye(k), lower=True, overwrite_b=False)
    if info != 0:
        raise ValueError(f"illegal value in {-info}th argument of internal potrs")
    return P


#: supports up to this size solve against a shared identity (at most 8 of them kept, 32 KiB each)
_SHARED_IDENTITY = 64


@functools.lru_cache(maxsize=8)
def _identity(k):
    """The ``k x k`` identity, shared and read-only (``potrs`` solves on its own copy)."""
    eye = np.eye(k)
    eye.flags.writeable = False
    return eye


def _value_of_block(M, BSS, S):
    """:func:`_value` from ``B_SS`` itself (a block read from B's columns ``S``)."""
    P = _cholesky_inverse(BSS)
    MS = M[S]
    W = P @ MS
    return float((MS * W).sum()), (P + P.T) / 2, W


def _complement(p, S):
    """The features ``0..p-1`` not in ``S``, sorted (``np.setdiff1d(np.arange(p), S)`` without its sort)."""
    keep = np.ones(p, dtype=bool)
    keep[np.asarray(S, dtype=np.intp)] = False
    return keep.nonzero()[0]


def _outside(M, B, S, P):
    """For every feature outside ``S``: ``T = P B_S,out``, the Schur complement ``s0`` and the
    residual ``R0`` of ``M`` given ``S`` (adding ``j`` gains ``|R0_j|^2 / s0_j``)."""
    out = _complement(B.shape[0], S)
    return (out, *_outside_of_columns(M, B[np.ix_(S, out)], B[out, out], S, out, P))


def _outside_of_columns(M, Bo, d_out, S, out, P):
    """:func:`_outside` from ``B_S,out`` (``Bo``) and the diagonal of ``B`` on ``out``, the
    features outside ``S``."""
    T = P @ Bo  # k x q
    s0 = d_out - np.einsum("ij,ij->j", Bo, T)
    R0 = M[out] - T.T @ M[S]  # q x r
    return T, s0, R0


def _swap_values(M, B, S, P, W, f):
    """The value of every 1-swap of ``S``: ``(k, p - k)`` array and the outside features."""
    out, T, s0, R0 = _outside(M, B, S, P)
    return _swap_values_of(T, s0, R0, P, W, f), out


def _swap_values_of(T, s0, R0, P, W, f):
    """:func:`_swap_values` from what :func:`_outside` gives for ``S``."""
    Pd = np.diag(P)
    loss = np.einsum("ij,ij->i", W, W) / Pd
    U = T / Pd[:, None]
    # k x q: W_i . R0_j; with one column (two classes) each is a single product, which the
    # broadcast forms without the matrix product's overhead (a signed zero aside, which no
    # comparison of the swap values reads)
    C = W * R0.T if R0.shape[1] == 1 else W @ R0.T
    # num = |R0_j|^2 + 2 U C + U^2 (loss Pd) and val = (f - loss) + num / (s0 + T U), written in
    # place (the same operations in the same order, without a k x q temporary for each)
    C *= 2 * U
    num = np.einsum("ij,ij->i", R0, R0)[None, :] + C
    C = np.multiply(U, U, out=C)
    C *= (loss * Pd)[:, None]
    num += C
    den = np.multiply(T, U, out=U)
    den += s0[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        num /= den
        num += (f - loss)[:, None]
    num[~np.isfinite(num)] = -np.inf
    return num


def swap_search(M, B, S, max_swaps: int = 100):
    """Best-improvement 1-swap local search from ``S``; returns ``(support, value, swaps)``.

    ``M`` of shape ``(p, r)``, ``B`` symmetric positive definite; the support is sorted and its
    value never below that of ``S``."""
    S = np.sort(np.asarray(S, dtype=np.intp))
    f, P, W = _value(M, B, S)
    if len(S) in (0, B.shape[0]):
        return S, f, 0
    n = 0
    while n < max_swaps:
        val, out = _swap_values(M, B, S, P, W, f)
        i, j = np.unravel_index(int(np.argmax(val)), val.shape)
        if not _beats(val[i, j], f):
            break
        T = np.sort(np.append(np.delete(S, i), out[j]))
        g, Pt, Wt = _value(M, B, T)
        if not _beats(g, f):
            break
        S, f, P, W = T, g, Pt, Wt
        n += 1
    return S, f, n


def two_swap_work(p: int, k: int) -> float:
    """The arithmetic of one sweep of :func:`best_two_swap` (``C(k, 2)`` drops of two, each a
    Schur complement on the ``p - k + 2`` features outside and a ``(p - k + 2)^2`` table)."""
    q = p - k + 2
    return math.comb(k, 2) * (q * q + k * k * q) if k >= 2 else 0.0


def best_two_swap(M, B, S):
    """The best support that exchanges two features of ``S`` for two others, and its value.

    Every drop of two (``i, j`` in ``S``, leaving ``T``) is followed by the best pair ``u, v`` of the
    features outside ``T`` (``i`` and ``j`` included, so the 1-swaps and ``S`` itself are candidates):
    with the Schur complement ``s`` and residual ``R`` of ``M`` given ``T``, and ``G = R R^T``,

        f(T + u + v) = f(T) + G_uu / s_uu + (G_vv - 2 c G_uv + c^2 G_uu) / (s_vv - c s_uv),
        c = s_uv / s_uu,

    a ``(p - k + 2)^2`` table per drop. Returns ``(support, value)`` with the value recomputed from
    scratch; ``(S, f(S))`` when no exchange is better (by a relative ``1e-12``).
    """
    S = np.sort(np.asarray(S, dtype=np.intp))
    p, k = B.shape[0], S.size
    f0 = _value(M, B, S)[0]
    best_S, best_f = S, f0
    if k < 2 or k >= p - 1:
        return best_S, best_f
    out = _complement(p, S)
    cand = []
    for a in range(k - 1):
        for b in range(a + 1, k):
            T = np.delete(S, (a, b))
            O = np.concatenate((out, S[[a, b]]))
            fT, P, W = _value(M, B, T)
            X = P @ B[np.ix_(T, O)]
            Sc = B[np.ix_(O, O)] - B[np.ix_(O, T)] @ X
            R = M[O] - X.T @ M[T]
            G = R @ R.T
            d = np.diag(Sc).copy()
            gd = np.diag(G).copy()
            with np.errstate(divide="ignore", invalid="ignore"):
                c = Sc / d[:, None]
                sl = d[None, :] - c * Sc
                val = fT + (gd / d)[:, None] + (gd[None, :] - 2 * c * G + c * c * gd[:, None]) / sl
            val[~((sl > 0) & (d[:, None] > 0))] = -np.inf
            np.fill_diagonal(val, -np.inf)
            u, v = np.unravel_index(int(np.argmax(val)), val.shape)
            if _beats(val[u, v], best_f):
                cand.append((float(val[u, v]), T, O[u], O[v]))
    for _, T, u, v in sorted(cand, key=lambda t: -t[0]):
        # the table's value is checked on the support itself (rounding cannot make the search cycle)
        U = np.sort(np.concatenate((T, [u, v])))
        g = _value(M, B, U)[0]
        if _beats(g, best_f):
            return U, g
    return best_S, best_f


def two_swap_search(M, B, S, max_moves: int = 20, deadline=None):
    """Local search by exchanges of one and of two features from ``S``; returns ``(support, value,
    moves)``, the value that of the support and never below ``f(S)``.

    Each round first takes 1-swaps while they improve (:func:`swap_search`), then the best 2-swap
    (:func:`best_two_swap`); it ends when neither improves, after ``max_moves`` 2-swaps, or past
    ``deadline`` (a ``time.perf_counter()`` value)."""
    S, f, n = swap_search(M, B, S)
    moves = 0
    while moves < max_moves and (deadline is None or time.perf_counter() < deadline):
        T, g = best_two_swap(M, B, S)
        if not _beats(g, f):
            break
        S, f, _ = swap_search(M, B, T)
        moves += 1
    return S, f, moves


def _neighbour(M, B, S, grow):
    """The best support of size ``|S| + 1`` containing ``S`` (``grow``) or of size ``|S| - 1``
    inside it, and its value (``f(S)`` plus the best gain, or minus the least loss); ``None``
    where there is none."""
    f, P, W = _value(M, B, S)
    if grow:
        if len(S) == B.shape[0]:
            return None, -np.inf
        out, _, s0, R0 = _outside(M, B, S, P)
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = np.where(s0 > 0, np.einsum("ij,ij->i", R0, R0) / s0, -np.inf)
        j = int(np.argmax(gain))
        return np.sort(np.append(S, out[j])), f + float(gain[j])
    if len(S) < 2:
        return None, -np.inf
    loss = np.einsum("ij,ij->i", W, W) / np.diag(P)
    i = int(np.argmin(loss))
    return np.delete(S, i), f - float(loss[i])


def improve_incumbents(M, B, supports, values, max_k, starts=(), deadline=None, max_rounds: int = 5):
    """Raise the incumbents of sizes ``1..max_k`` by swap local search; returns the sizes improved.

    ``supports[j]``, ``values[j]`` (index = size) are replaced in place where a better support is
    found. ``starts``: callables ``k -> support of size k`` (the greedy paths) searched from as
    well as the incumbents. ``deadline``: a ``time.perf_counter()`` value after which it stops
    early (the incumbents found so far are kept)."""
    p = B.shape[0]
    improved = set()

    def consider(j, S):
        T, g, _ = swap_search(M, B, S)
        if _beats(g, values[j]):
            supports[j], values[j] = T, g
            improved.add(j)
            return True
        return False

    top = min(max_k, p - 1)
    for j in range(1, top + 1):
        seen = []
        for S in [supports[j], *(start(j) for start in starts)]:
            if S is not None and not any(np.array_equal(np.sort(S), T) for T in seen):
                seen.append(np.sort(S))
                consider(j, S)
        if deadline is not None and time.perf_counter() > deadline:
            return improved
    for _ in range(max_rounds):
        changed = False
        for j in range(1, top + 1):
            for nb in (j - 1, j + 1):
                if not 1 <= nb <= p or supports[nb] is None:
                    continue
                cand, g = _neighbour(M, B, supports[nb], grow=nb == j - 1)
                if cand is not None and len(cand) == j and _beats(g, values[j]):
                    changed |= consider(j, cand)
            if deadline is not None and time.perf_counter() > deadline:
                return improved
        if not changed:
            break
    return improved
