"""pixsel: sparse, cardinality-constrained feature selection for images.

The public API is listed in ``__all__``; everything else is private. The layers are public
subpackages too: ``pixsel.stats``, ``pixsel.spectral``, ``pixsel.pls``, ``pixsel.scores``,
``pixsel.projection``, ``pixsel.gp``, ``pixsel.experiments``, ``pixsel.features``,
``pixsel.datasets``, ``pixsel.viz``, ``pixsel.io``; ``pixsel.config`` holds a switch that
runs the array-API kernels on CPU arrays.
"""

__version__ = "0.1.0"

# The names below are imported on first use (PEP 562), so that ``import pixsel`` -- and with it
# ``pixsel --help`` -- does not pay for scikit-learn and SciPy before they are needed.
_LAZY = {
    "GreedySparsePCA": "decomposition",
    "SparseLinearModelProjection": "decomposition",
    "CardinalSPLSSelector": "selection",
    "ColumnSubsetSelector": "selection",
    "PixelReconstructor": "selection",
    "PathSelectorCV": "selection",
    "PathSet": "selection",
    "ScoreSelector": "selection",
    "SparseLDASelector": "selection",
    "SparsePCASelector": "selection",
    "SPLSSelector": "selection",
    "SubspaceScoreSelector": "selection",
    "lda_paths": "selection",
    "pca_paths": "selection",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pixsel' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "__version__",
    "SparseLDASelector",
    "SparsePCASelector",
    "CardinalSPLSSelector",
    "SPLSSelector",
    "SubspaceScoreSelector",
    "ScoreSelector",
    "ColumnSubsetSelector",
    "PixelReconstructor",
    "PathSelectorCV",
    "GreedySparsePCA",
    "SparseLinearModelProjection",
    "lda_paths",
    "pca_paths",
]
