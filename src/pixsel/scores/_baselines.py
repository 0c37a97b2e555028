"""Baseline feature scores: uniform, variance, Laplacian, supervised Laplacian and Fisher.

Each score has a direction (see :data:`SCORES`). The selectors rank and sample by an
*importance*, a non-negative number where higher is better (:func:`importance`): the score
itself when higher is better, and ``max(0, 1 - L_r)`` for the Laplacian scores ``L_r`` (lower is
better). ``1 - L_r = f~^T S f~ / f~^T D f~`` is the quantity Deng Cai's public Laplacian-score
code returns, which is how the subspace-score paper could sample "proportionally to score".

Laplacian score (He, Cai and Niyogi, NIPS 2005) of a feature ``f``, for a similarity graph ``S``
with degrees ``d = S 1``, ``D = diag(d)``, ``L = D - S``::

    f~ = f - (d^T f / 1^T d) 1,      L_r = f~^T L f~ / f~^T D f~.

Both quadratic forms are shift invariant (``L 1 = 0``), so features are first centred by their
plain mean (against cancellation) and then ``f~^T D f~ = sum_i d_i f_i^2 - (d^T f)^2 / sum(d)``,
``f~^T L f~ = sum_i d_i f_i^2 - f^T S f``: no ``n x n`` dense matrix, no centred copy of the data
(columns are processed in blocks, by :func:`pixsel.stats.graph_moments`). A constant feature has ``f~ = 0``; its Laplacian score is
defined as ``+inf`` (worst) and its importance as 0.

The supervised Laplacian score uses the graph with an edge of weight 1 between every two samples
with the same label (self-loops included, Cai's binary supervised graph). Its quadratic forms
reduce to per-class sums (:func:`pixsel.stats.class_sums`): with class sizes ``n_c``, class sums ``s_c`` and sums of squares
``q_c``, ``f^T D f = sum_c n_c q_c``, ``f^T S f = sum_c s_c^2``, ``d^T f = sum_c n_c s_c`` and
``1^T d = sum_c n_c^2``. It therefore needs no graph at all and runs on Dask arrays.

Fisher score (Duda, Hart and Stork): ``F_r = sum_c n_c (mu_c - mu)^2 / sum_c n_c sigma_c^2``;
a feature with zero within-class variance scores ``+inf`` if its class means differ and 0 if not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._array_api import get_namespace
from ..stats import class_sums, column_moments, graph_moments, heat_kernel_knn_graph

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from ..stats import ClassSums, GraphMoments

__all__ = [
    "ScoreSpec",
    "SCORES",
    "uniform_score",
    "variance_score",
    "laplacian_score",
    "laplacian_score_from_graph",
    "laplacian_score_from_moments",
    "supervised_laplacian_score",
    "supervised_laplacian_score_from_sums",
    "fisher_score",
    "fisher_score_from_sums",
    "importance",
]

def _xp(a):
    """The namespace of ``a`` (NumPy itself for NumPy): the scores below are written once for all."""
    return get_namespace(a)[0]


def _full_like(xp, a, value):
    return xp.full(a.shape, value, dtype=a.dtype, device=a.device) if xp is not np \
        else np.full(a.shape, value, dtype=a.dtype)


@dataclass(frozen=True)
class ScoreSpec:
    """How a baseline score is read: its direction and whether it needs labels."""

    higher_is_better: bool
    supervised: bool


#: direction and supervision of every baseline score, by name.
SCORES = {
    "uniform": ScoreSpec(higher_is_better=True, supervised=False),
    "variance": ScoreSpec(higher_is_better=True, supervised=False),
    "laplacian": ScoreSpec(higher_is_better=False, supervised=False),
    "supervised_laplacian": ScoreSpec(higher_is_better=False, supervised=True),
    "fisher": ScoreSpec(higher_is_better=True, supervised=True),
}


def uniform_score(X: ArrayLike) -> NDArray:
    """All features score 1 (higher is better; sampling by it is uniform sampling).

    Examples
    --------
    >>> import numpy as np
    >>> uniform_score(np.zeros((3, 2))).tolist()
    [1.0, 1.0]
    """
    xp, dev = get_namespace(X)
    if xp is np:
        return np.ones(X.shape[1])
    from .._array_api import float_dtype

    return xp.ones(X.shape[1], dtype=float_dtype(xp, X, dev), device=dev)


def variance_score(X: ArrayLike) -> NDArray:
    """Per-feature variance (``ddof=0``); higher is better. NumPy or Dask.

    Examples
    --------
    >>> import numpy as np
    >>> variance_score(np.array([[0.0, 1.0], [2.0, 1.0]])).tolist()
    [1.0, 0.0]
    """
    _, ss = column_moments(X)
    return ss / X.shape[0]


def _ratio(num, den, scale):
    """``num / den`` with ``+inf`` where ``den`` vanishes relative to ``scale`` (constant f)."""
    xp = _xp(num)
    ok = den > 1e-12 * xp.maximum(scale, _full_like(xp, scale, np.finfo(float).tiny))
    out = xp.where(ok, num / xp.where(ok, den, xp.ones_like(den)), _full_like(xp, num, np.inf))
    return xp.clip(out, 0.0, None)


def laplacian_score_from_graph(X: ArrayLike, S: ArrayLike) -> NDArray:
    """Laplacian scores of the columns of ``X`` for a given similarity graph ``S``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    S : sparse or dense array of shape (n_samples, n_samples)
        Symmetric non-negative similarities.

    Returns
    -------
    ndarray of shape (n_features,)
        ``L_r`` (lower is better; ``+inf`` for a constant feature).

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> X = np.array([[1.0, 0.0], [1.0, 1.0], [5.0, 2.0]])
    >>> laplacian_score_from_graph(X, S + S.T + np.eye(3)).round(3).tolist()
    [0.0, 0.583]
    """
    return laplacian_score_from_moments(graph_moments(X, S))


def laplacian_score_from_moments(moments: GraphMoments) -> NDArray:
    """Laplacian scores from the graph forms of :func:`pixsel.stats.graph_moments`.

    ``L_r = (f^T D f - f^T S f) / (f^T D f - (d^T f)^2 / 1^T d)``; lower is better, ``+inf`` for
    a constant feature.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.stats import GraphMoments
    >>> m = GraphMoments(dff=np.array([2.0, 0.0]), fsf=np.array([1.0, 0.0]), df=np.zeros(2), dsum=2.0)
    >>> laplacian_score_from_moments(m).tolist()
    [0.5, inf]
    """
    m = moments
    num = m.dff - m.fsf
    den = m.dff - m.df ** 2 / m.dsum
    return _ratio(num, den, m.dff)


def laplacian_score(X: ArrayLike, n_neighbors: int = 5, *, t: str = "auto") -> NDArray:
    """Unsupervised Laplacian score on a sparse kNN heat-kernel graph; lower is better.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        NumPy only: the neighbour graph needs all samples at once.
    n_neighbors : int, default=5
        Neighbours per sample (the paper's 5-nearest-neighbour graph).
    t : 'auto' or float, default='auto'
        Heat-kernel width, see :func:`pixsel.stats.heat_kernel_knn_graph`.

    Returns
    -------
    ndarray of shape (n_features,)

    References
    ----------
    * X. He, D. Cai and P. Niyogi, "Laplacian score for feature selection", Advances in Neural
      Information Processing Systems 18 (NIPS), 2005.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat([0.0, 10.0], 20)
    >>> X = np.column_stack([g + rng.normal(size=40), rng.normal(size=40)])
    >>> s = laplacian_score(X, 5)
    >>> bool(s[0] < s[1])  # the clustered feature preserves locality
    True
    """
    S, _ = heat_kernel_knn_graph(X, n_neighbors, t=t)
    return laplacian_score_from_graph(X, S)


def supervised_laplacian_score(X: ArrayLike, y: ArrayLike) -> NDArray:
    """Laplacian score on the same-label graph (binary weights); lower is better. NumPy or Dask.

    References
    ----------
    * X. He, D. Cai and P. Niyogi, "Laplacian score for feature selection", Advances in Neural
      Information Processing Systems 18 (NIPS), 2005.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.1, 1.0], [5.0, 0.0], [5.1, 1.0]])
    >>> s = supervised_laplacian_score(X, [0, 0, 1, 1])
    >>> bool(s[0] < s[1])
    True
    """
    return supervised_laplacian_score_from_sums(class_sums(X, y))


def supervised_laplacian_score_from_sums(sums: ClassSums) -> NDArray:
    """Supervised Laplacian scores from :func:`pixsel.stats.class_sums` (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.stats import class_sums
    >>> cs = class_sums(np.array([[0.0, 0.0], [0.1, 1.0], [5.0, 0.0], [5.1, 1.0]]), [0, 0, 1, 1])
    >>> s = supervised_laplacian_score_from_sums(cs)
    >>> bool(s[0] < s[1])
    True
    """
    s, q = sums.sums, sums.squares
    xp = _xp(s)
    counts = sums.counts.astype(np.float64)
    n_c = counts[:, None] if xp is np else xp.asarray(counts[:, None], dtype=s.dtype, device=s.device)
    dff = xp.sum(n_c * q, axis=0)
    fsf = xp.sum(s ** 2, axis=0)
    df = xp.sum(n_c * s, axis=0)
    num = dff - fsf
    den = dff - df ** 2 / float(np.sum(counts ** 2))
    return _ratio(num, den, dff)


def fisher_score(X: ArrayLike, y: ArrayLike) -> NDArray:
    """Fisher score ``sum_c n_c (mu_c - mu)^2 / sum_c n_c sigma_c^2``; higher is better.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [4.0, 0.0], [5.0, 1.0]])
    >>> fisher_score(X, [0, 0, 1, 1]).tolist()
    [16.0, 0.0]
    """
    return fisher_score_from_sums(class_sums(X, y))


def fisher_score_from_sums(sums: ClassSums) -> NDArray:
    """Fisher scores from :func:`pixsel.stats.class_sums` (one pass over the data serves both
    supervised scores).

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.stats import class_sums
    >>> cs = class_sums(np.array([[0.0, 0.0], [1.0, 1.0], [4.0, 0.0], [5.0, 1.0]]), [0, 0, 1, 1])
    >>> fisher_score_from_sums(cs).tolist()
    [16.0, 0.0]
    """
    s, q = sums.sums, sums.squares
    xp = _xp(s)
    n_c = sums.counts.astype(np.float64)[:, None]
    if xp is not np:
        n_c = xp.asarray(n_c, dtype=s.dtype, device=s.device)
    between = xp.sum(s ** 2 / n_c, axis=0)  # sum_c n_c (mu_c - mu)^2, data globally centred
    total = xp.sum(q, axis=0)
    within = xp.clip(total - between, 0.0, None)  # total scatter minus between scatter
    tiny = 1e-12 * xp.maximum(total, _full_like(xp, total, np.finfo(float).tiny))
    ok = within > tiny
    ratio = between / xp.where(ok, within, xp.ones_like(within))
    inf_or_zero = xp.where(between > tiny, _full_like(xp, between, np.inf), xp.zeros_like(between))
    return xp.where(ok, ratio, inf_or_zero)


def importance(name: str, scores: ArrayLike) -> NDArray:
    """Non-negative 'higher is better' importance used to rank and sample by a named score.

    Examples
    --------
    >>> import numpy as np
    >>> importance("laplacian", np.array([0.25, np.inf])).tolist()
    [0.75, 0.0]
    >>> importance("variance", np.array([2.0, 0.0])).tolist()
    [2.0, 0.0]
    """
    xp = _xp(scores)
    if xp is np:
        scores = np.asarray(scores, dtype=np.float64)
    if name in SCORES and not SCORES[name].higher_is_better:
        with np.errstate(invalid="ignore"):
            return xp.clip(1.0 - scores, 0.0, None)
    return scores
