"""Forced features (``always_select``, installed sensors) in the exact search of additive objectives.

For a vector ``a`` (two-class LDA) and for the trace criterion with ``A = M M^T`` (a factor, or
a positive semi-definite ``A`` factored once) the objective of a support made of the forced
features ``F`` and others ``T`` splits exactly (the inverse of the block matrix ``B_SS`` by its
Schur complement):

    f(F + T) = f(F) + tr(B'_TT^{-1} M'_T M'_T^T),
    B' = B_RR - B_RF B_FF^{-1} B_FR,   M' = M_R - B_RF B_FF^{-1} M_F,

``R`` the features that are neither forced nor excluded. So the best support of size ``k``
containing ``F`` is ``F`` with the best support of size ``k - |F|`` of the pair ``(M', B')``,
found by the ordinary search, and every certificate of that search, raised by ``f(F)``, bounds
every support of size ``k`` that contains ``F``: nothing else is feasible. For the column
subset (``A = C C^T``, ``B = C``) ``B'`` is the residual covariance of the other pixels once the
installed ones are read, and ``M' M'^T`` the square of it: the kept mass that the new pixels add.
The largest generalized eigenvalue of a pair is not additive over features (``'max-eig'`` with a
matrix ``A``), so there the forced features have no such reduction and are refused.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

__all__ = ["forced_pair"]


def forced_pair(M: np.ndarray, B: np.ndarray, F: np.ndarray, R: np.ndarray, owner: str):
    """``(M', B', f_F)``: the pair of the features ``R`` given the forced ones ``F`` (module
    docstring) and the objective ``f(F) = tr(M_F^T B_FF^{-1} M_F)`` of the forced features alone.

    ``M`` is ``p x r`` (a vector as one column), ``B`` symmetric positive definite (checked float64
    arrays). A ``M'`` that would be square gets one zero column more: ``M' M'^T`` is unchanged, and
    the searches read a square ``A`` as the full matrix.
    """
    try:
        L = sla.cholesky(B[np.ix_(F, F)], lower=True)
    except np.linalg.LinAlgError:
        raise ValueError(f"{owner}: the always_select features are linearly dependent under B (B_FF is not "
                         "positive definite); force fewer features.") from None
    # B_FF^{-1} = L^{-T} L^{-1}: X = L^{-1} B_FR and Y = L^{-1} M_F give the Schur complements as products
    X = sla.solve_triangular(L, B[np.ix_(F, R)], lower=True)
    Y = sla.solve_triangular(L, M[F], lower=True)
    Bp = B[np.ix_(R, R)] - X.T @ X
    Bp = (Bp + Bp.T) / 2
    Mp = M[R] - X.T @ Y
    if Mp.shape[1] == Mp.shape[0]:
        Mp = np.hstack([Mp, np.zeros((Mp.shape[0], 1))])
    return Mp, Bp, float(np.sum(Y * Y))
