"""I.i.d. feature sampling with importance weights, duplicates merged.

Draw ``c`` features i.i.d. with probabilities ``p_i`` (proportional to a non-negative score) and
let ``S`` be the ``p x c`` sampling-and-rescaling matrix whose column ``t`` is
``e_{i_t} / sqrt(c p_{i_t})``. Then ``E[S S^T] = c sum_i p_i e_i e_i^T / (c p_i) = I``, so
``E[A S S^T A^T] = A A^T``: the reduced data preserve the Gram matrix (and all pairwise
distances and k-means costs) in expectation (Musco and Musco, section 3).

Merging duplicates. If feature ``i`` is drawn ``k_i`` times, its ``k_i`` identical columns
``A_i / sqrt(c p_i)`` contribute ``k_i A_i A_i^T / (c p_i)`` to ``A S S^T A^T``. A single column
``w_i A_i`` with ``w_i = sqrt(k_i / (c p_i))`` (the square root of the summed per-draw weights
``1 / (c p_i)``) contributes exactly the same, so merging changes ``A S S^T A^T`` not at all, for
every draw, and in particular keeps it unbiased.
"""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["sample_features", "sample_distinct_features", "merge_draws", "top_features"]


def top_features(importance: ArrayLike, n_features_to_select: int) -> NDArray:
    """Indices of the ``n_features_to_select`` largest importances, ties to the lowest index.

    Examples
    --------
    >>> top_features([1.0, 3.0, 3.0, 0.5], 2).tolist()
    [1, 2]
    """
    imp = np.asarray(importance, dtype=np.float64)
    order = np.argsort(-imp, kind="stable")
    return np.sort(order[:n_features_to_select])


def _probabilities(imp):
    """``imp / sum(imp)``, or a clear error for scores that cannot be sampled from."""
    if not np.all(np.isfinite(imp)) or np.any(imp < 0) or not imp.sum() > 0:
        raise ValueError(
            "Sampling needs finite, non-negative scores with a positive sum; got "
            f"{int(np.sum(~np.isfinite(imp)))} non-finite, {int(np.sum(imp < 0))} negative, "
            f"sum {float(np.nansum(imp)):.3g}. Use mode='top' instead, or a score that is "
            "finite on these data."
        )
    return imp / imp.sum()


def sample_distinct_features(
    importance: ArrayLike,
    n_features_to_select: int,
    random_state: int | np.random.RandomState | None,
) -> tuple[NDArray, NDArray]:
    """Draw ``n_features_to_select`` distinct features, each draw without replacement with
    probability proportional to ``importance`` among the features not drawn yet.

    Successive sampling: the first feature is drawn with ``p_i = v_i / sum(v)``, the next from
    the rest with the scores renormalized, and so on, so that no draw is spent on a feature
    already chosen (i.i.d. draws, :func:`sample_features`, repeat the features of largest score
    and select fewer distinct ones than asked). A selection for a downstream model, unscaled:
    unlike the i.i.d. sketch it does not keep ``A A^T`` in expectation.

    Parameters
    ----------
    importance : array-like of shape (n_features,)
        Non-negative and finite, with at least ``n_features_to_select`` positive entries.
    n_features_to_select : int
    random_state : numpy.random.Generator or RandomState

    Returns
    -------
    indices : ndarray of shape (n_features_to_select,)
        The drawn features, increasing.
    probabilities : ndarray of shape (n_features,)
        ``v_i / sum(v)``, the probabilities of the first draw.

    Examples
    --------
    >>> import numpy as np
    >>> idx, prob = sample_distinct_features([0.0, 1.0, 0.0, 3.0], 2, np.random.default_rng(0))
    >>> idx.tolist(), prob.tolist()
    ([1, 3], [0.0, 0.25, 0.0, 0.75])
    """
    imp = np.asarray(importance, dtype=np.float64)
    k = int(n_features_to_select)
    prob = _probabilities(imp)
    positive = int(np.count_nonzero(imp))
    if k > positive:
        raise ValueError(
            f"Drawing {k} distinct features needs {k} positive scores; only {positive} of the "
            f"{imp.size} are positive (the others, e.g. constant pixels, are never drawn). Lower "
            f"n_features_to_select to at most {positive}, or use mode='top'."
        )
    # Generator.choice / RandomState.choice without replacement with weights: successive draws,
    # each renormalized over the features not drawn yet
    idx = random_state.choice(imp.size, size=k, replace=False, p=prob)
    return np.sort(idx), prob


def sample_features(
    importance: ArrayLike,
    n_draws: int,
    random_state: int | np.random.RandomState | None,
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Draw ``n_draws`` features i.i.d. with probability proportional to ``importance``.

    Parameters
    ----------
    importance : array-like of shape (n_features,)
        Non-negative, finite, with a positive sum.
    n_draws : int
        ``c``, the number of i.i.d. draws.
    random_state : numpy.random.Generator or RandomState

    Returns
    -------
    indices : ndarray of shape (n_unique,)
        The distinct drawn features, increasing.
    counts : ndarray of shape (n_unique,)
        How many times each was drawn (sums to ``n_draws``).
    weights : ndarray of shape (n_unique,)
        ``sqrt(counts / (n_draws * p_i))``, the merged rescaling.
    probabilities : ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> idx, cnt, w, prob = sample_features([0.0, 1.0, 0.0], 3, np.random.default_rng(0))
    >>> idx.tolist(), cnt.tolist(), w.tolist()
    ([1], [3], [1.0])
    """
    prob = _probabilities(np.asarray(importance, dtype=np.float64))
    # inverse-CDF draws: one uniform per draw, identical for Generator and RandomState
    u = random_state.random_sample(n_draws) if isinstance(random_state, np.random.RandomState) \
        else random_state.random(n_draws)
    cdf = np.cumsum(prob)
    cdf /= cdf[-1]
    draws = np.searchsorted(cdf, u, side="right")
    draws = np.minimum(draws, len(prob) - 1)
    # a zero-probability feature can never be drawn (searchsorted skips flat CDF steps)
    indices, counts, weights = merge_draws(draws, prob)
    return indices, counts, weights, prob


def merge_draws(draws: ArrayLike, probabilities: ArrayLike) -> NDArray:
    """Merge a sequence of i.i.d. draws into distinct features, counts and merged weights.

    Parameters
    ----------
    draws : array-like of int, shape (c,)
        The drawn feature indices, in draw order.
    probabilities : array-like of shape (n_features,)
        The sampling distribution.

    Returns
    -------
    indices, counts, weights : ndarrays of shape (n_unique,)
        ``weights = sqrt(counts / (c * p[indices]))`` (see the module docstring).

    Examples
    --------
    >>> merge_draws([2, 0, 2], [0.5, 0.25, 0.25])[2].round(4).tolist()
    [0.8165, 1.633]
    """
    draws = np.asarray(draws)
    prob = np.asarray(probabilities, dtype=np.float64)
    indices, counts = np.unique(draws, return_counts=True)
    weights = np.sqrt(counts / (len(draws) * prob[indices]))
    return indices, counts, weights
