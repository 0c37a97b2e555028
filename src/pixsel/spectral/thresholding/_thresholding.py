"""Continuous baselines made sparse by thresholding, renormalized on every prefix (Moghaddam, Weiss and Avidan, 2006).

Both rank the features by the magnitude of a dense direction and then evaluate every prefix of
that ranking with the exact objective (variational renormalization: the best weights on the
prefix, not the truncated dense weights), so their paths are comparable with the greedy ones.

* Fisher thresholding ranks ``|B^{-1} a|``, the dense Fisher discriminant.
* Simple thresholding (ST, Moghaddam, Weiss and Avidan, 2006, section 2) ranks ``|v|``, ``v`` the principal eigenvector of
  ``C = B^{-1/2} A B^{-1/2}`` (symmetric square root).

One implementation, written against the array API standard, serves NumPy arrays and the arrays
of another library on their device (PyTorch, CuPy, array-api-strict; NumPy 2 is itself an
array-API namespace): the dense direction (``B^{-1} a`` by a Cholesky-checked ``solve``; ``v``
from ``B^{-1/2}`` by one ``eigh`` of ``B``) is computed where the arrays live, the ranking on the
host (``p`` numbers, a stable sort, ties to the lowest index), the path itself is NumPy host
metadata. Arrays of another library on a CPU run on NumPy views of them (the CPU policy of
:mod:`pixsel._array_api`).

Prefix objectives for a vector ``a`` come from the forward elimination of the binary greedy
kernel run in the prescribed order (:mod:`pixsel.spectral.greedy._rank_one`, compiled or NumPy
by the greedy family's size rule, or its array-API kernel on a device): one incremental
Cholesky, ``O(p^3)`` for all ``p`` prefixes instead of ``p`` separate solves. For a matrix or a
factor, one generalized ``eigh`` per prefix (``O(p^4)``; the shim of :mod:`pixsel.spectral._linalg`).
"""

from __future__ import annotations

import numpy as np

from ..._array_api import device_of, get_namespace, has_float64, host_view, is_numpy, to_numpy
from ..._routes import choose
from ..._validation import check_pair
from .._linalg import spd_solve, support_objective
from .._path import SparsePath
from ..greedy import check_form_pair_xp, prefix_objectives, rank_one_path_xp

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["fisher_thresholding_path", "simple_thresholding_path"]

_SINGULAR = (
    "{name} needs B^{{-1}} but B is singular or numerically singular (smallest/largest eigenvalue "
    "{ratio:.3g}). Regularize B first: regularization='auto' in SparseLDASelector, or "
    "pixsel.stats.regularize(B, 'auto')."
)


def _form(A):
    """The form of ``A`` here: a square matrix is the full symmetric ``A`` (never a square factor)."""
    shape = A.shape if hasattr(A, "shape") else np.shape(A)
    return "vector" if len(shape) == 1 else ("full" if len(shape) == 2 and shape[0] == shape[1] else "factor")


def _checked(A, B, names, form, owner):
    """``(xp, A, B)`` checked, where the thresholding family runs on them
    (:func:`pixsel._routes.choose`): float64 NumPy arrays (NumPy input, or host views of another
    library's CPU arrays), or the device arrays in the widest float the device has."""
    xp, dev = get_namespace(A, B, names=names)
    backend = choose("thresholding", xp=xp, device=dev).backend
    if backend == "device":  # CUDA, CuPy (or forced): on their device
        if B is None:
            raise ValueError(f"{owner} needs B; pass the identity for B = I.")
        check_form_pair_xp(xp, A, B, owner, form=form)
        hi = xp.float64 if has_float64(xp, dev) else xp.float32
        return xp, xp.astype(A, hi), xp.astype(B, hi)
    if backend == "host":  # the CPU policy: NumPy's arrays are views
        A, B = host_view(A), host_view(B)
    A, B = check_pair(A, B, form=form, owner=owner, identity_ok=False)
    return np, A, B


def _ratio_floor(xp, M):
    """``p`` machine epsilons of ``M``'s dtype: ``B`` is numerically singular below it."""
    return M.shape[0] * float(np.finfo(np.float64 if M.dtype == xp.float64 else np.float32).eps)


def _ranking(scores):
    """Indices by decreasing ``|scores|``; ties to the lowest index (stable sort)."""
    return np.argsort(-np.abs(scores), kind="stable")


def _path(xp, A, B, order, direction, scores):
    """The path of ``order``: ``f`` of every prefix, by the fixed-order forward elimination for a
    vector, by a generalized eigenproblem per prefix for a matrix or a factor."""
    if A.ndim == 1 and is_numpy(xp):
        objective, info = prefix_objectives(A, B, order)
    elif A.ndim == 1:
        _, objective, info = rank_one_path_xp(xp, device_of(A), A, B, "forward", fixed_order=order)
    else:
        objective = np.array([support_objective(xp, A, B, order[:k]) for k in range(1, A.shape[0] + 1)])
        info = {} if is_numpy(xp) else {"array_api": True}
    return SparsePath(order=order, objective=objective, direction=direction, A=to_numpy(A, np.float64),
                      B=to_numpy(B, np.float64), info=dict(info, scores=scores))


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
    name = "fisher_thresholding_path"
    xp, a, B = _checked(a, B, ["a", "B"], "vector", name)
    try:
        L = xp.linalg.cholesky(B)
    except Exception:  # any library's Cholesky failure (NumPy's LinAlgError, PyTorch's, CuPy's)
        raise ValueError(_SINGULAR.format(name=name, ratio=0.0)) from None
    ratio = float(xp.min(xp.linalg.diagonal(L)) ** 2 / xp.max(xp.abs(xp.linalg.diagonal(B))))
    if not ratio > _ratio_floor(xp, B):
        raise ValueError(_SINGULAR.format(name=name, ratio=ratio))
    z = to_numpy(spd_solve(xp, B, L, a), np.float64)
    return _path(xp, a, B, _ranking(z), "fisher", z)


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
    name = "simple_thresholding_path"
    form = _form(A)
    xp, A, B = _checked(A, B, ["A", "B"], form, name)
    s, U = xp.linalg.eigh(B)
    s_min, s_max = float(s[0]), float(s[-1])
    ratio = s_min / s_max if s_max > 0 else 0.0
    if not ratio > _ratio_floor(xp, B):
        raise ValueError(_SINGULAR.format(name=name, ratio=ratio))
    B_isqrt = (U / xp.sqrt(s)[None, :]) @ U.T
    if form == "vector":
        v = B_isqrt @ A  # C = (B^{-1/2} a)(B^{-1/2} a)^T: its principal eigenvector
    elif form == "full":
        C = B_isqrt @ A @ B_isqrt
        v = xp.linalg.eigh((C + C.T) / 2)[1][:, -1]  # the standard has no subset eigh: the full one
    else:
        v = xp.linalg.svd(B_isqrt @ A, full_matrices=False)[0][:, 0]
    vh = to_numpy(v, np.float64)
    return _path(xp, A, B, _ranking(vh), "simple", vh)
