"""Groups of features for the path selectors: whole colour pixels, image patches, any ids.

A selector with groups chooses ``k`` *groups* (``n_features_to_select`` counts groups) and the
objective is that of the union of their features (:func:`pixsel.spectral._groups.group_greedy_path`).
The groups come from, in this order:

* ``groups``: one id per feature (array-like), or ``'channels'`` for every feature alone;
* ``patch_size=(a, b)``: non-overlapping ``a x b`` blocks of an image stack ``(n, h, w)`` or
  ``(n, h, w, c)`` (all the channels of a block form one group);
* an ``(n, h, w, c)`` colour stack: its pixels (the ``c`` channels of a pixel form one group).

An image stack is flattened in C order (``X.reshape(n, -1)``: feature ``(i * w + j) * c + ch``)
and its shape kept in ``image_shape_`` (:class:`pixsel.selection._base.ImageSelectorMixin`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._array_api import to_numpy
from .._validation import resolve_k
from ..spectral import check_groups, exact_group_support, group_beam_search, group_greedy_path, group_swap_refine
from ._exact_fit import store_exact_result

__all__ = ["pixel_groups", "patch_groups"]


def pixel_groups(image_shape: tuple[int, ...]) -> np.ndarray:
    """One group per pixel of images of shape ``(h, w, c)`` flattened in C order.

    Examples
    --------
    >>> pixel_groups((1, 2, 3)).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    h, w, c = (tuple(image_shape) + (1,))[:3] if len(image_shape) == 2 else tuple(image_shape)
    return np.repeat(np.arange(h * w), c)


def patch_groups(image_shape: tuple[int, ...], patch_size: tuple[int, int], *, owner: str | None = None) -> np.ndarray:
    """One group per non-overlapping ``a x b`` patch of ``(h, w)`` or ``(h, w, c)`` images.

    Groups are numbered row by row of patches; a patch of a colour image holds all its channels.

    Examples
    --------
    >>> patch_groups((2, 4), (2, 2)).tolist()
    [0, 0, 1, 1, 0, 0, 1, 1]
    >>> patch_groups((3, 4), (2, 2))
    Traceback (most recent call last):
    ...
    ValueError: patch_size=(2, 2) does not tile images of 3 x 4 pixels: 3 rows are not a multiple of 2. Use a patch_size whose sides divide the image (for example (1, 2) or (3, 2)), or crop the images to 2 x 4 first.
    """
    who = f"{owner}: " if owner else ""
    if len(image_shape) not in (2, 3):
        raise ValueError(f"{who}patch_size needs images of shape (h, w) or (h, w, c); got {tuple(image_shape)}.")
    h, w = int(image_shape[0]), int(image_shape[1])
    c = int(image_shape[2]) if len(image_shape) == 3 else 1
    try:
        a, b = (int(v) for v in patch_size)
    except (TypeError, ValueError):
        raise ValueError(f"{who}patch_size must be a pair of ints (rows, columns); got {patch_size!r}.") from None
    if a < 1 or b < 1:
        raise ValueError(f"{who}patch_size must hold positive ints; got {(a, b)}.")
    if h % a or w % b:
        why = f"{h} rows are not a multiple of {a}" if h % a else f"{w} columns are not a multiple of {b}"
        divisors = [(x, y) for x in range(1, h + 1) if h % x == 0 for y in range(1, w + 1) if w % y == 0]
        near = sorted(divisors, key=lambda d: (abs(d[0] - a) + abs(d[1] - b), d))[:2]
        raise ValueError(
            f"{who}patch_size={(a, b)} does not tile images of {h} x {w} pixels: {why}. Use a patch_size "
            f"whose sides divide the image (for example {near[0]} or {near[-1]}), or crop the images to "
            f"{h - h % a} x {w - w % b} first."
        )
    rows = np.arange(h)[:, None] // a
    cols = np.arange(w)[None, :] // b
    ids = rows * (w // b) + cols
    return np.repeat(ids.ravel(), c)


@dataclass
class Grouping:
    """The groups of one fit: codes per feature, the ids a user reads, their kind, and ``k``."""

    codes: np.ndarray
    ids: np.ndarray
    kind: str
    n_groups: int
    k: int


def fit_groups(est, n_features, image_shape):
    """The :class:`Grouping` of ``est``'s fit, or None for single features (see the module notes)."""
    owner = type(est).__name__
    groups, patch = getattr(est, "groups", None), getattr(est, "patch_size", None)
    if isinstance(groups, str):
        if groups != "channels":
            raise ValueError(
                f"{owner}: groups must be an array of one group id per feature, 'channels' or None; got {groups!r}."
            )
        if patch is not None:
            raise ValueError(f"{owner}: groups='channels' selects single features; drop patch_size, or drop groups.")
        return None
    if groups is not None and patch is not None:
        raise ValueError(f"{owner}: give groups or patch_size, not both (patch_size builds the groups of an image stack).")
    if patch is not None:
        if image_shape is None:
            raise ValueError(
                f"{owner}: patch_size needs the images' shape: pass X as an image stack of shape (n, h, w) or "
                "(n, h, w, c) rather than flattened rows, or give groups=patch_groups((h, w), patch_size)."
            )
        ids, kind = patch_groups(image_shape, patch, owner=owner), "patches"
    elif groups is not None:
        ids, kind = np.asarray(groups), "groups"
    elif image_shape is not None and len(image_shape) == 3:
        ids, kind = pixel_groups(image_shape), "pixels"
    else:
        return None
    codes, labels = check_groups(ids, n_features, owner=owner)
    if getattr(est, "algorithm", "auto") == "implicit":
        raise ValueError(
            f"{owner}: groups (colour pixels, patches or given ids) need algorithm='dense' or 'auto' (the group "
            "paths use the p x p statistics); pass groups='channels' for the implicit single-feature path."
        )
    n_groups = len(labels)
    v = est.n_features_to_select
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > n_groups:
        raise ValueError(
            f"The 'n_features_to_select' parameter of {owner} counts {kind} when features are grouped, so it must "
            f"be an int in the range [1, {n_groups}] (X has {n_groups} {kind}). Got {int(v)} instead. Pass "
            f"n_features_to_select <= {n_groups}, or groups='channels' (--channels in the command line) to count "
            "single features."
        )
    k = resolve_k(v, n_groups, owner)
    return Grouping(codes=codes, ids=ids, kind=kind, n_groups=n_groups, k=k)


def group_paths(grouping, A, B, direction, *, criterion="max-eig", max_k=None, progress=None):
    """The forward and/or backward group paths of ``direction`` on host copies of ``(A, B)``."""
    A = to_numpy(A, np.float64)
    B = None if B is None else to_numpy(B, np.float64)
    fwd = bwd = None
    if direction in ("forward", "dual"):
        fwd = group_greedy_path(A, B, grouping.codes, direction="forward", criterion=criterion, max_k=max_k,
                                callback=None if progress is None else progress("forward path"))
    if direction in ("backward", "dual"):
        bwd = group_greedy_path(A, B, grouping.codes, direction="backward", criterion=criterion,
                                callback=None if progress is None else progress("backward path"))
    return fwd, bwd


def store_groups(est, grouping, image_shape):
    """The fitted group attributes (after ``support_`` is set)."""
    support = to_numpy(est.support_).astype(bool)
    est.image_shape_ = image_shape
    est.n_features_selected_ = int(support.sum())
    if grouping is None:
        est.groups_ = None
        est.n_groups_ = int(support.shape[0])
        est.group_support_ = support.copy()
    else:
        est.groups_ = grouping.ids
        est.n_groups_ = grouping.n_groups
        gs = np.zeros(grouping.n_groups, dtype=bool)
        gs[grouping.codes[support]] = True
        est.group_support_ = gs
    if image_shape is not None:
        mask = support.reshape(image_shape)
        est.image_support_ = mask.any(axis=2) if mask.ndim == 3 else mask
    else:
        est.image_support_ = None


def search_groups_at_k(est, grouping, A, B, k, *, criterion="max-eig", beam_width=1, sweeps=0):
    """The beam over groups (``beam_width > 1``) and the group swaps (``sweeps`` moves at most) at
    ``k``: ``support_`` and ``objective_path_[k - 1]`` take the better union they find, never one
    below the greedy union; ``n_swaps_`` counts the swaps (:func:`pixsel.spectral.group_beam_search`,
    :func:`pixsel.spectral.group_swap_refine`). The other sizes keep the greedy group path."""
    A = to_numpy(A, np.float64)
    B = None if B is None else to_numpy(B, np.float64)
    chosen = np.unique(grouping.codes[to_numpy(est.support_).astype(bool)])
    value = float(est.objective_path_[k - 1])
    if beam_width > 1:  # the fit's forward group path is the beam's floor: not computed again
        fwd = est.forward_path_
        res = group_beam_search(A, B, grouping.codes, k, width=beam_width, criterion=criterion,
                                greedy=fwd if fwd is not None and len(fwd.order) >= k else None)
        if res.objective > value:
            chosen, value = res.groups, res.objective
    if sweeps:
        res = group_swap_refine(A, B, grouping.codes, chosen, criterion=criterion, max_sweeps=sweeps)
        est.n_swaps_ = res.n_swaps
        if res.n_swaps:
            chosen, value = res.groups, res.objective
    est.support_ = np.isin(grouping.codes, chosen)
    est.objective_path_[k - 1] = value


def exact_group_fit(est, grouping, A, B, k, *, criterion="max-eig"):
    """``solver='exact'`` over groups: the certified best union of ``k`` groups stored on ``est``
    (``status_``, ``gap_``, ``absolute_gap_``, ``upper_bound_``, ``n_nodes_``), started from the
    greedy groups at ``k``; returns the support mask."""
    A = to_numpy(A, np.float64)
    B = None if B is None else to_numpy(B, np.float64)
    support = to_numpy(est.support_).astype(bool)
    initial = np.unique(grouping.codes[support])
    res = exact_group_support(
        A, B, grouping.codes, k, criterion=criterion, initial=initial, time_limit=getattr(est, "time_limit", None),
        node_limit=getattr(est, "node_limit", None), gap_tol=getattr(est, "gap_tol", 0.0),
    )
    return store_exact_result(est, res, k, len(grouping.codes), search="exact group search",
                              rival=f"union of {k} groups")
