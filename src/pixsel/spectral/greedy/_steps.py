"""What every greedy step shares: the pivot tolerance, the criterion value, the left-looking loop.

The left-looking forward loop runs for the multiclass kernel on a dense ``B``
(:mod:`._multiclass`) and for the implicit kernel on a Gram operator
(:mod:`pixsel.spectral.implicit`): the same path and the same tie rule (the lowest index among
equal scores), written once. The two differ only in how the candidates are scored and how a
chosen column of ``B`` is fetched, which they pass in.
"""

from __future__ import annotations

import functools

import numpy as np

from .._criteria import as_criterion

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
    """``tr(G)`` (``'trace'``) or ``lambda_max(G)`` (``'max-eig'``) of a small symmetric ``G``:
    :meth:`pixsel.spectral._criteria.Criterion.of_matrix` (the name or the object)."""
    return as_criterion(criterion).of_matrix(G)


def _ranking(p, feat, rows, values, est):
    """``(cand, estimate)`` of a step of :func:`left_looking_forward`: the scored candidates in
    increasing order and, indexed by feature, their estimates (their values where the score gave
    none; ``-inf`` for the features chosen already)."""
    cand = feat[rows]
    estimate = np.full(p, -np.inf)
    estimate[feat] = values
    if est is not None:
        estimate[cand] = est
    return np.sort(cand), estimate  # distinct features: cand[np.argsort(cand)]


def left_looking_forward(
    M, op, criterion, n_steps, score: Callable, column: Callable, callback: Callable | None = None
):
    """Left-looking forward greedy on ``G_S = M_S^T B_SS^{-1} M_S``; ``order`` and ``objective``.

    ``op`` gives ``diag()`` of ``B``; ``score(Uc, dc, G, f)`` returns the objective after adding
    each candidate (``-inf``: cannot win) and an estimate of it (or None) that ``column`` may use
    to rank prefetches; ``column(j, ranking)`` returns the raw column ``B[:, j]``, where
    ``ranking()`` gives ``(cand, estimate)`` (``cand`` the scored candidates in increasing order,
    ``estimate`` indexed by feature, ``-inf`` for the chosen ones), built only when called (a
    column at hand, or a dense ``B``, needs neither: two ``p``-vectors and a sort saved per
    step). Each Schur column is recomputed from its raw column (``B[:, j] - L L[j]^T``),
    so no rounding accumulates; a candidate dependent on ``S`` (pivot below :func:`pivot_tol`)
    adds nothing.

    The rows of the features still in play are kept in a leading block (a chosen feature's row
    is swapped to the end of the block, which then shrinks), so a step reads only the remaining
    candidates' rows of ``L`` and ``U``, contiguous: about ``p^3 / 6`` numbers over a whole path
    instead of ``p^3 / 2``. Ties are broken by the lowest feature index, whatever the rows' order.
    """
    p, r = M.shape
    d = np.array(op.diag(), dtype=np.float64)
    tol = pivot_tol(d)
    U = np.array(M, dtype=np.float64, order="C")
    L = np.zeros((p, n_steps), order="F")  # L[:m, :t]: t contiguous runs of m
    G = np.zeros((r, r))
    pos_of = np.arange(p)  # row -> feature; rows [0, m) are the features still in play
    order = np.empty(n_steps, dtype=np.intp)
    objective = np.empty(n_steps)
    crit = as_criterion(criterion)
    f = 0.0
    m = p
    for t in range(n_steps):
        feat = pos_of[:m]
        dm = d[:m]
        ok = dm > tol[:m]
        est = None
        rows = ok.nonzero()[0]  # np.flatnonzero of a 1-D mask, without its wrappers
        if len(rows) == m:
            values, est = score(U[:m], dm, G, f)
            values = np.asarray(values, dtype=np.float64)
        else:
            values = np.full(m, f)  # a candidate dependent on S (R_ii ~ 0) adds nothing
            if len(rows):
                values[rows], est = score(U[rows], dm[rows], G, f)
        best = values.max()
        ties = (np.isnan(values) if np.isnan(best) else values == best).nonzero()[0]
        i = int(ties[np.argmin(feat[ties])]) if len(ties) > 1 else int(ties[0])
        j = int(feat[i])
        order[t] = j
        if ok[i]:
            raw = column(j, functools.partial(_ranking, p, feat, rows, values, est))
            col = raw[feat] - L[:m, :t] @ L[i, :t]
            piv = col[i]
            if piv > tol[i]:
                root = np.sqrt(piv)
                l = col / root
                L[:m, t] = l
                uj = U[i] / root
                U[:m] -= l[:, None] * uj[None, :]  # np.outer's product, without its wrapper
                G += uj[:, None] * uj[None, :]
                d[:m] -= l * l
                f = crit.of_matrix(G)
        # swap the chosen row to the end of the block, which shrinks by one
        last = m - 1
        if i != last:
            pos_of[i], pos_of[last] = pos_of[last], pos_of[i]
            d[i], d[last] = d[last], d[i]
            tol[i], tol[last] = tol[last], tol[i]
            U[[i, last]] = U[[last, i]]
            L[[i, last], : t + 1] = L[[last, i], : t + 1]
        m = last
        objective[t] = f
        if callback is not None:
            callback(t + 1, n_steps)
    return order, objective
