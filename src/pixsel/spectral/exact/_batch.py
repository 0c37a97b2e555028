"""Certified paths of many small problems at once: :func:`exact_path_batch`.

:func:`exact_path` pays, per call, for validation, the greedy seeds through the public paths, the
result objects and the chunked kernel's bookkeeping, which for a 16-variable pair costs more
than the search itself. Studies that solve thousands of small pairs (the Monte Carlo study of Moghaddam, Weiss and Avidan 2006:
50,000 pairs of size 16) need the opposite trade: one validation for the whole stack and one
compiled loop over the pairs (:mod:`._batch_numba`), with no limits (a pair of at most
:data:`MAX_FEATURES` variables always completes) and plain arrays out.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..._routes import require_compiled
from ..._validation import check_real
from . import _batch_numba

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["ExactPathBatch", "exact_path_batch"]

#: the kernel keeps supports as bit masks and has no limits: above this size use exact_path
MAX_FEATURES = 20
#: sizes up to this are enumerated (cheap Cholesky tests) before the tree
_KENUM = 6


@dataclass
class ExactPathBatch:
    """The outcome of :func:`exact_path_batch`: for every pair and every size its optimum.

    Attributes
    ----------
    objective : ndarray of shape (n_pairs, p)
        ``objective[n, k - 1]``: the optimum ``max_{|S| = k} lambda_max(A_SS, B_SS)`` of pair
        ``n``, recomputed from scratch on ``support_mask[n, k - 1]``.
    support_mask : ndarray of bool of shape (n_pairs, p, p)
        ``support_mask[n, k - 1]``: an optimal support of size ``k``.
    greedy_forward, greedy_backward : ndarray of shape (n_pairs, p)
        The objectives of the forward and backward greedy supports (the dual pass of Moghaddam, Weiss and Avidan 2006,
        the same supports as :func:`~pixsel.spectral.greedy_path` up to rounding ties): the seeds
        of the search, returned because studies compare against them.
    n_nodes : ndarray of int of shape (n_pairs,)
        Search-tree nodes expanded per pair (one generalized eigendecomposition each).
    time : float
        Wall-clock seconds for the whole stack.
    """

    objective: np.ndarray
    support_mask: np.ndarray
    greedy_forward: np.ndarray
    greedy_backward: np.ndarray
    n_nodes: np.ndarray
    time: float

    def support(self, n: int, k: int) -> np.ndarray:
        """The sorted indices of the optimal support of size ``k`` of pair ``n``."""
        return np.flatnonzero(self.support_mask[n, k - 1])


def _as_stack(M, name, owner):
    arr = np.asarray(M)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got dtype {arr.dtype}.")
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2]:
        raise ValueError(
            f"{owner} takes a stack of symmetric matrices: {name} must have shape (n_pairs, p, p); "
            f"got {arr.shape}. Pass A[None] for a single pair."
        )
    arr = arr.astype(np.float64)  # a private copy: the caller's arrays are never written to
    bad = ~np.isfinite(arr)
    if np.any(bad):
        n, i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name} must be finite; {name}[{n}, {i}, {j}] is {arr[n, i, j]}.")
    asym = np.abs(arr - arr.transpose(0, 2, 1)).max(axis=(1, 2))
    scale = np.maximum(np.abs(arr).max(axis=(1, 2)), np.finfo(float).tiny)
    if np.any(asym > 1e-8 * scale):
        n = int(np.argmax(asym > 1e-8 * scale))
        raise ValueError(
            f"{name}[{n}] must be symmetric; its largest asymmetry is {asym[n]:.3g} (relative "
            f"{asym[n] / scale[n]:.3g}). Pass (M + M.T) / 2 if the asymmetry is rounding."
        )
    return np.ascontiguousarray((arr + arr.transpose(0, 2, 1)) / 2)


def exact_path_batch(A: ArrayLike, B: ArrayLike | None = None, *, rtol: float = 1e-12) -> ExactPathBatch:
    """The certified best support of every size for a stack of small pairs, in one compiled loop.

    For each pair ``n`` and each ``k = 1..p``: ``max lambda_max(A[n]_SS, B[n]_SS)`` over
    ``|S| = k`` (the ``'max-eig'`` problem of :func:`exact_path` for a full symmetric ``A``).
    Per pair: the forward and backward greedy supports seed one incumbent per size, sizes 1 and 2
    are enumerated, then one leaps-and-bounds search over the "dropping" tree certifies every
    other size (inclusion bound; each node's children valued by a secular equation from the
    node's eigendecomposition, see :mod:`pixsel.spectral.exact._batch_numba`). BLAS is not used
    inside the loop, so running several processes side by side scales.

    Parameters
    ----------
    A : array-like of shape (n_pairs, p, p)
        Symmetric matrices (any sign), ``p <= 20``.
    B : array-like of shape (n_pairs, p, p) or None
        Symmetric positive definite matrices; ``None`` means the identity for every pair.
    rtol : float, default 1e-12
        A subtree is discarded when its bound is at most ``thr * (1 + rtol)`` (``thr`` the
        incumbent it must beat): the optimum is certified up to this relative rounding margin.

    Returns
    -------
    ExactPathBatch
        Optimal objectives and supports per pair and size, the greedy seeds' objectives and the
        nodes per pair. There are no limits: every pair completes (at most ``2^p`` nodes).

    See Also
    --------
    exact_path : one pair, any size up to 256 features, with limits, progress and certificates.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((3, 20, 6))
    >>> A = X.transpose(0, 2, 1) @ X  # three 6 x 6 covariance-like matrices
    >>> res = exact_path_batch(A)
    >>> res.objective.shape, res.support_mask.shape
    ((3, 6), (3, 6, 6))
    >>> bool(np.all(res.objective >= res.greedy_forward - 1e-9))
    True
    """
    require_compiled("The exact search (exact_path_batch)")  # a compiled branch and bound: Numba is optional
    owner = "exact_path_batch"
    t0 = time.perf_counter()
    A = _as_stack(A, "A", owner)
    N, p = A.shape[0], A.shape[1]
    if p > MAX_FEATURES:
        raise ValueError(
            f"exact_path_batch solves pairs of at most {MAX_FEATURES} features (no limits, every "
            f"search completes); got p = {p}. Use exact_path for each pair instead."
        )
    if p == 0:
        raise ValueError("exact_path_batch needs at least one feature; got p = 0.")
    if B is None:
        B = np.broadcast_to(np.eye(p), (N, p, p)).copy()
    else:
        B = _as_stack(B, "B", owner)
        if B.shape != A.shape:
            raise ValueError(f"A and B must have the same shape (n_pairs, p, p); got {A.shape} and {B.shape}.")
        for n in range(N):  # per pair, to name the one that fails
            try:
                np.linalg.cholesky(B[n])
            except np.linalg.LinAlgError:
                raise ValueError(
                    f"B[{n}] must be positive definite (its Cholesky factorization failed). "
                    "Regularize it, for example with pixsel.stats.regularize(B, 'auto')."
                ) from None
    rtol = check_real(rtol, "rtol", low=0, owner=owner)
    inc, masks, gfw, gbw, nodes = _batch_numba.solve_batch(A, B, rtol, _KENUM)
    bits = (masks[:, 1:, None] >> np.arange(p)) & 1
    return ExactPathBatch(
        objective=inc[:, 1:],
        support_mask=bits.astype(bool),
        greedy_forward=gfw,
        greedy_backward=gbw,
        n_nodes=nodes,
        time=time.perf_counter() - t0,
    )
