"""Branch and bound for a full symmetric ``A`` with ``'max-eig'`` (fresh work per node).

Bounds at a node ``(I, U)``, cheapest first, each tried only while the node is still open
(:mod:`pixsel.spectral.bounds._spca_bounds` proves them):

* ``'row'``: Gershgorin, Frobenius and (``A`` semidefinite) trace bounds from the ``k`` largest
  entries per row restricted to ``U``, divided by ``lambda_min(B)`` (:func:`generalize`);
* ``'sdp'``: the dual point ``Z`` of the sparse PCA relaxation minimized once at the root
  (:func:`sdp_dual_bound`) certifies ``lambda_max((A - Z)_UU) + (k - 1) ||Z_UU||_max`` at every
  node; the node is discarded when a Cholesky factorization of ``(theta - (k - 1) rho) I -
  (A - Z)_UU`` succeeds (``theta`` = incumbent), and otherwise its value tightens the key;
* the inclusion bound ``lambda_max(A_UU, B_UU)``, tested first by a Cholesky factorization of
  ``theta B_UU - A_UU``.

Every bound computed at a node lowers its key (the queue's certified upper bound), so a stopped
search reports the smallest bound it proved, not only the inclusion bound.

A dive (the depth-first descent from a popped node) only fixes features in: ``U`` is the same at
every node of it, so what depends on ``U`` alone (the eigendecompositions, the dual bound, the
row bound's sorted rows) is computed at its first node and read back at the others. Above
``_FIX_MAX`` features, where nothing is fixed, a node's eigenvalues are Lanczos estimates with a
Cholesky proof of the bound (:func:`top_eigenpair_bound`), and the proof is skipped where the
estimate already reaches the node's key.

Variable fixing (``fixing=True``, the default of every bound set but ``'inclusion'``): the node's
eigendecomposition gives, for every free ``j`` at once, ``lambda_max`` of the pair on ``U - j``
(the largest root of a secular equation, :func:`._batch_numba.drop_values`), and with
``'sdp'`` the dual bound on ``U - j`` likewise from the eigendecomposition of ``(A - Z)_UU``. A
variable whose exclusion bound cannot beat the incumbent is fixed in without branching, and the
exclude child of the branching variable is queued with its own bound instead of the parent's.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from ._batch_numba import drop_values
from ..bounds import accelerated_dual, generalize, row_bound, sdp_dual_bound
from ..bounds._spca_bounds import _DENSE_MAX, RowTable, top_eigenpair_bound

__all__ = ["FullBnB"]

#: variable fixing needs every eigenpair of the node (one dense ``eigh``): above this size only
#: the top one is computed and nothing is fixed
_FIX_MAX = 512


class FullBnB:
    """Branch and bound for a full symmetric ``A`` with ``'max-eig'`` (fresh work per node)."""

    #: reuse a dive's work on its candidates from node to node (False: every node recomputes it,
    #: the reference the tests compare the search with)
    reuse = True

    def __init__(self, A, B, k, search, *, bounds=("row",), sdp_iter=60, sdp_time=None, node_iter=0, sdp_branch=False,
                 fixing=False, spectrum=None):
        self.A = A
        self.fixing = fixing
        self.n_fixed = 0
        self.sdp_eig = None
        self.B = B
        self.k = k
        self.s = search
        self.bounds = tuple(bounds)
        self.identity = bool(np.array_equal(B, np.eye(len(B))))
        if self.identity:  # sparse PCA: no eigendecomposition of B
            self.lmin_B = self.lmax_B = 1.0
        else:
            wB = np.linalg.eigvalsh(B)
            self.lmin_B, self.lmax_B = float(wB[0]), float(wB[-1])
        if spectrum is None:
            wA = np.linalg.eigvalsh(A)
            spectrum = (float(wA[0]), float(wA[-1]))
        # (smallest, largest) eigenvalue of A: given by a caller that searches many sizes of one A
        self.psd = bool(spectrum[0] >= -1e-12 * max(np.abs(A).max(), 1e-300))
        # the root's inclusion bound, lambda_max(A, B) <= lambda_max(A) / lambda_min(B) (exact for B = I)
        self.top = generalize(spectrum[1], self.lmin_B, self.lmax_B)
        self.Z = None
        self.node_iter = node_iter
        self.sdp_branch = sdp_branch
        self.vsdp = None
        self.sdp_root = math.inf
        if "sdp" in self.bounds and 1 < k < A.shape[0]:
            b, Z = sdp_dual_bound(A, k, max_iter=sdp_iter, time_limit=sdp_time)
            self.Z, self.sdp_root = Z, generalize(b, self.lmin_B, self.lmax_B)

    def root_bound(self):
        """The best bound computed before the search: the dual bound at the root or the root's
        inclusion bound (from the eigenvalues of ``A``), whichever is smaller; the key of the root
        node, so that a search stopped before its first node still reports a certified bound."""
        return min(self.sdp_root, self.top)

    def _row(self, Imask, Umask, memo=None):
        if memo is None:
            b = row_bound(self.A, self.k, candidates=Umask, fixed=Imask, psd=self.psd)
        else:  # the dive's table of the rows' largest entries on U, sorted once
            U = np.flatnonzero(Umask)
            if "row" not in memo:
                memo["row"] = RowTable(self.A, U, self.k, self.psd)
            b = memo["row"].bound(Imask[U])
        return generalize(b, self.lmin_B, self.lmax_B)

    def _sdp(self, U, key, memo=None):
        """(discard?, bound) from the dive's dual point restricted to ``U``, improved in place by a
        few warm-started first-order iterations when it does not discard the node.

        ``memo`` (a dict, or None) holds what an earlier node of the same dive computed on the same
        ``U`` and dual point: the eigen work is then read back instead of repeated, and the Cholesky
        test is repeated only when the incumbent moved since it failed."""
        s = self.s
        theta = s.theta
        lB = self.lmin_B
        target = theta * lB if math.isfinite(theta) and theta > 0 else -math.inf
        if memo is not None and "sdp" in memo:
            rho, M = memo["sdp_rho"], None
        else:
            ix = np.ix_(U, U)
            Z = self.Zd[ix]
            M = self.A[ix] - Z
            rho = float(np.abs(Z).max()) if len(U) > 1 else 0.0
        # a large node without node iterations: the certified Lanczos bound below costs about one
        # Cholesky factorization, and a node it does not discard would pay for two
        pretest = not (len(U) > _DENSE_MAX and not self.node_iter and not self.sdp_branch
                       and not (self.fixing and self.identity and len(U) <= _FIX_MAX))
        if pretest and math.isfinite(target) and not (memo is not None and memo.get("sdp_failed_at") == theta):
            if M is None:
                ix = np.ix_(U, U)
                M = self.A[ix] - self.Zd[ix]
            shift = target - (self.k - 1) * rho  # bound / lmin_B < theta
            shift -= 1e-9 * (abs(target) + rho * self.k)
            T = -M
            T[np.diag_indices_from(T)] += shift
            try:
                sla.cholesky(T, lower=True, check_finite=False, overwrite_a=True)
                if theta > s.best:
                    s.tol_max = max(s.tol_max, theta)
                return True, key
            except np.linalg.LinAlgError:
                if memo is not None:
                    memo["sdp_failed_at"] = theta
        if memo is not None and "sdp" in memo:
            b, self.sdp_eig, self.vsdp = memo["sdp"]
            return self._sdp_verdict(b, key, theta)
        if self.fixing and self.identity and len(U) <= _FIX_MAX:
            w, V = np.linalg.eigh(M)  # all of them: every deletion's bound follows (variable fixing)
            b = float(w[-1]) + (self.k - 1) * rho
            self.sdp_eig = (w[::-1], V[:, ::-1], (self.k - 1) * rho)
        elif self.sdp_branch and len(U) <= 256:
            w, V = sla.eigh(M, subset_by_index=[len(U) - 1, len(U) - 1], check_finite=False)
            b = float(w[0]) + (self.k - 1) * rho
            self.vsdp = V[:, 0]
        else:
            # without node iterations, a bound no lower than the key is not needed: Lanczos's
            # estimate, where it reaches the key, spares the Cholesky proof (B = I: the key is
            # on b's scale)
            cap = key - (self.k - 1) * rho if self.identity and not self.node_iter else math.inf
            b = top_eigenpair_bound(M, vector=False, cap=cap)[0] + (self.k - 1) * rho
        if self.node_iter and len(U) > self.k:
            val, Zn = accelerated_dual(self.A[ix], self.k, Z, b, self.node_iter, 0.0, len(U), target=target, mu_rel=0.005)
            if val < b:
                b = val
                self.Zd[ix] = Zn
        b += 1e-10 * (abs(b) + float(np.abs(np.diag(self.A)[U]).max()) + self.k * rho)
        if memo is not None:
            memo["sdp"], memo["sdp_rho"] = (b, self.sdp_eig, self.vsdp), rho
        return self._sdp_verdict(b, key, theta)

    def _sdp_verdict(self, b, key, theta):
        """(discard?, key) for the dual bound ``b`` of a node (before :func:`generalize`)."""
        s = self.s
        bound = generalize(b, self.lmin_B, self.lmax_B)
        if bound < theta:
            if theta > s.best:
                s.tol_max = max(s.tol_max, theta)
            return True, key
        return False, min(key, bound)

    def _below(self, U, theta, memo=None):
        """True when lambda_max(A_UU, B_UU) < theta (Cholesky of theta B - A succeeds); with a
        ``memo`` of the dive, not tested again at the ``theta`` where it last failed on ``U``."""
        if not math.isfinite(theta):
            return False
        if memo is not None and memo.get("below_failed_at") == theta:
            return False
        Mx = theta * self.B[np.ix_(U, U)] - self.A[np.ix_(U, U)]
        try:
            np.linalg.cholesky(Mx)
            if theta > self.s.best:
                self.s.tol_max = max(self.s.tol_max, theta)
            return True
        except np.linalg.LinAlgError:
            if memo is not None:
                memo["below_failed_at"] = theta
            return False

    def _by_lanczos(self, u, full):
        """Whether :meth:`_eig` bounds a node of ``u`` features by Lanczos (a certified bound and an
        estimated vector) rather than a dense decomposition: a large node that fixes nothing."""
        return not full and self.identity and u > max(_FIX_MAX, self.k)

    def _eig(self, U, full=False, memo=None, cap=math.inf):
        """``lambda_max`` of the pair on ``U`` and its eigenvector; with ``full``, also all
        eigenvalues (descending) and ``B``-orthonormal eigenvectors (columns in that order).
        With a ``memo`` of the dive, the decomposition of ``U`` is computed once (the same call
        answers both forms)."""
        if memo is not None:
            if "eig" in memo:
                return memo["eig"] if full else memo["eig"][:2]
            name = "eig" if full else "top"
            if name not in memo:  # (the key only falls along a dive: a cap met stays met)
                memo[name] = self._eig(U, full, cap=cap)
            return memo[name]
        ix = np.ix_(U, U)
        if self._by_lanczos(len(U), full):
            # a large node that fixes nothing needs its bound and a direction to branch on: a
            # certified upper bound (Lanczos, then a Cholesky proof) and Lanczos's vector cost a
            # fraction of a dense decomposition (a node of size k, whose value is offered as an
            # incumbent, is always decomposed exactly)
            return top_eigenpair_bound(self.A[ix], cap=cap)
        if self.identity:
            vals, vecs = np.linalg.eigh(self.A[ix])
        else:
            Li = np.linalg.inv(np.linalg.cholesky(self.B[ix]))
            vals, vecs = np.linalg.eigh(Li @ self.A[ix] @ Li.T)
            vecs = Li.T @ vecs
        if full:
            return float(vals[-1]), vecs[:, -1], vals[::-1], vecs[:, ::-1]
        return float(vals[-1]), vecs[:, -1]

    def _fix(self, U, freepos, d, X, fU):
        """Variable fixing at a node: per free ``j``, a bound on every support of the subtree
        without ``j`` (``lambda_max`` of the pair on ``U - j`` from the node's eigendecomposition
        by the secular equation, and with ``bounds='sdp'`` the dual bound on ``U - j`` likewise).
        Returns those bounds (inflated by a rounding margin); ``j`` is fixed in where its bound
        cannot beat the incumbent."""
        drops = drop_values(d, X, freepos)
        drops += 1e-9 * (abs(fU) + abs(float(d[-1])))
        if self.sdp_eig is not None:
            dS, XS, extra = self.sdp_eig
            sd = drop_values(dS, XS, freepos) + extra
            sd += 1e-9 * (abs(float(dS[0])) + abs(float(dS[-1])) + abs(extra))
            drops = np.minimum(drops, sd)
        return drops

    def dive(self, Imask, Umask, key):
        s, k = self.s, self.k
        Imask = Imask.copy()
        Umask = Umask.copy()
        key = min(key, self.sdp_root)
        if self.Z is not None:
            self.Zd = self.Z.copy()  # the dive's dual point: any symmetric matrix certifies
        # A dive only fixes variables in: U is the same at every node of it, so the work that
        # depends on U alone (the eigendecompositions, the dual bound) is done at its first node
        # and read back at the others; the Cholesky tests are repeated only where the incumbent
        # moved. Not with node iterations, which change the dual point from node to node.
        memo = {} if self.reuse and not self.node_iter else None
        while True:
            s.tick()
            U = np.flatnonzero(Umask)
            u = len(U)
            m = int(np.count_nonzero(Imask))
            if m > k or u < k:
                return
            self.vsdp = None
            self.sdp_eig = None
            if u > k and m < k:
                if "row" in self.bounds:
                    key = min(key, self._row(Imask, Umask, memo))
                    if s.discard(key):
                        return
                if self.Z is not None:
                    gone, key = self._sdp(U, key, memo)
                    if gone or s.discard(key):
                        return
                s.dive_key = key
            fix = self.fixing and u > k and m < k and u <= _FIX_MAX
            # the Cholesky test of the inclusion bound, unless the node's eigenvalue comes from the
            # certified Lanczos bound, which costs about as much and discards the node as well
            lanczos = self._by_lanczos(u, fix)
            if self.bounds and not lanczos and self._below(U, s.theta, memo):
                return
            if fix:
                fU, v, d, X = self._eig(U, full=True, memo=memo)
            else:
                # where the node's key is already below what the inclusion bound can prove, only
                # the direction is needed (the bound reads inf)
                fU, v = self._eig(U, memo=memo, cap=key if lanczos else math.inf)
            if s.discard(fU):
                return
            key = min(key, fU)
            s.dive_key = key
            if u == k:
                s.offer(fU, U)
                return
            drops = None
            if fix:
                freepos = np.flatnonzero(~Imask[U])
                drops = self._fix(U, freepos, d, X, fU)
                forced = s.discard_many(drops)
                if np.any(forced):  # every support without them is below the incumbent
                    Imask[U[freepos[forced]]] = True
                    m += int(np.count_nonzero(forced))
                    self.n_fixed += int(np.count_nonzero(forced))
                    if m > k:
                        return
                    drops = drops[~forced]
            if m == k:
                I = np.flatnonzero(Imask)
                s.offer(self._eig(I)[0], I)
                return
            freepos = np.flatnonzero(~Imask[U])
            if self.vsdp is not None:  # branch on what drives the dual bound
                v = self.vsdp
            w = v[freepos] ** 2 * np.diag(self.B)[U[freepos]]
            c = int(np.argmax(w))
            t = int(U[freepos[c]])
            # exclude child to the queue, keyed by the parent's bound (evaluated when popped),
            # or by the bound on U - t itself where fixing computed it
            Ue = Umask.copy()
            Ue[t] = False
            s.push(key if drops is None else min(key, float(drops[c])), Imask.copy(), Ue)
            Imask[t] = True
