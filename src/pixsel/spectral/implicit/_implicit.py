"""Image-scale forward selection: greedy paths without any ``p x p`` matrix.

When the data have ``N`` rows and ``p`` columns with ``N << p`` (faces or textures at full
resolution, ``p = 16384`` and more), the ``p x p`` scatter matrices cost ``8 p^2`` bytes and
``N p^2`` flops, while a forward path to ``k`` needs only the diagonal and ``k`` columns. This
kernel takes the matrices as *operators* with that column access, typically
:class:`pixsel.stats.CenteredGramOperator` (``Xc^T Xc / N + alpha I``, used through the data):

* LDA: ``A = a a^T`` (``a = m_1 - m_0``) or ``A = F F^T`` (``F`` the between-class factor of shape
  ``(p, C - 1)``), given as ``a`` or ``F``, and ``B`` the within-class operator with its ridge;
* sparse PCA: ``A`` the covariance operator, ``B = I``.

The statistics (class means, between-class factor, ridge) come from :mod:`pixsel.stats`; the
kernel never sees samples or labels. LDA runs the left-looking method of
:mod:`~pixsel.spectral.greedy._multiclass` (same path, same tie rule) with three changes for image scale:

* columns of ``B`` come in blocks: when the chosen index's column is not at hand, one pass over
  the data (``B.columns``) fetches it together with the best-scoring candidates, which later
  steps often pick (``block_size``; ``info['n_column_passes']`` and ``info['n_column_hits']``);
  on a Dask array each pass is one task per chunk (a ``dask.distributed`` cluster's workers);
* ``'max-eig'`` with ``C > 2`` classes: each candidate's value, ``lambda_max(G_S + u u^T)``, is
  screened by two-pole bounds (the exact value on the top two eigenvectors of ``G_S`` below,
  the root of a two-pole secular equation above) and the few survivors are solved by Newton on
  the secular equation (:func:`top_eig_rank_one`), ``O(r)`` each instead of an ``r x r``
  eigensolver per candidate (which made 40 classes cost 24 x one ``X^T X``);
* precision: everything is float64 (the operator accumulates float32 data in float64; see
  :mod:`pixsel.stats._gram`), and each Schur column is recomputed from its raw column.

Sparse PCA runs :mod:`~pixsel.spectral.greedy._fullrank`. Time ``O(N p b P + p k (k + r^2))`` for LDA
with a ``CenteredGramOperator`` (``P <= k`` passes of ``b`` columns), memory ``O(p (k + r + b))``
for the path state besides ``X``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from ..._validation import check_int, sign_flip
from .._criteria import spectral_criterion
from .._path import SparsePath
from ..greedy import fullrank_greedy_path, left_looking_forward

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal

    from numpy.typing import ArrayLike

__all__ = ["implicit_greedy_path"]


@dataclass
class ImplicitSparsePath(SparsePath):
    """A :class:`SparsePath` whose ``B`` (and ``A`` for sparse PCA) live in an operator."""

    operator: object = None

    def weights(self, k):
        S = self.support(k)
        z = np.zeros(self.operator.p)
        sub = self.operator.submatrix(S)
        if self.info.get("kind") == "pca":
            vals, vecs = np.linalg.eigh(sub)
        else:
            F = self.A if self.A.ndim == 2 else self.A[:, None]
            vals, vecs = sla.eigh(F[S] @ F[S].T, sub)
        z[S] = sign_flip(vecs[:, -1])
        return z


def _check_operator(op, name, p=None):
    if not all(hasattr(op, m) for m in ("column", "columns", "diag", "submatrix")):
        raise TypeError(
            f"{name} must be an operator with diag(), column(j), columns(idx) and submatrix(idx), such as "
            f"pixsel.stats.CenteredGramOperator(X, y); got {type(op).__name__}. For dense "
            "matrices use pixsel.spectral.greedy_path."
        )
    if p is not None and op.p != p:
        raise ValueError(f"{name} is {op.p} x {op.p} but A has {p} rows; they must match.")


def implicit_greedy_path(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    max_k: int,
    criterion: Literal["max-eig", "trace"] = "max-eig",
    block_size: int = 32,
    callback: Callable[[int, int], None] | None = None,
) -> ImplicitSparsePath:
    """Forward greedy path of ``(A, B)`` given as operators, without any ``p x p`` matrix.

    Parameters
    ----------
    A : operator, ndarray of shape (p,) or ndarray of shape (p, r)
        With ``B=None`` (sparse PCA): the covariance operator, e.g.
        ``CenteredGramOperator(X)``. With ``B`` (LDA): the between-class vector ``a`` (binary,
        ``A = a a^T``) or factor ``F`` (``A = F F^T``).
    B : operator or None
        The within-class operator with its ridge, e.g.
        ``CenteredGramOperator(X, y, alpha=alpha)``; it must be positive definite (a ridge
        ``alpha > 0`` when ``N < p``).
    max_k : int
        Number of forward steps.
    criterion : {'max-eig', 'trace'}
        Multiclass criterion.
    block_size : int, default=32
        LDA: columns of ``B`` fetched per pass over the data (the chosen index and the best
        scoring candidates after it, kept for later steps). Changes the number of passes
        (``info['n_column_passes']``), never the path.
    callback : callable or None
        LDA: called as ``callback(steps_done, max_k)`` after every step (a progress hook);
        sparse PCA: once, when done.

    Returns
    -------
    ImplicitSparsePath
        Forward path of length ``max_k`` with ``weights(k)`` computed through the operator;
        ``info['kind']`` is ``'pca'`` or ``'lda'`` and ``info['alpha']`` the ridge of ``B``.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.stats import CenteredGramOperator
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((20, 50)); y = np.repeat([0, 1], 10); X[y == 1, 7] += 3
    >>> B = CenteredGramOperator(X, y, alpha=0.01)
    >>> int(implicit_greedy_path(B.class_means.between, B, max_k=3).order[0])
    7
    """
    criterion = spectral_criterion(criterion, owner="implicit_greedy_path")
    if B is None:
        _check_operator(A, "A")
        max_k = check_int(max_k, "max_k", low=1, high=A.p, owner="implicit_greedy_path")
        with _cached(A):
            path = fullrank_greedy_path(A, None, direction="forward", max_k=max_k)
        if callback is not None:
            callback(max_k, max_k)
        info = dict(path.info, kind="pca")
        # lambda_max(A_S) <= tr(A_S) <= sum of the k largest variances (certified, cheap)
        ub = _envelope(np.cumsum(np.sort(A.diag())[::-1])[:max_k])
        return ImplicitSparsePath(
            order=path.order, objective=path.objective, direction="forward", A=None, B=None,
            upper_bound=ub, info=info, operator=A,
        )
    F = np.asarray(A, dtype=np.float64)
    if F.ndim not in (1, 2):
        raise ValueError(f"A must be a vector (p,) or a factor (p, r) when B is given; got shape {F.shape}.")
    p = F.shape[0]
    _check_operator(B, "B", p)
    max_k = check_int(max_k, "max_k", low=1, high=p, owner="implicit_greedy_path")
    block_size = check_int(block_size, "block_size", low=1, owner="implicit_greedy_path")
    Fm = F[:, None] if F.ndim == 1 else F
    with _cached(B):
        order, objective, kinfo = _forward_lda(Fm, B, criterion, max_k, min(block_size, p), callback)
    alpha = float(getattr(B, "alpha", 0.0))
    info = dict(kinfo, criterion=criterion.name, form="factor", kind="lda", alpha=alpha)
    ub = None
    if alpha > 0:  # lambda_max(A_S, B_S) <= lambda_max(A_S) / lambda_min(B) <= sum_k |F_i|^2 / alpha
        rows = np.einsum("ij,ij->i", Fm, Fm)
        ub = _envelope(np.cumsum(np.sort(rows)[::-1])[:max_k] / alpha)
    return ImplicitSparsePath(
        order=order, objective=objective, direction="forward", A=F, B=None,
        upper_bound=ub, info=info, operator=B,
    )


def _cached(op):
    """The operator's :meth:`~pixsel.stats.CenteredGramOperator.cached` context (a Dask ``X`` kept
    on the cluster's workers for the many passes of a path), or nothing for other operators."""
    cached = getattr(op, "cached", None)
    return cached() if callable(cached) else contextlib.nullcontext(op)


def _envelope(ub):
    """Monotone envelope ``min_{k' >= k}`` plus the 1e-10 rounding slack of the certificates."""
    ub = np.minimum.accumulate(ub[::-1])[::-1]
    return ub * (1 + 1e-10) + 1e-10 * np.abs(ub).max()


# --- the forward kernel for LDA through an operator ----------------------------------------------

def top_eig_rank_one(theta, W, lo, hi, *, prune=False):
    """``lambda_max(diag(theta) + w w^T)`` for every row ``w`` of ``W``: the secular equation.

    With ``theta`` ascending, the largest eigenvalue is the root ``lambda >= theta[-1]`` of
    ``g(lambda) = sum_i w_i^2 / (lambda - theta_i) = 1``. ``psi = 1 / g`` is increasing and
    concave there (linear for a single pole), so Newton on ``psi = 1`` from the lower bound
    ``lo = theta[-1] + w[-1]^2`` climbs monotonically to the root (one step when ``w`` has one
    nonzero entry); a bracket ``[lo, hi]`` with ``hi = theta[-1] + |w|^2`` guards each step.
    ``O(r)`` per candidate and step, against ``O(r^3)`` for an eigensolver per candidate.
    With ``prune=True`` only the largest value is exact: a row whose upper bound falls below
    the best converged-so-far lower bound stops early at a lower bound.

    Examples
    --------
    >>> import numpy as np
    >>> theta = np.array([0.0, 1.0]); W = np.array([[1.0, 1.0]])
    >>> lam = top_eig_rank_one(theta, W, theta[-1] + W[:, -1] ** 2, theta[-1] + (W**2).sum(1))
    >>> bool(np.isclose(lam[0], np.linalg.eigvalsh(np.diag(theta) + W.T @ W)[-1]))
    True
    """
    W2 = W * W
    tmax = theta[-1]
    scale = np.maximum(np.abs(hi), np.finfo(np.float64).tiny)
    eps = 4 * np.finfo(np.float64).eps
    lam = np.maximum(lo, tmax + eps * scale)  # strictly right of the top pole
    lo = lam.copy()
    hi = np.maximum(hi, lam)
    active = np.ones(len(lam), dtype=bool)
    gap = theta[None, :]
    for _ in range(100):
        a = np.flatnonzero(active)
        if not len(a):
            break
        inv = 1.0 / (lam[a, None] - gap)
        g = np.einsum("ij,ij->i", W2[a], inv)
        h2 = np.einsum("ij,ij->i", W2[a], inv * inv)
        below = g >= 1.0  # lam <= root
        lo[a[below]] = lam[a[below]]
        hi[a[~below]] = np.minimum(hi[a[~below]], lam[a[~below]])
        with np.errstate(divide="ignore", invalid="ignore"):
            step = g * (g - 1.0) / h2
        done = np.abs(step) <= eps * scale[a]  # converged to rounding (either side)
        new = lam[a] + step
        bad = ~done & (~np.isfinite(new) | (new < lo[a]) | (new > hi[a]))
        new[bad] = 0.5 * (lo[a[bad]] + hi[a[bad]])
        new[done] = np.maximum(lam[a[done]], lo[a[done]])
        lam[a] = new
        active[a[done]] = False
        if prune:  # iterates are lower bounds: drop what cannot reach the best of them
            active &= hi >= lam.max() - eps * scale
    return lam


def _candidate_scores(Uc, dc, G, f, criterion):
    """The objective after adding each candidate (``-inf``: screened out, cannot win), and an
    estimate of it for every candidate (the value or a lower bound) to rank the prefetch."""
    r = G.shape[0]
    if criterion.additive:  # closed form
        vals, _ = criterion.gains(Uc, dc, G, f)
        return vals, vals
    if r == 1:
        vals = G[0, 0] + Uc[:, 0] ** 2 / dc
        return vals, vals
    theta, V = np.linalg.eigh(G)
    # two-pole bounds: the exact top eigenvalue on the top two eigenvectors (a Rayleigh quotient,
    # so a lower bound) and the root of w_1^2/(x - t_1) + |rest|^2/(x - t_2) = 1 (>= g, an upper one)
    W2 = (Uc @ V[:, -2:]) ** 2 / dc[:, None]
    w1, w2 = W2[:, 1], W2[:, 0]
    nrm = np.einsum("ij,ij->i", Uc, Uc) / dc
    delta = theta[-1] - theta[-2]
    lower = theta[-1] + _two_pole_root(w1, w2, delta)
    upper = theta[-1] + _two_pole_root(w1, np.maximum(nrm - w1, 0.0), delta)
    upper = np.maximum(upper, lower)
    scale = max(abs(theta[-1]), float(upper.max()), np.finfo(float).tiny)
    surv = np.flatnonzero(upper >= lower.max() - 1e-12 * scale)
    vals = np.full(len(Uc), -np.inf)
    W = (Uc[surv] @ V) / np.sqrt(dc[surv])[:, None]
    vals[surv] = top_eig_rank_one(theta, W, lower[surv], upper[surv], prune=True)
    return vals, np.maximum(vals, lower)


def _two_pole_root(a, b, delta):
    """The root ``x >= 0`` of ``a / x + b / (x + delta) = 1`` (``a, b, delta >= 0``), stably."""
    c = a + b - delta
    disc = np.sqrt(c * c + 4 * a * delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        # (c + disc) / 2, or 2 a delta / (disc - c) when c < 0 (no cancellation)
        x = np.where(c >= 0, 0.5 * (c + disc), 2 * a * delta / (disc - c))
    return np.where(np.isfinite(x), x, 0.0)


def _first_by_key(keys, m):
    """``np.argsort(keys, kind="stable")[:m]`` (the ``m`` smallest keys, ties in index order),
    without sorting all of them: a partition finds the ``m``-th key, and only the keys up to it
    are sorted."""
    if m >= len(keys) or np.isnan(keys).any():
        return np.argsort(keys, kind="stable")[:m]
    kth = np.partition(keys, m - 1)[m - 1]
    sel = np.flatnonzero(keys <= kth)  # in index order: the stable sort below keeps ties so
    return sel[np.argsort(keys[sel], kind="stable")][:m]


def _forward_lda(M, op, criterion, n_steps, block_size, callback=None):
    """Left-looking forward greedy on ``G_S = M_S^T B_SS^{-1} M_S`` with ``B`` an operator.

    The loop of the multiclass kernel (:func:`~pixsel.spectral.greedy._steps.left_looking_forward`:
    same path, same tie rule), with the columns of ``B`` fetched in blocks: when the chosen
    index's column is not at hand, the columns of the ``block_size`` best-scoring candidates (no
    more than the steps left) are fetched in one pass over the data (``op.columns``) and kept
    (at most ``2 block_size``); a
    later step whose winner is among them costs no pass. The raw columns are exact, so blocking
    changes the number of passes, never the path. Every Schur column is recomputed from its raw
    column (``B[:, j] - L L[j]^T``, left looking), so no rounding accumulates in ``R``; all of it
    is float64.
    """
    p = M.shape[0]
    cap = 2 * block_size
    panel = np.empty((p, cap), order="F")  # cached raw columns of B (each contiguous)
    slot_of = {}  # feature -> column of panel
    count = {"fetch": 0, "hit": 0}

    def column(j, ranking):
        if j in slot_of:
            count["hit"] += 1
        else:
            # the block: j and the best-scoring other candidates whose columns are not at hand,
            # no more of them than steps are left (a short pass reads no column it cannot use)
            size = max(1, min(block_size, n_steps - count["fetch"] - count["hit"]))
            cand, estimate = ranking()
            ranked = cand[_first_by_key(-estimate[cand], size + 1)]
            top = [j] + [int(i) for i in ranked if i != j][: size - 1]
            new = [i for i in top if i not in slot_of]
            keep = set(top)
            stale = sorted((i for i in slot_of if i not in keep), key=lambda i: estimate[i])
            for i in stale[: max(0, len(slot_of) + len(new) - cap)]:  # evict the worst first
                del slot_of[i]
            used = set(slot_of.values())
            slots = [s for s in range(cap) if s not in used][: len(new)]
            panel[:, slots] = op.columns(new)
            slot_of.update(zip(new, slots))
            count["fetch"] += 1
        return panel[:, slot_of.pop(j)]

    def score(Uc, dc, G, f):
        return _candidate_scores(Uc, dc, G, f, criterion)

    order, objective = left_looking_forward(M, op, criterion, n_steps, score, column, callback=callback)
    return order, objective, {"n_column_passes": count["fetch"], "n_column_hits": count["hit"],
                              "block_size": block_size}
