"""Compiled (Numba) kernels of the support refinement (:mod:`pixsel.spectral.greedy._refine`).

:func:`deleted_top_rows` solves the same secular equations as
:func:`pixsel.spectral.greedy._secular_jit.secular_deleted_rows` (the largest eigenvalue of ``A_{S-i}``
for many rows ``i`` at once) with a two-pole rational model instead of Newton's tangent: near
the top root the secular function is dominated by its poles at ``theta_1`` and ``theta_2``, which
the tangent does not follow, so Newton from the bracket's middle needs some 30 safeguarded steps
per row at ``k = 300``; the model, exact in those two poles, needs three or four. Imported lazily.
"""

from __future__ import annotations

import math

import numpy as np
from ..._optional import numba as _numba

from ._secular_jit import deleted_root

njit = _numba().njit  # Numba is optional: without it, a clear error naming the extra that installs it

__all__ = ["deleted_top_rows", "second_root_rows"]

_EPS = np.finfo(np.float64).eps


@njit(cache=True, nogil=True, error_model="numpy")
def deleted_top_rows(theta, w2, lo_in, hi_in, max_iter):
    """Root in ``[lo_r, hi_r]`` of ``g(lam) = sum_j w2[r, j] / (lam - theta_j)`` for every row ``r``.

    ``theta`` ascending (``theta_1 = theta[-1]``, ``theta_2 = theta[-2]``), ``[lo_r, hi_r]``
    within ``[theta_2, theta_1]`` and bracketing the root (``g`` decreases there). Each step
    replaces the terms of ``theta_2`` and below by ``s / (lam - theta_2) + c`` with the value
    and slope they have at the current point (``c >= 0``: the lower poles are farther away) and
    moves to the root of ``w_1 / (lam - theta_1) + s / (lam - theta_2) + c`` (a quadratic); a
    step that leaves the bracket, which the sign of ``g`` keeps, is replaced by bisection.
    It stops when the model's step is at rounding level (a step that the bracket, itself at
    rounding level around the root, would turn into a bisection) or the bracket is.
    """
    n, k = w2.shape
    lam = np.empty(n)
    th1 = theta[k - 1]
    th2 = theta[k - 2]
    gap = th1 - th2
    for r in range(n):
        lo = lo_in[r]
        hi = hi_in[r]
        w1 = w2[r, k - 1]
        if not (hi - lo > 4 * _EPS * max(abs(hi), 1e-300)) or not (w1 > 0.0) or not (gap > 0.0):
            if not (w1 > 0.0) or not (gap > 0.0):  # no pole at theta_1 in the bracket: Newton, as before
                if hi - lo > 4 * _EPS * max(abs(hi), 1e-300):
                    lam[r] = deleted_root(theta, w2[r], lo, hi, max_iter)
                else:
                    lam[r] = 0.5 * (lo + hi)
            else:
                lam[r] = hi
            continue
        la = 0.5 * (lo + hi)
        for _ in range(max_iter):
            p = 0.0  # the terms of theta_2 and below, and their slope
            dp = 0.0
            for j in range(k - 1):
                diff = la - theta[j]
                q = w2[r, j] / diff
                p += q
                dp -= q / diff
            g = p + w1 / (la - th1)
            if g > 0:  # root to the right
                lo = la
            else:
                hi = la
            y0 = la - th2
            s = -dp * y0 * y0
            c = p - s / y0
            if c < 0.0:
                c = 0.0
            # root y = lam - theta_2 in (0, gap) of c y^2 + (w1 + s - c gap) y - s gap = 0
            b = w1 + s - c * gap
            disc = math.sqrt(b * b + 4.0 * c * s * gap)
            if b > 0.0:
                y = 2.0 * s * gap / (b + disc)
            elif c > 0.0:
                y = (disc - b) / (2.0 * c)
            else:
                y = -1.0
            new = th2 + y
            if abs(new - la) <= 4 * _EPS * abs(la):  # converged: a step at rounding level
                break
            if not ((new > lo) and (new < hi)) or not math.isfinite(new):
                new = 0.5 * (lo + hi)
            done = hi - lo <= 4 * _EPS * max(abs(hi), 1e-300)
            la = new
            if done:
                break
        lam[r] = la
    return lam


@njit(cache=True, nogil=True, error_model="numpy")
def second_root_rows(theta, b, c, max_iter):
    """Upper bounds on the second eigenvalue of every bordered ``[[diag(theta), b_r], [b_r^T, c_r]]``.

    The iteration of :func:`pixsel.spectral.greedy._refine._second_root` (safeguarded Newton on
    the increasing ``phi(lam) = lam - c - sum_l b_l^2 / (lam - theta_l)`` in ``[theta_2, theta_1]``,
    returning ``hi`` with ``phi(hi) >= 0``, within ``tol`` of the root) with one change: Newton
    approaches the root from one side, so the bracket's other end used to close by bisection
    only, some thirty steps a row. Once a Newton step is below ``tol / 4``, ``phi`` is tried at
    ``lam + tol / 2``; when it is ``>= 0`` that point is returned (an upper bound within ``tol``).
    """
    n, k = b.shape
    th1 = theta[k - 1]
    th2 = theta[k - 2]
    scale = abs(th1) + abs(theta[0]) + 1e-300
    tol = 1e-9 * (th1 - th2) + 4 * _EPS * scale
    out = np.empty(n)
    for r in range(n):
        lo = th2
        hi = th1
        la = 0.5 * (lo + hi)
        for _ in range(max_iter):
            phi = la - c[r]
            dphi = 1.0
            for j in range(k):
                diff = la - theta[j]
                q = b[r, j] * b[r, j] / diff
                phi -= q
                dphi += q / diff
            if not (phi < 0):  # phi(la) >= 0 (or nan at a pole): the root is at or left of la
                hi = la
            else:
                lo = la
            new = la - phi / dphi
            if abs(new - la) <= 0.25 * tol and math.isfinite(new):
                trial = min(max(la, new) + 0.5 * tol, hi)
                if trial < hi:
                    ph = trial - c[r]
                    for j in range(k):
                        ph -= b[r, j] * b[r, j] / (trial - theta[j])
                    if not (ph < 0):
                        hi = trial
                        break
            if not ((new > lo) and (new < hi)):
                new = 0.5 * (lo + hi)
            la = new
            if hi - lo <= tol:
                break
        out[r] = hi
    return out
