""":func:`pixsel.spectral.exact_path` on several cores (``n_jobs > 1``): the sizes as tasks.

The certificate of a size comes from one of two searches that need nothing from each other but
incumbents: the enumeration of that size alone (additive problems: :mod:`._allk_enum` with the
smaller sizes switched off) and a tree window (:class:`._allk_numba.PathKernel` with the
window's sizes open and every other size switched off). This process coordinates; ``n_jobs``
worker processes (a loky executor, the process pool joblib is built on, started for the call and
shut down before it returns) run the tasks:

* the enumeration from the bottom: first the sizes ``3..K`` within the enumeration's work budget
  as one task (as the sequential search does), then one size per task;
* the tree from the top: windows of ``_WINDOW`` consecutive sizes, the largest first; a window
  predicted to take ``PROBE_MIN_S`` seconds or more is first probed by the enumeration of its
  largest size alone, within the window's predicted seconds per size (a probe that overruns
  gives its size back and ends the probing);
* while some size is held by no task, a free worker takes the next task of the stream whose next
  size is predicted to cost less (from the times of the tasks done, as in the sequential search:
  the last enumerated size's time times its growth, the last window's time times the windows'
  growth (:func:`window_growth`) shared by its sizes); a stream with no time yet goes first when
  it has nothing running, and with both unknown the stream with fewer tasks running goes first;
* once every size is held, a free worker takes a second route to an open size: the lowest size
  held only by a window is enumerated alone, or the highest sizes held only by enumerations get
  a window, if that window is predicted to finish before those enumerations (else the worker
  waits). The first task to finish a size certifies it; a window switches the sizes certified
  elsewhere off, and a task whose sizes are all certified is cancelled.

Workers read the certified sizes (and the stop that a time limit or Ctrl-C sets) between chunks
from a small memory-mapped file: ``flags[0]`` stops every task, ``flags[j]`` says that size
``j`` is certified. Each task starts from the coordinator's incumbents when it is handed out
and returns the incumbents it raised. Under a time limit every task stops at the deadline: a
stopped window bounds its sizes by its open subtrees; a stopped enumeration certifies nothing.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, wait

import numpy as np

from ..._threads import blas_limit
from ._result import SearchState
from . import _allk_enum, _allk_numba

__all__ = ["effective_jobs", "run_parallel", "window_growth"]

#: the tree's windows (consecutive sizes per tree)
_WINDOW = 4
#: window timings shorter than this do not enter the growth of the windows (:func:`window_growth`)
_GROWTH_MIN_S = 0.5
#: a window predicted to take at least this many seconds is first probed by the enumeration of
#: its largest size alone, within the window's predicted seconds per size (below, the window is
#: as cheap); a probe that overruns ends the probing
PROBE_MIN_S = 2.0
#: the largest size of the first enumeration task (``None``: the work budget decides); tests
#: lower it to exercise the one-size tasks on small problems
_BLOCK_MAX = None
#: under a time limit, the first window of the tree (nothing predicts its time yet) stops after
#: this share of the time left; the tree then gives its workers to one-size enumerations (on a
#: 100-pixel image problem a window of large sizes can otherwise hold a worker for the whole
#: time limit)
FIRST_WINDOW_SHARE = 0.1
#: seconds between two progress reports of the coordinator
_REPORT_EVERY = 0.5


def effective_jobs(n_jobs, owner):
    """``n_jobs`` as a count of worker processes, scikit-learn's way: ``None`` is 1, ``-1`` every
    CPU, ``-2`` all but one; 0 is an error."""
    from ..._validation import check_int

    if n_jobs is None:
        return 1
    n_jobs = check_int(n_jobs, "n_jobs", owner=owner)
    if n_jobs == 0:
        raise ValueError(
            f"The 'n_jobs' parameter of {owner} must be a positive number of processes, or negative "
            "(-1: every CPU, -2: all but one); got 0."
        )
    from joblib import effective_n_jobs

    return max(1, int(effective_n_jobs(n_jobs)))


# ---------------------------------------------------------------- the worker side


def run_task(spec):
    """Run one task in a worker process (module level, so that it pickles by reference).

    ``spec``: ``kind`` ('enum' or 'tree'), ``sizes``, the problem (``M``, ``B``, ``max_k``,
    ``additive``), the incumbents (``inc``, ``sup``), ``K``, ``off`` and ``order`` of an
    enumeration, ``time_left`` (seconds or ``None``) and ``flags`` (the path of the flags file).
    Returns a dict: ``status`` in the words of :data:`~._result.STATUSES` ('optimal': the task
    ran to its end, which proves its sizes; 'time_limit'; 'interrupted': the coordinator's stop
    flag or Ctrl-C) or 'cancelled' (every size it held was proved by other tasks), ``found``
    (``{size: (value, support)}`` raised), ``ub`` (a stopped window's open bounds), the nodes and
    seconds."""
    t = time.perf_counter()
    deadline = None if spec["time_left"] is None else t + spec["time_left"]
    sizes = np.asarray(spec["sizes"], dtype=np.intp)
    p = spec["M"].shape[0]
    flags = np.memmap(spec["flags"], dtype=np.int8, mode="r", shape=(p + 1,))
    try:
        with blas_limit(1):
            if spec["kind"] == "enum":
                kern = _allk_enum.EnumKernel(spec["M"], spec["B"], spec["K"], spec["order"], spec["inc"], off=spec["off"])
                chunk = _allk_enum.CHUNK
            else:
                kern = _allk_numba.PathKernel.of_sizes(spec["M"], spec["B"], spec["max_k"], spec["additive"],
                                                       spec["inc"], spec["sup"], sizes)
                chunk = _allk_numba.CHUNK
            status = _drive(kern, chunk, sizes, flags, deadline, spec["kind"] == "tree")
            res = {"kind": spec["kind"], "sizes": [int(j) for j in sizes], "status": status,
                   "seconds": time.perf_counter() - t, "ub": None}
            if spec["kind"] == "enum":
                res["found"] = kern.improved()
                res["nodes"] = kern.n_nodes
                res["counters"] = (int(kern.state[2]), int(kern.state[3]))  # pair evaluations, pruned
            else:
                inc, sup = kern.incumbents()
                inc0 = spec["inc"]
                res["found"] = {j: (float(inc[j]), sup[j]) for j in range(1, p + 1)
                                if sup[j] is not None and inc[j] > inc0[j]}
                res["nodes"] = int(kern.counters[0])
                res["counters"] = (int(kern.counters[1]), int(kern.counters[2]))  # forward tried, pruned
                if status != "optimal":
                    res["ub"] = kern.upper_bounds()
    finally:
        del flags
    return res


def _drive(kern, chunk, sizes, flags, deadline, window):
    """Step a kernel until it is done, the deadline passes, the coordinator stops every task, or
    every size it holds is certified elsewhere (a window switches such sizes off as they come).
    Ctrl-C at a terminal reaches the workers too: the task then stops with what it has."""
    try:
        while kern.open:
            kern.step(chunk)
            if not kern.open:
                break
            if flags[0]:
                return "interrupted"
            if deadline is not None and time.perf_counter() > deadline:
                return "time_limit"
            done = flags[sizes] != 0
            if np.all(done):
                return "cancelled"
            if window and np.any(done):
                kern.inc[sizes[done]] = np.inf  # certified elsewhere: no subtree is kept for them
    except KeyboardInterrupt:
        return "interrupted"
    return "optimal"


# ---------------------------------------------------------------- the coordinator


def window_growth(times):
    """The growth of the tree's windows from one to the next (``times`` from the top): the largest
    ratio between consecutive windows once they take ``_GROWTH_MIN_S`` seconds (the growth itself
    grows as the windows go down; below, timings are noise), else the last ratio; at least 1. On
    UCI Sonar the growth between windows rises as they go down, so the largest ratio predicts a
    window's time better than the last one."""
    if len(times) < 2:
        return 1.0
    ratios = [b / max(a, 1e-3) for a, b in zip(times[:-1], times[1:]) if a >= _GROWTH_MIN_S]
    return max([times[-1] / max(times[-2], 1e-3), *ratios, 1.0])


class _Coordinator:
    """The schedule of the tasks (see the module doc) and the merge of their results."""

    def __init__(self, search, order, n_jobs, use_enum):
        self.search = search
        self.order = order
        self.n_jobs = n_jobs
        p, max_k = search.p, search.max_k
        self.p = p
        self.open = [j for j in range(1, max_k + 1) if not search.out[j]]
        self.certified = set()
        self.held = {j: set() for j in self.open}  # kinds of the running tasks that hold a size
        self.covered = set()  # sizes some task has held (running or finished)
        self.tree_ub = {}  # size -> the smallest bound of a stopped window
        self.enum_times = {}  # size -> seconds of its one-size enumeration
        self.block = None  # (K, seconds) of the first enumeration once it completed
        self.window_times = []  # (lowest size, seconds) of the completed windows
        self.running = {}  # future -> spec
        self.tasks = []  # per finished task: kind, sizes, status, seconds
        self.nodes = 0
        self.enum_info = {"max_size": 2, "nodes": 0, "pair_evaluations": 0, "pruned": 0, "time_s": 0.0,
                          "completed": True, "extended": 0, "from_top": []}
        self.fwd = [0, 0]
        self.windows = 0
        K = 0
        if use_enum:
            K = _allk_enum.enumeration_size(p, search.r, max_k)
            if _BLOCK_MAX is not None:
                K = min(K, _BLOCK_MAX)
        self.K0 = K if K >= 3 else 0
        self.use_enum = use_enum and self.K0 >= 3
        self.block_started = False
        self.probing = self.use_enum  # the tree's windows are probed by enumerations from the top
        self.tree_off = False  # the first window ran out of its share: no more windows

    # ---- predictions
    def _growth_enum(self, j0):
        """The enumeration's growth per size after size ``j0``: the last two one-size times, else
        the growth of its unpruned work estimate (pessimistic: pruning slows the growth)."""
        if j0 in self.enum_times and j0 - 1 in self.enum_times:
            return max(self.enum_times[j0] / max(self.enum_times[j0 - 1], 1e-6), 1.0)
        return max(_allk_enum.enumeration_growth(self.p, self.search.r, j0), 1.0)

    def _enum_cost(self, e):
        """Predicted seconds of enumerating size ``e`` alone, or ``None`` with no time to go by:
        the largest size ``j0 < e`` timed, times its growth to the power ``e - j0``; never less
        than a running smaller size's seconds so far times its growth to ``e``."""
        known = [j for j in self.enum_times if j < e]
        if known:
            j0 = max(known)
            cost = self.enum_times[j0] * self._growth_enum(j0) ** (e - j0)
        elif self.block is not None:
            K, cost = self.block
            for j in range(K, e):
                cost *= self._growth_enum(j)
        else:
            return None
        now = time.perf_counter()
        for spec in self.running.values():
            j = spec["sizes"][0]
            if spec["kind"] == "enum" and len(spec["sizes"]) == 1 and j < e:
                cost = max(cost, (now - spec["t_start"]) * self._growth_enum(j) ** (e - j))
        return cost

    def _tree_cost(self, window):
        """Predicted seconds per size of ``window``: the lowest window done, times its growth over
        the one above it for every window between (never less than a running window's seconds so
        far, grown the same way), shared by the window's sizes; ``None`` before a window is done."""
        if not self.window_times:
            return None
        done = sorted(self.window_times, reverse=True)  # from the top
        low, last = done[-1]
        growth = window_growth([t for _, t in done])
        steps = max(1, math.ceil((low - max(window)) / _WINDOW))
        cost = last * growth**steps
        now = time.perf_counter()
        for spec in self.running.values():
            top = max(spec["sizes"])
            if spec["kind"] == "tree" and max(window) < top < low:
                cost = max(cost, (now - spec["t_start"]) * growth ** max(1, math.ceil((top - max(window)) / _WINDOW)))
        return cost / len(window)

    def _window_pays(self, window):
        """Whether a second-route window is predicted to finish before the enumerations that hold
        its sizes (each predicted by :meth:`_enum_cost`, less its seconds so far): a window that
        cannot is left alone, the worker waits (on UCI Sonar a window in the middle sizes can run
        far longer than the enumerations of its sizes)."""
        ct = self._tree_cost(window)
        if ct is None:
            return True
        now = time.perf_counter()
        rest = []
        for spec in self.running.values():
            if spec["kind"] == "enum" and len(spec["sizes"]) == 1 and spec["sizes"][0] in window:
                cost = self._enum_cost(spec["sizes"][0])
                rest.append(math.inf if cost is None else cost - (now - spec["t_start"]))
        return not rest or ct * len(window) < max(rest)

    def _running(self, kind):
        return sum(1 for s in self.running.values() if s["kind"] == kind)

    def _pick(self, enum_size, window, primary):
        """``'enum'`` or ``'tree'``: the stream whose next size is predicted cheaper."""
        if enum_size is None:
            return "tree" if window else None
        if not window:
            return "enum"
        ce = self._enum_cost(enum_size)
        ct = self._tree_cost(window)
        ce = ce if ce is not None else (0.0 if not self._running("enum") else math.inf)
        ct = ct if ct is not None else (0.0 if not self._running("tree") else math.inf)
        if ce < ct:
            return "enum"
        if ct < ce:
            return "tree"
        return "enum" if self._running("enum") < self._running("tree") or (primary and ce == 0.0) else "tree"

    def next_task(self):
        """The next task for a free worker, or ``None``."""
        live = [j for j in self.open if j not in self.certified]
        if not live:
            return None
        if self.use_enum and not self.block_started:
            self.block_started = True
            block = [j for j in range(3, self.K0 + 1) if j in self.held]
            if block:
                return self._spec("enum", block, K=self.K0, off=())
        fresh = [j for j in live if j not in self.covered]

        def enumerable(j):
            return self.use_enum and self.K0 < j <= self.p - 1

        if fresh:
            cand = [j for j in fresh if enumerable(j)]
            e = cand[0] if cand else None
            window = [] if self.tree_off else sorted(fresh, reverse=True)[:_WINDOW]
            kind = self._pick(e, window, True)
            if kind == "tree" and self.probing and enumerable(max(window)):
                ct = self._tree_cost(window)
                if ct is not None and ct * len(window) >= PROBE_MIN_S:
                    # the window's largest size enumerated alone first, within the window's seconds per size
                    j = max(window)
                    return self._spec("enum", [j], K=j, off=range(1, j), budget=ct)
        else:  # every size is held: a second route to an open size
            cand = [j for j in live if enumerable(j) and self.held[j] == {"tree"}]
            e = cand[0] if cand else None
            window = [] if self.tree_off else sorted((j for j in live if self.held[j] == {"enum"}), reverse=True)[:_WINDOW]
            kind = self._pick(e, window, False)
            if kind == "tree" and not self._window_pays(window):
                return None
        if kind == "enum":
            return self._spec("enum", [e], K=e, off=range(1, e))
        if kind == "tree":
            s = self.search
            if (not self.window_times and self.use_enum and s.time_limit is not None
                    and not any(spec["kind"] == "tree" for spec in self.running.values())):
                left = s.t0 + s.time_limit - time.perf_counter()
                spec = self._spec("tree", sorted(window))
                spec["time_left"] = max(0.0, FIRST_WINDOW_SHARE * left)
                spec["first_window"] = True
                return spec
            return self._spec("tree", sorted(window))
        return None

    def _spec(self, kind, sizes, K=0, off=(), budget=None):
        """A task; ``budget``: the seconds of a probe (an enumeration from the top)."""
        s = self.search
        for j in sizes:
            self.held[j].add(kind)
            self.covered.add(j)
        left = None
        if s.time_limit is not None:
            left = s.t0 + s.time_limit - time.perf_counter()
        if budget is not None:
            left = budget if left is None else min(left, budget)
        return {"kind": kind, "sizes": list(sizes), "M": s.M, "B": s.B, "max_k": s.max_k, "additive": s.additive,
                "inc": s.inc.copy(), "sup": list(s.sup), "K": K, "off": list(off), "order": self.order,
                "time_left": left, "flags": self.flags_path, "probe": budget is not None}

    # ---- results
    def merge(self, spec, res):
        s = self.search
        for _, (value, S) in sorted(res["found"].items(), reverse=True):
            s.offer(value, S)
        for j in spec["sizes"]:
            self.held[j].discard(spec["kind"])
        self.nodes += res["nodes"]
        self.tasks.append({"kind": res["kind"], "sizes": res["sizes"], "status": res["status"],
                           "seconds": round(res["seconds"], 3)})
        if res["kind"] == "enum":
            info = self.enum_info
            info["nodes"] += res["nodes"]
            info["pair_evaluations"] += res["counters"][0]
            info["pruned"] += res["counters"][1]
            info["time_s"] += res["seconds"]
        else:
            self.fwd[0] += res["counters"][0]
            self.fwd[1] += res["counters"][1]
            self.windows += 1
        if res["status"] == "optimal":
            new = [j for j in res["sizes"] if j not in self.certified]
            self._certify(new)
            if res["kind"] == "enum":
                if len(res["sizes"]) == 1:
                    self.enum_times[res["sizes"][0]] = res["seconds"]
                else:
                    self.block = (spec["K"], res["seconds"])
                if spec.get("probe"):
                    self.enum_info["from_top"].extend(new)
                elif new:
                    self.enum_info["extended"] += len(res["sizes"]) == 1
                    self.enum_info["max_size"] = max(self.enum_info["max_size"], max(new))
            else:
                self.window_times.append((min(res["sizes"]), res["seconds"]))
        elif spec.get("first_window") and res["status"] == "time_limit" and not self.window_times:
            # the first window ran out of its share: its bounds are kept, its sizes go back to the
            # enumerations (one size per task, from the bottom), and no window is started again
            self.tree_off = True
            for j in res["sizes"]:
                self.covered.discard(j)
            ub = res["ub"]
            if ub is not None:
                for j in res["sizes"]:
                    b = ub[j]
                    if j not in self.certified and not (np.isinf(b) and b > 0):
                        self.tree_ub[j] = min(self.tree_ub.get(j, math.inf), max(float(self.search.inc[j]), float(b)))
        elif spec.get("probe") and res["status"] == "time_limit":
            # the probe overran: its size goes back to the streams, and the tree goes on from the top
            self.covered.discard(res["sizes"][0])
            self.probing = False
        elif res["kind"] == "enum" and len(res["sizes"]) > 1:
            self.enum_info["completed"] = False
        elif res["kind"] == "tree" and res["ub"] is not None:
            root = self.root
            ub = res["ub"]
            for j in res["sizes"]:
                if j in self.certified:
                    continue
                b = ub[j]
                if np.isinf(b) and b > 0:  # the root was never expanded
                    b = root
                b = max(float(s.inc[j]), float(b))
                if b <= s.inc[j]:  # no open subtree holds it: the window proved it
                    self._certify([j])
                else:
                    self.tree_ub[j] = min(self.tree_ub.get(j, math.inf), b)

    def _certify(self, sizes):
        for j in sizes:
            self.certified.add(j)
            self.flags[j] = 1

    def bounds(self):
        """Certified bound per size (index = size) from what is finished."""
        s = self.search
        ub = np.full(self.p + 1, self.root)
        for j in self.certified:
            ub[j] = s.inc[j]
        for j, b in self.tree_ub.items():
            if j not in self.certified:
                ub[j] = min(ub[j], b)
        return ub

    def report(self):
        s = self.search
        if s.callback is None:
            return
        ub = self.bounds()[1 : s.max_k + 1]
        inc = s.inc[1 : s.max_k + 1]
        with np.errstate(invalid="ignore"):
            gaps = np.where(s.out[1 : s.max_k + 1], 0.0, np.maximum(ub - inc, 0.0))
        gaps = np.where(np.isnan(gaps), 0.0, gaps)
        j = int(np.argmax(gaps))
        s.callback(SearchState(nodes=self.nodes, incumbent=float(inc[j]), bound=float(inc[j] + gaps[j]),
                               gap=float(gaps[j]), elapsed=time.perf_counter() - s.t0))

    # ---- the loop
    def run(self, executor):
        s = self.search
        stop_reason = "completed"
        stopping = False
        last_report = time.perf_counter()
        try:
            while True:
                while not stopping and len(self.running) < self.n_jobs:
                    spec = self.next_task()
                    if spec is None:
                        break
                    spec["t_start"] = time.perf_counter()
                    self.running[executor.submit(run_task, spec)] = spec
                if not self.running:
                    break
                timeout = _REPORT_EVERY
                if s.time_limit is not None and not stopping:
                    timeout = min(timeout, max(s.t0 + s.time_limit - time.perf_counter(), 0.0) + 0.01)
                finished, _ = wait(list(self.running), timeout=timeout, return_when=FIRST_COMPLETED)
                for fut in finished:
                    spec = self.running.pop(fut)
                    res = fut.result()
                    self.merge(spec, res)
                    if res["status"] == "interrupted" and not stopping:  # Ctrl-C reached a worker first
                        stop_reason, stopping = "interrupted", True
                        self.flags[0] = 1
                if (not stopping and s.time_limit is not None and time.perf_counter() - s.t0 > s.time_limit
                        and any(j not in self.certified for j in self.open)):
                    stop_reason, stopping = "time_limit", True
                    self.flags[0] = 1
                if time.perf_counter() - last_report >= _REPORT_EVERY:
                    self.report()
                    last_report = time.perf_counter()
        except KeyboardInterrupt:
            stop_reason = "interrupted"
            self.flags[0] = 1
            self._drain()
        except BaseException:
            self.flags[0] = 1
            self._drain(merge=False)
            raise
        if stop_reason == "completed" and any(j not in self.certified for j in self.open):
            stop_reason = "time_limit"  # tasks stopped at their own deadline
        return stop_reason

    def _drain(self, merge=True):
        """Wait for the running tasks (they stop within a chunk once flags[0] is set)."""
        while self.running:
            try:
                finished, _ = wait(list(self.running), timeout=1.0)
            except KeyboardInterrupt:  # a second Ctrl-C: stop waiting
                return
            for fut in finished:
                spec = self.running.pop(fut)
                if merge and fut.exception() is None:
                    self.merge(spec, fut.result())


def run_parallel(search, order, n_jobs, use_enum):
    """The open sizes of ``search`` on ``n_jobs`` worker processes (see the module doc); returns
    ``(stop_reason, inc, sup, ub, n_nodes, enum_info, info)`` indexed by size like the
    sequential search's."""
    from joblib.externals.loky import ProcessPoolExecutor

    co = _Coordinator(search, order, n_jobs, use_enum)
    co.root = search.value_of(np.arange(search.p))
    fd, path = tempfile.mkstemp(prefix="pixsel-flags-", suffix=".bin")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(bytes(search.p + 1))
        co.flags_path = path
        co.flags = np.memmap(path, dtype=np.int8, mode="r+", shape=(search.p + 1,))
        # an executor of its own, shut down before returning: no process outlives the call, and
        # joblib's reusable executor (which Parallel expects to have built itself) is left alone
        executor = ProcessPoolExecutor(max_workers=n_jobs)
        try:
            stop_reason = co.run(executor)
        finally:
            executor.shutdown(wait=True)
        co.report()
    finally:
        co.flags = None
        try:
            os.unlink(path)
        except OSError:  # pragma: no cover - a worker still maps it (Windows): the temp dir keeps it
            pass
    search.tree_info["windows"] += co.windows
    search.tree_info["forward_tried"] += co.fwd[0]
    search.tree_info["forward_pruned"] += co.fwd[1]
    info = {"n_jobs": n_jobs, "tasks": co.tasks}
    return stop_reason, search.inc.copy(), list(search.sup), co.bounds(), co.nodes, co.enum_info, info
