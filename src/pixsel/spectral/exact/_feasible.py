"""Placement constraints at the nodes of the exact search: a budget, regions, a minimum distance.

These constraints do not change the objective, only which supports count, so the search keeps
its bounds (a bound on every support of a node bounds its feasible ones) and learns, at each
node ``(I, U)`` (``I`` fixed in, ``free = U - I``, ``need = k - |I|`` still to add):

* whether any feasible completion can exist (else the node is pruned): the fixed-in pixels cost
  at most the budget with the ``need`` cheapest free ones, no region is over its maximum, every
  region's minimum can still be met by its free pixels within ``need``, no two fixed-in pixels
  are closer than the minimum distance, and, when every free pixel must be taken, none of them
  conflict;
* which free pixels no feasible completion can take (excluded at once): those within the
  minimum distance of a fixed-in pixel, those of a region at its maximum, those too costly for
  the budget with the cheapest other completion, and, when the minima of the regions use up all
  the slots left, those of regions already at their minimum.

At a leaf every condition is checked on the support itself, so every support the search offers
is feasible. The tests hold the search's answers against brute force over the feasible supports.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Feasibility"]

#: Relative slack when a sum of costs is compared with the budget (rounding of the sums).
_BUDGET_RTOL = 1e-9


class Feasibility:
    """Placement constraints on ``p`` features, checked at the nodes of the exact search.

    Parameters (all optional): ``costs`` (length ``p``) with ``budget``; ``labels`` (region codes
    ``0 .. n_regions - 1``, length ``p``) with ``caps`` (at most, ``inf``: no limit) and
    ``floors`` (at least; None: no minimum); ``coords`` (``p x 2``) with ``min_distance``. The
    attributes of :class:`pixsel.scores.PlacementConstraints` (:meth:`from_placement`).
    """

    def __init__(self, p, *, costs=None, budget=np.inf, labels=None, caps=None, floors=None, coords=None,
                 min_distance=0.0):
        self.p = int(p)
        self.budget = float(budget)
        self.costs = None if costs is None or not np.isfinite(self.budget) else np.asarray(costs, dtype=float)
        self.labels = None if labels is None else np.asarray(labels, dtype=np.intp)
        self.caps = None if caps is None else np.asarray(caps, dtype=float)
        self.floors = None if floors is None else np.asarray(floors, dtype=np.intp)
        self.n_regions = 0 if self.labels is None else int(max(self.labels.max(initial=-1) + 1,
                                                               0 if self.caps is None else len(self.caps),
                                                               0 if self.floors is None else len(self.floors)))
        self.conflict = None
        if coords is not None and min_distance > 0:
            c = np.asarray(coords, dtype=float)
            d2 = ((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=-1)
            self.conflict = d2 < float(min_distance) ** 2 * (1 - 1e-12)
            np.fill_diagonal(self.conflict, False)

    @property
    def conflicts_only(self):
        """Whether a minimum distance is the only constraint (the compiled enumeration knows it)."""
        return self.conflict is not None and self.costs is None and self.caps is None and self.floors is None

    @classmethod
    def from_placement(cls, cons):
        """From resolved :class:`pixsel.scores.PlacementConstraints` (its installed and excluded
        pixels are passed to the search as ``always_select`` and ``never_select``); None where it
        has none of these constraints."""
        has = (np.isfinite(cons.budget) and cons.costs is not None) or cons.caps is not None \
            or cons.floors is not None or (cons.min_distance > 0 and cons.coords is not None)
        if not has:
            return None
        return cls(cons.n_pixels, costs=cons.costs, budget=cons.budget, labels=cons.labels, caps=cons.caps,
                   floors=cons.floors, coords=cons.coords, min_distance=cons.min_distance)

    def restrict(self, R):
        """The same constraints on the features ``R`` only (their indices renumbered ``0 .. len(R) - 1``)."""
        out = object.__new__(Feasibility)
        out.p, out.budget, out.n_regions = len(R), self.budget, self.n_regions
        out.costs = None if self.costs is None else self.costs[R]
        out.labels = None if self.labels is None else self.labels[R]
        out.caps, out.floors = self.caps, self.floors
        out.conflict = None if self.conflict is None else self.conflict[np.ix_(R, R)]
        return out

    def _counts(self, idx):
        return np.bincount(self.labels[idx], minlength=self.n_regions)

    def node(self, I, free, need):
        """``(ok, out)`` at a node: whether a feasible completion of ``I`` by ``need`` of the ``free``
        features may exist, and the mask of the free ones that no feasible completion takes."""
        out = np.zeros(len(free), bool)
        if need < 0:
            return False, out
        if self.conflict is not None and len(I):
            if len(I) > 1 and self.conflict[np.ix_(I, I)].any():
                return False, out
            if len(free):
                out |= self.conflict[np.ix_(free, I)].any(axis=1)
        cnt = self._counts(I) if self.labels is not None else None
        if self.caps is not None:
            if np.any(cnt > self.caps):
                return False, out
            out |= cnt[self.labels[free]] >= self.caps[self.labels[free]]
        if self.costs is not None:
            spent = float(self.costs[I].sum())
            limit = self.budget * (1 + _BUDGET_RTOL) + _BUDGET_RTOL
            if spent > limit:
                return False, out
            if need > 0:
                cf = self.costs[free]
                ordered = np.sort(cf[~out])
                if len(ordered) < need or spent + float(ordered[:need].sum()) > limit:
                    return False, out
                # j with the cheapest need - 1 others: over the budget only when j is not among the cheapest need
                out |= (cf > ordered[need - 1]) & (spent + cf + float(ordered[: need - 1].sum()) > limit)
        if self.floors is not None:
            deficit = np.maximum(self.floors - cnt[: len(self.floors)], 0)
            avail = self._counts(free[~out])[: len(self.floors)]
            if np.any(deficit > avail) or deficit.sum() > need:
                return False, out
            if need > 0 and deficit.sum() == need:  # every slot left fills a region's minimum
                full = np.zeros(self.n_regions, bool)
                full[: len(self.floors)] = deficit == 0
                out |= full[self.labels[free]] | (self.labels[free] >= len(self.floors))
        left = np.flatnonzero(~out)
        if len(left) < need:
            return False, out
        if self.caps is not None and need > 0:
            room = np.minimum(self.caps - cnt[: len(self.caps)], self._counts(free[left])[: len(self.caps)])
            extra = self._counts(free[left])[len(self.caps):].sum() if self.n_regions > len(self.caps) else 0
            if room.sum() + extra < need:
                return False, out
        if self.conflict is not None and need > 1 and len(left) == need:  # every free one is taken
            take = free[left]
            if self.conflict[np.ix_(take, take)].any():
                return False, out
        return True, out

    def admits(self, S):
        """Whether the support ``S`` satisfies every constraint."""
        S = np.asarray(S, dtype=np.intp)
        ok, _ = self.node(S, np.zeros(0, dtype=np.intp), 0)
        return ok
