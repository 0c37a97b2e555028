"""Local improvement of one sparse PCA support (``B = I``): truncated power steps, then swaps.

The greedy path is nested, so at a given ``k`` its support can be beaten by supports that are
not reachable by adding one feature at a time. :func:`refine_support` starts from any support
and only ever moves to a support of larger ``lambda_max(A_S)`` (so the result is never worse):

1. truncated power iterations (Yuan and Zhang, JMLR 2013): ``x <- top_k(A x)``, each support
   renormalized (paper 002, Proposition 2) and accepted only if it improves;
2. swap local search: with the eigendecomposition of ``A_SS``, the exact value of every
   removal (deleted-row secular equation) and every addition (bordered secular equation) is
   computed at once; the ``n_try`` least harmful removals are paired with the ``n_try`` best
   additions, and (as in the splicing of abess, Zhu et al. PNAS 2020) the ``m`` least harmful
   removals are exchanged with the ``m`` best additions for ``m = 2, 4, 8, ...``; every tried
   exchange is evaluated exactly and the best improving one is taken;
3. first-order exchanges (when 2 finds nothing): the ``n_exchange`` features of smallest
   ``|x_i|`` in ``S`` and of largest ``|(A x)_j|`` outside (``x`` the leading eigenvector) form
   every ``m``-for-``m`` exchange, ``m <= max_exchange``; each gets the certified lower bound of
   the Rayleigh-Ritz problem on ``span(x_{S - R}, y_{S - R}, e_J)`` (``y`` the second
   eigenvector; ``O(m^3)`` each, all of them batched) and the best few are evaluated exactly;
4. grow-and-shrink (when 2 and 3 find nothing): ``m`` exact greedy additions from ``S`` then
   ``m`` exact greedy removals, ``m = 1, 2, 4, ..., max_grow`` -- exchanges of correlated groups
   that no single swap reaches.
It stops when no move improves or after ``max_swaps`` accepted moves. Every accepted move is
evaluated exactly and strictly improves, so the result is deterministic and never worse.

Cost per swap iteration: one ``k x k`` ``eigh``, ``O(p k^2)`` for the additions and ``n_try^2``
``k x k`` eigenvalue problems; phase 3 costs ``O(C(n_exchange, m)^2 m^3)`` plus a few ``k x k``
problems, phase 4 about ``3 max_grow`` eigendecompositions of size ``<= k + max_grow``.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import scipy.linalg as sla

from ._secular import secular_border, secular_deleted

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = ["refine_support"]


def _lam(A, S):
    return float(sla.eigh(A[np.ix_(S, S)], eigvals_only=True, subset_by_index=[len(S) - 1, len(S) - 1])[0])



def _add_values(A, S, theta, V):
    """Exact ``lambda_max(A_{S+j})`` of every ``j`` outside ``S`` (bordered secular equation)."""
    p = A.shape[0]
    out = np.setdiff1d(np.arange(p), S)
    b = A[np.ix_(out, S)] @ V
    c = np.diag(A)[out]
    lo = np.maximum(theta[-1], c)
    return out, secular_border(theta, b, c, lo, lo + np.linalg.norm(b, axis=1))


def _remove_values(theta, V):
    """Exact ``lambda_max(A_{S-i})`` of every ``i`` in ``S`` (deleted-row secular equation)."""
    k = len(theta)
    if k == 1:
        return np.zeros(1)
    w2 = V * V
    wh = w2 / w2.sum(axis=1, keepdims=True)
    return secular_deleted(theta, wh, np.full(k, theta[-2]), np.full(k, theta[-1]))


def _exchange_bounds(A, S, theta, V, n_exchange, max_exchange):
    """Rayleigh-Ritz lower bounds ``(lb, R, J)`` of every first-order ``m``-for-``m`` exchange.

    ``lb <= lambda_max(A_T)``, ``T = S - R + J``: the Rayleigh-Ritz value on the span of the two
    leading eigenvectors of ``A_SS`` with ``R`` zeroed and of ``e_J``.
    """
    p, k = A.shape[0], len(S)
    out_list = []
    if k < 2:
        return out_list
    X = np.zeros((p, 2))
    X[S] = V[:, [-1, -2]]
    G = A @ X
    out = np.setdiff1d(np.arange(p), S)
    rem_c = S[np.argsort(np.abs(X[S, 0]), kind="stable")][:n_exchange]
    add_c = out[np.argsort(-np.abs(G[out, 0]), kind="stable")][:n_exchange]
    top2 = np.diag(theta[[-1, -2]])
    for m in range(1, min(max_exchange, len(rem_c), len(add_c)) + 1):
        adds = np.array(list(combinations(add_c, m)), dtype=np.intp)  # (nA, m)
        CAA = A[adds[:, :, None], adds[:, None, :]]
        for R in combinations(rem_c, m):
            R = list(R)
            XR, GR = X[R], G[R]
            YCY = top2 - XR.T @ GR - GR.T @ XR + XR.T @ A[np.ix_(R, R)] @ XR  # (x, y) with R zeroed
            Yn = np.eye(2) - XR.T @ XR
            wY, QY = np.linalg.eigh(Yn)
            keep = wY > 1e-10
            if not keep.any():
                continue
            Wh = QY[:, keep] / np.sqrt(wY[keep])  # whitens the Gram matrix of (x, y) restricted
            CAY = G[adds] - A[adds[:, :, None], np.asarray(R)[None, None, :]] @ XR  # (nA, m, 2)
            r = Wh.shape[1]
            H = np.empty((len(adds), r + m, r + m))
            H[:, :r, :r] = Wh.T @ YCY @ Wh
            H[:, r:, :r] = CAY @ Wh
            H[:, :r, r:] = np.swapaxes(H[:, r:, :r], 1, 2)
            H[:, r:, r:] = CAA
            lb = np.linalg.eigvalsh(H)[:, -1]
            out_list.extend((lb[a_], R, adds[a_]) for a_ in range(len(adds)))
    return out_list


def _exchange_move(A, S, theta, V, f, n_exchange, max_exchange, n_eval=4):
    """Best improving exchange among the ``n_eval`` of largest lower bound above ``f``, or ``None``."""
    cands = [c for c in _exchange_bounds(A, S, theta, V, n_exchange, max_exchange) if c[0] > f]
    cands.sort(key=lambda c: (-c[0], c[1], c[2].tolist()))
    best, best_T = f, None
    for _, R, J in cands[:n_eval]:
        T = np.sort(np.concatenate([np.setdiff1d(S, R), J]))
        v = _lam(A, T)
        if v > best * (1 + 1e-12):
            best, best_T = v, T
    return None if best_T is None else (best_T, best)


def _grow_shrink_move(A, S, f, max_grow):
    """``m`` exact greedy additions then ``m`` exact greedy removals, ``m = 1, 2, 4, ...``."""
    p, k = A.shape[0], len(S)
    best, best_T = f, None
    T = S.copy()
    m = 0
    targets = []
    g = 1
    while g <= min(max_grow, p - k):
        targets.append(g)
        g *= 2
    for target in targets:
        while m < target:
            theta, V = np.linalg.eigh(A[np.ix_(T, T)])
            out, add = _add_values(A, T, theta, V)
            T = np.sort(np.append(T, out[int(np.argmax(add))]))
            m += 1
        U = T.copy()
        for _ in range(m):
            theta, V = np.linalg.eigh(A[np.ix_(U, U)])
            U = np.delete(U, int(np.argmax(_remove_values(theta, V))))
        v = _lam(A, U)
        if v > best * (1 + 1e-12):
            best, best_T = v, U
    return None if best_T is None else (best_T, best)


def refine_support(
    A: ArrayLike,
    support: ArrayLike,
    *,
    max_power: int = 50,
    max_swaps: int = 200,
    n_try: int = 4,
    n_exchange: int = 6,
    max_exchange: int = 3,
    max_grow: int = 16,
) -> tuple[NDArray, float, dict[str, Any]]:
    """Improve a sparse PCA support of fixed size (``B = I``); never returns a worse one.

    Parameters
    ----------
    A : ndarray of shape (p, p)
        Symmetric positive semidefinite (a covariance).
    support : array-like of int
        Starting support (for example ``greedy_path(A).support(k)``).
    max_power, max_swaps : int
        Iteration limits of the two phases.
    n_try : int
        Removals and additions paired in each swap step.
    n_exchange, max_exchange : int
        First-order candidates on each side and the largest exchange size of phase 3
        (``n_exchange=0`` skips it).
    max_grow : int
        Largest group size of the grow-and-shrink moves (``0`` skips them).

    Returns
    -------
    support : ndarray of int
        Sorted improved support of the same size.
    value : float
        Its ``lambda_max(A_S)``.
    info : dict
        ``n_power``, ``n_swaps``, ``n_exchanges`` and ``n_grow_shrink`` accepted moves.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.9, 0.0, 0.0], [0.9, 1.0, 0.0, 0.0], [0.0, 0.0, 1.5, 0.0], [0.0, 0.0, 0.0, 0.1]])
    >>> S, value, _ = refine_support(A, [1, 3])
    >>> S.tolist(), round(value, 6)
    ([0, 1], 1.9)
    """
    A = np.asarray(A, dtype=np.float64)
    p = A.shape[0]
    S = np.sort(np.asarray(support, dtype=np.intp))
    k = len(S)
    if k == 0 or k == p:
        return S, (_lam(A, S) if k else 0.0), {"n_power": 0, "n_swaps": 0, "n_exchanges": 0, "n_grow_shrink": 0}
    theta, V = np.linalg.eigh(A[np.ix_(S, S)])
    f = theta[-1]
    n_power = n_swaps = n_exch = n_grow = 0
    x = np.zeros(p)
    x[S] = V[:, -1]
    for _ in range(max_power):
        y = A @ x
        T = np.sort(np.argsort(-np.abs(y), kind="stable")[:k])
        if np.array_equal(T, S):
            break
        th, W = np.linalg.eigh(A[np.ix_(T, T)])
        if th[-1] <= f * (1 + 1e-14):
            break
        S, f, theta, V = T, th[-1], th, W
        x = np.zeros(p)
        x[S] = V[:, -1]
        n_power += 1
    for _ in range(max_swaps):
        theta, V = np.linalg.eigh(A[np.ix_(S, S)])
        f = theta[-1]
        rem = _remove_values(theta, V)
        out, add = _add_values(A, S, theta, V)
        rem_order = S[np.argsort(-rem, kind="stable")]  # least harmful removal first
        add_order = out[np.argsort(-add, kind="stable")]  # best addition first
        best, best_T = f, None
        for i in rem_order[:n_try]:
            for j in add_order[:n_try]:
                T = np.sort(np.append(S[S != i], j))
                v = _lam(A, T)
                if v > best * (1 + 1e-12):
                    best, best_T = v, T
        m = 2  # splicing: exchange the m least harmful for the m best, m = 2, 4, 8, ...
        while m <= min(k, p - k):
            T = np.sort(np.concatenate([np.setdiff1d(S, rem_order[:m]), add_order[:m]]))
            v = _lam(A, T)
            if v > best * (1 + 1e-12):
                best, best_T = v, T
            m *= 2
        if best_T is None and n_exchange > 0:
            move = _exchange_move(A, S, theta, V, f, n_exchange, max_exchange)
            if move is not None:
                (best_T, best), n_exch = move, n_exch + 1
        if best_T is None and max_grow > 0:
            move = _grow_shrink_move(A, S, f, max_grow)
            if move is not None:
                (best_T, best), n_grow = move, n_grow + 1
        if best_T is None:
            break
        S, f = best_T, best
        n_swaps += 1
    info = {"n_power": n_power, "n_swaps": n_swaps, "n_exchanges": n_exch, "n_grow_shrink": n_grow}
    return S, float(_lam(A, S)), info
