"""The compiled inner loop of :func:`pixsel.spectral.exact_path` (Numba, resumable).

The same search as :class:`pixsel.spectral.exact._allk._PathSearch` (``gap_tol = 0``), with all of
its state in arrays so that the kernel runs a budget of nodes, returns to Python (limits, progress,
Ctrl-C) and resumes. Frames are indexed by depth: the node at depth ``d`` keeps its ordered set,
inverse ``P = B_SS^{-1}``, ``W = P M_S``, ``G = M_S^T W``, value, per-size bound and children in
frame ``d``; a stack entry is ``(d, c)``, the ``c``-th child of frame ``d``. An entry is popped
only after every entry pushed above it, so frame ``d + 1`` is free when it is rebuilt.

Additive problems (a vector, or ``'trace'``) get exact child values ``f(S) - |W_i|^2 / P_ii``;
``'max-eig'`` factor problems test each child against its threshold by a Cholesky
factorization of ``theta I - G_child`` (it succeeds exactly when ``lambda_max(G_child) < theta``)
and compute the eigenvalue only for the children that pass.
"""

from __future__ import annotations

import threading

import numpy as np
from ..._optional import numba as _require_numba

__all__ = ["PathKernel"]

# numba (the extra `numba`) is imported, and the kernel compiled or loaded from numba's cache, on
# the first search only, so that importing pixsel does not pay for it.
_REFRESH = 8
FORWARD = True
#: nodes per :meth:`PathKernel.step` between two checks of the caller's limits, progress and Ctrl-C
CHUNK = 256


def _kernel(B, M, additive, max_k, budget, forward,
            fS, fm, fs, fP, fW, fG, fub, fval, forder, fcval,
            est, stack_top, inc, inc_sup, counters):  # pragma: no cover - compiled
    p = B.shape[0]
    r = M.shape[1]
    done = 0
    sp = stack_top[0]
    work_T = np.empty(p + 1)
    while sp > 0 and done < budget:
        sp -= 1
        f = est[sp, 0]
        c = est[sp, 1]
        done += 1
        # ---- build the node in frame d
        if f < 0:
            d = 0
            s = p
            for i in range(p):
                fS[0, i] = i
            fm[0] = 0
            fs[0] = p
            Pn = np.linalg.inv(B)
            for i in range(p):
                for j in range(p):
                    fP[0, i, j] = 0.5 * (Pn[i, j] + Pn[j, i])
            for i in range(p):
                for q in range(r):
                    acc = 0.0
                    for j in range(p):
                        acc += fP[0, i, j] * M[j, q]
                    fW[0, i, q] = acc
            for a in range(r):
                for b in range(r):
                    acc = 0.0
                    for i in range(p):
                        acc += M[i, a] * fW[0, i, b]
                    fG[0, a, b] = acc
            _symmetrize(fG[0], r)
            if additive:
                v = 0.0
                for a in range(r):
                    v += fG[0, a, a]
            else:
                v = np.linalg.eigvalsh(fG[0, :r, :r].copy())[r - 1]
            fval[0] = v
            for j in range(p + 1):
                fub[0, j] = v
        else:
            d = f + 1
            pm = fm[f]
            ps = fs[f]
            t = pm + forder[f, c]
            # ordered set: fixed part, the c more important free ones, the rest but t
            n = 0
            idx = np.empty(ps - 1, np.int64)
            for i in range(pm):
                idx[n] = i
                n += 1
            for q in range(c):
                idx[n] = pm + forder[f, q]
                n += 1
            for q in range(c + 1, ps - pm):
                idx[n] = pm + forder[f, q]
                n += 1
            s = ps - 1
            for i in range(s):
                fS[d, i] = fS[f, idx[i]]
            fm[d] = pm + c
            fs[d] = s
            if d % _REFRESH == 0:
                Bs = np.empty((s, s))
                for i in range(s):
                    for j in range(s):
                        Bs[i, j] = B[fS[d, i], fS[d, j]]
                Pn = np.linalg.inv(Bs)
                for i in range(s):
                    for j in range(s):
                        fP[d, i, j] = 0.5 * (Pn[i, j] + Pn[j, i])
                for i in range(s):
                    for q in range(r):
                        acc = 0.0
                        for j in range(s):
                            acc += fP[d, i, j] * M[fS[d, j], q]
                        fW[d, i, q] = acc
                for a in range(r):
                    for b in range(r):
                        acc = 0.0
                        for i in range(s):
                            acc += M[fS[d, i], a] * fW[d, i, b]
                        fG[d, a, b] = acc
            else:
                ptt = fP[f, t, t]
                for i in range(s):
                    ui = fP[f, idx[i], t] / ptt
                    for j in range(s):
                        fP[d, i, j] = fP[f, idx[i], idx[j]] - ui * fP[f, t, idx[j]]
                    for q in range(r):
                        fW[d, i, q] = fW[f, idx[i], q] - ui * fW[f, t, q]
                for a in range(r):
                    wa = fW[f, t, a] / ptt
                    for b in range(r):
                        fG[d, a, b] = fG[f, a, b] - wa * fW[f, t, b]
            _symmetrize(fG[d], r)
            v = fcval[f, c]
            fval[d] = v
            for j in range(p + 1):
                fub[d, j] = min(fub[f, j], v)
        # ---- expand frame d
        m = fm[d]
        s = fs[d]
        val = fval[d]
        lo = max(m, 1)
        hi = min(s - 1, max_k)
        if lo > hi:
            continue
        if not _any_open(fub, d, inc, lo, hi):
            continue
        nf = s - m
        d2 = np.empty(nf)
        for i in range(nf):
            acc = 0.0
            for q in range(r):
                acc += fW[d, m + i, q] ** 2
            d2[i] = acc / fP[d, m + i, m + i]
        # the sizes still open here (only those need bounds)
        jlo = hi
        jhi = lo
        for j in range(lo, hi + 1):
            if fub[d, j] > inc[j]:
                if j < jlo:
                    jlo = j
                jhi = j
        if additive:
            # loss of dropping D (|D| = t) >= sum_D d2 / nu_t, nu_t >= lambda_max of the correlation
            # matrix of P_DD (Gershgorin on its t largest entries per row), and >= the t-th smallest
            # d2 (f is monotone: dropping D loses at least what dropping any one of D loses)
            nu_t = _card_gershgorin(fP[d], m, nf, s - jlo)
            srt = np.sort(d2)
            csum = np.zeros(nf + 1)
            for i in range(nf):
                csum[i + 1] = csum[i] + srt[i]
            for j in range(jlo, jhi + 1):
                t = s - j
                b = csum[t] / nu_t[t]
                if srt[t - 1] > b:
                    b = srt[t - 1]
                b = val - b
                if b < fub[d, j]:
                    fub[d, j] = b
        # forward: f(S[:m]) + top gains given the fixed part / mu; it costs an inverse, so where it
        # has not made (at least 1 in 2 of) the nodes it was tried on dead, it is only sampled
        if forward and (counters[1] < 256 or 2 * counters[2] >= counters[1] or (counters[0] + done) % 16 == 0):
            PF = np.empty((nf, nf))
            for i in range(nf):
                for j in range(nf):
                    PF[i, j] = fP[d, m + i, m + j]
            R = np.linalg.inv(PF)
            Rm = np.zeros((nf, r))
            for i in range(nf):
                for q in range(r):
                    acc = 0.0
                    for j in range(nf):
                        acc += 0.5 * (R[i, j] + R[j, i]) * fW[d, m + j, q]
                    Rm[i, q] = acc
            fI = 0.0
            if m > 0:
                GI = np.empty((r, r))
                for a in range(r):
                    for b in range(r):
                        acc = fG[d, a, b]
                        for i in range(nf):
                            acc -= fW[d, m + i, a] * Rm[i, b]
                        GI[a, b] = acc
                _symmetrize(GI, r)
                if additive:
                    for a in range(r):
                        fI += GI[a, a]
                else:
                    fI = np.linalg.eigvalsh(GI)[r - 1]
            gains = np.empty(nf)
            sqR = np.empty(nf)
            for i in range(nf):
                sqR[i] = np.sqrt(R[i, i])
            mu_den = 0.0
            for i in range(nf):
                acc = 0.0
                for q in range(r):
                    acc += Rm[i, q] ** 2
                gains[i] = acc / R[i, i]
                row = 0.0
                for j in range(nf):
                    row += abs(PF[i, j]) * sqR[j]
                row *= sqR[i]
                if row > mu_den:
                    mu_den = row
            mu = min(1.0, 1.0 / mu_den)
            # lambda_min of the correlation matrix of R_TT, |T| = t: >= mu, and >= 1 - (the t - 1
            # largest off-diagonal |entries| of a row) by Gershgorin
            Rs = np.empty((nf, nf))
            for i in range(nf):
                for j in range(nf):
                    Rs[i, j] = 0.5 * (R[i, j] + R[j, i])
            mu_t = _card_gershgorin(Rs, 0, nf, jhi - m)
            srt = np.sort(gains)
            csum_g = np.zeros(nf + 1)
            for i in range(nf):
                csum_g[i + 1] = csum_g[i] + srt[nf - 1 - i]
            was = False
            now = False
            for j in range(jlo, jhi + 1):
                if fub[d, j] > inc[j]:
                    was = True
                t = j - m
                mt = mu
                if 2.0 - mu_t[t] > mt:
                    mt = 2.0 - mu_t[t]
                b = fI + csum_g[t] / mt
                if b < fub[d, j]:
                    fub[d, j] = b
                if fub[d, j] > inc[j]:
                    now = True
            counters[1] += 1
            if was and not now:
                counters[2] += 1
        if not _any_open(fub, d, inc, lo, hi):
            continue
        # ---- children
        if additive:
            cval = np.empty(nf)
            for i in range(nf):
                cval[i] = val - d2[i]
            order = np.argsort(cval, kind="mergesort")
        else:
            ev, evec = np.linalg.eigh(fG[d, :r, :r].copy())
            imp = np.empty(nf)
            for i in range(nf):
                acc = 0.0
                for q in range(r):
                    acc += fW[d, m + i, q] * evec[q, r - 1]
                imp[i] = -acc * acc / fP[d, m + i, m + i]
            order = np.argsort(imp, kind="mergesort")  # most important first
            cval = np.full(nf, -np.inf)
        for q in range(nf):
            forder[d, q] = order[q]
        top = min(s - 2, hi)
        for j in range(p + 1):
            work_T[j] = np.inf
        for j in range(max(m, 1), top + 1):
            if fub[d, j] > inc[j]:
                work_T[j] = inc[j]
        # suffix minima over j = m + c .. top
        suff = np.full(nf + 1, np.inf)
        run = np.inf
        for c2 in range(top - m, -1, -1):
            if work_T[m + c2] < run:
                run = work_T[m + c2]
            suff[c2] = run
        n_push = 0
        if additive:
            best = order[nf - 1]
            if cval[best] > inc[s - 1]:
                _offer(fS, d, s, m + best, cval[best], inc, inc_sup, p)
            for c2 in range(nf):
                fcval[d, c2] = cval[order[c2]]
            for c2 in range(min(nf, top - m + 1)):
                if fcval[d, c2] > suff[c2]:
                    est[sp + n_push, 0] = d
                    est[sp + n_push, 1] = c2
                    n_push += 1
        else:
            Gc = np.empty((r, r))
            for c2 in range(nf):
                i = order[c2]
                tt = m + i
                ptt = fP[d, tt, tt]
                for a in range(r):
                    wa = fW[d, tt, a] / ptt
                    for b in range(r):
                        Gc[a, b] = fG[d, a, b] - wa * fW[d, tt, b]
                _symmetrize(Gc, r)
                thr = inc[s - 1]
                if c2 <= top - m and suff[c2] < thr:
                    thr = suff[c2]
                # lambda_max(Gc) < thr  <=>  thr I - Gc is positive definite
                below = False
                if thr > -np.inf:
                    below = _chol_pd(Gc, thr, r)
                if below:
                    fcval[d, c2] = -np.inf
                    continue
                v = np.linalg.eigvalsh(Gc)[r - 1]
                fcval[d, c2] = v
                if v > inc[s - 1]:
                    _offer(fS, d, s, tt, v, inc, inc_sup, p)
                if c2 <= top - m and v > suff[c2]:
                    est[sp + n_push, 0] = d
                    est[sp + n_push, 1] = c2
                    n_push += 1
        # the last pushed (the smallest subtree, the largest value) is popped first
        sp += n_push
    stack_top[0] = sp
    counters[0] += done
    return done


def _symmetrize(G, r):  # pragma: no cover - compiled
    """``G[:r, :r]`` replaced by its symmetric part, in place (against the drift of the updates)."""
    for a in range(r):
        for b in range(a):
            v = 0.5 * (G[a, b] + G[b, a])
            G[a, b] = v
            G[b, a] = v


def _card_gershgorin(P, m, nf, tmax):  # pragma: no cover - compiled
    """``g[t]`` for ``t = 1..tmax``: Gershgorin over every ``t x t`` principal submatrix of the
    correlation matrix ``C`` of ``P[m:m+nf, m:m+nf]``: ``1 + max_i`` (sum of the ``t - 1``
    largest ``|C_ij|``, ``j != i``), an upper bound on their largest eigenvalue; ``2 - g[t]`` is
    a lower bound on their smallest. Entries above ``tmax`` (and ``g[0]``) are unused."""
    isq = np.empty(nf)
    for i in range(nf):
        isq[i] = 1.0 / np.sqrt(P[m + i, m + i])
    if tmax > nf:
        tmax = nf
    best = np.zeros(nf + 1)
    row = np.empty(max(nf - 1, 1))
    kk = tmax - 1  # the largest kk entries of each row are needed
    top = np.empty(max(kk, 1))
    for i in range(nf):
        if kk <= 0:
            break
        n = 0
        if kk <= 12 and kk < nf - 1:
            # the kk largest by insertion into a short sorted list (descending)
            nt = 0
            for j in range(nf):
                if j == i:
                    continue
                x = abs(P[m + i, m + j]) * isq[i] * isq[j]
                if nt < kk:
                    q = nt
                    nt += 1
                elif x > top[kk - 1]:
                    q = kk - 1
                else:
                    continue
                while q > 0 and top[q - 1] < x:
                    top[q] = top[q - 1]
                    q -= 1
                top[q] = x
            acc = 0.0
            for t in range(2, tmax + 1):
                acc += top[t - 2]
                if acc > best[t]:
                    best[t] = acc
            continue
        for j in range(nf):
            if j != i:
                row[n] = abs(P[m + i, m + j]) * isq[i] * isq[j]
                n += 1
        srt = np.sort(row[:n])
        acc = 0.0
        for t in range(2, tmax + 1):
            acc += srt[n - (t - 1)]
            if acc > best[t]:
                best[t] = acc
    g = np.empty(nf + 1)
    for t in range(nf + 1):
        g[t] = 1.0 + best[t]
    return g


def _any_open(fub, d, inc, lo, hi):  # pragma: no cover - compiled
    """Whether frame ``d``'s bound ``fub[d, j]`` still beats the incumbent at some size ``j`` in ``[lo, hi]``."""
    for j in range(lo, hi + 1):
        if fub[d, j] > inc[j]:
            return True
    return False


def _offer(fS, d, s, drop, value, inc, inc_sup, p):  # pragma: no cover - compiled
    """Offer the support ``fS[d, :s]`` without position ``drop`` (size ``s - 1``)."""
    n = 0
    for i in range(s):
        if i != drop:
            inc_sup[s - 1, n] = fS[d, i]
            n += 1
    inc[s - 1] = value
    j = s - 1
    # keep the incumbents non-decreasing: add the lowest free index
    while j < p and inc[j + 1] < value:
        used = np.zeros(p, np.bool_)
        for i in range(j):
            used[inc_sup[j, i]] = True
        nxt = 0
        while used[nxt]:
            nxt += 1
        for i in range(j):
            inc_sup[j + 1, i] = inc_sup[j, i]
        inc_sup[j + 1, j] = nxt
        inc[j + 1] = value
        j += 1


def _chol_pd(G, thr, r):  # pragma: no cover - compiled
    """True when ``thr I - G`` is positive definite (an in-place-free Cholesky attempt)."""
    L = np.empty((r, r))
    for j in range(r):
        acc = thr - G[j, j]
        for q in range(j):
            acc -= L[j, q] * L[j, q]
        if acc <= 0.0:
            return False
        ljj = np.sqrt(acc)
        L[j, j] = ljj
        for i in range(j + 1, r):
            acc = -G[i, j]
            for q in range(j):
                acc -= L[i, q] * L[j, q]
            L[i, j] = acc / ljj
    return True


_compiled = []
_COMPILE_LOCK = threading.Lock()


def _compiled_kernel():
    """The compiled kernel, built on the first call (the helpers it calls are compiled first and
    bound to their module names, which is where numba looks them up)."""
    global _offer, _chol_pd, _card_gershgorin, _any_open, _symmetrize
    if _compiled:  # every step asks: no lock once built
        return _compiled[0]
    with _COMPILE_LOCK:  # threads calling at once wrap each helper once (a second wrap is a TypeError)
        if not _compiled:
            numba = _require_numba()  # optional: a clear error naming its extra where it is missing

            _offer = numba.njit(cache=True)(_offer)
            _card_gershgorin = numba.njit(cache=True)(_card_gershgorin)
            _chol_pd = numba.njit(cache=True)(_chol_pd)
            _any_open = numba.njit(cache=True)(_any_open)
            _symmetrize = numba.njit(cache=True)(_symmetrize)
            _compiled.append(numba.njit(cache=True)(_kernel))
    return _compiled[0]


class PathKernel:
    """The arrays of a resumable compiled search (``gap_tol = 0``)."""

    def __init__(self, M, B, max_k, additive, inc, sup, out):
        p, r = M.shape
        self.M = np.ascontiguousarray(M, dtype=np.float64)
        self.B = np.ascontiguousarray(B, dtype=np.float64)
        self.p, self.r, self.max_k, self.additive = p, r, max_k, bool(additive)
        D = p + 1
        self.fS = np.zeros((D, p), np.int64)
        self.fm = np.zeros(D, np.int64)
        self.fs = np.zeros(D, np.int64)
        self.fP = np.zeros((D, p, p))
        self.fW = np.zeros((D, p, r))
        self.fG = np.zeros((D, r, r))
        self.fub = np.zeros((D, p + 1))
        self.fval = np.zeros(D)
        self.forder = np.zeros((D, p), np.int64)
        self.fcval = np.zeros((D, p))
        self.est = np.zeros((D * p + 2, 2), np.int64)
        self.est[0] = (-1, 0)
        self.stack_top = np.array([1], np.int64)
        self.counters = np.zeros(3, np.int64)  # nodes, forward bounds tried, nodes they made dead
        # incumbents (index = size); supports as rows padded with -1
        self.inc = np.asarray(inc, dtype=np.float64).copy()
        self.inc[~np.isfinite(self.inc)] = -np.inf
        self.inc_sup = np.full((p + 1, p), -1, np.int64)
        for j, S in enumerate(sup):
            if S is not None:
                self.inc_sup[j, : len(S)] = S
        # sizes above max_k, and those solved already, are never of interest
        self.inc[out] = np.inf

    @classmethod
    def of_sizes(cls, M, B, max_k, additive, inc, sup, sizes):
        """A search with only ``sizes`` open (every other size switched off): a window of
        ``exact_path``, one size of ``exact_support``'s partner, a task of the parallel path."""
        out = np.ones(M.shape[0] + 1, bool)
        out[np.asarray(sizes, dtype=np.intp)] = False
        return cls(M, B, max_k, additive, inc, sup, out)

    @property
    def open(self):
        return int(self.stack_top[0]) > 0

    def step(self, budget):
        return _compiled_kernel()(
            self.B, self.M, self.additive, self.max_k, int(budget), FORWARD, self.fS, self.fm, self.fs, self.fP,
            self.fW, self.fG, self.fub, self.fval, self.forder, self.fcval, self.est, self.stack_top,
            self.inc, self.inc_sup, self.counters,
        )

    def upper_bounds(self):
        """Per size: the largest bound of an open entry (``-inf`` where none is open)."""
        ub = np.full(self.p + 1, -np.inf)
        for e in range(int(self.stack_top[0])):
            f, c = self.est[e]
            if f < 0:
                ub[:] = np.inf
                continue
            m, s = self.fm[f], self.fs[f]
            lo, hi = max(m + c, 1), min(s - 2, self.max_k)
            if lo > hi:
                continue
            cv = self.fcval[f, c]
            seg = np.minimum(self.fub[f, lo : hi + 1], cv if np.isfinite(cv) else self.fval[f])
            np.maximum(ub[lo : hi + 1], seg, out=ub[lo : hi + 1])
        return ub

    def incumbents(self):
        inc = self.inc.copy()
        inc[np.isinf(inc)] = -np.inf
        sup = [None] + [np.sort(self.inc_sup[j, :j]) if np.isfinite(inc[j]) else None for j in range(1, self.p + 1)]
        return inc, sup
