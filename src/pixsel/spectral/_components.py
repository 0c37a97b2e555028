"""Sparse principal components of a covariance: the leading eigenpair on a support, GSPCA's
component of exactly ``k`` loadings."""

from __future__ import annotations

import numpy as np

from .._array_api import get_namespace, is_numpy
from .._validation import sign_flip
from ._dispatch import greedy_path
from ._linalg import submatrix, top_eigh
from ._path import pick_path, weights_on_support

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from ._path import SparsePath

__all__ = ["DIRECTIONS", "greedy_sparse_component", "leading_component"]

#: The passes of :func:`greedy_sparse_component` (``'dual'``: both, the better one at ``k``).
DIRECTIONS = ("forward", "backward", "dual")


def leading_component(C: Any, S: ArrayLike) -> tuple[float, Any]:
    """``(lambda_max(C_SS), v)``: the top eigenpair of ``C`` on ``S``, ``v`` of length ``p``, unit
    norm, zero off ``S``, its largest-magnitude entry positive (in C's library)."""
    xp, _ = get_namespace(C, names=["C"])
    if not is_numpy(xp):
        w, v = top_eigh(xp, submatrix(xp, C, S))
        z = weights_on_support(C, None, S)  # the same vector, scattered to length p
        return w, z
    w, U = np.linalg.eigh(C[np.ix_(S, S)])
    v = np.zeros(C.shape[0])
    v[S] = sign_flip(U[:, -1])
    return float(w[-1]), v


def greedy_sparse_component(
    C: Any, k: int, direction: Literal["forward", "backward", "dual"], *, certificate: str | None = None,
    route: Any = None,
) -> tuple[SparsePath | None, SparsePath | None, SparsePath, float, Any]:
    """GSPCA's first sparse component of a covariance ``C`` with exactly ``k`` loadings.

    The greedy pass(es) of ``direction`` (forward to ``k`` only), the better one at ``k`` (ties
    to backward) and the leading eigenpair on its support. Used by
    :class:`pixsel.selection.SparsePCASelector` and, once per deflated component, by
    :class:`pixsel.decomposition.GreedySparsePCA`.

    Returns
    -------
    forward, backward : SparsePath or None
    best : SparsePath
    variance : float
        ``lambda_max(C_SS)`` of the chosen support ``S = best.support(k)``.
    component : ndarray of shape (p,)

    ``route`` (a :class:`pixsel._routes.Route`, the fit's) is passed to
    :func:`pixsel.spectral.greedy_path`; None lets it ask the route table.

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Spectral bounds for sparse PCA: exact and greedy
      algorithms", Advances in Neural Information Processing Systems 18 (NIPS), 2005.
    * B. Moghaddam, Y. Weiss and S. Avidan, "Fast pixel/part selection with sparse eigenvectors",
      IEEE International Conference on Computer Vision (ICCV), 2007.
    """
    fwd = bwd = None
    if direction in ("forward", "dual"):
        fwd = greedy_path(C, direction="forward", form="full", max_k=k, certificate=certificate, route=route)
    if direction in ("backward", "dual"):
        bwd = greedy_path(C, direction="backward", form="full", certificate=certificate, route=route)
    best = pick_path(fwd, bwd, k)
    variance, component = leading_component(C, best.support(k))
    return fwd, bwd, best, variance, component
