"""Deterministic column-subset selection: pivoted QR and the greedy column-subset method.

Both choose ``k`` columns ``C = A[:, S]`` of a (centered) data matrix ``A`` of shape ``(n, p)``
so that the span of the chosen columns keeps as much of ``A`` as possible: the reconstruction
error ``||A - P_S A||_F^2``, with ``P_S`` the orthogonal projector on the span of ``C``, is small
and the kept Frobenius mass

    f(S) = ||P_S A||_F^2 = trace(G_{:,S} G_{SS}^{-1} G_{S,:}),   G = A^T A,

is large. Choosing the best ``S`` is NP-hard (the column subset selection problem); both
methods here are greedy and deterministic:

* **pivoted QR** (Businger and Golub, "Linear least squares solutions by Householder
  transformations", 1965; LAPACK ``geqp3``): at each step the column of largest residual norm
  after projecting out the columns already chosen. It looks at one column at a time: it keeps the
  columns that are the most *unlike* the chosen ones, whatever their share of the rest of ``A``.
* **greedy column subset** (Farahat, Ghodsi and Kamel, "An efficient greedy method for
  unsupervised feature selection", ICDM 2011): at each step the column that increases ``f(S)``
  the most, i.e. with ``E = G - G_{:,S} G_{SS}^{-1} G_{S,:}`` the residual Gram matrix, the
  column ``i`` maximizing ``||E_{:,i}||^2 / E_{ii}``. It weighs a column by how much of *every*
  column it explains, which is what k-means and PCA on the kept pixels care about.

The greedy kernel works on ``G`` (``p x p``): ``O(p^2)`` per step after the ``O(n p^2)`` Gram
matrix. Ties go to the lowest index; columns whose residual norm is below a relative tolerance
of the largest diagonal of ``G`` are never chosen while another column is left (they add nothing).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["greedy_column_subset", "pivoted_qr_columns", "column_subset_objective"]

#: A column whose residual squared norm is below this fraction of the largest squared column
#: norm of ``A`` is numerically inside the span of the chosen columns.
_RESIDUAL_RTOL = 1e-10


def column_subset_objective(G: ArrayLike, support: ArrayLike) -> float:
    """``f(S) = trace(G_{:,S} G_{SS}^+ G_{S,:}) = ||P_S A||_F^2`` for ``G = A^T A``.

    Parameters
    ----------
    G : array-like of shape (n_features, n_features)
        Gram matrix ``A^T A`` (symmetric positive semi-definite).
    support : array-like of int

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 1.0], [0.0, 1.0]])
    >>> round(column_subset_objective(A.T @ A, [1]), 6)  # ||P A||^2 with P onto (1, 1)
    2.5
    """
    G = np.asarray(G, dtype=np.float64)
    S = np.asarray(support, dtype=np.intp)
    if S.size == 0:
        return 0.0
    GS = G[:, S]
    return float(np.sum(GS * (GS @ np.linalg.pinv(G[np.ix_(S, S)], hermitian=True))))


def greedy_column_subset(G: ArrayLike, k: int) -> tuple[NDArray, NDArray]:
    """Greedy column-subset selection on the Gram matrix ``G = A^T A``.

    Step ``t`` adds the column ``i`` that maximizes the gain ``||E_{:,i}||^2 / E_{ii}`` of the
    kept Frobenius mass, ``E`` the Gram matrix of the residual of ``A`` after projecting out
    the columns already chosen; then ``E <- E - E_{:,i} E_{i,:} / E_{ii}``.

    Parameters
    ----------
    G : array-like of shape (n_features, n_features)
        Symmetric positive semi-definite (``A^T A`` of the centered data). Not modified.
    k : int
        Columns to choose, in ``[1, n_features]``.

    Returns
    -------
    order : ndarray of shape (k,) of int
        The columns in the order they were chosen.
    objective : ndarray of shape (k,)
        ``objective[t] = f(order[: t + 1])``, the kept Frobenius mass (non-decreasing, at most
        ``trace(G)``).

    References
    ----------
    * A. K. Farahat, A. Ghodsi and M. S. Kamel, "An efficient greedy method for unsupervised feature
      selection", IEEE International Conference on Data Mining (ICDM), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.1]])
    >>> order, f = greedy_column_subset(A.T @ A, 2)
    >>> order.tolist(), np.round(f, 3).tolist()
    ([1, 0], [2.5, 3.0])
    """
    E = np.array(G, dtype=np.float64, copy=True)
    p = E.shape[0]
    k = int(k)
    diag = np.diag(E).copy()
    floor = _RESIDUAL_RTOL * max(float(diag.max(initial=0.0)), np.finfo(float).tiny)
    live = np.ones(p, dtype=bool)
    order = np.empty(k, dtype=np.intp)
    objective = np.empty(k)
    total = 0.0
    for t in range(k):
        d = np.diag(E)
        ok = live & (d > floor)
        if not ok.any():  # the rest lie in the span: fill by lowest index, no gain
            rest = np.flatnonzero(live)[: k - t]
            order[t:] = rest
            objective[t:] = total
            break
        gain = np.full(p, -np.inf)
        gain[ok] = np.einsum("ij,ij->j", E[:, ok], E[:, ok]) / d[ok]
        i = int(np.argmax(gain))  # first maximum: ties to the lowest index
        order[t] = i
        total += float(gain[i])
        objective[t] = total
        live[i] = False
        g = E[:, i] / np.sqrt(d[i])
        E -= np.outer(g, g)
    return order, objective


def pivoted_qr_columns(A: ArrayLike, k: int) -> NDArray:
    """The first ``k`` pivots of the column-pivoted QR of ``A`` (``scipy.linalg.qr``).

    Parameters
    ----------
    A : array-like of shape (n_samples, n_features)
        Data (centered by the caller when that is meant). Not modified.
    k : int
        Columns to choose, in ``[1, n_features]``.

    Returns
    -------
    order : ndarray of shape (k,) of int
        The columns in pivot order: each is the column of largest residual norm after
        projecting out the previous ones.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.1]])
    >>> pivoted_qr_columns(A, 2).tolist()
    [1, 0]
    """
    A = np.asarray(A, dtype=np.float64)
    _, piv = scipy.linalg.qr(A, mode="r", pivoting=True, check_finite=False)
    return np.asarray(piv[: int(k)], dtype=np.intp)
