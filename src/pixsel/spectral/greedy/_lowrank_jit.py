"""Compiled (Numba) loop of the backward pass in the n-dimensional form (:mod:`._lowrank`).

One step: the objective after removing each live feature (ties to the lowest index): for the
trace ``tr G - |W_i|^2 / P_ii``; for the largest eigenvalue ``lambda_max(G - w_i w_i^T / P_ii)``,
screened by two-pole bounds and solved by the secular equation for the few that can win (the
dense loop's own choice, :func:`._multiclass_jit._backward_choice`, called with the n-form's
``diag P``); ``c = K^{-1} u_q`` and the column ``P[:, q] = (e_q - U_S c) / lam`` of the removed feature
``q``, the rank-one downdates of ``G``, ``W`` and ``diag P`` by that column, Sherman-Morrison on
``K^{-1}``, and the last live row moved into ``q``'s place. ``O(m n + n^2 + m r)`` per step with
``m`` live features. Imported lazily by ``_lowrank``.
"""

from __future__ import annotations

import numpy as np
from ..._optional import numba as _numba

from ._multiclass_jit import _backward_choice, _gram_downdate

njit = _numba().njit  # Numba is optional: without it, a clear error naming the extra that installs it

__all__ = ["lowrank_backward_steps"]


@njit(cache=True, nogil=True, error_model="numpy")
def lowrank_backward_steps(Ul, Ml, W, d, Kinv, G, trace, idx, lam, m, order, objective, step0, n_steps):
    """Steps ``step0 .. step0 + n_steps - 1`` of the backward elimination from the state
    ``(Ul, Ml, W, d, Kinv, G, idx)`` with ``m`` live features in the leading rows (overwritten);
    ``trace``: the criterion ``tr G`` (else ``lambda_max(G)``). Fills ``order[step]`` and
    ``objective[size - 1]``; returns ``(m, n_solved)``: the live count after the steps and the
    exact roots solved."""
    p, n = Ul.shape
    r = W.shape[1]
    col = np.empty(p)
    wq = np.empty(r)
    z2 = np.empty(r)
    lo_b = np.empty(p)
    hi_b = np.empty(p)
    n_solved = 0
    for step in range(step0, min(step0 + n_steps, p)):
        q, solved = _backward_choice(G, W, d, idx, m, trace, objective, z2, lo_b, hi_b)
        n_solved += solved
        if m == 1:
            order[step] = idx[0]
            return 0, n_solved
        order[step] = idx[q]
        c = np.dot(Kinv, Ul[q])  # K^{-1} u_q (BLAS)
        col[:m] = np.dot(Ul[:m], c) * (-1.0 / lam)  # P[:, q]
        col[q] += 1.0 / lam
        pqq = col[q]
        for a in range(r):
            wq[a] = W[q, a]
        _gram_downdate(G, wq, pqq)
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
    return m, n_solved
