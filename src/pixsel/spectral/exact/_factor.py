"""Branch and bound for a vector ``a`` or a ``p x r`` factor ``M`` (``A = M M^T``).

Along a depth-first dive the search keeps the inverse ``P = B_UU^{-1}``, ``W = P M_U`` and
``G_U = M_U^T W`` (backward side) and the Schur complement ``R = B_FF - B_FI B_II^{-1} B_IF`` with
``Rm = M_F - B_FI B_II^{-1} M_I`` and ``G_I`` (forward side, ``F = U - I``). Excluding ``j`` is a
rank-one downdate of ``P``, including ``j`` one pivoted-Cholesky step on ``R``; no node of a dive
is factorized from scratch. Nodes popped from the best-first queue are refactorized once (which
also resets rounding). See :mod:`pixsel.spectral.exact` for the cardinality bounds.
"""

from __future__ import annotations

import numpy as np

from .._criteria import as_criterion

__all__ = ["BRANCH_RULES", "FactorBnB"]

#: Branching rules (benchmarks/bench_exact_ablation.py measures them; the first is the default):
#: ``'important-include'`` the free ``j`` whose exclusion lowers the inclusion bound most
#: (largest ``|W_j|^2 / P_jj``), include child dived into, exclude child queued;
#: ``'gain-include'`` the largest forward gain ``|Rm_j|^2 / R_jj``, same children;
#: ``'backward-exclude'`` the smallest loss ``|W_j|^2 / P_jj``, exclude child dived into.
BRANCH_RULES = ("important-include", "gain-include", "backward-exclude")
#: exclude-child bounds by batched r x r eigenproblems up to this rank
_BATCH_EIG_MAX_R = 64


class FactorBnB:
    """Branch and bound for a vector or a ``p x r`` factor ``M`` (``A = M M^T``)."""

    def __init__(self, M, B, k, criterion, search, *, branch_rule="important-include", use_bounds=True, fixing=True):
        self.M = M if M.ndim == 2 else M[:, None]
        self.branch_rule = branch_rule
        self.fixing = fixing
        self.B = B
        self.k = k
        self.r = self.M.shape[1]
        self.trace = as_criterion(criterion).additive or self.r == 1
        self.s = search
        self.use_bounds = use_bounds

    def crit(self, G):
        if self.r == 1:
            return float(G[0, 0])
        if self.trace:
            return float(np.trace(G))
        return float(np.linalg.eigvalsh(G)[-1])

    def _state(self, Imask, Umask):
        """Fresh factorization of a popped node."""
        B, M = self.B, self.M
        U = np.flatnonzero(Umask)
        inI = Imask[U]
        BUU = B[np.ix_(U, U)]
        P = np.linalg.inv(BUU)
        P = (P + P.T) / 2
        MU = M[U]
        W = P @ MU
        G = MU.T @ W
        I = np.flatnonzero(inI)
        if len(I):
            X = np.linalg.solve(BUU[np.ix_(I, I)], np.hstack([BUU[I], MU[I]]))
            XB, XM = X[:, : len(U)], X[:, len(U) :]  # B_II^{-1} B_IU, B_II^{-1} M_I
            R = BUU - BUU[:, I] @ XB
            Rm = MU - XB.T @ MU[I]
            GI = MU[I].T @ XM
            GI = (GI + GI.T) / 2
        else:
            R = BUU.copy()
            Rm = MU.copy()
            GI = np.zeros((self.r, self.r))
        return {
            "U": U, "alive": np.ones(len(U), bool), "inI": inI.copy(), "P": P, "W": W, "G": G,
            "R": R, "Rm": Rm, "GI": GI,
        }

    @staticmethod
    def _exclude(st, t):
        P, W = st["P"], st["W"]
        u = P[:, t].copy()
        pi = u[t]
        wt = W[t].copy()
        v = u / pi
        P -= v[:, None] * u
        W -= v[:, None] * wt
        st["G"] = st["G"] - (wt / pi)[:, None] * wt
        P[t, :] = 0.0
        P[:, t] = 0.0
        W[t] = 0.0
        st["alive"][t] = False

    @staticmethod
    def _include(st, t):
        R, Rm = st["R"], st["Rm"]
        c = R[:, t].copy()
        rt = Rm[t].copy()
        v = c / c[t]
        st["GI"] = st["GI"] + (rt / c[t])[:, None] * rt
        R -= v[:, None] * c
        Rm -= v[:, None] * rt
        st["inI"][t] = True

    def _masks(self, st):
        Imask = np.zeros(self.s.p, bool)
        Umask = np.zeros(self.s.p, bool)
        U = st["U"]
        Umask[U[st["alive"]]] = True
        Imask[U[st["alive"] & st["inI"]]] = True
        return Imask, Umask

    def dive(self, Imask, Umask, key):
        st = self._state(Imask, Umask)
        s, k = self.s, self.k
        while True:
            s.tick()
            # process the node, fixing variables until nothing changes
            while True:
                alive, inI = st["alive"], st["inI"]
                free = np.flatnonzero(alive & ~inI)
                m = int(np.count_nonzero(alive & inI))
                u = m + len(free)
                if m > k or u < k:
                    return
                if s.feasible is not None:  # placement constraints: prune, or drop what no completion takes
                    ok, out = s.feasible.node(st["U"][alive & inI], st["U"][free], k - m)
                    if not ok:
                        return
                    if out.any():
                        for t in free[out]:
                            self._exclude(st, int(t))
                        continue
                fU = self.crit(st["G"])
                if s.discard(fU):
                    return
                key = min(key, fU)
                s.dive_key = key
                if u == k:
                    s.offer(fU, st["U"][alive])
                    return
                if m == k:
                    s.offer(self.crit(st["GI"]), st["U"][alive & inI])
                    return
                if not self.use_bounds:
                    break
                fixed, nb = self._bounds_and_fixing(st, free, m, u, fU)
                if fixed is None:
                    return  # pruned
                key = min(key, nb)
                s.dive_key = key
                if not fixed:
                    break
            # branch (see BRANCH_RULES)
            R, Rm, P, W = st["R"], st["Rm"], st["P"], st["W"]
            rule = self.branch_rule
            if rule == "gain-include":
                g = np.einsum("ij,ij->i", Rm[free], Rm[free]) / np.diag(R)[free]
                t = int(free[np.argmax(g)])
            else:
                dl = np.einsum("ij,ij->i", W[free], W[free]) / np.diag(P)[free]
                t = int(free[np.argmin(dl)] if rule == "backward-exclude" else free[np.argmax(dl)])
            Im, Um = self._masks(st)
            if rule == "backward-exclude":
                Im[st["U"][t]] = True
                s.push(key, Im, Um)
                self._exclude(st, t)
                continue
            # exclude child goes to the queue (key: its inclusion bound)
            if self.r == 1 or self.trace:
                e = fU - float(W[t] @ W[t]) / P[t, t]
            else:
                wt = W[t]
                e = float(np.linalg.eigvalsh(st["G"] - np.outer(wt, wt) / P[t, t])[-1])
            Um[st["U"][t]] = False
            s.push(min(e, key), Im, Um)
            self._include(st, t)

    def _bounds_and_fixing(self, st, free, m, u, fU):
        """Cardinality bounds at the node; returns (None | fixed?, bound). None means pruned."""
        s, k = self.s, self.k
        P, W, R, Rm = st["P"], st["W"], st["R"], st["Rm"]
        need = k - m  # still to add
        drop = u - k  # still to remove
        nf = len(free)
        absP = np.abs(P[np.ix_(free, free)])
        dP = P[free, free]
        dR = R[free, free]
        Rmf = Rm[free]
        g = np.einsum("ij,ij->i", Rmf, Rmf) / dR  # forward gains given I
        # mu <= lambda_min(corr(R_FF)): Gershgorin on its inverse D^1/2 P_FF D^1/2 (D = diag R_FF)
        sq = np.sqrt(dR)
        mu = min(1.0, 1.0 / float(np.max(sq * (absP @ sq))))
        fI = self.crit(st["GI"])
        order_g = np.argsort(-g, kind="stable")
        csum_g = np.zeros(nf + 1)
        np.cumsum(g[order_g], out=csum_g[1:])
        bound = min(fU, fI + csum_g[need] / mu)
        back = self.r == 1 or self.trace
        if back:
            Wf = W[free]
            delta = np.einsum("ij,ij->i", Wf, Wf) / dP
            # nu >= lambda_max(corr(P_FF)) by Gershgorin
            isq = 1.0 / np.sqrt(dP)
            nu = max(1.0, float(np.max(isq * (absP @ isq))))
            order_d = np.argsort(delta, kind="stable")
            csum_d = np.zeros(nf + 1)
            np.cumsum(delta[order_d], out=csum_d[1:])
            bound = min(bound, fU - csum_d[drop] / nu)
        if s.discard(bound):
            return None, bound
        if not self.fixing:
            return False, bound
        # fixing; top-t sums of the gains without j, from the rank of j
        rank_g = np.empty(nf, np.intp)
        rank_g[order_g] = np.arange(nf)
        t1 = need - 1
        top_wo = np.where(rank_g < t1, csum_g[min(t1 + 1, nf)] - g, csum_g[t1])
        inc_bound = fI + (g + top_wo) / mu  # every support containing j
        top_need_wo = np.where(rank_g < need, csum_g[min(need + 1, nf)] - g, csum_g[need])
        exc_bound = fI + top_need_wo / mu  # every support without j
        if back:
            rank_d = np.empty(nf, np.intp)
            rank_d[order_d] = np.arange(nf)
            # containing j: `drop` others are removed from F - j
            low_wo = np.where(rank_d < drop, csum_d[min(drop + 1, nf)] - delta, csum_d[drop])
            inc_bound = np.minimum(inc_bound, fU - low_wo / nu)
            # without j: j and drop - 1 others are removed (removing j alone is exact)
            low_wo1 = np.where(rank_d < drop - 1, csum_d[min(drop, nf)] - delta, csum_d[drop - 1])
            exc_bound = np.minimum(exc_bound, fU - np.maximum(delta, (delta + low_wo1) / nu))
        elif self.r <= _BATCH_EIG_MAX_R:
            # exact inclusion bound of every exclude child: r x r eigenproblems in one batch
            Wf = W[free]
            Gs = st["G"][None, :, :] - Wf[:, :, None] * (Wf[:, None, :] / dP[:, None, None])
            exc_bound = np.minimum(exc_bound, np.linalg.eigvalsh(Gs)[:, -1])
        fix_out = s.discard_many(inc_bound)
        fix_in = s.discard_many(exc_bound)
        if np.any(fix_in & fix_out):
            return None, bound  # no improving support either way
        n_in = int(np.count_nonzero(fix_in))
        n_out = int(np.count_nonzero(fix_out))
        if n_in == 0 and n_out == 0:
            return False, bound
        if m + n_in > k or u - n_out < k:
            return None, bound
        for t in free[fix_out]:
            self._exclude(st, int(t))
        for t in free[fix_in]:
            self._include(st, int(t))
        return True, bound
