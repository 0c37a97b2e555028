"""The result of a greedy (or thresholding) path: one nested or non-nested support per k."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._array_api import get_namespace, is_numpy
from .._validation import check_int
from ._criteria import as_criterion
from ._linalg import support_weights

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from ._criteria import Criterion

__all__ = ["SparsePath", "best_objective", "objective_on_support", "pick_path", "weights_on_support"]


def _as_problem(A, B):
    A = np.asarray(A, dtype=np.float64)
    return A, None if B is None else np.asarray(B, dtype=np.float64)


def weights_on_support(A: ArrayLike, B: ArrayLike, support: ArrayLike) -> NDArray:
    """Optimal weights (variational renormalization) of the pair ``(A, B)`` on ``support``.

    For a vector ``A = a`` this is the discriminant ``z = B_SS^{-1} a_S`` (the minimum-norm least
    squares solution when ``B_SS`` is singular); for a matrix ``A`` it is the principal generalized
    eigenvector of ``(A_SS, B_SS)`` normalized to ``z^T B_SS z = 1``, its largest entry positive.
    The returned vector has length ``p`` and is zero off the support. Arrays of another library
    (a device array) give the same vector in that library, on that device.

    Examples
    --------
    >>> import numpy as np
    >>> weights_on_support(np.array([1.0, 2.0, 3.0]), np.diag([1.0, 4.0, 1.0]), [0, 1]).tolist()
    [1.0, 0.5, 0.0]
    """
    xp, _ = get_namespace(A, B, names=["A", "B"])
    if is_numpy(xp):
        A, B = _as_problem(A, B)
    return support_weights(xp, A, B, support)


def objective_on_support(
    A: ArrayLike,
    B: ArrayLike,
    support: ArrayLike,
    *,
    criterion: str | Criterion = "max-eig",
) -> float:
    """The objective of the pair on ``support`` by a direct (from scratch) computation.

    ``a_S^T B_SS^{-1} a_S`` for a vector ``a``, ``lambda_max(A_SS, B_SS)`` for a matrix
    (``criterion='max-eig'``) or the sum of the generalized eigenvalues ``tr(B_SS^{-1} A_SS)``
    (``criterion='trace'``; the same for a vector). A non-square ``A`` is a factor ``M`` with
    ``A = M M^T``. This is the oracle every incremental kernel is checked against.

    Examples
    --------
    >>> import numpy as np
    >>> objective_on_support(np.array([1.0, 2.0]), np.diag([1.0, 4.0]), [0, 1])
    2.0
    >>> objective_on_support(np.diag([2.0, 3.0]), None, [0, 1], criterion="trace")
    5.0
    """
    return as_criterion(criterion, owner="objective_on_support").value(A, B, support)


@dataclass
class SparsePath:
    """A path of supports, one for every cardinality ``k = 1..p``.

    Attributes
    ----------
    order : ndarray of shape (p,)
        Forward: the indices in the order they were added. Backward: the indices in the order
        they were removed, the last survivor last. Thresholding: the ranking, best first.
    objective : ndarray of shape (p,)
        ``objective[k - 1]`` is the objective of the size-``k`` support of this path.
    direction : str
        ``'forward'``, ``'backward'``, ``'fisher'``, ``'simple'``...
    upper_bound : ndarray of shape (p,) or None
        A certified upper bound on the best objective over *all* supports of size ``k``.
    """

    order: np.ndarray
    objective: np.ndarray
    direction: str
    A: np.ndarray = field(repr=False)
    B: np.ndarray | None = field(repr=False, default=None)
    upper_bound: np.ndarray | None = None
    info: dict = field(default_factory=dict, repr=False)

    @property
    def n_features(self) -> int:
        return len(self.order)

    @property
    def gap(self):
        """``upper_bound - objective`` per k (None without a bound)."""
        return None if self.upper_bound is None else self.upper_bound - self.objective

    def _check_k(self, k):
        return check_int(k, "k", low=1, high=self.n_features, owner="SparsePath")

    def support(self, k: int) -> NDArray:
        """Sorted indices of the size-``k`` support."""
        k = self._check_k(k)
        searched = self.info.get("supports")  # beam search or swaps: a support per size, not nested
        if searched is not None and k in searched:
            return np.sort(searched[k])
        if self.direction == "backward":
            S = self.order[self.n_features - k :]
        else:
            S = self.order[:k]
        return np.sort(S)

    def weights(self, k: int) -> NDArray:
        """Renormalized weights on the size-``k`` support (zero elsewhere), length ``p``."""
        return weights_on_support(self.A, self.B, self.support(k))


def pick_path(forward: SparsePath | None, backward: SparsePath | None, k: int) -> SparsePath | None:
    """The path with the larger objective at ``k`` (ties go to ``backward``); either may be None.

    A path shorter than ``k`` (a forward pass stopped at ``max_k``) does not compete.
    """
    if forward is not None and len(forward.objective) < k:
        forward = None
    if backward is not None and len(backward.objective) < k:
        backward = None
    if forward is None:
        return backward
    if backward is None:
        return forward
    return backward if backward.objective[k - 1] >= forward.objective[k - 1] else forward


def best_objective(*paths: SparsePath | None) -> NDArray:
    """Per ``k``, the best objective of the given paths (None skipped), as long as the longest."""
    objs = [p.objective for p in paths if p is not None]
    out = np.full(max(len(o) for o in objs), -np.inf)
    for o in objs:
        out[: len(o)] = np.maximum(out[: len(o)], o)
    return out
