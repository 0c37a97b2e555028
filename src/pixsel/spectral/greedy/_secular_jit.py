"""Compiled (Numba) row loops of the secular-equation solvers of :mod:`pixsel.spectral.greedy._secular`.

The NumPy solvers iterate Newton's method on all rows at once: each iteration is a dozen array
calls, so a batch of a few hundred short rows costs milliseconds of dispatch, and the refinement
(:mod:`pixsel.spectral.greedy._refine`) solves thousands of such batches. Here each row runs its own
safeguarded Newton iteration to convergence, with the same steps, stopping rules and bounds as
the NumPy version (``error_model='numpy'``: a division at a pole gives ``inf``, which the
safeguards catch, exactly as under ``np.errstate``). Imported lazily by ``_secular``.
"""

from __future__ import annotations

import math

import numpy as np
from ..._optional import numba as _numba

njit = _numba().njit  # Numba is optional: without it, a clear error naming the extra that installs it

__all__ = ["secular_border_rows", "secular_deleted_rows"]

_EPS = np.finfo(np.float64).eps


@njit(cache=True, nogil=True, error_model="numpy")
def border_root(d, b, c, la, hi, max_iter):
    """The root in ``[la, hi]`` of the increasing ``phi(x) = x - c - sum_j b_j^2 / (x - d_j)``
    (the top eigenvalue of the arrowhead ``[[diag(d), b], [b^T, c]]``), by Newton from the left:
    each step is clipped to ``[la, hi]`` (a step at a pole nudges right); it stops once
    ``phi >= 0`` or the step is at rounding level. The row loops here share it."""
    for _ in range(max_iter):
        phi = la - c
        dphi = 1.0
        for j in range(b.shape[0]):
            if b[j] == 0.0:  # a decoupled pole adds nothing (not 0 / 0 when la sits on it)
                continue
            diff = la - d[j]
            q = b[j] * b[j] / diff
            phi -= q
            dphi += q / diff
        step = -phi / dphi
        if not math.isfinite(step):  # at a pole: nudge right
            step = 1e-8 * (hi - la)
        new = min(la + max(step, 0.0), hi)
        done = (phi >= 0) or (new - la <= 4 * _EPS * abs(new))
        la = new
        if done:
            break
    return la


@njit(cache=True, nogil=True, error_model="numpy")
def deleted_root(theta, w2, lo, hi, max_iter):
    """The root in the open bracket ``[lo, hi]`` of the decreasing ``g(x) = sum_j w2_j / (x - theta_j)``
    by safeguarded Newton from the middle: the sign of ``g`` keeps the bracket, a step that
    leaves it is a bisection; it stops when the step or the bracket is at rounding level.
    :func:`secular_deleted_rows` and the refinement's
    :func:`pixsel.spectral.greedy._refine_jit.deleted_top_rows` share it."""
    la = 0.5 * (lo + hi)
    for _ in range(max_iter):
        g = 0.0
        dg = 0.0
        for j in range(w2.shape[0]):
            diff = la - theta[j]
            q = w2[j] / diff
            g += q
            dg -= q / diff
        if g > 0:  # root to the right
            lo = la
        else:
            hi = la
        new = la - g / dg
        if not ((new > lo) and (new < hi)) or not math.isfinite(new):
            new = 0.5 * (lo + hi)
        done = (abs(new - la) <= 2 * _EPS * abs(new)) or (hi - lo <= 4 * _EPS * max(abs(hi), 1e-300))
        la = new
        if done:
            break
    return la


@njit(cache=True, nogil=True, error_model="numpy")
def secular_border_rows(theta, b, c, lo, hi, max_iter):
    n = b.shape[0]
    lam = lo.copy()
    for r in range(n):
        h = hi[r]
        la = lo[r]
        if not (h - la > 4 * _EPS * max(abs(h), 1e-300)):
            continue
        lam[r] = border_root(theta, b[r], c[r], la, h, max_iter)
    return lam


@njit(cache=True, nogil=True, error_model="numpy")
def secular_deleted_rows(theta, w2, lo_in, hi_in, max_iter):
    n = w2.shape[0]
    lam = np.empty(n)
    for r in range(n):
        lo = lo_in[r]
        hi = hi_in[r]
        if not (hi - lo > 4 * _EPS * max(abs(hi), 1e-300)):
            lam[r] = hi
            continue
        lam[r] = deleted_root(theta, w2[r], lo, hi, max_iter)
    return lam


@njit(cache=True, nogil=True, error_model="numpy")
def _eig2(a, b, c):
    return 0.5 * (a + c) + math.sqrt(0.25 * (a - c) ** 2 + b * b)


@njit(cache=True, nogil=True, error_model="numpy")
def arrow4_rows(ds, B, c, margin, max_iter):
    """Upper bounds on ``lambda_max([[diag(ds), B_r], [B_r^T, c_r]])`` (``ds`` ascending, 3 poles).

    Newton on the secular equation from the best 2 x 2 lower bound on ``(e_q, e_4)``, then
    ``margin[r]`` added and certified by ``phi >= 0`` right of the top pole (``phi`` increases
    there). Returns ``(lam, ok)``; rows with ``ok`` False (Newton stalled within rounding of a
    pole) are left to the caller's dense fallback.
    """
    n = B.shape[0]
    top = ds[2]
    lam = np.empty(n)
    ok = np.empty(n, dtype=np.bool_)
    for r in range(n):
        cr = c[r]
        lo = max(top, cr)
        nb2 = 0.0
        for q in range(3):
            lo = max(lo, _eig2(ds[q], B[r, q], cr))
            nb2 += B[r, q] * B[r, q]
        hi = max(_eig2(top, math.sqrt(nb2), cr), lo)
        la = lo
        if hi - la > 4 * _EPS * max(abs(hi), 1e-300):
            la = border_root(ds, B[r], cr, la, hi, max_iter)
        x = la + margin[r]
        phi = x - cr
        for q in range(3):
            if B[r, q] != 0.0:
                phi -= B[r, q] * B[r, q] / (x - ds[q])
        lam[r] = x
        ok[r] = (x >= top) and (phi >= 0)
    return lam, ok
