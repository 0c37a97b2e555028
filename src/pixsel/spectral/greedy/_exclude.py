"""Excluded features (``never_select``, FastCan's ``indices_exclude``): no support contains them.

A greedy pass that may never pick the features ``E`` is the greedy pass of the pair restricted to
the other features ``R`` (the objective of a support inside ``R`` reads only ``A_RR``, ``B_RR``), so
:func:`excluded_path` runs the ordinary kernels on ``(A_R, B_RR)`` and maps the path back to the
original indices. The path then has ``p - |E|`` entries: a backward pass starts from all of ``R``.
"""

from __future__ import annotations

import numpy as np

from .._path import SparsePath

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike, NDArray

__all__ = ["check_excluded", "excluded_path"]


def index_set(values, n_features: int, name: str, *, owner: str) -> NDArray:
    """``values`` as sorted unique indices in ``[0, n_features)`` (empty for None); a
    ``ValueError`` naming the fix for a non-integer, out-of-range or repeated index."""
    if values is None:
        return np.zeros(0, dtype=np.intp)
    v = np.atleast_1d(np.asarray(values))
    if v.size == 0:
        return np.zeros(0, dtype=np.intp)
    if v.ndim != 1 or v.dtype.kind not in "iu":
        raise ValueError(f"{owner}: {name} must be a 1-D array of integer feature indices; got {v.dtype} of "
                         f"shape {v.shape}. Pass e.g. {name}=[0, 5].")
    bad = v[(v < 0) | (v >= n_features)]
    if bad.size:
        raise ValueError(f"{owner}: {name} has indices {bad.tolist()} outside [0, {n_features - 1}] (there are "
                         f"{n_features} features); pass indices of existing features.")
    u, counts = np.unique(v, return_counts=True)
    if (counts > 1).any():
        raise ValueError(f"{owner}: {name} repeats indices {u[counts > 1].tolist()}; list each feature once.")
    return u.astype(np.intp)


def check_excluded(
    never_select: ArrayLike | None,
    n_features: int,
    *,
    always_select: ArrayLike | None = None,
    k: int | None = None,
    owner: str,
) -> NDArray:
    """``never_select`` as sorted indices, checked against the forced features and ``k``.

    Raises a ``ValueError`` before any work when an index is invalid, when a feature is both
    forced and excluded, or when fewer than ``k`` features are left.
    """
    E = index_set(never_select, n_features, "never_select", owner=owner)
    if not len(E):
        return E
    F = index_set(always_select, n_features, "always_select", owner=owner)
    both = np.intersect1d(E, F)
    if both.size:
        raise ValueError(f"{owner}: features {both.tolist()} are in both always_select and never_select; a feature "
                         "cannot be forced and excluded at once. Remove them from one of the two.")
    left = n_features - len(E)
    if k is not None and left < k:
        raise ValueError(f"{owner}: never_select leaves {left} of the {n_features} features, fewer than the {k} to "
                         f"select; exclude fewer features or ask for at most {left}.")
    if left == 0:
        raise ValueError(f"{owner}: never_select excludes every feature; leave at least one.")
    return E


def excluded_path(
    path_fn: Callable[..., SparsePath],
    A: NDArray,
    B: NDArray | None,
    E: NDArray,
    *,
    form: str,
    always_select: ArrayLike | None,
    **options,
) -> SparsePath:
    """The greedy path of ``(A, B)`` over the features outside ``E`` (checked NumPy arrays).

    ``path_fn`` is :func:`pixsel.spectral.greedy_path`; ``options`` go to it unchanged. The
    returned path's ``order`` holds original indices (``p - |E|`` of them), ``A`` and ``B`` are
    the originals (so ``weights(k)`` works) and ``info['never_select']`` is ``E``.
    """
    p = A.shape[0]
    R = np.setdiff1d(np.arange(p), E)
    full = A.ndim == 2 and A.shape[1] == p and form in ("auto", "full")
    AR = A[np.ix_(R, R)] if full else A[R]
    BR = None if B is None else B[np.ix_(R, R)]
    F = index_set(always_select, p, "always_select", owner="greedy_path")
    FR = np.searchsorted(R, F) if len(F) else None
    path = path_fn(AR, BR, form=form, always_select=FR, **options)
    path.order = R[np.asarray(path.order, dtype=np.intp)]
    path.A, path.B = A, B
    path.info = dict(path.info, never_select=E.copy())
    if "always_select" in path.info:
        path.info["always_select"] = F.copy()
    return path
