"""Layer 3: scikit-learn transformers that produce sparse components or projections."""

from ._greedy_spca import GreedySparsePCA

__all__ = ["GreedySparsePCA"]
