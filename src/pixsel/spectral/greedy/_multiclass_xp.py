"""The multiclass (factor-form) greedy paths on any array-API library, on the data's device.

The method of :mod:`pixsel.spectral.greedy._multiclass` (the block-inverse updates of the small
``r x r`` matrix ``G_S = M_S^T B_SS^{-1} M_S``), written against the array API standard:

* forward: left-looking pivoted Cholesky of ``B`` (one column of ``B`` and ``O(p |S|)`` per
  step), ``U = M - B_{:,S} B_SS^{-1} M_S`` and ``diag R`` updated by rank-one terms;
* backward: ``P = B^{-1}`` and ``W = P M`` downdated by rank-one terms (``O(p^2)`` per step).

Difference from the NumPy kernel, by design: for ``'max-eig'`` with ``r > 1`` every live
candidate's ``lambda_max(G_S +- u u^T / d)`` is computed by one batched ``eigvalsh`` of ``p``
``r x r`` matrices (``O(p r^3)``, ``r = C - 1`` small) instead of the NumPy kernel's screening
by bounds, which needs a host round-trip per step to gather the survivors. The choice is the
same exact argmax (ties to the lowest index). Computations are in float64 where the device has
it.

**The path stays on the device.** The chosen index is a one-element device array used by
``take``; a dependent candidate (zero pivot) is handled by ``where`` (its column and its
rank-one terms are zero) instead of a host branch; the objective is a device scalar written
into a device history. The order and the objectives come back in one copy at the end, so a
GPU never waits for the host inside the path (counted on a CPU by
:func:`pixsel._round_trips.count_round_trips`).

**Why NumPy input keeps its own kernel.** The NumPy kernel is the oracle of its Numba kernel
and the kernel of small problems (below the compiled size of :mod:`pixsel._routes`); its
screening by bounds makes it faster on NumPy input than this kernel called with NumPy as its
namespace: ``benchmarks/bench_xp_twins.py`` times the pair on NumPy input.
"""

from __future__ import annotations

import numpy as np

from ..._array_api import device_of, in_working_precision
from .._criteria import spectral_criterion
from ._fullrank_xp import _argmax, _history

__all__ = ["multiclass_path_xp"]


def _crit(xp, G, criterion):
    """The criterion of the small ``r x r`` matrix ``G``, a device scalar."""
    if criterion.additive:
        return xp.sum(xp.linalg.diagonal(G))
    return xp.linalg.eigvalsh((G + G.T) / 2)[-1]


def _gains(xp, G, Uc, dc, criterion, sign):
    """``criterion(G + sign * u_i u_i^T / d_i)`` for every row ``u_i`` of ``Uc`` (one batch)."""
    if criterion.additive:
        return xp.sum(xp.linalg.diagonal(G)) + sign * xp.sum(Uc * Uc, axis=1) / dc
    if Uc.shape[1] == 1:
        return G[0, 0] + sign * Uc[:, 0] ** 2 / dc
    Us = Uc / xp.sqrt(dc)[:, None]
    stack = G[None, :, :] + sign * (Us[:, :, None] * Us[:, None, :])
    return xp.linalg.eigvalsh(stack)[:, -1]


def _forward(xp, M, B, criterion, n_steps):
    p, r = M.shape
    dev = device_of(M)
    hi = M.dtype
    eps = float(np.finfo(np.float64 if hi == xp.float64 else np.float32).eps)
    d = xp.ones((p,), dtype=hi, device=dev) if B is None else xp.asarray(xp.linalg.diagonal(B), copy=True)
    tol = p * eps * xp.maximum(xp.abs(d), xp.full((p,), 1e-300 if hi == xp.float64 else 1e-38, dtype=hi,
                                                  device=dev))
    U = xp.asarray(M, copy=True)
    L = xp.zeros((p, max(n_steps, 1)), dtype=hi, device=dev)  # a zero column for a dependent pick
    G = xp.zeros((r, r), dtype=hi, device=dev)
    pos = xp.arange(p, dtype=xp.int64, device=dev)
    free = xp.ones((p,), dtype=xp.bool, device=dev)
    minus_inf = xp.full((p,), -xp.inf, dtype=hi, device=dev)
    order = xp.zeros((n_steps,), dtype=hi, device=dev)
    objective = xp.zeros((n_steps,), dtype=hi, device=dev)
    f = xp.zeros((), dtype=hi, device=dev)
    for step in range(n_steps):
        ok = free & (d > tol)
        safe_d = xp.where(ok, d, xp.ones_like(d))
        score = xp.where(free, xp.zeros_like(d) + f, minus_inf)  # a dependent candidate adds nothing
        score = xp.where(ok, _gains(xp, G, U, safe_d, criterion, 1.0), score)
        j = _argmax(xp, score)
        order[step] = xp.astype(j[0], hi)
        free = free & (pos != j[0])
        col = xp.astype(pos == j[0], hi) if B is None else xp.take(B, j, axis=0)[0, :]  # B symmetric
        if step:
            col = col - L[:, :step] @ xp.take(L[:, :step], j, axis=0)[0, :]
        piv = xp.take(col, j)[0]
        good = xp.take(ok, j)[0] & (piv > xp.take(tol, j)[0])
        root = xp.sqrt(xp.where(good, piv, xp.ones_like(piv)))
        l = xp.where(good, col / root, xp.zeros_like(col))
        uj = xp.where(good, xp.take(U, j, axis=0)[0, :] / root, xp.zeros((r,), dtype=hi, device=dev))
        L[:, step] = l
        U = U - l[:, None] * uj[None, :]
        G = G + uj[:, None] * uj[None, :]
        d = d - l * l
        f = _crit(xp, G, criterion)
        objective[step] = f
    return _history(xp, order, objective)


def _backward(xp, M, B, criterion):
    p, r = M.shape
    dev = device_of(M)
    hi = M.dtype
    if B is None:
        P = xp.eye(p, dtype=hi, device=dev)
    else:
        try:
            xp.linalg.cholesky(B)
        except Exception as exc:
            raise ValueError(
                "The backward pass needs a positive definite B; regularize it first "
                "(pixsel.stats.regularize(B, 'auto'))."
            ) from exc
        P = xp.linalg.inv(B)
        P = (P + P.T) / 2
    W = P @ M
    G = M.T @ W
    G = (G + G.T) / 2
    pos = xp.arange(p, dtype=xp.int64, device=dev)
    alive = xp.ones((p,), dtype=xp.bool, device=dev)
    minus_inf = xp.full((p,), -xp.inf, dtype=hi, device=dev)
    order = xp.zeros((p,), dtype=hi, device=dev)
    objective = xp.zeros((p,), dtype=hi, device=dev)
    for step in range(p):
        size = p - step
        objective[size - 1] = _crit(xp, G, criterion)
        if size == 1:
            order[step] = xp.astype(_argmax(xp, xp.astype(alive, hi))[0], hi)
            break
        Pd = xp.where(alive, xp.linalg.diagonal(P), xp.ones((p,), dtype=hi, device=dev))
        score = xp.where(alive, _gains(xp, G, W, Pd, criterion, -1.0), minus_inf)
        j = _argmax(xp, score)
        order[step] = xp.astype(j[0], hi)
        u = xp.take(P, j, axis=0)[0, :]  # P symmetric: its column j
        wj = xp.take(W, j, axis=0)[0, :]
        uj = xp.take(u, j)[0]
        G = G - wj[:, None] * wj[None, :] / uj
        G = (G + G.T) / 2
        alive = alive & (pos != j[0])
        keep = xp.astype(alive, hi)  # row and column j set to zero with the downdate
        P = (P - u[:, None] * (u / uj)[None, :]) * (keep[:, None] * keep[None, :])
        W = (W - u[:, None] * (wj / uj)[None, :]) * keep[:, None]
    return _history(xp, order, objective)


def multiclass_path_xp(xp, M, B, *, direction, criterion, max_k=None):
    """``(order, objective, info)`` of the factor-form greedy path of ``(M M^T, B)`` on M's device.

    ``M`` of shape ``(p, r)`` and ``B`` (``p x p`` or None, the identity) are arrays of ``xp``,
    already checked; they are computed in float64 where the device has it. ``order`` and
    ``objective`` come back as NumPy (``p`` numbers: the path is host metadata).
    """
    criterion = spectral_criterion(criterion, owner="multiclass_path_xp")
    M, B = in_working_precision(xp, M, B)
    if direction == "forward":
        order, objective = _forward(xp, M, B, criterion, M.shape[0] if max_k is None else int(max_k))
    else:
        order, objective = _backward(xp, M, B, criterion)
    return order, objective, {"array_api": True}
