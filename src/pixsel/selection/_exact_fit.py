"""The ``solver='exact'`` option shared by the sparse selectors.

A selector that has computed its statistics ``(A, B)`` and its greedy support at ``k`` calls
:func:`_exact_fit_attributes` to replace that support by the certified optimum of
:func:`pixsel.spectral.exact_support` (initialized with the greedy support). It stores
``status_``, ``gap_`` (relative), ``absolute_gap_``, ``upper_bound_``, ``n_nodes_`` and
``exact_result_`` on the estimator, keeps
``objective_path_[k - 1]`` consistent with the returned support, and warns with a
``ConvergenceWarning`` when a limit (or Ctrl-C) stopped the search before optimality was proven.

One meaning of the gap everywhere (attribute, warning, CLI summary and JSON): ``gap_`` is the
*relative* gap ``(upper_bound_ - objective) / |objective|`` -- no support of size ``k`` is more
than ``gap_`` (as a fraction) better than the one returned -- and ``absolute_gap_`` is
``upper_bound_ - objective`` in the objective's units. ``status_`` takes the words of
:data:`pixsel.spectral.exact._result.STATUSES`; the documentation's exact-search page ("Status and
certified gap") defines both once.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._progress import search_progress
from ..spectral import exact_support

__all__ = []

SOLVERS = ("greedy", "exact")


def relative_gap(upper_bound, objective):
    """``(upper_bound - objective) / |objective|``: 0 without a gap, ``inf`` for a zero objective."""
    gap = float(upper_bound) - float(objective)
    if not gap > 0:
        return 0.0
    return gap / abs(objective) if objective != 0 else float("inf")


def _exact_fit_attributes(est, A, B, k, *, criterion="max-eig", initial=None, route=None, constraints=None):
    """Solve exactly at ``k`` and store the certificate on ``est``; return the support mask.

    Parameters
    ----------
    est : estimator with ``time_limit`` (and optionally ``node_limit``, ``gap_tol``) parameters
    A : ndarray of shape (p,), (p, r) or (p, p)
    B : ndarray of shape (p, p) or None (identity)
    k : int
    criterion : {'max-eig', 'trace'}
    initial : ndarray of int of shape (k,) or None
        The greedy support at ``k`` (the incumbent to start from).
    route : Route or None
        The fit's route (:func:`pixsel._routes.choose`), completed by the search for its family
        instead of asking the route table again.

    Returns
    -------
    mask : ndarray of shape (p,) of bool
    """
    with search_progress(getattr(est, "progress", True), f"{type(est).__name__} exact") as callback:
        res = exact_support(
            A, B, k, criterion=criterion, time_limit=getattr(est, "time_limit", None),
            node_limit=getattr(est, "node_limit", None), gap_tol=getattr(est, "gap_tol", 0.0),
            initial=initial, callback=callback, never_select=_excluded(est), route=route,
            always_select=_forced(est), constraints=constraints,
        )
    return store_exact_result(est, res, k, len(res.weights))


def _forced(est):
    """The estimator's fitted ``always_select_`` where it forces features, else None."""
    F = getattr(est, "always_select_", None)
    return None if F is None or not len(F) else np.asarray(F, dtype=np.intp)


def _excluded(est):
    """The estimator's fitted ``never_select_`` where it excludes features, else None."""
    E = getattr(est, "never_select_", None)
    return None if E is None or not len(E) else np.asarray(E, dtype=np.intp)


def store_exact_result(est, res, k, n_features, *, search="exact search", rival=None):
    """Store an exact search's result ``res`` on ``est`` and return its support mask.

    ``exact_result_``, ``status_``, ``gap_``, ``absolute_gap_``, ``upper_bound_``, ``n_nodes_``;
    ``objective_path_[k - 1]`` made that of the returned support; a ``ConvergenceWarning`` when
    the search stopped before proving optimality (``search`` names it, ``rival`` names what no
    other choice beats: ``'support of size k'`` by default). Shared by the single-feature and
    the group searches.
    """
    est.exact_result_ = res
    est.status_ = res.status
    est.gap_ = float(res.relative_gap)
    est.absolute_gap_ = float(res.gap)
    est.upper_bound_ = float(res.upper_bound)
    est.n_nodes_ = int(res.n_nodes)
    if hasattr(est, "objective_path_"):
        path = np.array(est.objective_path_, dtype=float)
        path[k - 1] = res.objective
        est.objective_path_ = path
    if not res.certified:
        rival = f"support of size {k}" if rival is None else rival
        warnings.warn(
            f"{type(est).__name__}: the {search} stopped ({res.status}) after {res.n_nodes} nodes and "
            f"{res.time:.1f} s before proving optimality. The selected support has objective "
            f"{res.objective:.6g}; no {rival} exceeds {res.upper_bound:.6g} (gap_ "
            f"{res.relative_gap:.2e} relative, absolute_gap_ {res.gap:.3g}). Raise time_limit / node_limit or set gap_tol to finish.",
            ConvergenceWarning,
            stacklevel=4,
        )
    mask = np.zeros(n_features, dtype=bool)
    mask[res.support] = True
    return mask
