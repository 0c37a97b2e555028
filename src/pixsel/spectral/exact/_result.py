"""What a branch-and-bound search reports: its progress records and its result."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._path import SparsePath

__all__ = ["SearchState", "ExactResult", "tighten_path_bound", "STATUSES", "CERTIFIED", "status_of_stop"]

#: the one vocabulary of a certificate's status, for :func:`exact_support`, :func:`exact_path` (per
#: size) and the estimators' ``status_``: a proved result (``CERTIFIED``) or why the search stopped
#: first (a limit or Ctrl-C; its bound is still certified). The documentation's exact-search page
#: ("Status and certified gap") defines the words and the relative gap.
STATUSES = ("optimal", "gap_reached", "time_limit", "node_limit", "interrupted")
CERTIFIED = ("optimal", "gap_reached")


def status_of_stop(stop_reason: str) -> str:
    """The status of a size that a search did not prove, from why the search ended.

    ``'time_limit'``, ``'node_limit'`` and ``'interrupted'`` stay; a search that ran to its end and
    still left the size open can only have been cut by a deadline of its own (a parallel task's
    share of the time limit): ``'time_limit'``.
    """
    return stop_reason if stop_reason in STATUSES[2:] else "time_limit"


@dataclass(frozen=True)
class SearchState:
    """Where a branch-and-bound search stands, as passed to ``exact_support(callback=...)``.

    Attributes
    ----------
    nodes : int
        Nodes processed so far.
    incumbent : float
        Objective of the best support found so far.
    bound : float
        Certified upper bound on every support of size ``k`` (so far).
    gap : float
        ``bound - incumbent``.
    elapsed : float
        Seconds since the search started.
    """

    nodes: int
    incumbent: float
    bound: float
    gap: float
    elapsed: float


@dataclass
class ExactResult:
    """The outcome of :func:`exact_support`.

    Attributes
    ----------
    support : ndarray of shape (k,)
        Sorted indices of the best support found.
    objective : float
        Its objective, recomputed from scratch with :func:`objective_on_support` (for ``'trace'``
        the trace ``tr(B_SS^{-1} A_SS)``).
    weights : ndarray of shape (p,)
        The renormalized weights on the support (principal generalized eigenvector,
        :func:`weights_on_support`), zero elsewhere.
    upper_bound : float
        A certified upper bound on the objective of *every* support of size ``k``. Equal to
        ``objective`` (up to rounding) when ``status == 'optimal'``.
    gap : float
        ``upper_bound - objective`` (absolute, >= 0); :attr:`relative_gap` is the certified gap
        the documentation's exact-search page defines ("Status and certified gap").
    n_nodes : int
        Search-tree nodes processed.
    time : float
        Wall-clock seconds.
    status : str
        One of :data:`STATUSES`, the vocabulary shared with :func:`exact_path` and the
        estimators: ``'optimal'`` (search completed, the support is optimal), ``'gap_reached'``
        (search completed with the relative ``gap_tol``: the objective is within it of the
        optimum), ``'time_limit'``, ``'node_limit'`` (stopped by a limit; the bound is still
        certified) or ``'interrupted'`` (Ctrl-C: the best support and a certified bound are
        returned instead of losing the work).
    info : dict
        ``'partner'`` where a compiled search of size ``k`` ran beside the branch and bound (an
        additive problem, see :func:`exact_support`): its ``'kind'`` (``'enumeration'`` or
        ``'tree'``), whether it started and completed (a completed one proved the optimum), its
        nodes (included in ``n_nodes``) and its seconds.
    """

    support: np.ndarray
    objective: float
    weights: np.ndarray
    upper_bound: float
    gap: float
    n_nodes: int
    time: float
    status: str
    k: int = 0
    criterion: str = "max-eig"
    info: dict = field(default_factory=dict, repr=False)

    @property
    def relative_gap(self) -> float:
        """The certified gap ``(upper_bound - objective) / |objective|`` (``inf`` when the objective
        is 0 and the gap is not); 0 where ``status == 'optimal'``."""
        if self.gap <= 0:
            return 0.0
        return self.gap / abs(self.objective) if self.objective != 0 else math.inf

    @property
    def certified(self) -> bool:
        """True when the search completed (``'optimal'`` or ``'gap_reached'``)."""
        return self.status in CERTIFIED


def tighten_path_bound(path: SparsePath, result: ExactResult) -> SparsePath:
    """A copy of ``path`` whose ``upper_bound`` at ``result.k`` uses the solve's certificate.

    The certified bound of a finished or stopped :func:`exact_support` bounds every support of
    size ``k``, so it can replace a looser entry of a greedy path's ``upper_bound`` (the smaller
    of the two is kept). Where the path has no bound yet, the other entries are ``inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.spectral import exact_support, greedy_path
    >>> a = np.array([1.0, 0.2, 0.9, 0.1]); B = np.eye(4) + 0.5 * np.ones((4, 4))
    >>> path = greedy_path(a, B, direction="forward")
    >>> res = exact_support(a, B, 2)
    >>> tight = tighten_path_bound(path, res)
    >>> bool(np.isclose(tight.upper_bound[1], res.upper_bound))
    True
    """
    if not isinstance(path, SparsePath):
        raise TypeError(f"path must be a SparsePath; got {type(path).__name__}.")
    if not isinstance(result, ExactResult):
        raise TypeError(f"result must be an ExactResult; got {type(result).__name__}.")
    k = path._check_k(result.k)
    ub = np.full(path.n_features, np.inf) if path.upper_bound is None else np.array(path.upper_bound, float)
    ub[k - 1] = min(ub[k - 1], result.upper_bound)
    # the path's own support at k is feasible: the bound never goes below it
    ub[k - 1] = max(ub[k - 1], path.objective[k - 1])
    info = dict(path.info)
    info.setdefault("exact", {})[int(k)] = {"status": result.status, "n_nodes": result.n_nodes}
    return SparsePath(
        order=path.order, objective=path.objective, direction=path.direction, A=path.A, B=path.B,
        upper_bound=ub, info=info,
    )
