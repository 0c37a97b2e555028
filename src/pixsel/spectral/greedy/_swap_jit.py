"""Compiled (Numba) kernel of the additive swap search (:mod:`pixsel.spectral.greedy._swap`).

:func:`best_swap` values every swap of a sweep and keeps the best in one pass over the ``k x q``
table, with the operations of :func:`pixsel.spectral.greedy._swap._swap_values` in the same order
(the same numbers) and the same choice among equal values, without writing the table. Imported
lazily.
"""

from __future__ import annotations

import numpy as np

from ..._optional import numba as _numba

njit = _numba().njit  # Numba is optional: without it, a clear error naming the extra that installs it

__all__ = ["best_swap"]


@njit(cache=True, nogil=True, error_model="numpy")
def best_swap(T, s0, R0, W, e, base, C2, wl, rr, leave, enter, S, out):
    """``(a, b, value)`` of the best swap (``S[a]`` out, ``out[b]`` in) among the rows ``leave``
    and the columns ``enter``; ``a = -1`` when no value is finite.

    ``e = 1 / diag(P)``, ``base = f - e |W|^2`` (per row). With one column (``W``, ``R0`` of shape
    ``(k, 1)``, ``(q, 1)``): ``(T_ab (W_a e_a) + R0_b)^2 / ((T_ab^2) e_a + s0_b) + base_a``; with
    more, ``C2 = (2 W) R0^T``, ``wl = |W|^2`` per row, ``rr = |R0|^2`` per column and ``U = T_ab e_a``:
    ``((C2_ab + U wl_a) U + rr_b) / (U T_ab + s0_b) + base_a``. Values that are not finite are
    skipped; ties go to the lowest ``(S[a], out[b])``.
    """
    k, q = T.shape
    one = R0.shape[1] == 1
    best = -np.inf
    ba = -1
    bb = -1
    for a in range(k):
        if not leave[a]:
            continue
        ea = e[a]
        we = W[a, 0] * ea
        wa = wl[a]
        base_a = base[a]
        for b in range(q):
            if not enter[b]:
                continue
            t = T[a, b]
            if one:
                x = t * we + R0[b, 0]
                num = x * x
                den = (t * t) * ea + s0[b]
            else:
                u = t * ea
                num = (C2[a, b] + u * wa) * u + rr[b]
                den = u * t + s0[b]
            v = num / den + base_a
            if not v < np.inf:  # nan or +inf
                continue
            if v > best or (v == best and ba >= 0 and (S[a] < S[ba] or (S[a] == S[ba] and out[b] < out[bb]))):
                best = v
                ba = a
                bb = b
    return ba, bb, best
