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

Ties go to the lowest index. Columns whose residual is below a relative tolerance of the
largest squared column norm add nothing; they are taken (lowest admissible index first, no
gain) only once no other candidate is left.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike, NDArray

__all__ = ["greedy_placement", "placement_constraints", "PlacementConstraints"]

#: A residual squared norm below this fraction of the largest squared column norm of ``A`` is
#: numerically inside the span of the chosen columns (the value of the p-form kernel).
_RESIDUAL_RTOL = 1e-10

#: Relative slack when a sum of costs is compared with the budget (rounding of the sums).
_BUDGET_RTOL = 1e-12


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
                     callback: Callable | None = None, gram: ArrayLike | None = None) -> tuple[NDArray, NDArray]:
    """Greedy column subset in the n-form (``O(n p)`` per step), under placement constraints.

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
        Called as ``callback(t, total=k)`` after each pixel.
    gram : array-like, optional
        The smaller Gram matrix, when the caller has it (not modified): ``A^T A`` of shape
        ``(n_pixels * block, n_pixels * block)`` with more images than pixels, else ``A A^T`` of
        shape ``(n_samples, n_samples)``. Computed here when not given.

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

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.1]])
    >>> order, f = greedy_placement(A, 2)
    >>> order.tolist(), np.round(f, 3).tolist()
    ([1, 0], [2.5, 3.0])
    """
    A = np.asarray(A, dtype=np.float64)
    c = int(block)
    k = int(k)
    L = A.shape[1] // c
    cons = constraints if constraints is not None else placement_constraints(L, k)
    state = _State(cons)

    # Initial D_J = A_J^T A_J and U_J = A_J^T (A A^T) A_J, blocks of shape (L, c, c).
    if A.shape[0] <= A.shape[1]:  # n <= p: work on A, with M0 = A A^T (n x n)
        G = None
        B = A
        M0 = B @ B.T if gram is None else np.asarray(gram, dtype=np.float64)
        B3 = B.reshape(B.shape[0], L, c)
        D = np.einsum("nlc,nld->lcd", B3, B3)
        U = np.einsum("nlc,nld->lcd", B3, (M0 @ B).reshape(B.shape[0], L, c))
        n = B.shape[0]
        Q = np.empty((n, min(n, k * c)))
    else:  # n > p: the Gram matrix G = A^T A (the greedy depends on G only)
        G = A.T @ A if gram is None else np.asarray(gram, dtype=np.float64)
        G3 = G.reshape(G.shape[0], L, c)
        D = _diag_blocks(G, L, c)
        U = np.einsum("nlc,nld->lcd", G3, G3)
        n = G.shape[0]
        # F = [w_1 .. w_t], w = A^T q for the orthonormal directions q of the chosen columns'
        # span: the residual Gram matrix is E = G - F F^T, never formed.
        F = np.empty((n, min(n, k * c)))
        del G3
    floor = _RESIDUAL_RTOL * max(float(np.max(np.einsum("lcc->lc", D), initial=0.0)), np.finfo(float).tiny)
    rank = 0
    order = np.empty(k, dtype=np.intp)
    objective = np.empty(k)
    total = 0.0
    forced = [int(i) for i in cons.always]
    for t in range(k):
        if t < len(forced):
            i = forced[t]
        else:
            ok = state.candidates(k - t - 1)
            if not ok.any():
                raise ValueError(f"the constraints admit no further pixel after {t} of k={k} were chosen: "
                                 "lower k or min_distance, or raise max_per_region or the budget.")
            gain, live = _gains(D, U, floor, c)
            g = np.where(ok & live, gain, -np.inf)  # in the span: after every live pixel, lowest index first
            if not state.needs_packing:
                i = int(np.argmax(g)) if np.isfinite(g).any() else int(np.argmax(ok))  # ties: lowest index
            else:
                ranked = np.flatnonzero(ok)
                ranked = ranked[np.argsort(-g[ranked], kind="stable")]
                i = next((int(j) for j in ranked if state.completes_after(int(j), k - t - 1)), None)
                if i is None:
                    raise ValueError(f"the constraints admit no further pixel after {t} of k={k} were chosen: "
                                     "lower k or min_distance, or raise max_per_region or the budget.")
        state.take(i)
        order[t] = i
        for col in range(i * c, i * c + c):
            if G is None:
                r = B[:, col].copy()
                if rank:
                    for _ in range(2):  # classical Gram-Schmidt, twice
                        r -= Q[:, :rank] @ (Q[:, :rank].T @ r)
                nr2 = float(r @ r)
                if nr2 <= floor or rank >= n:
                    continue
                q = r / np.sqrt(nr2)
                v = M0 @ q
                if rank:
                    v -= Q[:, :rank] @ (Q[:, :rank].T @ v)
                wz = np.stack([q, v]) @ B  # one pass over the data
                w, z = wz[0], wz[1]
                Q[:, rank] = q
            else:  # w = E_{:,col} / sqrt(E_col,col), z = E w: one pass over G
                e = G[col] - F[:, :rank] @ F[col, :rank] if rank else G[col].copy()
                nr2 = float(e[col])
                if nr2 <= floor or rank >= n:
                    continue
                w = e / np.sqrt(nr2)
                z = G @ w
                if rank:
                    z -= F[:, :rank] @ (F[:, :rank].T @ w)
                F[:, rank] = w
            qv = float(w @ w)  # q^T (A A^T) q restricted to the residual: ||A^T q||^2
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
            total += qv
            rank += 1
        objective[t] = total
        if callback is not None:
            callback(t + 1, total=k)
    return order, objective


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
        gain[live] = U[live, 0, 0] / d[live]
        return gain, live
    lam, V = np.linalg.eigh(D)
    keep = lam > floor
    inv = np.where(keep, 1.0 / np.where(keep, lam, 1.0), 0.0)
    proj = np.einsum("lci,lcd,ldi->li", V, U, V)
    return np.sum(inv * proj, axis=1), keep.any(axis=1)
