"""Group cardinality: greedy paths and an exact search that choose k *groups* of features.

A group (the three channels of a colour pixel, the pixels of a patch, the coordinates of a mesh
vertex in "Fast Pixel/Part Selection with Sparse Eigenvectors", Moghaddam, Weiss and Avidan,
ICCV 2007) enters or leaves a support as a block, and the objective is that of the union of the
chosen groups: ``lambda_max(A_TT, B_TT)`` (or the trace criterion) on ``T = G_1 u ... u G_k``.

Block updates (the partitioned inverse of the single-feature paths, one rank-``g`` step per
group instead of ``g`` rank-one steps):

* **Forward, a vector or a factor** ``A = M M^T`` (``M`` of shape ``(p, r)``; binary LDA is
  ``r = 1``). With the Schur complement ``R = B - B_{:,S} B_SS^{-1} B_{S,:}``, the residual
  ``Q = M - B_{:,S} B_SS^{-1} M_S`` and ``K_S = M_S^T B_SS^{-1} M_S`` (``r x r``; its largest
  eigenvalue is ``lambda_max(A_SS, B_SS)``), the block-inverse formula gives
  ``K_{S+G} = K_S + Q_G^T R_GG^{-1} Q_G``. Adding ``G`` updates
  ``R -= R_{:,G} R_GG^{-1} R_{G,:}`` and ``Q -= R_{:,G} R_GG^{-1} Q_G``.
* **Backward, a vector or a factor.** With ``P = B_SS^{-1}`` and ``W = P M_S``, deleting ``G``
  gives ``K_{S-G} = K_S - W_G^T P_GG^{-1} W_G``, ``P -= P_{:,G} P_GG^{-1} P_{G,:}`` and
  ``W -= P_{:,G} P_GG^{-1} W_G``.
* **A full matrix** ``A`` (sparse PCA, ``B = I``): every candidate union is scored by the
  eigenvalues of its own pair, batched over the candidates.

Candidates are scored all at once: the groups are padded to the largest size with *phantom*
features (``A = 0``, ``B = I``, independent of everything), which add nothing to any objective,
so one stacked ``g x g`` eigendecomposition per step scores every group. A block pivot whose
eigenvalue is below ``p * eps * max(B_ii)`` over the group adds nothing (a feature already
dependent on the support), as in the single-feature kernels. Gains within ``_TIE_RTOL`` of the
best are ties, resolved to the lowest group. With groups of size one these are the
single-feature paths of :func:`pixsel.spectral.greedy_path` (same orders, same objectives).

On problems large enough for the compiled kernels (:func:`pixsel._routes.compiled_pays`), the
steps of a vector ``A`` (both directions) and of sparse PCA forward (``B = I``, largest
eigenvalue) run in Numba (:mod:`pixsel.spectral._groups_jit`): the vector's panel of block
eliminations in one call, and sparse PCA's candidates by the block secular equation on one
eigendecomposition of the support, screened by bounds. The NumPy loops here are their oracle
(same orders, objectives to rounding). :func:`group_swap_refine` exchanges one group in for one
out while the objective rises; :func:`group_beam_search` grows the best few unions side by side.
Where the objective adds up, both value their candidates by the forward block gains from one
Cholesky factor per union (:class:`_UnionGains`), and the stacked eigenproblems of every candidate
union, which they use otherwise, are the tests' oracle.

The exact search (:func:`exact_group_support`) branches over groups (include the next group or
exclude it) with the inclusion-principle bound: every completion of a node is a subset of the
node's chosen groups plus the groups still free, and the objective cannot decrease when features
are added ("Generalized Spectral Bounds for Sparse LDA", Moghaddam, Weiss and Avidan, ICML 2006),
so the objective of that union bounds every completion. It is meant for small numbers of groups
(tens): the number of nodes grows like the binomial coefficient at worst.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla

from .._routes import compiled_enabled, note_compiled, sized_kernels
from .._validation import check_int, check_options
from ._criteria import as_criterion
from ._forms import check_form_pair
from ._path import objective_on_support, weights_on_support

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray

__all__ = ["GroupPath", "GroupExactResult", "GroupSwapResult", "check_groups", "group_greedy_path", "exact_group_support",
           "group_swap_refine", "GroupBeamResult", "group_beam_search"]

#: Gains within this relative distance of the best one are ties, resolved to the lowest group.
_TIE_RTOL = 1e-12
_EPS = np.finfo(np.float64).eps
#: Largest stacked batch of candidate matrices scored at once, in float64 entries (~64 MB).
_BATCH_ENTRIES = 8_000_000


# ------------------------------------------------------------------------------------------ groups
def check_groups(groups: ArrayLike, n_features: int, *, owner: str | None = None):
    """Validate one group id per feature; return ``(codes, labels)``.

    ``codes[i]`` is the position of feature ``i``'s group in ``labels`` (the sorted distinct
    ids), so group ``j`` is ``np.flatnonzero(codes == j)``.

    Examples
    --------
    >>> codes, labels = check_groups(["b", "a", "b"], 3)
    >>> codes.tolist(), labels.tolist()
    ([1, 0, 1], ['a', 'b'])
    >>> check_groups([0, 0], 3)
    Traceback (most recent call last):
    ...
    ValueError: groups must give one group id per feature: X has 3 features but groups has 2 entries. Pass an array of length 3 (for example np.repeat(np.arange(n_pixels), 3) for the channels of colour pixels).
    """
    who = f"{owner}: " if owner else ""
    g = np.asarray(groups)
    if g.ndim != 1:
        raise ValueError(f"{who}groups must be a 1-D array with one group id per feature; got shape {g.shape}.")
    if g.shape[0] != n_features:
        raise ValueError(
            f"{who}groups must give one group id per feature: X has {n_features} features but groups has "
            f"{g.shape[0]} entries. Pass an array of length {n_features} (for example "
            "np.repeat(np.arange(n_pixels), 3) for the channels of colour pixels)."
        )
    if g.dtype.kind == "f" and not np.all(np.isfinite(g)):
        raise ValueError(f"{who}groups holds NaN or infinite ids; give every feature a finite group id.")
    if g.dtype.kind == "O" and any(v is None for v in g):
        raise ValueError(f"{who}groups holds None: every feature needs a group id (use its own id for a feature alone).")
    labels, codes = np.unique(g, return_inverse=True)
    return codes.astype(np.intp).ravel(), labels


def _check_group_problem(A, B, groups, criterion, form, owner, *, none_is_singletons=False):
    """``(criterion, A, B, form, codes, labels)`` checked for a search over the groups of ``(A, B)``.

    With ``none_is_singletons``, ``groups=None`` puts every feature in a group of its own.
    """
    criterion = as_criterion(criterion, owner=owner)
    A, B, form = check_form_pair(A, B, form=form, owner=owner)
    p = A.shape[0]
    if none_is_singletons and groups is None:
        groups = np.arange(p)
    codes, labels = check_groups(groups, p, owner=owner)
    return criterion, A, B, form, codes, labels


def _members(codes, n_groups):
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=n_groups)
    return np.split(order, np.cumsum(sizes)[:-1])


def _padded(members, p):
    """``(n_groups, g_max)`` feature indices, short groups padded with phantoms ``p, p + 1, ...``."""
    gmax = max(len(m) for m in members)
    out = np.empty((len(members), gmax), dtype=np.intp)
    for j, m in enumerate(members):
        out[j, : len(m)] = m
        out[j, len(m):] = p + np.arange(gmax - len(m))
    return out


def _first_within(scores, larger=True):
    """The best score's first position within ``_TIE_RTOL`` (ties to the lowest position)."""
    best = scores.max() if larger else scores.min()
    tol = _TIE_RTOL * abs(best)
    ok = scores >= best - tol if larger else scores <= best + tol
    return int(np.flatnonzero(ok)[0])


def _criterion(K, criterion):
    """``lambda_max`` or trace of stacked symmetric ``r x r`` matrices ``K`` (..., r, r)."""
    if K.shape[-1] == 1:
        return K[..., 0, 0]
    return criterion.of_stack(K)


def _pinv_parts(blocks, tol):
    """Eigenvectors and inverted eigenvalues (0 below ``tol``) of stacked symmetric blocks."""
    w, V = np.linalg.eigh(blocks)
    keep = w > tol[:, None]
    return V, np.where(keep, 1.0 / np.where(keep, w, 1.0), 0.0)


def _block_gains(blocks, rhs, tol):
    """``rhs^T blocks^+ rhs`` for stacked symmetric PSD ``g x g`` blocks (eigen-directions below
    ``tol``, per block, dropped). blocks (n, g, g), rhs (n, g, r) -> (n, r, r).

    Single features: ``q^2 / d`` where ``d > tol`` (the single-feature kernels' rule). Groups: a
    batched Cholesky when every pivot is above ``tol`` (the usual case), else the
    eigendecomposition of the blocks, whose small directions are dropped."""
    if blocks.shape[-1] == 1:
        d = blocks[:, 0, 0]
        ok = d > tol
        q = rhs[:, 0, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(ok[:, None, None], q[:, :, None] * q[:, None, :] / np.where(ok, d, 1.0)[:, None, None], 0.0)
    try:
        L = np.linalg.cholesky(blocks)
        pivots = np.diagonal(L, axis1=-2, axis2=-1) ** 2
        if np.all(pivots > tol[:, None]):
            Y = np.linalg.solve(L, rhs)
            return np.swapaxes(Y, -1, -2) @ Y
    except np.linalg.LinAlgError:
        pass
    V, inv = _pinv_parts(blocks, tol)
    Y = np.swapaxes(V, -1, -2) @ rhs
    return np.swapaxes(Y, -1, -2) @ (inv[..., None] * Y)


def _block_solve(block, rhs, tol):
    """``block^+ rhs`` for one symmetric PSD block (directions below ``tol`` dropped)."""
    V, inv = _pinv_parts(block[None], np.array([tol]))
    return V[0] @ (inv[0][:, None] * (V[0].T @ rhs))


# ------------------------------------------------------------------------------------------ paths
@dataclass
class GroupPath:
    """A greedy path over groups: one support (a union of groups) for every number of groups.

    Attributes
    ----------
    order : ndarray of shape (n_path,)
        Group codes (positions in ``labels``). Forward: in the order they were added. Backward:
        in the order they were removed, the last survivor last.
    objective : ndarray of shape (n_path,)
        ``objective[k - 1]`` is the objective of the union of the path's ``k`` groups.
    direction : str
        ``'forward'`` or ``'backward'``.
    codes : ndarray of shape (n_features,)
        The group code of every feature.
    labels : ndarray of shape (n_groups,)
        The group ids as given, sorted.
    n_features_path : ndarray of shape (n_path,)
        The number of features of the size-``k`` support.
    """

    order: np.ndarray
    objective: np.ndarray
    direction: str
    codes: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    A: np.ndarray = field(repr=False)
    B: np.ndarray | None = field(repr=False, default=None)
    upper_bound: np.ndarray | None = None
    info: dict = field(default_factory=dict, repr=False)

    @property
    def n_groups(self) -> int:
        return len(self.labels)

    @property
    def n_features(self) -> int:
        return len(self.codes)

    def groups_at(self, k: int) -> NDArray:
        """Sorted codes of the size-``k`` path's groups."""
        k = check_int(k, "k", low=1, high=len(self.objective), owner="GroupPath")
        G = self.order[self.n_groups - k:] if self.direction == "backward" else self.order[:k]
        return np.sort(G)

    def support(self, k: int) -> NDArray:
        """Sorted feature indices of the union of the size-``k`` path's groups."""
        return np.flatnonzero(np.isin(self.codes, self.groups_at(k)))

    @property
    def n_features_path(self) -> NDArray:
        sizes = np.bincount(self.codes, minlength=self.n_groups)
        if self.direction == "backward":
            return np.cumsum(sizes[self.order[::-1]])
        return np.cumsum(sizes[self.order])[: len(self.objective)]

    def weights(self, k: int) -> NDArray:
        """Renormalized weights on the size-``k`` support (zero elsewhere), length ``n_features``."""
        return weights_on_support(self.A, self.B, self.support(k))


@sized_kernels(family="groups")  # small NumPy problems run the NumPy loops (pixsel._routes.compiled_pays)
def group_greedy_path(
    A: ArrayLike,
    B: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    *,
    direction: Literal["forward", "backward"] = "forward",
    criterion: Literal["max-eig", "trace"] = "max-eig",
    form: Literal["auto", "vector", "factor", "full"] = "auto",
    max_k: int | None = None,
    callback: Callable[[int, int], None] | None = None,
) -> GroupPath:
    """Greedy forward or backward path over *groups* of ``max x^T A x / x^T B x``.

    Each step adds (forward) or removes (backward) the whole group that gives the best objective
    of the union, by a rank-``g`` block update (see the module notes).

    Parameters
    ----------
    A : ndarray of shape (n_features,), (n_features, r) or (n_features, n_features)
        A vector ``a`` (``A = a a^T``, binary LDA), a factor ``M`` (``A = M M^T``, multiclass
        LDA) or a symmetric matrix (sparse PCA).
    B : ndarray of shape (n_features, n_features) or None
        Symmetric positive definite denominator; None is the identity.
    groups : array-like of shape (n_features,)
        One group id per feature (any sortable ids); None puts every feature in its own group.
    direction : {'forward', 'backward'}
    criterion : {'max-eig', 'trace'}
        For a factor or full ``A``: the largest generalized eigenvalue of the union or their sum.
    form : {'auto', 'vector', 'factor', 'full'}
        How to read ``A`` (see :func:`pixsel.spectral.greedy_path`).
    max_k : int or None
        Forward only: stop after ``max_k`` groups.
    callback : callable or None
        ``callback(steps_done, n_steps)`` after every step.

    Returns
    -------
    GroupPath

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.2, 0.1, 2.0])
    >>> path = group_greedy_path(a, np.eye(4), groups=[0, 0, 1, 1])
    >>> path.order.tolist(), path.support(1).tolist()
    ([1, 0], [2, 3])
    """
    owner = "group_greedy_path"
    check_options(direction, "direction", ("forward", "backward"), owner=owner)
    criterion, A, B, form, codes, labels = _check_group_problem(
        A, B, groups, criterion, form, owner, none_is_singletons=True
    )
    n_groups = len(labels)
    if max_k is not None:
        if direction == "backward":
            raise ValueError("max_k only applies to the forward direction (backward starts from all groups).")
        max_k = check_int(max_k, "max_k", low=1, high=n_groups, owner=owner)
    members = _members(codes, n_groups)
    if form == "full":
        order, objective = _full_path(A, B, members, direction, criterion, max_k, callback)
    else:
        M = A[:, None] if form == "vector" else A
        run = _forward_factor if direction == "forward" else _backward_factor
        order, objective = run(M, B, members, criterion, max_k, callback)
    return GroupPath(order=order, objective=objective, direction=direction, codes=codes, labels=labels, A=A, B=B,
                     info={"criterion": criterion.name, "form": form})


def _extended(B, p, n_phantom):
    """``B`` (None: identity) with ``n_phantom`` independent unit phantom features appended."""
    Bx = np.eye(p + n_phantom)
    if B is not None:
        Bx[:p, :p] = B
    return Bx


def _tolerances(diag_ext, pad, p):
    """Per-group pivot tolerance: ``p * eps * max(B_ii)`` over the group (phantoms count 1)."""
    d = np.abs(diag_ext)[pad]
    return p * _EPS * np.maximum(d.max(axis=1), np.finfo(float).tiny)


def _inverse_factor(block, tol):
    """``F`` with ``F F^T = block^+`` for one symmetric PSD block: ``L^{-T}`` of its Cholesky
    factor when every pivot is above ``tol``, else from its eigendecomposition (directions below
    ``tol`` dropped)."""
    g = block.shape[0]
    if g == 1:
        d = block[0, 0]
        return np.array([[1.0 / math.sqrt(d)]]) if d > tol else np.zeros((1, 1))
    try:
        L = np.linalg.cholesky(block)
        if np.all(np.diag(L) ** 2 > tol):
            return np.linalg.inv(L).T  # tiny: numpy's inverse, without LAPACK's thread start-up
    except np.linalg.LinAlgError:
        pass
    V, inv = _pinv_parts(block[None], np.array([tol]))
    return V[0] * np.sqrt(inv[0])


#: Features eliminated between two updates of the stored working matrix (the panel width).
_PANEL = 96


class _Working:
    """A symmetric working matrix ``R`` and its right-hand side ``Q``, eliminated group by group.

    Eliminating a group ``G`` is ``R -= R_{:,G} R_GG^+ R_{G,:}`` and ``Q -= R_{:,G} R_GG^+ Q_G``.
    As in LAPACK's blocked pivoted Cholesky (``dpstrf``), only what the next choice needs is kept
    current: the ``g x g`` diagonal block of every group, ``Q``, and a panel ``L`` of the factors
    eliminated since the stored ``R`` was last updated (``R_true = R - L L^T``); a group's true
    columns are fetched as ``R_{:,G} - L L_G^T``. When the panel holds ``_PANEL`` columns the
    stored matrix receives them in one product and loses the eliminated rows, so a whole path
    costs about ``p^3 / 3`` flops at matrix-multiply speed, as the single-feature kernels do."""

    def __init__(self, R, Q, pad, tol):
        p = R.shape[0]
        self.R, self.Q = R, Q
        self.pos = np.arange(p)  # working position of each original feature (-1: eliminated)
        self.real = pad < p  # (n_groups, g_max): real members (the rest are phantoms)
        self.pad = np.where(self.real, pad, 0)
        self.tol = tol
        g = pad.shape[1]
        idx = self.pad
        both = self.real[:, :, None] & self.real[:, None, :]
        self.D = np.where(both, R[idx[:, :, None], idx[:, None, :]], 0.0)
        self.D[:, np.arange(g), np.arange(g)] += ~self.real  # phantoms: unit, independent
        self.L = np.empty((p, _PANEL + g))
        self.t = 0
        self.dead = []

    def gains(self, cand):
        """``Q_G^T R_GG^+ Q_G`` for the candidate groups (phantom rows of ``Q`` are zero)."""
        real = self.real[cand]
        QG = self.Q[self.pos[self.pad[cand]]] * real[:, :, None]
        return _block_gains(self.D[cand], QG, self.tol[cand])

    def remove(self, features, tol):
        """Eliminate one group's ``features``."""
        gpos = self.pos[features]
        t = self.t
        cols = self.R[:, gpos] - self.L[:, :t] @ self.L[gpos, :t].T  # the group's true columns
        # R_{:,G} R_GG^+ R_{G,:} = Lnew Lnew^T with Lnew = R_{:,G} F, F F^T = R_GG^+
        F = _inverse_factor(cols[gpos], tol)
        Lnew = cols @ F
        self.Q -= Lnew @ (F.T @ self.Q[gpos])
        Lg = Lnew[self.pos[self.pad]] * self.real[:, :, None]
        self.D -= Lg @ np.swapaxes(Lg, -1, -2)
        g = len(gpos)
        self.L[:, t:t + g] = Lnew
        self.t += g
        self.dead.append(features)
        if self.t >= _PANEL:
            self._flush()

    def _flush(self):
        """The stored matrix receives the panel; the eliminated rows leave it."""
        dead = np.concatenate(self.dead)
        keep = np.ones(self.R.shape[0], dtype=bool)
        keep[self.pos[dead]] = False
        Lk = self.L[keep, : self.t]
        R = self.R[np.ix_(keep, keep)]
        R -= Lk @ Lk.T
        self.R, self.Q = R, self.Q[keep]
        live = np.flatnonzero(self.pos >= 0)
        live = live[keep[self.pos[live]]]
        pos = np.full(len(self.pos), -1, dtype=np.intp)
        order = np.argsort(self.pos[live], kind="stable")
        pos[live[order]] = np.arange(len(live))
        self.pos = pos
        self.L = np.empty((len(live), self.L.shape[1]))
        self.t = 0
        self.dead = []


def _forward_factor(M, B, members, criterion, max_k, callback):
    p, r = M.shape
    G = len(members)
    pad = _padded(members, p)
    R = np.eye(p) if B is None else np.asarray(B, dtype=np.float64)  # read only: flushes copy it
    tol = _tolerances(np.append(np.diag(R), np.ones(pad.shape[1])), pad, p)
    steps = G if max_k is None else max_k
    jit = _compiled("factor_steps") if r == 1 else None
    if jit is not None:
        return _factor_compiled(jit, R, M[:, 0], pad, members, tol, 0.0, steps, True, callback)
    work = _Working(R, np.array(M, dtype=np.float64, copy=True), pad, tol)
    K = np.zeros((r, r))
    order = np.empty(steps, dtype=np.intp)
    objective = np.empty(steps)
    free = np.ones(G, dtype=bool)
    for step in range(steps):
        cand = np.flatnonzero(free)
        gain = work.gains(cand)
        scores = _criterion(K + gain, criterion)
        c = _first_within(scores)
        j = cand[c]
        order[step], objective[step] = j, scores[c]
        free[j] = False
        K = K + gain[c]
        if step + 1 < steps:
            work.remove(members[j], work.tol[j])
        if callback is not None:
            callback(step + 1, steps)
    return order, objective


def _spd_inverse(B):
    """``B^{-1}`` of a symmetric positive definite ``B`` by ``dpotrf`` + ``dpotri`` (a third of the
    flops of solving against the identity), symmetrized from its lower triangle."""
    P = np.array(B, dtype=np.float64, order="F", copy=True)
    P, info = sla.lapack.dpotrf(P, lower=1, clean=1, overwrite_a=1)
    if info != 0:
        raise np.linalg.LinAlgError("B is not positive definite: its Cholesky factorization failed.")
    P, info = sla.lapack.dpotri(P, lower=1, overwrite_c=1)
    if info != 0:
        raise np.linalg.LinAlgError("B is singular: its inverse from the Cholesky factor failed.")
    return np.ascontiguousarray(np.tril(P) + np.tril(P, -1).T)


def _backward_factor(M, B, members, criterion, max_k, callback):
    p, r = M.shape
    G = len(members)
    pad = _padded(members, p)
    P = np.eye(p) if B is None else _spd_inverse(B)
    W = P @ M
    K = M.T @ W
    K = (K + K.T) / 2
    tol = _tolerances(np.append(np.diag(P), np.ones(pad.shape[1])), pad, p)
    jit = _compiled("factor_steps") if r == 1 else None
    if jit is not None:
        return _factor_compiled(jit, P, W[:, 0], pad, members, tol, float(K[0, 0]), G, False, callback)
    work = _Working(P, W, pad, tol)
    order = np.empty(G, dtype=np.intp)
    objective = np.empty(G)
    alive = np.ones(G, dtype=bool)
    for step in range(G):
        size = G - step
        objective[size - 1] = float(_criterion(K[None], criterion)[0])
        cand = np.flatnonzero(alive)
        if size == 1:
            order[step] = cand[0]
            break
        loss = work.gains(cand)
        scores = _criterion(K - loss, criterion)
        c = _first_within(scores)
        j = cand[c]
        order[step] = j
        alive[j] = False
        K = K - loss[c]
        work.remove(members[j], work.tol[j])
        if callback is not None:
            callback(step + 1, G)
    return order, objective


def _compiled(name):
    """A Numba kernel of :mod:`pixsel.spectral._groups_jit`, or None where the route chose NumPy.

    Imported on first use, so that importing pixsel does not pay for Numba."""
    if not compiled_enabled():
        return None
    note_compiled()
    from . import _groups_jit
    return getattr(_groups_jit, name)


def _factor_compiled(jit, R, q, pad, members, tol, K, n_steps, forward, callback):
    """The loops of :func:`_forward_factor` / :func:`_backward_factor` for a vector (``r = 1``):
    panels of compiled group steps, the stored matrix updated by NumPy between two panels (the
    same block elimination as :class:`_Working`; ``R`` is read, never written; the stored
    matrices after it keep their upper triangle current)."""
    p = R.shape[0]
    G, gmax = pad.shape
    real = pad < p
    padr = np.ascontiguousarray(np.where(real, pad, 0))
    sizes = np.array([len(m) for m in members], dtype=np.intp)
    both = real[:, :, None] & real[:, None, :]
    D = np.ascontiguousarray(np.where(both, R[padr[:, :, None], padr[:, None, :]], 0.0))
    R = np.ascontiguousarray(R, dtype=np.float64)
    q = np.array(q, dtype=np.float64)
    pos = np.arange(p)
    LT = np.empty((_PANEL + gmax, p))
    free = np.ones(G, dtype=bool)
    order = np.empty(n_steps, dtype=np.intp)
    objective = np.empty(n_steps)
    tol = np.ascontiguousarray(tol, dtype=np.float64)
    t = step = since = 0
    last_callback = n_steps if forward else G - 1  # the backward loop reports no step for its last group
    while step < n_steps:
        before = step
        t, step, K = jit(R, LT, t, q, pos, padr, sizes, D, tol, free, K, order, objective, step, n_steps, forward,
                         _PANEL, _TIE_RTOL)
        if callback is not None:
            for s in range(before + 1, min(step, last_callback) + 1):
                callback(s, n_steps)
        if t >= _PANEL and step < n_steps:  # the stored matrix receives the panel, the eliminated rows leave
            dead = np.concatenate([members[j] for j in order[since:step]])
            keep = np.ones(R.shape[0], dtype=bool)
            keep[pos[dead]] = False
            idx = np.flatnonzero(keep)
            Lk = LT[:t].take(idx, axis=1)
            R = R.take(idx, axis=0).take(idx, axis=1)
            # R -= Lk^T Lk on the upper triangle (the lower one of the Fortran-ordered transpose)
            R = sla.blas.dsyrk(-1.0, Lk, beta=1.0, c=R.T, trans=1, lower=1, overwrite_c=1).T
            q = q[keep]
            new = np.cumsum(keep) - 1
            pos = np.where(pos >= 0, np.where(keep[np.maximum(pos, 0)], new[np.maximum(pos, 0)], -1), -1)
            LT = np.empty((_PANEL + gmax, R.shape[0]))
            t, since = 0, step
    return order, objective


def _full_forward_compiled(jit, A, members, pad, steps, callback):
    """The forward loop of :func:`_full_path` for ``B = I`` and the largest eigenvalue: one
    eigendecomposition of the support per step, then every group by its bordered secular root."""
    p = A.shape[0]
    G = len(members)
    real = pad < p
    padr = np.ascontiguousarray(np.where(real, pad, 0))
    sizes = np.array([len(m) for m in members], dtype=np.intp)
    A = np.ascontiguousarray(A, dtype=np.float64)
    scores = np.full(G, -np.inf)
    mu = np.empty(G)  # each group's own largest eigenvalue, from the first step

    def scores_of(chosen, free):
        if len(chosen):
            theta, U = np.linalg.eigh(A[np.ix_(chosen, chosen)])
            theta, U = np.ascontiguousarray(theta[::-1]), U[:, ::-1]
            CU = np.ascontiguousarray(U.T @ A[chosen])
        else:
            theta, CU = np.empty(0), np.empty((0, p))
        jit(theta, CU, A, padr, sizes, free, mu, scores, _TIE_RTOL)
        return scores[free]

    return _grow(members, steps, scores_of, callback)


def _grow(members, steps, scores_of, callback):
    """The forward loop over groups of :func:`_full_path`: ``steps`` times, the objectives of the
    free groups added to the chosen ones (``scores_of(chosen, free)``: ``chosen`` the features
    taken so far, ``free`` the mask of the groups left, in their order), and the first group
    within the tie tolerance of the best joins."""
    order = np.empty(steps, dtype=np.intp)
    objective = np.empty(steps)
    free = np.ones(len(members), dtype=bool)
    chosen = np.empty(0, dtype=np.intp)
    for step in range(steps):
        cand = np.flatnonzero(free)
        scores = scores_of(chosen, free)
        c = _first_within(scores)
        j = cand[c]
        order[step], objective[step] = j, scores[c]
        free[j] = False
        chosen = np.concatenate([chosen, members[j]])
        if callback is not None:
            callback(step + 1, steps)
    return order, objective


def _stacked_objectives(A, B, index, criterion):
    """The objective of every row of ``index`` (supports padded with phantoms), batched.

    ``A`` and ``B`` carry the phantom rows (``A = 0``, ``B = I`` there)."""
    n, t = index.shape
    out = np.empty(n)
    chunk = max(1, _BATCH_ENTRIES // max(1, t * t))
    for s in range(0, n, chunk):
        ix = index[s:s + chunk]
        Ab = A[ix[:, :, None], ix[:, None, :]]
        if B is not None:
            L = np.linalg.cholesky(B[ix[:, :, None], ix[:, None, :]])
            Y = np.linalg.solve(L, Ab)
            Ab = np.linalg.solve(L, np.swapaxes(Y, -1, -2))
            Ab = (Ab + np.swapaxes(Ab, -1, -2)) / 2
        out[s:s + chunk] = criterion.of_stack(Ab)
    return out


def _full_path(A, B, members, direction, criterion, max_k, callback):
    """Every candidate union scored by its own (stacked) eigenproblem; A is a full matrix."""
    p = A.shape[0]
    G = len(members)
    pad = _padded(members, p)
    gmax = pad.shape[1]
    Ax = np.zeros((p + gmax, p + gmax))
    Ax[:p, :p] = A
    Bx = None if B is None else _extended(B, p, gmax)
    if direction == "forward":
        steps = G if max_k is None else max_k
        jit = _compiled("border_scores") if B is None and criterion.largest_eigenvalue else None
        if jit is not None:
            return _full_forward_compiled(jit, A, members, pad, steps, callback)

        def scores_of(chosen, free):
            cand = np.flatnonzero(free)
            index = np.hstack([np.broadcast_to(chosen, (len(cand), len(chosen))), pad[cand]])
            return _stacked_objectives(Ax, Bx, index, criterion)

        return _grow(members, steps, scores_of, callback)
    order = np.empty(G, dtype=np.intp)
    objective = np.empty(G)
    alive = np.ones(G, dtype=bool)
    sizes = np.array([len(m) for m in members])
    best = 0.0  # the objective of the union left by the last removal
    for step in range(G):
        size = G - step
        cand = np.flatnonzero(alive)
        feats = np.concatenate([members[j] for j in cand])
        objective[size - 1] = objective_on_support(A, B, feats, criterion=criterion) if step == 0 else best
        if size == 1:
            order[step] = cand[0]
            break
        # the union without each candidate, padded to one length with phantoms
        t = len(feats) - sizes[cand].min()
        index = np.empty((len(cand), t), dtype=np.intp)
        for row, j in enumerate(cand):
            rest = feats[~np.isin(feats, members[j])]
            index[row, : len(rest)] = rest
            index[row, len(rest):] = p + np.arange(t - len(rest))
        scores = _stacked_objectives(Ax, Bx, index, criterion)
        c = _first_within(scores)
        order[step] = cand[c]
        best = scores[c]
        alive[cand[c]] = False
        if callback is not None:
            callback(step + 1, G)
    return order, objective


# ------------------------------------------------------------------------------------------ exact
@dataclass
class GroupExactResult:
    """The outcome of :func:`exact_group_support`.

    Attributes
    ----------
    groups : ndarray of shape (k,)
        Sorted codes of the best groups found.
    support : ndarray
        Sorted feature indices of their union.
    objective : float
        The objective of the union (from scratch, :func:`objective_on_support`).
    upper_bound : float
        Certified: no union of ``k`` groups has a larger objective.
    gap : float
        ``upper_bound - objective``.
    n_nodes : int
    time : float
    status : str
        ``'optimal'``, ``'gap_reached'``, ``'time_limit'`` or ``'node_limit'``.
    """

    groups: np.ndarray
    support: np.ndarray
    objective: float
    upper_bound: float
    gap: float
    n_nodes: int
    time: float
    status: str

    @property
    def relative_gap(self) -> float:
        if not self.gap > 0:
            return 0.0
        return self.gap / abs(self.objective) if self.objective != 0 else float("inf")

    @property
    def certified(self) -> bool:
        return self.status in ("optimal", "gap_reached")


def exact_group_support(
    A: ArrayLike,
    B: ArrayLike | None,
    groups: ArrayLike,
    k: int,
    *,
    criterion: Literal["max-eig", "trace"] = "max-eig",
    initial: ArrayLike | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    gap_tol: float = 0.0,
) -> GroupExactResult:
    """The best union of exactly ``k`` groups, certified by branch and bound over groups.

    Depth-first: a node has chosen groups ``C`` and decides on the next free group (include it
    first, then exclude it); its bound is the objective of ``C`` plus every group not yet
    excluded (the inclusion principle: no completion can exceed it). Groups are visited in the
    order of a forward greedy path, whose support at ``k`` (or ``initial``) is the first
    incumbent. The number of nodes is at most about ``2 * binom(n_groups, k)``: meant for tens
    of groups.

    Parameters
    ----------
    A, B, criterion
        As in :func:`group_greedy_path`.
    groups : array-like of shape (n_features,)
    k : int
        Number of groups, in ``[1, n_groups]``.
    initial : array-like of int or None
        Group codes of a starting incumbent (``k`` of them).
    time_limit, node_limit : float, int or None
        Stop early with the best union found and a certified bound (status says which limit).
    gap_tol : float
        Prune nodes whose bound is within ``gap_tol`` (relative) of the incumbent.

    Returns
    -------
    GroupExactResult

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.2, 0.1, 2.0, 0.5, 0.5])
    >>> res = exact_group_support(a, np.eye(6), [0, 0, 1, 1, 2, 2], 2)
    >>> res.groups.tolist(), res.status
    ([0, 1], 'optimal')
    """
    owner = "exact_group_support"
    criterion, A, B, form, codes, labels = _check_group_problem(A, B, groups, criterion, "auto", owner)
    G = len(labels)
    k = check_int(k, "k", low=1, high=G, owner=owner)
    members = _members(codes, G)
    start = time.perf_counter()

    def f(group_codes):
        if len(group_codes) == 0:
            return 0.0
        feats = np.sort(np.concatenate([members[j] for j in group_codes]))
        return objective_on_support(A, B, feats, criterion=criterion)

    greedy = group_greedy_path(A, B, groups=codes, criterion=criterion, form=form)
    visit = greedy.order  # promising groups first: tight bounds early
    if initial is None:
        best_set = np.sort(greedy.order[:k])
    else:
        best_set = np.sort(np.asarray(initial, dtype=np.intp))
        if len(best_set) != k:
            raise ValueError(f"{owner}: initial must hold {k} group codes; got {len(best_set)}.")
    best = f(best_set)
    n_nodes = 0
    status = "optimal"
    pruned = -math.inf  # the largest bound pruned within gap_tol (still an upper bound)
    # a node: (bound, depth into visit, chosen groups as a tuple)
    stack = [(f(visit), 0, ())]
    while stack:
        if time_limit is not None and time.perf_counter() - start > time_limit:
            status = "time_limit"
            break
        if node_limit is not None and n_nodes >= node_limit:
            status = "node_limit"
            break
        bound, depth, chosen = stack.pop()
        n_nodes += 1
        if bound <= best * (1.0 + gap_tol) + 1e-12 * abs(best):
            if bound > best:
                pruned = max(pruned, bound)
            continue
        if len(chosen) == k:
            value = bound  # a complete node's bound is its own objective
            if value > best:
                best, best_set = value, np.sort(np.array(chosen, dtype=np.intp))
            continue
        rest = G - depth
        if len(chosen) + rest < k:
            continue
        j = visit[depth]
        exclude = chosen + tuple(visit[depth + 1:]) if len(chosen) + rest - 1 >= k else None
        if exclude is not None:
            # with exactly k groups left to take, the node is its union
            stack.append((f(exclude), depth + 1, chosen) if len(chosen) + rest - 1 > k
                         else (f(exclude), G, exclude))
        inc = chosen + (j,)
        if len(inc) == k:
            stack.append((f(inc), G, inc))
        else:
            stack.append((bound, depth + 1, inc))  # the same union: the same bound
    upper = max(best, pruned, max((b for b, _, _ in stack), default=best))
    if status == "optimal" and upper > best * (1.0 + 1e-12) + 1e-300:
        status = "gap_reached"
    support = np.sort(np.concatenate([members[j] for j in best_set]))
    return GroupExactResult(groups=best_set, support=support, objective=float(best), upper_bound=float(upper),
                            gap=float(max(upper - best, 0.0)), n_nodes=n_nodes,
                            time=time.perf_counter() - start, status=status)


def brute_force_groups(A, B, groups, k, *, criterion="max-eig"):
    """The best union of ``k`` groups by enumeration (a test oracle): ``(codes, objective)``."""
    from itertools import combinations

    A, B, _ = check_form_pair(A, B)
    codes, labels = check_groups(groups, A.shape[0])
    members = _members(codes, len(labels))
    best, arg = -math.inf, None
    for comb in combinations(range(len(labels)), k):
        feats = np.sort(np.concatenate([members[j] for j in comb]))
        v = objective_on_support(A, B, feats, criterion=criterion)
        if v > best:
            best, arg = v, np.array(comb)
    return arg, best


# ------------------------------------------------------------------------------------------ block gains
class _UnionGains:
    """Exact gains of adding whole groups to a union, for an additive objective of a vector or a
    factor ``M`` (``f(T) = tr(M_T^T B_TT^{-1} M_T)``; the trace criterion, or ``r = 1``).

    For a union ``T`` (one Cholesky factor ``L`` of ``B_TT``, ``Y = L^{-1} B_{T,:}``,
    ``Z = L^{-1} M_T``): ``f(T) = ||Z||^2``, and adding a group ``J`` outside ``T`` gains
    ``tr(Q_J^T R_JJ^{-1} Q_J)`` with the Schur complement ``R_JJ = B_JJ - Y_J^T Y_J`` and the
    residual ``Q = M - Y^T Z`` (the block-inverse formula of the forward path). Every group's
    gain comes from one batched ``g x g`` Cholesky over the padded groups, no refit per
    candidate: ``O(t^2 p + t p g)`` for a union of ``t`` features. :meth:`gains` returns None
    where a factorization fails (a union or a group dependent on the others), and the callers
    then value their candidates one by one (:func:`_stacked_objectives`).
    """

    def __init__(self, M, B, members):
        self.M = M[:, None] if M.ndim == 1 else M
        p = self.M.shape[0]
        self.B = np.eye(p) if B is None else B
        self.pad = _padded(members, p)
        gmax = self.pad.shape[1]
        Bx = _extended(B, p, gmax)
        self.Bblk = Bx[self.pad[:, :, None], self.pad[:, None, :]]
        self.gmax = gmax

    def gains(self, T, outside):
        """``(f(T), gains of the groups `outside`)`` or None when a factorization fails."""
        M, B, p = self.M, self.B, self.M.shape[0]
        t = len(T)
        Y = np.zeros((t, p + self.gmax))
        try:
            if t:
                L = np.linalg.cholesky(B[np.ix_(T, T)])
                Y[:, :p] = sla.solve_triangular(L, B[T], lower=True, check_finite=False)
                Z = sla.solve_triangular(L, M[T], lower=True, check_finite=False)
                fT = float(np.sum(Z * Z))
                Q = M - Y[:, :p].T @ Z
            else:
                fT, Q = 0.0, M
            Qx = np.vstack([Q, np.zeros((self.gmax, M.shape[1]))])
            pad = self.pad[outside]
            Yo = Y[:, pad]  # (t, n, g)
            R = self.Bblk[outside] - np.einsum("tja,tjb->jab", Yo, Yo)
            C = np.linalg.cholesky(R)
        except np.linalg.LinAlgError:
            return None
        W = np.linalg.solve(C, Qx[pad])
        return fT, np.einsum("jab,jab->j", W, W)


def _union_gains(A, B, form, criterion, members, fast=True):
    """A :class:`_UnionGains` where the objective adds up (a vector, or a factor with the trace
    criterion), else None (every candidate is valued by its own eigenproblem)."""
    if not fast or form == "full" or not (form == "vector" or criterion.additive or A.shape[1] == 1):
        return None
    return _UnionGains(A, B, members)


def _beam_scores(blocks, beam, ext, n_groups, members):
    """The objective of every extension in ``ext`` (sorted tuples of group codes) from the gains of
    each union of ``beam``; an extension reached from two unions takes the first one's value.
    None where a factorization fails."""
    value = {}
    for m in beam:
        outside = np.setdiff1d(np.arange(n_groups), np.asarray(m, dtype=np.intp))
        T = np.sort(np.concatenate([members[j] for j in m])) if m else np.zeros(0, dtype=np.intp)
        got = blocks.gains(T, outside)
        if got is None:
            return None
        for j, g in zip(outside.tolist(), (got[0] + got[1]).tolist()):
            value.setdefault(tuple(sorted(m + (j,))), g)
    return np.array([value[e] for e in ext])


def _swap_scores(blocks, chosen, outside, union):
    """The objective of every exchange ``chosen - i + j`` (rows ``i`` in ``chosen``'s order,
    ``j`` in ``outside``'s, flattened as the pairs are listed), or None where a factorization fails."""
    scores = np.empty((len(chosen), len(outside)))
    for row, i in enumerate(chosen):
        got = blocks.gains(union([c for c in chosen if c != i]), outside)
        if got is None:
            return None
        scores[row] = got[0] + got[1]
    return scores.ravel()


# ------------------------------------------------------------------------------------------ swap
@dataclass
class GroupSwapResult:
    """The outcome of :func:`group_swap_refine`.

    Attributes
    ----------
    groups : ndarray of shape (k,)
        Sorted codes of the refined groups.
    support : ndarray
        Sorted feature indices of their union.
    objective : float
        Its objective (recomputed from scratch), never below ``start_objective``.
    start_objective : float
    n_swaps : int
        Moves taken.
    converged : bool
        True when the last sweep found no improving swap: no exchange of one group for another
        raises the objective (a 1-swap local optimum over groups).
    """

    groups: np.ndarray
    support: np.ndarray
    objective: float
    start_objective: float
    n_swaps: int
    converged: bool


def group_swap_refine(
    A: ArrayLike,
    B: ArrayLike | None,
    groups: ArrayLike,
    start: ArrayLike,
    *,
    criterion: Literal["max-eig", "trace"] = "max-eig",
    form: Literal["auto", "vector", "factor", "full"] = "auto",
    max_sweeps: int = 100,
    time_limit: float | None = None,
    _fast: bool = True,
) -> GroupSwapResult:
    """Raise the objective of a union of ``k`` groups by exchanging one group in for one out.

    Every sweep values all ``k (n_groups - k)`` exchanges exactly and takes the best one when it
    raises the objective recomputed from scratch, so the value never falls and the search cannot
    cycle; it stops at a 1-swap local optimum over groups, after ``max_sweeps`` moves or at
    ``time_limit``. A greedy path over groups is nested; this can reach unions that no sequence
    of single additions reaches. Where the objective adds up (a vector, or a factor with the
    trace criterion) the exchanges that drop group ``i`` are valued together from one Cholesky
    factor of the union without ``i`` (the block gains of every other group, batched): a sweep
    costs ``k`` such factorizations, ``O(k t^2 p)`` for a union of ``t`` features. Otherwise
    (the largest eigenvalue of a factor or a full matrix) each exchanged union is valued by its
    own eigenproblem, stacked: about ``k n_groups`` eigenproblems of the union's size a sweep,
    meant for tens of groups.

    Parameters
    ----------
    A, B, criterion, form
        As in :func:`group_greedy_path`.
    groups : array-like of shape (n_features,)
        One group id per feature.
    start : array-like of int
        Group codes (positions in the sorted distinct ids) of the union to start from, for
        example ``path.groups_at(k)`` of a :class:`GroupPath`.
    max_sweeps : int
        Moves allowed; 0 returns the start.
    time_limit : float or None
        Seconds after which no new sweep starts.

    Returns
    -------
    GroupSwapResult

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.2, 0.1, 2.0, 1.5, 1.5])
    >>> r = group_swap_refine(a, np.eye(6), [0, 0, 1, 1, 2, 2], [0])
    >>> r.groups.tolist(), round(r.objective, 6), round(r.start_objective, 6)
    ([2], 4.5, 1.04)
    """
    owner = "group_swap_refine"
    criterion, A, B, form, codes, labels = _check_group_problem(A, B, groups, criterion, form, owner)
    p = A.shape[0]
    G = len(labels)
    chosen = np.unique(np.asarray(start, dtype=np.intp).ravel())
    if len(chosen) == 0 or chosen.min() < 0 or chosen.max() >= G or len(chosen) != np.size(start):
        raise ValueError(f"{owner}: start must hold distinct group codes in [0, {G - 1}]; got {np.asarray(start).tolist()}.")
    if isinstance(max_sweeps, bool) or not isinstance(max_sweeps, (int, np.integer)) or max_sweeps < 0:
        raise ValueError(f"{owner}: max_sweeps must be an int >= 0; got {max_sweeps!r}.")
    if time_limit is not None and not time_limit >= 0:
        raise ValueError(f"{owner}: time_limit must be None or a number of seconds >= 0; got {time_limit!r}.")
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    members = _members(codes, G)
    sizes = np.bincount(codes, minlength=G)
    full = A if form == "full" else (np.outer(A, A) if form == "vector" else A @ A.T)
    width = int(np.sort(sizes)[::-1][: len(chosen)].sum())  # the largest union of k groups
    Ax = np.zeros((p + width, p + width))
    Ax[:p, :p] = full
    Bx = None if B is None else _extended(B, p, width)

    def union(js):
        return np.sort(np.concatenate([members[j] for j in js])) if len(js) else np.zeros(0, dtype=np.intp)

    value = start_value = objective_on_support(A, B, union(chosen), criterion=criterion)
    n_swaps, converged = 0, max_sweeps > 0 and len(chosen) == G
    blocks = _union_gains(A, B, form, criterion, members, _fast)
    while n_swaps < max_sweeps and len(chosen) < G:
        if deadline is not None and time.perf_counter() > deadline:
            break
        outside = np.setdiff1d(np.arange(G), chosen)
        pairs = [(i, j) for i in chosen for j in outside]
        scores = None if blocks is None else _swap_scores(blocks, chosen, outside, union)
        if scores is None:  # every exchanged union valued by its own eigenproblem
            index = np.empty((len(pairs), width), dtype=np.intp)
            for row, (i, j) in enumerate(pairs):
                feats = union([c for c in chosen if c != i] + [j])
                index[row, : len(feats)] = feats
                index[row, len(feats):] = p + np.arange(width - len(feats))
            scores = _stacked_objectives(Ax, Bx, index, criterion)
        best = _first_within(scores)
        if not scores[best] > value * (1.0 + 1e-12) + 1e-300:
            converged = True
            break
        i, j = pairs[best]
        trial = np.sort(np.append(chosen[chosen != i], j))
        exact = objective_on_support(A, B, union(trial), criterion=criterion)
        if not exact > value:  # the stacked value and the one from scratch disagree at rounding level
            converged = True
            break
        chosen, value, n_swaps = trial, exact, n_swaps + 1
    return GroupSwapResult(groups=chosen, support=union(chosen), objective=float(value),
                           start_objective=float(start_value), n_swaps=n_swaps, converged=converged)


# ------------------------------------------------------------------------------------------ beam
@dataclass
class GroupBeamResult:
    """The outcome of :func:`group_beam_search`.

    Attributes
    ----------
    groups : ndarray of shape (k,)
        Sorted codes of the best union of ``k`` groups found.
    support : ndarray
        Sorted feature indices of that union.
    objective : float
        Its objective (recomputed from scratch), never below the greedy path's at ``k``.
    objective_path : ndarray of shape (k,)
        The best objective found at every number of groups ``1..k`` (never below the greedy path's).
    width : int
    """

    groups: np.ndarray
    support: np.ndarray
    objective: float
    objective_path: np.ndarray
    width: int


def group_beam_search(
    A: ArrayLike,
    B: ArrayLike | None,
    groups: ArrayLike,
    k: int,
    *,
    width: int = 4,
    criterion: Literal["max-eig", "trace"] = "max-eig",
    form: Literal["auto", "vector", "factor", "full"] = "auto",
    greedy: GroupPath | None = None,
    _fast: bool = True,
) -> GroupBeamResult:
    """Beam search over groups: the ``width`` best distinct unions of each size, grown side by side.

    The forward greedy path keeps one union and adds the group of best objective; the beam keeps
    the ``width`` best distinct unions of every size and extends each by every free group (all
    extensions valued exactly, their eigenproblems stacked), the ``width`` best distinct
    extensions forming the next beam. The greedy union can leave the beam, so the result of every
    size is the better of the beam's best and the greedy path's: never below the greedy path.
    Width 1 is the greedy path; a width of at least ``binom(n_groups, k)`` keeps every union and
    finds the best one. Where the objective adds up (a vector, or a factor with the trace
    criterion) every extension of a union is valued from one Cholesky factor of that union (the
    block gains of the groups outside it); otherwise a step costs about ``width n_groups``
    eigenproblems of the union's size.

    Parameters
    ----------
    A, B, criterion, form
        As in :func:`group_greedy_path`.
    groups : array-like of shape (n_features,)
    k : int
        Number of groups, in ``[1, n_groups]``.
    width : int
        Unions kept per size (>= 1).
    greedy : GroupPath or None
        The forward greedy path over the same groups of the same pair and criterion, to ``k`` or
        further, where the caller has it (a selector's ``forward_path_``); None computes it.

    Returns
    -------
    GroupBeamResult

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 0.2, 0.1, 2.0, 1.5, 1.5])
    >>> group_beam_search(a, np.eye(6), [0, 0, 1, 1, 2, 2], 2, width=2).groups.tolist()
    [1, 2]
    """
    owner = "group_beam_search"
    criterion, A, B, form, codes, labels = _check_group_problem(A, B, groups, criterion, form, owner)
    p = A.shape[0]
    G = len(labels)
    k = check_int(k, "k", low=1, high=G, owner=owner)
    width = check_int(width, "width", low=1, owner=owner)
    if greedy is None:
        greedy = group_greedy_path(A, B, codes, criterion=criterion, form=form, max_k=k)
    elif greedy.direction != "forward" or len(greedy.order) < k or not np.array_equal(greedy.codes, codes):
        raise ValueError(f"{owner}: greedy must be the forward group path of these groups to k = {k} or further; "
                         "pass greedy=None to compute it.")
    members = _members(codes, G)
    sizes = np.bincount(codes, minlength=G)
    full = A if form == "full" else (np.outer(A, A) if form == "vector" else A @ A.T)
    span = int(np.sort(sizes)[::-1][:k].sum())
    Ax = np.zeros((p + span, p + span))
    Ax[:p, :p] = full
    Bx = None if B is None else _extended(B, p, span)
    blocks = _union_gains(A, B, form, criterion, members, _fast)
    beam = [()]
    best_sets, best_values = [], np.empty(k)
    for t in range(1, k + 1):
        ext = sorted({tuple(sorted(m + (j,))) for m in beam for j in range(G) if j not in m})
        scores = None if blocks is None else _beam_scores(blocks, beam, ext, G, members)
        if scores is None:  # every extension valued by its own eigenproblem
            index = np.empty((len(ext), span), dtype=np.intp)
            for row, js in enumerate(ext):
                feats = np.concatenate([members[j] for j in js])
                index[row, : len(feats)] = feats
                index[row, len(feats):] = p + np.arange(span - len(feats))
            scores = _stacked_objectives(Ax, Bx, index, criterion)
        if width == 1:
            top = [_first_within(scores)]  # the greedy path's tie rule
        else:
            top = np.argsort(-scores, kind="stable")[:width]
        beam = [ext[i] for i in top]
        lead, value = np.array(beam[0], dtype=np.intp), float(scores[top[0]])
        if greedy.objective[t - 1] > value:  # the greedy union left the beam: it is the floor
            lead, value = greedy.groups_at(t), float(greedy.objective[t - 1])
        best_sets.append(lead)
        best_values[t - 1] = value
    chosen = np.sort(best_sets[-1])
    support = np.sort(np.concatenate([members[j] for j in chosen]))
    return GroupBeamResult(groups=chosen, support=support,
                           objective=float(objective_on_support(A, B, support, criterion=criterion)),
                           objective_path=best_values, width=width)
