"""The binary greedy paths (forward, backward) on any array-API library, on the data's device.

The same blocked symmetric elimination as the NumPy kernel (:mod:`pixsel.spectral.greedy._rank_one`,
Moghaddam, Weiss and Avidan, 2007, Appendix): forward on ``R = B`` with the residual ``r = a`` and pivot
``argmax r_i^2 / R_ii``, backward on ``P = B^{-1}`` with ``w = P a`` and pivot
``argmin w_i^2 / P_ii``. Inside a panel of ``T`` steps only the diagonal, the vector and the
panel's columns are kept current (each new column is the stored row minus the panel's
contribution, one matrix-vector product); at the panel's end the live rows are gathered and
receive the panel's rank-``T`` update as one matrix product.

**The path stays on the device.** The pivot is chosen on the device (``argmax`` of the masked
gains, ties resolved there) and used there as a one-element index array (``take``); the
pivot's value, the objective, the zero-pivot test and the removal from the live set are device
arithmetic (``where`` instead of a host branch); the panel's compaction gathers the live rows by
a stable ``argsort`` of the removed flags, whose count the host knows without asking. Nothing
is read on the host until the end, where the order, the objectives and the zero-pivot count come
back in one copy: a GPU never waits for the host inside the path (the round trips are counted on
a CPU by :func:`pixsel._round_trips.count_round_trips`; the tests hold them constant in ``p``).

Differences from the NumPy kernel, by design: the update is a general matrix product (the
standard has no SYRK, so twice the flops of ``dsyrk``), there are no drift checkpoints (the
NumPy kernel's refactors need a Cholesky per checkpoint; ``info['checkpoints']`` is empty), and
the computation is in float64 where the device has it (float32 otherwise). Ties within a
relative ``1e-12`` go to the lowest index, as in the NumPy kernel.

**Why NumPy input keeps its own kernel.** The NumPy kernel is the oracle of its Numba panel
loop and the kernel of small problems (below the compiled size of :mod:`pixsel._routes`);
called with NumPy as its namespace this kernel gives the same path more slowly there (no SYRK,
a device-style pivot per step): ``benchmarks/bench_xp_twins.py`` times the pair on NumPy input.
"""

from __future__ import annotations

import numpy as np

from ..._array_api import has_float64, to_numpy
from ..._validation import check_form_shape, check_int, check_same_features
from .._path import SparsePath

_TIE_RTOL = 1e-12


def _default_block_size(p):
    return 16 if p <= 256 else 32 if p <= 1024 else 64


def _pick(xp, gains, alive, forward):
    """Index (a one-element device array) of the best live candidate, ties within
    ``_TIE_RTOL`` to the lowest index; no host read."""
    if forward:
        g = xp.where(alive, gains, xp.full_like(gains, -xp.inf))
        best = xp.max(g)
        ok = g >= best - _TIE_RTOL * xp.abs(best)
    else:
        g = xp.where(alive, gains, xp.full_like(gains, xp.inf))
        best = xp.min(g)
        ok = g <= best + _TIE_RTOL * xp.abs(best)
    # the standard's argmax returns the first occurrence of the maximum: the lowest index
    return xp.reshape(xp.argmax(xp.astype(ok, xp.int8)), (1,))


def _live_rows(xp, alive, n_live):
    """Positions of the live rows, in order (a stable sort of the removed flags: live first);
    ``n_live`` is known on the host, so the shape needs no read of ``alive``."""
    return xp.argsort(xp.astype(~alive, xp.int8), stable=True)[:n_live]


def rank_one_path_xp(xp, dev, a, B, direction, block_size=None, fixed_order=None):
    """``(order, objective, info)`` of the binary greedy path of ``(a, B)`` (arrays of ``xp``).

    ``order`` and ``objective`` are NumPy (``p`` numbers: the path is metadata, the work
    stayed on the device; they come back in one copy at the end). ``fixed_order`` (forward
    only, a NumPy permutation): eliminate in that order instead of the greedy one, which gives
    the objective of every prefix (the thresholding paths).
    """
    hi = xp.float64 if has_float64(xp, dev) else xp.float32
    a = xp.astype(a, hi)
    B = xp.astype(B, hi)
    p = a.shape[0]
    T = _default_block_size(p) if block_size is None else int(block_size)
    forward = direction == "forward"
    eps = float(np.finfo(np.float64 if hi == xp.float64 else np.float32).eps)
    if forward:
        M, v = B, a
        tol = p * eps * xp.maximum(xp.abs(xp.linalg.diagonal(B)), xp.full((p,), 1e-300, dtype=hi, device=dev))
        f = xp.zeros((), dtype=hi, device=dev)
    else:
        M = xp.linalg.inv(B)
        v = M @ a
        f = xp.sum(a * v)
        tol = None
    d = xp.linalg.diagonal(M)
    ids = xp.arange(p, dtype=xp.int64, device=dev)  # original index of every live row of M
    alive = xp.ones((p,), dtype=xp.bool, device=dev)
    order = xp.zeros((p,), dtype=hi, device=dev)  # exact in floating point (p < 2^24)
    objective = xp.zeros((p,), dtype=hi, device=dev)
    zero_pivots = xp.zeros((), dtype=hi, device=dev)
    fixed = None if fixed_order is None else xp.asarray(np.asarray(fixed_order, dtype=np.int64), device=dev)
    steps = 0
    while steps < p:
        m = M.shape[0]
        nb = min(T, p - steps)
        pos = xp.arange(m, dtype=xp.int64, device=dev)
        L = xp.zeros((m, nb), dtype=hi, device=dev)
        for t in range(nb):
            if forward:
                usable = d > tol
                gains = xp.where(usable, v * v / xp.where(usable, d, xp.ones_like(d)), xp.zeros_like(d))
            else:  # a removed row has d = 0 until the panel's compaction: keep it out of the division
                gains = v * v / xp.where(alive, d, xp.ones_like(d))
            if fixed is None:
                j = _pick(xp, gains, alive, forward)
            else:  # the position of the next fixed index among the live rows
                j = xp.reshape(xp.argmax(xp.astype(ids == fixed[steps], xp.int8)), (1,))
            col = xp.take(M, j, axis=0)[0, :]  # row j of the symmetric M: column j
            if t:
                col = col - L[:, :t] @ xp.take(L[:, :t], j, axis=0)[0, :]
            piv = xp.take(col, j)[0]
            vj = xp.take(v, j)[0]
            order[steps] = xp.astype(xp.take(ids, j)[0], hi)
            if forward:
                ok = piv > xp.take(tol, j)[0]
                safe = xp.where(ok, piv, xp.ones_like(piv))
                root = xp.sqrt(safe)
                l = xp.where(ok, col / root, xp.zeros_like(col))  # a zero pivot eliminates nothing
                f = f + xp.where(ok, vj * vj / safe, xp.zeros_like(f))
                zero_pivots = zero_pivots + xp.astype(~ok, hi)
                objective[steps] = f
            else:
                objective[p - 1 - steps] = f
                root = xp.sqrt(piv)
                l = col / root
                f = f - vj * vj / piv
            L[:, t] = l
            v = v - l * (vj / root)
            d = d - l * l
            alive = alive & (pos != j[0])
            steps += 1
        # the live rows gathered, then the panel's rank-nb update on them: one matrix product
        keep = _live_rows(xp, alive, m - nb)
        Lk = xp.take(L, keep, axis=0)
        M = xp.take(xp.take(M, keep, axis=0), keep, axis=1) - Lk @ Lk.T
        v, d, ids = xp.take(v, keep), xp.take(d, keep), xp.take(ids, keep)
        if tol is not None:
            tol = xp.take(tol, keep)
        alive = xp.ones((m - nb,), dtype=xp.bool, device=dev)
    # the history, copied back once
    history = to_numpy(xp.concat([order, objective, xp.reshape(zero_pivots, (1,))]), np.float64)
    info = {"block_size": T, "checkpoints": [], "refactors": [], "zero_pivots": int(history[-1]),
            "array_api": True}
    return history[:p].astype(np.intp), history[p:2 * p], info


def _symmetry_error(xp, M, name):
    Mf = xp.astype(M, xp.float64 if has_float64(xp, None) else xp.float32)
    scale = max(float(xp.max(xp.abs(Mf))), np.finfo(float).tiny)
    worst = float(xp.max(xp.abs(Mf - Mf.T)))
    if not worst <= 1e-8 * scale:
        raise ValueError(
            f"{name} must be symmetric; the largest asymmetry |{name} - {name}.T| is {worst:.3g}. "
            f"Pass ({name} + {name}.T) / 2 if that is intended."
        )


def _is_symmetric_xp(xp, M):
    Mf = xp.astype(M, xp.float64 if has_float64(xp, None) else xp.float32)
    scale = max(float(xp.max(xp.abs(Mf))), np.finfo(float).tiny) if M.shape[0] else 1.0
    return M.shape[0] == 0 or float(xp.max(xp.abs(Mf - Mf.T))) <= 1e-12 * scale


def check_form_pair_xp(xp, A, B, owner, form="vector"):
    """:func:`pixsel.spectral._forms.check_form_pair` on the device: shapes, real dtype,
    finiteness, symmetry (one reduction each; the messages of
    :func:`pixsel._validation.check_pair`). Returns the resolved form."""
    if form == "auto":
        if A.ndim == 1:
            form = "vector"
        elif A.ndim == 2 and A.shape[0] == A.shape[1] and _is_symmetric_xp(xp, A):
            form = "full"
        else:
            form = "factor"
    name = "a" if form == "vector" else "A"
    check_form_shape(A.shape, form)
    p = A.shape[0]
    if p == 0:
        raise ValueError(f"{owner} needs at least one feature; got an empty {name}.")
    if form == "factor" and A.shape[1] == 0:
        raise ValueError("The factor A has no columns: A = M M^T would be zero.")
    if B is not None:
        if B.ndim != 2 or B.shape[0] != B.shape[1]:
            raise ValueError(f"B must be a square matrix; got shape {tuple(B.shape)}.")
        check_same_features(B.shape, p, form)
    for nm, M in ((name, A), ("B", B)):
        if M is None:
            continue
        if not xp.isdtype(M.dtype, ("real floating", "integral")):
            raise TypeError(f"{nm} must hold real numbers; got dtype {M.dtype}.")
        if xp.isdtype(M.dtype, "real floating") and not bool(xp.all(xp.isfinite(M))):
            raise ValueError(f"{nm} contains NaN or infinite values; remove them before the path.")
    if form == "full":
        _symmetry_error(xp, A, "A")
    if B is not None:
        _symmetry_error(xp, B, "B")
    return form


def _check_pair_xp(xp, a, B, owner):
    """The binary kernel's pair check (a vector ``a``, a given ``B``)."""
    check_form_pair_xp(xp, a, B, owner, form="vector")


def rank_one_greedy_path_xp(xp, dev, a, B, direction, block_size=None, owner="rank_one_greedy_path"):
    """:func:`pixsel.spectral.rank_one_greedy_path` for arrays of another library (``B`` given).

    The path (``order``, ``objective``: ``p`` numbers) comes back as NumPy; ``path.A`` and
    ``path.B`` are host copies made once, so ``path.weights(k)`` and the certificates work as
    for NumPy input."""
    _check_pair_xp(xp, a, B, owner)
    if block_size is not None:
        block_size = check_int(block_size, "block_size", low=1, owner=owner)
    order, objective, info = rank_one_path_xp(xp, dev, a, B, direction, block_size)
    return SparsePath(order=order, objective=objective, direction=direction,
                      A=to_numpy(a, np.float64), B=to_numpy(B, np.float64), info=info)
