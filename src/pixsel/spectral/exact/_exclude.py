"""Excluded features (``never_select``, FastCan's ``indices_exclude``) in the exact searches.

Every support that avoids ``E`` lies inside the other features ``R``, and its objective reads only
``A_R`` (the rows of a vector or a factor, the block ``A_RR`` of a full matrix) and ``B_RR``. So
the best support of size ``k`` outside ``E`` is the best support of the restricted pair, found by
the ordinary search, and every certificate of that search (a bound on every support of ``R`` of
size ``k``) is a certificate of the constrained problem: nothing else is feasible. The restricted
result is mapped back to the original indices, as :mod:`pixsel.spectral.greedy._exclude` does for
the greedy paths.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..._validation import check_excluded

__all__ = ["restricted", "restrict", "restrict_initial", "lift_result", "lift_path"]


def restricted(A: np.ndarray, B: np.ndarray, form: str, never_select, k: int | None, owner: str):
    """``(E, R, A_R, B_RR)``: the checked excluded features ``E`` (``never_select``, room left for
    ``k``), the kept ones ``R`` and the pair on them (:func:`restrict`); None where ``E`` is empty."""
    p = A.shape[0]
    E = check_excluded(never_select, p, k=k, owner=owner)
    if not len(E):
        return None
    R = np.setdiff1d(np.arange(p), E)
    return (E, R, *restrict(A, B, form, R))


def restrict(A: np.ndarray, B: np.ndarray, form: str, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pair on the kept features ``R`` (checked float64 arrays, ``form`` as read by ``_validate``).

    A factor whose restriction would be square gets one zero column more: ``A_R A_R^T`` is
    unchanged, and the searches read a square ``A`` as the full matrix.
    """
    if form == "full":
        AR = A[np.ix_(R, R)]
    else:
        AR = A[R]
        if form == "factor" and AR.shape[1] == AR.shape[0]:
            AR = np.hstack([AR, np.zeros((AR.shape[0], 1))])
    return AR, B[np.ix_(R, R)]


def restrict_initial(S, E: np.ndarray, R: np.ndarray, p: int, owner: str) -> np.ndarray:
    """A starting support in the restricted indices; refused when it is not a set of feature
    indices of ``[0, p)`` or holds an excluded feature."""
    S = np.unique(np.asarray(S))
    if S.ndim != 1 or (S.size and not np.issubdtype(S.dtype, np.integer)) or (S.size and (S[0] < 0 or S[-1] >= p)):
        raise ValueError(f"{owner}: initial must hold distinct indices in [0, {p - 1}]; got {S.tolist()}.")
    both = np.intersect1d(S, E)
    if both.size:
        raise ValueError(f"{owner}: initial contains the never_select features {both.tolist()}; start from a "
                         "support without them (or pass initial=None).")
    return np.searchsorted(R, S).astype(np.intp)


def lift_result(res, R: np.ndarray, E: np.ndarray, p: int):
    """An :class:`ExactResult` of the restricted pair in the original indices (weights of length ``p``)."""
    w = np.zeros(p)
    w[R] = res.weights
    info = dict(res.info, never_select=E.copy())
    return dataclasses.replace(res, support=R[res.support], weights=w, info=info)


def lift_path(path, R: np.ndarray, E: np.ndarray):
    """An :class:`ExactPath` of the restricted pair in the original indices."""
    supports = [R[np.asarray(S, dtype=np.intp)] for S in path.supports]
    info = dict(path.info, never_select=E.copy())
    return dataclasses.replace(path, supports=supports, info=info)
