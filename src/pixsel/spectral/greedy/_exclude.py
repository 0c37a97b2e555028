"""Excluded features (``never_select``, FastCan's ``indices_exclude``): no support contains them.

A greedy pass that may never pick the features ``E`` is the greedy pass of the pair restricted to
the other features ``R`` (the objective of a support inside ``R`` reads only ``A_RR``, ``B_RR``), so
:func:`excluded_path` runs the ordinary kernels on ``(A_R, B_RR)`` and maps the path back to the
original indices. The path then has ``p - |E|`` entries: a backward pass starts from all of ``R``.
"""

from __future__ import annotations

import numpy as np

from ..._validation import index_set
from .._path import SparsePath

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike, NDArray

__all__ = ["excluded_path"]


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
