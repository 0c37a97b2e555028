"""The full-rank greedy paths (greedy sparse PCA, general pairs) on any array-API library.

The dense route of :mod:`pixsel.spectral.greedy._fullrank_dense`, written against the array API
standard so that it runs on the data's device:

* forward: per step one generalized ``eigh`` of the support, ``(A_SS, B_SS) X = B_SS X
  diag(theta)`` (:func:`pixsel.spectral._linalg_xp.generalized_eigh`), then for every candidate
  ``i`` the bordered problem ``[[diag(theta), b_i], [b_i^T, c_i]]`` (``b_i``, ``c_i`` from the
  matrix products ``A_{:,S} X`` and ``B_{:,S} X``: the ``O(p t^2)`` work, on the device) and
  its largest root of the secular equation ``lam - c_i - sum_j b_ij^2 / (lam - theta_j) = 0``;
* backward: per step one generalized ``eigh`` of the support, then for every ``i`` the root in
  ``[theta_2, theta_1]`` of ``sum_j w_ij^2 / (lam - theta_j) = 0`` (``w_i`` the ``i``-th row of
  ``X``, normalized), the largest eigenvalue after deleting ``i``.

Differences from the NumPy kernels, by design: every candidate's secular equation is solved
(vectorized, safeguarded Newton inside a bisection bracket) instead of only the survivors of a
bound screening, because gathering survivors costs a host round-trip per step on a device; and
there is no Krylov route for ``B = I`` (the NumPy default on the CPU). The choice is the same
exact argmax (ties to the lowest index); only the index and the objective (two numbers per
step) come back to the host. Computations are in float64 where the device has it.
"""

from __future__ import annotations

import numpy as np

from ..._array_api import device_of, has_float64
from .._linalg_xp import generalized_eigh, submatrix

__all__ = ["fullrank_path_xp"]

_MAX_ITER = 80
_CHECK_EVERY = 4


def _argmax(xp, score):
    best = xp.max(score)
    return int(xp.argmax(xp.astype(score == best, xp.int8)))


def _eps(xp, dtype):
    return float(np.finfo(np.float64 if dtype == xp.float64 else np.float32).eps)


def secular_top_xp(xp, theta, b, c, live=None):
    """Largest eigenvalue of ``[[diag(theta), b_i], [b_i^T, c_i]]`` for every row ``i`` at once.

    ``phi(lam) = lam - c - sum_j b_j^2 / (lam - theta_j)`` is increasing and concave right of
    the largest pole; the root lies in ``[max(lo2, theta_1, c), max(theta_1, c) + |b|]`` with
    ``lo2`` the top eigenvalue of the ``2 x 2`` problem on ``(x_1, e_new)``. Each iteration
    halves the bracket and takes a Newton step from its lower end (a Newton step of a concave
    increasing function from the left stays a lower bound), so it converges quadratically and
    never leaves the bracket. Rows where ``live`` is False (already selected) are not waited
    for."""
    if live is None:
        live = xp.ones(c.shape, dtype=xp.bool, device=device_of(c))
    eps = _eps(xp, theta.dtype)
    th1 = theta[-1]
    b2 = b * b
    b1 = b[:, -1]
    lo2 = 0.5 * (th1 + c) + xp.sqrt(0.25 * (th1 - c) ** 2 + b1 * b1)
    base = xp.maximum(c, xp.full_like(c, float(th1)))
    lo = xp.maximum(lo2, base)
    hi = xp.maximum(base + xp.sqrt(xp.sum(b2, axis=1)), lo)

    def phi(x):
        diff = x[:, None] - theta[None, :]
        safe = xp.where(diff != 0, diff, xp.ones_like(diff))
        q = xp.where(b2 > 0, b2 / safe, xp.zeros_like(b2))
        return x - c - xp.sum(q, axis=1), 1.0 + xp.sum(q / safe, axis=1)

    for it in range(_MAX_ITER):
        mid = 0.5 * (lo + hi)
        f_mid, _ = phi(mid)
        neg = f_mid < 0
        lo = xp.where(neg, mid, lo)
        hi = xp.where(neg, hi, mid)
        f_lo, df_lo = phi(lo)
        newton = lo - f_lo / df_lo
        ok = xp.isfinite(newton) & (newton > lo) & (newton <= hi)
        lo = xp.where(ok, newton, lo)
        if it % _CHECK_EVERY == _CHECK_EVERY - 1:
            # converged: the Newton step (monotone from below) or the bracket is at rounding level
            scale = xp.maximum(xp.abs(hi), xp.full_like(hi, 1e-300))
            at_root = xp.isfinite(newton) & (newton - lo <= 4 * eps * scale)
            small = at_root | (hi - lo <= 4 * eps * scale)
            if bool(xp.all(small | ~live)):
                break
    return lo


def secular_deleted_xp(xp, theta, wh):
    """Largest eigenvalue after deleting each row (rows of ``wh = w^2 / |w|^2`` at once): the
    root in ``[theta_2, theta_1]`` of ``sum_j wh_j / (lam - theta_j)`` (decreasing there), by
    bisection safeguarding Newton from the NumPy kernel's bounds."""
    eps = _eps(xp, theta.dtype)
    th1, th2 = float(theta[-1]), float(theta[-2])
    a1 = wh[:, -1]
    s = wh @ theta
    upper = th1 - (th1 - th2) * a1
    one = xp.ones_like(a1)
    away = (1 - a1) > 1e-12
    rq = (th1 * (1 - 2 * a1) + a1 * s) / xp.where(away, 1 - a1, one)
    rq = xp.where(away, rq, xp.full_like(a1, th2))
    lo = xp.minimum(xp.maximum(rq, xp.full_like(a1, th2)), upper)
    hi = upper
    x = 0.5 * (lo + hi)
    for it in range(_MAX_ITER):
        diff = x[:, None] - theta[None, :]
        safe = xp.where(diff != 0, diff, xp.ones_like(diff))
        q = xp.where(wh > 0, wh / safe, xp.zeros_like(wh))
        g = xp.sum(q, axis=1)
        dg = -xp.sum(q / safe, axis=1)
        pos = g > 0  # the root is to the right
        lo = xp.where(pos, x, lo)
        hi = xp.where(pos, hi, x)
        newton = x - g / dg
        ok = xp.isfinite(newton) & (newton >= lo) & (newton <= hi)
        new = xp.where(ok, newton, 0.5 * (lo + hi))
        step = xp.abs(new - x)
        x = new
        if it % _CHECK_EVERY == _CHECK_EVERY - 1:
            scale = xp.maximum(xp.abs(hi), xp.full_like(hi, 1e-300))
            if bool(xp.all((step <= 2 * eps * scale) | (hi - lo <= 4 * eps * scale))):
                break
    return x


def _forward(xp, A, B, criterion, n_steps):
    p = A.shape[0]
    dev = device_of(A)
    hi = A.dtype
    dA = xp.asarray(xp.linalg.diagonal(A), copy=True)
    dB = xp.ones((p,), dtype=hi, device=dev) if B is None else xp.asarray(xp.linalg.diagonal(B), copy=True)
    tolB = p * _eps(xp, hi) * xp.abs(dB)
    free = xp.ones((p,), dtype=xp.bool, device=dev)
    minus_inf = xp.full((p,), -xp.inf, dtype=hi, device=dev)
    order = np.empty(n_steps, dtype=np.intp)
    objective = np.empty(n_steps)
    S = []
    AS = BS = None  # the selected columns A_{:,S}, B_{:,S}
    for t in range(n_steps):
        if t == 0:
            vals = dA / dB
        else:
            ASS = xp.take(AS, xp.asarray(S, device=dev), axis=0)
            BSS = None if B is None else xp.take(BS, xp.asarray(S, device=dev), axis=0)
            theta, X = generalized_eigh(xp, ASS, BSS)
            H = AS @ X
            if B is None:
                ok = xp.ones((p,), dtype=xp.bool, device=dev)
                b, c = H, dA
            else:
                K = BS @ X
                R = dB - xp.sum(K * K, axis=1)
                ok = R > tolB
                Rs = xp.where(ok, R, xp.ones_like(R))
                c = (dA - 2 * xp.sum(H * K, axis=1) + (K * K) @ theta) / Rs
                b = (H - theta[None, :] * K) / xp.sqrt(Rs)[:, None]
            if criterion == "trace":
                vals = xp.where(ok, xp.sum(theta) + c, xp.full_like(c, float(xp.sum(theta))))
            else:
                vals = xp.where(ok, secular_top_xp(xp, theta, b, c, free), xp.full_like(c, float(theta[-1])))
        score = xp.where(free, vals, minus_inf)
        j = _argmax(xp, score)
        order[t] = j
        objective[t] = float(score[j])
        free[j] = False
        S.append(j)
        AS = A[:, j:j + 1] if AS is None else xp.concat([AS, A[:, j:j + 1]], axis=1)
        if B is not None:
            BS = B[:, j:j + 1] if BS is None else xp.concat([BS, B[:, j:j + 1]], axis=1)
    return order, objective


def _backward(xp, A, B, criterion):
    p = A.shape[0]
    order = np.empty(p, dtype=np.intp)
    objective = np.empty(p)
    alive = list(range(p))
    for step in range(p):
        size = p - step
        theta, X = generalized_eigh(xp, submatrix(xp, A, alive), None if B is None else submatrix(xp, B, alive))
        objective[size - 1] = float(xp.sum(theta)) if criterion == "trace" else float(theta[-1])
        if size == 1:
            order[step] = alive[0]
            break
        w2 = X * X
        wh = w2 / xp.sum(w2, axis=1)[:, None]
        if criterion == "trace":
            vals = xp.sum(theta) - wh @ theta
        else:
            vals = secular_deleted_xp(xp, theta, wh)
        jpos = _argmax(xp, vals)
        order[step] = alive.pop(jpos)
    return order, objective


def fullrank_path_xp(xp, A, B, *, direction, criterion, max_k=None):
    """``(order, objective, info)`` of the full-rank greedy path of ``(A, B)`` on A's device.

    ``A`` (symmetric ``p x p``) and ``B`` (``p x p`` or None, the identity) are arrays of
    ``xp``, already checked; computed in float64 where the device has it. ``order`` and
    ``objective`` are NumPy (host metadata)."""
    dev = device_of(A)
    hi = xp.float64 if has_float64(xp, dev) else xp.float32
    A = xp.astype(A, hi)
    B = None if B is None else xp.astype(B, hi)
    if direction == "forward":
        order, objective = _forward(xp, A, B, criterion, A.shape[0] if max_k is None else int(max_k))
    else:
        order, objective = _backward(xp, A, B, criterion)
    return order, objective, {"array_api": True}
