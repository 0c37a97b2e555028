"""Unblocked O(p^3) greedy paths for f(S) = a_S^T B_SS^{-1} a_S (the readable reference).

Derivation (Moghaddam, Weiss and Avidan, 2007, Appendix). Forward: with ``R = B - B_{:,S} B_SS^{-1} B_{S,:}`` (the Schur
complement of ``B_SS`` in ``B``) and ``r = a - B_{:,S} B_SS^{-1} a_S``, the block-inverse formula
gives ``f(S + i) = f(S) + r_i^2 / R_ii``; adding ``j`` updates ``R -= R[:, j] R[j, :] / R_jj`` and
``r -= R[:, j] r_j / R_jj`` (one step of a pivoted Cholesky). Backward: with ``P = B_SS^{-1}`` and
``w = P a_S``, deleting ``i`` gives ``f(S - i) = f(S) - w_i^2 / P_ii`` and
``P -= P[:, i] P[i, :] / P_ii``, ``w -= P[:, i] w_i / P_ii``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .._path import SparsePath
from ._steps import pivot_tol

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["greedy_path_reference"]


def greedy_path_reference(a: ArrayLike, B: ArrayLike, direction: str = "forward") -> SparsePath:
    """Reference greedy path; see :func:`pixsel.spectral.greedy_path` for the contract."""
    a = np.asarray(a, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    p = a.shape[0]
    order = np.empty(p, dtype=np.intp)
    objective = np.empty(p)
    tol = pivot_tol(np.diag(B))
    if direction == "forward":
        R = B.copy()
        r = a.copy()
        free = np.ones(p, dtype=bool)
        f = 0.0
        for step in range(p):
            d = np.diag(R)
            ok = free & (d > tol)
            gains = np.zeros(p)
            with np.errstate(divide="ignore", invalid="ignore"):
                gains[ok] = r[ok] ** 2 / d[ok]
            gains[~free] = -np.inf
            j = int(np.argmax(gains))
            order[step] = j
            free[j] = False
            if ok[j]:
                f += gains[j]
                col = R[:, j].copy()
                rj = r[j]
                R -= np.outer(col, col) / col[j]
                r -= col * (rj / col[j])
            objective[step] = f
    elif direction == "backward":
        P = sla.cho_solve(sla.cho_factor(B), np.eye(p))
        P = (P + P.T) / 2
        w = P @ a
        f = float(a @ w)
        alive = np.ones(p, dtype=bool)
        for step in range(p):
            size = p - step
            objective[size - 1] = f
            if size == 1:
                order[step] = int(np.flatnonzero(alive)[0])
                break
            loss = np.full(p, np.inf)
            loss[alive] = w[alive] ** 2 / np.diag(P)[alive]
            j = int(np.argmin(loss))
            order[step] = j
            f -= loss[j]
            u = P[:, j].copy()
            wj = w[j]
            P -= np.outer(u, u) / u[j]
            w -= u * (wj / u[j])
            alive[j] = False
            P[j, :] = 0.0
            P[:, j] = 0.0
            w[j] = 0.0
    else:
        raise ValueError(f"direction must be 'forward' or 'backward'; got {direction!r}.")
    return SparsePath(order=order, objective=objective, direction=direction, A=a, B=B)
