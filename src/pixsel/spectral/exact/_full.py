"""Branch and bound for a full symmetric ``A`` with ``'max-eig'`` (fresh work per node).

The inclusion bound is tested by a Cholesky factorization of ``theta B_UU - A_UU`` (``theta`` =
incumbent): it succeeds exactly when ``lambda_max(A_UU, B_UU) < theta``, so nodes below the
incumbent are discarded without any eigenvalue computation; before it a Gershgorin-type
cardinality bound ``max_i (sum of the k largest |A_ij|, j in U) / lambda_min(B)`` is tried.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["FullBnB"]


class FullBnB:
    """Branch and bound for a full symmetric ``A`` with ``'max-eig'`` (fresh work per node)."""

    def __init__(self, A, B, k, search, *, use_bounds=True):
        self.A = A
        self.B = B
        self.k = k
        self.s = search
        self.use_bounds = use_bounds
        self.absA = np.abs(A)
        self.lmin_B = float(np.linalg.eigvalsh(B)[0])
        self.identity = bool(np.array_equal(B, np.eye(len(B))))

    def _gersh(self, Imask, Umask):
        """max over i in U of (sum of the k largest |A_ij|, j in U, I first) / lambda_min(B)."""
        U = np.flatnonzero(Umask)
        k = self.k
        sub = self.absA[np.ix_(U, U)]
        inI = Imask[U]
        m = int(np.count_nonzero(inI))
        fixed = sub[:, inI].sum(axis=1)
        rest = sub[:, ~inI]
        t = k - m
        if t <= 0:
            tops = fixed
        elif t >= rest.shape[1]:
            tops = fixed + rest.sum(axis=1)
        else:
            part = -np.partition(-rest, t - 1, axis=1)[:, :t]
            tops = fixed + part.sum(axis=1)
        val = float(np.max(tops))
        return val / self.lmin_B if val > 0 else 0.0

    def _below(self, U, theta):
        """True when lambda_max(A_UU, B_UU) < theta (Cholesky of theta B - A succeeds)."""
        if not math.isfinite(theta):
            return False
        Mx = theta * self.B[np.ix_(U, U)] - self.A[np.ix_(U, U)]
        try:
            np.linalg.cholesky(Mx)
            if theta > self.s.best:
                self.s.tol_max = max(self.s.tol_max, theta)
            return True
        except np.linalg.LinAlgError:
            return False

    def _eig(self, U):
        ix = np.ix_(U, U)
        if self.identity:
            vals, vecs = np.linalg.eigh(self.A[ix])
            return float(vals[-1]), vecs[:, -1]
        Li = np.linalg.inv(np.linalg.cholesky(self.B[ix]))
        vals, vecs = np.linalg.eigh(Li @ self.A[ix] @ Li.T)
        return float(vals[-1]), Li.T @ vecs[:, -1]

    def dive(self, Imask, Umask, key):
        s, k = self.s, self.k
        Imask = Imask.copy()
        Umask = Umask.copy()
        while True:
            s.tick()
            U = np.flatnonzero(Umask)
            u = len(U)
            m = int(np.count_nonzero(Imask))
            if m > k or u < k:
                return
            if self.use_bounds:
                if u > k and m < k and s.discard(min(key, self._gersh(Imask, Umask))):
                    return
                if self._below(U, s.theta):
                    return
            fU, v = self._eig(U)
            if s.discard(fU):
                return
            key = min(key, fU)
            s.dive_key = key
            if u == k:
                s.offer(fU, U)
                return
            if m == k:
                I = np.flatnonzero(Imask)
                s.offer(self._eig(I)[0], I)
                return
            freepos = np.flatnonzero(~Imask[U])
            w = v[freepos] ** 2 * np.diag(self.B)[U[freepos]]
            t = int(U[freepos[np.argmax(w)]])
            # exclude child to the queue, keyed by the parent's bound (evaluated when popped)
            Ue = Umask.copy()
            Ue[t] = False
            s.push(key, Imask.copy(), Ue)
            Imask[t] = True
