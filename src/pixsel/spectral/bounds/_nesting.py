"""The sparsity lower bound (5) and the nesting bound (6) of Moghaddam, Weiss and Avidan (2007).

Eq. (5), for the binary objective ``f(S) = a_S^T B_SS^{-1} a_S``::

    f(S) = Tr(B_SS^{-1} a_S a_S^T) >= ||a_S||^2 / lambda_max(B_SS) >= S_k / lambda_max(B),

``S_k`` the sum of the k largest ``a_i^2`` (the diagonal of ``A = a a^T``). The first inequality
holds for every support; the second needs ``||a_S||^2 >= S_k``, true for the support of the k
largest ``|a_i|``. So the *best* objective of cardinality k is at least ``S_k / lambda_max(B)``
(the paper calls it a worst-case bound over all solutions; read literally that needs the k
*smallest* ``a_i^2``). The forward greedy path stayed above it in every test we ran (random,
ill-conditioned and equicorrelated pairs, hypothesis-generated); a backward path can fall below
it at small k, so the dual-pass best-of-both is covered through its forward half.

Eq. (6), the nesting bound: among the ``n`` principal submatrices of size ``n - 1`` one keeps at
least ``(n-1)/n`` of ``lambda_max(A, B)``; applied along a backward path it reads
``objective[k-1] >= k / (k+1) * objective[k]``. It holds when ``B`` is diagonal (``f`` is then
a sum of ``n`` nonnegative terms and the smallest is at most the mean), in particular for sparse
PCA (``B = I``), but **not** for binary sparse LDA in general: with ``B = [[1, 0.9], [0.9, 1]]``
and ``a = (1, -1)`` (two positively correlated features whose means move in opposite
directions), ``f({0, 1}) = 20`` while ``max_j f({j}) = 1 < 10``. :func:`check_nesting_bound`
therefore reports whether a given path satisfies it rather than assuming it.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..._validation import check_pair, check_real
from .._path import SparsePath

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["sparsity_lower_bound", "nesting_ratios", "check_nesting_bound"]


def sparsity_lower_bound(a: ArrayLike, B: ArrayLike) -> NDArray:
    """Eq. (5) of Moghaddam, Weiss and Avidan (2007) for every cardinality: ``S_k / lambda_max(B)``, ``k = 1..p``.

    ``S_k`` is the sum of the ``k`` largest ``a_i^2``. The support of the ``k`` largest
    ``|a_i|`` reaches at least this value (``f(S) >= ||a_S||^2 / lambda_max(B_SS)`` and
    ``lambda_max(B_SS) <= lambda_max(B)`` by interlacing), so the best -- and the greedy --
    objective of cardinality ``k`` is never below it.

    Parameters
    ----------
    a : array-like of shape (n_features,)
        The between-class vector.
    B : array-like of shape (n_features, n_features)
        The symmetric positive semi-definite (within-class) scatter, not zero.

    Returns
    -------
    bound : ndarray of shape (n_features,)
        ``bound[k - 1]`` for ``k = 1..p``, nondecreasing.

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Fast pixel/part selection with sparse eigenvectors",
      IEEE International Conference on Computer Vision (ICCV), 2007.

    Examples
    --------
    >>> import numpy as np
    >>> sparsity_lower_bound([3.0, 1.0, 2.0], np.diag([1.0, 2.0, 4.0])).tolist()
    [2.25, 3.25, 3.5]
    """
    a, B = check_pair(a, B, form="vector", owner="sparsity_lower_bound", identity_ok=False)
    p = a.shape[0]
    lam = float(sla.eigh(B, eigvals_only=True, subset_by_index=[p - 1, p - 1])[0])
    if not lam > 0:
        raise ValueError(
            f"sparsity_lower_bound needs a B with a positive largest eigenvalue; got {lam:.3g}. "
            "B should be a (regularized) scatter matrix."
        )
    return np.cumsum(np.sort(a * a)[::-1]) / lam


def nesting_ratios(path: SparsePath) -> NDArray:
    """``objective[k-1] / objective[k]`` for ``k = 1..p-1`` (Eq. (6) asks ``>= k / (k+1)``).

    A ratio where ``objective[k]`` is zero is reported as 1 (the bound holds trivially).

    Parameters
    ----------
    path : SparsePath
        Any path; the bound is guaranteed for ``direction='backward'``.

    Returns
    -------
    ratios : ndarray of shape (n_features - 1,)

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Fast pixel/part selection with sparse eigenvectors",
      IEEE International Conference on Computer Vision (ICCV), 2007.
    """
    if not isinstance(path, SparsePath):
        raise TypeError(f"nesting_ratios expects a SparsePath; got {type(path).__name__}.")
    obj = np.asarray(path.objective, dtype=np.float64)
    num, den = obj[:-1], obj[1:]
    ratios = np.ones_like(num)
    np.divide(num, den, out=ratios, where=den != 0)
    return ratios


def check_nesting_bound(path: SparsePath, *, rtol: float = 1e-9) -> bool:
    """Whether ``path`` satisfies the nesting bound Eq. (6) at every k.

    Checks ``objective[k-1] >= k / (k+1) * objective[k] - rtol * |objective[k]|`` for
    ``k = 1..p-1``. Every backward greedy path satisfies it (up to rounding, hence ``rtol``);
    forward and thresholding paths may or may not.

    Parameters
    ----------
    path : SparsePath
    rtol : float, default=1e-9
        Allowance for rounding, relative to ``objective[k]``.

    Returns
    -------
    holds : bool

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Fast pixel/part selection with sparse eigenvectors",
      IEEE International Conference on Computer Vision (ICCV), 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.spectral import greedy_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((40, 6))
    >>> path = greedy_path(rng.standard_normal(6), X.T @ X / 40, direction="backward")
    >>> check_nesting_bound(path)
    True
    """
    rtol = check_real(rtol, "rtol", low=0.0, owner="check_nesting_bound")
    ratios = nesting_ratios(path)
    k = np.arange(1, len(ratios) + 1)
    obj = np.asarray(path.objective, dtype=np.float64)
    slack = obj[:-1] - k / (k + 1) * obj[1:] + rtol * np.abs(obj[1:])
    return bool(np.all(slack >= 0))
