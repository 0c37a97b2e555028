"""Beam search over the forward pass: ``w`` partial supports grown side by side.

The forward pass keeps one support and adds the feature of largest gain. A beam of width ``w``
keeps the ``w`` best distinct supports of each size and extends each by every feature; the ``w``
best distinct extensions form the next beam. For the additive criteria (a vector ``a``, two-class
LDA; ``criterion='trace'`` with a factor ``M``, ``A = M M^T``) every member carries the
left-looking factors of its support ``S``: ``G = L^{-1} B_S,:`` (``L`` the Cholesky factor of
``B_SS``), the Schur complements ``s_j = B_jj - |G_:j|^2`` and the residuals ``R = M - G^T H``
(``H = L^{-1} M_S``), so every addition's gain is ``|R_j|^2 / s_j`` and adding ``j`` is one
rank-one update (``O(p t + p r)`` for a support of size ``t``); a beam step costs ``w`` such
updates and ``w`` gain vectors. Only each member's ``w`` best additions can be among the ``w``
best extensions, so the candidates are ``w^2`` at most.

The best member of a size need not beat the forward pass at that size (the greedy support can
leave the beam), so the returned support of every size is the better of the beam's best and the
forward pass's: never below the forward pass, by construction. Width 1 is not run here: the
door (:func:`pixsel.spectral.greedy_path`) runs the forward kernel itself.

``B`` may also be a Gram operator (the implicit form: ``B`` read through its columns and its
diagonal, never formed). A beam step then reads the columns of its ``w`` new features in one
pass over the data; the path is the one the ``p x p`` matrix gives, up to rounding.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._path import SparsePath, objective_on_support
from ._swap import _Columns

__all__ = ["beam_path"]

#: A feature whose Schur complement is below this fraction of its variance is not added (it is a
#: numerical copy of the support)
_PIVOT_RTOL = 1e-12


class _Member:
    """One partial support with its left-looking factors (see the module docstring)."""

    __slots__ = ("G", "H", "R", "order", "s", "value")

    def __init__(self, order, value, G, H, s, R):
        self.order, self.value, self.G, self.H, self.s, self.R = order, value, G, H, s, R

    def gains(self, allowed, diag):
        g = np.full(len(self.s), -np.inf)
        ok = allowed & (self.s > _PIVOT_RTOL * diag)
        ok[self.order] = False
        num = np.einsum("ij,ij->i", self.R, self.R)  # every row, read in place (no copy of the rows allowed)
        g[ok] = num[ok] / self.s[ok]
        return g

    def grown(self, j, gain, b, M):
        """The member with ``j`` added (``b``: column ``j`` of ``B``)."""
        piv = np.sqrt(self.s[j])
        gj = (b - self.G[:, j] @ self.G) / piv
        hj = (M[j] - self.G[:, j] @ self.H) / piv
        return _Member(self.order + [int(j)], self.value + gain, np.vstack([self.G, gj]), np.vstack([self.H, hj]),
                       self.s - gj * gj, self.R - np.outer(gj, hj))


def _top(g, w):
    """The indices of the ``w`` largest entries of ``g``, ties to the lower index: the first ``w``
    of ``argsort(-g, kind='stable')``, from a partition instead of a sort of all ``p``."""
    if w >= g.size:
        return np.argsort(-g, kind="stable")
    thr = np.partition(g, g.size - w)[g.size - w]  # the w-th largest value
    idx = np.flatnonzero(g >= thr)  # ascending: the stable sort below breaks ties by index
    return idx[np.argsort(-g[idx], kind="stable")][:w]


def beam_path(
    A: np.ndarray,
    B,
    width: int,
    *,
    max_k: int,
    forward: SparsePath,
    always_select: np.ndarray | None = None,
    never_select: np.ndarray | None = None,
    callback=None,
) -> SparsePath:
    """Beam search of width ``width`` to ``max_k`` features (checked NumPy arrays, additive criterion).

    ``A`` a vector or a factor; ``B`` a ``p x p`` array, a Gram operator (``diag()``,
    ``columns(idx)``) or None; ``forward`` the forward pass to ``max_k`` on the same problem
    (the floor of every size). Returns a path whose ``order`` is the best final member's and
    whose ``info['supports']`` holds, per size, the support read at that size where it is not
    ``order[:k]``; ``info['beam_width']`` is ``width``. ``callback(size, max_k)``, when given, is
    called after every size the beam reaches.
    """
    M = A[:, None] if A.ndim == 1 else A
    p = M.shape[0]
    cols = _Columns(np.eye(p) if B is None else B)
    # a row of an array (the same numbers as before the operators), a column of an operator
    column = cols.B.__getitem__ if cols.array else cols.column
    diag = cols.diag.copy()
    allowed = np.ones(p, bool)
    if never_select is not None:
        allowed[np.asarray(never_select, dtype=np.intp)] = False
    F = [] if always_select is None else [int(i) for i in always_select]
    root = _Member([], 0.0, np.zeros((0, p)), np.zeros((0, M.shape[1])), diag.copy(), M.copy())
    for j in F:  # the forced features first, in index order (as the forward pass)
        root = root.grown(j, float(root.R[j] @ root.R[j] / root.s[j]), column(j), M)
    beam = [root]
    best = {}
    for t in range(len(F) + 1, max_k + 1):
        cands = []
        for m, member in enumerate(beam):
            g = member.gains(allowed, diag)
            top = _top(g, width)
            cands += [(member.value + g[j], m, int(j)) for j in top if np.isfinite(g[j])]
        if not cands:
            break
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))
        seen, chosen = set(), []
        for value, m, j in cands:
            key = frozenset(beam[m].order) | {j}
            if key in seen:
                continue
            seen.add(key)
            chosen.append((value, m, j))
            if len(chosen) == width:
                break
        if not cols.array:  # the new columns in one pass over the data
            cols.read([j for _, _, j in chosen])
        beam = [beam[m].grown(j, value - beam[m].value, column(j), M) for value, m, j in chosen]
        best[t] = (np.array(beam[0].order, dtype=np.intp), beam[0].value)
        if callback is not None:
            callback(t, max_k)
    order = np.array(beam[0].order, dtype=np.intp)
    n = len(order)
    objective = np.full(n, np.nan)
    if F:
        objective[len(F) - 1] = objective_on_support(A, B, F, criterion="trace")  # forced: arrays only
    supports = {}
    for k in range(len(F) + 1, n + 1):
        S, f_beam = best[k]
        if float(forward.objective[k - 1]) > f_beam:  # the forward support left the beam and was better
            S, f_beam = np.asarray(forward.order[:k]), float(forward.objective[k - 1])
        objective[k - 1] = f_beam
        if not np.array_equal(np.sort(S), np.sort(order[:k])):
            supports[k] = np.sort(S)
    info = dict(forward.info, beam_width=int(width), supports=supports)
    # the forward pass's kind of path (an implicit one keeps its operator and its bound on the optimum)
    return dataclasses.replace(forward, order=order, objective=objective, direction="forward", info=info)
