"""Compiled (Numba) loop of the trace's backward pass in the n-dimensional form (:mod:`._lowrank`).

One step: the removal loss ``tr G - |W_i|^2 / P_ii`` of every live feature (ties to the lowest
index), ``c = K^{-1} u_q`` and the column ``P[:, q] = (e_q - U_S c) / lam`` of the removed feature
``q``, the rank-one downdates of ``G``, ``W`` and ``diag P`` by that column, Sherman-Morrison on
``K^{-1}``, and the last live row moved into ``q``'s place. ``O(m n + n^2 + m r)`` per step with
``m`` live features. Imported lazily by ``_lowrank``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["lowrank_backward_trace"]


@njit(cache=True, nogil=True, error_model="numpy")
def lowrank_backward_trace(Ul, Ml, W, d, Kinv, G, idx, lam, m, order, objective, step0, n_steps):
    """Steps ``step0 .. step0 + n_steps - 1`` of the trace's backward elimination from the state
    ``(Ul, Ml, W, d, Kinv, G, idx)`` with ``m`` live features in the leading rows (overwritten);
    fills ``order[step]`` and ``objective[size - 1]``; returns the live count after the steps."""
    p, n = Ul.shape
    r = W.shape[1]
    col = np.empty(p)
    wq = np.empty(r)
    for step in range(step0, min(step0 + n_steps, p)):
        for a in range(r):  # symmetrize against drift
            for b in range(a):
                v = 0.5 * (G[a, b] + G[b, a])
                G[a, b] = v
                G[b, a] = v
        tr = 0.0
        for a in range(r):
            tr += G[a, a]
        objective[m - 1] = tr
        if m == 1:
            order[step] = idx[0]
            return 0
        best = -np.inf
        q = -1
        for i in range(m):
            s = 0.0
            for a in range(r):
                s += W[i, a] * W[i, a]
            val = tr - s / d[i]
            if q < 0 or val > best or (val == best and idx[i] < idx[q]):
                best = val
                q = i
        order[step] = idx[q]
        c = np.dot(Kinv, Ul[q])  # K^{-1} u_q (BLAS)
        col[:m] = np.dot(Ul[:m], c) * (-1.0 / lam)  # P[:, q]
        col[q] += 1.0 / lam
        pqq = col[q]
        for a in range(r):
            wq[a] = W[q, a]
        for a in range(r):
            for b in range(r):
                G[a, b] -= wq[a] * wq[b] / pqq
        for i in range(m):
            f = col[i] / pqq
            for a in range(r):
                W[i, a] -= f * wq[a]
            d[i] -= col[i] * f
        s = 1.0 / (lam * pqq)
        for a in range(n):
            for b in range(n):
                Kinv[a, b] += c[a] * c[b] * s
        last = m - 1
        if q != last:
            for b in range(n):
                Ul[q, b] = Ul[last, b]
            for a in range(r):
                Ml[q, a] = Ml[last, a]
                W[q, a] = W[last, a]
            d[q] = d[last]
            idx[q] = idx[last]
        m = last
    return m
