"""Layer 2: feature scores (subspace / leverage / residual and the classical baselines).

Kernels here take arrays and statistics and return arrays; they do no validation beyond what
their docstrings state (the selectors in :mod:`pixsel.selection` validate). Every pass over the
samples (column moments, class sums, the Krylov products, the graph quadratic forms and the
neighbour graph) is a :mod:`pixsel.stats` function.

* subspace scores: :func:`subspace_scores` (leverage plus ``gamma`` times residual, on the top
  right singular vectors of :func:`block_krylov_svd`), with their results :class:`SubspaceScores`
  and :class:`KrylovSVD`;
* classical baselines: :func:`variance_score`, :func:`laplacian_score`,
  :func:`supervised_laplacian_score`, :func:`fisher_score`, :func:`uniform_score`;
* from scores to features: :func:`importance` (any named score as "higher is better"),
  :func:`top_features`, :func:`sample_features`, :func:`sample_distinct_features`;
* cluster stability selection: :func:`correlation_clusters` (features all correlated at least a
  threshold) and :func:`cluster_stability_order` (resampled supports pooled over the clusters);
* column subsets: :func:`greedy_column_subset`, :func:`pivoted_qr_columns` and their objective
  :func:`column_subset_objective`;
* sensor placement: :func:`greedy_placement` (the greedy column subset in ``O(n p)`` per step,
  under the constraints of :func:`placement_constraints`; :func:`refine_placement` adds swaps at
  ``k``; :func:`placement_gram` the Gram matrix they rank on, in single precision for many
  pixels, and :func:`kept_mass` the exact masses of a path from its columns), and the reconstruction from the
  sensors' readings: :func:`conditional_solve` (the Gaussian conditional mean map and posterior
  variance) and :func:`noise_cv_errors` (the cross-validated error of each noise level, from
  :func:`fold_products` or :func:`fold_products_from_outer`).

The score table, the forms that start from statistics (``*_from_sums``, ``*_from_graph``,
``*_from_moments``) and the steps inside the subspace scores stay importable from here for the
selectors, tests and benchmarks, outside ``__all__``; ``column_moments`` and
``heat_kernel_knn_graph`` (now in :mod:`pixsel.stats`) are still importable from here.
"""

from ._baselines import (
    fisher_score,
    importance,
    laplacian_score,
    supervised_laplacian_score,
    uniform_score,
    variance_score,
)
from ._column_subset import column_subset_objective, greedy_column_subset, pivoted_qr_columns
from ._krylov import KrylovSVD, block_krylov_svd
from ._placement import (PlacementConstraints, PlacementResult, greedy_placement, kept_mass, placement_constraints,
                         placement_gram, refine_placement)
from ._reconstruction import (
    conditional_solve,
    fold_prior_products,
    fold_products,
    fold_products_from_outer,
    noise_cv_errors,
)
from ._sampling import sample_distinct_features, sample_features, top_features
from ._stability import cluster_stability_order, correlation_clusters
from ._subspace import SubspaceScores, subspace_scores

# For the selectors of pixsel.selection (the score names they accept); not public.
from ._baselines import SCORES as SCORES

__all__ = [
    "subspace_scores",
    "SubspaceScores",
    "block_krylov_svd",
    "KrylovSVD",
    "variance_score",
    "laplacian_score",
    "supervised_laplacian_score",
    "fisher_score",
    "uniform_score",
    "importance",
    "top_features",
    "sample_features",
    "sample_distinct_features",
    "correlation_clusters",
    "cluster_stability_order",
    "greedy_column_subset",
    "pivoted_qr_columns",
    "column_subset_objective",
    "greedy_placement",
    "refine_placement",
    "placement_gram",
    "kept_mass",
    "PlacementResult",
    "placement_constraints",
    "PlacementConstraints",
    "conditional_solve",
    "fold_products",
    "fold_products_from_outer",
    "fold_prior_products",
    "noise_cv_errors",
]
