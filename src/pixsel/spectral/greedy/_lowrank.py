"""The backward pass of multiclass LDA in the ``n``-dimensional form: ``B = lam I + U U^T``.

With fewer images than pixels (``n < p``) the within-class scatter of ``n`` images has rank below
``n``, and every regularization of the dense algorithm that adds a multiple of the identity
(``'rda'``, ``'auto'``, a ridge, Ledoit-Wolf's shrinkage) makes ``B = lam I + U U^T`` with ``U``
of shape ``(p, n)`` (for the pooled scatter ``U = Xc^T / sqrt(N)`` with ``Xc`` the class-centred
images, times ``sqrt(1 - shrinkage)`` for a shrinkage). On a support ``S`` Woodbury's identity gives

    P = B_SS^{-1} = (I - U_S K^{-1} U_S^T) / lam,      K = lam I_n + U_S^T U_S   (n x n),

so the backward pass of :mod:`._multiclass` (``P``, ``W = P M_S``, ``G = M_S^T W``; removing ``j``
loses ``|W_j|^2 / P_jj`` of the trace) never needs the ``p x p`` inverse: it keeps ``K^{-1}``,
``W`` and ``diag P``. Removing ``j`` deletes the row ``u_j`` of ``U_S``; with ``c = K^{-1} u_j``
the column ``P[:, j] = (e_j - U_S c) / lam`` costs ``O(|S| n)``, the dense kernel's rank-one
updates of ``W``, ``diag P`` and ``G`` follow from it, and ``K^{-1}`` changes by Sherman-Morrison,
``K^{-1} + c c^T / (lam P_jj)`` (``1 - u_j^T K^{-1} u_j = lam P_jj``). A step costs
``O(p n + n^2 + p r)`` instead of the ``O(p^2)`` update of ``P``, the start ``O(p n^2)`` instead of
a ``p x p`` factorization, and the memory is ``O(p (n + r))`` instead of ``p^2``. Every
``refresh`` steps ``K^{-1}``, ``W`` and ``diag P`` are recomputed from scratch (``O(p n^2)``),
which resets rounding. The last ``n`` features (``m <= n``) are removed by the dense kernel on
their ``m x m`` pair: there ``P_ii = (1 - u_i^T K^{-1} u_i) / lam`` would be computed by
cancellation, and a direct inverse costs at most ``n^3 / 3``. The order is the dense kernel's
(same criterion, ties to the lowest index).

The live features are kept in a leading block; a removed row is replaced by the last live one.
The loop is compiled (:mod:`._lowrank_jit`, the trace and the largest eigenvalue with the dense
loop's screening by two-pole bounds) where the route allows compiled kernels; the NumPy loop runs
any criterion with ``losses`` (the reference).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg as sla
from scipy.linalg.blas import dger

from ..._routes import compiled_enabled, note_compiled
from .._criteria import as_criterion
from .._path import SparsePath

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._criteria import Criterion

__all__ = ["lowrank_backward", "lowrank_backward_path", "LowRankSparsePath"]


def _fresh(Ul, Ml, lam):
    """``K^{-1}``, ``W = P M_S`` and ``diag P`` of the live block from scratch (Woodbury)."""
    n = Ul.shape[1]
    K = Ul.T @ Ul
    K[np.diag_indices(n)] += lam
    Kinv = sla.cho_solve(sla.cho_factor(K), np.eye(n))
    Kinv = (Kinv + Kinv.T) / 2
    V = Ul @ Kinv  # (m, n)
    W = (Ml - V @ (Ul.T @ Ml)) / lam
    d = (1.0 - np.einsum("ij,ij->i", V, Ul)) / lam
    return Kinv, W, d


def _refreshed(Ul, Ml, lam, m, W, d):
    """Recompute the state of the ``m`` live rows from scratch; returns ``(K^{-1}, G)``."""
    Kinv, W[:m], d[:m] = _fresh(Ul[:m], Ml[:m], lam)
    G = Ml[:m].T @ W[:m]
    return np.ascontiguousarray(Kinv), np.ascontiguousarray((G + G.T) / 2)


def _dense_tail(Ul, Ml, idx, m, lam, criterion, method, order, objective, progress, p):
    """The last ``m`` features by the dense kernel on ``B_SS = lam I + U_S U_S^T`` (``m x m``)."""
    from ._multiclass import _backward

    perm = np.argsort(idx[:m], kind="stable")  # increasing feature indices: the same tie rule
    Us, Ms = Ul[:m][perm], Ml[:m][perm]
    B = Us @ Us.T
    B[np.diag_indices(m)] += lam
    done = p - m
    tail_progress = None if progress is None else (lambda i, total: progress(done + i, p))
    local, obj, info = _backward(Ms, B, criterion, method=method, progress=tail_progress)
    order[done:] = idx[:m][perm][local]
    objective[:m] = obj
    return info.get("n_secular", 0)


def lowrank_backward(M, U, lam, criterion="trace", *, refresh=None, dense_below=None, compiled=None, progress=None):
    """The backward greedy order of ``(M M^T, lam I + U U^T)`` in the ``n``-dimensional form.

    Parameters
    ----------
    M : ndarray of shape (p, r)
        Factor of ``A = M M^T``.
    U : ndarray of shape (p, n)
        Low-rank part of ``B``.
    lam : float
        The ridge, ``> 0``.
    criterion : str or criterion object
        Any criterion with ``losses(W, diag P, G)`` and ``of_matrix(G)`` (``'trace'``, ``'max-eig'``).
    refresh : int or None
        Steps between recomputations from scratch; default ``max(64, 2 n)``.
    dense_below : int or None
        The last ``dense_below`` features (default ``n``) are removed by the dense kernel of
        :mod:`._multiclass` on their ``m x m`` pair (at most ``n^3 / 3`` to factorize): there the
        n-form computes ``P_ii = (1 - u_i^T K^{-1} u_i) / lam`` by cancellation (relative errors
        up to ``1e-7`` on face pixels with a ridge of 1e-3 of the mean variance), the direct
        inverse does not.
    compiled : bool or None
        Run the compiled loop of :mod:`._lowrank_jit` (the trace and the largest eigenvalue).
        None: where the route allows compiled kernels; else the NumPy loop (and the NumPy loop of
        the dense kernel for the last features).
    progress : callable or None
        Called as ``progress(steps_done, p)`` as the pass goes (every ``refresh`` steps in the
        compiled loop).

    Returns
    -------
    order : ndarray of shape (p,)
        The features in the order they are removed, the last survivor last.
    objective : ndarray of shape (p,)
        ``objective[k - 1]``: the objective of the ``k`` features left.
    info : dict
        ``'n_refresh'``: recomputations from scratch; ``'n_secular'``: the candidates whose
        secular equation was solved by a compiled loop (the others ruled out by their bounds).
    """
    criterion = as_criterion(criterion)
    M = np.asarray(M, dtype=np.float64)
    if M.ndim == 1:
        M = M[:, None]
    p = M.shape[0]
    n = U.shape[1]
    refresh = max(64, 2 * n) if refresh is None else int(refresh)
    switch = max(1, min(p, n if dense_below is None else int(dense_below)))
    Ul = np.array(U, dtype=np.float64, order="C")  # copies: the live block is reordered in place
    Ml = np.array(M, order="C")
    idx = np.arange(p, dtype=np.int64)
    order = np.empty(p, dtype=np.intp)
    objective = np.empty(p)
    n_refresh = n_solved = 0
    holds = criterion.additive or criterion.largest_eigenvalue  # the two updates the compiled loop holds
    if compiled is None:
        compiled = holds and compiled_enabled()
    if compiled and not holds:
        raise ValueError("The compiled n-form loop runs the trace and the largest eigenvalue; got "
                         f"{criterion.name!r}. Pass compiled=False.")
    m = p
    if m > switch:
        W = np.empty_like(Ml)
        d = np.empty(p)
        Kinv, G = _refreshed(Ul, Ml, lam, p, W, d)
    if compiled and m > switch:
        note_compiled()
        from ._lowrank_jit import lowrank_backward_steps  # Numba: imported on first use

        trace = bool(criterion.additive or M.shape[1] == 1)  # one column: both criteria are the trace
        while m > switch:
            m, solved = lowrank_backward_steps(Ul, Ml, W, d, Kinv, G, trace, idx, float(lam), m, order, objective,
                                               p - m, min(refresh, m - switch))
            n_solved += int(solved)
            if m > switch:
                Kinv, G = _refreshed(Ul, Ml, lam, m, W, d)
                n_refresh += 1
            if progress is not None:
                progress(p - m, p)
    for step in range(p - m if compiled else 0, p - switch):
        m = p - step
        objective[m - 1] = criterion.of_matrix(G)
        losses = criterion.losses(W[:m], d[:m], G)
        best = losses.max()
        ties = np.flatnonzero(losses == best)
        j = int(ties[np.argmin(idx[ties])]) if len(ties) > 1 else int(ties[0])  # lowest index
        order[step] = idx[j]
        uj = Ul[j].copy()
        c = Kinv @ uj
        col = Ul[:m] @ c
        col *= -1.0
        col[j] += 1.0
        col /= lam  # P[:, j]
        pjj = col[j]
        wj = W[j].copy()
        G -= np.outer(wj, wj) / pjj
        G = (G + G.T) / 2
        # the rank-one updates in place, one pass each (BLAS ger on the transposes, Fortran-ordered
        # views of W and K^{-1}, which are C-ordered: np.empty_like of a C-ordered copy, and
        # _refreshed's np.ascontiguousarray; a copy would leave them unchanged)
        dger(-1.0 / pjj, wj, col, a=W[:m].T, overwrite_a=True)
        d[:m] -= col * col / pjj
        dger(1.0 / (lam * pjj), c, c, a=Kinv.T, overwrite_a=True)
        last = m - 1  # the last live row takes the removed one's place
        if j != last:
            Ul[j], Ml[j], W[j], d[j], idx[j] = Ul[last], Ml[last], W[last], d[last], idx[last]
        if (step + 1) % refresh == 0 and last > switch:
            Kinv, G = _refreshed(Ul, Ml, lam, last, W, d)
            n_refresh += 1
        if progress is not None:
            progress(step + 1, p)
    m = switch
    n_solved += _dense_tail(Ul, Ml, idx, m, lam, criterion, "auto" if compiled else "eigh", order, objective,
                            progress, p)
    return order, objective, {"n_refresh": n_refresh, "n_secular": n_solved}


@dataclass
class LowRankSparsePath(SparsePath):
    """A backward :class:`SparsePath` of the pair ``(M M^T, lam I + U U^T)``, ``B`` never formed."""

    U: np.ndarray | None = None
    lam: float = 0.0

    def weights(self, k):
        S = self.support(k)
        BSS = self.U[S] @ self.U[S].T
        BSS[np.diag_indices(len(S))] += self.lam
        F = self.A if self.A.ndim == 2 else self.A[:, None]
        vals, vecs = sla.eigh(F[S] @ F[S].T, BSS)
        v = vecs[:, -1]
        z = np.zeros(self.A.shape[0])
        z[S] = v * np.sign(v[np.argmax(np.abs(v))])
        return z


def lowrank_backward_path(
    M: ArrayLike,
    U: ArrayLike,
    lam: float,
    *,
    criterion: str | Criterion = "trace",
    refresh: int | None = None,
    callback: Callable[[int, int], None] | None = None,
) -> LowRankSparsePath:
    """Backward greedy path of ``(M M^T, lam I + U U^T)`` without any ``p x p`` matrix.

    The same order as ``multiclass_greedy_path(M, lam * I + U @ U.T, direction='backward')``
    (removing a pixel updates an ``n x n`` system by Woodbury's identity and
    Sherman-Morrison), in ``O(p^2 n)`` time and
    ``O(p (n + r))`` memory where that kernel takes ``O(p^3)`` and ``p^2``: for ``n`` images
    of ``p`` pixels with ``n < p``, ``U`` the class-centred images (transposed, over
    ``sqrt(N)``) and ``lam`` the ridge.

    Parameters
    ----------
    M : ndarray of shape (p, r) or (p,)
        Factor of ``A = M M^T`` (a vector for two classes).
    U : ndarray of shape (p, n)
    lam : float
        ``> 0``.
    criterion : {'trace', 'max-eig'}
    refresh : int or None
        Steps between recomputations from scratch (default ``max(64, 2 n)``); never changes the
        order beyond rounding.
    callback : callable or None
        Called as ``callback(steps_done, p)`` after every step.

    Returns
    -------
    LowRankSparsePath
        A backward path (``info['form'] == 'factor'``, ``info['B'] == 'lowrank'``).

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.spectral.greedy import multiclass_greedy_path
    >>> rng = np.random.default_rng(0)
    >>> M, U = rng.standard_normal((12, 2)), rng.standard_normal((12, 5))
    >>> path = lowrank_backward_path(M, U, 0.5)
    >>> dense = multiclass_greedy_path(M, 0.5 * np.eye(12) + U @ U.T, direction="backward", criterion="trace")
    >>> path.order.tolist() == dense.order.tolist()
    True
    """
    M = np.asarray(M, dtype=np.float64)
    M2 = M[:, None] if M.ndim == 1 else M
    U = np.asarray(U, dtype=np.float64)
    if M2.ndim != 2 or U.ndim != 2 or U.shape[0] != M2.shape[0]:
        raise ValueError(f"M must have shape (p, r) and U shape (p, n) with the same p; got {M.shape} and {U.shape}.")
    if not (np.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be a finite ridge > 0 (B = lam I + U U^T must be positive definite); got {lam}.")
    if not (np.all(np.isfinite(M2)) and np.all(np.isfinite(U))):
        raise ValueError("M and U must be finite (no NaN or inf).")
    crit = as_criterion(criterion)
    order, objective, info = lowrank_backward(M2, U, float(lam), crit, refresh=refresh, progress=callback)
    info = dict(info, criterion=crit.name, form="factor", B="lowrank")
    return LowRankSparsePath(order=order, objective=objective, direction="backward", A=M, B=None, info=info,
                             U=U, lam=float(lam))
