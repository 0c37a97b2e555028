"""Test error and test information (GPML section 3.7)."""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["test_error", "label_entropy", "test_information"]


def test_error(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Fraction of misclassified test cases.

    Examples
    --------
    >>> test_error([0, 1, 1, 0], [0, 1, 0, 0])
    0.25
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true and y_pred must have the same shape; got {y_true.shape} and {y_pred.shape}.")
    if y_true.size == 0:
        raise ValueError("test_error needs at least one test case.")
    return float(np.mean(y_true != y_pred))


def label_entropy(y: ArrayLike) -> float:
    """Entropy in bits of the empirical label distribution ``H(y) = -sum_c pi_c log2 pi_c``.

    Examples
    --------
    >>> label_entropy([0, 0, 1, 1])
    1.0
    """
    _, counts = np.unique(np.asarray(y), return_counts=True)
    pi = counts / counts.sum()
    return float(-np.sum(pi * np.log2(pi)))


def test_information(y_true: ArrayLike, log_proba: ArrayLike, classes: ArrayLike) -> float:
    """Test information in bits: ``H(y_test) + mean_i log2 p(y_i | x_i)`` (GPML section 3.7).

    ``H(y_test)`` is the entropy of the test labels (1 bit for balanced binary labels), so a
    classifier that predicts the label frequencies scores 0 and a perfect, certain one scores
    ``H(y_test)``; confident mistakes make it negative.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    log_proba : array-like of shape (n, n_classes)
        Natural-log predictive probabilities, columns ordered as ``classes``.
    classes : array-like of shape (n_classes,)

    Examples
    --------
    >>> import numpy as np
    >>> round(test_information([0, 1], np.log([[0.5, 0.5], [0.5, 0.5]]), [0, 1]), 12)
    0.0
    >>> test_information([0, 1], [[0.0, -np.inf], [-np.inf, 0.0]], [0, 1])
    1.0
    """
    y_true = np.asarray(y_true)
    log_proba = np.asarray(log_proba, dtype=np.float64)
    classes = np.asarray(classes)
    if log_proba.ndim != 2 or log_proba.shape != (len(y_true), len(classes)):
        raise ValueError(
            f"log_proba must have shape (n_test, n_classes) = ({len(y_true)}, {len(classes)}); "
            f"got {log_proba.shape}."
        )
    idx = np.searchsorted(classes, y_true)
    if np.any(idx >= len(classes)) or np.any(classes[np.minimum(idx, len(classes) - 1)] != y_true):
        raise ValueError("y_true has labels that are not in classes.")
    lp = log_proba[np.arange(len(y_true)), idx]
    return float(label_entropy(y_true) + np.mean(lp) / np.log(2.0))
