"""Layer 2: feature scores (subspace / leverage / residual and the classical baselines).

Kernels here take arrays and return arrays; they do no validation beyond what their docstrings
state (the selectors in :mod:`pixsel.selection` validate). The only scikit-learn import of this
package is the neighbour search of :func:`heat_kernel_knn_graph` (see ``_graph.py``).
"""

from ._baselines import (
    SCORES,
    ScoreSpec,
    fisher_score,
    importance,
    laplacian_score,
    laplacian_score_from_graph,
    supervised_laplacian_score,
    uniform_score,
    variance_score,
)
from ._graph import heat_kernel_knn_graph
from ..stats import column_moments  # re-exported: it lived here before the statistics moved
from ._krylov import KrylovSVD, block_krylov_svd
from ._sampling import merge_draws, sample_features, top_features
from ._subspace import SubspaceScores, leverage_residual, resolve_gamma, subspace_scores

__all__ = [
    "KrylovSVD",
    "block_krylov_svd",
    "column_moments",
    "SubspaceScores",
    "subspace_scores",
    "leverage_residual",
    "resolve_gamma",
    "ScoreSpec",
    "SCORES",
    "uniform_score",
    "variance_score",
    "laplacian_score",
    "laplacian_score_from_graph",
    "supervised_laplacian_score",
    "fisher_score",
    "importance",
    "heat_kernel_knn_graph",
    "sample_features",
    "merge_draws",
    "top_features",
]
