"""Reconstruction from sensor readings: the Gaussian conditional and its cross-validated noise level.

The model of :class:`~pixsel.PixelReconstructor`: images ``x ~ N(mean, C)`` with ``C`` the
training covariance, readings ``x_S + noise`` of variance ``s2`` per reading. Every pixel's
conditional mean is ``mean + C_{:,S} K^{-1} (y - mean_S)``, ``K = C_SS + s2 I``, and its
conditional variance ``C_jj - C_{j,S} K^{-1} C_{S,j}``: ridge least squares from the readings.

The noise level is chosen by K-fold cross-validation of the held-out reconstruction error, with
the covariance re-estimated on each fold's training part. Everything the folds need is in the
folds' sums and cross-products with the measured columns (``T_f^T T_{f,S}``, ``p x k``), which
sum to the whole set's, so each fold costs ``O(p k^2 + k^3)`` after them and each candidate noise
level ``O(k^2)`` (no fold is refitted and no held-out image is reconstructed).
"""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, NDArray

__all__ = ["fold_statistics", "noise_cv_errors", "conditional_solve"]


def fold_statistics(A: ArrayLike, n_folds: int, cols: ArrayLike) -> dict:
    """Sums and cross-products with the measured columns of the interleaved folds (row ``i`` in
    fold ``i % n_folds``): what :func:`noise_cv_errors` needs, in one pass over ``A``.

    Parameters
    ----------
    A : array-like of shape (n_samples, n_features)
        Centred data (not modified).
    n_folds : int
    cols : array-like of int
        The measured columns.

    Returns
    -------
    stats : dict
        ``cross`` (list of ``T_f^T T_f[:, cols]``, ``(n_features, len(cols))``), ``sums``
        (``(n_folds, n_features)``, column sums), ``sizes`` (rows) and ``sq`` (squared Frobenius
        norms) of each fold ``T_f``.
    """
    A = np.asarray(A, dtype=np.float64)
    cols = np.asarray(cols, dtype=np.intp)
    out = {"cross": [], "sums": [], "sizes": [], "sq": []}
    for f in range(n_folds):
        T = np.ascontiguousarray(A[f::n_folds])
        out["cross"].append(T.T @ T[:, cols])
        out["sums"].append(T.sum(axis=0))
        out["sizes"].append(T.shape[0])
        out["sq"].append(float(np.einsum("ij,ij->", T, T)))
    out["sums"] = np.asarray(out["sums"])
    return out


def noise_cv_errors(cross: Sequence[ArrayLike], sums: ArrayLike, sizes: Sequence[int], sq: Sequence[float],
                    cols: ArrayLike, grid: Sequence[float], *, rtol: float = 1e-12) -> NDArray:
    """Cross-validated relative reconstruction error of each noise level (sensors fixed).

    Fold ``f`` (rows ``T``, the rest the training part, of ``m`` rows and mean ``mu``) fits the
    covariance ``C`` of its training part and reconstructs its centred held-out rows
    ``R = T - mu`` from their columns ``cols`` with the conditional mean of noise variance
    ``a * trace(C) / p``; the error of ``a`` is ``sqrt(sum_f ||R - R_hat||^2 / sum_f ||R||^2)``.

    Parameters
    ----------
    cross : sequence of array-like of shape (n_features, n_cols)
        ``T_f^T T_f[:, cols]`` of each fold (of the centred data: the rows of all folds sum to 0).
    sums : array-like of shape (n_folds, n_features)
        Column sums of each fold.
    sizes : sequence of int
        Rows of each fold.
    sq : sequence of float
        ``||T_f||_F^2`` of each fold.
    cols : array-like of int
        The measured columns.
    grid : sequence of float
        Noise levels ``a`` (fractions of the mean pixel variance).
    rtol : float, default=1e-12
        Eigenvalues of ``C_SS + a s I`` below ``rtol`` times the largest are dropped (pseudo-inverse).

    Returns
    -------
    errors : ndarray of shape (len(grid),)
    """
    cols = np.asarray(cols, dtype=np.intp)
    sums = np.asarray(sums, dtype=np.float64)
    grid = np.asarray(grid, dtype=np.float64)
    n = int(np.sum(sizes))
    p = sums.shape[1]
    S = np.sum([np.asarray(P, dtype=np.float64) for P in cross], axis=0)
    total_sq = float(np.sum(sq))
    num = np.zeros(grid.size)
    den = 0.0
    for P, t, nf, sqf in zip(cross, sums, sizes, sq):
        P = np.asarray(P, dtype=np.float64)
        m = n - int(nf)
        mu = -t / m  # the training part's mean (the data are centred)
        mu_s, t_s = mu[cols], t[cols]
        C = (S - P - m * np.outer(mu, mu_s)) / (m - 1)
        scale = (total_sq - sqf - m * float(mu @ mu)) / ((m - 1) * p)
        rr = sqf - 2.0 * float(mu @ t) + nf * float(mu @ mu)
        RtRs = P - np.outer(t, mu_s) - np.outer(mu, t_s) + nf * np.outer(mu, mu_s)  # R^T R_S
        lam, V = np.linalg.eigh(C[cols])
        CV = C @ V
        Zv = np.einsum("ji,ji->i", RtRs @ V, CV)  # diag(V^T R_S^T R C V)
        Nv = V.T @ RtRs[cols] @ V  # V^T R_S^T R_S V
        Hv = CV.T @ CV  # V^T C^T C V
        den += rr
        for g, a in enumerate(grid):
            d = lam + a * scale
            inv = np.where(d > rtol * max(float(d.max(initial=0.0)), np.finfo(float).tiny), 1.0 / d, 0.0)
            num[g] += max(rr - 2.0 * float(inv @ Zv) + float(np.einsum("i,ij,j,ji->", inv, Nv, inv, Hv)), 0.0)
    return np.sqrt(num / den) if den > 0 else np.zeros(grid.size)


def conditional_solve(C: ArrayLike, rows: ArrayLike, noise: float, var: ArrayLike | None = None,
                      *, rtol: float = 1e-12) -> tuple[NDArray, NDArray | None]:
    """The conditional-mean map and variance of every pixel given noisy readings of ``rows``.

    Parameters
    ----------
    C : array-like of shape (n_features, k)
        Covariance columns of the readings (``C[rows]`` is their ``k x k`` block).
    rows : array-like of int of shape (k,)
        The measured features.
    noise : float
        Variance of a reading's noise.
    var : array-like of shape (n_features,), optional
        Prior variance of every pixel; with it the posterior variance is returned.
    rtol : float, default=1e-12
        Eigenvalues of ``C[rows] + noise I`` below ``rtol`` times the largest are dropped, and a
        posterior variance below ``rtol`` times the prior one (rounding) is 0.

    Returns
    -------
    W : ndarray of shape (k, k)
        ``(C[rows] + noise I)^+``: the conditional mean is ``mean + (y - mean[rows]) @ W @ C.T``.
    posterior_var : ndarray of shape (n_features,) or None
        ``var - diag(C W C^T)``, 0 where that is below ``rtol * var``.
    """
    C = np.asarray(C, dtype=np.float64)
    K = C[np.asarray(rows, dtype=np.intp)] + noise * np.eye(C.shape[1])
    lam, V = np.linalg.eigh((K + K.T) / 2)
    keep = lam > rtol * max(float(lam.max(initial=0.0)), np.finfo(float).tiny)
    Vk = V[:, keep]
    W = (Vk / lam[keep]) @ Vk.T
    if var is None:
        return W, None
    var = np.asarray(var, dtype=np.float64)
    post = var - np.einsum("ij,ij->i", C @ W, C)  # one product, p k^2
    # below the rounding of that difference (a measured pixel without noise): zero
    return W, np.where(post > rtol * var, post, 0.0)
