"""Secular equations and small bordered eigenproblems: the primitives of the full-rank greedy.

A bordered or row-deleted symmetric eigenproblem has its eigenvalues at the roots of a
*secular equation* over the old spectrum ``theta``:

* bordering ``diag(theta)`` with a row ``(b, c)`` (adding a feature): the largest root of
  ``lam - c - sum_j b_j^2 / (lam - theta_j)`` (:func:`secular_border`);
* deleting a row ``w`` (in eigen-coordinates; removing a feature): the root in
  ``[theta_2, theta_1]`` of ``sum_j w_j^2 / (lam - theta_j)`` (:func:`secular_deleted`).

Both are solved for many candidates at once by safeguarded Newton iterations. The closed-form
2 x 2, 3 x 3 (arrow) and batched 4 x 4 bounds screen the candidates first, and :func:`top2`
gives the two largest eigenpairs of a small matrix. Used by the full-rank greedy
(:mod:`pixsel.spectral.greedy._fullrank`) and by support refinement (:mod:`pixsel.spectral.greedy._refine`).
"""

from __future__ import annotations

import importlib

import numpy as np
import scipy.linalg as sla

from ..._routes import compiled_enabled, note_compiled

__all__ = ["EPS", "secular_border", "secular_deleted", "deleted_top", "eig2_max", "arrow3_max", "arrow4_max", "top2"]

EPS = np.finfo(np.float64).eps
_EPS = EPS


def _compiled(name, module="_secular_jit"):
    """The Numba row loop ``name`` of ``pixsel.spectral.greedy.<module>`` (:mod:`._secular_jit` by
    default; imported on first use: importing pixsel does not pay for Numba), or ``None`` where the
    route chose NumPy."""
    if not compiled_enabled():  # the route chose the NumPy kernels (a small problem)
        return None
    note_compiled()
    return getattr(importlib.import_module(f".{module}", __package__), name)


def _rows(x, n):
    return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=np.float64), (n,)))


def _compiled_rows(name, theta, rows, bounds, max_iter):
    """The Numba kernel ``name`` on every row of ``rows`` (``bounds`` broadcast to one per row), or
    ``None`` where the route chose the NumPy kernels."""
    jit = _compiled(name)
    if jit is None:
        return None
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    n = rows.shape[0]
    return jit(np.ascontiguousarray(theta, dtype=np.float64), rows, *(_rows(x, n) for x in bounds), max_iter)


def _sweeps(active, max_iter):
    """The rows still ``active`` (indices), once a sweep, for at most ``max_iter`` sweeps: the
    caller clears the rows that converged, and the sweeps stop when none is left."""
    for _ in range(max_iter):
        if not active.any():
            return
        yield np.flatnonzero(active)


def secular_border(theta, b, c, lo, hi, max_iter=100, compiled=True):
    """Largest root of ``phi(lam) = lam - c - sum_j b_j^2 / (lam - theta_j)`` in ``[lo, hi]``.

    ``phi`` is increasing and concave right of the largest pole, so Newton's method started
    from a lower bound (``phi(lo) <= 0``) climbs monotonically to the root and converges
    quadratically; every iterate stays a lower bound. All rows at once (``compiled``: one
    Numba loop per row, :mod:`pixsel.spectral.greedy._secular_jit`; ``False``: vectorized NumPy).
    """
    lam = _compiled_rows("secular_border_rows", theta, b, (c, lo, hi), max_iter) if compiled else None
    if lam is not None:
        return lam
    b2 = b * b
    lam = lo.copy()
    active = hi - lo > 4 * _EPS * np.maximum(np.abs(hi), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for ia in _sweeps(active, max_iter):
            la = lam[ia]
            diff = la[:, None] - theta[None, :]
            q = np.where(b2[ia] == 0.0, 0.0, b2[ia] / diff)  # a decoupled pole adds nothing
            phi = la - c[ia] - q.sum(axis=1)
            dphi = 1.0 + np.where(q == 0.0, 0.0, q / diff).sum(axis=1)
            step = -phi / dphi
            bad = ~np.isfinite(step)  # at a pole: nudge right
            step[bad] = 1e-8 * (hi[ia][bad] - la[bad])
            new = np.minimum(la + np.maximum(step, 0.0), hi[ia])
            done = (phi >= 0) | (new - la <= 4 * _EPS * np.abs(new))
            lam[ia] = new
            active[ia[done]] = False
    return lam


def secular_deleted(theta, w2, lo, hi, max_iter=100, compiled=True):
    """Root of ``sum_j w2_j / (lam - theta_j)`` in ``[lo, hi]`` (decreasing there), rows at once
    (``compiled`` as in :func:`secular_border`)."""
    lam = _compiled_rows("secular_deleted_rows", theta, w2, (lo, hi), max_iter) if compiled else None
    if lam is not None:
        return lam
    lo = lo.copy()
    hi = hi.copy()
    lam = 0.5 * (lo + hi)
    active = hi - lo > 4 * _EPS * np.maximum(np.abs(hi), 1e-300)
    lam[~active] = hi[~active]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for ia in _sweeps(active, max_iter):
            la = lam[ia]
            diff = la[:, None] - theta[None, :]
            q = w2[ia] / diff
            g = q.sum(axis=1)
            dg = -(q / diff).sum(axis=1)
            pos = g > 0  # root to the right
            lo[ia] = np.where(pos, la, lo[ia])
            hi[ia] = np.where(pos, hi[ia], la)
            new = la - g / dg
            bad = ~((new > lo[ia]) & (new < hi[ia])) | ~np.isfinite(new)
            new[bad] = 0.5 * (lo[ia][bad] + hi[ia][bad])
            done = (np.abs(new - la) <= 2 * _EPS * np.abs(new)) | (
                hi[ia] - lo[ia] <= 4 * _EPS * np.maximum(np.abs(hi[ia]), 1e-300)
            )
            lam[ia] = new
            active[ia[done]] = False
    return lam


def deleted_top(theta, w2, lo, hi, max_iter=100):
    """The root of :func:`secular_deleted` in ``[lo, hi]`` within ``[theta_2, theta_1]``, by the
    two-pole iteration: three or four vectorized sweeps where Newton takes some thirty.

    ``theta`` ascending (``theta_1 = theta[-1]``, ``theta_2 = theta[-2]``), each row's
    ``[lo, hi]`` within ``[theta_2, theta_1]`` and bracketing its root. Each sweep replaces the
    terms of ``theta_2`` and below by ``s / (lam - theta_2) + c`` with the value and slope they
    have at the current point (``c >= 0``: the lower poles are farther away) and moves to the root
    of ``w_1 / (lam - theta_1) + s / (lam - theta_2) + c`` (a quadratic); a step that leaves the
    bracket, which the sign of the sum keeps, is replaced by bisection. A row stops when its step
    is at rounding level or its bracket is. The NumPy form of
    :func:`pixsel.spectral.greedy._refine_jit.deleted_top_rows`, row for row the same iteration
    (with or without Numba, the route chooses; rows with no pole at ``theta_1`` take
    :func:`secular_deleted`'s Newton).
    """
    jit = _compiled("deleted_top_rows", "_refine_jit")
    if jit is not None:
        f64 = np.float64
        return jit(np.ascontiguousarray(theta, dtype=f64), np.ascontiguousarray(w2, dtype=f64),
                   np.ascontiguousarray(lo, dtype=f64), np.ascontiguousarray(hi, dtype=f64), max_iter)
    theta = np.asarray(theta, dtype=np.float64)
    w2 = np.asarray(w2, dtype=np.float64)
    lo = np.array(lo, dtype=np.float64)
    hi = np.array(hi, dtype=np.float64)
    th1, th2 = theta[-1], theta[-2]
    gap = th1 - th2
    w1 = w2[:, -1]
    wide = hi - lo > 4 * _EPS * np.maximum(np.abs(hi), 1e-300)
    pole = (w1 > 0.0) & (gap > 0.0)
    lam = np.where(pole, hi, 0.5 * (lo + hi))  # a closed bracket: its end (or its middle, no pole)
    newton = ~pole & wide  # no pole at theta_1 in the bracket: Newton
    if newton.any():
        lam[newton] = secular_deleted(theta, w2[newton], lo[newton], hi[newton], max_iter, compiled=False)
    active = pole & wide
    lam[active] = 0.5 * (lo[active] + hi[active])
    low_theta, low_w2 = theta[:-1], w2[:, :-1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for ia in _sweeps(active, max_iter):
            la = lam[ia]
            diff = la[:, None] - low_theta[None, :]
            q = low_w2[ia] / diff
            p = q.sum(axis=1)  # the terms of theta_2 and below, and their slope
            dp = -(q / diff).sum(axis=1)
            g = p + w1[ia] / (la - th1)
            right = g > 0  # root to the right
            lo_a = np.where(right, la, lo[ia])
            hi_a = np.where(right, hi[ia], la)
            lo[ia], hi[ia] = lo_a, hi_a
            y0 = la - th2
            s = -dp * y0 * y0
            c = np.maximum(p - s / y0, 0.0)
            # root y = lam - theta_2 in (0, gap) of c y^2 + (w1 + s - c gap) y - s gap = 0
            b = w1[ia] + s - c * gap
            disc = np.sqrt(b * b + 4.0 * c * s * gap)
            y = np.where(b > 0.0, 2.0 * s * gap / (b + disc), np.where(c > 0.0, (disc - b) / (2.0 * c), -1.0))
            new = th2 + y
            converged = np.abs(new - la) <= 4 * _EPS * np.abs(la)  # a step at rounding level: keep la
            outside = ~((new > lo_a) & (new < hi_a)) | ~np.isfinite(new)
            new = np.where(outside, 0.5 * (lo_a + hi_a), new)
            closed = hi_a - lo_a <= 4 * _EPS * np.maximum(np.abs(hi_a), 1e-300)
            lam[ia] = np.where(converged, la, new)
            active[ia[converged | closed]] = False
    return lam


def eig2_max(a, b, c):
    """Largest eigenvalue of [[a, b], [b, c]] elementwise."""
    return 0.5 * (a + c) + np.sqrt(0.25 * (a - c) ** 2 + b * b)


def arrow3_max(a, b, c, d, e):
    """Upper bound (within 1e-7 relative) on lambda_max of [[a, 0, d], [0, b, e], [d, e, c]].

    Closed-form trigonometric solution (vectorized); its rounding error, at worst about
    sqrt(eps) relative near a double eigenvalue, is covered by the returned inflation. Also never
    above the 2 x 2 bound on ``(max(a, b), sqrt(d^2 + e^2), c)``, which is exact arithmetic-safe.
    """
    q = (a + b + c) / 3.0
    p1 = d * d + e * e
    a_, b_, c_ = a - q, b - q, c - q
    p2 = a_ * a_ + b_ * b_ + c_ * c_ + 2.0 * p1
    pp = np.sqrt(p2 / 6.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        det = (a_ * b_ * c_ - a_ * e * e - b_ * d * d) / np.where(pp > 0, pp, 1.0) ** 3
    r = np.clip(det / 2.0, -1.0, 1.0)
    lam = q + 2.0 * pp * np.cos(np.arccos(r) / 3.0)
    scale = np.abs(a) + np.abs(b) + np.abs(c) + np.sqrt(p1)
    lam = lam + 1e-7 * scale
    two = eig2_max(np.maximum(a, b), np.sqrt(p1), c) + 1e-12 * scale
    return np.minimum(lam, two)


def top2(M):
    """Two largest eigenpairs of a small symmetric matrix (one tridiagonalization, no full basis)."""
    t = M.shape[0]
    w, V = sla.eigh(M, subset_by_index=[max(0, t - 2), t - 1], driver="evr")
    th2 = w[0] if t > 1 else w[-1]
    return w[-1], th2, V[:, -1]


def arrow4_max(d1, d2, d3, c, b1, b2, b3, compiled=True):
    """Largest eigenvalue of the arrow matrices ``[[diag(d1, d2, d3), b], [b^T, c]]`` (rows at once),
    inflated by ``1e-12`` of the entries' scale so that it is an upper bound despite rounding.

    ``compiled`` (with scalar ``d1, d2, d3``): the largest root of the secular equation by a
    Numba Newton loop (:func:`pixsel.spectral.greedy._secular_jit.arrow4_rows`), climbing from the
    best 2 x 2 lower bound, its margin certified by the sign of the secular function (a batched
    4 x 4 ``eigvalsh`` is dominated by LAPACK's call overhead per row); otherwise that ``eigvalsh``.
    """
    n = len(c)
    scalar = np.ndim(d1) == np.ndim(d2) == np.ndim(d3) == 0
    jit = _compiled("arrow4_rows") if compiled and n and scalar else None
    if jit is not None:
        d = np.array([d1, d2, d3], dtype=np.float64)
        o = np.argsort(d, kind="stable")
        B = np.empty((n, 3))
        B[:, 0], B[:, 1], B[:, 2] = b1, b2, b3
        c = _rows(c, n)
        scale = abs(d1) + abs(d2) + abs(d3) + np.abs(c) + np.abs(B).sum(axis=1)
        lam, ok = jit(d[o], np.ascontiguousarray(B[:, o]), c, 1e-12 * scale, 100)
        bad = np.flatnonzero(~ok)
        if len(bad):  # Newton stalled within rounding of a pole: LAPACK for those rows
            lam[bad] = arrow4_max(d1, d2, d3, c[bad], B[bad, 0], B[bad, 1], B[bad, 2], compiled=False)
        return lam
    T = np.zeros((n, 4, 4))
    T[:, 0, 0], T[:, 1, 1], T[:, 2, 2], T[:, 3, 3] = d1, d2, d3, c
    T[:, 0, 3] = T[:, 3, 0] = b1
    T[:, 1, 3] = T[:, 3, 1] = b2
    T[:, 2, 3] = T[:, 3, 2] = b3
    lam = np.linalg.eigvalsh(T)[:, -1]
    scale = np.abs(d1) + np.abs(d2) + np.abs(d3) + np.abs(c) + np.abs(b1) + np.abs(b2) + np.abs(b3)
    return lam + 1e-12 * scale
