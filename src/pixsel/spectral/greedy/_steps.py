"""What every greedy step shares: the pivot tolerance, the criterion value, the left-looking loop.

The left-looking forward loop runs for the multiclass kernel on a dense ``B``
(:mod:`._multiclass`) and for the implicit kernel on a Gram operator
(:mod:`pixsel.spectral.implicit`): the same path and the same tie rule (the lowest index among
equal scores), written once. The two differ only in how the candidates are scored and how a
chosen column of ``B`` is fetched, which they pass in.
"""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["EPS", "criterion_value", "left_looking_forward", "pivot_tol"]

#: float64 machine epsilon.
EPS = np.finfo(np.float64).eps


def pivot_tol(diag, p=None):
    """A Schur pivot below ``p * eps * |B_ii|`` is numerically zero (the candidate is a linear
    combination of the chosen features); ``p`` defaults to ``len(diag)``."""
    p = len(diag) if p is None else p
    return p * EPS * np.maximum(np.abs(diag), np.finfo(np.float64).tiny)


def criterion_value(G, criterion):
    """``tr(G)`` (``'trace'``) or ``lambda_max(G)`` (``'max-eig'``) of a small symmetric ``G``."""
    if criterion == "trace":
        return float(np.trace(G))
    return float(np.linalg.eigvalsh(G)[-1])


def left_looking_forward(
    M, op, criterion, n_steps, score: Callable, column: Callable, callback: Callable | None = None
):
    """Left-looking forward greedy on ``G_S = M_S^T B_SS^{-1} M_S``; ``order`` and ``objective``.

    ``op`` gives ``diag()`` of ``B``; ``score(Uc, dc, G, f)`` returns the objective after adding
    each candidate (``-inf``: cannot win) and an estimate of it (or None) that ``column`` may use
    to rank prefetches; ``column(j, cand, estimate)`` returns the raw column ``B[:, j]``. Each
    Schur column is recomputed from its raw column (``B[:, j] - L L[j]^T``), so no rounding
    accumulates; a candidate dependent on ``S`` (pivot below :func:`pivot_tol`) adds nothing.
    """
    p, r = M.shape
    d = op.diag()
    tol = pivot_tol(d)
    U = M.copy()
    L = np.zeros((p, n_steps))
    G = np.zeros((r, r))
    free = np.ones(p, dtype=bool)
    order = np.empty(n_steps, dtype=np.intp)
    objective = np.empty(n_steps)
    f = 0.0
    for t in range(n_steps):
        ok = free & (d > tol)
        values = np.full(p, -np.inf)
        values[free] = f  # a candidate dependent on S (R_ii ~ 0) adds nothing
        cand = np.flatnonzero(ok)
        estimate = values
        if len(cand):
            values[cand], est = score(U[cand], d[cand], G, f)
            if est is not None:
                estimate = values.copy()
                estimate[cand] = est
        j = int(np.argmax(values))
        order[t] = j
        free[j] = False
        if ok[j]:
            col = column(j, cand, estimate) - L[:, :t] @ L[j, :t]
            piv = col[j]
            if piv > tol[j]:
                l = col / np.sqrt(piv)
                L[:, t] = l
                uj = U[j] / np.sqrt(piv)
                U -= np.outer(l, uj)
                G += np.outer(uj, uj)
                d -= l * l
                f = criterion_value(G, criterion)
        objective[t] = f
        if callback is not None:
            callback(t + 1, n_steps)
    return order, objective
