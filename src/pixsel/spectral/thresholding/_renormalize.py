"""Variational renormalization (Moghaddam, Weiss and Avidan, 2006, Proposition 2) and simple thresholding for any pair.

Proposition 2: whatever method produced a sparse candidate ``x`` (an L1-SVM, scikit-learn's
``SparsePCA``, thresholding), the best vector with the same support is the principal generalized
eigenvector of ``(A_S, B_S)``; replacing the nonzeros of ``x`` by it can only increase the
Rayleigh quotient, up to ``lambda_max(A_S, B_S)``.

Simple thresholding (ST) keeps the ``k`` largest ``|x_i|`` of the principal generalized
eigenvector of the full pair and renormalizes each support (the "fixed" ST of Moghaddam, Weiss and Avidan 2006, section 3).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .._criteria import as_criterion
from .._forms import infer_form
from .._path import SparsePath

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray

__all__ = ["renormalize", "simple_thresholding"]


def _pair(A, B):
    A = np.asarray(A, dtype=np.float64)
    form = infer_form(A)
    p = A.shape[0]
    Bd = np.eye(p) if B is None else np.asarray(B, dtype=np.float64)
    return A, Bd, form


def _full_on(A, form, S):
    if form == "full":
        return A[np.ix_(S, S)]
    F = A[:, None] if form == "vector" else A
    return F[S] @ F[S].T


def renormalize(x: ArrayLike, A: ArrayLike, B: ArrayLike | None = None) -> tuple[NDArray, float]:
    """Optimal vector and objective on the support of a candidate ``x`` (Proposition 2 of Moghaddam, Weiss and Avidan 2006).

    Parameters
    ----------
    x : array-like of shape (n_features,)
        Any candidate; only its support (nonzero entries) is used.
    A : ndarray
        Vector ``a``, factor ``M`` (``A = M M^T``) or symmetric ``p x p`` matrix.
    B : ndarray of shape (n_features, n_features) or None
        Positive definite; None is the identity.

    Returns
    -------
    z : ndarray of shape (n_features,)
        Zero off the support, ``z^T B z = 1``, signed so that ``z . x >= 0``.
    value : float
        ``lambda_max(A_S, B_S) = z^T A z``, never below the Rayleigh quotient of ``x``.

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    >>> z, value = renormalize([1.0, 0.1, 0.0], A)
    >>> np.round(z, 4).tolist(), round(value, 6)
    ([0.7071, 0.7071, 0.0], 3.0)
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    A, Bd, form = _pair(A, B)
    if x.shape[0] != A.shape[0]:
        raise ValueError(f"x has {x.shape[0]} entries but A has {A.shape[0]} features.")
    S = np.flatnonzero(x)
    z = np.zeros_like(x)
    if len(S) == 0:
        return z, 0.0
    vals, vecs = sla.eigh(_full_on(A, form, S), Bd[np.ix_(S, S)])
    v = vecs[:, -1]
    s = np.sign(v @ x[S]) or np.sign(v[np.argmax(np.abs(v))])
    z[S] = v * s
    return z, float(vals[-1])


def _objective_along(A, Bd, form, order, criterion):
    """Objective of each prefix ``order[:k]`` (left-looking Cholesky for vector/factor forms)."""
    K = len(order)
    out = np.empty(K)
    if form in ("vector", "factor"):
        F = A[:, None] if form == "vector" else A
        Ssel = np.asarray(order)
        BS = Bd[np.ix_(Ssel, Ssel)]
        L = np.linalg.cholesky(BS)
        W = sla.solve_triangular(L, F[Ssel], lower=True)  # rows: whitened contributions
        G = np.zeros((F.shape[1], F.shape[1]))
        for k in range(K):
            G += np.outer(W[k], W[k])
            out[k] = criterion.of_matrix(G)
        return out
    for k in range(K):
        S = np.asarray(order[: k + 1])
        vals = sla.eigh(A[np.ix_(S, S)], Bd[np.ix_(S, S)], eigvals_only=True)
        out[k] = criterion.of_eigenvalues(vals)
    return out


def simple_thresholding(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    criterion: Literal["max-eig", "trace"] = "max-eig",
    max_k: int | None = None,
) -> SparsePath:
    """Simple thresholding of the principal generalized eigenvector, renormalized per ``k``.

    Parameters
    ----------
    A : ndarray
        Vector, factor or symmetric matrix.
    B : ndarray or None
    criterion : {'max-eig', 'trace'}
        Objective reported for each renormalized support.
    max_k : int or None
        Evaluate the supports up to this size only.

    Returns
    -------
    SparsePath
        ``direction='simple'``, ``order`` ranks the features by ``|x_i|`` (ties -> lowest
        index); ``objective[k - 1]`` is the renormalized objective of the top-``k`` support.

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925

    Examples
    --------
    >>> import numpy as np
    >>> simple_thresholding(np.array([1.0, -3.0, 2.0])).order.tolist()
    [1, 2, 0]
    """
    criterion = as_criterion(criterion, owner="simple_thresholding")
    A, Bd, form = _pair(A, B)
    p = A.shape[0]
    if form == "vector":
        x = sla.solve(Bd, A, assume_a="pos")
    else:
        x = sla.eigh(_full_on(A, form, np.arange(p)), Bd)[1][:, -1]
    order = np.lexsort((np.arange(p), -np.abs(x)))
    K = p if max_k is None else int(max_k)
    objective = _objective_along(A, Bd, form, order[:K], criterion)
    if K < p:
        order = order[:K]
    return SparsePath(
        order=order,
        objective=objective,
        direction="simple",
        A=A,
        B=None if B is None else Bd,
        info={"criterion": criterion.name, "form": form, "vector": x},
    )
