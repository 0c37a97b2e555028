"""Randomized block Krylov SVD of a (implicitly centred) data matrix, for NumPy and Dask.

The method is Musco and Musco's block Krylov iteration ("Randomized block Krylov methods for
stronger and faster approximate singular value decomposition", NeurIPS 2015), run in the
*feature* space: with ``G = A_c^T A_c`` (``A_c`` the column-centred data, never formed) and a
Gaussian start block ``X_0`` of shape ``(p, b)``, the basis ``Q`` of the Krylov space
``span{X_0, G X_0, ..., G^q X_0}`` is built block by block, each new block orthogonalised
against all earlier ones (block Lanczos with full reorthogonalisation), and the Rayleigh-Ritz
step takes the eigen-decomposition of the small Gram matrix ``(A_c Q)^T (A_c Q)`` (one more
pass; for Dask a reduction over the row chunks). All orthonormalisations are Gram/``eigh`` based
(two passes, as CholeskyQR2), i.e. matrix products only.

Centring is implicit: ``A_c X = A X - 1 (mu^T X)`` and ``A_c^T Y = A^T Y - mu (1^T Y)``, so the
only arrays of the data's size are the data themselves. The passes over the data are the
statistics of :mod:`pixsel.stats` (``column_moments``, ``centered_gram_matmat``,
``centered_projected_gram``); this kernel only orthonormalises small blocks. Each application of ``G`` is one pass
over the data; the total is ``q + 3`` passes (mean, column norms, ``q`` Krylov steps, one
Rayleigh-Ritz step). For Dask input every pass is a reduction over row chunks whose result is a
small ``(p, b)`` or ``(s, s)`` NumPy array, so peak memory is a few chunks plus ``O(p s)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from array_api_compat import array_namespace

from .._routes import placement
from .._array_api import (
    call_on_host, from_numpy, get_namespace, has_float64, is_numpy, sign_flip, to_numpy,
)
from .._threads import blas_limit
from ..stats import centered_gram_matmat, centered_projected_gram, column_moments

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["KrylovSVD", "block_krylov_svd"]


@dataclass(frozen=True)
class KrylovSVD:
    """Top singular triplets (without the left vectors) of the (centred) data.

    Attributes
    ----------
    singular_values : ndarray of shape (rank,)
        Decreasing approximate singular values of ``A_c``.
    components : ndarray of shape (rank, n_features)
        Approximate top right singular vectors as rows (``V_m^T``), sign fixed so that the
        entry of largest magnitude of each row is positive (lowest index on ties).
    mean : ndarray of shape (n_features,)
        Column means that were subtracted (zeros when ``center=False``).
    column_sq_norms : ndarray of shape (n_features,)
        ``||A_c[:, i]||^2``, the squared norm of each centred column.
    n_iter : int
        Number of Krylov steps (applications of ``A_c^T A_c``) performed.
    krylov_dim : int
        Dimension of the Krylov basis used for the Rayleigh-Ritz step.
    """

    singular_values: np.ndarray
    components: np.ndarray
    mean: np.ndarray
    column_sq_norms: np.ndarray
    n_iter: int
    krylov_dim: int

    @property
    def frobenius_sq(self) -> float:
        """``||A_c||_F^2``, the sum of the squared column norms (all singular values squared)."""
        return float(to_numpy(self.column_sq_norms, np.float64).sum())


def _small_eigh(xp, G, threads):
    """``eigh`` of a small symmetric matrix, on ``threads`` BLAS threads (None: unchanged).

    One thread on big problems: BLAS threads only add overhead at this size (10x on a busy
    machine). Scoped to the call, no global state changes (a no-op off the CPU's BLAS)."""
    with blas_limit(threads if is_numpy(xp) else None):
        return xp.linalg.eigh(G)


def _take_cols(xp, W, keep):
    """``W[:, keep]`` for a boolean ``keep`` (the standard indexes one axis by integers only)."""
    return xp.take(W, xp.nonzero(keep)[0], axis=1)


def _orth_gram(xp, W, drop_below, threads=None):
    """Orthonormalise the columns of ``W`` through the eigen-decomposition of ``W^T W``.

    Two passes (the second, on nearly orthonormal columns, restores orthogonality to rounding,
    as in CholeskyQR2). Only GEMMs and a small ``eigh``: LAPACK's tall-skinny QR/SVD were 10-50x
    slower than this on the shared benchmark machine. Directions with singular value
    ``<= drop_below`` are dropped in the first pass.
    """
    for first in (True, False):
        evals, V = _small_eigh(xp, W.T @ W, threads)
        keep = evals > (drop_below ** 2 if first else 0.0)
        W = W @ (_take_cols(xp, V, keep) / xp.sqrt(evals[keep]))
    return W


def _orthonormal_block(xp, W, Q_prev, tol, threads=None):
    """Orthonormal basis of the part of ``W`` orthogonal to ``Q_prev``.

    Classical Gram-Schmidt against ``Q_prev`` twice ("twice is enough"), the second pass on the
    already normalised block. A column that the first projection shrinks below ``1e-12`` of its
    norm is rounding noise (the Krylov space is exhausted in that direction) and is dropped; the
    rest are scaled to unit norm (so that small but genuine new directions are not mistaken for
    noise when the spectrum spans many orders of magnitude) and orthonormalised, dropping
    directions with singular value below ``tol``.
    """
    before = xp.linalg.vector_norm(W, axis=0)
    if Q_prev is not None:
        W = W - Q_prev @ (Q_prev.T @ W)
    after = xp.linalg.vector_norm(W, axis=0)
    keep = (after > 1e-12 * before) & (before > 0)
    if not bool(xp.any(keep)):
        return W[:, :0]
    U = _orth_gram(xp, _take_cols(xp, W, keep) / after[keep], tol, threads)
    if Q_prev is not None and U.shape[1]:
        U = _orth_gram(xp, U - Q_prev @ (Q_prev.T @ U), 0.0, threads)
    return U


def block_krylov_svd(
    A: ArrayLike,
    rank: int,
    *,
    n_iter: int = 4,
    block_size: int | None = None,
    center: bool = True,
    random_state: int | np.random.RandomState | None = None,
    moments: Any = None,
) -> KrylovSVD:
    """Top ``rank`` singular values and right singular vectors of the centred data.

    Unchecked kernel: ``A`` must be a finite 2-D float array (NumPy or Dask) and
    ``1 <= rank < min(n_samples, n_features)``; the estimators validate before calling it.

    Parameters
    ----------
    A : ndarray, dask array or array-API array of shape (n_samples, n_features)
        Data, one sample per row. Never modified, never copied whole. Another array library
        (PyTorch, CuPy...) runs the passes over the data on A's device in A's dtype and the
        small-block linear algebra there in float64 (float32 on a device without it); the
        Gaussian start block is drawn by NumPy, so a seed gives the same iteration everywhere.
    rank : int
        Number of singular triplets ``m``.
    n_iter : int, default=4
        Krylov steps ``q``: the basis spans ``X_0, G X_0, ..., G^q X_0``.
    block_size : int, default=None
        Columns of the Gaussian start block; ``None`` means ``rank + 10``.
    center : bool, default=True
        Subtract the column means implicitly.
    random_state : numpy.random.Generator, RandomState, int or None
        Seed of the Gaussian start block (drawn with ``standard_normal``, so NumPy and Dask
        input given the same seed run the same iteration).
    moments : tuple of (mean, column_sq_norms), optional
        Precomputed output of :func:`pixsel.stats.column_moments` (saves two passes).

    Returns
    -------
    KrylovSVD

    References
    ----------
    * C. Musco and C. Musco, "Randomized block Krylov methods for stronger and faster approximate
      singular value decomposition", Advances in Neural Information Processing Systems 28 (NIPS),
      2015.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((60, 8)) @ np.diag([9, 7, 5, 1, 1, 1, 1, 1.0])
    >>> res = block_krylov_svd(A, 3, random_state=0)
    >>> exact = np.linalg.svd(A - A.mean(0), compute_uv=False)[:3]
    >>> bool(np.allclose(res.singular_values, exact))
    True
    """
    n, p = A.shape
    xp, dev = get_namespace(A, names=["A"])
    if placement(xp, dev, family="scores") == "host":  # NumPy's code on a view of A
        return call_on_host(block_krylov_svd, xp, dev, A, rank, n_iter=n_iter, block_size=block_size,
                            center=center, random_state=random_state, moments=moments,
                            dtype=xp.float64 if has_float64(xp, dev) else xp.float32)
    if moments is None:
        moments = column_moments(A, center=center)
    mean, ss = moments
    if is_numpy(xp):
        xp = array_namespace(np.empty(0))  # the standard's names for NumPy (thin wrappers)
        hi = np.float64
    else:  # the small-block linear algebra in float64 where the device has it (as on NumPy)
        hi = xp.float64 if has_float64(xp, dev) else xp.float32
        ss = xp.astype(ss, hi)
    rng = random_state if isinstance(random_state, (np.random.Generator, np.random.RandomState)) \
        else np.random.default_rng(random_state)
    b = rank + 10 if block_size is None else int(block_size)
    b = max(rank, min(b, p))
    s_max = p  # an orthonormal basis of R^p has at most p vectors

    if not bool(xp.any(ss > 0)):
        raise ValueError(
            "Every feature of X is constant, so there is no variance to decompose; remove constant "
            "features (sklearn.feature_selection.VarianceThreshold) or check the data."
        )
    tol = 1e-7  # singular value (of unit columns) below which a direction is dependent
    # constant columns lie in the null space of A_c: keep them out of the Krylov space exactly,
    # so that their leverage is exactly zero whatever the convergence
    live = (ss > 0)[:, None]

    def zero_dead(M):  # rows of constant features: exactly zero
        return xp.where(live, M, xp.zeros_like(M))

    # the start block is drawn on the host (the same seed gives the same iteration everywhere)
    X = zero_dead(from_numpy(xp, rng.standard_normal((p, b)), dev, dtype=hi))
    ctl = 1 if p * b >= 1 << 17 else None  # one BLAS thread for the small eigh: only worth it on big problems
    # rounding-level entries only on dead rows (the exact basis has zero rows there)
    blocks = [zero_dead(_orthonormal_block(xp, X, None, tol, ctl))]
    steps = 0
    for _ in range(n_iter):
        dim = sum(B.shape[1] for B in blocks)
        if dim >= s_max or blocks[-1].shape[1] == 0:
            break
        W = zero_dead(centered_gram_matmat(A, blocks[-1], mean))
        steps += 1
        W = W[:, : min(s_max - dim, W.shape[1])]
        blocks.append(zero_dead(_orthonormal_block(xp, W, xp.concat(blocks, axis=1), tol, ctl)))
    Q = xp.concat(blocks, axis=1)

    G = centered_projected_gram(A, Q, mean)
    # Rayleigh-Ritz on the Krylov space: eigenpairs of Q^T A_c^T A_c Q (same code for Dask)
    evals, W = _small_eigh(xp, (G + G.T) / 2, ctl)
    order = xp.flip(xp.argsort(evals, stable=True))[:rank]
    sv = xp.sqrt(xp.clip(xp.take(evals, order), min=0.0))
    W = xp.take(W, order, axis=1)
    Vt = sign_flip(xp, (Q @ W).T)
    if is_numpy(xp):
        Vt, sv = np.asarray(Vt), np.asarray(sv, dtype=np.float64)
    return KrylovSVD(
        singular_values=sv,
        components=Vt,
        mean=mean,
        column_sq_norms=ss,
        n_iter=steps,
        krylov_dim=Q.shape[1],
    )
