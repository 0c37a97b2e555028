"""Exact greedy paths for a full symmetric ``A`` and positive definite ``B`` (greedy sparse PCA).

The greedy criterion is the exact ``lambda_max(A_S, B_S)`` (or ``tr(B_SS^{-1} A_SS)`` with
``criterion='trace'``) of every candidate support, obtained *without* an eigendecomposition per
candidate: one generalized eigendecomposition of the current support per step, then a secular
equation per candidate, solved only for the candidates that survive a cheap bound screening.

Forward. Let ``A_SS X = B_SS X diag(theta)`` with ``X^T B_SS X = I`` (``t = |S|``). Adding ``i``
borders the whitened matrix ``diag(theta)`` with one row: in the ``B``-orthonormal basis
``(X, y_i)``, ``y_i = (e_i - E_S B_SS^{-1} B_{S,i}) / sqrt(R_ii)``, the pair becomes

    [[diag(theta), b_i], [b_i^T, c_i]],   b_i = (H_i - theta * K_i) / sqrt(R_ii),
    c_i = (A_ii - 2 H_i . K_i + sum_j theta_j K_ij^2) / R_ii,   R_ii = B_ii - |K_i|^2,

with ``H = A_{:,S} X`` and ``K = B_{:,S} X`` (``O(p t^2)``; for ``B = I``, ``K`` vanishes off
``S`` and ``|b_i| = |A_{i,S}|`` is updated in ``O(p)`` per step). The new largest eigenvalue is
the root above ``max(theta_1, c_i)`` of the secular equation
``lambda - c_i - sum_j b_ij^2 / (lambda - theta_j) = 0``. Each candidate gets a lower bound
(the 2 x 2 problem on ``(x_1, y_i)``) and an upper bound (the 3 x 3 problem that replaces
``theta_2..theta_t`` by ``theta_2``); the secular equation is solved (safeguarded Newton, all
survivors at once) only where the upper bound reaches the best lower bound -- usually a handful
of candidates. ``'trace'`` simply adds ``c_i``.

Backward. Deleting ``i`` from ``S`` restricts the whitened problem to the hyperplane orthogonal
to ``w_i = X[i, :]`` (a row of the eigenvector matrix, in eigen-coordinates; ``|w_i|^2 =
(B_SS^{-1})_ii``). The new largest eigenvalue is the root in ``[theta_2, theta_1]`` of
``sum_j w_ij^2 / (lambda - theta_j) = 0``; it is bracketed by
``max(theta_2, Rayleigh quotient of the projected x_1) <= lambda <= theta_1 - (theta_1 -
theta_2) w_i1^2 / |w_i|^2`` and again solved only for the survivors of that screening.
``'trace'`` loses ``w_i^T diag(theta) w_i / |w_i|^2``.

Sparse PCA fast path (``B = I``, ``'max-eig'``, forward). The state is only the top eigenpair
and ``theta_2`` of ``A_SS``; the bounds need ``A_{cand,S} x_1`` (``O(p t)``), ``|A_{i,S}|^2``
(``O(p)`` update) and ``A_ii``; the one or two survivors per step get a partial ``eigh`` of their
``(t + 1) x (t + 1)`` matrix (top two pairs, one tridiagonalization), which also gives the next
state. Forward path to ``k``: ``O(p k^2 + s k^4 / 3)`` with ``s`` the mean number of survivors
(1.15 on Extended Yale B, p = 1024); more than 4 survivors fall back to the secular route.

Complexity. Per step: one ``t x t`` generalized ``eigh`` (``O(t^3)``), ``O(p t^2)`` for ``H`` and
``K`` (``O(p t)`` when ``B = I``), ``O(p)`` bounds and ``O(s t)`` per Newton iteration for the
``s`` survivors. A forward path to ``k``: ``O(k^4 + p k^3)`` (``O(k^4 + p k^2)`` for ``B = I``)
against ``O(p k^4)`` for one eigendecomposition per candidate; the whole backward path
``O(p^4)`` against ``O(p^5)``. Memory ``O(p k)`` beyond ``A`` and ``B``; ``A`` may be an operator
(``diag()``, ``column(j)``) that is never formed, which the image-scale path uses for
``A = Xc^T Xc / N``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ._operators import DenseOperator
from ._path import SparsePath

__all__ = ["fullrank_greedy_path"]

_EPS = np.finfo(np.float64).eps


def _secular_border(theta, b, c, lo, hi, max_iter=100):
    """Largest root of ``phi(lam) = lam - c - sum_j b_j^2 / (lam - theta_j)`` in ``[lo, hi]``.

    ``phi`` is increasing and concave right of the largest pole, so Newton's method started
    from a lower bound (``phi(lo) <= 0``) climbs monotonically to the root and converges
    quadratically; every iterate stays a lower bound. All rows at once.
    """
    b2 = b * b
    lam = lo.copy()
    active = hi - lo > 4 * _EPS * np.maximum(np.abs(hi), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(max_iter):
            if not active.any():
                break
            ia = np.flatnonzero(active)
            la = lam[ia]
            diff = la[:, None] - theta[None, :]
            q = b2[ia] / diff
            phi = la - c[ia] - q.sum(axis=1)
            dphi = 1.0 + (q / diff).sum(axis=1)
            step = -phi / dphi
            bad = ~np.isfinite(step)  # at a pole: nudge right
            step[bad] = 1e-8 * (hi[ia][bad] - la[bad])
            new = np.minimum(la + np.maximum(step, 0.0), hi[ia])
            done = (phi >= 0) | (new - la <= 4 * _EPS * np.abs(new))
            lam[ia] = new
            active[ia[done]] = False
    return lam


def _secular_deleted(theta, w2, lo, hi, max_iter=100):
    """Root of ``sum_j w2_j / (lam - theta_j)`` in ``[lo, hi]`` (decreasing there), rows at once."""
    lo = lo.copy()
    hi = hi.copy()
    lam = 0.5 * (lo + hi)
    active = hi - lo > 4 * _EPS * np.maximum(np.abs(hi), 1e-300)
    lam[~active] = hi[~active]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(max_iter):
            if not active.any():
                break
            ia = np.flatnonzero(active)
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


def _eig2_max(a, b, c):
    """Largest eigenvalue of [[a, b], [b, c]] elementwise."""
    return 0.5 * (a + c) + np.sqrt(0.25 * (a - c) ** 2 + b * b)


def _sym_eigh(AS, BS):
    if BS is None:
        return sla.eigh(AS, driver="evd")
    return sla.eigh(AS, BS)


def _forward(Aop, B, criterion, n_steps):
    p = Aop.p
    dA = Aop.diag()
    dB = np.ones(p) if B is None else np.diag(B).copy()
    Acols = np.zeros((p, n_steps))
    rowsq = np.zeros(p)  # |A_{i,S}|^2 (B = I)
    free = np.ones(p, dtype=bool)
    order = np.empty(n_steps, dtype=np.intp)
    objective = np.empty(n_steps)
    S = []
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
            if criterion == "trace":
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
                lower = np.maximum(_eig2_max(th1, b1, cc), th1)
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
                    vals[surv] = _secular_border(theta, bs, cc[surv], lo, upper[surv])
                    n_secular += len(surv)
                score[cand] = vals
        j = int(np.argmax(score))
        order[t] = j
        free[j] = False
        S.append(j)
        col = Aop.column(j)
        Acols[:, t] = col
        rowsq += col * col
        objective[t] = score[j]
    # exact objective of the final supports from the eigendecomposition (not the secular roots)
    return order, objective, {"n_secular": n_secular}


def _arrow3_max(a, b, c, d, e):
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
    two = _eig2_max(np.maximum(a, b), np.sqrt(p1), c) + 1e-12 * scale
    return np.minimum(lam, two)


def _top2(M):
    """Two largest eigenpairs of a small symmetric matrix (one tridiagonalization, no full basis)."""
    t = M.shape[0]
    w, V = sla.eigh(M, subset_by_index=[max(0, t - 2), t - 1], driver="evr")
    th2 = w[0] if t > 1 else w[-1]
    return w[-1], th2, V[:, -1]


def _forward_identity(Aop, n_steps, max_partial=4):
    """``B = I``, ``'max-eig'``: screening, then the survivors' top eigenvalue by a partial ``eigh``.

    The state is only the top eigenpair ``(theta_1, x_1)`` and ``theta_2`` of ``A_SS`` (from the
    winner's own partial eigendecomposition); the bounds need ``A_{cand,S} x_1`` (``O(p t)``),
    ``|A_{i,S}|^2`` (updated in ``O(p)``) and ``A_ii``. When more than ``max_partial`` candidates
    survive the screening, they are evaluated together by the secular equation on a full
    eigendecomposition of ``A_SS`` instead.
    """
    p = Aop.p
    dA = Aop.diag()
    Acols = np.zeros((p, n_steps))
    rowsq = np.zeros(p)
    free = np.ones(p, dtype=bool)
    order = np.empty(n_steps, dtype=np.intp)
    objective = np.empty(n_steps)
    S = []
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
            lower = np.maximum(_eig2_max(th1, b1, c), th1)
            beta = np.sqrt(np.maximum(bnorm2 - b1 * b1, 0.0))
            upper = _arrow3_max(th1, th2, c, b1, beta)
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
                    st = _top2(M)
                    vals.append(st[0])
                    states.append(st)
                n_exact += len(surv)
                w = int(np.argmax(vals))  # surv is sorted: ties -> lowest index
                j, best, state = int(cand[surv[w]]), vals[w], states[w]
            else:
                theta, X = sla.eigh(ASS, driver="evd")
                bs = AS[cand[surv]] @ X
                lo = np.minimum(np.maximum(lower[surv], np.maximum(th1, c[surv])), upper[surv])
                vals = _secular_border(theta, bs, c[surv], lo, upper[surv])
                n_secular += len(surv)
                w = int(np.argmax(vals))
                j, best, state = int(cand[surv[w]]), vals[w], None
        order[t] = j
        free[j] = False
        S.append(j)
        col = Aop.column(j)
        Acols[:, t] = col
        rowsq += col * col
        objective[t] = best
        if state is None:
            state = _top2(Acols[:, : t + 1][S])
        th1, th2, x1 = state
    return order, objective, {"n_secular": n_secular, "n_partial_eigh": n_exact}


def _backward(A, B, criterion):
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
        objective[size - 1] = theta.sum() if criterion == "trace" else theta[-1]
        if size == 1:
            order[step] = S[0]
            break
        w2 = X * X
        nrm = w2.sum(axis=1)
        wh = w2 / nrm[:, None]
        s = wh @ theta
        th1, th2 = theta[-1], theta[-2]
        if criterion == "trace":
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
            vals[surv] = _secular_deleted(theta, wh[surv], lower[surv], upper[surv])
            n_secular += len(surv)
        jpos = int(np.argmax(vals))
        order[step] = S[jpos]
        alive.pop(jpos)
    return order, objective, {"n_secular": n_secular}


def fullrank_greedy_path(A, B=None, *, direction="forward", criterion="max-eig", max_k=None, method="auto"):
    """Exact greedy path of ``lambda_max(A_S, B_S)`` (or ``tr``) for a full symmetric ``A``.

    Parameters
    ----------
    A : ndarray of shape (n_features, n_features) or operator
        Symmetric matrix (a covariance for sparse PCA). The forward pass also accepts an
        operator with ``p``, ``diag()`` and ``column(j)``.
    B : ndarray of shape (n_features, n_features) or None
        Symmetric positive definite; ``None`` is the identity (sparse PCA).
    direction : {'forward', 'backward'}
    criterion : {'max-eig', 'trace'}
    max_k : int or None
        Forward only: stop after ``max_k`` steps.
    method : {'auto', 'secular'}
        Forward with ``B = I`` and ``'max-eig'``: ``'auto'`` evaluates the (few) survivors of the
        screening by a partial ``eigh`` of their ``(t + 1) x (t + 1)`` matrix (top two eigenpairs,
        ``O(t^3)`` with a small constant, no full basis kept); ``'secular'`` always uses the
        secular equation on the full eigendecomposition of ``A_SS``.

    Returns
    -------
    SparsePath
        ``info['n_secular']`` counts the candidates whose secular equation was solved (the
        others were discarded by the bound screening).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 3.5]])
    >>> path = fullrank_greedy_path(A)
    >>> path.order.tolist(), path.objective.round(4).tolist()
    ([0, 1, 2], [4.0, 4.618, 4.618])
    """
    if criterion not in ("max-eig", "trace"):
        raise ValueError(f"The 'criterion' parameter must be one of {{'max-eig', 'trace'}}. Got {criterion!r} instead.")
    Bd = None if B is None else np.asarray(B, dtype=np.float64)
    if direction == "forward":
        Aop = A if hasattr(A, "column") else DenseOperator(A)
        n_steps = Aop.p if max_k is None else int(max_k)
        if Bd is None and criterion == "max-eig" and method != "secular":
            order, objective, info = _forward_identity(Aop, n_steps)
        else:
            order, objective, info = _forward(Aop, Bd, criterion, n_steps)
        Astore = Aop.matrix if isinstance(Aop, DenseOperator) else None
    elif direction == "backward":
        Astore = np.asarray(A, dtype=np.float64)
        order, objective, info = _backward(Astore, Bd, criterion)
    else:
        raise ValueError(f"The 'direction' parameter must be one of {{'forward', 'backward'}}. Got {direction!r} instead.")
    info = dict(info, criterion=criterion, form="full")
    return SparsePath(order=order, objective=objective, direction=direction, A=Astore, B=Bd, info=info)
