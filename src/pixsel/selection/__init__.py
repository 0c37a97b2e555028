"""Layer 3: scikit-learn selectors, the whole-path functions ``lda_paths`` / ``pca_paths``, and the
feature groups of images (``pixel_groups``, ``patch_groups``) that the path selectors take as
``groups=``.

Each name is imported from its module on first use (:mod:`pixsel._attach`): fitting one
selector does not import the others.
"""

from .._attach import attach

__getattr__, __dir__ = attach(__name__, {
    "ColumnSubsetSelector": "_column_subset",
    "PathSelectorCV": "_cv",
    "patch_groups": "_groups",
    "pixel_groups": "_groups",
    "SparseLDASelector": "_lda",
    "PathSet": "_paths",
    "lda_paths": "_paths",
    "pca_paths": "_paths",
    "PixelReconstructor": "_reconstruct",
    "CardinalSPLSSelector": "_pls",
    "SPLSSelector": "_pls",
    "ScoreSelector": "_scores",
    "SubspaceScoreSelector": "_scores",
    "SparsePCASelector": "_spca",
})

__all__ = [
    "SparseLDASelector",
    "SparsePCASelector",
    "CardinalSPLSSelector",
    "SPLSSelector",
    "SubspaceScoreSelector",
    "ScoreSelector",
    "ColumnSubsetSelector",
    "PixelReconstructor",
    "PathSelectorCV",
    "lda_paths",
    "pca_paths",
    "PathSet",
    "pixel_groups",
    "patch_groups",
]
