"""Full-rank greedy paths for sparse PCA (``B = I``, ``'max-eig'``) by certified Krylov updates.

The state of ``A_SS`` is two Ritz pairs ``(mu_j, u_j)`` with certified residual norms and a bound
``gamma`` on ``A_SS`` compressed to ``span(u_1, u_2)^perp`` -- never a full eigendecomposition.
Forward (:func:`forward_krylov`): each candidate gets the 2 x 2 lower bound on ``(u_1, e_i)`` and
the upper bound of a 4 x 4 arrow matrix ``(mu_1, mu_2, gamma; u_1.a, u_2.a, |a_perp|; A_ii)``
plus the residual norm (Weyl); the one or two survivors get the top two Ritz pairs of their
``(t + 1) x (t + 1)`` matrix from a block Krylov subspace started at ``[u_1, u_2, e_i]`` (a few
matrix-block products, ``O(t^2)`` each), their value certified by Temple's inequality with
Cauchy interlacing (``theta_2(A_{S+i}) <= theta_1(A_SS)``), and the new ``gamma`` by interlacing
again (``theta_3(A_{S+i}) <= theta_2(A_SS)``). Backward (:func:`backward_krylov`) deletes rows the
same way (``RQ(u_1 without entry i) <= lambda <= gamma + lambda_max(D^(1/2) (I - w_i w_i^T)
D^(1/2))``) with branch and bound over the survivors. Whenever a certificate fails or two
survivors cannot be separated, that step falls back to the dense route (partial ``eigh`` or full
``eigh`` + secular equation), so the greedy choice stays the exact argmax. Forward path to ``k``:
``O(p k^2 + s m k^3 / 3)`` with ``m`` the matrix-block products per survivor (a few, on
face images with the carried Ritz start; with the compiled phases of
:mod:`pixsel.spectral.greedy._fullrank_jit` the whole path is far faster than one dense
``(t + 1) x (t + 1)`` eigenproblem per survivor, ``method='partial'``; figures on the docs'
benchmarks page).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from scipy.linalg.lapack import dsyev as _syev

from ..._routes import compiled_enabled, note_compiled
from ._secular import EPS as _EPS
from ._secular import arrow4_max, deleted_top, eig2_max, secular_border, top2

__all__ = ["forward_krylov", "backward_krylov"]


def _compiled():
    """:mod:`pixsel.spectral.greedy._fullrank_jit` (Numba; imported on first use), or ``None``."""
    if not compiled_enabled():  # the route chose the NumPy kernels (a small problem)
        return None
    note_compiled()
    from . import _fullrank_jit
    return _fullrank_jit


def _top2_krylov(M, V, W, tol1, tol, max_iter=60, max_dim=24, matmul=None, keep=0):
    """Top two Ritz pairs of the symmetric ``M`` by a block Krylov (Davidson) subspace from ``V0``.

    ``V`` has orthonormal columns and ``W = M V``. Returns ``(mu, U, MU, res1, res)``: Ritz values ``mu[0] >= mu[1]`` (Rayleigh quotients, hence lower
    bounds on ``theta_1`` and ``theta_2``), orthonormal Ritz vectors ``U`` (``m x 2``) and the
    norms of the first residual ``res1 = |M u_1 - mu_1 u_1|`` and of the block ``M U - U diag(mu)``
    (Frobenius, an upper bound on the spectral norm), or ``None`` when the iteration did not
    reach ``res1 <= tol1`` and ``res <= tol`` (the caller then falls back to a dense ``eigh``).
    Only the unconverged residual columns expand the subspace. ``matmul(Q)``, when given,
    replaces ``M @ Q``. (The forward path's compiled route runs this same iteration in
    :func:`pixsel.spectral.greedy._fullrank_jit.bordered_top2_krylov`.) ``keep > 0``: a
    sixth entry ``(Vk, MVk)``, the top ``keep`` Ritz vectors of the final subspace (orthonormal,
    descending, the first two are ``U``) and their images, for the next step to start from.
    """
    n, m = V.shape
    cap = min(max_dim, n)
    Vb = np.empty((n, cap + 2))
    Wb = np.empty((n, cap + 2))
    Vb[:, :m], Wb[:, :m] = V, W
    for _ in range(max_iter):
        V, W = Vb[:, :m], Wb[:, :m]
        H = V.T @ W
        th, Z, info = _syev(0.5 * (H + H.T))  # LAPACK directly: a third of np.linalg.eigh's call cost
        if info != 0:  # pragma: no cover - LAPACK did not converge on a tiny matrix
            th, Z = np.linalg.eigh(0.5 * (H + H.T))
        Zall = Z
        Z = Z[:, : -3 : -1] if m > 2 else Z[:, ::-1]
        mu = th[: -3 : -1] if m > 2 else th[::-1]
        U = V @ Z
        MU = W @ Z
        R = MU - U * mu
        r2 = np.einsum("ij,ij->j", R, R)
        slack = n * _EPS * (abs(mu[0]) + abs(mu[-1]))  # rounding in W = M V
        res1, res = float(np.sqrt(r2[0])) + slack, float(np.sqrt(r2.sum())) + slack  # Frobenius >= 2-norm
        if res1 <= tol1 and res <= tol:
            if not keep:
                return mu, U, MU, res1, res
            q = min(keep, m)
            Zk = Zall[:, : -q - 1 : -1]
            return mu, U, MU, res1, res, (V @ Zk, W @ Zk)
        if m + 2 > cap:  # thick restart on the Ritz vectors
            Vb[:, :2], Wb[:, :2] = U, MU
            m = 2
            V = Vb[:, :m]
        added = 0
        for col in range(R.shape[1]):  # Gram-Schmidt, twice, column by column
            if (col == 0 and res1 <= tol1) or (col == 1 and np.sqrt(r2[1]) <= 0.5 * tol):
                continue
            q = R[:, col].copy()
            nq0 = np.sqrt(q @ q)
            if nq0 == 0.0:
                continue
            Vc = Vb[:, : m + added]
            for _ in range(2):
                q -= Vc @ (Vc.T @ q)
            nq = np.sqrt(q @ q)
            if nq <= 1e-8 * nq0:
                continue
            Vb[:, m + added] = q / nq
            added += 1
        if added == 0:
            return None
        Q = Vb[:, m : m + added]
        Wb[:, m : m + added] = M @ Q if matmul is None else matmul(Q)
        m += added
    return None


def forward_krylov(Aop, n_steps, tol1=1e-9, tol=1e-5, max_partial=4, compiled=True, start=None, n_carry=6):
    """``B = I``, ``'max-eig'`` forward path in ``O(p k^2 + iters k^3)``: certified Krylov updates.

    The state of ``A_SS`` is two Ritz pairs ``(mu_1, u_1), (mu_2, u_2)`` with residual block
    norm ``eps`` and a bound ``gamma`` on ``A_SS`` compressed to ``span(u_1, u_2)^perp``.
    ``M' = A_SS + E`` with ``E = -(R U^T + U R^T)`` (``|E| <= eps``) has ``U`` invariant, so for a
    candidate ``i`` (``a = A_{S,i}``, ``b_j = u_j . a``) Weyl's inequality gives the certified

        lambda_max(A_{S+i}) <= lambda_max(arrow(mu_1, mu_2, gamma; b_1, b_2, |a_perp|; A_ii)) + eps,

    and the 2 x 2 problem on ``(u_1, e_i)`` a lower bound. The survivors of that screening get
    the top two Ritz pairs of their ``(t + 1) x (t + 1)`` matrix from the block Krylov subspace
    started at ``[u_1, u_2, e_i]`` (matrix products only, a few passes over ``A_SS``); their value
    is certified by Temple's inequality ``theta_1 <= mu_1 + eps_1^2 / (mu_1 - theta_2^+)``. The new
    ``gamma``: Cauchy interlacing gives ``theta_3(A_{S+j}) <= theta_2(A_SS) <= mu_2 + eps`` (old),
    hence, when the new ``mu_2 > mu_2^old + eps^old + eps``, the compression of the new matrix to
    ``U^perp`` is bounded by ``mu_2^old + eps^old + eps``. Whenever a condition fails or two
    survivors cannot be separated, that step uses the dense route (partial ``eigh``, exact), which
    also restarts the state from exact eigenpairs. The greedy choice is thus the exact argmax.
    ``compiled=True`` runs each step's phases as compiled calls of
    :mod:`pixsel.spectral.greedy._fullrank_jit`: the screening (:func:`screen_candidates`, which forms
    ``U^T a`` only for the candidates whose cheap upper bound reaches the best lower bound of
    the four most promising ones, the others being unable to survive), each survivor's whole
    Krylov iteration (:func:`bordered_top2_krylov`) and the bookkeeping (:func:`add_feature`);
    the certificates (Temple, interlacing, separation of the survivors) and the dense fallback
    stay here, shared by both routes. ``False``: NumPy throughout (the same steps and
    conditions; only rounding differs), several times slower.
    ``start``: continue the path from this support (its entries first in ``order``, in the
    given order; ``objective`` is NaN below its size and exact at it). ``n_carry``: each step's
    Krylov subspace starts from the previous step's top ``n_carry`` Ritz vectors of ``A_SS``
    (their images come with them, so they cost no pass) plus ``e_i``, not from ``[u_1, u_2,
    e_i]``: on Extended Yale B (p = 1024) the whole path takes 2,266 passes over ``A_SS``
    instead of 3,415 (6 vectors; 2,214 with 16).
    """
    p = Aop.p
    dA = Aop.diag()
    Acols = np.zeros((p, n_steps))  # A_{r,S} for the rows r = rows[:nrows] (compacted)
    rows = np.arange(p)
    pos = np.arange(p)  # row of feature i in Acols
    nrows = p
    G = np.zeros((n_steps, n_steps))  # A_SS in the order of addition
    rowsq = np.zeros(p)
    free = np.ones(p, dtype=bool)
    order = np.empty(n_steps, dtype=np.intp)
    objective = np.empty(n_steps)
    n_krylov = n_dense = n_secular = 0
    state = None  # (mu (2,), U (t x 2), A_SS U, eps, gamma)
    carry = None  # (top Ritz vectors of A_SS, their images): the next Krylov start, or None
    jit = _compiled() if compiled else None

    def dense_state(t1):
        if t1 < 3:
            return None
        M = G[:t1, :t1]
        w, V = sla.eigh(M, subset_by_index=[t1 - 3, t1 - 1], driver="evr")
        w, V = w[::-1], V[:, ::-1]
        U, mu = V[:, :2], w[:2]
        MU = M @ U
        res = float(np.linalg.norm(MU - U * mu))
        slack = 1e-12 * (abs(w[0]) + abs(w[2]))
        gamma = w[2] + res + slack
        if not mu[1] > gamma:  # theta_2 ~ theta_3: only the loose bound is certified
            gamma = w[0] + res + slack
        return mu, U, MU, res, gamma

    t0 = 0
    if start is not None and len(start):
        t0 = len(start)
        start = np.asarray(start, dtype=np.intp)
        order[:t0] = start
        objective[: t0 - 1] = np.nan
        free[start] = False
        Acols[:, :t0] = Aop.columns(start)
        rowsq = (Acols[:, :t0] ** 2).sum(axis=1)
        G[:t0, :t0] = Acols[start, :t0]
        state = dense_state(t0)
        objective[t0 - 1] = state[0][0] if state is not None else np.linalg.eigvalsh(G[:t0, :t0])[-1]
    for t in range(t0, n_steps):
        new_carry = None
        cand = np.flatnonzero(free)
        if nrows - len(cand) > max(32, nrows // 8):  # drop the selected rows: O(p k^2 / 2)
            keep = pos[cand]
            Acols[: len(cand), :t] = Acols[keep, :t]
            rows[: len(cand)] = cand
            pos[cand] = np.arange(len(cand))
            nrows = len(cand)
        if t == 0:
            j = int(cand[np.argmax(dA[cand])])
            best, new_state = dA[j], None
        elif state is None:  # t < 3: dense eigenvalues of every candidate, all in one batch
            Ms = np.empty((len(cand), t + 1, t + 1))
            Ms[:, :t, :t] = G[:t, :t]
            Ms[:, t, :t] = Ms[:, :t, t] = Acols[pos[cand], :t]
            Ms[:, t, t] = dA[cand]
            vals = np.linalg.eigvalsh(Ms)[:, -1]
            w = int(np.argmax(vals))
            j, best, new_state = int(cand[w]), vals[w], None
            n_dense += 1
        else:
            mu, U, MU, eps, gamma = state
            AS = Acols[:nrows, :t]
            AS_c = pos[cand]
            c = dA[cand]
            bnorm2 = rowsq[cand]
            if jit is not None:  # the same screening in one compiled call
                UT = np.ascontiguousarray(U.T)
                bT, lower, upper, tol_s, surv = jit.screen_candidates(
                    Acols, AS_c, t, UT, mu[0], mu[1], gamma, eps, c, bnorm2
                )
            else:
                b = AS[AS_c] @ U  # columns of AS are in order of addition, like U's rows
                b1, b2 = b[:, 0], b[:, 1]
                lower = np.maximum(eig2_max(mu[0], b1, c), mu[0])
                # cheap bound first (mu_2, gamma <= mu_1), the 4 x 4 arrow only where it matters
                upper = eig2_max(max(mu[0], gamma), np.sqrt(bnorm2), c)
                upper = upper * (1 + 1e-12) + 1e-12 * np.abs(c) + eps
                tol_s = 1e-10 * (np.maximum(np.abs(upper), abs(mu[0])) + np.sqrt(bnorm2)).max()
                hard = np.flatnonzero(upper >= lower.max() - tol_s)
                beta = np.sqrt(np.maximum(bnorm2[hard] - b1[hard] ** 2 - b2[hard] ** 2, 0.0))
                upper[hard] = np.minimum(
                    upper[hard], arrow4_max(mu[0], mu[1], gamma, c[hard], b1[hard], b2[hard], beta) + eps
                )
                lower = np.minimum(lower, upper)
                surv = np.flatnonzero(upper >= lower.max() - tol_s)
            j = None
            if len(surv) <= max_partial:
                res_list = []
                ok = True
                for s_ in surv:
                    i = cand[s_]
                    sc = abs(mu[0]) + np.sqrt(bnorm2[s_])
                    if jit is not None:  # the whole iteration in one compiled call (vectors as rows)
                        VkT, WkT = (UT, np.ascontiguousarray(MU.T)) if carry is None else carry
                        ok_, mu_n, UT_n, MUT_n, e1, e_n, VcT, WcT = jit.bordered_top2_krylov(
                            G, t, Acols[pos[i]], dA[i], VkT, WkT, tol1 * sc, tol * sc, 60, 24, n_carry
                        )  # 60, 24: _top2_krylov's max_iter and max_dim
                        n_krylov += 1
                        if not ok_:
                            ok = False
                            break
                        U_n, MU_n = UT_n.T, MUT_n.T
                        carry_n = (VcT, WcT) if n_carry else None
                    else:
                        G[t, :t] = G[:t, t] = AS[pos[i]]
                        G[t, t] = dA[i]
                        M = G[: t + 1, : t + 1]
                        Vk, Wk = (U, MU) if carry is None else carry  # carry: top Ritz vectors of A_SS
                        q = Vk.shape[1]
                        V0 = np.zeros((t + 1, q + 1))
                        V0[:t, :q] = Vk
                        V0[t, q] = 1.0
                        W0 = np.empty((t + 1, q + 1))  # M V0 without touching A_SS
                        W0[:t, :q] = Wk
                        W0[t, :q] = AS[pos[i]] @ Vk if carry is not None else b[s_]
                        W0[:t, q] = AS[pos[i]]
                        W0[t, q] = dA[i]
                        out = _top2_krylov(M, V0, W0, tol1 * sc, tol * sc, keep=n_carry)
                        n_krylov += 1
                        if out is None:
                            ok = False
                            break
                        mu_n, U_n, MU_n, e1, e_n = out[:5]
                        carry_n = out[5] if n_carry else None
                    alpha = max(mu[1], gamma) + eps + e_n  # >= theta_3(new) + e_n (interlacing)
                    th2_up = max(mu[0], gamma) + eps  # >= theta_1(A_SS) >= theta_2(new)
                    if mu_n[1] > alpha:  # then U_n^perp holds nothing above alpha: Weyl
                        th2_up = min(th2_up, mu_n[1] + e_n)
                    if not mu_n[0] > th2_up:
                        ok = False
                        break
                    hi = mu_n[0] + e1 * e1 / (mu_n[0] - th2_up)  # Temple
                    res_list.append((mu_n[0], hi, i, mu_n, U_n, MU_n, e_n, alpha, carry_n))
                if ok and res_list:
                    w = int(np.argmax([r[0] for r in res_list]))  # ties -> lowest index
                    others = [r[1] for k_, r in enumerate(res_list) if k_ != w]
                    if not others or res_list[w][0] > max(others):
                        _, _, j, mu_n, U_n, MU_n, e_n, alpha, new_carry = res_list[w]
                        best = mu_n[0]
                        new_state = (mu_n, U_n, MU_n, e_n, alpha) if mu_n[1] > alpha else None
            if j is None:  # dense route for this step (exact)
                n_dense += 1
                ASS = G[:t, :t]
                if len(surv) <= max_partial:
                    vals = []
                    for s_ in surv:
                        i = cand[s_]
                        G[t, :t] = G[:t, t] = AS[pos[i]]
                        G[t, t] = dA[i]
                        vals.append(top2(G[: t + 1, : t + 1])[0])
                    w = int(np.argmax(vals))
                    j, best = int(cand[surv[w]]), vals[w]
                else:
                    theta, X = sla.eigh(ASS, driver="evd")
                    bs = AS[AS_c[surv]] @ X
                    lo = np.minimum(np.maximum(lower[surv], np.maximum(mu[0], c[surv])), upper[surv])
                    vals = secular_border(theta, bs, c[surv], lo, upper[surv])
                    n_secular += len(surv)
                    w = int(np.argmax(vals))
                    j, best = int(cand[surv[w]]), vals[w]
                new_state = None
        order[t] = j
        free[j] = False
        col = Aop.column(j)
        if jit is not None:
            jit.add_feature(Acols, rows, nrows, G, order, t, np.ascontiguousarray(col, dtype=np.float64), rowsq)
        else:
            Acols[:nrows, t] = col[rows[:nrows]]
            G[t, : t + 1] = G[: t + 1, t] = col[order[: t + 1]]
            rowsq += col * col
        objective[t] = best
        carry = new_carry if new_state is not None else None
        state = new_state if new_state is not None else dense_state(t + 1)
    return order, objective, {"n_secular": n_secular, "n_krylov": n_krylov, "n_dense_steps": n_dense}


def _deletion_bounds(mu, U, MU, eps, gamma, dS):
    """The certified bounds on ``lambda_max(A_{S-i})`` for every ``i`` (see :func:`backward_krylov`).

    Returns ``(g, lower, upper, tol_s, surv)``: ``g = max(gamma, mu_2)``, the Rayleigh quotient of
    ``u_1`` with entry ``i`` removed, the upper bound ``gamma + lambda_max(D^(1/2) (I - w_i w_i^T)
    D^(1/2)) + eps`` (inflated for rounding), the screening tolerance and the survivors (the rows
    whose upper bound reaches the best lower bound less ``tol_s``).
    """
    g = max(gamma, mu[1])  # >= theta_2(M')
    d = np.maximum(mu - gamma, 0.0)
    # lower: Rayleigh quotient of u_1 with entry i removed
    u1, mu1 = U[:, 0], MU[:, 0]
    den = 1.0 - u1 * u1
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = (mu[0] - 2 * u1 * mu1 + u1 * u1 * dS) / den
    lower = np.where(den > 1e-12, lower, -np.inf)
    # upper: 2 x 2 problem sqrt(d) (I - w w^T) sqrt(d)
    w1, w2 = U[:, 0], U[:, 1]
    a11 = d[0] * (1 - w1 * w1)
    a22 = d[1] * (1 - w2 * w2)
    a12 = -np.sqrt(d[0] * d[1]) * w1 * w2
    upper = gamma + eig2_max(a11, a12, a22) + eps
    upper = upper + 1e-12 * (abs(mu[0]) + abs(gamma))
    lower = np.minimum(lower, upper)
    tol_s = 1e-10 * (abs(mu[0]) + abs(g))
    surv = np.flatnonzero(upper >= lower.max() - tol_s)
    return g, lower, upper, tol_s, surv


class _Deleted:
    """``A_SS`` without row and column ``r``, applied through ``A_SS`` (no copy per candidate)."""

    def __init__(self, ASS, r):
        self.ASS, self.r = ASS, r
        self.shape = (ASS.shape[0] - 1, ASS.shape[0] - 1)

    def __matmul__(self, Q):
        return np.delete(self.ASS @ np.insert(Q, self.r, 0.0, axis=0), self.r, axis=0)


def _certify_deletion(mu_n, e1, e_n, th2_up, theta3_up):
    """Temple's certificate of a deletion's Krylov result, or ``None`` when it does not hold.

    ``th2_up >= theta_2(A_SS) >= theta_2(A_{S-i})`` and ``theta3_up >= theta_3(A_SS) >=
    theta_3(A_{S-i})`` (interlacing). Returns ``(hi, gamma_new)``: ``hi`` the certified upper bound
    ``mu_1 + e_1^2 / (mu_1 - theta_2^+)`` on ``lambda_max(A_{S-i})`` and the new ``gamma``: the
    compression of the new ``M'`` to ``U_n^perp`` is ``<= alpha`` when ``mu_2 > alpha``, else
    (``mu_1 > theta_2^+ + e_n`` puts it below ``mu_1``) ``<= theta_2 + e_n``."""
    alpha = theta3_up + e_n
    if mu_n[1] > alpha:
        th2_up = min(th2_up, mu_n[1] + e_n)
    if not mu_n[0] > th2_up + e_n:
        return None
    hi = mu_n[0] + e1 * e1 / (mu_n[0] - th2_up)
    return hi, (alpha if mu_n[1] > alpha else max(alpha, th2_up + e_n))


def _dense_top2(M):
    """Dense start of the Krylov state of ``M`` (s x s): ``(mu, U, MU, res, gamma)``, the top two
    eigenpairs, their residual and a bound ``gamma`` on the third eigenvalue."""
    s = M.shape[0]
    w, V = sla.eigh(M, subset_by_index=[s - 3, s - 1], driver="evr")
    w, V = w[::-1], V[:, ::-1]
    U, mu = V[:, :2], w[:2]
    MU = M @ U
    res = float(np.linalg.norm(MU - U * mu)) + s * _EPS * abs(w[0])
    gamma = w[2] + res + 1e-12 * (abs(w[0]) + abs(w[2]))
    return mu, U, MU, res, gamma


def _deleted_tops(ASS, surv):
    """Top eigenvalue of ``ASS`` with row/column ``r`` deleted, for each ``r`` in ``surv``: one full
    eigh, then the deleted-row secular equation of each survivor."""
    theta, X = sla.eigh(ASS, driver="evd")
    wh = X[surv] ** 2
    wh /= wh.sum(axis=1, keepdims=True)
    th1, th2 = theta[-1], theta[-2]
    a1 = wh[:, -1]
    hi = th1 - (th1 - th2) * a1
    return deleted_top(theta, wh, np.minimum(np.full(len(surv), th2), hi), hi)



def backward_krylov(A, tol1=1e-10, tol=1e-6, max_krylov=8, compiled=True):
    """``B = I``, ``'max-eig'`` backward path from certified Krylov updates (see the forward one).

    With the state ``(mu, U, eps, gamma)`` of ``A_SS`` (``M' = A_SS + E`` has ``U`` invariant,
    ``|E| <= eps``, its compression to ``U^perp`` is ``<= gamma``), deleting ``i`` gives the
    certified bounds

        RQ(u_1 with entry i zeroed) <= lambda_max(A_{S-i})
            <= g + lambda_max(D^(1/2) (I - w_i w_i^T) D^(1/2)) + eps,

    ``w_i = U[i, :]``, ``g = gamma``, ``D = diag(max(mu - gamma, 0))``. The survivors get two Ritz
    pairs of ``A_{S-i}`` from the Krylov subspace started at ``U`` without row ``i``; Temple's
    inequality with ``theta_2(A_{S-i}) <= theta_2(A_SS) <= max(mu_2, gamma) + eps`` (interlacing)
    certifies each value, and ``theta_3(A_{S-i}) <= theta_3(A_SS) <= gamma + eps`` the new
    ``gamma``. Any failed
    condition makes that step dense (exact).
    ``compiled=True`` runs each survivor's whole Krylov iteration as one compiled call
    (:func:`pixsel.spectral.greedy._fullrank_jit.deleted_top2_krylov`) on a compacted copy of ``A_SS``
    that loses one row and column per step (the last one moved into its place, ``O(s)``),
    instead of ``A[np.ix_(S, S)]`` per step and ``np.insert`` / ``np.delete`` copies per
    product, and stops a survivor's iteration as soon as its Temple bound ``mu_1 + res_1^2 /
    (mu_1 - (g + eps))`` falls below the best value already certified (that deletion cannot be
    the argmax; its bound joins the final separation test). Most survivors then cost one or two
    Rayleigh-Ritz steps, so the survivor budget is ``max(max_krylov, s // 4)`` instead of
    ``max(max_krylov, s // 16)``. The certificates, the screening and the dense fallback are
    the same; ties still go to the lowest feature index. ``False``: the NumPy route
    (the same order; far slower).
    """
    jit = _compiled() if compiled else None
    if jit is not None:
        return _backward_compiled(A, tol1, tol, max_krylov, jit)
    p = A.shape[0]
    dA = np.diag(A).copy()
    alive = np.arange(p)
    order = np.empty(p, dtype=np.intp)
    objective = np.empty(p)
    n_krylov = n_dense = loose = 0

    def dense_state(S):
        return _dense_top2(A[np.ix_(S, S)])

    state = None
    for step in range(p):
        S = alive
        s = len(S)
        if s <= 4:  # tiny: dense values of every deletion
            ASS = A[np.ix_(S, S)]
            objective[s - 1] = np.linalg.eigvalsh(ASS)[-1]
            if s == 1:
                order[step] = S[0]
                break
            vals = [np.linalg.eigvalsh(np.delete(np.delete(ASS, r, 0), r, 1))[-1] for r in range(s)]
            r = int(np.argmax(vals))
            order[step] = S[r]
            alive = np.delete(S, r)
            state = None
            continue
        if state is None:
            state = dense_state(S)
            n_dense += 1
        mu, U, MU, eps, gamma = state
        objective[s - 1] = mu[0]
        ASS = A[np.ix_(S, S)]
        g, lower, upper, tol_s, surv = _deletion_bounds(mu, U, MU, eps, gamma, dA[S])
        # branch and bound: survivors by decreasing upper bound, each certified by Krylov +
        # Temple, until the best certified value exceeds every remaining upper bound
        r, new_state, ok = None, None, True
        res_list = []
        for r_ in surv[np.argsort(-upper[surv], kind="stable")]:
            if res_list and max(x[0] for x in res_list) > upper[r_] + tol_s:
                break
            if len(res_list) >= max(max_krylov, s // 16):
                ok = False
                break
            keep = np.delete(np.arange(s), r_)
            Sk = S[keep]
            M = _Deleted(ASS, r_)
            V0 = U[keep]
            W0 = MU[keep] - np.outer(A[Sk, S[r_]], U[r_])
            Q, Rq = np.linalg.qr(V0)
            if min(abs(Rq[0, 0]), abs(Rq[1, 1])) < 1e-8:
                ok = False
                break
            W0 = sla.solve_triangular(Rq, W0.T, trans="T", lower=False).T
            sc = abs(mu[0])
            out = _top2_krylov(M, Q, W0, tol1 * sc, tol * sc)
            n_krylov += 1
            if out is None:
                ok = False
                break
            mu_n, U_n, MU_n, e1, e_n = out
            cert = _certify_deletion(mu_n, e1, e_n, g + eps, gamma + eps)
            if cert is None:
                ok = False
                break
            hi, gam_n = cert
            res_list.append((mu_n[0], hi, r_, (mu_n, U_n, MU_n, e_n, gam_n)))
        if ok and res_list:
            w = max(range(len(res_list)), key=lambda q: (res_list[q][0], -res_list[q][2]))
            others = [x[1] for q, x in enumerate(res_list) if q != w]
            evaluated = {x[2] for x in res_list}
            rest = [upper[q] for q in surv if q not in evaluated]
            if res_list[w][0] > max(others + rest, default=-np.inf):
                r, new_state = res_list[w][2], res_list[w][3]
                loose = loose + 1 if new_state[4] > new_state[0][1] else 0
                if loose > 16:  # the loose bound has been carried long enough: refresh exactly
                    new_state, loose = None, 0
        if r is None:  # dense: exact values of the survivors
            n_dense += 1
            if len(surv) <= 4:
                vals = [top2(A[np.ix_(np.delete(S, r_), np.delete(S, r_))])[0] for r_ in surv]
            else:  # one full eigh, then the deleted-row secular equation of each survivor
                vals = _deleted_tops(A[np.ix_(S, S)], surv)
            r, new_state = int(surv[int(np.argmax(vals))]), None
            loose = 0
        order[step] = S[r]
        alive = np.delete(S, r)
        state = new_state
    return order, objective, {"n_secular": 0, "n_krylov": n_krylov, "n_dense_steps": n_dense}


def _argmax_low(vals, feats):
    """Position of the largest of ``vals``, ties to the lowest of ``feats`` (the NumPy route's
    order, where positions follow the feature index)."""
    vals = np.asarray(vals)
    top = np.flatnonzero(vals == vals.max())
    return int(top[np.argmin(feats[top])])


def _backward_compiled(A, tol1, tol, max_krylov, jit):
    """:func:`backward_krylov` with the compiled Krylov iteration on a compacted ``A_SS``."""
    p = A.shape[0]
    dA = np.diag(A).copy()
    B = np.array(A, dtype=np.float64, order="C")  # A_SS in B[:s, :s], rows in the order of feat
    feat = np.arange(p)
    order = np.empty(p, dtype=np.intp)
    objective = np.empty(p)
    n_krylov = n_dense = loose = 0

    def dense_state(s):
        return _dense_top2(B[:s, :s])

    def drop(U_n, r, s):  # row r's slot takes row s - 1, as swap_delete does for B
        U_n = U_n.T.copy()
        U_n[r] = U_n[s - 1]
        return U_n[: s - 1]

    state = None
    for step in range(p):
        s = p - step
        S = feat[:s]
        if s <= 4:  # tiny: dense values of every deletion
            ASS = B[:s, :s]
            objective[s - 1] = np.linalg.eigvalsh(ASS)[-1]
            if s == 1:
                order[step] = S[0]
                break
            vals = [np.linalg.eigvalsh(np.delete(np.delete(ASS, r, 0), r, 1))[-1] for r in range(s)]
            r = _argmax_low(vals, S)
            order[step] = S[r]
            jit.swap_delete(B, s, r)
            feat[r] = feat[s - 1]
            state = None
            continue
        if state is None:
            state = dense_state(s)
            n_dense += 1
        mu, U, MU, eps, gamma = state
        objective[s - 1] = mu[0]
        g, lower, upper, tol_s, surv = _deletion_bounds(mu, U, MU, eps, gamma, dA[S])
        UT, MUT = np.ascontiguousarray(U.T), np.ascontiguousarray(MU.T)
        r, new_state, ok = None, None, True
        res_list = []
        best_lo = -np.inf
        for r_ in surv[np.lexsort((S[surv], -upper[surv]))]:
            if res_list and best_lo > upper[r_] + tol_s:
                break
            if len(res_list) >= max(max_krylov, s // 4):  # dominated survivors stop early: cheap
                ok = False
                break
            sc = abs(mu[0])
            th2_up = g + eps  # >= theta_2(A_SS) >= theta_2(A_{S-i})
            st, mu_n, UT_n, MUT_n, e1, e_n = jit.deleted_top2_krylov(
                B, s, r_, UT, MUT, tol1 * sc, tol * sc, 60, 24, th2_up, best_lo
            )
            n_krylov += 1
            if st == 0:
                ok = False
                break
            if st == 2:  # Temple's bound below a certified value: not the argmax
                res_list.append((mu_n[0], mu_n[0] + e1 * e1 / (mu_n[0] - th2_up), r_, None))
                continue
            cert = _certify_deletion(mu_n, e1, e_n, th2_up, gamma + eps)
            if cert is None:
                ok = False
                break
            hi, gam_n = cert
            res_list.append((mu_n[0], hi, r_, (mu_n, UT_n, MUT_n, e_n, gam_n)))
            best_lo = max(best_lo, mu_n[0])
        if ok and res_list:
            w = max(range(len(res_list)), key=lambda q: (res_list[q][0], -S[res_list[q][2]]))
            others = [x[1] for q, x in enumerate(res_list) if q != w]
            evaluated = {x[2] for x in res_list}
            rest = [upper[q] for q in surv if q not in evaluated]
            if res_list[w][0] > max(others + rest, default=-np.inf):
                r = res_list[w][2]
                mu_n, UT_n, MUT_n, e_n, gam_n = res_list[w][3]
                new_state = (mu_n, drop(UT_n, r, s), drop(MUT_n, r, s), e_n, gam_n)
                loose = loose + 1 if gam_n > mu_n[1] else 0
                if loose > 16:  # the loose bound has been carried long enough: refresh exactly
                    new_state, loose = None, 0
        if r is None:  # dense: exact values of the survivors
            n_dense += 1
            ASS = B[:s, :s]
            if len(surv) <= 4:
                vals = [top2(np.delete(np.delete(ASS, r_, 0), r_, 1))[0] for r_ in surv]
            else:  # one full eigh, then the deleted-row secular equation of each survivor
                vals = _deleted_tops(ASS, surv)
            r, new_state = int(surv[_argmax_low(vals, S[surv])]), None
            loose = 0
        order[step] = S[r]
        jit.swap_delete(B, s, r)
        feat[r] = feat[s - 1]
        state = new_state
    return order, objective, {"n_secular": 0, "n_krylov": n_krylov, "n_dense_steps": n_dense}
