"""Greedy paths with forced features: every support of size ``k >= |F|`` contains the set ``F``.

Two routes, chosen by the criterion (the forced set is ``F``, the other features ``R``):

* **Schur complement** (the trace criterion, or a vector ``A``, where it equals the largest
  generalized eigenvalue). With ``S = F + T``, block elimination of ``B_SS`` gives
  ``tr(B_SS^{-1} A_SS) = tr(B_FF^{-1} A_FF) + tr(B'_TT^{-1} A'_TT)`` where, with
  ``W = B_FF^{-1} B_FR``, ``B' = B_RR - B_RF W`` and ``A' = A_RR - W^T A_FR - A_RF W + W^T A_FF W``
  (for a factor ``A = M M^T``: ``M' = M_R - W^T M_F``; for a vector, ``a' = a_R - W^T a_F``).
  ``f(F + T) = f(F) + f'(T)``, so the greedy path conditioned on ``F`` (forward or backward)
  is the greedy path of the pair ``(A', B')`` over ``R``, computed by the ordinary kernels.
* **Candidate evaluation** (``criterion='max-eig'`` with a factor or a full ``A``: multiclass
  LDA, sparse PCA). The largest eigenvalue does not split that way, so the forward pass from
  ``F`` evaluates every candidate's objective exactly (:func:`objective_on_support`): ``O(p k^3)``
  per step, meant for modest ``p`` and ``k``. Forward only.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ._criteria import as_criterion
from ._path import SparsePath

__all__ = []


def schur_pair(A, B, F, R):
    """The pair ``(A', B')`` over ``R`` conditioned on ``F`` (see the module docstring).

    ``A`` is a vector, a ``p x r`` factor or a full symmetric matrix (read from its shape and
    ``full``); ``B`` a symmetric positive definite matrix or None (the identity).
    """
    p = A.shape[0]
    B = np.eye(p) if B is None else B
    cf = sla.cho_factor(B[np.ix_(F, F)])
    W = sla.cho_solve(cf, B[np.ix_(F, R)])  # B_FF^{-1} B_FR
    Bp = B[np.ix_(R, R)] - B[np.ix_(R, F)] @ W
    Bp = (Bp + Bp.T) / 2
    if A.ndim == 2 and A.shape[1] == p:  # full symmetric A
        ARF_W = A[np.ix_(R, F)] @ W
        Ap = A[np.ix_(R, R)] - ARF_W - ARF_W.T + W.T @ A[np.ix_(F, F)] @ W
        Ap = (Ap + Ap.T) / 2
    else:  # a vector or a factor
        Ap = A[R] - W.T @ A[F]
    return Ap, Bp


def forced_path(path_fn, A, B, F, *, direction, criterion, form, max_k, callback):
    """The greedy path of ``(A, B)`` whose supports of size ``>= |F|`` all contain ``F``.

    ``path_fn`` is :func:`pixsel.spectral.greedy_path` (the kernels for the conditioned pair);
    ``A``, ``B`` are checked NumPy arrays, ``form`` resolved. Objectives at ``k < |F|`` are NaN
    (no support of that size contains ``F``); the order lists ``F`` first (forward) or last
    (backward), in increasing index order.
    """
    criterion = as_criterion(criterion)
    p, nf = A.shape[0], len(F)
    R = np.setdiff1d(np.arange(p), F)
    fF = criterion.value(A, B, F)
    length = p if max_k is None else max_k
    objective = np.full(length, np.nan)
    objective[nf - 1] = fF
    schur = criterion.additive or form == "vector"
    if len(R) == 0 or length == nf:
        rest = SparsePath(order=np.zeros(0, dtype=np.intp), objective=np.zeros(0), direction=direction, A=A)
        if callback is not None:
            callback(1, 1)
    elif schur:
        Ap, Bp = schur_pair(A, B, F, R)
        rest = path_fn(Ap, Bp, direction=direction, criterion=criterion, form=form,
                       max_k=None if max_k is None else max_k - nf, callback=callback)
    elif direction == "backward":
        raise ValueError(f"Forced features with criterion={criterion.name!r} and a matrix A run forward only (the largest "
                         "eigenvalue does not split over the forced set); use direction='forward' or "
                         "criterion='trace'.")
    else:
        rest = _forward_by_evaluation(A, B, F, R, length - nf, criterion, callback)
    order_rest = R[np.asarray(rest.order, dtype=np.intp)]
    objective[nf:] = np.asarray(rest.objective, dtype=np.float64) + (fF if schur else 0.0)
    order = np.concatenate([F, order_rest]) if direction == "forward" else np.concatenate([order_rest, F])
    info = {"criterion": criterion.name, "form": form, "always_select": F.copy(),
            "route": "schur" if schur else "evaluation"}
    return SparsePath(order=order, objective=objective, direction=direction, A=A, B=B, info=info)


def _forward_by_evaluation(A, B, F, R, n_steps, criterion, callback):
    """Forward steps from ``F``: each adds the candidate of largest exact objective (ties: lowest
    index). Returns a path over positions in ``R`` with the objectives of ``F`` + the added."""
    S = list(F)
    free = np.ones(len(R), dtype=bool)
    order = np.empty(n_steps, dtype=np.intp)
    objective = np.empty(n_steps)
    for t in range(n_steps):
        cand = np.flatnonzero(free)
        values = np.array([criterion.value(A, B, S + [int(R[j])]) for j in cand])
        j = int(cand[int(np.argmax(values))])  # argmax: the first (lowest index) of equal values
        order[t], objective[t] = j, values.max()
        free[j] = False
        S.append(int(R[j]))
        if callback is not None:
            callback(t + 1, n_steps)
    return SparsePath(order=order, objective=objective, direction="forward", A=A)
