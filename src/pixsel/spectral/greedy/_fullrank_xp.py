"""The full-rank greedy paths (greedy sparse PCA, general pairs) on any array-API library.

The dense route of :mod:`pixsel.spectral.greedy._fullrank_dense`, written against the array API
standard so that it runs on the data's device:

* forward: per step one generalized ``eigh`` of the support, ``(A_SS, B_SS) X = B_SS X
  diag(theta)`` (:func:`pixsel.spectral._linalg.generalized_eigh`), then for every candidate
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
exact argmax (ties to the lowest index). Computations are in float64 where the device has it.

**The path stays on the device.** The chosen index is a one-element device array (the support
``S`` a device index array, grown by ``concat``), the objective a device scalar written into a
device history copied back once at the end. The secular solves are the only place that would
ask the host (is every root converged?): inside a block of ``_BLOCK`` steps they run a fixed
``_FIXED_ITER`` iterations each and only AND their convergence flags on the device; at the
block's end the host reads that one flag, and in the rare block where a root had not converged
the block is recomputed from its start (its state is the support chosen before it) with the
adaptive solves, which check every ``_CHECK_EVERY`` iterations. One host read per block, the
same roots to rounding (counted on a CPU by :func:`pixsel._round_trips.count_round_trips`).

**Why NumPy input keeps its own kernels.** The NumPy full-rank kernels (secular screening and
the Krylov route for ``B = I``) are the oracles of their Numba kernels, which serve every NumPy
problem above the compiled size of :mod:`pixsel._routes`. ``benchmarks/bench_xp_twins.py``
times the pair on NumPy input below that size: forward the two run at about the same speed, and
a backward path of the largest eigenvalue runs faster here than in the NumPy loops, so
:func:`pixsel.spectral.greedy_path` runs this kernel, with NumPy as its namespace, for it.
"""

from __future__ import annotations

import numpy as np

from ..._array_api import device_of, in_working_precision, to_numpy
from .._criteria import spectral_criterion
from .._linalg import generalized_eigh

__all__ = ["fullrank_path_xp"]

_MAX_ITER = 80
_CHECK_EVERY = 4
#: Steps between host reads of the secular solves' convergence (the speculative blocks).
_BLOCK = 16
#: Iterations of a secular solve inside a speculative block (bisection + Newton from the left
#: converges quadratically: the tests' problems need at most 8; 10 leaves a margin).
_FIXED_ITER = 10


def _argmax(xp, score):
    """First index of the maximum (NumPy's argmax rule), a one-element device array (no host read)."""
    best = xp.max(score)
    return xp.reshape(xp.argmax(xp.astype(score == best, xp.int8)), (1,))


def _history(xp, order, objective):
    """``order`` (integers held in floating point) and ``objective``, copied back in one go."""
    n = order.shape[0]
    both = to_numpy(xp.concat([order, objective]), np.float64)
    return both[:n].astype(np.intp), both[n:]


def _eps(xp, dtype):
    return float(np.finfo(np.float64 if dtype == xp.float64 else np.float32).eps)


def secular_top_xp(xp, theta, b, c, live=None, n_iter=None):
    """Largest eigenvalue of ``[[diag(theta), b_i], [b_i^T, c_i]]`` for every row ``i`` at once.

    ``phi(lam) = lam - c - sum_j b_j^2 / (lam - theta_j)`` is increasing and concave right of
    the largest pole; the root lies in ``[max(lo2, theta_1, c), max(theta_1, c) + |b|]`` with
    ``lo2`` the top eigenvalue of the ``2 x 2`` problem on ``(x_1, e_new)``. Each iteration
    halves the bracket and takes a Newton step from its lower end (a Newton step of a concave
    increasing function from the left stays a lower bound), so it converges quadratically and
    never leaves the bracket. Rows where ``live`` is False (already selected) are not waited
    for. With ``n_iter``, exactly that many iterations run without a host read and the result is
    ``(roots, converged)``, ``converged`` a device boolean (every live root at rounding level)."""
    if live is None:
        live = xp.ones(c.shape, dtype=xp.bool, device=device_of(c))
    eps = _eps(xp, theta.dtype)
    th1 = theta[-1]
    b2 = b * b
    b1 = b[:, -1]
    lo2 = 0.5 * (th1 + c) + xp.sqrt(0.25 * (th1 - c) ** 2 + b1 * b1)
    base = xp.maximum(c, xp.zeros_like(c) + th1)
    lo = xp.maximum(lo2, base)
    hi = xp.maximum(base + xp.sqrt(xp.sum(b2, axis=1)), lo)

    def phi(x):
        diff = x[:, None] - theta[None, :]
        safe = xp.where(diff != 0, diff, xp.ones_like(diff))
        q = xp.where(b2 > 0, b2 / safe, xp.zeros_like(b2))
        return x - c - xp.sum(q, axis=1), 1.0 + xp.sum(q / safe, axis=1)

    def converged(lo, hi, increment):
        # the last Newton increment (monotone from below: at most the distance to the root) or
        # the bracket is at rounding level
        scale = xp.maximum(xp.abs(hi), xp.full_like(hi, 1e-300))
        at_root = xp.isfinite(increment) & (increment <= 4 * eps * scale)
        return xp.all(at_root | (hi - lo <= 4 * eps * scale) | ~live)

    increment = hi - lo
    for it in range(_MAX_ITER if n_iter is None else n_iter):
        mid = 0.5 * (lo + hi)
        f_mid, _ = phi(mid)
        neg = f_mid < 0
        lo = xp.where(neg, mid, lo)
        hi = xp.where(neg, hi, mid)
        f_lo, df_lo = phi(lo)
        newton = lo - f_lo / df_lo
        increment = newton - lo
        ok = xp.isfinite(newton) & (newton > lo) & (newton <= hi)
        lo = xp.where(ok, newton, lo)
        if n_iter is None and it % _CHECK_EVERY == _CHECK_EVERY - 1 and bool(converged(lo, hi, increment)):
            break
    if n_iter is not None:
        return lo, converged(lo, hi, increment)
    return lo


def secular_deleted_xp(xp, theta, wh, n_iter=None):
    """Largest eigenvalue after deleting each row (rows of ``wh = w^2 / |w|^2`` at once): the
    root in ``[theta_2, theta_1]`` of ``sum_j wh_j / (lam - theta_j)`` (decreasing there), by
    bisection safeguarding Newton from the NumPy kernel's bounds. With ``n_iter``: that many
    iterations, no host read, ``(roots, converged)`` as :func:`secular_top_xp`."""
    eps = _eps(xp, theta.dtype)
    th1, th2 = theta[-1], theta[-2]
    a1 = wh[:, -1]
    s = wh @ theta
    upper = th1 - (th1 - th2) * a1
    one = xp.ones_like(a1)
    away = (1 - a1) > 1e-12
    rq = (th1 * (1 - 2 * a1) + a1 * s) / xp.where(away, 1 - a1, one)
    rq = xp.where(away, rq, xp.zeros_like(a1) + th2)
    lo = xp.minimum(xp.maximum(rq, xp.zeros_like(a1) + th2), upper)
    hi = upper
    x = 0.5 * (lo + hi)
    step = hi - lo

    def converged(step, lo, hi):
        scale = xp.maximum(xp.abs(hi), xp.full_like(hi, 1e-300))
        return xp.all((step <= 2 * eps * scale) | (hi - lo <= 4 * eps * scale))

    for it in range(_MAX_ITER if n_iter is None else n_iter):
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
        if n_iter is None and it % _CHECK_EVERY == _CHECK_EVERY - 1 and bool(converged(step, lo, hi)):
            break
    if n_iter is not None:
        return x, converged(step, lo, hi)
    return x


def _forward_step(xp, A, B, criterion, dA, dB, tolB, free, S, AS, BS, n_iter):
    """One forward step from the support ``S`` (a device index array, None when empty):
    ``(j, value, converged)``, all device arrays."""
    p = A.shape[0]
    dev = device_of(A)
    converged = xp.ones((), dtype=xp.bool, device=dev)
    if S is None:
        vals = dA / dB
    else:
        ASS = xp.take(AS, S, axis=0)
        BSS = None if B is None else xp.take(BS, S, axis=0)
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
        if criterion.additive:
            vals = xp.where(ok, xp.sum(theta) + c, xp.zeros_like(c) + xp.sum(theta))
        else:
            top = secular_top_xp(xp, theta, b, c, free, n_iter=n_iter)
            if n_iter is not None:
                top, converged = top
            vals = xp.where(ok, top, xp.zeros_like(c) + theta[-1])
    score = xp.where(free, vals, xp.full_like(vals, -xp.inf))
    j = _argmax(xp, score)
    return j, xp.take(score, j)[0], converged


def _forward(xp, A, B, criterion, n_steps):
    p = A.shape[0]
    dev = device_of(A)
    hi = A.dtype
    dA = xp.asarray(xp.linalg.diagonal(A), copy=True)
    dB = xp.ones((p,), dtype=hi, device=dev) if B is None else xp.asarray(xp.linalg.diagonal(B), copy=True)
    tolB = p * _eps(xp, hi) * xp.abs(dB)
    pos = xp.arange(p, dtype=xp.int64, device=dev)
    order = xp.zeros((n_steps,), dtype=hi, device=dev)
    objective = xp.zeros((n_steps,), dtype=hi, device=dev)
    # the state: the free mask, the support S and the selected columns A_{:,S}, B_{:,S}
    state = (xp.ones((p,), dtype=xp.bool, device=dev), None, None, None)
    speculate = not criterion.additive  # only the secular solves would read the host
    reruns = 0
    start = 0
    while start < n_steps:
        stop = min(start + _BLOCK, n_steps)
        for n_iter in ((_FIXED_ITER, None) if speculate else (None,)):
            free, S, AS, BS = state
            ok_all = xp.ones((), dtype=xp.bool, device=dev)
            for t in range(start, stop):
                j, value, converged = _forward_step(xp, A, B, criterion, dA, dB, tolB, free, S, AS, BS, n_iter)
                ok_all = ok_all & converged
                order[t] = xp.astype(j[0], hi)
                objective[t] = value
                free = free & (pos != j[0])
                S = j if S is None else xp.concat([S, j])
                AS = xp.take(A, j, axis=1) if AS is None else xp.concat([AS, xp.take(A, j, axis=1)], axis=1)
                if B is not None:
                    BS = xp.take(B, j, axis=1) if BS is None else xp.concat([BS, xp.take(B, j, axis=1)], axis=1)
            if n_iter is None or bool(ok_all):  # one host read per block; rarely, the block again
                break
            reruns += 1
        state = (free, S, AS, BS)
        start = stop
    return (*_history(xp, order, objective), reruns)


def _backward(xp, A, B, criterion):
    p = A.shape[0]
    dev = device_of(A)
    hi = A.dtype
    order = xp.zeros((p,), dtype=hi, device=dev)
    objective = xp.zeros((p,), dtype=hi, device=dev)
    alive = xp.arange(p, dtype=xp.int64, device=dev)  # the live indices, in order
    speculate = not criterion.additive
    reruns = 0
    step = 0
    while step < p:
        stop = min(step + _BLOCK, p)
        for n_iter in ((_FIXED_ITER, None) if speculate else (None,)):
            live = alive
            ok_all = xp.ones((), dtype=xp.bool, device=dev)
            for t in range(step, stop):
                size = p - t
                ASS = xp.take(xp.take(A, live, axis=0), live, axis=1)
                BSS = None if B is None else xp.take(xp.take(B, live, axis=0), live, axis=1)
                theta, X = generalized_eigh(xp, ASS, BSS)
                objective[size - 1] = criterion.of_eigenvalues(theta, xp)
                if size == 1:
                    order[t] = xp.astype(live[0], hi)
                    break
                w2 = X * X
                wh = w2 / xp.sum(w2, axis=1)[:, None]
                if criterion.additive:
                    vals = xp.sum(theta) - wh @ theta
                else:
                    vals = secular_deleted_xp(xp, theta, wh, n_iter=n_iter)
                    if n_iter is not None:
                        vals, converged = vals
                        ok_all = ok_all & converged
                jpos = _argmax(xp, vals)
                order[t] = xp.astype(xp.take(live, jpos)[0], hi)
                keep = xp.argsort(xp.astype(xp.arange(size, dtype=xp.int64, device=dev) == jpos[0], xp.int8),
                                  stable=True)[: size - 1]
                live = xp.take(live, keep)
            if n_iter is None or bool(ok_all):  # one host read per block; rarely, the block again
                break
            reruns += 1
        alive = live
        step = stop
    return (*_history(xp, order, objective), reruns)


def fullrank_path_xp(xp, A, B, *, direction, criterion, max_k=None):
    """``(order, objective, info)`` of the full-rank greedy path of ``(A, B)`` on A's device.

    ``A`` (symmetric ``p x p``) and ``B`` (``p x p`` or None, the identity) are arrays of
    ``xp``, already checked; computed in float64 where the device has it. ``order`` and
    ``objective`` are NumPy (host metadata)."""
    criterion = spectral_criterion(criterion, owner="fullrank_path_xp")
    A, B = in_working_precision(xp, A, B)
    if direction == "forward":
        order, objective, reruns = _forward(xp, A, B, criterion, A.shape[0] if max_k is None else int(max_k))
    else:
        order, objective, reruns = _backward(xp, A, B, criterion)
    # reruns: blocks whose fixed-iteration secular solves had not all converged, recomputed
    return order, objective, {"array_api": True, "secular_reruns": reruns}
