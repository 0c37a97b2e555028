"""SIMPLS, SPLS-eta and cardinal SPLS on any array-API library, on the data's device.

The algorithms of :mod:`pixsel.pls._simpls` and :mod:`pixsel.pls._spls`, written against the
array API standard. What runs on the device: the centring, the cross-covariance ``Z = X^T Y``
(the one ``O(N p q)`` product), the ``M v = Z (Z^T v)`` products of the alternating
optimization, SIMPLS on the selected columns (``O(N |A| K)``) and the deflation of ``Z`` by a QR
of the loadings. What comes to the host: the vector ``M w`` (``p`` numbers per alternating
iteration), which the thresholds of Eq.(5) / Eq.(8) rank and cut there with the NumPy code of
:mod:`pixsel.pls._spls` itself (a partition and a stable sort: no array-API equivalent with the
lowest-index tie rule), and the thresholded ``c`` goes back. Supports and histories are NumPy
(host metadata); coefficients, means and the SIMPLS model stay on the device, in X's float
dtype (float32 stays float32).
"""

from __future__ import annotations

import numpy as np

from .._array_api import device_of, float_dtype, from_numpy, sign_flip, to_numpy
from ._loop import selection_loop
from ._simpls import _RTOL_EXHAUSTED, SIMPLSResult, _check_selected_fit

__all__ = []


def _norm(xp, a):
    return float(xp.sqrt(xp.sum(a * a)))


def scatter_rows(xp, rows, idx, n):
    """An ``(n, q)`` array with ``rows`` at the rows ``idx`` (NumPy ints), zeros elsewhere: the
    standard has ``take`` but no assignment through an index array."""
    idx = np.asarray(idx, dtype=np.int64)
    pos = np.full(n, len(idx), dtype=np.int64)
    pos[idx] = np.arange(len(idx))
    padded = xp.concat([rows, xp.zeros((1, rows.shape[1]), dtype=rows.dtype, device=device_of(rows))], axis=0)
    return xp.take(padded, xp.asarray(pos, device=device_of(rows)), axis=0)


def as_xy_xp(xp, X, Y, owner):
    """``X`` (2-D) and ``Y`` (a column when 1-D) in X's float dtype, checked like ``_as_xy``."""
    dev = device_of(X)
    wd = float_dtype(xp, X, dev, name="X")
    X = xp.astype(X, wd)
    Y = xp.astype(Y, wd)
    if Y.ndim == 1:
        Y = Y[:, None]
    who = f"{owner}: " if owner else ""
    if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0]:
        raise ValueError(
            f"{who}X must be 2-D and Y 1-D or 2-D with the same number of rows; got shapes "
            f"{tuple(X.shape)} and {tuple(Y.shape)}."
        )
    if not (bool(xp.all(xp.isfinite(X))) and bool(xp.all(xp.isfinite(Y)))):
        raise ValueError(f"{who}X and Y must not contain NaN or infinite values; impute or drop them.")
    return X, Y


def prepare_xp(xp, X, Y, owner):
    X, Y = as_xy_xp(xp, X, Y, owner)
    if X.shape[0] < 2:
        raise ValueError(f"{owner}: X has {X.shape[0]} sample(s); PLS needs at least 2 samples.")
    x_mean, y_mean = xp.mean(X, axis=0), xp.mean(Y, axis=0)
    Xc, Yc = X - x_mean, Y - y_mean
    if not bool(xp.any(Yc != 0)):
        raise ValueError(f"{owner}: Y is constant (every response equals its mean); there is nothing to fit.")
    return Xc, Yc, x_mean, y_mean


def simpls_xp(xp, Xc, Yc, n_components, *, strict=True):
    """:func:`pixsel.pls._simpls._simpls` for arrays of ``xp``: ``(R, T, P, Q)`` on the device."""
    N, p = Xc.shape
    q = Yc.shape[1]
    dev = device_of(Xc)
    S = Xc.T @ Yc
    s0 = _norm(xp, S)
    x0 = _norm(xp, Xc)
    cols = {"R": [], "T": [], "P": [], "Q": [], "V": []}
    a = 0
    while a < n_components:
        if s0 == 0.0 or _norm(xp, S) <= _RTOL_EXHAUSTED * s0:
            break
        if q == 1:
            r = S[:, 0]
        else:
            r = S @ xp.linalg.eigh(S.T @ S)[1][:, -1]
        r = sign_flip(xp, r)
        t = Xc @ r
        tn = _norm(xp, t)
        if tn <= _RTOL_EXHAUSTED * x0 * _norm(xp, r):
            break
        t, r = t / tn, r / tn
        pa = Xc.T @ t
        v = pa
        if a:
            V = xp.stack(cols["V"], axis=1)
            v = v - V @ (V.T @ v)
            v = v - V @ (V.T @ v)
        v = v / _norm(xp, v)
        S = S - v[:, None] * (v @ S)[None, :]
        for name, val in zip("RTPQV", (r, t, pa, Yc.T @ t, v)):
            cols[name].append(val)
        a += 1
    if a < n_components and strict:
        raise ValueError(
            f"n_components={n_components} exceeds the number of PLS components the data "
            f"support ({a}: the cross-covariance X^T Y is exhausted after {a} component(s), "
            "for example because X has low rank or Y is constant). Lower n_components to at "
            f"most {max(a, 1)}."
        )
    shapes = {"R": p, "T": N, "P": p, "Q": q}
    return tuple(xp.stack(cols[k], axis=1) if a else xp.zeros((shapes[k], 0), dtype=Xc.dtype, device=dev)
                 for k in "RTPQ")


def _direction_xp(xp, Z, threshold, max_iter, tol):
    """The alternating c/w optimization of ``_spls._direction``; the threshold runs on the host."""
    dev = device_of(Z)
    if Z.shape[1] == 1:
        c, added = threshold(to_numpy(Z[:, 0], np.float64))
        return added, 1, True
    c = np.ones(Z.shape[0])
    added = np.zeros(0, dtype=np.intp)
    for it in range(1, max_iter + 1):
        cd = from_numpy(xp, c, dev, dtype=Z.dtype)
        m = Z @ (Z.T @ cd)
        nm = _norm(xp, m)
        if nm == 0.0:  # c lies in the null space of M: restart from the dominant direction
            m = Z @ xp.linalg.svd(Z, full_matrices=False)[2][0, :]
            nm = _norm(xp, m)
        w = m / nm
        c_new, added = threshold(to_numpy(Z @ (Z.T @ w), np.float64))
        scale = float(np.max(np.abs(c_new))) if c_new.size else 0.0
        done = float(np.max(np.abs(c_new - c))) <= tol * max(scale, np.finfo(float).tiny)
        c = c_new
        if done:
            return added, it, True
    return added, max_iter, False


def sparse_pls_xp(xp, Xc, Yc, n_components, make_threshold, max_iter, tol):
    """The shared loop of Algorithm 1 (``_spls._sparse_pls``) on the device."""
    p = Xc.shape[1]
    dev = device_of(Xc)
    Z0 = Xc.T @ Yc

    def direction(Z, threshold):
        return _direction_xp(xp, Z, threshold, max_iter, tol)

    def refit(A, k):
        XA = xp.take(Xc, xp.asarray(A, device=dev), axis=1)
        return simpls_xp(xp, XA, Yc, min(k, len(A)), strict=False)

    def deflate(Z, A, fit):
        P = fit[2]
        if not P.shape[1]:
            return Z
        Qp = xp.linalg.qr(P)[0]
        ZA = xp.take(Z0, xp.asarray(A, device=dev), axis=0)
        return Z0 - scatter_rows(xp, Qp @ (Qp.T @ ZA), A, p)

    return selection_loop(Z0, p, n_components, make_threshold, direction, refit, deflate)


def finish_xp(xp, A, history, fit, n_iter, converged, x_mean, y_mean, n_components, p, owner, result_type):
    R, T, P, Q = fit
    want = min(n_components, len(A))
    _check_selected_fit(A, R, want, n_components, owner)
    coef_A = R @ Q.T
    model = SIMPLSResult(
        x_rotations=R, x_scores=T, x_loadings=P, y_loadings=Q, coef=coef_A,
        x_mean=xp.take(x_mean, xp.asarray(A, device=device_of(x_mean))), y_mean=y_mean,
        n_components=R.shape[1],
    )
    return result_type(
        support=A, history=tuple(history), coef=scatter_rows(xp, coef_A, A, p), x_mean=x_mean,
        y_mean=y_mean, model=model, n_iter=n_iter, converged=converged,
    )
