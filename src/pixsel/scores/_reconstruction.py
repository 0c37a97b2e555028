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

__all__ = ["fold_products", "fold_products_from_outer", "fold_prior_products", "noise_cv_errors", "conditional_solve"]


def _fold_rows(n, n_folds):
    """Row indices of each interleaved fold (row ``i`` in fold ``i % n_folds``) and of the rest."""
    rows = np.arange(n)
    return [(rows[f::n_folds], rows[rows % n_folds != f]) for f in range(n_folds)]


def fold_products(A: ArrayLike, S: ArrayLike, cols: ArrayLike, n_folds: int, *,
                  row_sq: ArrayLike | None = None) -> list[dict]:
    """What :func:`noise_cv_errors` needs of each fold, from the data (one pass over ``A``).

    Fold ``f`` holds the rows ``T`` of ``A`` with index ``i % n_folds == f``; with
    ``P = T^T T[:, cols]`` and ``D = S - P`` (the cross-products of the other rows) the
    returned ``k x k`` products are ``D^T D``, ``P^T D`` and the rows ``cols`` of ``D`` and ``P``.
    The folds' ``P`` sum to ``S``: the last fold's is ``S`` minus the others' (no product over
    its rows).

    Parameters
    ----------
    A : array-like of shape (n_samples, n_features)
        Centred data (not modified).
    S : array-like of shape (n_features, k)
        ``A^T A[:, cols]``.
    cols : array-like of int of shape (k,)
        The measured columns.
    n_folds : int
    row_sq : array-like of shape (n_samples,), optional
        The squared norms of the rows of ``A`` when the caller has them (each fold's ``sq`` is
        then their sum over its rows, without reading its rows again).

    Returns
    -------
    folds : list of dict
        Per fold: ``size`` (rows), ``sq`` (``||T||_F^2``), ``tt`` (``t^T t``, ``t`` the column sums
        of ``T``), ``ts`` (``t[cols]``), ``DtD``, ``PtD``, ``Dss`` (``D[cols]``), ``Pss``
        (``P[cols]``), ``dt`` (``D^T t``) and ``pt`` (``P^T t``).
    """
    A = np.asarray(A, dtype=np.float64)
    S = np.asarray(S, dtype=np.float64)
    cols = np.asarray(cols, dtype=np.intp)
    k = cols.size
    out = []
    rest = S.copy()  # S minus the folds' P so far: the last fold's P (the folds' P sum to S)
    for f in range(n_folds):
        T = A[f::n_folds]  # a strided view: BLAS reads it in place
        if f < n_folds - 1:
            Tc1 = np.empty((T.shape[0], k + 1))
            Tc1[:, :k] = T[:, cols]
            Tc1[:, k] = 1.0
            Pt = Tc1.T @ T  # [T[:, cols], 1]^T T: P^T and the column sums t in one product, BLAS on T as stored
            P, t = Pt[:k].T, Pt[k]
            rest -= P
        else:  # the last fold's P without a product over its rows
            P, t = rest, T.sum(axis=0)
        D = S - P
        sq = float(np.einsum("ij,ij->", T, T)) if row_sq is None else float(np.sum(row_sq[f::n_folds]))
        out.append({"size": T.shape[0], "sq": sq, "tt": float(t @ t),
                    "ts": t[cols], "DtD": D.T @ D, "PtD": P.T @ D, "Dss": D[cols], "Pss": P[cols],
                    "dt": t @ D, "pt": t @ P})
    return out


def fold_products_from_outer(M: ArrayLike, As: ArrayLike, n_folds: int) -> list[dict]:
    """The products of :func:`fold_products` from ``M = A A^T`` and ``As = A[:, cols]`` (``n x k``).

    With fewer images than pixels every product is one of samples: with ``f`` the fold's rows
    and ``r`` the others, ``D^T D = As_r^T M_rr As_r``, ``P^T D = As_f^T M_fr As_r``, ``D[cols] =
    As_r^T As_r``, ``P[cols] = As_f^T As_f``, ``D^T t = As_r^T M_rf 1``, ``P^T t = As_f^T M_ff 1``,
    ``t^T t = 1^T M_ff 1`` and ``||T||_F^2 = trace(M_ff)``: ``O(n^2 k)`` in all, no pass over ``A``.

    Parameters
    ----------
    M : array-like of shape (n_samples, n_samples)
        ``A A^T`` of the centred data.
    As : array-like of shape (n_samples, k)
        The measured columns of the centred data.
    n_folds : int

    Returns
    -------
    folds : list of dict
        As :func:`fold_products`.
    """
    M = np.asarray(M, dtype=np.float64)
    As = np.asarray(As, dtype=np.float64)
    n = M.shape[0]
    rows = [np.arange(f, n, n_folds) for f in range(n_folds)]
    order = np.concatenate(rows)
    Ms = M[np.ix_(order, order)]  # rows and columns fold by fold: each fold's blocks are slices (one copy of M)
    Ass = As[order]
    B = Ms @ Ass  # M As, whose rows give every fold's products with the others' (no block of M copied)
    out = []
    s = 0
    for f_rows in rows:
        e = s + f_rows.size
        r = np.r_[0:s, e:n]
        Af, Ar = Ass[s:e], Ass[r]
        MfAf = Ms[:, s:e] @ Af  # M_{:,f} As_f
        MrrAr = B[r] - MfAf[r]  # M_rr As_r = (M As)_r - M_rf As_f
        MfrAr = B[s:e] - MfAf[s:e]  # M_fr As_r
        Mf = Ms[s:e]
        mf1 = Mf[:, s:e].sum(axis=1)  # T T^T 1
        out.append({"size": e - s, "sq": float(np.trace(Mf[:, s:e])), "tt": float(mf1.sum()), "ts": Af.sum(axis=0),
                    "DtD": Ar.T @ MrrAr, "PtD": Af.T @ MfrAr, "Dss": Ar.T @ Ar, "Pss": Af.T @ Af,
                    "dt": Mf.sum(axis=0)[r] @ Ar, "pt": mf1 @ Af})
        s = e
    return out


def fold_prior_products(As: ArrayLike, ATs: ArrayLike, n_folds: int) -> list[dict]:
    """What :func:`noise_cv_errors` needs of each fold for a shrunk covariance ``(1 - rho) C + rho T``.

    With ``As = A[:, cols]`` and ``ATs = (A T)[:, cols]`` (``n x k``, ``T`` the prior
    covariance), fold ``f`` (rows ``i % n_folds == f``) gets ``ArT = As_r^T ATs_r`` (its
    training rows ``r``), ``AfT = As_f^T ATs_f`` and ``tT = 1^T ATs_f``: ``O(n k^2)`` in all.

    Parameters
    ----------
    As, ATs : array-like of shape (n_samples, k)
    n_folds : int

    Returns
    -------
    folds : list of dict
        Per fold: ``ArT``, ``AfT`` (``k x k``) and ``tT`` (``k``), to merge into the dicts of
        :func:`fold_products` or :func:`fold_products_from_outer`.
    """
    As = np.asarray(As, dtype=np.float64)
    ATs = np.asarray(ATs, dtype=np.float64)
    out = []
    for f_rows, r_rows in _fold_rows(As.shape[0], n_folds):
        out.append({"ArT": As[r_rows].T @ ATs[r_rows], "AfT": As[f_rows].T @ ATs[f_rows],
                    "tT": ATs[f_rows].sum(axis=0)})
    return out


def noise_cv_errors(folds: Sequence[dict], p: int, grid: Sequence[float], *, rtol: float = 1e-12,
                    prior: dict | None = None) -> NDArray:
    """Cross-validated relative reconstruction error of each noise level (sensors fixed).

    Fold ``f`` (rows ``T``; the others, ``m`` rows of mean ``mu``, its training part) fits the
    covariance ``C`` of its training part and reconstructs its centred held-out rows
    ``R = T - mu`` from their columns ``cols`` with the conditional mean of noise variance
    ``a * trace(C) / p``; the error of ``a`` is ``sqrt(sum_f ||R - R_hat||^2 / sum_f ||R||^2)``.
    With ``D = (m - 1) C + m mu mu_S^T`` the training part's cross-products, ``P`` the fold's
    and ``t`` its column sums (``mu = -t / m``, the data centred), ``C^T C``, ``R_S^T R C``,
    ``R_S^T R_S`` and ``C_SS`` are ``k x k`` expressions in the products of
    :func:`fold_products`; in the eigenbasis of ``C_SS`` each noise level costs ``O(k^2)``.

    Parameters
    ----------
    folds : sequence of dict
        From :func:`fold_products` or :func:`fold_products_from_outer`.
    p : int
        Features (the noise variance is a fraction of the mean of their variances).
    grid : sequence of float
        Noise levels ``a`` (fractions of the mean pixel variance).
    rtol : float, default=1e-12
        Eigenvalues of ``C_SS + a s I`` below ``rtol`` times the largest are dropped (pseudo-inverse).
    prior : dict, optional
        The shrunk covariance ``(1 - rho) C + rho T`` in every fold, ``C`` the fold's training
        covariance and ``T`` a fixed prior covariance (estimated once, on all the rows): keys
        ``rho``, ``Tss`` (``T[cols][:, cols]``), ``TtT`` (``T[:, cols]^T T[:, cols]``) and ``trace``
        (``trace(T)``); each fold then also holds the products of :func:`fold_prior_products`.
        With ``T[:, cols]^T C``, ``R_S^T R T[:, cols]`` from them, every ``k x k`` term of the
        fold is the same mix of its two parts.

    Returns
    -------
    errors : ndarray of shape (len(grid),)
    """
    grid = np.asarray(grid, dtype=np.float64)
    n = int(sum(fo["size"] for fo in folds))
    total_sq = float(sum(fo["sq"] for fo in folds))
    num = np.zeros(grid.size)
    den = 0.0
    for fo in folds:
        nf, sqf, tt = int(fo["size"]), float(fo["sq"]), float(fo["tt"])
        m = n - nf
        a_ = 1.0 / (m - 1)
        mm, tm = tt / (m * m), -tt / m  # mu^T mu, mu^T t
        ts = np.asarray(fo["ts"], dtype=np.float64)
        mu_s = -ts / m
        dt, pt = np.asarray(fo["dt"], dtype=np.float64), np.asarray(fo["pt"], dtype=np.float64)
        dm, pm = -dt / m, -pt / m  # D^T mu, P^T mu
        Css = a_ * (fo["Dss"] - m * np.outer(mu_s, mu_s))
        CtC = a_ * a_ * (fo["DtD"] - m * np.outer(dm, mu_s) - m * np.outer(mu_s, dm)
                         + m * m * mm * np.outer(mu_s, mu_s))
        RtD = fo["PtD"] - np.outer(mu_s, dt) - np.outer(ts, dm) + nf * np.outer(mu_s, dm)  # R_S^T R D
        Rtm = pm - mu_s * tm - ts * mm + nf * mu_s * mm  # R_S^T R mu
        Z = a_ * (RtD - m * np.outer(Rtm, mu_s))  # R_S^T R C
        N = fo["Pss"] - np.outer(ts, mu_s) - np.outer(mu_s, ts) + nf * np.outer(mu_s, mu_s)  # R_S^T R_S
        scale = (total_sq - sqf - m * mm) / ((m - 1) * p)
        if prior is not None and float(prior["rho"]) > 0:
            rho = float(prior["rho"])
            tT = np.asarray(fo["tT"], dtype=np.float64)  # 1^T R_raw T_S; mu^T T_S = -tT / m
            X = a_ * (fo["ArT"] + np.outer(mu_s, tT))  # C_S^T T_S
            Y = fo["AfT"] + np.outer(ts, tT) / m - np.outer(mu_s, tT) * (1.0 + nf / m)  # R_S^T R T_S
            Css = (1.0 - rho) * Css + rho * prior["Tss"]
            CtC = (1.0 - rho) ** 2 * CtC + rho * (1.0 - rho) * (X + X.T) + rho * rho * prior["TtT"]
            Z = (1.0 - rho) * Z + rho * Y
            scale = (1.0 - rho) * scale + rho * float(prior["trace"]) / p
        rr = sqf - 2.0 * tm + nf * mm
        lam, V = np.linalg.eigh((Css + Css.T) / 2)
        Zv = np.einsum("ik,ki->i", V.T @ Z, V)  # diag(V^T Z V)
        NH = (V.T @ N @ V) * (V.T @ CtC @ V).T  # sum_ij inv_i inv_j Nv_ij Hv_ji = inv^T NH inv
        den += rr
        for g, a in enumerate(grid):
            d = lam + a * scale
            inv = np.where(d > rtol * max(float(d.max(initial=0.0)), np.finfo(float).tiny), 1.0 / d, 0.0)
            num[g] += max(rr - 2.0 * float(inv @ Zv) + float(inv @ NH @ inv), 0.0)
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
    if C.flags.f_contiguous and not C.flags.c_contiguous:  # C^T C-ordered: the product in that order
        Ct = C.T
        post = var - np.einsum("ij,ij->j", W.T @ Ct, Ct)  # one product, p k^2
    else:
        post = var - np.einsum("ij,ij->i", C @ W, C)
    # below the rounding of that difference (a measured pixel without noise): zero
    return W, np.where(post > rtol * var, post, 0.0)
