"""Continuous baselines made sparse by thresholding, renormalized on every prefix (Moghaddam, Weiss and Avidan, 2006).

Both rank the features by the magnitude of a dense direction and then evaluate every prefix of
that ranking with the exact objective (variational renormalization: the best weights on the
prefix, not the truncated dense weights), so their paths are comparable with the greedy ones.

* Fisher thresholding ranks ``|B^{-1} a|``, the dense Fisher discriminant.
* Simple thresholding (ST, Moghaddam, Weiss and Avidan, 2006, section 2) ranks ``|v|``, ``v`` the principal eigenvector of
  ``C = B^{-1/2} A B^{-1/2}`` (symmetric square root).

Prefix objectives for a vector ``a`` come from the forward elimination of
:mod:`pixsel.spectral.greedy._rank_one` run in the prescribed order: one incremental (blocked) Cholesky,
``O(p^3)`` for all ``p`` prefixes instead of ``p`` separate solves.

Arrays of another library (PyTorch, CuPy, array-api-strict) run on their device
(:mod:`pixsel.spectral.thresholding._thresholding_xp`); the path itself is NumPy host metadata.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..._array_api import get_namespace, host_view
from ..._routes import choose
from ..._validation import check_pair
from .._path import SparsePath, objective_on_support
from ..greedy import prefix_objectives

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["fisher_thresholding_path", "simple_thresholding_path"]

#: Machine epsilon: ``B`` is numerically singular below ``p * _EPS`` of its largest eigenvalue.
_EPS = np.finfo(np.float64).eps

_SINGULAR = (
    "{name} needs B^{{-1}} but B is singular or numerically singular (smallest/largest eigenvalue "
    "{ratio:.3g}). Regularize B first: regularization='auto' in SparseLDASelector, or "
    "pixsel.stats.regularize(B, 'auto')."
)


def _backend(A, B, names):
    """The arrays' namespace and where the thresholding family runs on them
    (:func:`pixsel._routes.choose`: ``'numpy'``, ``'host'`` or ``'device'``)."""
    xp, dev = get_namespace(A, B, names=names)
    return xp, choose("thresholding", xp=xp, device=dev).backend


def _route(A, B, names, device_kernel):
    """``(path, A, B)``: the path when the device kernel ``device_kernel`` of ``_thresholding_xp``
    computed it, else None and the arrays NumPy's code runs on (host views under the CPU policy)."""
    xp, backend = _backend(A, B, names)
    if backend == "host":  # the CPU policy: NumPy's code on views
        return None, host_view(A), host_view(B)
    if backend == "device":  # CUDA, CuPy (or forced): on their device
        from . import _thresholding_xp

        return getattr(_thresholding_xp, device_kernel)(xp, A, B, _SINGULAR), A, B
    return None, A, B


def _ranking(scores):
    """Indices by decreasing ``|scores|``; ties to the lowest index (stable sort)."""
    return np.argsort(-np.abs(scores), kind="stable")


def _prefix_objectives(A, B, order):
    """``f`` of every prefix of ``order``: the fixed-order forward elimination for a vector,
    a direct generalized eigenproblem per prefix for a matrix (``O(p^4)``)."""
    p = B.shape[0]
    if A.ndim == 1:
        return prefix_objectives(A, B, order)
    objective = np.array([objective_on_support(A, B, order[:k]) for k in range(1, p + 1)])
    return objective, {}


def fisher_thresholding_path(a: ArrayLike, B: ArrayLike) -> SparsePath:
    """Fisher thresholding: rank ``|B^{-1} a|``, evaluate every prefix exactly.

    Parameters
    ----------
    a : array-like of shape (n_features,)
        The between-class vector.
    B : array-like of shape (n_features, n_features)
        The symmetric positive definite (within-class) scatter.

    Returns
    -------
    path : SparsePath
        ``direction='fisher'``; ``order`` is the ranking (best first), ``objective[k-1]`` the
        exact ``f`` of its first ``k`` features; ``info['scores']`` holds ``B^{-1} a``.

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925

    Examples
    --------
    >>> import numpy as np
    >>> path = fisher_thresholding_path([1.0, 2.0, 0.5], np.diag([1.0, 8.0, 1.0]))
    >>> path.order.tolist()
    [0, 2, 1]
    >>> path.objective.tolist()
    [1.0, 1.25, 1.75]
    """
    done, a, B = _route(a, B, ["a", "B"], "fisher_thresholding_path_xp")
    if done is not None:
        return done
    a, B = check_pair(a, B, form="vector", owner="fisher_thresholding_path", identity_ok=False)
    try:
        c = sla.cho_factor(B, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise ValueError(_SINGULAR.format(name="fisher_thresholding_path", ratio=0.0)) from None
    ratio = float(np.min(np.diag(c[0])) ** 2 / np.max(np.abs(np.diag(B))))
    if not ratio > a.shape[0] * _EPS:
        raise ValueError(_SINGULAR.format(name="fisher_thresholding_path", ratio=ratio))
    z = sla.cho_solve(c, a, check_finite=False)
    order = _ranking(z)
    objective, info = _prefix_objectives(a, B, order)
    info = dict(info, scores=z)
    return SparsePath(order=order, objective=objective, direction="fisher", A=a, B=B, info=info)


def simple_thresholding_path(A: ArrayLike, B: ArrayLike) -> SparsePath:
    """Simple thresholding (ST, Moghaddam, Weiss and Avidan, 2006): rank ``|v|``, ``v`` the principal eigenvector of
    ``C = B^{-1/2} A B^{-1/2}``; evaluate every prefix exactly.

    ``B^{-1/2}`` is the symmetric square root. Mapping ``v`` back by ``B^{-1/2}`` would give
    the generalized eigenvector; for a rank-one ``A = a a^T`` that is ``B^{-1} a``, exactly the
    Fisher direction (:func:`fisher_thresholding_path`), which is why ST ranks ``v`` itself
    (here ``v`` is proportional to ``B^{-1/2} a``).

    Parameters
    ----------
    A : array-like of shape (n_features,), (n_features, n_features) or (n_features, r)
        The between-class vector ``a`` (``A = a a^T``), a symmetric PSD matrix ``A``, or a
        factor ``M`` with ``A = M M^T`` (non-square).
    B : array-like of shape (n_features, n_features)
        The symmetric positive definite (within-class) scatter.

    Returns
    -------
    path : SparsePath
        ``direction='simple'``; ``order`` is the ranking (best first), ``objective[k-1]`` the
        exact objective of its first ``k`` features (``a_S^T B_SS^{-1} a_S``, or
        ``lambda_max(A_SS, B_SS)`` for a matrix); ``info['scores']`` holds ``v``.

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925

    Examples
    --------
    >>> import numpy as np
    >>> path = simple_thresholding_path([1.0, 2.0, 0.5], np.diag([1.0, 8.0, 1.0]))
    >>> path.order.tolist()
    [0, 1, 2]
    >>> path.objective.tolist()
    [1.0, 1.5, 1.75]
    """
    done, A, B = _route(A, B, ["A", "B"], "simple_thresholding_path_xp")
    if done is not None:
        return done
    A0 = np.asarray(A)
    # a square matrix is read as the full symmetric A here (never as a square factor)
    form = "vector" if A0.ndim == 1 else ("full" if A0.ndim == 2 and A0.shape[0] == A0.shape[1] else "factor")
    A, B = check_pair(A0, B, form=form, owner="simple_thresholding_path", identity_ok=False)
    p = A.shape[0]
    s, U = sla.eigh(B)
    ratio = float(s[0] / s[-1]) if s[-1] > 0 else 0.0
    if not ratio > p * _EPS:
        raise ValueError(_SINGULAR.format(name="simple_thresholding_path", ratio=ratio))
    B_isqrt = (U / np.sqrt(s)) @ U.T
    if A.ndim == 1:
        v = B_isqrt @ A  # C = (B^{-1/2} a)(B^{-1/2} a)^T: its principal eigenvector
    elif A.shape[1] == p:
        C = B_isqrt @ A @ B_isqrt
        v = sla.eigh((C + C.T) / 2, subset_by_index=[p - 1, p - 1])[1][:, 0]
    else:
        v = sla.svd(B_isqrt @ A, full_matrices=False)[0][:, 0]
    order = _ranking(v)
    objective, info = _prefix_objectives(A, B, order)
    info = dict(info, scores=v)
    return SparsePath(order=order, objective=objective, direction="simple", A=A, B=B, info=info)
