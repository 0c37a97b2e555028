"""The bookkeeping every search shares: incumbent, queue of open nodes, limits, callback, bound."""

from __future__ import annotations

import heapq
import math
import time

import numpy as np

from ._result import SearchState

__all__ = ["Search", "Stop", "count_node", "run_until_stopped"]


class Stop(Exception):
    def __init__(self, status):
        self.status = status


def run_until_stopped(loop, report, status):
    """Run ``loop()`` and return ``status``, or the status of the :class:`Stop` it raised (a limit),
    or ``'interrupted'`` on Ctrl-C; ``report()`` (the last progress call) in every case. The stop
    epilogue of every search loop."""
    try:
        loop()
    except Stop as stop:
        status = stop.status
    except KeyboardInterrupt:
        status = "interrupted"
    report()
    return status


def count_node(search, time_mask=0):
    """One more node of ``search`` (the limits and progress of every search's tree): raises
    :class:`Stop` past its ``node_limit`` (the count stays at the limit); lets its ``partner``
    (where not None) take its turn; raises :class:`Stop` past its ``time_limit``, read at the
    nodes whose count has ``count & time_mask == 0`` (0: every node); calls its ``report()``
    every 1024 nodes when it has a callback."""
    search.n_nodes += 1
    if search.halt is not None and search.halt.is_set():
        raise Stop("interrupted")
    if search.node_limit is not None and search.n_nodes > search.node_limit:
        search.n_nodes -= 1
        raise Stop("node_limit")
    if search.partner is not None:
        search.partner.turn()
    if search.time_limit is not None and (search.n_nodes & time_mask) == 0:
        if time.perf_counter() - search.t0 > search.time_limit:
            raise Stop("time_limit")
    if search.callback is not None and (search.n_nodes & 1023) == 0:
        search.report()


class Search:
    """Shared bookkeeping: incumbent, queue, limits, progress, certified bound."""

    def __init__(self, p, k, gap_tol, time_limit, node_limit, callback):
        self.p = p
        self.k = k
        self.gap_tol = gap_tol
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.best = -math.inf
        self.best_support = None
        self.theta = -math.inf
        self.tol_max = -math.inf  # largest bound discarded only because of gap_tol
        self.heap = []
        self.counter = 0
        self.n_nodes = 0
        self.t0 = time.perf_counter()
        self.dive_key = -math.inf
        self.callback = callback
        #: an object whose ``turn()`` is called at every node (``exact_support``'s enumeration
        #: of small sizes, which shares the time); it may raise :class:`Stop`
        self.partner = None
        #: the backward greedy path of the start, where it ran (the enumeration's order)
        self.backward_path = None
        #: a ``threading.Event`` whose setting stops the search at its next node (status
        #: ``'interrupted'``): Ctrl-C for a search that runs outside the main thread
        self.halt = None
        #: the features every support contains (a boolean mask), or None: the root node's fixed-in
        #: set, where the objective is not additive or placement constraints are given
        #: (``exact_support(always_select=...)``)
        self.forced = None
        #: placement constraints checked at every node (:class:`._feasible.Feasibility`), or None
        self.feasible = None

    def root_in(self):
        """The root node's fixed-in mask: the forced features (none without them)."""
        return np.zeros(self.p, bool) if self.forced is None else self.forced.copy()

    # incumbent / threshold
    def _set_theta(self):
        b = self.best
        self.theta = b + self.gap_tol * abs(b) if math.isfinite(b) else b

    def offer(self, value, support):
        if value > self.best:
            self.best = float(value)
            self.best_support = np.sort(np.asarray(support, dtype=np.intp))
            self._set_theta()

    def discard(self, bound):
        """True when ``bound`` cannot beat the incumbent (records tolerance-only discards)."""
        if bound <= self.theta:
            if bound > self.best:
                self.tol_max = max(self.tol_max, bound)
            return True
        return False

    def discard_many(self, bounds):
        """Vectorized :meth:`discard`: a boolean mask of the bounds that cannot beat the incumbent."""
        out = bounds <= self.theta
        if self.theta > self.best and np.any(out):
            self.tol_max = max(self.tol_max, float(np.max(bounds[out])))
        return out

    def push(self, key, Imask, Umask):
        if self.discard(key):
            return
        self.counter += 1
        heapq.heappush(self.heap, (-key, self.counter, Imask, Umask))

    def upper_bound(self):
        ub = max(self.best, self.tol_max, self.dive_key)
        if self.heap:
            ub = max(ub, -self.heap[0][0])
        return ub

    def tick(self):
        count_node(self)  # the clock at every node: a full-matrix node can take a second

    def state(self):
        """The read-only record passed to the callback."""
        ub = self.upper_bound()
        return SearchState(
            nodes=self.n_nodes, incumbent=self.best, bound=ub, gap=ub - self.best,
            elapsed=time.perf_counter() - self.t0,
        )

    def report(self):
        if self.callback is not None:
            self.callback(self.state())

    def run(self, dive):
        """Best-first over the queue; every popped node is the root of a depth-first dive."""

        def loop():
            while self.heap:
                negkey, _, Imask, Umask = heapq.heappop(self.heap)
                key = -negkey
                if self.discard(key):
                    continue
                self.dive_key = key
                dive(Imask, Umask, key)
                self.dive_key = -math.inf

        return run_until_stopped(loop, self.report, "optimal")
