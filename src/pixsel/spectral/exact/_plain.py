"""ESLDA, the exact search of Moghaddam, Weiss and Avidan (2006): depth-first, inclusion bound only.

Kept as a named baseline (:func:`pixsel.spectral.plain_search`) so that the benchmarks compare
the certified solver of :func:`pixsel.spectral.exact_support` with the method of the paper
through the public API. Every node is evaluated from scratch (one fresh factorization).
"""

from __future__ import annotations

import numpy as np

from ._search import run_until_stopped

__all__ = ["PLAIN_BRANCH_RULES", "plain_dfs"]

#: ``'lowest-index'`` branches on the first undecided feature in index order (the paper);
#: ``'largest-ratio'`` on the first in the order of the single-feature objectives
#: ``A_jj / B_jj`` (largest first), a static order computed once.
PLAIN_BRANCH_RULES = ("lowest-index", "largest-ratio")


def plain_dfs(objective, p, k, search, *, ranking):
    """Depth-first search over ``(I, U)`` nodes; ``objective(S)`` evaluates a support from
    scratch; ``ranking`` (a permutation) is the branching order. Returns the status."""
    stack = [(np.zeros(p, bool), np.ones(p, bool))]

    def loop():
        while stack:
            Imask, Umask = stack.pop()
            search.tick()
            U = np.flatnonzero(Umask)
            m = int(np.count_nonzero(Imask))
            if m > k or len(U) < k:
                continue
            fU = objective(U)
            if search.discard(fU):
                continue
            if len(U) == k:
                search.offer(fU, U)
                continue
            if m == k:
                I = np.flatnonzero(Imask)
                search.offer(objective(I), I)
                continue
            free = (Umask & ~Imask)[ranking]
            t = int(ranking[np.argmax(free)])
            Ue = Umask.copy()
            Ue[t] = False
            Ii = Imask.copy()
            Ii[t] = True
            stack.append((Imask, Ue))
            stack.append((Ii, Umask))

    status = run_until_stopped(loop, search.report, "optimal")
    if status != "optimal":
        # a depth-first stack holds no bounds; the root bound f(all) is the only certificate
        search.heap = [(-objective(np.arange(p)), 0, None, None)]
    return status
