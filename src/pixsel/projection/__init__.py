"""Layer 2: sparse-linear-model projections (linear, general, kernel) and manifold baselines.

Pure NumPy/SciPy kernels on arrays (no scikit-learn, no I/O). See
:mod:`pixsel.decomposition` for the estimators built on them.
"""

from ._general_slm import GeneralSLMResult, general_slm_objective, general_slm_projection
from ._kernel_coding import (
    kernel_dictionary_learning,
    kernel_dictionary_update,
    kernel_lasso_codes,
    kernel_lasso_factor,
    LassoGramResult,
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
from ._slm import (
    SLMProjection,
    estimate_sigma_tau,
    estimate_variances,
    kernel_slm_gain,
    kernel_slm_projection,
    slm_gain,
    slm_objective,
    slm_projection,
)

__all__ = [
    "SLMProjection",
    "slm_gain",
    "kernel_slm_gain",
    "slm_objective",
    "slm_projection",
    "kernel_slm_projection",
    "estimate_sigma_tau",
    "estimate_variances",
    "GeneralSLMResult",
    "general_slm_objective",
    "general_slm_projection",
    "kernel_lasso_factor",
    "kernel_dictionary_update",
    "kernel_lasso_codes",
    "kernel_dictionary_learning",
    "rbf_preimages",
    "lasso_gram_cd",
    "LassoGramResult",
    "knn_graph",
    "lle_weights",
    "lpp",
    "npe",
    "spectral_regression_lpp",
    "spatial_laplacian",
    "smooth_lpp",
    "kernel_lpp",
]
