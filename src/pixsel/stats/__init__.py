"""Layer 1: second-order statistics of (possibly out-of-core) data."""

from ._moments import ClassStatistics, class_statistics
from ._regularize import AUTO_RIDGE, Regularization, regularize

__all__ = ["ClassStatistics", "class_statistics", "Regularization", "regularize", "AUTO_RIDGE"]
