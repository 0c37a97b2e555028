"""Cluster stability selection: resampled supports pooled over clusters of correlated features.

Stability selection (Meinshausen and Buehlmann, "Stability selection", JRSS-B, 2010) counts
how often each feature is in the support of a selector fitted on random half-samples. When
features are nearly interchangeable (neighbouring pixels of an image), each resample may pick
another member of the same group and the count splits among them. Cluster stability selection
(Faletto and Bien, "Cluster stability selection", 2022) counts the *cluster* instead: a cluster
is selected by a resample when at least one of its members is.

Two kernels, on small dense arrays (the selectors validate their arguments and compute the
covariance with :func:`pixsel.stats.covariance`):

* :func:`correlation_clusters`: clusters of features whose absolute correlations are all at
  least a threshold (complete linkage on ``1 - |r|``, cut at ``1 - threshold``);
* :func:`cluster_stability_order`: the selection frequencies of the features and of their
  clusters, and the order in which features are selected (the most frequent clusters first,
  each by its most frequently selected member).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["correlation_clusters", "cluster_stability_order"]

#: The rounding allowed on a correlation: ``threshold=1`` pools exact duplicates (up to sign and
#: scale) however the correlation of two copies rounds.
_ROUNDING = 1e-12


def correlation_clusters(cov: ArrayLike, threshold: float) -> NDArray:
    """Clusters of features whose pairwise absolute correlations are all ``>= threshold``.

    Complete-linkage agglomeration of the features on the dissimilarity ``1 - |r_ij|``, cut at
    height ``1 - threshold``: within a cluster *every* pair is correlated at least
    ``threshold`` in absolute value, up to a rounding of ``1e-12`` (no chaining through
    intermediate features, as single linkage would allow along the smooth regions of an image);
    ``threshold=1`` pools exact duplicates up to sign and scale. A feature of zero variance is
    a cluster of its own.

    Parameters
    ----------
    cov : array-like of shape (n_features, n_features)
        A covariance (or correlation) matrix.
    threshold : float in (0, 1]
        The smallest absolute correlation inside a cluster.

    Returns
    -------
    labels : ndarray of shape (n_features,) of int
        The cluster of each feature, ``0 .. n_clusters - 1`` numbered in order of the first
        feature of each cluster (so features that are all alone get ``labels == arange(p)``).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([0., 1., 2., 3., 4., 5.])
    >>> X = np.column_stack([x, 2 * x + 0.1 * np.sin(x), np.cos(x), -x])
    >>> correlation_clusters(np.cov(X, rowvar=False), 0.9).tolist()
    [0, 0, 1, 0]
    >>> correlation_clusters(np.cov(X, rowvar=False), 1.0).tolist()  # only x and -x: |r| = 1
    [0, 1, 2, 0]
    """
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    C = np.asarray(cov, dtype=np.float64)
    if C.ndim != 2 or C.shape[0] != C.shape[1]:
        raise ValueError(f"cov must be a square matrix; got shape {C.shape}.")
    if not 0.0 < float(threshold) <= 1.0:
        raise ValueError(f"threshold must be in (0, 1]; got {threshold!r}.")
    p = C.shape[0]
    if p < 2:
        return np.zeros(p, dtype=np.intp)
    d = np.sqrt(np.clip(np.diag(C), 0.0, None))
    live = d > 0
    R = np.zeros_like(C)
    R[np.ix_(live, live)] = C[np.ix_(live, live)] / np.outer(d[live], d[live])
    D = 1.0 - np.clip(np.abs(R), 0.0, 1.0)
    D = (D + D.T) / 2  # exactly symmetric, zero diagonal
    np.fill_diagonal(D, 0.0)
    height = 1.0 - float(threshold) + _ROUNDING  # a correlation of 1 may be computed as 1 - 2e-16
    raw = fcluster(linkage(squareform(D, checks=False), method="complete"), height, criterion="distance")
    _, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
    renumber = np.empty(len(first), dtype=np.intp)
    renumber[np.argsort(first, kind="stable")] = np.arange(len(first))
    return renumber[inverse.ravel()]


def cluster_stability_order(supports: ArrayLike, labels: ArrayLike,
                            ranking: ArrayLike) -> tuple[NDArray, NDArray, NDArray]:
    """The order in which cluster stability selection takes the features.

    A cluster's frequency is the fraction of the resampled supports holding at least one of its
    members (Faletto and Bien's cluster selection proportion). Clusters are taken from the most
    frequent, each by its most frequently selected member (ties: the earlier entry ``ranking``
    of the full-data fit, then the lower index); clusters of equal frequency by their
    representative's own frequency, then its ``ranking``, then its index. Once every cluster has given one
    member, the second members follow in the same cluster order, and so on. The support of size
    ``k`` is ``order[:k]``.

    With one feature per cluster (``labels == arange(p)``) the order is that of plain stability
    selection, ``np.lexsort((ranking, -frequencies))``.

    Parameters
    ----------
    supports : array-like of shape (n_resamples, n_features) of bool
        The support of each resampled fit.
    labels : array-like of shape (n_features,) of int
        The cluster of each feature, ``0 .. n_clusters - 1`` (:func:`correlation_clusters`).
    ranking : array-like of shape (n_features,) of int
        The step at which each feature enters the full-data path (smaller first).

    Returns
    -------
    order : ndarray of shape (n_features,) of int
        Every feature, in the order of selection.
    frequencies : ndarray of shape (n_features,)
        The fraction of the supports holding each feature.
    cluster_frequencies : ndarray of shape (n_clusters,)
        The fraction of the supports holding at least one member of each cluster.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [1, 0, 1, 0]], dtype=bool)
    >>> order, freq, cfreq = cluster_stability_order(S, [0, 0, 1, 2], [1, 2, 3, 4])
    >>> order[:2].tolist(), cfreq.round(2).tolist()
    ([0, 3], [1.0, 0.33, 0.67])
    """
    S = np.asarray(supports, dtype=bool)
    labels = np.asarray(labels, dtype=np.intp)
    ranking = np.asarray(ranking)
    if S.ndim != 2 or labels.shape != (S.shape[1],) or ranking.shape != (S.shape[1],) or not S.shape[0]:
        raise ValueError(f"supports must be (n_resamples >= 1, n_features) with labels and ranking of shape "
                         f"(n_features,); got {S.shape}, {labels.shape} and {ranking.shape}.")
    n_clusters = int(labels.max()) + 1 if labels.size else 0
    if labels.size and (labels.min() < 0 or np.unique(labels).size != n_clusters):
        raise ValueError("labels must number the clusters 0 .. n_clusters - 1, each used at least once.")
    frequencies = S.sum(axis=0) / S.shape[0]
    hit = np.zeros((S.shape[0], n_clusters), dtype=bool)
    rows, cols = np.nonzero(S)
    hit[rows, labels[cols]] = True
    cluster_frequencies = hit.sum(axis=0) / S.shape[0]
    # members: the most frequent first, then the earlier entry (lexsort is stable: then the index)
    by_member = np.lexsort((ranking, -frequencies))
    grouped = by_member[np.argsort(labels[by_member], kind="stable")]  # by cluster, members in that order
    starts = np.searchsorted(labels[grouped], np.arange(n_clusters))
    position = np.empty_like(labels)
    position[grouped] = np.arange(labels.size) - starts[labels[grouped]]  # 0 for the representative
    rep = grouped[starts]
    by_cluster = np.lexsort((rep, ranking[rep], -frequencies[rep], -cluster_frequencies))
    cluster_rank = np.empty(n_clusters, dtype=np.intp)
    cluster_rank[by_cluster] = np.arange(n_clusters)
    order = np.lexsort((cluster_rank[labels], position))
    return order, frequencies, cluster_frequencies
