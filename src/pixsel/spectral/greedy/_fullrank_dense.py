"""Full-rank greedy paths by dense eigendecompositions and secular equations (any ``B``).

Forward (:func:`forward_secular`). Let ``A_SS X = B_SS X diag(theta)`` with ``X^T B_SS X = I``
(``t = |S|``). Adding ``i`` borders the whitened matrix ``diag(theta)`` with one row: in the
``B``-orthonormal basis ``(X, y_i)``, ``y_i = (e_i - E_S B_SS^{-1} B_{S,i}) / sqrt(R_ii)``, the
pair becomes

    [[diag(theta), b_i], [b_i^T, c_i]],   b_i = (H_i - theta * K_i) / sqrt(R_ii),
    c_i = (A_ii - 2 H_i . K_i + sum_j theta_j K_ij^2) / R_ii,   R_ii = B_ii - |K_i|^2,

with ``H = A_{:,S} X`` and ``K = B_{:,S} X`` (``O(p t^2)``; for ``B = I``, ``K`` vanishes off
``S`` and ``|b_i| = |A_{i,S}|`` is updated in ``O(p)`` per step). The new largest eigenvalue is
the root above ``max(theta_1, c_i)`` of the secular equation (:mod:`pixsel.spectral.greedy._secular`).
Each candidate gets a lower bound (the 2 x 2 problem on ``(x_1, y_i)``) and an upper bound (the
3 x 3 problem that replaces ``theta_2..theta_t`` by ``theta_2``); the secular equation is solved
only where the upper bound reaches the best lower bound -- usually a handful of candidates.
``'trace'`` simply adds ``c_i``.

Forward, ``B = I`` (:func:`forward_partial`): the same screening, then a partial ``eigh`` of
each survivor's ``(t + 1) x (t + 1)`` matrix.

Backward (:func:`backward_secular`). Deleting ``i`` from ``S`` restricts the whitened problem to
the hyperplane orthogonal to ``w_i = X[i, :]`` (``|w_i|^2 = (B_SS^{-1})_ii``). The new largest
eigenvalue is the root in ``[theta_2, theta_1]`` of ``sum_j w_ij^2 / (lam - theta_j) = 0``,
bracketed by ``max(theta_2, Rayleigh quotient of the projected x_1) <= lambda <= theta_1 -
(theta_1 - theta_2) w_i1^2 / |w_i|^2`` and solved only for the survivors of that screening.
``'trace'`` loses ``w_i^T diag(theta) w_i / |w_i|^2``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ._secular import EPS as _EPS
from ._secular import arrow3_max, deleted_top, eig2_max, secular_border, top2

__all__ = ["forward_secular", "forward_partial", "backward_secular"]


def _sym_eigh(AS, BS):
    if BS is None:
        return sla.eigh(AS, driver="evd")
    return sla.eigh(AS, BS)


class _Selected:
    """What a left-looking forward pass keeps: the selected columns ``A_{:,S}``, the row norms
    ``|A_{i,S}|^2``, the free mask, the order and the objective per step."""

    def __init__(self, Aop, n_steps):
        p = Aop.p
        self.Aop = Aop
        self.Acols = np.zeros((p, n_steps))
        self.rowsq = np.zeros(p)
        self.free = np.ones(p, dtype=bool)
        self.order = np.empty(n_steps, dtype=np.intp)
        self.objective = np.empty(n_steps)
        self.S = []

    def add(self, j, value):
        t = len(self.S)
        self.order[t] = j
        self.free[j] = False
        self.S.append(j)
        col = self.Aop.column(j)
        self.Acols[:, t] = col
        self.rowsq += col * col
        self.objective[t] = value


def forward_secular(Aop, B, criterion, n_steps):
    p = Aop.p
    dA = Aop.diag()
    dB = np.ones(p) if B is None else np.diag(B).copy()
    path = _Selected(Aop, n_steps)
    Acols, rowsq, free, S = path.Acols, path.rowsq, path.free, path.S
    n_secular = 0
    tolB = p * _EPS * np.abs(dB)
    for t in range(n_steps):
        cand = np.flatnonzero(free)
        score = np.full(p, -np.inf)
        if t == 0:
            score[cand] = dA[cand] / dB[cand]
        else:
            AS = Acols[:, :t]
            ASS = AS[S]
            BSS = None if B is None else B[np.ix_(S, S)]
            theta, X = _sym_eigh(ASS, BSS)
            th1 = theta[-1]
            th2 = theta[-2] if t > 1 else th1
            if B is None:
                R = np.ones(len(cand))
                c = dA[cand]
                b1 = AS[cand] @ X[:, -1]
                bnorm2 = rowsq[cand]
                Hc = Kc = None
            else:
                H = AS[cand] @ X
                K = B[np.ix_(cand, S)] @ X
                R = dB[cand] - np.einsum("ij,ij->i", K, K)
                Hc, Kc = H, K
                c = (dA[cand] - 2 * np.einsum("ij,ij->i", H, K) + (K * K) @ theta)
            okc = R > tolB[cand]
            sR = np.sqrt(np.where(okc, R, 1.0))
            c = np.where(okc, c / np.where(okc, R, 1.0), -np.inf)
            if criterion.additive:
                vals = np.where(okc, theta.sum() + c, theta.sum())
                score[cand] = vals
            else:
                if B is not None:
                    bfull = (Hc - theta[None, :] * Kc) / sR[:, None]
                    b1 = bfull[:, -1]
                    bnorm2 = np.einsum("ij,ij->i", bfull, bfull)
                cc = np.where(okc, c, th1)
                b1 = np.where(okc, b1, 0.0)
                bnorm2 = np.where(okc, bnorm2, 0.0)
                lower = np.maximum(eig2_max(th1, b1, cc), th1)
                beta = np.sqrt(np.maximum(bnorm2 - b1 * b1, 0.0))
                T = np.zeros((len(cand), 3, 3))
                T[:, 0, 0] = th1
                T[:, 1, 1] = th2
                T[:, 2, 2] = cc
                T[:, 0, 2] = T[:, 2, 0] = b1
                T[:, 1, 2] = T[:, 2, 1] = beta
                upper = np.linalg.eigvalsh(T)[:, -1]
                scale = np.maximum(np.abs(upper), np.abs(th1)) + np.sqrt(bnorm2) + 1e-300
                upper = upper + 1e-12 * scale
                lower = np.minimum(lower, upper)
                surv = np.flatnonzero(upper >= lower.max() - 1e-10 * scale.max())
                vals = lower.copy()
                vals[:] = -np.inf
                if len(surv):
                    if B is None:
                        bs = AS[cand[surv]] @ X
                    else:
                        bs = bfull[surv]
                    lo = np.maximum(lower[surv], np.maximum(th1, cc[surv]))
                    lo = np.minimum(lo, upper[surv])
                    vals[surv] = secular_border(theta, bs, cc[surv], lo, upper[surv])
                    n_secular += len(surv)
                score[cand] = vals
        j = int(np.argmax(score))
        path.add(j, score[j])
    return path.order, path.objective, {"n_secular": n_secular}


def forward_partial(Aop, n_steps, max_partial=4):
    """``B = I``, ``'max-eig'``: screening, then the survivors' top eigenvalue by a partial ``eigh``.

    The state is only the top eigenpair ``(theta_1, x_1)`` and ``theta_2`` of ``A_SS`` (from the
    winner's own partial eigendecomposition); the bounds need ``A_{cand,S} x_1`` (``O(p t)``),
    ``|A_{i,S}|^2`` (updated in ``O(p)``) and ``A_ii``. When more than ``max_partial`` candidates
    survive the screening, they are evaluated together by the secular equation on a full
    eigendecomposition of ``A_SS`` instead.
    """
    dA = Aop.diag()
    path = _Selected(Aop, n_steps)
    Acols, rowsq, free, S = path.Acols, path.rowsq, path.free, path.S
    n_exact = n_secular = 0
    th1 = th2 = 0.0
    x1 = np.zeros(0)
    for t in range(n_steps):
        cand = np.flatnonzero(free)
        if t == 0:
            j = int(cand[np.argmax(dA[cand])])
            best, state = dA[j], (dA[j], dA[j], np.ones(1))
        else:
            AS = Acols[:, :t]
            ASS = AS[S]
            c = dA[cand]
            b1 = AS[cand] @ x1
            bnorm2 = rowsq[cand]
            lower = np.maximum(eig2_max(th1, b1, c), th1)
            beta = np.sqrt(np.maximum(bnorm2 - b1 * b1, 0.0))
            upper = arrow3_max(th1, th2, c, b1, beta)
            scale = np.maximum(np.abs(upper), abs(th1)) + np.sqrt(bnorm2) + 1e-300
            lower = np.minimum(lower, upper)
            surv = np.flatnonzero(upper >= lower.max() - 1e-10 * scale.max())
            if len(surv) <= max_partial:
                vals, states = [], []
                for s_ in surv:
                    i = cand[s_]
                    M = np.empty((t + 1, t + 1))
                    M[:t, :t] = ASS
                    M[t, :t] = M[:t, t] = AS[i]
                    M[t, t] = dA[i]
                    st = top2(M)
                    vals.append(st[0])
                    states.append(st)
                n_exact += len(surv)
                w = int(np.argmax(vals))  # surv is sorted: ties -> lowest index
                j, best, state = int(cand[surv[w]]), vals[w], states[w]
            else:
                theta, X = sla.eigh(ASS, driver="evd")
                bs = AS[cand[surv]] @ X
                lo = np.minimum(np.maximum(lower[surv], np.maximum(th1, c[surv])), upper[surv])
                vals = secular_border(theta, bs, c[surv], lo, upper[surv])
                n_secular += len(surv)
                w = int(np.argmax(vals))
                j, best, state = int(cand[surv[w]]), vals[w], None
        path.add(j, best)
        if state is None:
            state = top2(Acols[:, : t + 1][S])
        th1, th2, x1 = state
    return path.order, path.objective, {"n_secular": n_secular, "n_partial_eigh": n_exact}


def backward_secular(A, B, criterion):
    p = A.shape[0]
    alive = list(range(p))
    order = np.empty(p, dtype=np.intp)
    objective = np.empty(p)
    n_secular = 0
    for step in range(p):
        size = p - step
        S = np.array(alive, dtype=np.intp)
        ASS = A[np.ix_(S, S)]
        BSS = None if B is None else B[np.ix_(S, S)]
        try:
            theta, X = _sym_eigh(ASS, BSS)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                "B restricted to the support is not positive definite; regularize B first "
                "(pixsel.stats.regularize(B, 'auto'))."
            ) from exc
        objective[size - 1] = criterion.of_eigenvalues(theta)
        if size == 1:
            order[step] = S[0]
            break
        w2 = X * X
        nrm = w2.sum(axis=1)
        wh = w2 / nrm[:, None]
        s = wh @ theta
        th1, th2 = theta[-1], theta[-2]
        if criterion.additive:
            vals = theta.sum() - s
        else:
            a1 = wh[:, -1]
            upper = th1 - (th1 - th2) * a1
            with np.errstate(divide="ignore", invalid="ignore"):
                rq = (th1 * (1 - 2 * a1) + a1 * s) / (1 - a1)
            rq = np.where(1 - a1 > 1e-12, rq, th2)
            lower = np.minimum(np.maximum(th2, rq), upper)
            scale = np.abs(theta).max() + 1e-300
            surv = np.flatnonzero(upper >= lower.max() - 1e-10 * scale)
            vals = np.full(size, -np.inf)
            vals[surv] = deleted_top(theta, wh[surv], lower[surv], upper[surv])
            n_secular += len(surv)
        jpos = int(np.argmax(vals))
        order[step] = S[jpos]
        alive.pop(jpos)
    return order, objective, {"n_secular": n_secular}
