"""The searches on top of a greedy pass: beam search and swap refinement of every size.

:func:`searched_path` is what :func:`pixsel.spectral.greedy_path` runs when asked for
``beam_width > 1`` or ``refine``: the plain pass first (with its forced and excluded features),
then the beam (:mod:`._beam`) and the swaps (:mod:`._swap`) from its supports. The supports of a
searched path are no longer nested: ``path.info['supports']`` holds, per size, the support read
there where it is not the prefix of ``order`` (:meth:`pixsel.spectral.SparsePath.support` reads
it), and ``objective`` is the objective of that support.
"""

from __future__ import annotations

import numpy as np

from .._path import SparsePath
from ._beam import beam_path
from ._swap import swap_refine

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["searched_path"]


def searched_path(
    path_fn: Callable[..., SparsePath],
    A: np.ndarray,
    B: np.ndarray | None,
    *,
    beam_width: int,
    sweeps: int,
    criterion: str,
    form: str,
    max_k: int | None,
    always_select,
    never_select,
    **options,
) -> SparsePath:
    """The path of ``path_fn`` (checked NumPy ``A``, ``B``; ``form`` resolved), then the beam of
    width ``beam_width`` over the forward pass and ``sweeps`` swap sweeps at every size."""
    p = A.shape[0]
    path = path_fn(A, B, criterion=criterion, form=form, max_k=max_k, always_select=always_select,
                   never_select=never_select, **options)
    F = path.info.get("always_select", np.zeros(0, dtype=np.intp))
    E = path.info.get("never_select", np.zeros(0, dtype=np.intp))
    if beam_width > 1:
        n = len(path.order) if max_k is None else max_k
        M = A
        if form == "full":  # the gains read a factor: A = M M^T (A positive semidefinite)
            w, V = np.linalg.eigh((A + A.T) / 2)
            if w.min() < -1e-10 * max(1.0, abs(w).max()):
                raise ValueError("greedy_path: the beam search with a full A needs A positive semidefinite (the "
                                 "trace criterion then splits over a factor); pass a factor M with A = M M^T.")
            keep = w > 1e-14 * max(1.0, w.max())
            M = V[:, keep] * np.sqrt(w[keep])
        # the beam's sizes are reported through the pass's callback, after the pass's own steps
        path = beam_path(M, B, beam_width, max_k=n, forward=path, always_select=F, never_select=E,
                         callback=options.get("callback"))
    if sweeps:
        supports = dict(path.info.get("supports", {}))
        objective = np.array(path.objective, dtype=np.float64)
        n_swaps = 0
        left = p - len(E)
        for k in range(max(len(F), 1), len(path.order) + 1):
            if k >= left:  # every allowed feature is in: nothing to swap
                break
            res = swap_refine(A, B, path.support(k), criterion=criterion, max_sweeps=sweeps, always_select=F,
                              never_select=E)
            if res.n_swaps:
                supports[k], objective[k - 1] = res.support, res.objective
                n_swaps += res.n_swaps
        path.objective = objective
        path.info = dict(path.info, supports=supports, n_swaps=n_swaps)
    return path
