"""Layer 3: scikit-learn selectors, the whole-path functions ``lda_paths`` / ``pca_paths``, and the
feature groups of images (``pixel_groups``, ``patch_groups``) that the path selectors take as
``groups=``."""

from ._column_subset import ColumnSubsetSelector
from ._cv import PathSelectorCV
from ._groups import patch_groups, pixel_groups
from ._lda import SparseLDASelector
from ._paths import PathSet as PathSet  # returned by lda_paths / pca_paths, not called: off __all__
from ._paths import lda_paths, pca_paths
from ._pls import CardinalSPLSSelector, SPLSSelector
from ._scores import ScoreSelector, SubspaceScoreSelector
from ._spca import SparsePCASelector

__all__ = [
    "SparseLDASelector",
    "SparsePCASelector",
    "CardinalSPLSSelector",
    "SPLSSelector",
    "SubspaceScoreSelector",
    "ScoreSelector",
    "ColumnSubsetSelector",
    "PathSelectorCV",
    "lda_paths",
    "pca_paths",
    "pixel_groups",
    "patch_groups",
]
