"""Algorithm 1's selection loop of sparse PLS, shared by the NumPy and array-API kernels."""

import numpy as np

__all__ = []


def selection_loop(Z0, p, n_components, make_threshold, direction, refit, deflate):
    """Algorithm 1's loop, written once for NumPy and the array API (the steps are passed in).

    ``direction(Z, threshold) -> (added, n_iter, ok)`` runs the alternating optimization,
    ``refit(A, k)`` fits SIMPLS on the columns ``A`` (returns ``(R, T, P, Q)``) and
    ``deflate(Z, A, fit)`` returns the next ``Z``. Returns ``(A, history, fit, n_iter, converged)``.
    """
    Z = Z0
    selected = np.zeros(p, dtype=bool)
    history, n_iter, converged = [], [], []
    fit = (None, None, None, None)
    A = np.zeros(0, dtype=np.intp)
    for k in range(1, n_components + 1):
        threshold = make_threshold(k, selected)
        added, it, ok = direction(Z, threshold)
        added = added[~selected[added]]
        history.append(added.astype(np.intp))
        n_iter.append(it)
        converged.append(ok)
        selected[added] = True
        A = np.flatnonzero(selected)
        if len(A) == 0:
            continue
        fit = refit(A, k)
        if k < n_components:
            Z = deflate(Z, A, fit)
    return A, history, fit, np.array(n_iter), np.array(converged, dtype=bool)
