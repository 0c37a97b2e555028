"""Sparse k-nearest-neighbour graph with heat-kernel weights, for the Laplacian score.

This is the one place in the kernel layer that imports scikit-learn, by design: the neighbour
search is :func:`sklearn.neighbors.kneighbors_graph` (a tree or brute-force search that never
builds the dense ``n x n`` distance matrix), which the issue names. The graph is returned as a
SciPy CSR matrix with ``n_samples * n_neighbors`` to ``2 * n_samples * n_neighbors`` stored
entries.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["heat_kernel_knn_graph"]


def heat_kernel_knn_graph(X, n_neighbors=5, *, t="auto"):
    """Symmetric kNN similarity graph ``S_ij = exp(-||x_i - x_j||^2 / t)``.

    An edge joins ``i`` and ``j`` when either is among the other's ``n_neighbors`` nearest
    neighbours (Euclidean, the sample itself excluded); the graph is symmetrised with the
    maximum, as in He, Cai and Niyogi's code.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_neighbors : int, default=5
        Must be smaller than ``n_samples``.
    t : 'auto' or float, default='auto'
        Heat-kernel width; ``'auto'`` is the mean squared distance over the kNN edges (1.0 if
        that is zero).

    Returns
    -------
    S : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Non-negative, symmetric, zero diagonal.
    t : float
        The width used.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> S, t = heat_kernel_knn_graph(X, 1, t=1.0)
    >>> np.round(S.toarray(), 4).tolist()
    [[0.0, 0.3679, 0.0], [0.3679, 0.0, 0.0183], [0.0, 0.0183, 0.0]]
    """
    from sklearn.neighbors import kneighbors_graph

    X = np.asarray(X)
    D = kneighbors_graph(X, n_neighbors, mode="distance", include_self=False).tocsr()
    d2 = D.data.astype(np.float64) ** 2
    if isinstance(t, str):
        t = float(np.mean(d2)) if d2.size and np.mean(d2) > 0 else 1.0
    W = sp.csr_matrix((np.exp(-d2 / t), D.indices, D.indptr), shape=D.shape)
    S = W.maximum(W.T).tocsr()
    S.sort_indices()
    return S, float(t)
