"""Compiled (Numba) loops of the multiclass greedy paths (:mod:`pixsel.spectral.greedy._multiclass`).

Both directions of the ``'max-eig'`` path need, for every candidate ``i``, the largest eigenvalue
of a rank-one change of the current ``r x r`` matrix ``G_S = V diag(theta) V^T``:

* forward (add ``i``): ``lambda_max(G + w w^T)``; with ``z = V^T w`` it is the root
  ``lambda >= theta_max`` of ``g(lambda) = sum_j z_j^2 / (lambda - theta_j) = 1``
  (:func:`top_eig_added`);
* backward (remove ``i``): ``lambda_max(G - w w^T)``; the root in ``[theta_2, theta_1]`` of
  ``1 + sum_j z_j^2 / (lambda - theta_j) = 0`` (interlacing; :func:`top_eig_removed`).

Both are ``O(r)`` per Newton iteration and candidate, against ``O(r^3)`` for an eigensolver per
candidate (the batched ``eigvalsh`` the paths used before, kept as ``method='eigh'``, the
reference). Candidates are first screened by certified bounds; a candidate whose upper bound
falls below the best lower bound found so far stops early (its value is then a lower bound,
reported as ``-inf``: it cannot win). The tie rule of the paths (lowest index) is applied by the
caller on the returned values.

:func:`backward_path` runs the whole backward elimination (the partitioned-inverse downdates of
``P = B^{-1}`` and ``W = P M``) in one compiled loop, compacting the live block as features go,
so the path costs ``~p^3 / 3`` multiply-adds for the inverse updates plus ``O(p^2 r^2)`` for the
eigen-coordinates. Imported lazily by ``_multiclass``.
"""

from __future__ import annotations

import math

import numpy as np
from ..._optional import numba as _numba

from ._fullrank_jit import swap_delete

njit = _numba().njit  # Numba is optional: without it, a clear error naming the extra that installs it

__all__ = ["top_eig_added", "top_eig_removed", "backward_path"]

_EPS = np.finfo(np.float64).eps


@njit(cache=True, nogil=True, error_model="numpy")
def _squared_row(Z, i, scale, z2):
    """``z2 = Z[i]^2 / scale``: candidate ``i``'s squared eigen-coordinates (``w = Z[i] / sqrt(scale)``)."""
    for j in range(z2.shape[0]):
        z2[j] = Z[i, j] * Z[i, j] / scale


@njit(cache=True, nogil=True, error_model="numpy")
def _root_added(theta, z2, lo, hi, floor):
    """Root ``lam >= theta[-1]`` of ``sum z2 / (lam - theta) = 1`` in ``[lo, hi]`` (Newton on
    ``psi = 1 / g``, increasing and concave there, from the lower bound ``lo``). Stops early at a
    lower bound once ``hi < floor``; returns ``(value, converged)``."""
    r = theta.shape[0]
    tmax = theta[r - 1]
    scale = max(abs(hi), 1e-300)
    tol = 4 * _EPS * scale
    if z2[r - 1] == 0.0:
        # the top pole is decoupled: the top stays theta_1 (exactly, so that ties stay ties)
        # unless the other poles alone push a root past it
        g = 0.0
        for j in range(r - 1):
            if z2[j] != 0.0:
                g += z2[j] / (tmax - theta[j]) if tmax > theta[j] else np.inf
        if g <= 1.0:
            return tmax, True
    lam = max(lo, tmax + tol)
    if hi < lam:
        hi = lam
    for _ in range(100):
        if hi < floor:
            return lam, False
        g = 0.0
        h2 = 0.0
        for j in range(r):
            if z2[j] == 0.0:
                continue
            inv = 1.0 / (lam - theta[j])
            q = z2[j] * inv
            g += q
            h2 += q * inv
        if g >= 1.0:
            lo = lam
        else:
            hi = min(hi, lam)
        if h2 == 0.0:  # w = 0: nothing added
            return max(lam, lo), True
        step = g * (g - 1.0) / h2
        if abs(step) <= tol:
            return max(lam, lo), True
        new = lam + step
        if not math.isfinite(new) or new < lo or new > hi:
            new = 0.5 * (lo + hi)
        if hi - lo <= tol:
            return max(new, lo), True
        lam = new
    return max(lam, lo), True


@njit(cache=True, nogil=True, error_model="numpy")
def _two_pole_added(a, b, delta):
    """The root ``x >= 0`` of ``a / x + b / (x + delta) = 1`` (``a, b, delta >= 0``), stably."""
    c = a + b - delta
    disc = math.sqrt(c * c + 4.0 * a * delta)
    if c >= 0:
        return 0.5 * (c + disc)
    if disc - c > 0:
        return 2.0 * a * delta / (disc - c)
    return 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def top_eig_added(theta, Z, dc, floor0):
    """``lambda_max(diag(theta) + w w^T)`` per row, ``w = Z[i] / sqrt(dc[i])`` (``theta``
    ascending). Rows that cannot reach the best value (their upper bound is below the best lower
    bound) get ``-inf``; the largest value is exact. Returns ``(vals, n_solved)``."""
    n, r = Z.shape
    tmax = theta[r - 1]
    lower = np.empty(n)
    upper = np.empty(n)
    best_lower = floor0
    delta = tmax - theta[r - 2] if r > 1 else 0.0
    for i in range(n):
        # two-pole bounds: the exact top eigenvalue on the top two eigenvectors (a Rayleigh
        # quotient, below) and the root with every lower pole moved up to theta_2 (above)
        z1 = Z[i, r - 1] * Z[i, r - 1] / dc[i]
        z2 = Z[i, r - 2] * Z[i, r - 2] / dc[i] if r > 1 else 0.0
        nrm = 0.0
        for j in range(r):
            nrm += Z[i, j] * Z[i, j]
        nrm /= dc[i]
        lower[i] = tmax + _two_pole_added(z1, z2, delta)
        upper[i] = max(tmax + _two_pole_added(z1, max(nrm - z1, 0.0), delta), lower[i])
        if lower[i] > best_lower:
            best_lower = lower[i]
    scale = max(abs(tmax), 1e-300)
    for i in range(n):
        scale = max(scale, upper[i])
    slack = 1e-12 * scale
    # visit the candidates by decreasing upper bound: the best is usually found first
    orderi = np.argsort(-upper)
    vals = np.full(n, -np.inf)
    z2 = np.empty(r)
    n_solved = 0
    for t in range(n):
        i = orderi[t]
        if upper[i] < best_lower - slack:
            break
        _squared_row(Z, i, dc[i], z2)
        v, ok = _root_added(theta, z2, lower[i], upper[i], best_lower - slack)
        n_solved += 1
        if ok:
            vals[i] = v
            if v > best_lower:
                best_lower = v
    return vals, n_solved


@njit(cache=True, nogil=True, error_model="numpy")
def _two_pole(c2, o2, delta):
    """The root ``x`` in ``[0, delta]`` of ``1 - c2 / (delta - x) + o2 / x = 0``: the top
    eigenvalue ``theta_2 + x`` of ``diag(theta) - w w^T`` when only the poles ``theta_1`` (weight
    ``c2``) and ``theta_2 = theta_1 - delta`` (weight ``o2``) are kept; stable quadratic formula."""
    c = delta - c2 - o2
    disc = math.sqrt(c * c + 4.0 * o2 * delta)
    if c >= 0:
        x = 0.5 * (c + disc)
    elif disc - c > 0:
        x = 2.0 * o2 * delta / (disc - c)
    else:
        x = 0.0
    return min(max(x, 0.0), delta)


@njit(cache=True, nogil=True, error_model="numpy")
def _removed_bounds(theta, z2):
    """Certified ``(lower, upper)`` on ``lambda_max(diag(theta) - w w^T)``, ``z2 = w^2``.

    With ``h(lam) = 1 + sum_j z2_j / (lam - theta_j)`` (decreasing on ``(theta_2, theta_1)``, its
    root is the answer), dropping the poles below ``theta_2`` (positive terms there) gives a
    function below ``h`` (a lower root), moving them up to ``theta_2`` one above it (an upper
    root); both are two-pole quadratics. Also ``theta_1 - z2_1`` (a Rayleigh quotient) is below.
    """
    r = theta.shape[0]
    t1 = theta[r - 1]
    if r == 1:
        v = t1 - z2[0]
        return v, v
    rest = 0.0
    for j in range(r - 1):
        rest += z2[j]
    t2 = theta[r - 2]
    delta = t1 - t2
    lo = t2 + _two_pole(z2[r - 1], z2[r - 2], delta)
    hi = t2 + _two_pole(z2[r - 1], rest, delta)
    lo = max(lo, t1 - z2[r - 1])
    return min(lo, hi), max(lo, hi)


@njit(cache=True, nogil=True, error_model="numpy")
def _root_removed(theta, z2, lo, hi):
    """``lambda_max(diag(theta) - w w^T)`` (``theta`` ascending, ``z2 = w^2``) in ``[lo, hi]``.

    Each iteration keeps the top pole exact and linearizes the rest, ``phi(lam) = 1 + sum_{j<r}
    z2_j / (lam - theta_j)`` (convex, decreasing): the model ``z2_r / (x - theta_1) + phi +
    phi' (x - lam)`` lies below ``h``, so its root (a quadratic) is a lower bound and the iterates
    climb monotonically from ``lo`` to the root, quadratically."""
    r = theta.shape[0]
    t1 = theta[r - 1]
    scale = max(abs(t1), abs(lo), 1e-300)
    tol = 4 * _EPS * scale
    if hi - lo <= tol:
        return hi
    z1 = z2[r - 1]
    lam = lo
    for _ in range(60):
        phi = 1.0
        dphi = 0.0
        for j in range(r - 1):
            if z2[j] == 0.0:
                continue
            inv = 1.0 / (lam - theta[j])
            q = z2[j] * inv
            phi += q
            dphi -= q * inv
        if not math.isfinite(phi) or not math.isfinite(dphi):
            return lam  # on a lower pole: the root is within rounding of it
        e = lam - t1
        a = phi - dphi * e
        D = a * a - 4.0 * dphi * z1
        sq = math.sqrt(max(D, 0.0))
        if a > 0:
            dlt = -2.0 * z1 / (a + sq)
        elif dphi < 0:
            dlt = (-a + sq) / (2.0 * dphi)
        else:
            dlt = 0.0
        new = t1 + dlt
        if new > hi:
            new = hi
        if new <= lam + tol:
            return max(new, lam)
        lam = new
    return lam


@njit(cache=True, nogil=True, error_model="numpy")
def top_eig_removed(theta, Z, dc):
    """``lambda_max(diag(theta) - w w^T)`` per row, ``w = Z[i] / sqrt(dc[i])`` (every row
    solved; the backward path screens instead)."""
    n, r = Z.shape
    vals = np.empty(n)
    z2 = np.empty(r)
    for i in range(n):
        _squared_row(Z, i, dc[i], z2)
        lo, hi = _removed_bounds(theta, z2)
        vals[i] = _root_removed(theta, z2, lo, hi)
    return vals


@njit(cache=True, nogil=True, error_model="numpy")
def _gram_downdate(G, w, piv):
    """``G -= w w^T / piv``: the removed feature's share of ``G = M_S^T P_S M_S`` (``w`` its row
    of ``W``, ``piv`` its diagonal entry of ``P``)."""
    r = w.shape[0]
    for a in range(r):
        for b in range(r):
            G[a, b] -= w[a] * w[b] / piv


@njit(cache=True, nogil=True, error_model="numpy")
def _backward_choice(G, W, d, idx, m, trace, objective, z2, lo_b, hi_b):
    """One step of a backward elimination with ``m`` live features: the objective now and the
    feature to remove (the rule shared by :func:`backward_path` and the ``n``-form loop of
    :mod:`._lowrank_jit`).

    Symmetrizes ``G`` against drift and writes ``objective[m - 1]`` (``tr G`` when ``trace``,
    else ``lambda_max(G)``). For ``m > 1`` returns ``(q, n_solved)``: the live position ``q``
    whose removal leaves the largest objective (ties to the lowest ``idx``) and the exact roots
    solved; ``(-1, 0)`` for ``m == 1``. The candidates' values use ``W[:m]`` and ``d[:m]`` (the
    diagonal of ``P`` at the live positions): ``tr G - |W_i|^2 / d_i`` for the trace; for the
    largest eigenvalue, two-pole bounds for every candidate and the secular root for those,
    by decreasing upper bound, whose bound still reaches the best value found. ``z2`` (``r``),
    ``lo_b`` and ``hi_b`` (at least ``m``) are scratch.
    """
    r = G.shape[0]
    for a in range(r):  # symmetrize against drift
        for b in range(a):
            v = 0.5 * (G[a, b] + G[b, a])
            G[a, b] = v
            G[b, a] = v
    tr = 0.0
    for a in range(r):
        tr += G[a, a]
    if trace:
        objective[m - 1] = tr
    else:
        theta, V = np.linalg.eigh(G)
        objective[m - 1] = theta[r - 1]
    if m == 1:
        return -1, 0
    best = -np.inf
    q = -1
    n_solved = 0
    if trace:
        for i in range(m):
            s = 0.0
            for a in range(r):
                s += W[i, a] * W[i, a]
            val = tr - s / d[i]
            if q < 0 or val > best or (val == best and idx[i] < idx[q]):
                best = val
                q = i
        return q, n_solved
    # screening: bounds for every live feature, exact roots by decreasing upper bound until no
    # upper bound reaches the best value found
    Z = np.ascontiguousarray(W[:m]) @ V
    best_lower = -np.inf
    for i in range(m):
        _squared_row(Z, i, d[i], z2)
        lo_b[i], hi_b[i] = _removed_bounds(theta, z2)
        best_lower = max(best_lower, lo_b[i])
    slack = 1e-12 * max(abs(theta[r - 1]), 1e-300)
    rank = np.argsort(-hi_b[:m])
    for t in range(m):
        i = rank[t]
        if hi_b[i] < best_lower - slack:
            break
        _squared_row(Z, i, d[i], z2)
        val = _root_removed(theta, z2, lo_b[i], hi_b[i])
        n_solved += 1
        best_lower = max(best_lower, val)
        if q < 0 or val > best or (val == best and idx[i] < idx[q]):
            best = val
            q = i
    return q, n_solved


@njit(cache=True, nogil=True, error_model="numpy")
def backward_path(P, W, G, trace, idx, m, order, objective, step0, n_steps):
    """Backward elimination on ``G_S = M_S^T P_S M_S`` (``P`` the inverse of ``B``, ``W = P M``,
    ``G = M^T W``); overwrites ``P``, ``W`` and ``G``. ``trace``: the criterion ``tr G`` (else
    ``lambda_max(G)``).

    The live features are kept in the leading ``m x m`` block of ``P`` (and ``m`` rows of
    ``W``): removing the one at position ``q`` moves the last live one into its place, so a step
    touches ``m^2`` entries. ``idx`` maps positions to feature indices; ties go to the lowest
    feature index, as in the NumPy loop. Resumable: steps ``step0 .. step0 + n_steps - 1`` are
    run from the state ``(P, W, G, idx, m)`` (``m`` live features; start with ``idx = arange(p)``,
    ``m = p``, ``step0 = 0``), filling ``order[step]`` (the removal order, the last survivor
    last) and ``objective[size - 1]``. Returns ``(m, n_solved)``: the live count after the
    steps and the number of exact roots solved (the other candidates were ruled out by their
    bounds).
    """
    p, r = W.shape
    z2 = np.empty(r)
    lo_b = np.empty(p)
    hi_b = np.empty(p)
    dg = np.empty(p)
    n_solved = 0
    for step in range(step0, min(step0 + n_steps, p)):
        for i in range(m):
            dg[i] = P[i, i]
        q, solved = _backward_choice(G, W, dg, idx, m, trace, objective, z2, lo_b, hi_b)
        n_solved += solved
        if m == 1:
            order[step] = idx[0]
            m = 0
            break
        order[step] = idx[q]
        piv = P[q, q]
        u = P[:m, q].copy()
        wj = W[q].copy()
        _gram_downdate(G, wj, piv)
        for i in range(m):
            ui = u[i] / piv
            for c in range(m):
                P[i, c] -= ui * u[c]
            for a in range(r):
                W[i, a] -= ui * wj[a]
        swap_delete(P, m, q)  # the last live row and column take q's place
        last = m - 1
        if q != last:
            for a in range(r):
                W[q, a] = W[last, a]
            idx[q] = idx[last]
        m -= 1
    return m, n_solved
