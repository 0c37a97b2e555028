"""Layer 2: sparse-linear-model projections (linear, general, kernel) and manifold baselines.

Pure NumPy/SciPy kernels on arrays (no scikit-learn, no I/O). See
:mod:`pixsel.decomposition` for the estimators built on them.

* sparse-linear-model projections: :func:`slm_projection` (closed form), :func:`kernel_slm_projection`,
  :func:`general_slm_projection` (independent codes of their own variances), the estimates they
  take (:func:`estimate_sigma_tau`, :func:`estimate_variances`) and their results
  (:class:`SLMProjection`, :class:`GeneralSLMResult`);
* kernel dictionaries: :func:`kernel_dictionary_learning` and the pre-images of its atoms
  (:func:`rbf_preimages`);
* manifold baselines: :func:`lpp`, :func:`npe`, :func:`spectral_regression_lpp`,
  :func:`smooth_lpp`, :func:`kernel_lpp` and their graphs (:func:`knn_graph`,
  :func:`lle_weights`, :func:`spatial_laplacian`).

The objectives, gains and the lasso steps inside them stay importable from here for the
estimators, tests and benchmarks, outside ``__all__``.
"""

from ._general_slm import GeneralSLMResult, general_slm_projection
from ._kernel_coding import (
    LassoGramResult,
    kernel_dictionary_learning,
    kernel_lasso_codes,
    kernel_lasso_factor,
    lasso_gram_cd,
    rbf_preimages,
)
from ._manifold import (
    kernel_lpp,
    knn_graph,
    lle_weights,
    lpp,
    npe,
    smooth_lpp,
    spatial_laplacian,
    spectral_regression_lpp,
)
from ._slm import SLMProjection, estimate_sigma_tau, estimate_variances, kernel_slm_projection, slm_projection

__all__ = [
    "SLMProjection",
    "slm_projection",
    "kernel_slm_projection",
    "estimate_sigma_tau",
    "estimate_variances",
    "GeneralSLMResult",
    "general_slm_projection",
    "kernel_dictionary_learning",
    "kernel_lasso_codes",
    "kernel_lasso_factor",
    "lasso_gram_cd",
    "LassoGramResult",
    "rbf_preimages",
    "knn_graph",
    "lle_weights",
    "lpp",
    "npe",
    "spectral_regression_lpp",
    "spatial_laplacian",
    "smooth_lpp",
    "kernel_lpp",
]
