"""Experiments (a surface, like the CLI): select k pixels, classify on them, measure the test set.

:func:`evaluate_selection` runs a selector for a list of ``k`` and a classifier (GP with the
Laplace approximation, GP with EP, linear SVM, logistic regression, LDA) on each subset, and
reports the test error, the test information in bits (GPML section 3.7) and the GP log marginal
likelihood, with JSON and PNG output via :meth:`EvaluationResult.save`. The selectors compared
(:data:`SELECTORS`) are pixsel's estimators and scikit-learn's usual alternatives.

This package sits beside :mod:`pixsel.cli` on the surface floor: it calls only pixsel's public
API (estimators, :mod:`pixsel.stats`, :mod:`pixsel.spectral`, :mod:`pixsel.gp`); its figures are
:func:`pixsel.viz.plot_evaluation` and :func:`pixsel.viz.plot_images`. It was called
``pixsel.evaluation``, which still imports.
"""

from ._evaluate import CLASSIFIERS, GP_RESTARTS, EvaluationResult, evaluate_selection, make_classifier
from ._metrics import label_entropy, test_error, test_information
from ._selectors import SELECTORS, Selection, fisher_ranking, ranking_selection, select_pixels

__all__ = [
    "CLASSIFIERS",
    "GP_RESTARTS",
    "EvaluationResult",
    "SELECTORS",
    "Selection",
    "evaluate_selection",
    "fisher_ranking",
    "label_entropy",
    "make_classifier",
    "ranking_selection",
    "select_pixels",
    "test_error",
    "test_information",
]
