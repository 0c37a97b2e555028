"""The inner (panel) loop of the binary greedy elimination, compiled with Numba.

:func:`pixsel.spectral.greedy._rank_one._eliminate` runs a panel of ``T`` greedy steps between two
rank-``T`` updates of the working matrix. Each step is a handful of ``O(m)`` vector operations
(score every live row, pick the pivot with the lowest-index tie rule, fetch its column and
subtract the panel's contribution, update ``v`` and ``d``): at small ``p`` their NumPy call
overhead, not their arithmetic, is what costs. :func:`panel_steps` runs the
whole panel in one compiled call and does the same arithmetic in the same order (the panel
correction is a plain dot product rather than BLAS ``dgemv``, so values agree to rounding).

Imported lazily by :mod:`pixsel.spectral.greedy._rank_one` (Numba's import and the first compilation
are paid once; ``cache=True`` keeps the machine code next to this file for later processes).
"""

from __future__ import annotations

import math

import numpy as np
from ..._optional import numba as _numba

njit = _numba().njit  # Numba is optional: without it, a clear error naming the extra that installs it

__all__ = ["panel_steps"]


@njit(cache=True, nogil=True)
def _select_max(v, d, tol, live, tie_rtol):
    m = v.shape[0]
    j = 0
    gmax = -np.inf
    for i in range(m):  # argmax of the gains (first on exact ties), 0 where the pivot is tiny
        g = v[i] * v[i] / d[i] if d[i] > tol[i] else 0.0
        if g > gmax:
            gmax, j = g, i
    if gmax > 0:
        thr = gmax * (1.0 - tie_rtol)
        for i in range(j):
            g = v[i] * v[i] / d[i] if d[i] > tol[i] else 0.0
            if g >= thr:
                return i
        return j
    for i in range(m):
        if live[i]:
            return i
    return 0


@njit(cache=True, nogil=True)
def _select_min(v, d, pen, tie_rtol):
    m = v.shape[0]
    j = -1
    lmin = np.inf
    for i in range(m):
        loss = v[i] * v[i]
        if d[i] > 0:
            loss = loss / d[i]
        loss += pen[i]
        if loss < lmin:
            lmin, j = loss, i
    if j < 0 or not math.isfinite(lmin):
        return -1
    thr = lmin * (1.0 + tie_rtol)
    for i in range(j):
        loss = v[i] * v[i]
        if d[i] > 0:
            loss = loss / d[i]
        loss += pen[i]
        if loss <= thr:
            return i
    return j


@njit(cache=True, nogil=True)
def panel_steps(Mt, panelT, v, d, tol, live, pen, ids, pivoted, order, objective, loc, fixed, step, T, p, forward, f, tie_rtol):
    """Run up to ``T`` greedy steps on the lower triangle of the working matrix ``M``.

    ``Mt`` is ``M`` transposed (C order, so its rows are ``M``'s columns) and ``panelT`` the panel
    transposed (``T x m``, C order): C-ordered arguments keep one compiled specialization even
    for the ``1 x 1`` matrices NumPy flags as both C and F contiguous. ``fixed`` (original indices) replaces the forward pivot rule when it is non-empty; ``loc``
    maps original to local indices. Returns ``(t, step, f, needs_refactor, zero_pivots)``:
    ``t`` columns of ``panel`` are filled (the rank-``t`` update still to apply).
    """
    m = Mt.shape[0]
    col = np.empty(m)
    t = 0
    zero_pivots = 0
    for _ in range(T):
        if forward:
            if fixed.shape[0] > 0:
                j = loc[fixed[step]]
            else:
                j = _select_max(v, d, tol, live, tie_rtol)
        else:
            size = p - step
            objective[size - 1] = f
            if size == 1:
                for i in range(m):
                    if live[i]:
                        order[step] = ids[i]
                        break
                step += 1
                break
            j = _select_min(v, d, pen, tie_rtol)
            if j < 0:
                return t, step, f, True, zero_pivots
        for r in range(j):
            col[r] = Mt[r, j]
        for r in range(j, m):
            col[r] = Mt[j, r]
        if t:
            for r in range(m):
                acc = 0.0
                for s in range(t):
                    acc += panelT[s, r] * panelT[s, j]
                col[r] -= acc
        piv = col[j]
        if forward:
            eliminate = piv > tol[j]
        else:
            if not piv > 0:
                return t, step, f, True, zero_pivots
            eliminate = True
        live[j] = False
        tol[j] = np.inf
        pen[j] = np.inf
        order[step] = ids[j]
        if eliminate:
            s = 1.0 / math.sqrt(piv)
            for r in range(m):
                col[r] *= s
            g = v[j] * s
            f = f + g * g if forward else f - g * g
            for r in range(m):
                v[r] -= g * col[r]
                d[r] -= col[r] * col[r]
                panelT[t, r] = col[r]
            t += 1
            pivoted[order[step]] = True
        else:
            zero_pivots += 1
        if forward:
            objective[step] = f
        step += 1
    return t, step, f, False, zero_pivots


@njit(cache=True, nogil=True)
def compact_lower(buf, m, keep):
    """Keep rows/columns ``keep`` (sorted) of the ``m x m`` F-order lower triangle in ``buf``, in place.

    The new entry ``(r, c)``, ``r >= c``, goes to offset ``c m' + r``, never above the offset
    ``keep[c] m + keep[r]`` it is read from nor above any entry still to be read, so one pass in
    increasing order is safe (the same argument as :meth:`_Working.compact`).
    """
    m_new = keep.shape[0]
    for c in range(m_new):
        src = keep[c] * m
        dst = c * m_new
        for r in range(c, m_new):
            buf[dst + r] = buf[src + keep[r]]
