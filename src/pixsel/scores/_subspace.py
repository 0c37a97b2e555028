"""Rank-m leverage, residual and subspace scores (Musco and Musco, section 2.3).

For the column-centred data ``A_c = U Sigma V^T`` and a rank ``m``:

* leverage ``l_i = ||V_m[i, :]||^2`` (sums to ``m``),
* residual ``r_i = ||A_c[:, i]||^2 - ||Sigma_m V_m[i, :]||^2``, the squared norm of column ``i``
  of ``A_c - A_c V_m V_m^T`` (computed from the column norms, never formed; clipped at 0 against
  rounding),
* subspace score ``v_i = l_i + gamma r_i``.

``gamma`` is

* ``'theory'``: the k-means setting of section 2.3, ``m = 2k`` and
  ``gamma = k / sum_{i >= k} sigma_i^2`` (1-based ``i``, so ``sigma_k`` is included, as written in
  the paper; the tail is ``||A_c||_F^2 - sum_{i < k} sigma_i^2``). pixsel takes ``k = m // 2``:
  pass ``rank = 2 * n_clusters``;
* ``'balanced'``: section 4.5, ``gamma = sum_i l_i / sum_i r_i`` so that both parts weigh the same;
* a number ``>= 0``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._array_api import get_namespace, is_numpy, to_numpy
from ._krylov import KrylovSVD, block_krylov_svd

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import ArrayLike, NDArray

__all__ = ["SubspaceScores", "subspace_scores", "leverage_residual", "resolve_gamma"]


@dataclass(frozen=True)
class SubspaceScores:
    """Result of :func:`subspace_scores`.

    Attributes
    ----------
    scores : ndarray of shape (n_features,)
        ``leverage + gamma * residual``; higher is better.
    leverage : ndarray of shape (n_features,)
    residual : ndarray of shape (n_features,)
    gamma : float
    svd : KrylovSVD
        The singular values, right singular vectors and column moments used.
    """

    scores: np.ndarray
    leverage: np.ndarray
    residual: np.ndarray
    gamma: float
    svd: KrylovSVD

    @property
    def singular_values(self):
        return self.svd.singular_values


def leverage_residual(
    components: ArrayLike,
    singular_values: ArrayLike,
    column_sq_norms: ArrayLike,
) -> NDArray:
    """Leverage and residual scores from the top-m right singular vectors.

    Parameters
    ----------
    components : ndarray of shape (m, n_features)
        ``V_m^T`` with orthonormal rows.
    singular_values : ndarray of shape (m,)
    column_sq_norms : ndarray of shape (n_features,)
        ``||A_c[:, i]||^2``.

    Returns
    -------
    leverage, residual : ndarrays of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> Vt = np.array([[1.0, 0.0, 0.0]])
    >>> lev, res = leverage_residual(Vt, np.array([2.0]), np.array([4.0, 1.0, 3.0]))
    >>> lev.tolist(), res.tolist()
    ([1.0, 0.0, 0.0], [0.0, 1.0, 3.0])
    """
    xp, _ = get_namespace(components, singular_values, column_sq_norms,
                          names=["components", "singular_values", "column_sq_norms"])
    if not is_numpy(xp):  # on the device of the components, in their dtype
        VV = components * components
        explained = xp.sum(VV * (singular_values ** 2)[:, None], axis=0)
        residual = xp.clip(xp.astype(column_sq_norms, explained.dtype) - explained, 0.0, None)
        return xp.sum(VV, axis=0), residual
    Vt = np.asarray(components, dtype=np.float64)
    sv = np.asarray(singular_values, dtype=np.float64)
    leverage = np.einsum("ji,ji->i", Vt, Vt)
    explained = np.einsum("ji,ji->i", Vt * (sv ** 2)[:, None], Vt)
    residual = np.clip(np.asarray(column_sq_norms, dtype=np.float64) - explained, 0.0, None)
    return leverage, residual


def resolve_gamma(
    gamma: Literal["balanced", "theory"] | float,
    leverage: ArrayLike,
    residual: ArrayLike,
    singular_values: ArrayLike,
    frobenius_sq: float,
) -> float:
    """The number ``gamma`` for a setting ``'theory'``, ``'balanced'`` or a number.

    Returns ``0.0`` with a ``UserWarning`` when the denominator (residual total or spectral
    tail) vanishes, i.e. the data have rank at most ``m``: the residual part is then empty.

    Examples
    --------
    >>> import numpy as np
    >>> resolve_gamma("balanced", np.array([0.5, 0.5]), np.array([1.0, 3.0]), np.array([2.0]), 8.0)
    0.25
    """
    if not isinstance(gamma, str):
        return float(gamma)
    sv = to_numpy(singular_values, np.float64)
    if gamma == "balanced":  # sums on the arrays' device, one number each back
        xp, _ = get_namespace(leverage, residual, names=["leverage", "residual"])
        num, den = float(xp.sum(leverage)), float(xp.sum(residual))
        what = "the residual scores sum"
    elif gamma == "theory":
        k = max(1, len(sv) // 2)
        num = float(k)
        den = float(frobenius_sq - np.sum(sv[: k - 1] ** 2))
        what = f"the spectral tail sum_(i>={k}) sigma_i^2"
    else:  # pragma: no cover - validated by the callers
        raise ValueError(f"unknown gamma setting {gamma!r}")
    if not frobenius_sq > 0:  # all features constant: nothing to balance (callers report it)
        return 0.0
    if not den > 1e-12 * max(frobenius_sq, np.finfo(float).tiny):
        warnings.warn(
            f"gamma={gamma!r}: {what} to (numerically) zero, so the data have rank at most "
            f"{len(sv)}; using gamma = 0 (leverage scores only). Choose a smaller rank.",
            UserWarning,
            stacklevel=3,
        )
        return 0.0
    return num / den


def subspace_scores(
    A: ArrayLike,
    rank: int,
    *,
    gamma: Literal["balanced", "theory"] | float = "balanced",
    center: bool = True,
    n_iter: int = 4,
    block_size: Any = None,
    random_state: int | np.random.RandomState | None = None,
) -> SubspaceScores:
    """Subspace scores ``l_i + gamma r_i`` of every column of ``A`` (unchecked kernel).

    Parameters
    ----------
    A : ndarray or dask array of shape (n_samples, n_features)
        Finite float data; ``1 <= rank < min(n_samples, n_features)``.
    rank : int
        ``m``, the number of top singular vectors.
    gamma : {'balanced', 'theory'} or float, default='balanced'
        See the module docstring.
    center : bool, default=True
        Score the column-centred data (implicitly; nothing of the data's size is copied).
    n_iter, block_size, random_state
        Passed to :func:`block_krylov_svd`.

    Returns
    -------
    SubspaceScores

    References
    ----------
    * C. Musco and C. Musco, "Subspace scores for feature selection in computer vision", manuscript,
      Massachusetts Institute of Technology.
    * M. B. Cohen, S. Elder, C. Musco, C. Musco and M. Persu, "Dimensionality reduction for k-means
      clustering and low rank approximation", ACM Symposium on Theory of Computing (STOC), 2015.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((50, 6))
    >>> res = subspace_scores(A, 2, random_state=0)
    >>> round(float(res.leverage.sum()), 6)
    2.0
    >>> bool(np.isclose(res.leverage.sum(), res.gamma * res.residual.sum()))
    True
    """
    svd = block_krylov_svd(A, rank, n_iter=n_iter, block_size=block_size, center=center,
                           random_state=random_state)
    leverage, residual = leverage_residual(svd.components, svd.singular_values,
                                           svd.column_sq_norms)
    g = resolve_gamma(gamma, leverage, residual, svd.singular_values, svd.frobenius_sq)
    return SubspaceScores(scores=leverage + g * residual, leverage=leverage, residual=residual,
                          gamma=g, svd=svd)
