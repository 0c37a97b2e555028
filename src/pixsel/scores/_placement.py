"""Sensor placement: the greedy column subset in the n-form, with the constraints real sensors have.

The objective is the one of :func:`~pixsel.scores.greedy_column_subset`: choose pixels ``S`` of
the centred data ``A`` (``n x p``) so that the kept Frobenius mass ``f(S) = ||P_S A||_F^2`` is
large (the other pixels are then well reconstructed from the chosen ones by least squares;
Farahat, Ghodsi and Kamel, "An efficient greedy method for unsupervised feature selection",
ICDM 2011). That kernel works on the ``p x p`` Gram matrix, ``O(p^2)`` per step. With fewer
images than pixels the Gram matrix has rank at most ``n``, and the same greedy runs in
``O(n p)`` per step on ``A`` itself (the "n-form"):

* the residual ``R = (I - Q Q^T) A`` of ``A`` after projecting out the chosen columns (``Q``
  an orthonormal basis of their span, ``n x t``) is never formed;
* the gain of a column ``j`` is ``u_j / d_j`` with ``d_j = ||r_j||^2`` and
  ``u_j = ||R^T r_j||^2 = r_j^T M r_j``, ``M = R R^T``;
* adding the unit direction ``q`` (the chosen column's residual, normalised) is a rank-one step:
  with ``w = A^T q``, ``v = (I - Q Q^T)(A A^T) q`` and ``z = A^T v`` (one pass over ``A``),
  ``d <- d - w^2`` and ``u <- u - 2 w z + (q^T v) w^2``; the kept mass grows by ``||w||^2``.

With ``n > p`` the kernel works on the Gram matrix ``G = A^T A`` (``O(n p^2)`` once, as the
p-form kernel does; the caller may pass it) in the Gram form of the same steps: with
``F = A^T Q`` (``p x t``, kept), the residual Gram matrix is ``E = G - F F^T``, the new
``w = E_{:,i} / sqrt(E_ii)`` and ``z = E w`` (one pass over ``G``), so a step costs ``O(p^2)``.
:func:`placement_gram` gives ``G`` accumulated in single precision from 512 features (half the
time of its ``n p^2 / 2`` multiply-adds), with the relative accuracy the caller passes on as
``gram_rtol`` (the residual floor); :func:`kept_mass` then gives exact masses from exact columns.

The first step's numerators ``u_j = a_j^T M a_j`` are the squared column norms of ``L^T A``,
``M = L L^T`` a (pivoted) Cholesky factorization: a triangular product, half the multiply-adds
of ``M A``.

With ``shrinkage=rho`` the greedy runs on ``G' = (1 - rho) A^T A + rho (n - 1) T`` (``T`` a prior
covariance, :class:`pixsel.stats.DCTPrior`), full rank, in the same Gram form with ``G'``
applied by products: ``E_{:,i}`` and ``E w`` need ``A^T a_i`` and ``A^T (A e)`` (one pass over
``A`` with two vectors; ``A e`` comes from ``A A^T a_i``, ``A T e_i`` and the kept ``A F``
without a pass) and ``T e_i``, ``T w`` (two small transforms each). With ``G' F`` and ``F^T F``
kept beside ``F``, ``F^T E_{:,i} = (G' F)_{i,:} - F^T F F_{i,:}`` needs no pass over ``F``, and
``F F_{i,:}`` and ``F F^T w`` are one product of ``F`` with two vectors. The initial
``||G'_{:,j}||^2`` needs the plain ``u_j``, ``A T`` and ``diag(T^2)``. With fewer images than
pixels the plain ``u_j = a_j^T M a_j`` enters it with the weight ``(1 - rho)^2`` (small where the
data ask for shrinkage) and is first only bounded, from directions close to the top eigenvectors
of ``M``; the greedy's updates of the numerators add terms that do not depend on them, so a bound
keeps its width along the path, and ``u_j`` is computed exactly (``n^2`` each) only for the pixels
whose upper gain reaches the best lower one at some step: the same pixels, for a small part of
the ``n^2 p / 2``.

A pixel may carry ``block`` channels (colour images: ``A`` has ``p * block`` columns, the
channels of a pixel adjacent): choosing the pixel adds all its channels, its gain is
``trace(D_J^+ U_J)`` with the ``block x block`` matrices ``D_J = R_J^T R_J`` and
``U_J = R_J^T M R_J``, updated by the same rank-one steps.

Constraints (:class:`PlacementConstraints`, validated by :func:`placement_constraints` before any
work) are honoured exactly at every step: a pixel is a candidate only while it is not excluded,
not closer than ``min_distance`` to a chosen pixel, its region is below its maximum, taking it
still leaves enough steps for the regions below their minimum, and it still leaves the budget
room for the cheapest pixels that must follow. Installed sensors (``always_select``) come
first, in the order given.

Under a budget the greedy that takes the largest gain may spend the budget on its first, costly
pixels and be left with the cheapest for the rest, however little they add; the greedy that takes
the largest gain per unit cost may instead pass over a costly pixel worth its price. For a
monotone submodular objective under a budget neither alone has a constant-factor guarantee and
the better of the two has (Khuller, Moss and Naor, "The budgeted maximum coverage problem",
1999; Leskovec, Krause, Guestrin, Faloutsos, VanBriesen and Glance, "Cost-effective outbreak
detection in networks", KDD 2007). The kept mass is monotone but not submodular in general, so
here this is the rule, not a bound: with a budget both paths are run (each with its swaps in
:func:`refine_placement`) and the one that keeps more mass is returned, the plain one on a tie.
The two paths share their set-up (the operator, the initial residual norms and numerators, and
those of the numerators the first path made exact): only the steps depend on the rule.
Both keep every constraint exactly: the rule only ranks the candidates, the same checks admit
them.

Ties go to the lowest index. Columns whose residual is below a relative tolerance of the
largest squared column norm add nothing; they are taken (lowest admissible index first, no
gain) only once no other candidate is left.

:func:`refine_placement` continues from the greedy's ``k`` pixels with swaps (one placed pixel
out, one other in, while the kept mass rises, every constraint kept), valued from the same
factors: with ``F = [w_1 .. w_k]`` (``F F^T`` the kept part of the Gram matrix) the direction
that only pixel ``i`` spans is ``q_i = Q F[S]^{-1} e_i`` (normalised, as ``F[S] F[S]^T =
A_S^T A_S``); dropping ``i`` is the step above backwards (``d <- d + h^2``, ``u <- u + 2 h z +
||h||^2 h^2`` with ``h = A^T q_i`` and ``z = A^T (I - Q Q^T) A h``) and adding ``j`` a greedy
step, so the value of every replacement of ``i`` is ``f - ||h||^2 + (u + 2 h z + ||h||^2 h^2) /
(d + h^2)`` in ``O(p)`` each once ``h`` and ``z`` are known. The swaps keep ``h`` and ``z`` of
every placed pixel (``F F[S]^{-1}`` and ``E F F[S]^{-1}``, column by column) up to date by
low-rank updates, so a swap costs one greedy step and ``O(p k)`` more, and a pixel that has no
improving swap costs ``O(p)``; ``E F`` is formed once, from the greedy's own products.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy.linalg.blas import get_blas_funcs
from scipy.linalg.lapack import get_lapack_funcs

from .._validation import MAX_SWAP_SWEEPS

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike, NDArray

    from ..stats import DCTPrior

__all__ = ["greedy_placement", "refine_placement", "placement_constraints", "placement_gram", "kept_mass",
           "PlacementConstraints", "PlacementResult"]

#: A residual squared norm below this fraction of the largest squared column norm of ``A`` is
#: numerically inside the span of the chosen columns (the value of the p-form kernel).
_RESIDUAL_RTOL = 1e-10

#: Relative slack when a sum of costs is compared with the budget (rounding of the sums).
_BUDGET_RTOL = 1e-12

#: Under a budget the cost-ratio greedy's placement replaces the plain greedy's only when it keeps
#: more mass by more than this fraction (rounding of the two sums): a tie keeps the plain greedy.
_RULE_RTOL = 1e-9

#: BLAS's float64 rank-one update and matrix product, in place, symmetric matrix-vector product,
#: triangular product and matrix-vector product
_DGER, _DGEMM, _DSYMV, _DTRMM, _DGEMV = get_blas_funcs(("ger", "gemm", "symv", "trmm", "gemv"), (np.empty(1),))
#: their single-precision matrix-vector and triangular products (passes over a rounded copy of the data)
_SGEMV, _STRMM = get_blas_funcs(("gemv", "trmm"), (np.empty(1, dtype=np.float32),))
#: LAPACK's float64 Cholesky factorization with pivoting (for positive semidefinite matrices)
(_DPSTRF,) = get_lapack_funcs(("pstrf",), (np.empty(1),))


@dataclass(frozen=True)
class PlacementConstraints:
    """Resolved placement constraints on ``n_pixels`` pixels (see :func:`placement_constraints`).

    Attributes
    ----------
    n_pixels : int
    always : ndarray of int
        Installed sensors, chosen first in this order.
    never : ndarray of bool of shape (n_pixels,)
        Pixels that are never chosen.
    labels : ndarray of int of shape (n_pixels,) or None
        Region codes ``0 .. n_regions - 1``.
    caps : ndarray of float of shape (n_regions,) or None
        At most ``caps[r]`` pixels of region ``r`` (``inf``: no limit).
    floors : ndarray of int of shape (n_regions,) or None
        At least ``floors[r]`` pixels of region ``r`` (None: no minimum anywhere).
    coords : ndarray of shape (n_pixels, 2) or None
        Pixel coordinates (row, column), for ``min_distance``.
    min_distance : float
        Every two chosen pixels are at least this far apart (0: no constraint).
    costs : ndarray of shape (n_pixels,) or None
    budget : float
        The chosen pixels cost at most this in total (``inf``: no budget).
    """

    n_pixels: int
    always: np.ndarray
    never: np.ndarray
    labels: np.ndarray | None = None
    caps: np.ndarray | None = None
    floors: np.ndarray | None = None
    coords: np.ndarray | None = None
    min_distance: float = 0.0
    costs: np.ndarray | None = None
    budget: float = np.inf


def _indices(value, name, p, owner):
    if value is None:
        return np.empty(0, dtype=np.intp)
    arr = np.asarray(value)
    if arr.dtype == bool:
        if arr.shape not in ((p,),) and arr.size != p:
            raise ValueError(f"{owner}{name} as a mask must have one entry per pixel ({p}); got shape {arr.shape}.")
        return np.flatnonzero(arr.ravel())
    arr = arr.ravel()
    if arr.size and (arr.dtype.kind not in "iu" or arr.min() < 0 or arr.max() >= p):
        raise ValueError(f"{owner}{name} must hold pixel indices in [0, {p - 1}] (flattened, row-major) or be a "
                         f"boolean mask of {p} pixels; got {value!r}.")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{owner}{name} lists a pixel twice; pass each pixel once.")
    return arr.astype(np.intp)


def placement_constraints(n_pixels: int, k: int, *, image_shape: tuple[int, ...] | None = None,
                          always_select: ArrayLike | None = None, never_select: ArrayLike | None = None,
                          regions: ArrayLike | None = None, max_per_region: int | dict | None = None,
                          min_per_region: int | dict | None = None, min_distance: float | None = None, costs: ArrayLike | None = None,
                          budget: float | None = None, owner: str | None = None) -> PlacementConstraints:
    """Validate placement constraints and check that ``k`` pixels can satisfy them all.

    Every check is cheap (no data is read) and runs before any selection work; each error says
    which constraint to relax.

    Parameters
    ----------
    n_pixels : int
        Pixels to choose from (``height * width`` for images).
    k : int
        Pixels to choose, installed sensors included.
    image_shape : tuple of int, optional
        ``(height, width)``; needed for ``min_distance`` and for a 2-D ``regions`` image.
    always_select : array-like of int or bool, optional
        Installed sensors (flattened pixel indices, or a mask): chosen first, in this order.
    never_select : array-like of int or bool, optional
        Pixels never chosen.
    regions : array-like of int of shape (height, width) or (n_pixels,), optional
        A label image of regions.
    max_per_region : int or dict, optional
        At most this many chosen pixels per region (an int for all regions, or ``{label: max}``;
        labels missing from the dict have no limit). Needs ``regions``.
    min_per_region : int or dict, optional
        At least this many chosen pixels per region (an int for all regions, or ``{label: min}``;
        labels missing from the dict have no minimum), installed sensors counted. Needs
        ``regions``. Exactly ``n`` per region: ``min_per_region=n, max_per_region=n``.
    min_distance : float, optional
        Every two chosen pixels are at least this far apart (Euclidean, in pixels).
    costs : array-like of shape (n_pixels,) or (height, width), optional
        Non-negative cost of each pixel.
    budget : float, optional
        The ``k`` chosen pixels, installed ones included, cost at most this in total.
    owner : str, optional
        Name used in the error messages.

    Returns
    -------
    PlacementConstraints

    Raises
    ------
    ValueError
        If a constraint is malformed, or the constraints cannot all hold for ``k`` pixels.

    Examples
    --------
    >>> cons = placement_constraints(16, 3, image_shape=(4, 4), min_distance=2.0)
    >>> cons.min_distance
    2.0
    >>> placement_constraints(16, 5, image_shape=(4, 4), min_distance=3.0)
    Traceback (most recent call last):
    ...
    ValueError: min_distance=3 leaves room for only 4 of the k=5 pixels (a greedy packing): lower min_distance or k.
    """
    p = int(n_pixels)
    k = int(k)
    who = f"{owner}: " if owner else ""
    always = _indices(always_select, "always_select", p, who)
    never_idx = _indices(never_select, "never_select", p, who)
    never = np.zeros(p, dtype=bool)
    never[never_idx] = True
    if always.size > k:
        raise ValueError(f"{who}{always.size} installed sensors (always_select) are more than k={k}: pass k >= "
                         f"{always.size} or fewer always_select.")
    if never[always].any():
        both = always[never[always]].tolist()
        raise ValueError(f"{who}pixels {both} are in both always_select and never_select: remove them from one.")
    if p - int(never.sum()) < k:
        raise ValueError(f"{who}never_select leaves {p - int(never.sum())} pixels, fewer than k={k}: lower k or "
                         "exclude fewer pixels.")
    hw = None
    if image_shape is not None:
        hw = tuple(int(d) for d in image_shape[:2])
        if hw[0] * hw[1] != p:
            raise ValueError(f"{who}image_shape {tuple(image_shape)} has {hw[0] * hw[1]} pixels, not {p}.")

    labels = caps = None
    if regions is not None:
        reg = np.asarray(regions)
        if reg.dtype.kind not in "iub":
            raise ValueError(f"{who}regions must be an integer label image; got dtype {reg.dtype}.")
        if not (reg.shape == (p,) or (hw is not None and reg.shape == hw)):
            want = f"{hw} (the image) or ({p},)" if hw is not None else f"({p},) (one label per pixel)"
            raise ValueError(f"{who}regions has shape {reg.shape}; it must have shape {want}.")
        uniq, labels = np.unique(reg.ravel(), return_inverse=True)
        labels = labels.astype(np.intp)
        if max_per_region is None and min_per_region is None:
            raise ValueError(f"{who}regions is given without max_per_region or min_per_region: pass one of them (an "
                             "int or {label: n}).")
        caps = _per_region(max_per_region, "max_per_region", uniq, np.inf, who)
        floors = None if min_per_region is None else _per_region(min_per_region, "min_per_region", uniq, 0, who)
        free = np.bincount(labels[~never], minlength=uniq.size)
        counts = np.bincount(labels[always], minlength=uniq.size)
        room = float(np.minimum(caps, free).sum())
        if room < k:
            raise ValueError(f"{who}the regions' maxima (max_per_region) allow {int(room)} pixels in all, fewer than "
                             f"k={k}: raise max_per_region or lower k.")
        if np.any(counts > caps):
            r = int(np.argmax(counts > caps))
            raise ValueError(f"{who}always_select puts {int(counts[r])} installed sensors in region {uniq[r]!r}, "
                             f"more than its maximum {int(caps[r])}: raise max_per_region.")
        if floors is not None:
            if np.any(floors > caps):
                r = int(np.argmax(floors > caps))
                raise ValueError(f"{who}region {uniq[r]!r} needs at least {int(floors[r])} pixels (min_per_region) but "
                                 f"allows at most {int(caps[r])} (max_per_region): lower min_per_region or raise "
                                 "max_per_region.")
            if np.any(floors > free):
                r = int(np.argmax(floors > free))
                raise ValueError(f"{who}region {uniq[r]!r} needs at least {int(floors[r])} pixels (min_per_region) but "
                                 f"has only {int(free[r])} that may be chosen: lower min_per_region or exclude fewer "
                                 "pixels (never_select).")
            need = always.size + int(np.maximum(floors - counts, 0).sum())
            if need > k:
                raise ValueError(f"{who}the regions' minima (min_per_region) need {need} pixels in all (installed "
                                 f"sensors included), more than k={k}: raise k to {need} or lower min_per_region.")
            if not floors.any():
                floors = None
    else:
        floors = None
        for name, value in (("max_per_region", max_per_region), ("min_per_region", min_per_region)):
            if value is not None:
                raise ValueError(f"{who}{name} is given without regions: pass regions (a label image).")

    coords = None
    dist = 0.0
    if min_distance is not None:
        dist = float(min_distance)
        if not np.isfinite(dist) or dist < 0:
            raise ValueError(f"{who}min_distance must be a finite number >= 0; got {min_distance!r}.")
        if dist > 0:
            if hw is None:
                raise ValueError(f"{who}min_distance needs the image shape: fit on an image stack "
                                 "(n_samples, height, width) or pass image_shape.")
            rows, cols = np.divmod(np.arange(p), hw[1])
            coords = np.column_stack([rows, cols]).astype(np.float64)
            if always.size > 1:
                d = np.linalg.norm(coords[always][:, None] - coords[always][None], axis=-1)
                d[np.diag_indices_from(d)] = np.inf
                if d.min() < dist:
                    a, b = np.unravel_index(np.argmin(d), d.shape)
                    raise ValueError(f"{who}installed sensors {int(always[a])} and {int(always[b])} are "
                                     f"{d[a, b]:.3g} pixels apart, closer than min_distance={dist:g}: lower "
                                     "min_distance.")

    cost_arr = None
    budget_f = np.inf
    if costs is not None:
        cost_arr = np.asarray(costs, dtype=np.float64).ravel()
        if cost_arr.shape != (p,):
            raise ValueError(f"{who}costs has {cost_arr.size} entries; it needs one per pixel ({p}).")
        if not np.all(np.isfinite(cost_arr)) or cost_arr.min(initial=0.0) < 0:
            raise ValueError(f"{who}costs must be finite and >= 0.")
        if budget is not None:
            budget_f = float(budget)
            if np.isnan(budget_f) or budget_f < 0:
                raise ValueError(f"{who}budget must be a number >= 0; got {budget!r}.")
            fixed = float(cost_arr[always].sum())
            pool = np.ones(p, dtype=bool)
            pool[always] = False
            pool &= ~never
            cheapest = fixed + float(np.sort(cost_arr[pool])[: k - always.size].sum())
            if cheapest > budget_f * (1 + _BUDGET_RTOL):
                raise ValueError(f"{who}the {k} cheapest admissible pixels (installed ones included) cost "
                                 f"{cheapest:.6g}, more than budget={budget_f:.6g}: raise the budget to at least "
                                 f"{cheapest:.6g} or lower k.")
    elif budget is not None:
        raise ValueError(f"{who}budget is given without costs: pass costs (one per pixel).")

    cons = PlacementConstraints(n_pixels=p, always=always, never=never, labels=labels, caps=caps, floors=floors,
                                coords=coords, min_distance=dist, costs=cost_arr, budget=budget_f)
    state = _State(cons)
    for i in always:
        state.take(int(i))
    if state.needs_packing:
        placed, cost, short = state.pack(k - always.size)
        placed += always.size
        if short:  # only a minimum distance can crowd a region out (the minima fit the free pixels)
            raise ValueError(f"{who}min_distance={dist:g} leaves {short} of the pixels the regions' minima "
                             "(min_per_region) ask for unplaced (a greedy packing): lower min_distance or "
                             "min_per_region.")
        if placed < k and dist > 0:
            raise ValueError(f"{who}min_distance={dist:g} leaves room for only {placed} of the k={k} pixels (a greedy "
                             "packing): lower min_distance or k.")
        if placed < k or cost > budget_f * (1 + _BUDGET_RTOL):
            raise ValueError(f"{who}no placement of k={k} pixels within budget={budget_f:.6g} was found under the "
                             "region maxima and minima (the cheapest pixels first): raise the budget or "
                             "max_per_region, lower min_per_region, or lower k.")
    return cons


def _per_region(value, name, uniq, default, who):
    """One bound per region (float array): an int for every region or ``{label: n}`` (others ``default``)."""
    if value is None:
        return np.full(uniq.size, float(default))
    if isinstance(value, dict):
        out = np.full(uniq.size, float(default))
        pos = {v: i for i, v in enumerate(uniq.tolist())}
        for lab, m in value.items():
            if lab not in pos:
                raise ValueError(f"{who}{name} names region {lab!r}, which is not in regions "
                                 f"(labels {uniq.tolist()[:10]}...).")
            out[pos[lab]] = _nonneg_int(m, f"{name}[{lab!r}]", who)
        return out
    return np.full(uniq.size, float(_nonneg_int(value, name, who)))


def _nonneg_int(value, name, who):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{who}{name} must be an int >= 0; got {value!r}.")
    return int(value)


class _State:
    """Which pixels may still be chosen, updated as pixels are taken.

    A greedy step may take pixel ``j`` only if the remaining pixels can still be placed after it.
    Region maxima alone form a partition matroid, on which every admissible pixel leaves a
    completion; region minima add one exact check (while the pixels the regions still lack
    fill every remaining step, only pixels of those regions are candidates); a budget alone is
    checked exactly by the sum of the cheapest remaining costs. A minimum distance, or a budget
    with regions, is checked by packing the remaining pixels: first the pixels each region still
    lacks (region by region, cheapest first within a region), then the rest (cheapest first when
    there are costs, else in raster order, ties to the lowest index); the step takes the best
    pixel after which the packing still succeeds. Without a minimum distance the packing is the
    cheapest completion (per-region costs are convex in the number taken), so the check is
    exact. The packing from the current state always leaves its own first pixel such a
    candidate, so the greedy completes whenever the initial packing did.
    """

    def __init__(self, cons: PlacementConstraints):
        self.cons = cons
        self.free = ~cons.never
        self.counts = None if cons.caps is None else np.zeros(cons.caps.size, dtype=np.intp)
        self.spent = 0.0
        self.has_budget = cons.costs is not None and bool(np.isfinite(cons.budget))
        self.needs_packing = cons.min_distance > 0 or (self.has_budget and cons.caps is not None)
        self.pack_order = (np.argsort(cons.costs, kind="stable") if cons.costs is not None
                           else np.arange(cons.n_pixels))

    def copy(self) -> _State:
        new = object.__new__(_State)
        new.__dict__.update(self.__dict__)
        new.free = self.free.copy()
        new.counts = None if self.counts is None else self.counts.copy()
        return new

    def take(self, i: int) -> None:
        c = self.cons
        self.free[i] = False
        if self.counts is not None:
            r = c.labels[i]
            self.counts[r] += 1
            if self.counts[r] >= c.caps[r]:
                self.free[c.labels == r] = False
        if c.coords is not None:
            d2 = np.sum((c.coords - c.coords[i]) ** 2, axis=1)
            self.free[d2 < c.min_distance ** 2] = False
        if c.costs is not None:
            self.spent += float(c.costs[i])

    def lacking(self) -> NDArray | None:
        """Pixels each region still lacks to reach its minimum (None without minima)."""
        if self.cons.floors is None:
            return None
        return np.maximum(self.cons.floors - self.counts, 0)

    def pack(self, rest: int) -> tuple[int, float, int]:
        """Place up to ``rest`` more pixels in packing order: how many were placed, the total spent,
        and how many pixels the regions still lack below their minima afterwards."""
        st = self.copy()
        placed = 0
        lack = st.lacking()
        if lack is not None:
            labels = self.cons.labels[st.pack_order]
            for r in np.flatnonzero(lack):
                while st.counts[r] < self.cons.floors[r] and placed < rest:
                    free = st.free[st.pack_order] & (labels == r)
                    if not free.any():
                        break
                    st.take(int(st.pack_order[int(np.argmax(free))]))
                    placed += 1
            short = int(st.lacking().sum())
            if short:
                return placed, st.spent, short
        while placed < rest:
            free = st.free[st.pack_order]
            if not free.any():
                break
            st.take(int(st.pack_order[int(np.argmax(free))]))
            placed += 1
        return placed, st.spent, 0

    def completes_after(self, j: int, rest: int) -> bool:
        st = self.copy()
        st.take(j)
        placed, spent, short = st.pack(rest)
        return placed == rest and short == 0 and spent <= self.cons.budget * (1 + _BUDGET_RTOL)

    def candidates(self, rest: int) -> NDArray:
        """Pixels that pass the cheap checks now, ``rest`` more to follow (exact without packing)."""
        ok = self.free.copy()
        c = self.cons
        lack = self.lacking()
        if lack is not None and int(lack.sum()) > rest:  # every step left must go to a region below its minimum
            ok &= lack[c.labels] > 0
        if self.has_budget and ok.any():
            cost = c.costs[ok]
            if rest >= cost.size:
                return np.zeros_like(ok)
            srt = np.sort(cost)
            s_m = float(srt[:rest].sum())
            s_m1 = s_m + float(srt[rest])
            kth = srt[rest - 1] if rest > 0 else -np.inf
            others = np.where(cost <= kth, s_m1 - cost, s_m)
            ok[ok] = self.spent + cost + others <= c.budget * (1 + _BUDGET_RTOL)
        return ok


def greedy_placement(A: ArrayLike, k: int, *, block: int = 1, constraints: PlacementConstraints | None = None,
                     callback: Callable | None = None, gram: ArrayLike | None = None, shrinkage: float = 0.0,
                     prior: DCTPrior | None = None, prior_rows: ArrayLike | None = None,
                     gram_rtol: float = 0.0) -> tuple[NDArray, NDArray]:
    """Greedy column subset in the n-form (``O(n p)`` per step), under placement constraints.

    With a budget the path is the better (more kept mass; the first on a tie) of two greedy
    paths under the same constraints: the one taking the largest gain at each step and the one
    taking the largest gain per unit cost (see the module docstring).

    Parameters
    ----------
    A : array-like of shape (n_samples, n_pixels * block)
        Centred data (not modified). Pixel ``i`` owns columns ``i * block .. i * block + block - 1``.
    k : int
        Pixels to choose, in ``[1, n_pixels]`` (installed sensors included).
    block : int, default=1
        Channels per pixel.
    constraints : PlacementConstraints, optional
        From :func:`placement_constraints` (validated there). ``None``: no constraint.
    callback : callable, optional
        Called as ``callback(t, total=k)`` after each pixel (of the first path, with a budget).
    gram : array-like, optional
        The smaller Gram matrix, when the caller has it (not modified): ``A^T A`` of shape
        ``(n_pixels * block, n_pixels * block)`` with more images than pixels, else ``A A^T`` of
        shape ``(n_samples, n_samples)``. Computed here when not given.
    shrinkage : float, default=0.0
        ``rho`` in ``[0, 1]``: the greedy runs on the shrunk Gram matrix ``G' = (1 - rho) A^T A +
        rho (n - 1) T`` (``T`` the prior covariance; the objective is then ``trace(G'_{:,S}
        G'_{SS}^{-1} G'_{S,:})``, the kept mass under the shrunk covariance). 0: ``A^T A``.
        Grey pixels only (``block=1``).
    prior : DCTPrior, optional
        ``T``, needed when ``shrinkage > 0`` (:class:`pixsel.stats.DCTPrior`).
    prior_rows : array-like of shape (n_samples, n_pixels), optional
        ``A T`` when the caller has it (``prior.apply(A)``); computed here when not given. It
        may be in single precision (``prior.apply`` of single-precision coefficients): with
        fewer images than pixels the greedy's passes then read a single-precision copy of ``A``
        too (half the memory traffic), which moves the ranking, the masses and the columns by
        about ``1e-6`` relative, as a single-precision ``A A^T`` of :func:`placement_gram` does
        (:func:`kept_mass` of exact columns gives exact masses).
    gram_rtol : float, default=0.0
        The relative accuracy of ``gram`` when it is not exact (the second value of
        :func:`placement_gram`): a residual squared norm below this fraction of the largest
        squared column norm counts as inside the span of the chosen columns (0: the default
        tolerance of an exact Gram matrix, ``1e-10``). The path is then the greedy's on ``gram``
        as given, and so are the returned masses.

    Returns
    -------
    order : ndarray of shape (k,) of int
        The pixels in the order they were chosen (installed sensors first).
    objective : ndarray of shape (k,)
        ``objective[t]``: kept Frobenius mass ``||P_S A||_F^2`` of the first ``t + 1`` pixels.

    Raises
    ------
    ValueError
        If the constraints admit no further pixel before ``k`` are chosen (not after the
        feasibility check of :func:`placement_constraints` passed: see ``_State``).

    See Also
    --------
    refine_placement : the same path, then swaps at ``k``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.1]])
    >>> order, f = greedy_placement(A, 2)
    >>> order.tolist(), np.round(f, 3).tolist()
    ([1, 0], [2.5, 3.0])
    """
    start = _Start(A, k, block, constraints, gram, shrinkage, prior, prior_rows, keep_z=False, gram_rtol=gram_rtol)
    run = _greedy(start, k, callback)
    if _budgeted(constraints, k):  # the better of the plain and the cost-ratio greedy, from one set-up
        alt = _greedy(start, k, None, per_cost=True)
        if alt.total > run.total + _RULE_RTOL * abs(run.total):
            run = alt
    return run.order, run.objective


def _budgeted(cons: PlacementConstraints | None, k: int) -> bool:
    """Whether ``cons`` sets a budget that ``k`` pixels may exceed (then the greedy runs twice: by
    gain, and by gain per cost); a budget above the ``k`` costliest admissible pixels changes nothing."""
    if cons is None or cons.costs is None or not np.isfinite(cons.budget):
        return False
    pool = cons.costs[~cons.never]
    top = float(np.sort(pool)[max(pool.size - int(k), 0):].sum())
    return top > cons.budget * (1 + _BUDGET_RTOL)


@dataclass
class PlacementResult:
    """The outcome of :func:`refine_placement`.

    Attributes
    ----------
    order : ndarray of shape (k,) of int
        The greedy path, as :func:`greedy_placement` returns it.
    objective : ndarray of shape (k,)
        The path's kept mass after each pixel.
    support : ndarray of shape (k,) of int
        The refined ``k`` pixels: the path with every pixel swapped out replaced, in its place,
        by the pixel swapped in (installed sensors stay first).
    support_objective : float
        The kept mass ``||P_S A||_F^2`` of ``support``, never below ``objective[-1]``.
    n_swaps : int
        Swaps taken.
    converged : bool
        True when no admissible single swap raises the kept mass (a 1-swap local optimum under
        the constraints); False when ``max_swaps`` stopped the search, or when it did not run
        (colour pixels, or a path whose pixels are linearly dependent).
    columns : dict or None
        With ``shrinkage > 0``: ``{pixel: (G'[:, pixel], T[:, pixel])}`` for every pixel the
        greedy and the swaps took, the columns of the shrunk Gram matrix and of the prior they
        computed (the covariance columns of a model on them, with no further pass over the
        data); None without shrinkage. With ``prior_rows`` in single precision and fewer
        images than pixels the ``G'`` columns are rounded to about ``1e-6`` relative as well
        (the passes read a single-precision copy of ``A``).
    per_cost : bool
        True when, under a budget, the greedy that ranks pixels by gain per unit cost (then its
        swaps) kept more mass than the greedy by gain and its placement was returned: ``order``
        and ``objective`` are then its path.
    """

    order: np.ndarray
    objective: np.ndarray
    support: np.ndarray
    support_objective: float
    n_swaps: int
    converged: bool
    columns: dict | None = None
    per_cost: bool = False


def refine_placement(A: ArrayLike, k: int, *, block: int = 1, constraints: PlacementConstraints | None = None,
                     max_swaps: int = MAX_SWAP_SWEEPS, callback: Callable | None = None,
                     gram: ArrayLike | None = None, shrinkage: float = 0.0, prior: DCTPrior | None = None,
                     prior_rows: ArrayLike | None = None, gram_rtol: float = 0.0) -> PlacementResult:
    """The greedy placement, then swaps at ``k``: one placed pixel out, one other in, while the kept mass rises.

    A greedy path is nested, so its ``k`` pixels can miss sets that no sequence of single
    additions reaches. From the path's ``k`` pixels ``S`` every admissible swap ``S - i + j`` is
    valued in closed form from the greedy's own factorization, no refit: with ``q_i`` the unit
    vector of ``span(A_S)`` orthogonal to the other chosen columns (``A_S (A_S^T A_S)^{-1} e_i``,
    normalised), ``h_i = A^T q_i`` and ``z_i = A^T (I - P_S) A h_i``, dropping ``i`` loses
    ``||h_i||^2`` and then adding ``j`` gains ``(u_j + 2 h_ij z_ij + h_ij^2 ||h_i||^2) /
    (d_j + h_ij^2)``, with the residual norms ``d_j`` and gains' numerators ``u_j`` of the
    greedy (see the module docstring). The placed pixels are visited in turn: every
    replacement of one pixel is valued in ``O(p)`` (``h_i`` and ``z_i`` of every placed pixel are
    kept up to date by low-rank updates, ``O(p k)`` per swap), and the best is taken when it
    raises the kept mass, as a rank-one downdate (a Householder reflection of the factors) and
    one greedy step; the search stops once no placed pixel has an improving replacement (a
    1-swap local optimum) or after ``max_swaps`` swaps.

    Swaps respect every constraint: installed sensors never leave, excluded pixels never enter,
    region maxima and minima, the minimum distance and the budget hold after each swap. With a
    budget the swaps run from both greedy paths of :func:`greedy_placement` (by gain, and by
    gain per unit cost: one costly pixel taken first can leave only cheap, poor ones that no
    single swap within the budget replaces) and the placement that keeps more mass is returned.

    Parameters
    ----------
    A, k, block, constraints, callback, gram, shrinkage, prior, prior_rows, gram_rtol
        As :func:`greedy_placement` (with ``shrinkage`` the swaps raise the kept mass under the
        shrunk Gram matrix).
    max_swaps : int, default=100
        Swaps allowed (0: the greedy placement alone).

    Returns
    -------
    PlacementResult

    Notes
    -----
    The swaps run on grey pixels (``block=1``) whose chosen columns are linearly independent;
    otherwise the greedy placement is returned with ``converged=False``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.0, 2.0, 1.0], [2.0, 2.0, -2.0, -2.0], [0.0, 0.0, 0.0, 1.0]])
    >>> res = refine_placement(A, 2)
    >>> res.order.tolist(), round(float(res.objective[-1]), 3)  # the greedy path: pixel 3, then 0
    ([3, 0], 21.095)
    >>> res.support.tolist(), round(res.support_objective, 3), res.n_swaps  # 3 swapped for 1
    ([1, 0], 22.0, 1)
    """
    if isinstance(max_swaps, bool) or not isinstance(max_swaps, numbers.Integral) or max_swaps < 0:
        raise ValueError(f"refine_placement: max_swaps must be an int >= 0; got {max_swaps!r}.")
    best, per_cost = None, False
    start = _Start(A, k, block, constraints, gram, shrinkage, prior, prior_rows, keep_z=max_swaps > 0,
                   gram_rtol=gram_rtol)
    for rule in (False, True) if _budgeted(constraints, k) else (False,):  # both paths from one set-up
        run = _greedy(start, k, None if rule else callback, keep_z=max_swaps > 0, per_cost=rule)
        found = (run, *_swaps(run, int(max_swaps)))
        if best is None or found[2] > best[2] + _RULE_RTOL * abs(best[2]):
            best, per_cost = found, rule
    run, support, value, n_swaps, converged = best
    columns = run.basis.columns if run.basis.op is not None else None
    return PlacementResult(run.order, run.objective, support, value, n_swaps, converged, columns, per_cost)


#: Features from which :func:`placement_gram` accumulates ``A^T A`` in single precision.
SINGLE_GRAM_MIN_FEATURES = 512
#: The least relative accuracy :func:`placement_gram` gives with a single-precision Gram matrix
#: (the residual floor of the greedy on it): ``max(SINGLE_GRAM_RTOL, 4 sqrt(n) u)``, ``u``
#: single precision's unit roundoff ``6e-8``, far above the rounding of sums of ``n`` products (a few
#: ``1e-7`` of the largest squared norm measured at ``n = 600-2000``) and far below the residual of
#: a pixel that still adds to the kept mass.
SINGLE_GRAM_RTOL = 1e-5
#: Largest and smallest magnitude of data squared in single precision without scaling it first.
_SINGLE_RANGE = (1e-12, 1e12)


def placement_gram(A: ArrayLike, *, outer: bool = False) -> tuple[NDArray, float]:
    """``A^T A`` for the greedy placement and its swaps to rank pixels with, and its relative accuracy.

    With more images than pixels the greedy's first cost is the ``p x p`` Gram matrix, ``n p^2 / 2``
    multiply-adds, more than the greedy steps and the swaps together at ``k`` up to a few hundred.
    Ranking pixels does not need it to sixteen digits: from ``SINGLE_GRAM_MIN_FEATURES`` (512)
    features it is accumulated in single precision (the same product at twice the speed), returned
    in double precision with its relative accuracy (``1e-5``, or ``4 sqrt(n)`` times single
    precision's unit roundoff ``6e-8`` past 1,700 images), which the caller passes on as
    ``gram_rtol`` to :func:`greedy_placement` or :func:`refine_placement`.
    The placement is then the greedy's on this matrix; its kept masses and any model of the chosen
    pixels should be computed from exact columns (``A^T A[:, S]``, ``n p k`` multiply-adds, and
    :func:`kept_mass`). Fewer features, or no more images than pixels (where the greedy works on
    ``A`` and the caller forms ``A A^T``): the exact ``A^T A`` and 0.

    With ``outer=True`` it is the other Gram matrix, ``A A^T`` (``n x n``), which the greedy ranks
    on with fewer images than pixels: from ``SINGLE_GRAM_MIN_FEATURES`` features it is accumulated
    in single precision as well. The greedy's residual norms and kept masses read ``A`` itself
    there, so the rounding moves only the ranking's numerators (and, with shrinkage, the
    directions by the same relative amount: :func:`kept_mass` gives the exact masses). Its
    error is relative to the largest numerator, and late in a path on the sample covariance of
    correlated images the numerators left are small: on faces the path then moved after tens of
    steps. ``PixelReconstructor`` takes it only with a shrunk covariance that weighs the prior at
    least as much as the sample covariance, where the paths were the exact ones.

    Parameters
    ----------
    A : array-like of shape (n_samples, n_features)
        Centred data (not modified).
    outer : bool, default=False
        Return ``A A^T`` (with fewer images than pixels) instead of ``A^T A``.

    Returns
    -------
    gram : ndarray of shape (n_features, n_features), or (n_samples, n_samples) with ``outer``
        ``A^T A`` (``A A^T``), float64; its diagonal (the squared norms) is exact either way.
    rtol : float
        0.0 when ``gram`` is exact, else its accuracy relative to the largest squared norm.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).standard_normal((700, 600))
    >>> G, rtol = placement_gram(A)
    >>> rtol, bool(np.abs(G - A.T @ A).max() <= 1e-5 * np.abs(A.T @ A).max())
    (1e-05, True)
    >>> placement_gram(A[:, :10])[1]   # few features: exact
    0.0
    >>> M, rtol = placement_gram(A[:500], outer=True)   # 500 images of 600 pixels: A A^T
    >>> M.shape, rtol, bool(np.abs(M - A[:500] @ A[:500].T).max() <= 1e-5 * np.abs(M).max())
    ((500, 500), 1e-05, True)
    """
    A = np.asarray(A, dtype=np.float64)
    n, p = A.shape
    if p < SINGLE_GRAM_MIN_FEATURES or (n <= p) != bool(outer):
        return (A @ A.T if outer else A.T @ A), 0.0
    # the exact diagonal, and the data's range: max |a_ij| <= sqrt(max sq)
    sq = np.einsum("ij,ij->i" if outer else "ij,ij->j", A, A)
    m = sq.size
    top = float(np.sqrt(np.max(sq)))
    if top == 0.0:
        return np.zeros((m, m)), 0.0
    lo, hi = _SINGLE_RANGE
    scale = 1.0 if lo <= top <= hi else top  # squares and their sums inside single precision's range
    A32 = A.astype(np.float32) if scale == 1.0 else (A * (1.0 / scale)).astype(np.float32)
    G = (A32 @ A32.T if outer else A32.T @ A32).astype(np.float64)  # one SYRK in single precision
    if scale != 1.0:
        G *= scale * scale
    np.fill_diagonal(G, sq)
    terms = p if outer else n  # the products each entry sums
    return G, float(max(SINGLE_GRAM_RTOL, 4.0 * np.sqrt(terms) * float(np.finfo(np.float32).epsneg)))


def kept_mass(columns: ArrayLike, features: ArrayLike) -> NDArray:
    """The kept mass ``||P_S A||_F^2`` of every prefix ``S`` of ``features``, from their Gram columns.

    Parameters
    ----------
    columns : array-like of shape (n_features, m)
        ``G[:, features]`` for a Gram matrix ``G`` (``A^T A``, or the shrunk Gram matrix of
        :func:`greedy_placement` with ``shrinkage``).
    features : array-like of shape (m,) of int
        The chosen features in order.

    Returns
    -------
    mass : ndarray of shape (m,)
        ``mass[t] = trace(G_{:,S} G_SS^{-1} G_{S,:})`` for the first ``t + 1`` features (a feature
        whose residual is below ``1e-10`` of the largest of their squared norms adds nothing, as in
        the greedy); ``O(p m^2)``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.1]])
    >>> G = A.T @ A
    >>> np.round(kept_mass(G[:, [1, 0]], [1, 0]), 3).tolist()   # as greedy_placement(A, 2)
    [2.5, 3.0]
    """
    C = np.asarray(columns, dtype=np.float64)
    idx = np.asarray(features, dtype=np.intp)
    m = idx.size
    W = np.zeros((m, C.shape[0]))  # row t: w_t = A^T q_t, the direction the t-th feature adds
    out = np.empty(m)
    diag = C[idx, np.arange(m)]
    floor = _RESIDUAL_RTOL * max(float(np.max(diag, initial=0.0)), np.finfo(float).tiny)
    total = 0.0
    for t in range(m):
        e = C[:, t] - W[:t].T @ W[:t, idx[t]]  # the residual Gram matrix's column
        d = float(e[idx[t]])
        if d > floor:
            W[t] = e / np.sqrt(d)
            total += float(W[t] @ W[t])
        out[t] = total
    return out


#: A swap is taken only when it raises the kept mass by more than this fraction (rounding of the
#: closed-form values), so the search cannot cycle.
_SWAP_RTOL = 1e-9
#: Swaps between two recomputations of the swap state from the factors (rounding of its updates).
_REFRESH = 32
#: Largest drift of the updated ``Z = K^T Y`` on a probe vector, relative to its bound, before it
#: is recomputed from the factors.
_PROBE_RTOL = 1e-10


class _Basis:
    """The span of the chosen columns as the greedy and the swaps update it.

    ``F`` (``p x t``) holds ``w = A^T q`` for orthonormal directions ``q`` of the span, so the
    residual Gram matrix is ``G - F F^T``; with fewer images than pixels ``Q`` holds the ``q``.
    """

    def __init__(self, A, gram, n_dirs, op=None):
        n, p = A.shape
        self.A_shape = (n, p)
        self.op = op
        self.gram_form = n > p or op is not None
        if op is not None:  # the shrunk Gram matrix, applied by the operator: full rank
            self.limit = p
            self.B = A
            # kept with F (see _empty): A F (without an explicit A^T A: A w from n-vectors, no pass
            # over A), (G' F)^T (F^T E_{:,i} from its column i, no pass over F), F^T F, and
            # columns: pixel -> (G'[:, pixel], T[:, pixel]) of every column added
        elif self.gram_form:
            self.G = A.T @ A if gram is None else np.asarray(gram, dtype=np.float64)
            self.limit = p
        else:
            self.B = A
            self.M0 = A @ A.T if gram is None else np.asarray(gram, dtype=np.float64)
            self.limit = n
        self.n_dirs = min(self.limit, n_dirs)
        self._empty()

    def _empty(self):
        """The directions' arrays, with no direction yet."""
        n, p = self.A_shape
        n_dirs = self.n_dirs
        if self.op is not None:
            if not self.op.explicit:
                self.AF = np.empty((n, n_dirs))
            self.GFt = np.empty((n_dirs, p))
            self.FtF = np.empty((n_dirs, n_dirs))
            self.columns = {}
        if not self.gram_form:
            self.Q = np.empty((n, n_dirs))
        # column-major: each direction's w contiguous, and F^T (a row-major t x p block) read by the
        # products with F as the data are, one p-row per direction
        self.F = np.empty((p, n_dirs), order="F")
        self.rank = 0
        self.Ftw = None

    def fresh(self) -> _Basis:
        """A basis with no direction that shares this one's operator (``G``, ``A A^T`` or the shrunk
        Gram matrix: read only), for another path from the same set-up."""
        new = object.__new__(_Basis)
        new.__dict__.update(self.__dict__)
        new._empty()
        return new

    def add(self, col, floor):
        """Add column ``col``'s residual direction: ``(w, z, ||w||^2)`` with ``w = A^T q``,
        ``z = A^T (I - Q Q^T) A A^T q``, or None when its residual is at or below ``floor``.
        Keeps ``Ftw = F^T w`` (the earlier directions), or None where it is not formed."""
        r = self.rank
        F = self.F[:, :r]
        op = self.op
        self.Ftw = None
        if op is not None:  # the shrunk Gram matrix G' = a A^T A + b T
            if not op.explicit:  # through A: one pass over it
                ai = self.B[:, col]
                Ae = op.a * _symv(op.gram, ai) + op.b * op.prior_rows[:, col]  # A e, e = G'_{:,col} - F F_col
                if r:
                    Ae -= self.AF[:, :r] @ F[col]
                P = _rows_times(np.stack([ai, Ae]), op.rows)  # A^T a_col and A^T A e
                t = op.prior.column(col)
                g = op.a * P[0] + op.b * t
            else:
                t = op.prior.column(col)
                g = op.a * op.gram[col] + op.b * t
            self.columns.setdefault(int(col), (g, t))
            nr2 = float(g[col] - F[col] @ F[col]) if r else float(g[col])
            if nr2 <= floor or r >= self.limit:
                return None
            s = np.sqrt(nr2)
            if r:  # F^T w = ((G' F)_col - F^T F F_col) / s, then F F_col and F F^T w in one product
                ftw = (self.GFt[:r, col] - self.FtF[:r, :r] @ F[col]) / s
                FV = np.stack([F[col], ftw]) @ F.T  # rows F F_col and F F^T w, F^T read row by row
                w = (g - FV[0]) / s
            else:
                w = g / s
            if not op.explicit:
                gw = op.a * (P[1] / s) + op.b * op.prior.matvec(w)  # G' w
                self.AF[:, r] = Ae / s
            else:
                gw = op.matvec(w)
            z = gw - FV[1] if r else gw.copy()
            self.GFt[r] = gw
            qv = float(w @ w)
            if r:
                self.FtF[:r, r] = ftw
                self.FtF[r, :r] = ftw
                self.Ftw = ftw
            self.FtF[r, r] = qv
            self.F[:, r] = w
            self.rank = r + 1
            return w, z, qv
        elif self.gram_form:  # w = E_{:,col} / sqrt(E_col,col), z = E w: one pass over G
            g = op.column(col) if op is not None else self.G[col]
            e = g - F @ F[col] if r else g.copy()
            nr2 = float(e[col])
            if nr2 <= floor or r >= self.limit:
                return None
            w = e / np.sqrt(nr2)
            z = op.matvec(w) if op is not None else _symv(self.G, w)
            if r:
                self.Ftw = F.T @ w
                z -= F @ self.Ftw
        else:
            Q = self.Q[:, :r]
            x = self.B[:, col].copy()
            if r:
                for _ in range(2):  # classical Gram-Schmidt, twice
                    x -= Q @ (Q.T @ x)
            nr2 = float(x @ x)
            if nr2 <= floor or r >= self.limit:
                return None
            q = x / np.sqrt(nr2)
            v = _symv(self.M0, q)
            if r:
                self.Ftw = Q.T @ v  # Q^T A A^T q = F^T w
                v -= Q @ self.Ftw
            w, z = _rows_times(np.stack([q, v]), self.B)  # one pass over the data
            self.Q[:, r] = q
        self.F[:, r] = w
        self.rank = r + 1
        return w, z, float(w @ w)

    def residual_products(self):
        """``K = F^T E`` (``t x p``), ``E = A^T (I - Q Q^T) A`` the residual Gram matrix."""
        F = self.F[:, :self.rank]
        if self.op is not None:
            r = self.rank
            return self.GFt[:r] - self.FtF[:r, :r] @ F.T
        if self.gram_form:
            return F.T @ self.G - (F.T @ F) @ F.T
        Q = self.Q[:, :self.rank]
        V = self.B @ F  # A A^T Q
        V -= Q @ (Q.T @ V)
        return V.T @ self.B

    def residual_apply(self, x):
        """``E x`` (``E`` the residual Gram matrix), or None with a shrunk Gram matrix."""
        if self.op is not None:
            return None
        F = self.F[:, :self.rank]
        if self.gram_form:
            return self.G @ x - F @ (F.T @ x)
        Q = self.Q[:, :self.rank]
        v = self.B @ x
        v -= Q @ (Q.T @ v)
        return v @ self.B

    def remove(self, y, Fy=None):
        """Drop the direction ``Q y`` (``y`` a unit vector): the Householder reflection
        ``R = I - v v^T`` of the directions takes it to the last one, which is then discarded;
        returns ``v``. ``Fy``: ``F y`` when the caller has it (``F v`` then needs no pass over ``F``)."""
        r = self.rank
        v, a, s = _reflector(y)
        mats = (self.F,) if self.gram_form else (self.F, self.Q)
        if self.op is not None:  # G' F and A F turn with F: (G' F)^T -> R (G' F)^T, F^T F -> R F^T F R
            mats = (self.F,) if self.op.explicit else (self.F, self.AF)
            for Xr in (self.FtF[:r, :r], self.GFt[:r]):
                _ger(Xr, v, v @ Xr, -1.0)
            Xr = self.FtF[:r, :r]
            _ger(Xr, Xr @ v, v, -1.0)
        for X in mats:
            Xr = X[:, :r]
            Xv = a * (Fy + s * Xr[:, r - 1]) if X is self.F and Fy is not None else Xr @ v
            _ger(Xr, Xv, v, -1.0)
        self.rank = r - 1
        return v


def _reflector(y):
    """The Householder vector ``v = a (y + s e_last)`` of ``R = I - v v^T``, ``R y = -s e_last``:
    ``(v, a, s)``."""
    s = 1.0 if y[-1] >= 0 else -1.0
    a = np.sqrt(2.0 / (float(y @ y) + 2.0 * abs(float(y[-1])) + 1.0))
    v = y * a
    v[-1] += s * a
    return v, a, s


@dataclass
class _Run:
    order: np.ndarray
    objective: np.ndarray
    D: np.ndarray
    U: np.ndarray
    basis: _Basis
    floor: float
    total: float
    cons: PlacementConstraints
    block: int
    #: ``z = E w`` of each direction as it joined (``E`` the residual Gram matrix before it), in
    #: the order of ``basis.F``'s columns; only when asked for, grey pixels only, else None
    Z: np.ndarray | None = None


class _Start:
    """What a greedy path starts from that does not depend on its ranking rule: the operator (the
    shrunk Gram matrix, the Gram matrix or ``A A^T``, held by a template :class:`_Basis` with no
    direction yet), the initial ``D`` and ``U`` (with the pending bounds of ``U``) and the floor.

    Under a budget both greedy paths start from one set-up: :meth:`path` hands each its own copies
    of the mutable state. A numerator the first path made exact stays exact in the set-up (the
    initial ``U`` and the pending bounds' state are updated with it), so the second path starts
    from the more exact state and does not make it exact again.
    """

    def __init__(self, A, k, block, constraints, gram, shrinkage, prior, prior_rows, keep_z, gram_rtol=0.0):
        A = np.asarray(A, dtype=np.float64)
        c, k = int(block), int(k)
        L = A.shape[1] // c
        self.A, self.c, self.L = A, c, L
        self.cons = constraints if constraints is not None else placement_constraints(L, k)
        needs_packing = _State(self.cons).needs_packing
        op = _shrunk_gram(A, c, gram, shrinkage, prior, prior_rows)
        self.basis = _Basis(A, gram, k * c, op)
        basis = self.basis

        # Initial D_J = A_J^T A_J and U_J = A_J^T (A A^T) A_J, blocks of shape (L, c, c).
        self.pending = None  # numerators known only within bounds until they could win (see _PendingSq)
        if op is not None:  # the shrunk Gram matrix G': its diagonal and squared column norms
            D = op.diag().reshape(L, 1, 1)
            if keep_z or needs_packing or not op.bounded(k):
                # the swaps read every numerator and the packing ranks them all: exact from the start there
                U = op.column_sq().reshape(L, 1, 1)
            else:
                U, self.pending = op.column_sq_bounds()
                U = U.reshape(L, 1, 1)
        elif not basis.gram_form:  # n <= p: work on A, with M0 = A A^T (n x n)
            B3 = A.reshape(A.shape[0], L, c)
            D = np.einsum("nlc,nld->lcd", B3, B3)
            Y3 = _outer_root(A, basis.M0).reshape(A.shape[0], L, c)  # Y^T Y = A^T M0 A
            U = np.einsum("nlc,nld->lcd", Y3, Y3)
            del Y3
        else:  # n > p: the Gram matrix G = A^T A (the greedy depends on G only)
            G = basis.G
            G3 = G.reshape(G.shape[0], L, c)
            D = _diag_blocks(G, L, c)
            U = np.einsum("nlc,nld->lcd", G3, G3)
            del G3
        self.D, self.U = D, U
        if self.pending is not None:
            self.pending.start = U[:, 0, 0]  # a view: the exact values found along a path land in U too
        self.floor = max(_RESIDUAL_RTOL, float(gram_rtol)) * max(float(np.max(np.einsum("lcc->lc", D), initial=0.0)), np.finfo(float).tiny)

    def path(self):
        """A path's own mutable state: ``(basis, D, U, pending)``, copies of the set-up's."""
        pending = None if self.pending is None else self.pending.copy()
        return self.basis.fresh(), self.D.copy(), self.U.copy(), pending


def _greedy(start: _Start, k, callback, keep_z=False, per_cost=False) -> _Run:
    """The greedy path of :func:`greedy_placement` from the set-up ``start`` (not changed, but for
    the numerators the path makes exact), with the state the swaps continue from (``keep_z``: each
    step's ``z = E w`` too, which the swaps start from). ``per_cost``: each step ranks the
    admissible pixels by gain per unit cost (a pixel of zero cost before any that costs, by its
    gain) instead of by gain; the same pixels are admissible."""
    c, L, cons, floor = start.c, start.L, start.cons, start.floor
    k = int(k)
    state = _State(cons)
    basis, D, U, pending = start.path()
    order = np.empty(k, dtype=np.intp)
    objective = np.empty(k)
    total = 0.0
    forced = [int(i) for i in cons.always]
    Zs = np.empty_like(basis.F) if keep_z and c == 1 else None
    per = free = None
    if per_cost and cons.costs is not None:  # gain per cost; pixels that cost nothing rank first, by gain
        free = cons.costs <= 0
        per = 1.0 / np.where(free, 1.0, cons.costs)
    for t in range(k):
        if t < len(forced):
            i = forced[t]
        else:
            ok = state.candidates(k - t - 1)
            if not ok.any():
                raise ValueError(f"the constraints admit no further pixel after {t} of k={k} were chosen: "
                                 "lower k or min_distance, or raise max_per_region or the budget.")
            gain, live = _gains(D, U, floor, c)
            if pending is not None:  # exact numerators wherever a pixel could still be the one ranked first
                cand = ok & live
                if per is None:
                    pending.settle(gain, cand, D[:, 0, 0], U[:, 0, 0])
                elif (cand & free).any():  # a pixel of no cost is taken first, by gain
                    pending.settle(gain, cand & free, D[:, 0, 0], U[:, 0, 0])
                else:
                    pending.settle(gain, cand, D[:, 0, 0], U[:, 0, 0], per)
            g = np.where(ok & live, gain, -np.inf)  # in the span: after every live pixel, lowest index first
            first = None
            if per is not None:
                first = free & np.isfinite(g)  # admissible live pixels of no cost: before the others
                g = np.where(free, g, g * per)
            if not state.needs_packing:
                pick = np.where(first, g, -np.inf) if first is not None and first.any() else g
                i = int(np.argmax(pick)) if np.isfinite(pick).any() else int(np.argmax(ok))  # ties: lowest index
            else:
                ranked = np.flatnonzero(ok)
                if first is None:
                    ranked = ranked[np.argsort(-g[ranked], kind="stable")]
                else:  # lexsort is stable: ties keep the lowest index
                    ranked = ranked[np.lexsort((-g[ranked], ~first[ranked]))]
                i = next((int(j) for j in ranked if state.completes_after(int(j), k - t - 1)), None)
                if i is None:
                    raise ValueError(f"the constraints admit no further pixel after {t} of k={k} were chosen: "
                                     "lower k or min_distance, or raise max_per_region or the budget.")
        state.take(i)
        order[t] = i
        for col in range(i * c, i * c + c):
            step = basis.add(col, floor)
            if step is None:
                continue
            w, z, qv = step  # qv = ||A^T q||^2, the kept mass the direction adds
            if Zs is not None:
                Zs[:, basis.rank - 1] = z
            _downdate(D, U, w, z, qv, L, c)
            total += qv
        objective[t] = total
        if callback is not None:
            callback(t + 1, total=k)
    return _Run(order, objective, D, U, basis, floor, total, cons, c, Zs)


def _shrunk_gram(A, block, gram, shrinkage, prior, prior_rows):
    """The operator of ``G' = (1 - rho) A^T A + rho (n - 1) T``, or None for ``rho = 0``."""
    rho = float(shrinkage)
    if not 0.0 <= rho <= 1.0:
        raise ValueError(f"shrinkage must be in [0, 1]; got {shrinkage!r}.")
    if rho == 0.0:
        return None
    if prior is None:
        raise ValueError("shrinkage > 0 needs the prior covariance (prior=DCTPrior(...)).")
    if int(block) != 1:
        raise ValueError("shrinkage towards a prior places grey pixels (block=1); the data has "
                         f"{block} channels per pixel.")
    if prior.p != A.shape[1]:
        raise ValueError(f"the prior is on {prior.p} pixels; A has {A.shape[1]} columns.")
    return _ShrunkGram(A, gram, rho, prior, prior_rows)


class _ShrunkGram:
    """``G' = a A^T A + b T`` (``a = 1 - rho``, ``b = rho (n - 1)``) by its products.

    ``A^T A`` is the caller's Gram matrix with more images than pixels, else applied through
    ``A`` (``O(n p)`` per product); ``T`` through its transforms (``O(p log p)``).
    """

    def __init__(self, A, gram, rho, prior, prior_rows):
        n, p = A.shape
        self.A, self.prior = A, prior
        self.a, self.b = 1.0 - rho, rho * (n - 1)
        self.explicit = n > p
        if gram is not None:
            self.gram = np.asarray(gram, dtype=np.float64)
        else:  # A^T A with more images than pixels, else A A^T
            self.gram = A.T @ A if self.explicit else A @ A.T
        # A T: the caller's may be in single precision; with fewer images than pixels the passes
        # over A then read a single-precision copy of it as well (half the memory traffic)
        rows = prior.apply(A) if prior_rows is None else np.asarray(prior_rows)
        self.prior_rows = rows if rows.dtype in (np.float64, np.float32) else rows.astype(np.float64)
        self.single = self.prior_rows.dtype == np.float32 and not self.explicit
        self.rows = A.astype(np.float32) if self.single else A  # the data the steps' passes read
        self._col_sq = None

    def column(self, i):
        """``G'[:, i]`` (with more images than pixels)."""
        return self.a * self.gram[i] + self.b * self.prior.column(i)

    def matvec(self, w):
        """``G' w`` (with more images than pixels)."""
        return self.a * (self.gram @ w) + self.b * self.prior.matvec(w)

    def col_sq(self):
        """``||a_j||^2`` of every column of ``A`` (one pass over it, read once for the diagonal and the bounds)."""
        if self._col_sq is None:
            self._col_sq = np.einsum("ij,ij->j", self.A, self.A)
        return self._col_sq

    def diag(self):
        return self.a * self.col_sq() + self.b * self.prior.diag()

    def column_sq(self):
        """``||G'_{:,j}||^2 = a^2 ||G_j||^2 + 2 a b (G T)_jj + b^2 (T^2)_jj``, with ``(G T)_jj =
        sum_m A_mj (A T)_mj`` and ``||G_j||^2 = ||(L^T A)_j||^2`` (``A A^T = L L^T``)."""
        if self.explicit:
            g2 = np.einsum("ij,ij->j", self.gram, self.gram)
        else:
            Y = _outer_root(self.rows, self.gram)  # in single precision with a single-precision copy
            g2 = np.einsum("ij,ij->j", Y, Y)
            del Y
        return self._shrunk_sq(g2)

    def _shrunk_sq(self, g2):
        """``a^2 g2 + 2 a b (G T)_jj + b^2 (T^2)_jj``: ``||G'_{:,j}||^2`` from ``g2`` in place of
        ``||G_j||^2`` (its exact values, or bounds of them)."""
        cross = np.einsum("ij,ij->j", self.rows, self.prior_rows)  # in single precision with single rows
        return self.a * self.a * g2 + 2.0 * self.a * self.b * cross + self.b * self.b * self.prior.diag_sq()

    def bounded(self, k):
        """Whether :meth:`column_sq_bounds` pays for a path of ``k`` steps: fewer images than pixels,
        enough images that ``n^2 p`` is worth saving, and few steps (each makes some numerators
        exact, ``n^2`` each: about ten per step on textures, so past ``p / 64`` steps the exact
        start costs less). The same with a single-precision copy of the data, whose exact start
        costs half as much: ``bench_sensors`` on the textures (400 images of 64x64) took as long
        or longer at k = 10-50 with it (59-60 against 53 ms at k = 10, 68-71 against 61 at
        k = 20)."""
        n, p = self.A.shape
        return not self.explicit and n >= _BOUND_MIN_SAMPLES and p > n and k <= p * _BOUND_MAX_STEPS

    def column_sq_bounds(self):
        """Lower values of :meth:`column_sq` and the :class:`_PendingSq` that makes any of them exact.

        ``||G_j||^2 = a_j^T M a_j`` (``M = A A^T``) enters with weight ``a^2``; it is bounded by
        :func:`_quadratic_bounds` for ``2 s n p`` multiply-adds instead of ``n^2 p / 2``.
        """
        A = self.A
        d = self.col_sq()
        lo, hi = _quadratic_bounds(self.gram, A, d, rows=self.rows if self.single else None)
        weight = self.a * self.a
        return self._shrunk_sq(lo), _PendingSq(A, self.gram, lo, weight * (hi - lo), weight)


#: Directions of the bounds of :func:`_quadratic_bounds` (more of them narrow the bounds, so fewer
#: numerators are made exact, for ``2 n p`` more multiply-adds each) and the subspace iterations
#: that turn them towards the top eigenvectors of ``A A^T``.
_BOUND_DIRS, _BOUND_ITERS = 16, 2
#: Fewest images for the bounds: their product ``2 s n p`` is then at most a quarter of the exact
#: start's ``n^2 p / 2`` (below, the bounds would save little or nothing).
_BOUND_MIN_SAMPLES = 8 * _BOUND_DIRS
#: Most steps for the bounds, as a fraction of the pixels (see :meth:`_ShrunkGram.bounded`).
_BOUND_MAX_STEPS = 1 / 64
#: Once this fraction of the numerators has been made exact one by one, the rest are made exact
#: at once (a triangular product, half the multiply-adds of one at a time).
_SETTLE_ALL = 1 / 4
#: Margin of those bounds, relative to ``||M||_F ||a_j||^2`` (at least the largest ``a_j^T M a_j``
#: can be): covers the rounding of the products and sums, ``O(n eps)``.
_BOUND_SLACK = 1e-10


def _quadratic_bounds(M, A, d, s=_BOUND_DIRS, iters=_BOUND_ITERS, rows=None):
    """``lo <= a_j^T M a_j <= hi`` for every column ``a_j`` of ``A`` (``M`` positive semidefinite,
    ``d_j = ||a_j||^2``), from ``s`` orthonormal directions ``V`` close to the top eigenvectors of ``M``.

    ``V``: the columns of ``M`` with the largest diagonal, ``iters`` subspace iterations, then the
    Ritz vectors (``V^T M V = diag(theta)``, ``R = M V - V diag(theta)``). With ``c = V^T a`` and
    ``e = a - V c`` (orthogonal to ``V``), ``a^T M a = c^T diag(theta) c + 2 c^T R^T a + e^T M e``
    exactly (``V^T M e = R^T a``), and ``0 <= e^T M e <= lam ||e||^2`` with ``lam`` the largest
    eigenvalue of ``B = P M P`` (``P = I - V V^T``), bounded by ``||B^2||_F^{1/2}`` (``B``
    positive semidefinite: ``lam^4 <= trace(B^4)``). Any ``V`` gives valid bounds; one close to
    the top eigenvectors gives narrow ones (``lam`` near the ``(s+1)``-th eigenvalue). Cost: ``2 s
    n p`` for ``[V R]^T A`` and ``O(n^3 / 2)`` for ``B^2``.

    ``rows``: a single-precision copy of ``A``. The two products then run in single precision
    (half the time), and the bounds widen by their rounding errors' bounds. Entry ``m`` of
    ``Z^T a`` (``Z = [V R]``) is off by at most ``eps ||z_m|| ||a||``, with ``eps = (n + 3) u``
    (``u`` single precision's unit roundoff: both factors rounded, then sums of ``n``
    products). That error passes through ``mid`` and the rest's squared norm to first and
    second order. ``||B^2||_F`` is off by at most ``((n + 3) u) ||B||_F^2``.
    """
    n = M.shape[0]
    s = min(int(s), n)
    idx = np.argsort(-np.diagonal(M), kind="stable")[:s]
    Y = M[:, idx]
    for _ in range(int(iters)):
        Y = M @ np.linalg.qr(Y)[0]
    V = np.linalg.qr(Y)[0]
    W = M @ V
    theta, Z = np.linalg.eigh(0.5 * (V.T @ W + W.T @ V))
    V, W = V @ Z, W @ Z
    R = W - V * theta
    # B = M - V W^T - W V^T + V diag(theta) V^T = M - X V^T - V X^T with X = W - V diag(theta) / 2
    X = W - 0.5 * V * theta
    B = M - X @ V.T
    B -= V @ X.T
    Z = np.concatenate([V, R], axis=1)
    if rows is None:
        lam = float(np.sqrt(np.linalg.norm(B @ B.T)))  # B symmetric: B B^T = B^2 (one symmetric product)
        CR = Z.T @ A  # c_j and R^T a_j of every column
    else:
        eps = (n + 3) * float(np.finfo(np.float32).eps) / 2
        eps /= 1.0 - eps
        B32 = B.astype(np.float32)
        P = B32 @ B32.T
        sq = float(np.einsum("ij,ij->", P, P, dtype=np.float64))
        lam = float(np.sqrt(np.sqrt(sq) + eps * float(np.einsum("ij,ij->", B, B))))
        CR = (Z.T.astype(np.float32) @ rows).astype(np.float64)
    C = CR[:s]
    mid = np.einsum("m,mj,mj->j", theta, C, C) + 2.0 * np.einsum("mj,mj->j", C, CR[s:])
    rest = np.maximum(d - np.einsum("mj,mj->j", C, C), 0.0)
    slack = _BOUND_SLACK * float(np.linalg.norm(M)) * d
    if rows is not None:  # the single-precision products' rounding, to first and second order
        root = np.sqrt(d)
        rn = np.linalg.norm(R, axis=0)  # ||r_m|| (||v_m|| = 1)
        absC = np.abs(C)
        first = 2.0 * (np.abs(theta) @ absC + np.abs(CR[s:]).sum(axis=0) + rn @ absC)
        second = float(np.abs(theta).sum() + 2.0 * rn.sum())
        slack = slack + eps * root * first + (eps * eps) * d * second
        rest = rest + 2.0 * eps * root * absC.sum(axis=0) + s * (eps * eps) * d
    return np.maximum(mid - slack, 0.0), mid + lam * rest + slack


class _PendingSq:
    """The ``a^2 ||G_j||^2`` part of the first-step numerators ``U`` while only bounded.

    ``U`` holds the lower bound; ``width`` the distance to the upper one (0 once exact). The
    greedy's later updates of ``U`` add terms that do not depend on it, so a bound stays a bound
    of the same width, and the exact value is the lower one plus ``a^2 (g2_j - lo_j)`` at any step.
    """

    def __init__(self, A, M, lo, width, weight):
        self.A, self.M = A, M
        self.lo, self.width, self.weight = lo, width, weight
        self.pending = np.ones(lo.size, dtype=bool)
        self.done = 0  # numerators made exact (not pending)
        #: the initial numerators (a view into the set-up's ``U``, see :class:`_Start`) and the
        #: set-up's own bounds: a value a path makes exact is made exact there too, for the paths
        #: that start later (they copy it: :meth:`copy`); None: no set-up to record in
        self.start = self.root = None

    def copy(self) -> _PendingSq:
        """The same bounds with their own state, recording what it makes exact in this one's (see
        ``start``)."""
        new = object.__new__(_PendingSq)
        new.__dict__.update(self.__dict__)
        new.width, new.pending = self.width.copy(), self.pending.copy()
        new.start = new.root = None
        if self.start is not None:
            new.root = self
        return new

    def settle(self, gain, cand, d, u, scale=None):
        """Make ``u`` (and ``gain = u / d``, in place) exact at every candidate whose upper gain
        reaches the best lower one: the best candidate and its ties are then exact. ``scale``: the
        candidates are ranked by ``gain * scale`` (positive; the gain per cost) instead.

        One pass suffices but for rounding: an exact value is at least its lower bound, so the
        best lower gain can only rise, and every candidate still pending had its upper gain below
        the old best (a pass repeats only when rounding lowered the best).
        """
        if not cand.any():
            return
        while True:
            # the pending candidates whose upper gain (u + width) / d (times scale) reaches the best
            # lower one, compared without a division (d > 0 at every candidate)
            upper = u + self.width
            if scale is None:
                best = float(np.max(gain[cand]))
            else:
                best = float(np.max(gain[cand] * scale[cand]))
                upper *= scale
            J = np.flatnonzero(cand & self.pending & (upper >= best * d))
            if J.size == 0:
                return
            self.done += J.size
            if self.done > _SETTLE_ALL * self.pending.size:
                J = np.flatnonzero(self.pending)  # many made exact already: all the rest at once
                self.done = self.pending.size
                Y = _outer_root(self.A[:, J], self.M)
                g2 = np.einsum("ij,ij->j", Y, Y)
            else:
                AJ = np.take(self.A, J, axis=1)
                g2 = np.einsum("ij,ij->j", self.M @ AJ, AJ)  # a_j^T (A A^T) a_j
            exact = self.weight * (g2 - self.lo[J])
            u[J] += exact
            root = self.root
            if root is not None:  # the set-up's numerators: exact from now on for every later path
                up = root.pending[J]
                root.start[J[up]] += exact[up]
                root.width[J] = 0.0
                root.pending[J] = False
                root.done += int(np.count_nonzero(up))
            self.width[J] = 0.0
            self.pending[J] = False
            J = J[cand[J]]
            gain[J] = u[J] / d[J]
            if float(np.max(gain[cand] if scale is None else gain[cand] * scale[cand])) >= best:
                return  # the best rose (or stayed): no pending candidate can reach it


def _outer_root(A, M):
    """``Y`` (``n x p``) with ``Y^T Y = A^T M A``, for ``M = A A^T`` (positive semidefinite).

    ``Y = L^T P^T A`` with ``P^T M P = L L^T`` the Cholesky factorization with pivoting (LAPACK
    ``pstrf``; the trailing block below its tolerance, the rounding of a rank-deficient ``M``,
    is dropped): one triangular product, half the multiply-adds of ``M A``.
    """
    n = M.shape[0]
    if n == 0 or A.shape[1] == 0:
        return np.zeros(A.shape, dtype=A.dtype)
    c, piv, rank, info = _DPSTRF(M, lower=1)
    if info < 0:
        raise ValueError(f"pstrf failed with info={info}")
    c[rank:, rank:] = 0.0  # pstrf leaves the trailing block of a rank-deficient M unfactored
    Ap = A[piv - 1]  # a C-ordered copy: Ap^T is Fortran-ordered, overwritten by the product
    # (Ap^T L)^T = L^T Ap; trmm reads only the lower triangle of c (above it: M's entries)
    if A.dtype == np.float32:  # a single-precision copy of the data: the product in single precision
        return _STRMM(1.0, c.astype(np.float32), Ap.T, side=1, lower=1, overwrite_b=1).T
    return _DTRMM(1.0, c, Ap.T, side=1, lower=1, overwrite_b=1).T


def _downdate(D, U, w, z, qv, L, c):
    """A direction ``q`` joins the span: ``d <- d - w^2`` and ``u <- u - 2 w z + qv w^2`` (blockwise)."""
    w, z = w.reshape(L, c), z.reshape(L, c)
    if c == 1:
        d, u, w1, z1 = D[:, 0, 0], U[:, 0, 0], w[:, 0], z[:, 0]  # views: updated in place
        w2 = w1 * w1
        d -= w2
        u -= 2.0 * w1 * z1 - qv * w2
    else:
        ww = w[:, :, None] * w[:, None, :]
        D -= ww
        U -= z[:, :, None] * w[:, None, :] + w[:, :, None] * z[:, None, :] - qv * ww


def _swaps(run: _Run, max_swaps: int):
    """Swaps from the path's ``k`` pixels: ``(support, kept mass, swaps, converged)``.

    The placed pixels are visited in turn; for pixel ``i`` every admissible replacement ``j`` is
    valued and the best is taken when it raises the kept mass. The search stops once ``k``
    pixels in a row found no such swap (a 1-swap local optimum), or after ``max_swaps``.

    With ``F`` the directions' ``w = A^T q`` (``p x k``) and ``E = G - F F^T``, the state is
    ``Y = F[S]^{-1}`` (``q_i = Q Y e_i`` up to its norm: ``F[S] F[S]^T = A_S^T A_S``) and the
    products ``H = F Y`` and ``Z = K^T Y`` with ``K = F^T E``: column ``m`` holds ``h_i`` and
    ``z_i`` of the ``m``-th placed pixel (normalised by ``||y_i||``), so a visit costs ``O(p)``
    and reads no factor. A swap reflects the directions (``F -> F R``, ``R`` taking ``y_i`` to
    the last one), replaces that direction by the new pixel's (a rank-one change of ``F`` and of
    row ``i`` of ``F[S]``) and changes ``E`` by ``h h^T - w w^T``: ``Y``, ``H`` and ``Z`` move by
    low-rank terms (``O(p k + k^2)``) and one greedy step per swap. ``K`` itself is formed once,
    from the greedy's own products; every ``_REFRESH`` swaps ``Y`` and ``H`` are recomputed from
    the factors, and ``Z`` too when a probe product shows its updates drifted.
    """
    members = run.order.copy()
    k = members.size
    if run.block != 1 or run.basis.rank != k or max_swaps == 0:
        return members, run.total, 0, False
    s = _SwapSearch(run)
    if len(s.rows.fixed) == k:  # every placed pixel is an installed sensor: nothing may move
        return s.members, s.f, 0, True
    idle, m = 0, 0
    while idle < k:
        if not s.fresh_enough():
            return s.members, s.f, s.n_swaps, False
        step = s.visit(m)
        if step is None:
            idle, m = idle + 1, (m + 1) % k
            continue
        if s.n_swaps == max_swaps:
            return s.members, s.f, s.n_swaps, False
        s.take(m, *step)
        idle, m = 0, (m + 1) % k
    return s.members, s.f, s.n_swaps, True


class _SwapSearch:
    """The state of the swaps (see :func:`_swaps`): the placed pixels, the kept mass, ``Y``, the
    rows ``Ht = Y^T F^T`` and ``Zt = Y^T K`` (row ``m``: ``h`` and ``z`` of the ``m``-th placed
    pixel, before normalisation), so that valuing a pixel's swaps reads no factor, the last row
    ``Kl`` of ``K`` and ``FtF = F^T F`` (which the updates of ``Zt`` need)."""

    def __init__(self, run: _Run):
        self.members = run.order.copy()
        self.basis, self.floor = run.basis, run.floor
        self.k = self.members.size
        self.D, self.U = run.D, run.U
        self.d, self.u = run.D[:, 0, 0], run.U[:, 0, 0]  # views: updated in place
        self.f = run.total
        self.rows = _SwapRows(run.cons, self.members)
        self.n_swaps, self.fresh = 0, -1
        self.Y = self.Ht = self.Zt = self.Kl = self.FtF = None
        self.Zg, run.Z = run.Z, None  # used once, for the first K

    def tol(self):
        return _SWAP_RTOL * abs(self.f)

    def fresh_enough(self) -> bool:
        """Recompute ``Y`` and ``Ht`` from the factors every ``_REFRESH`` swaps, and ``Zt`` when a
        product with a probe vector shows that its updates drifted; False when the chosen
        columns became dependent by rounding (the search stops there)."""
        if self.fresh >= 0 and self.n_swaps - self.fresh < _REFRESH:
            return True
        k, F = self.k, self.basis.F[:, :self.k]
        try:
            self.Y = np.linalg.inv(F[self.members])
        except np.linalg.LinAlgError:
            return False
        self.Ht = self.Y.T @ F.T
        if self.Zt is None and self.Zg is not None:
            # K = F^T E from the greedy's z_t = E_t w_t: E = E_t - sum_{s >= t} w_s w_s^T, so row t
            # is z_t - sum_{s >= t} (w_t . w_s) w_s
            self.FtF = F.T @ F
            K = self.Zg[:, :k].T - np.triu(self.FtF) @ F.T
            self.Zg = None
        elif self.Zt is None or not self._probe_agrees():
            self.FtF = F.T @ F
            K = self.basis.residual_products()
        else:
            K = None
        if K is not None:
            self.Zt = self.Y.T @ K
            self.Kl = K[k - 1].copy()
        self.fresh = self.n_swaps
        return True

    def _probe_agrees(self) -> bool:
        """``Zt x`` against ``Ht (E x)`` for a fixed probe ``x`` (one product with the data)."""
        x = np.cos(np.arange(self.d.size) * 0.7071)  # fixed, dense, not aligned with any pixel
        Ex = self.basis.residual_apply(x)
        if Ex is None:
            return False
        want = self.Ht @ Ex
        scale = float(np.sqrt(np.einsum("ij,ij->i", self.Zt, self.Zt).max() * (x @ x)))  # bounds |Zt x|
        return bool(np.abs(self.Zt @ x - want).max() <= _PROBE_RTOL * scale)

    def visit(self, m: int):
        """The best admissible replacement of the ``m``-th placed pixel when it raises the kept
        mass: ``(j, sc, h, z, lo)``; else None."""
        adm = self.rows.admissible(m)
        if adm is None:
            return None
        y = self.Y[:, m]
        sc = 1.0 / float(np.sqrt(y @ y))
        h = self.Ht[m] * sc  # A^T q_i
        z = self.Zt[m] * sc  # E h_i
        lo = float(h @ h)
        h2 = h * h
        den = self.d + h2  # residual norm of j once i is dropped
        ok = den > 2 * self.floor
        ok &= adm
        val = np.full(den.size, -np.inf)
        np.divide(self.u + 2.0 * h * z + lo * h2, den, out=val, where=ok)
        j = int(np.argmax(val))  # ties: the lowest index
        if not val[j] - lo > self.tol():
            return None
        return j, sc, h, z, lo

    def take(self, m, j, sc, h, z, lo):
        """Swap the ``m``-th placed pixel for ``j`` (valued by :meth:`visit`).

        With ``R = I - v v^T`` the reflection, ``F' = F R + c e_k^T`` (``c = w - (F R) e_k``, ``w``
        the new direction), ``Y' = R Y - g t^T`` (``g = R Y e_m``, the rank-one change of row ``m``
        of ``F[S]``) and ``K' = R K + P [h; w; r]`` (``P = [F_1^T h, -F_1^T w, e_k]``, ``r`` the
        change of the last row): with ``R R = I``, ``Ht' = Ht + (Y_r[k-1] - g_k t) c^T - t Ht[m]``
        and ``Zt' = Zt - t Zt[m] + (Y_r^T P - t g^T P) [h; w; r]``."""
        basis, k = self.basis, self.k
        i = int(self.members[m])
        y = self.Y[:, m] * sc
        h2 = h * h
        self.d += h2  # i leaves: the span loses q_i, R gains q_i q_i^T A
        self.u += 2.0 * h * z + lo * h2
        self.f -= lo
        _, a, sg = _reflector(y)
        vK = a * (z + sg * self.Kl)  # v^T K (z = K^T y)
        FtF = self.FtF
        Fth = FtF @ y  # F^T h (h = F y)
        v = basis.remove(y, h)  # F -> F R, R takes q_i to the last direction (h = F y)
        Yr = self.Y
        _ger(Yr, v, v @ Yr, -1.0)  # R Y
        Fv = FtF @ v
        _ger(FtF, v, Fv, -1.0)  # R F^T F R (its last row and column are replaced below)
        _ger(FtF, Fv - float(v @ Fv) * v, v, -1.0)
        F1h = (Fth - float(v @ Fth) * v)[:k - 1]  # (F R)^T h
        F1 = basis.F[:, :k - 1]
        old_row = basis.F[i, :k].copy()
        c = -basis.F[:, k - 1]  # -(F R) e_k, before the new direction replaces it
        rl = self.Kl - v[k - 1] * vK  # (R K)[k-1]
        w, zj, qv = basis.add(j, 0.0)  # j joins (its residual is above the floor: den > 2 floor)
        c += w
        _downdate(self.D, self.U, w, zj, qv, self.d.size, 1)
        self.f += qv
        self.Kl = zj - qv * w  # E' w (zj = (E + h h^T) w)
        F1w = basis.Ftw if basis.Ftw is not None else F1.T @ w
        FtF[:k - 1, k - 1] = FtF[k - 1, :k - 1] = F1w
        FtF[k - 1, k - 1] = qv
        # F[S] R -> F'[S']: row m changes by delta (the new last column is zero on S - i)
        delta = basis.F[j, :k] - old_row
        g = Yr[:, m].copy()
        t = (Yr.T @ delta) / (1.0 + float(delta @ g))
        P = np.zeros((k, 3))
        P[:k - 1, 0], P[:k - 1, 1], P[k - 1, 2] = F1h, -F1w, 1.0
        B = Yr.T @ P - np.outer(t, g @ P)
        alpha = Yr[k - 1] - g[k - 1] * t
        hm, zm = self.Ht[m].copy(), self.Zt[m].copy()
        _gemm_update(self.Ht, np.column_stack([alpha, -t]), np.stack([c, hm]))
        _gemm_update(self.Zt, np.column_stack([-t, B]), np.stack([zm, h, w, self.Kl - rl]))
        _ger(Yr, g, t, -1.0)  # Y' = R Y - g t^T
        self.rows.swap(m, j)
        self.members[m] = j
        self.n_swaps += 1


class _SwapRows:
    """Which pixels may replace a placed pixel, every constraint kept (``O(p)`` per query)."""

    def __init__(self, cons: PlacementConstraints, members: NDArray):
        self.cons, self.members = cons, members.copy()
        self.free = ~cons.never
        self.free[members] = False
        self.fixed = set(int(i) for i in cons.always)
        self.counts = (None if cons.labels is None
                       else np.bincount(cons.labels[members], minlength=cons.caps.size))
        self.budget = cons.costs is not None and bool(np.isfinite(cons.budget))
        self.spent = float(cons.costs[members].sum()) if self.budget else 0.0
        self.near = None
        if cons.coords is not None and cons.min_distance > 0:  # chosen pixels closer than min_distance to each
            self.near = sum(self._close(int(i)).astype(np.intp) for i in members)

    def _close(self, i):
        diff = self.cons.coords - self.cons.coords[i]
        return np.einsum("jc,jc->j", diff, diff) < self.cons.min_distance ** 2

    def admissible(self, m: int) -> NDArray | None:
        """``ok[j]``: replacing the ``m``-th placed pixel by ``j`` keeps every constraint (None: no
        pixel may; without regions, distance or budget the mask of free pixels itself, not a
        copy: read it only)."""
        c, i = self.cons, int(self.members[m])
        if i in self.fixed:
            return None
        if self.counts is None and self.near is None and not self.budget:
            return self.free
        ok = self.free.copy()
        if self.counts is not None:
            li = c.labels[i]
            same = c.labels == li
            ok &= same | (self.counts < c.caps)[c.labels]  # j's region has room for one more
            if c.floors is not None and self.counts[li] <= c.floors[li]:
                ok &= same  # i's region keeps its minimum
        if self.near is not None:
            ok &= self.near - self._close(i) == 0  # j is near no chosen pixel but i
        if self.budget:
            ok &= self.spent - c.costs[i] + c.costs <= c.budget * (1 + _BUDGET_RTOL)
        return ok if ok.any() else None

    def swap(self, m: int, j: int) -> None:
        c, i = self.cons, int(self.members[m])
        self.free[i] = not c.never[i]
        self.free[j] = False
        if self.counts is not None:
            self.counts[c.labels[i]] -= 1
            self.counts[c.labels[j]] += 1
        if self.near is not None:
            self.near += self._close(j).astype(np.intp) - self._close(i)
        if self.budget:
            self.spent += float(c.costs[j] - c.costs[i])
        self.members[m] = j


def _symv(S, x):
    """``S @ x`` for a symmetric float64 ``S``, reading one triangle (BLAS ``dsymv``: half the memory traffic)."""
    if S.dtype == np.float64 and S.flags.c_contiguous:
        return _DSYMV(1.0, S.T, x, lower=1)  # S^T is the same matrix, Fortran-ordered
    if S.dtype == np.float64 and S.flags.f_contiguous:
        return _DSYMV(1.0, S, x)
    return S @ x


def _rows_times(V, B):
    """``V @ B`` for a few rows ``V`` (``m x n``) and the data ``B`` (``n x p``, C-ordered), one
    matrix-vector product per row (BLAS ``dgemv`` on ``B^T``, Fortran-ordered: no copy). ``B`` is
    read once per row, but a product this flat runs at memory speed as ``dgemv`` and well below it
    as a matrix product (OpenBLAS packs ``B`` for ``dgemm``): two rows this way take about half the
    time of one blocked product (the data pass of every greedy step with fewer images than pixels).
    A single-precision ``B`` (a rounded copy of the data) is read by ``sgemv``, half the memory
    traffic; the result is in double precision either way."""
    if not B.flags.c_contiguous or B.dtype not in (np.float64, np.float32):
        return V @ B
    out = np.empty((V.shape[0], B.shape[1]))
    for r in range(V.shape[0]):
        if B.dtype == np.float64:
            out[r] = _DGEMV(1.0, B.T, V[r])
        else:
            out[r] = _SGEMV(1.0, B.T, V[r].astype(np.float32))
    return out


def _gemm_update(C, X, W):
    """``C += X @ W`` in place (BLAS ``dgemm`` on C-ordered float64 arrays: one pass over ``C``, no copies)."""
    if C.flags.c_contiguous and C.dtype == np.float64 and C.size:
        _DGEMM(1.0, W.T, X.T, beta=1.0, c=C.T, overwrite_c=1)  # C^T += W^T X^T, all Fortran-ordered
    else:
        C += X @ W


def _ger(X, x, y, alpha):
    """``X += alpha * outer(x, y)`` in place (BLAS ``dger`` on a C- or Fortran-ordered float64 ``X``: no
    temporary)."""
    if X.flags.c_contiguous and X.dtype == np.float64 and X.size:
        _DGER(alpha, y, x, a=X.T, overwrite_a=1)  # X^T is Fortran-ordered: X^T += alpha y x^T
    elif X.flags.f_contiguous and X.dtype == np.float64 and X.size:
        _DGER(alpha, x, y, a=X, overwrite_a=1)
    else:
        X += alpha * np.outer(x, y)


def _diag_blocks(G, L, c):
    """The ``c x c`` diagonal blocks of ``G``, shape ``(L, c, c)``."""
    idx = np.arange(L * c).reshape(L, c)
    return G[idx[:, :, None], idx[:, None, :]]


def _gains(D, U, floor, c):
    """Gain ``trace(D_J^+ U_J)`` of every pixel and whether its residual is above the floor."""
    if c == 1:
        d = D[:, 0, 0]
        live = d > floor
        gain = np.zeros(d.shape)
        np.divide(U[:, 0, 0], d, out=gain, where=live)
        return gain, live
    lam, V = np.linalg.eigh(D)
    keep = lam > floor
    inv = np.where(keep, 1.0 / np.where(keep, lam, 1.0), 0.0)
    proj = np.einsum("lci,lcd,ldi->li", V, U, V)
    return np.sum(inv * proj, axis=1), keep.any(axis=1)
