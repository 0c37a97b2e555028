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
from numba import njit

__all__ = ["secular_border_rows", "secular_deleted_rows"]

_EPS = np.finfo(np.float64).eps


@njit(cache=True, nogil=True, error_model="numpy")
def secular_border_rows(theta, b, c, lo, hi, max_iter):
    n, k = b.shape
    lam = lo.copy()
    for r in range(n):
        h = hi[r]
        la = lo[r]
        if not (h - la > 4 * _EPS * max(abs(h), 1e-300)):
            continue
        for _ in range(max_iter):
            phi = la - c[r]
            dphi = 1.0
            for j in range(k):
                if b[r, j] == 0.0:  # a decoupled pole adds nothing (not 0 / 0 when la sits on it)
                    continue
                diff = la - theta[j]
                q = b[r, j] * b[r, j] / diff
                phi -= q
                dphi += q / diff
            step = -phi / dphi
            if not math.isfinite(step):  # at a pole: nudge right
                step = 1e-8 * (h - la)
            new = min(la + max(step, 0.0), h)
            done = (phi >= 0) or (new - la <= 4 * _EPS * abs(new))
            la = new
            if done:
                break
        lam[r] = la
    return lam


@njit(cache=True, nogil=True, error_model="numpy")
def secular_deleted_rows(theta, w2, lo_in, hi_in, max_iter):
    n, k = w2.shape
    lam = np.empty(n)
    for r in range(n):
        lo = lo_in[r]
        hi = hi_in[r]
        if not (hi - lo > 4 * _EPS * max(abs(hi), 1e-300)):
            lam[r] = hi
            continue
        la = 0.5 * (lo + hi)
        for _ in range(max_iter):
            g = 0.0
            dg = 0.0
            for j in range(k):
                diff = la - theta[j]
                q = w2[r, j] / diff
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
        lam[r] = la
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
            for _ in range(max_iter):
                phi = la - cr
                dphi = 1.0
                for q in range(3):
                    if B[r, q] == 0.0:
                        continue
                    diff = la - ds[q]
                    t = B[r, q] * B[r, q] / diff
                    phi -= t
                    dphi += t / diff
                step = -phi / dphi
                if not math.isfinite(step):
                    step = 1e-8 * (hi - la)
                new = min(la + max(step, 0.0), hi)
                done = (phi >= 0) or (new - la <= 4 * _EPS * abs(new))
                la = new
                if done:
                    break
        x = la + margin[r]
        phi = x - cr
        for q in range(3):
            if B[r, q] != 0.0:
                phi -= B[r, q] * B[r, q] / (x - ds[q])
        lam[r] = x
        ok[r] = (x >= top) and (phi >= 0)
    return lam, ok
