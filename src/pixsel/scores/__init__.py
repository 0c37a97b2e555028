"""Layer 2: feature scores (subspace / leverage / residual and the classical baselines).

Kernels here take arrays and statistics and return arrays; they do no validation beyond what
their docstrings state (the selectors in :mod:`pixsel.selection` validate). Every pass over the
samples (column moments, class sums, the Krylov products, the graph quadratic forms and the
neighbour graph) is a :mod:`pixsel.stats` function; ``column_moments`` and
``heat_kernel_knn_graph`` are re-exported here, where they used to live.
"""

from ._baselines import (
    SCORES,
    ScoreSpec,
    fisher_score,
    fisher_score_from_sums,
    importance,
    laplacian_score,
    laplacian_score_from_graph,
    laplacian_score_from_moments,
    supervised_laplacian_score,
    supervised_laplacian_score_from_sums,
    uniform_score,
    variance_score,
)
from ..stats import column_moments, heat_kernel_knn_graph  # re-exported (they lived here)
from ._column_subset import column_subset_objective, greedy_column_subset, pivoted_qr_columns
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
    "laplacian_score_from_moments",
    "supervised_laplacian_score",
    "supervised_laplacian_score_from_sums",
    "fisher_score",
    "fisher_score_from_sums",
    "importance",
    "heat_kernel_knn_graph",
    "sample_features",
    "merge_draws",
    "top_features",
    "greedy_column_subset",
    "pivoted_qr_columns",
    "column_subset_objective",
]
