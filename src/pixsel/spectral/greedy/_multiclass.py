"""Greedy paths for a low-rank pair ``(A = M M^T, B)``: multiclass sparse LDA.

With ``M`` of shape ``(p, r)`` (``r = C - 1`` for ``C`` classes) and a support ``S``, the nonzero
generalized eigenvalues of ``(A_SS, B_SS)`` are the eigenvalues of the small ``r x r`` matrix

    G_S = M_S^T B_SS^{-1} M_S.

Two criteria (Moghaddam, Weiss and Avidan, 2006, Eq. (3) and section 4):

* ``'max-eig'``: ``lambda_max(G_S)``, the generalized Rayleigh quotient maximised on ``S``;
* ``'trace'``: ``tr G_S``, the sum of the generalized eigenvalues.

Forward (left-looking pivoted Cholesky of ``B``). Write ``R = B - L L^T`` (the Schur complement
of ``B_SS``; ``L`` of shape ``(p, |S|)`` holds one scaled column of ``R`` per step) and
``U = M - B_{:,S} B_SS^{-1} M_S`` (the residual of ``M`` given ``S``). The block-inverse formula
gives, for every candidate ``i`` at once,

    G_{S+i} = G_S + u_i u_i^T / R_ii,      u_i = U[i],

so ``'trace'`` gains ``|u_i|^2 / R_ii`` and ``'max-eig'`` needs the largest eigenvalue of one
``r x r`` matrix per candidate. With ``G_S = V diag(theta) V^T`` and ``z = V^T u_i / sqrt(R_ii)``
it is the root ``lambda >= theta_1`` of the secular equation ``sum_j z_j^2 / (lambda - theta_j) =
1``; two-pole bounds (the top two poles kept, below; the lower poles moved up to ``theta_2``,
above) rule out almost every candidate, and the few that can win are solved by Newton's method,
``O(r)`` per iteration, in a compiled loop (:mod:`pixsel.spectral.greedy._multiclass_jit`; the batched
``eigvalsh`` of every candidate, ``O(r^3)`` each, is kept as ``method='eigh'``). Adding ``j``
needs one column of ``B`` (``O(p |S|)`` to form the Schur column) and rank-one updates of
``diag R`` and ``U`` (``O(p r)``). Cost of a path to ``k``: ``O(p k^2 + p k r^3)`` time,
``O(p k + p r)`` memory beyond ``B`` -- and ``B`` may be an operator that is never formed
(see :mod:`pixsel.spectral.implicit._implicit`).

Backward (partitioned inverse). With ``P = B_SS^{-1}`` and ``W = P M_S``,

    G_{S-i} = G_S - w_i w_i^T / P_ii,      w_i = W[i],

and deleting ``j`` updates ``P -= P[:, j] P[j, :] / P_jj``, ``W -= P[:, j] W[j] / P_jj``.
``lambda_max(G_S - w w^T)`` is the root in ``[theta_2, theta_1]`` of ``1 + sum_j z_j^2 / (lambda -
theta_j) = 0``, screened by two-pole bounds and solved for the few that can win. The whole loop
is compiled and keeps the live features in a shrinking leading block: ``~p^3 / 3`` for the
inverse updates plus ``O(p^2 r^2)`` for the eigen-coordinates (``O(p^3 + p^2 r^3)`` with
``method='eigh'``).

Ties are broken by the lowest index. With ``r = 1`` both criteria reduce to the binary kernel.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..._routes import compiled_enabled, note_compiled
from .._criteria import as_criterion
from .._operators import DenseOperator, IdentityOperator
from .._path import SparsePath
from ._steps import left_looking_forward

__all__ = ["multiclass_greedy_path"]


def _forward(M, op, criterion, n_steps, method="auto", progress=None):
    """Left-looking forward greedy on ``G_S``; returns ``order``, ``objective`` (length n_steps)
    and the count of candidates solved."""
    count = {"n": 0}

    def score(Uc, dc, G, f):
        vals, n_solved = criterion.gains(Uc, dc, G, f, method=method)
        count["n"] += n_solved
        return vals, None

    order, objective = left_looking_forward(
        M, op, criterion, n_steps, score, lambda j, ranking: op.column(j), callback=progress
    )
    info = {"n_secular": count["n"]} if method == "auto" else {"n_batched_eig": count["n"]}
    return order, objective, info


#: The trace's backward pass runs the NumPy loop up to this many features (a few milliseconds:
#: less than loading Numba, and no compilation on a first call with an empty cache); the
#: compiled loop above (ten times faster at 256 features).
_NUMPY_TRACE_BACKWARD_MAX = 128


def _backward(M, B, criterion, method="auto", progress=None):
    p, r = M.shape
    try:
        P = sla.cho_solve(sla.cho_factor(B), np.eye(p))
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            "The backward pass needs a positive definite B; regularize it first "
            "(pixsel.stats.regularize(B, 'auto'))."
        ) from exc
    P = (P + P.T) / 2
    W = P @ M
    G = M.T @ W
    G = (G + G.T) / 2
    compiled = criterion.additive or criterion.largest_eigenvalue  # the two updates the loop holds
    compiled = compiled and compiled_enabled()  # and the route did not choose NumPy (a small problem)
    if method == "auto" and r > 1 and compiled and not (criterion.additive and p <= _NUMPY_TRACE_BACKWARD_MAX):
        note_compiled()
        from ._multiclass_jit import backward_path  # Numba: imported on first use

        P, W, G = np.ascontiguousarray(P), np.ascontiguousarray(W), np.ascontiguousarray(G)
        idx = np.arange(p, dtype=np.int64)
        order = np.empty(p, dtype=np.int64)
        objective = np.empty(p)
        m, step, n_solved = p, 0, 0
        chunk = p if progress is None else max(1, min(p, (1 << 24) // max(p * p, 1) + 1))
        while m > 0:
            m, n = backward_path(P, W, G, criterion.additive, idx, m, order, objective, step, chunk)
            n_solved += int(n)
            step = p - m
            if progress is not None:
                progress(step, p)
        return order.astype(np.intp), objective, {"n_secular": n_solved}
    alive = np.ones(p, dtype=bool)
    order = np.empty(p, dtype=np.intp)
    objective = np.empty(p)
    for step in range(p):
        size = p - step
        objective[size - 1] = criterion.of_matrix(G)
        if progress is not None and step:
            progress(step, p)
        if size == 1:
            order[step] = int(np.flatnonzero(alive)[0])
            break
        idx = np.flatnonzero(alive)
        Pd = np.diag(P)[idx]
        Wa = W[idx]
        score = np.full(p, -np.inf)
        score[idx] = criterion.losses(Wa, Pd, G)
        j = int(np.argmax(score))
        order[step] = j
        u = P[:, j].copy()
        wj = W[j].copy()
        G -= np.outer(wj, wj) / u[j]
        G = (G + G.T) / 2
        P -= np.outer(u, u) / u[j]
        W -= np.outer(u, wj / u[j])
        alive[j] = False
        P[j, :] = 0.0
        P[:, j] = 0.0
        W[j] = 0.0
    if progress is not None:  # the last feature's step, as the compiled loop reports it
        progress(p, p)
    return order, objective, {}


def multiclass_greedy_path(
    M, B=None, *, direction="forward", criterion="max-eig", max_k=None, method="auto", callback=None
):
    """Greedy path for the low-rank pair ``(M M^T, B)``; see the module docstring for the method.

    Parameters
    ----------
    M : ndarray of shape (n_features, r)
        Factor of ``A = M M^T`` (for LDA, ``ClassStatistics.between_factor``).
    B : ndarray of shape (n_features, n_features), operator or None
        Symmetric positive (semi)definite matrix; ``None`` means the identity. The forward pass
        also accepts an operator with ``diag()`` and ``column(j)`` (never formed).
    direction : {'forward', 'backward'}
    criterion : {'max-eig', 'trace'}
    max_k : int or None
        Forward only: stop after ``max_k`` steps (``order`` and ``objective`` then have length
        ``max_k``).
    method : {'auto', 'eigh'}
        ``'max-eig'`` with ``r > 1``: ``'auto'`` screens the candidates by two-pole bounds and
        solves the secular equation of the rank-one change for the few that can win, in compiled
        loops (:mod:`pixsel.spectral.greedy._multiclass_jit`; the backward elimination is one
        compiled loop for both criteria, except the trace's on at most 128 features, which runs
        the NumPy loop: faster than loading the compiled one); ``'eigh'`` is the reference: one
        batched ``eigvalsh`` of every surviving candidate's ``r x r`` matrix per step, the
        backward loop in NumPy. Same path.
    callback : callable or None
        Called as ``callback(steps_done, n_steps)`` as the path goes (after every forward step;
        backward, after every ``1 + 2^24 // p^2`` steps, a few milliseconds of work): the hook of a
        progress bar (:func:`pixsel._progress.step_progress`). Never called when None.

    Returns
    -------
    SparsePath
        ``info['n_secular']`` counts the candidates whose secular equation was solved
        (``'auto'``), ``info['n_batched_eig']`` the eigensolves (``'eigh'``, forward).

    Examples
    --------
    >>> import numpy as np
    >>> M = np.array([[3.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> path = multiclass_greedy_path(M, np.eye(3), criterion="trace")
    >>> path.order.tolist(), path.objective.round(6).tolist()
    ([0, 1, 2], [9.0, 13.0, 15.0])
    """
    M = np.asarray(M, dtype=np.float64)
    if M.ndim == 1:
        M = M[:, None]
    p = M.shape[0]
    if method not in ("auto", "eigh"):
        raise ValueError(f"The 'method' parameter must be one of {{'auto', 'eigh'}}. Got {method!r} instead.")
    criterion = as_criterion(criterion)
    if direction == "forward":
        if B is None:
            op = IdentityOperator(p)
        elif hasattr(B, "column"):
            op = B
        else:
            op = DenseOperator(B)
        n_steps = p if max_k is None else int(max_k)
        order, objective, info = _forward(M, op, criterion, n_steps, method=method, progress=callback)
    elif direction == "backward":
        Bd = np.eye(p) if B is None else np.asarray(B, dtype=np.float64)
        order, objective, info = _backward(M, Bd, criterion, method=method, progress=callback)
    else:
        raise ValueError(f"The 'direction' parameter must be one of {{'forward', 'backward'}}. Got {direction!r} instead.")
    info = dict(info, criterion=criterion.name, form="factor")
    Bstore = None if (B is None or hasattr(B, "column")) else np.asarray(B, dtype=np.float64)
    return SparsePath(order=order, objective=objective, direction=direction, A=M, B=Bstore, info=info)
