"""Layer 1: statistics, the only layer that walks over samples (NumPy or Dask, one pass each).

* class statistics: :func:`class_means` (first order, no ``p x p`` matrix),
  :func:`class_statistics` (plus the pooled within-class covariance), :func:`between_class_factor`;
* per-feature statistics for the scores: :func:`column_moments`, :func:`class_sums`, and on a
  sample graph :func:`graph_moments` (the graph from :func:`heat_kernel_knn_graph`);
* the centred Gram matrix used through the data: :class:`CenteredGramOperator` (column access,
  image-scale greedy paths; :class:`DeviceGramOperator` on another library's device,
  :func:`gram_operator` picks one for an ``X``; :class:`ShrunkGramOperator` shrinks one towards
  the identity), :func:`centered_gram_matmat` and
  :func:`centered_projected_gram` (the passes of the block Krylov SVD);
* the sample covariance (sparse PCA): :func:`covariance`;
* a stationary target for image covariances: :func:`dct_spectrum` (the variance of every 2-D DCT
  coefficient), :class:`DCTPrior` (the covariance diagonal in the DCT basis, applied by
  transforms), :func:`dct_shrinkage_intensity` (the Ledoit-Wolf intensity towards it) and
  :func:`dct_shrinkage_intensity_bound` (an upper bound on it from the lowest frequencies);
* regularization of a covariance, always explicit and recorded: :func:`regularize`,
  :func:`ridge_regularization`, :func:`ledoit_wolf_from_rows` (the Ledoit-Wolf intensity
  without the ``p x p`` matrix), :func:`shrinkage_regularization` (the intensity applied).

Every walk over the rows goes through one block reduction (:func:`block_reduce`, public for
statistics of one's own): bounded row blocks of a NumPy array, the same code inside every chunk
of a Dask array. The graph forms
are the exception by nature (``S F`` needs every sample of a column): they walk column blocks.
"""

from ._columns import ClassSums, class_sums, column_moments
from ._graph import GraphMoments, graph_moments, heat_kernel_knn_graph
from ._gram import CenteredGramOperator, ShrunkGramOperator, centered_gram_matmat, centered_projected_gram
from ._gram_xp import DeviceGramOperator, gram_operator
from ._moments import (
    ClassMeans,
    ClassStatistics,
    between_class_factor,
    class_codes,
    class_means,
    class_statistics,
    covariance,
)
from ._prior import DCTPrior, dct_shrinkage_intensity, dct_shrinkage_intensity_bound, dct_spectrum
from ._reduce import block_reduce
from ._regularize import (
    AUTO_RIDGE,
    SHRINKAGE_FLOOR,
    Regularization,
    is_shrinkage,
    ledoit_wolf_from_rows,
    regularize,
    regularized_factor,
    ridge_regularization,
    shrinkage_regularization,
)

__all__ = [
    "DCTPrior",
    "dct_spectrum",
    "dct_shrinkage_intensity",
    "dct_shrinkage_intensity_bound",
    "ClassMeans",
    "ClassStatistics",
    "ClassSums",
    "CenteredGramOperator",
    "ShrunkGramOperator",
    "DeviceGramOperator",
    "gram_operator",
    "GraphMoments",
    "graph_moments",
    "heat_kernel_knn_graph",
    "centered_gram_matmat",
    "centered_projected_gram",
    "between_class_factor",
    "class_codes",
    "class_means",
    "class_statistics",
    "covariance",
    "class_sums",
    "column_moments",
    "Regularization",
    "regularize",
    "ridge_regularization",
    "regularized_factor",
    "ledoit_wolf_from_rows",
    "shrinkage_regularization",
    "SHRINKAGE_FLOOR",
    "is_shrinkage",
    "AUTO_RIDGE",
    "block_reduce",
]
