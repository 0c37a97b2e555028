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
   exchange is evaluated exactly and the best improving one is taken. It stops when no tried
   exchange improves or after ``max_swaps``.

Cost per swap iteration: one ``k x k`` ``eigh``, ``O(p k^2)`` for the additions and ``n_try^2``
``k x k`` eigenvalue problems.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ._fullrank import _secular_border, _secular_deleted

__all__ = ["refine_support"]


def _lam(A, S):
    return float(sla.eigh(A[np.ix_(S, S)], eigvals_only=True, subset_by_index=[len(S) - 1, len(S) - 1])[0])


def refine_support(A, support, *, max_power=50, max_swaps=200, n_try=4):
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

    Returns
    -------
    support : ndarray of int
        Sorted improved support of the same size.
    value : float
        Its ``lambda_max(A_S)``.
    info : dict
        ``n_power`` and ``n_swaps`` accepted moves.

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
        return S, (_lam(A, S) if k else 0.0), {"n_power": 0, "n_swaps": 0}
    theta, V = np.linalg.eigh(A[np.ix_(S, S)])
    f = theta[-1]
    n_power = n_swaps = 0
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
        out = np.setdiff1d(np.arange(p), S)
        # every removal: largest root of sum_j w_j^2 / (lam - theta_j) in [theta_2, theta_1]
        w2 = V * V
        wh = w2 / w2.sum(axis=1, keepdims=True)
        th2 = theta[-2] if k > 1 else theta[-1]
        lo_r = np.full(k, th2)
        hi_r = np.full(k, f)
        rem = _secular_deleted(theta, wh, lo_r, hi_r) if k > 1 else np.zeros(1)
        # every addition: largest root of the bordered secular equation
        b = A[np.ix_(out, S)] @ V
        c = np.diag(A)[out]
        lo_a = np.maximum(f, c)
        hi_a = lo_a + np.linalg.norm(b, axis=1)
        add = _secular_border(theta, b, c, lo_a, hi_a)
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
        if best_T is None:
            break
        S, f = best_T, best
        n_swaps += 1
    return S, float(_lam(A, S)), {"n_power": n_power, "n_swaps": n_swaps}
