"""Fisher and simple thresholding paths on any array-API library, on the data's device.

The method of :mod:`pixsel.spectral.thresholding._thresholding`: a dense direction on the device (``B^{-1} a``
by a Cholesky-checked ``solve``; ``v`` from ``B^{-1/2}`` by one ``eigh`` of ``B``), its ranking
on the host (``p`` numbers, a stable sort), then the exact objective of every prefix on the
device: for a vector by the fixed-order forward elimination of
:func:`pixsel.spectral.greedy._rank_one_xp.rank_one_path_xp`, for a matrix or a factor by one
generalized ``eigh`` per prefix (as the NumPy kernel). The standard has no ``eigh`` of a subset
of the spectrum, so the principal eigenvector of ``B^{-1/2} A B^{-1/2}`` comes from the full
``eigh`` (the shim of :mod:`pixsel.spectral._linalg_xp`).
"""

from __future__ import annotations

import numpy as np

from ..._array_api import device_of, has_float64, to_numpy
from .._linalg_xp import objective_on_support_xp
from .._path import SparsePath
from ..greedy import check_form_pair_xp, rank_one_path_xp

__all__ = ["fisher_thresholding_path_xp", "simple_thresholding_path_xp"]


def _ranking(scores):
    return np.argsort(-np.abs(scores), kind="stable")


def _hi(xp, *arrays):
    hi = xp.float64 if has_float64(xp, device_of(arrays[0])) else xp.float32
    return [xp.astype(a, hi) for a in arrays]


def _prefix_objectives(xp, A, B, order):
    if A.ndim == 1:
        _, objective, info = rank_one_path_xp(xp, device_of(A), A, B, "forward", fixed_order=order)
        return objective, info
    objective = np.array([objective_on_support_xp(xp, A, B, order[:k]) for k in range(1, A.shape[0] + 1)])
    return objective, {"array_api": True}


def _path(xp, A, B, order, direction, scores):
    objective, info = _prefix_objectives(xp, A, B, order)
    info = dict(info, scores=scores)
    return SparsePath(order=order, objective=objective, direction=direction, A=to_numpy(A, np.float64),
                      B=to_numpy(B, np.float64), info=info)


def fisher_thresholding_path_xp(xp, a, B, singular_message):
    """:func:`pixsel.spectral.fisher_thresholding_path` for arrays of ``xp`` (on their device)."""
    check_form_pair_xp(xp, a, B, "fisher_thresholding_path", form="vector")
    a, B = _hi(xp, a, B)
    p = a.shape[0]
    eps = float(np.finfo(np.float64 if a.dtype == xp.float64 else np.float32).eps)
    try:
        L = xp.linalg.cholesky(B)
    except Exception:
        raise ValueError(singular_message.format(name="fisher_thresholding_path", ratio=0.0)) from None
    dL = xp.linalg.diagonal(L)
    ratio = float(xp.min(dL) ** 2 / xp.max(xp.abs(xp.linalg.diagonal(B))))
    if not ratio > p * eps:
        raise ValueError(singular_message.format(name="fisher_thresholding_path", ratio=ratio))
    z = xp.linalg.solve(B, a[:, None])[:, 0]
    zh = to_numpy(z, np.float64)
    return _path(xp, a, B, _ranking(zh), "fisher", zh)


def simple_thresholding_path_xp(xp, A, B, singular_message):
    """:func:`pixsel.spectral.simple_thresholding_path` for arrays of ``xp`` (on their device)."""
    form = "vector" if A.ndim == 1 else ("full" if A.ndim == 2 and A.shape[0] == A.shape[1] else "factor")
    if B is None:
        raise ValueError("simple_thresholding_path needs B; pass the identity for B = I.")
    check_form_pair_xp(xp, A, B, "simple_thresholding_path", form=form)
    A, B = _hi(xp, A, B)
    p = A.shape[0]
    eps = float(np.finfo(np.float64 if A.dtype == xp.float64 else np.float32).eps)
    s, U = xp.linalg.eigh(B)
    s_min, s_max = float(s[0]), float(s[-1])
    ratio = s_min / s_max if s_max > 0 else 0.0
    if not ratio > p * eps:
        raise ValueError(singular_message.format(name="simple_thresholding_path", ratio=ratio))
    B_isqrt = (U / xp.sqrt(s)[None, :]) @ U.T
    if form == "vector":
        v = B_isqrt @ A
    elif form == "full":
        C = B_isqrt @ A @ B_isqrt
        v = xp.linalg.eigh((C + C.T) / 2)[1][:, -1]  # no subset eigh in the standard: the full one
    else:
        v = xp.linalg.svd(B_isqrt @ A, full_matrices=False)[0][:, 0]
    vh = to_numpy(v, np.float64)
    return _path(xp, A, B, _ranking(vh), "simple", vh)
