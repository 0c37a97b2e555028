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

from .._threads import blas_limit
from .._validation import sign_flip
from ..stats import centered_gram_matmat, centered_projected_gram, column_moments

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
        return float(np.sum(self.column_sq_norms))


def _small_eigh(G, threads):
    """``eigh`` of a small symmetric matrix, on ``threads`` BLAS threads (None: unchanged).

    One thread on big problems: BLAS threads only add overhead at this size (10x on a busy
    machine). Scoped to the call, no global state changes."""
    with blas_limit(threads):
        return np.linalg.eigh(G)


def _orth_gram(W, drop_below, threads=None):
    """Orthonormalise the columns of ``W`` through the eigen-decomposition of ``W^T W``.

    Two passes (the second, on nearly orthonormal columns, restores orthogonality to rounding,
    as in CholeskyQR2). Only GEMMs and a small ``eigh``: LAPACK's tall-skinny QR/SVD were 10-50x
    slower than this on the shared benchmark machine. Directions with singular value
    ``<= drop_below`` are dropped in the first pass.
    """
    for first in (True, False):
        evals, V = _small_eigh(W.T @ W, threads)
        keep = evals > (drop_below ** 2 if first else 0.0)
        W = W @ (V[:, keep] / np.sqrt(evals[keep]))
    return W


def _orthonormal_block(W, Q_prev, tol, threads=None):
    """Orthonormal basis of the part of ``W`` orthogonal to ``Q_prev``.

    Classical Gram-Schmidt against ``Q_prev`` twice ("twice is enough"), the second pass on the
    already normalised block. A column that the first projection shrinks below ``1e-12`` of its
    norm is rounding noise (the Krylov space is exhausted in that direction) and is dropped; the
    rest are scaled to unit norm (so that small but genuine new directions are not mistaken for
    noise when the spectrum spans many orders of magnitude) and orthonormalised, dropping
    directions with singular value below ``tol``.
    """
    before = np.linalg.norm(W, axis=0)
    if Q_prev is not None:
        W = W - Q_prev @ (Q_prev.T @ W)
    after = np.linalg.norm(W, axis=0)
    keep = (after > 1e-12 * before) & (before > 0)
    if not np.any(keep):
        return W[:, :0]
    U = _orth_gram(W[:, keep] / after[keep], tol, threads)
    if Q_prev is not None and U.shape[1]:
        U = _orth_gram(U - Q_prev @ (Q_prev.T @ U), 0.0, threads)
    return U


def block_krylov_svd(A, rank, *, n_iter=4, block_size=None, center=True, random_state=None,
                     moments=None):
    """Top ``rank`` singular values and right singular vectors of the centred data.

    Unchecked kernel: ``A`` must be a finite 2-D float array (NumPy or Dask) and
    ``1 <= rank < min(n_samples, n_features)``; the estimators validate before calling it.

    Parameters
    ----------
    A : ndarray or dask array of shape (n_samples, n_features)
        Data, one sample per row. Never modified, never copied whole.
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
    if moments is None:
        moments = column_moments(A, center=center)
    mean, ss = moments
    rng = random_state if isinstance(random_state, (np.random.Generator, np.random.RandomState)) \
        else np.random.default_rng(random_state)
    b = rank + 10 if block_size is None else int(block_size)
    b = max(rank, min(b, p))
    s_max = p  # an orthonormal basis of R^p has at most p vectors

    if not np.any(ss > 0):
        raise ValueError(
            "Every feature of X is constant, so there is no variance to decompose; remove constant "
            "features (sklearn.feature_selection.VarianceThreshold) or check the data."
        )
    tol = 1e-7  # singular value (of unit columns) below which a direction is dependent
    # constant columns lie in the null space of A_c: keep them out of the Krylov space exactly,
    # so that their leverage is exactly zero whatever the convergence
    live = ss > 0
    X = rng.standard_normal((p, b))
    X[~live] = 0.0
    ctl = 1 if p * b >= 1 << 17 else None  # one BLAS thread for the small eigh: only worth it on big problems
    blocks = [_orthonormal_block(X, None, tol, ctl)]
    blocks[0][~live] = 0.0  # rounding-level entries only (the exact basis has zero rows there)
    steps = 0
    for _ in range(n_iter):
        dim = sum(B.shape[1] for B in blocks)
        if dim >= s_max or blocks[-1].shape[1] == 0:
            break
        W = centered_gram_matmat(A, blocks[-1], mean)
        W[~live] = 0.0
        steps += 1
        W = W[:, : s_max - dim]
        blocks.append(_orthonormal_block(W, np.hstack(blocks), tol, ctl))
        blocks[-1][~live] = 0.0
    Q = np.hstack(blocks)

    G = centered_projected_gram(A, Q, mean)
    # Rayleigh-Ritz on the Krylov space: eigenpairs of Q^T A_c^T A_c Q (same code for Dask)
    evals, W = _small_eigh((G + G.T) / 2, ctl)
    order = np.argsort(evals, kind="stable")[::-1][:rank]
    sv = np.sqrt(np.clip(evals[order], 0.0, None))
    W = W[:, order]
    Vt = sign_flip((Q @ W).T)
    return KrylovSVD(
        singular_values=np.asarray(sv, dtype=np.float64),
        components=Vt,
        mean=mean,
        column_sq_norms=ss,
        n_iter=steps,
        krylov_dim=Q.shape[1],
    )
