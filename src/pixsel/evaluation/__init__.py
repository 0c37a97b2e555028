"""Evaluation of pixel selections: select k pixels, classify on them, measure the test set.

:func:`evaluate_selection` runs a selector for a list of ``k`` and a classifier (GP with the
Laplace approximation, GP with EP, linear SVM, LDA) on each subset, and reports the test error,
the test information in bits (GPML section 3.7) and the GP log marginal likelihood, with JSON
and PNG output via :meth:`EvaluationResult.save`.
"""

from ._evaluate import CLASSIFIERS, GP_RESTARTS, EvaluationResult, evaluate_selection, make_classifier
from ._metrics import label_entropy, test_error, test_information
from ._plots import plot_curves, plot_images
from ._selectors import SELECTORS, Selection, fisher_ranking, ranking_selection, select_pixels

__all__ = [
    "CLASSIFIERS",
    "GP_RESTARTS",
    "SELECTORS",
    "EvaluationResult",
    "Selection",
    "evaluate_selection",
    "fisher_ranking",
    "label_entropy",
    "make_classifier",
    "plot_curves",
    "plot_images",
    "ranking_selection",
    "select_pixels",
    "test_error",
    "test_information",
]
