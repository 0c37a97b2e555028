"""Similarity graphs over the samples and the per-feature quadratic forms on them.

The Laplacian scores (:mod:`pixsel.scores`) need, for every feature ``f`` (a column of ``X``) and
a similarity graph ``S`` over the samples with degrees ``d = S 1``, three numbers:
``f^T D f = sum_i d_i f_i^2``, ``f^T S f`` and ``d^T f`` (plus ``1^T d``). They are the
statistics here (:func:`graph_moments`), computed column block by column block (a product
``S F`` needs every sample of the block's columns, so this walk is over columns, with the
float64 working block bounded), each column first centred at its plain mean (the forms are
shift invariant up to ``d^T f``, which the scores use only through ``f~ = f - (d^T f/1^T d) 1``).

The graph itself is :func:`heat_kernel_knn_graph`: the neighbour search is
:func:`sklearn.neighbors.kneighbors_graph` (a tree or brute-force search that never builds the
dense ``n x n`` distance matrix), which is why it lives in the statistics layer and not among the
kernels. The graph is returned as a SciPy CSR matrix with ``n_samples * n_neighbors`` to
``2 * n_samples * n_neighbors`` stored entries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["GraphMoments", "graph_moments", "heat_kernel_knn_graph"]

#: float64 working memory per block of columns in :func:`graph_moments`.
_BLOCK_BYTES = 1 << 25


@dataclass(frozen=True)
class GraphMoments:
    """Per-feature quadratic forms on a sample graph (see :func:`graph_moments`).

    Attributes
    ----------
    dff : ndarray of shape (n_features,)
        ``f^T D f = sum_i d_i f_i^2``.
    fsf : ndarray of shape (n_features,)
        ``f^T S f``.
    df : ndarray of shape (n_features,)
        ``d^T f``.
    dsum : float
        ``1^T d``, the total degree.
    """

    dff: np.ndarray
    fsf: np.ndarray
    df: np.ndarray
    dsum: float


def _column_blocks(n, p):
    cols = max(1, _BLOCK_BYTES // (8 * max(n, 1)))
    for start in range(0, p, cols):
        yield slice(start, min(p, start + cols))


def graph_moments(X: ArrayLike, S: ArrayLike) -> GraphMoments:
    """``f^T D f``, ``f^T S f`` and ``d^T f`` for every column ``f`` of ``X`` (centred at its mean).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        NumPy only (a product with ``S`` needs all samples); accumulated in float64, never
        copied whole.
    S : sparse or dense array of shape (n_samples, n_samples)
        Symmetric non-negative similarities; ``d = S 1``.

    Returns
    -------
    GraphMoments

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> m = graph_moments(np.array([[1.0], [3.0]]), S)  # f centred: [-1, 1]
    >>> m.dff.tolist(), m.fsf.tolist(), m.df.tolist(), m.dsum
    ([2.0], [-2.0], [0.0], 2.0)
    """
    n, p = X.shape
    d = np.asarray(S.sum(axis=1), dtype=np.float64).ravel()
    dff, fsf, df = np.empty(p), np.empty(p), np.empty(p)
    for cols in _column_blocks(n, p):
        F = np.asarray(X[:, cols], dtype=np.float64)
        F = F - F.mean(axis=0)
        SF = np.asarray(S @ F)
        dff[cols] = np.einsum("i,ij,ij->j", d, F, F)
        fsf[cols] = np.einsum("ij,ij->j", F, SF)
        df[cols] = d @ F
    return GraphMoments(dff=dff, fsf=fsf, df=df, dsum=float(d.sum()))


def heat_kernel_knn_graph(X: ArrayLike, n_neighbors: int = 5, *, t: str = "auto") -> tuple[Any, float]:
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
