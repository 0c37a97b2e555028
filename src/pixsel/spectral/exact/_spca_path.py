"""Every size of a large sparse PCA problem under one time limit, the time planned from the gaps.

:func:`exact_path` certifies every size in one tree, up to 256 features. Beyond that each size is
its own :func:`exact_support` search, and the question is where the time goes. Spending it size
by size in order leaves the last sizes without any; spending it equally spends most of it on
sizes that are already proved or that no amount of search will close. :func:`exact_spca_path`
does what the sparse PCA hour on the 1024 Extended Yale B pixels measured best
(benchmarks/bench_exact_spca.py, figures on the documentation's exact-search page):

1. **A first pass**: every size gets ``first_limit`` seconds (default: half the time limit over
   the sizes), its cheap root bounds (the row bound, the row and soft-thresholding bounds of
   every size, the inclusion bounds) and a branch and bound with the SDP bound
   (``exact_support(bounds='sdp')``, whose root minimizes the SDP dual bound with a quarter of
   the size's time). The smallest certified bound is the size's. (A first-order SDP dual bound
   computed beside the search, as the benchmark's hour did until it moved here, took 145 s of
   the hour on the 1024 Yale B pixels and was never below the search's own bound.)
2. **Incumbents from the neighbours' supports**: the best support of ``k + 1`` less the pixel
   whose removal keeps the most, and of ``k - 1`` plus the pixel that adds the most, each
   improved by :func:`~pixsel.spectral.refine_support`, replace a size's support when better (a
   size's own search can stop well below what its neighbour's support gives: on the faces the
   support of ``k = 37`` less one pixel beat the first pass's ``k = 36`` by 1.1 %).
3. **The time left re-planned**: the sizes still open above ``goal`` are searched again from
   their best support, in two rounds (first those whose gap is below ten times the goal, then
   the others), the smallest gap first, each with a share of the time left in proportion to
   ``1 / gap`` among the sizes still waiting (a size near the goal needs the least search; one
   that finishes early leaves its time to the next). A size keeps the better support and the
   smaller bound of its two searches.
4. **A last sweep of the neighbours' supports** in the time kept for it, then the bounds made
   monotone (the optimum of ``k`` never exceeds that of ``k + 1``: ``A`` is positive
   semi-definite, so a size's bound is at most the next larger size's).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import numpy as np

from ..._threads import blas_limit
from ..._validation import check_int, check_pair, check_real
from .._dispatch import greedy_path
from .._path import objective_on_support
from ..bounds import inclusion_bounds, row_bound, spca_bounds_path
from ..greedy import refine_support
from ._allk import ExactPath
from ._allk_parallel import effective_jobs
from ._result import CERTIFIED, SearchState
from ._solve import spca_size

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

__all__ = ["exact_spca_path", "from_neighbours", "replan_order"]

#: Share of the time limit the first pass spends (equally over the sizes) by default.
FIRST_SHARE = 0.5
#: Seconds kept for the last sweep of the neighbours' supports (about 10 s on 1024 pixels at
#: k <= 50), at most a twentieth of the time limit.
NEIGHBOUR_RESERVE_S = 30.0
#: The first round of the re-plan takes the sizes whose gap is below this many times the goal.
NEAR = 10.0
#: Relative margin under which a candidate support does not count as better.
_RTOL = 1e-12


def _lam(A, S):
    return float(np.linalg.eigvalsh(A[np.ix_(S, S)])[-1])


def _gap(row):
    f = row["objective"]
    return (max(row["bound"], f) - f) / f if f > 0 else (0.0 if row["bound"] <= f else np.inf)


def from_neighbours(A: np.ndarray, rows: dict, deadline: float | None = None) -> dict:
    """Raise the open sizes' supports from their neighbours' (step 2 of the module's plan).

    ``rows`` maps ``k`` to a dict with ``'support'`` (list of int), ``'objective'`` and
    ``'status'``. For each size not certified, the best support of ``k + 1`` less the pixel whose
    removal keeps the most and the best support of ``k - 1`` plus the pixel that adds the most
    (present in ``rows``) are improved by :func:`~pixsel.spectral.refine_support` when they
    already beat the size's support, and replace it when they still do; sweeps down then up the
    sizes, repeated while a support rises, until ``deadline`` (a ``time.perf_counter()`` value;
    None: no limit) passes. Updates ``rows`` in place and returns ``{k: (first objective, new
    objective)}`` of the sizes raised.
    """
    p, raised, changed = A.shape[0], {}, True
    while changed:
        changed = False
        ks = sorted(rows)
        for k in ks[::-1] + ks:
            r = rows[k]
            if deadline is not None and time.perf_counter() > deadline:
                return raised
            if r["status"] in CERTIFIED or not 1 < k < p:
                continue
            tries = []
            if k + 1 in rows:  # drop the pixel whose removal keeps the most
                S = list(rows[k + 1]["support"])
                tries.append(max(([s for s in S if s != i] for i in S), key=lambda T: _lam(A, T)))
            if k - 1 in rows:  # add the pixel that adds the most
                S = list(rows[k - 1]["support"])
                out = np.setdiff1d(np.arange(p), S)
                tries.append(S + [int(max(out, key=lambda j: _lam(A, S + [int(j)])))])
            for S in tries:
                if _lam(A, S) <= r["objective"] * (1 + _RTOL):
                    continue  # refine only candidates that already beat the size's support
                S, value, _ = refine_support(A, np.sort(S))
                if value > r["objective"] * (1 + _RTOL):
                    raised[k] = (raised.get(k, (r["objective"],))[0], float(value))
                    r["objective"], r["support"] = float(value), [int(i) for i in S]
                    changed = True
    return raised


def replan_order(gaps: dict, goal: float, near: float = NEAR) -> list[list[int]]:
    """The re-plan's rounds: sizes (keys of ``gaps``, relative gaps) still above ``goal``.

    First round: the sizes whose gap is below ``near * goal``, then the others; each round
    sorted by gap, smallest first. A size searched in the first round is not searched again in
    the second (the caller re-reads the gaps between the rounds).
    """
    open_ = sorted((g, k) for k, g in gaps.items() if g > goal)
    return [[k for g, k in open_ if g < near * goal], [k for g, k in open_ if g >= near * goal]]


def exact_spca_path(
    A: ArrayLike,
    max_k: int | None = None,
    *,
    time_limit: float,
    first_limit: float | None = None,
    goal: float = 1e-3,
    n_jobs: int | None = None,
    callback: Callable[[SearchState], None] | None = None,
) -> ExactPath:
    """Certified sparse PCA supports of every size ``k = 1..max_k``, the time planned from the gaps.

    For covariances with more features than :func:`exact_path` takes (256): each size is an
    :func:`exact_support` search with the SDP bound, and the time limit is spent where it
    closes gaps (a first pass over every size, the neighbours' supports, the time left re-planned
    to the open sizes by their gaps; see :mod:`pixsel.spectral.exact._spca_path`). On the 1024
    Extended Yale B pixels, every ``k <= 50`` in an hour: 30 of the 50 sizes certified or within
    0.1 % (the documentation's exact-search page).

    Parameters
    ----------
    A : ndarray of shape (p, p)
        Symmetric positive semi-definite (a covariance or correlation matrix).
    max_k : int or None
        The largest size (default ``min(p, 50)``).
    time_limit : float
        Seconds for every size in all. The cheap root bounds and the greedy path come first
        (about 2 s on 1024 features); each size's search then starts from its greedy support
        improved by swaps (a few hundredths of a second a size there). Sizes whose turn comes
        after the limit are not searched: they keep the greedy support and their root bounds
        (status ``'time_limit'``), so a call returns about ``time_limit`` seconds after it starts,
        or as soon as those first bounds are computed.
    first_limit : float or None
        Seconds each size's search gets in the first pass (default: half the time limit over the
        sizes; less when the sizes before took longer, so that every size gets its share of what
        is left).
    goal : float, default 1e-3
        The relative gap at which a size counts as closed: sizes above it share the time the
        first pass leaves.
    n_jobs : int or None
        Sizes searched at once, on as many threads (``None``: 1; ``-1``: every CPU; ``-2``: all
        but one). The plan is the same, with the time shared over the threads: in the first
        pass a size's turn gives it its share of ``n_jobs`` times the time left, in the
        re-plan its ``1 / gap`` share of ``n_jobs`` times the time left (never more than the
        time left). The searches share ``A`` (no copies) and spend their time in LAPACK, which
        runs outside Python's interpreter lock.
    callback : callable or None
        Called after every size's search with a :class:`SearchState` of the size with the
        largest relative gap so far (``nodes`` summed over the searches); from the thread that
        ran the search, one call at a time.

    Returns
    -------
    ExactPath
        ``supports``, ``objective``, the certified ``upper_bound`` and ``status`` per size
        (``'optimal'`` where a search proved it, else ``'time_limit'`` or ``'interrupted'``:
        its bound is still certified), ``n_nodes``, ``time``, ``search_status`` and ``info``:
        ``'time_s'`` and ``'nodes'`` per size, ``'first_limit'``, ``'root_bounds'`` (per size the
        row, path and inclusion bounds), ``'raised'`` (``{k: (before, after)}`` of the
        neighbours' sweeps) and ``'replanned'`` (the sizes searched again, in order, with their
        seconds). Ctrl-C stops the plan and returns what it holds (sizes not yet searched keep
        the greedy path's support and the path bound, status ``'interrupted'``).

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.spectral import exact_spca_path
    >>> X = np.random.default_rng(0).standard_normal((60, 12))
    >>> path = exact_spca_path(np.cov(X, rowvar=False), 4, time_limit=20)
    >>> path.status.tolist()
    ['optimal', 'optimal', 'optimal', 'optimal']
    """
    owner = "exact_spca_path"
    A, _ = check_pair(A, None, form="full", owner=owner)
    p = A.shape[0]
    eig = np.linalg.eigvalsh(A)
    lam_min = float(eig[0])
    if lam_min < -1e-10 * max(float(np.abs(np.diag(A)).max()), 1.0):
        raise ValueError(f"{owner} needs a positive semi-definite A (a covariance or correlation matrix); its "
                         f"smallest eigenvalue is {lam_min:.3g}. Pass the covariance of the data "
                         "(np.cov(X, rowvar=False)), or exact_support for one size of a symmetric A.")
    max_k = min(p, 50) if max_k is None else check_int(max_k, "max_k", low=1, high=p, owner=owner)
    if time_limit is None:
        raise TypeError(f"{owner} plans every size within a time limit; pass time_limit=SECONDS for all the sizes "
                        "together (for example 3600), or exact_support(A, None, k) for one size without a limit.")
    time_limit = check_real(time_limit, "time_limit", low=0.0, owner=owner, low_open=True)
    goal = check_real(goal, "goal", low=0.0, owner=owner)
    if first_limit is None:
        first_limit = FIRST_SHARE * time_limit / max_k
    first_limit = check_real(first_limit, "first_limit", low=0.0, owner=owner, low_open=True)
    n_jobs = effective_jobs(n_jobs, owner)
    reserve = min(NEIGHBOUR_RESERVE_S, time_limit / 20)
    t0 = time.perf_counter()
    info = {"first_limit": first_limit, "raised": {}, "replanned": [], "root_bounds": {}}
    rows: dict[int, dict] = {}
    interrupted = False

    def report():
        if callback is None or not rows:
            return
        k = max(rows, key=lambda j: _gap(rows[j]))
        r = rows[k]
        callback(SearchState(nodes=sum(q["nodes"] for q in rows.values()), incumbent=r["objective"],
                             bound=max(r["bound"], r["objective"]), gap=max(r["bound"] - r["objective"], 0.0),
                             elapsed=time.perf_counter() - t0))

    lock = threading.Lock()  # the rows and info, shared with the workers
    halt = threading.Event()  # set on Ctrl-C: the workers' searches stop at their next node

    def search(k, limit, initial, bound=np.inf):
        """Search size k for ``limit`` seconds; keep the better support and the smaller bound."""
        nonlocal interrupted
        t = time.perf_counter()
        res = spca_size(A, k, limit, initial, spectrum, halt)
        with lock:
            r = rows.setdefault(k, {"support": [int(i) for i in res.support], "objective": res.objective,
                                    "bound": bound, "status": res.status, "time_s": 0.0, "nodes": 0})
            r["time_s"] += time.perf_counter() - t
            r["nodes"] += res.n_nodes
            if res.objective > r["objective"]:
                r["objective"], r["support"] = res.objective, [int(i) for i in res.support]
            if res.status in CERTIFIED:
                r["status"] = res.status
            r["bound"] = min(r["bound"], res.upper_bound)
            interrupted = interrupted or res.status == "interrupted"
            report()

    def first(k, t, limit):
        """Size k's first search (its turn came at ``t``, with ``limit`` seconds from then)."""
        root = {"row": row_bound(A, k, psd=True), "path": float(path_ub[k - 1]),
                "inclusion": float(incl[k - 1])}
        # every root bound is certified for all supports of size k: the smallest counts
        with lock:
            info["root_bounds"][k] = root
        S = np.sort(greedy.support(k))
        if t >= end:  # no time left for a search: the greedy support and the root bounds
            with lock:
                rows[k] = {"support": [int(i) for i in S], "objective": _lam(A, S), "bound": min(root.values()),
                           "status": "time_limit", "time_s": time.perf_counter() - t, "nodes": 0}
            return
        if 1 < k < p:  # the incumbent: the greedy support improved by swaps, as exact_support starts
            S = refine_support(A, S)[0]
        pre = time.perf_counter() - t
        search(k, max(limit - pre, 0.0), S, bound=min(root.values()))
        with lock:
            rows[k]["time_s"] += pre  # the root bounds and the swaps count as the size's time

    def again(k, limit, initial):
        """Size k's search in the re-plan, from its best support."""
        t = time.perf_counter()
        search(k, limit, initial)
        with lock:
            info["replanned"].append((k, time.perf_counter() - t))

    def raise_from_neighbours(some, deadline):
        """:func:`from_neighbours` on ``some`` sizes, recorded as (first value, last value) per size."""
        for k, (before, after) in from_neighbours(A, some, deadline).items():
            info["raised"][k] = (info["raised"].get(k, (before,))[0], after)

    spectrum = (lam_min, float(eig[-1]))
    with blas_limit(1):
        path_ub = spca_bounds_path(A, max_k)
        incl = inclusion_bounds(A, None, criterion="max-eig", form="full")
        greedy = greedy_path(A, max_k=max_k)
        end = t0 + time_limit - reserve
        pool = _Workers(n_jobs)
        try:
            for k in range(1, max_k + 1):  # 1. the first pass
                pool.wait_free()
                if interrupted:
                    break
                t = time.perf_counter()
                left = max(end - t, 0.0)  # the sizes left share it over the workers
                pool.run(first, k, t, min(first_limit, left * n_jobs / (max_k + 1 - k), left))
            pool.wait_all()
            if not interrupted:  # 2. the neighbours' supports
                raise_from_neighbours(rows, end)
                done = set()
                for _round in range(2):  # 3. the time left, by the gaps
                    order = replan_order({k: _gap(r) for k, r in rows.items()
                                          if r["status"] not in CERTIFIED and k not in done}, goal)[_round]
                    for i, k in enumerate(order):
                        pool.wait_free()
                        left = end - time.perf_counter()
                        if left <= 1.0 or interrupted:
                            break
                        with lock:
                            # the neighbours may have found better supports since the first pass
                            raise_from_neighbours({j: rows[j] for j in (k - 1, k, k + 1) if j in rows}, end)
                            w = np.array([1.0 / max(_gap(rows[j]), goal / 2) for j in order[i:]])
                            initial = list(rows[k]["support"])
                        pool.run(again, k, min(left * n_jobs * w[0] / w.sum(), left), initial)
                        done.add(k)
                    pool.wait_all()  # the next round reads the gaps this one leaves
                if not interrupted:  # 4. the last sweep
                    raise_from_neighbours(rows, t0 + time_limit)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if pool.running:  # Ctrl-C or an error with searches under way: stop them at their next node
                halt.set()
            pool.close()
    return _result(A, rows, max_k, path_ub, greedy, interrupted, time.perf_counter() - t0, info)


class _Workers:
    """Runs the plan's searches: in this thread with one job, else on ``n_jobs`` threads, at most
    ``n_jobs`` at once (a search's time goes to LAPACK calls on large blocks of ``A``, which
    release the interpreter's lock, so the threads share ``A`` and run side by side)."""

    def __init__(self, n_jobs):
        self.n_jobs = n_jobs
        self.pool = ThreadPoolExecutor(n_jobs, thread_name_prefix="exact_spca_path") if n_jobs > 1 else None
        self.running = set()

    def run(self, fn, *args):
        if self.pool is None:
            fn(*args)
        else:
            self.running.add(self.pool.submit(fn, *args))

    def _wait(self, until):
        while self.running and until():
            done, _ = wait(self.running, timeout=0.5, return_when=FIRST_COMPLETED)  # a timeout: Ctrl-C gets through
            for f in done:
                self.running.discard(f)
                f.result()  # a worker's error is raised here

    def wait_free(self):
        """Until a worker is free."""
        self._wait(lambda: len(self.running) >= self.n_jobs)

    def wait_all(self):
        """Until every search handed out has ended."""
        self._wait(lambda: True)

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.running.clear()


def _result(A, rows, max_k, path_ub, greedy, interrupted, seconds, info):
    """The :class:`ExactPath` of the rows; sizes never searched keep the greedy support."""
    missing = [k for k in range(1, max_k + 1) if k not in rows]
    if missing:
        for k in missing:
            S = [int(i) for i in greedy.support(k)]
            rows[k] = {"support": S, "objective": _lam(A, S), "bound": float(path_ub[k - 1]),
                       "status": "interrupted", "time_s": 0.0, "nodes": 0}
    supports = [np.sort(np.asarray(rows[k]["support"], dtype=np.intp)) for k in range(1, max_k + 1)]
    objective = np.array([objective_on_support(A, None, S) for S in supports])
    bound = np.array([max(rows[k]["bound"], objective[k - 1]) for k in range(1, max_k + 1)])
    for j in range(max_k - 2, -1, -1):  # opt(k) <= opt(k + 1): A is positive semi-definite
        bound[j] = max(min(bound[j], bound[j + 1]), objective[j])
    status = np.array([rows[k]["status"] if rows[k]["status"] in CERTIFIED
                       else ("interrupted" if interrupted else "time_limit") for k in range(1, max_k + 1)])
    info.update(time_s=[rows[k]["time_s"] for k in range(1, max_k + 1)],
                nodes=[rows[k]["nodes"] for k in range(1, max_k + 1)])
    search_status = ("optimal" if (status == "optimal").all() else
                     "gap_reached" if np.isin(status, CERTIFIED).all() else
                     "interrupted" if interrupted else "time_limit")
    return ExactPath(supports=supports, objective=objective, upper_bound=bound, status=status,
                     n_nodes=int(sum(info["nodes"])), time=seconds, search_status=search_status,
                     criterion="max-eig", info=info)
