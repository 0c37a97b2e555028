"""Image descriptors for the feature-selection pipelines (LGBP histograms)."""

from ._lgbp import gabor_bank, lbp_codes, lgbp

__all__ = ["gabor_bank", "lbp_codes", "lgbp"]
