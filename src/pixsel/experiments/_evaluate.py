"""Select k pixels on the training set, classify the test set on them, report error and information."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._threads import blas_limit
from .._validation import as_float_array, check_int, check_options
from ._metrics import label_entropy, test_error, test_information
from ._selectors import SELECTORS, Selection, select_pixels

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from os import PathLike
    from typing import Any

    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

__all__ = ["CLASSIFIERS", "EvaluationResult", "evaluate_selection", "make_classifier"]

#: classifier names accepted by :func:`evaluate_selection`
CLASSIFIERS = ("gp", "gp-ep", "gp-laplace-probit", "linear-svm", "logistic", "lda")

#: optimizer restarts of the GP classifiers (beyond the first start), unless overridden
GP_RESTARTS = 2


def _median_distance(X, max_points=500):
    Z = X[: min(len(X), max_points)]
    sq = (Z * Z).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2 * Z @ Z.T
    d = np.sqrt(np.maximum(sq[np.triu_indices(len(Z), 1)], 0.0))
    d = d[d > 0]
    return float(np.median(d)) if len(d) else 1.0


def make_classifier(
    name: str,
    X_train: ArrayLike | None = None,
    *,
    random_state: int | np.random.RandomState | None = 0,
    n_restarts: int = GP_RESTARTS,
    **params: Any,
) -> BaseEstimator:
    """The classifier ``name`` (see :data:`CLASSIFIERS`), configured as the evaluation uses it.

    * ``'gp'``: scikit-learn ``GaussianProcessClassifier`` (Laplace approximation, logistic
      likelihood) with ``ConstantKernel(1, (1e-3, 1e3)) * RBF(ell0, (ell0/1e3, ell0*1e3))``,
      ``ell0`` the median pairwise distance of ``X_train``, and ``n_restarts_optimizer =
      n_restarts`` (restarts drawn log-uniformly within those bounds);
    * ``'gp-ep'`` / ``'gp-laplace-probit'``: :class:`pixsel.gp.GaussianProcessProbitClassifier`
      (probit likelihood, EP or Laplace), ``n_restarts`` restarts;
    * ``'linear-svm'``: ``StandardScaler`` + ``LinearSVC(C=1)`` (no probabilities: no test
      information);
    * ``'logistic'``: ``StandardScaler`` + ``LogisticRegression(max_iter=5000)``;
    * ``'lda'``: ``LinearDiscriminantAnalysis()``.
    """
    check_options(name, "classifier", CLASSIFIERS, owner="make_classifier")
    if name == "gp":
        from sklearn.gaussian_process import GaussianProcessClassifier
        from sklearn.gaussian_process.kernels import RBF, ConstantKernel

        ell0 = 1.0 if X_train is None else _median_distance(np.asarray(X_train, dtype=np.float64))
        kernel = ConstantKernel(1.0, (1e-3, 1e3)) * RBF(ell0, (ell0 * 1e-3, ell0 * 1e3))
        return GaussianProcessClassifier(kernel, n_restarts_optimizer=n_restarts, random_state=random_state, **params)
    if name in ("gp-ep", "gp-laplace-probit"):
        from ..gp import GaussianProcessProbitClassifier

        approx = "ep" if name == "gp-ep" else "laplace"
        return GaussianProcessProbitClassifier(approx, n_restarts=n_restarts, random_state=random_state, **params)
    if name == "linear-svm":
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import LinearSVC

        return make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=10000, random_state=random_state, **params))
    if name == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000, **params))
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    return LinearDiscriminantAnalysis(**params)


@dataclass
class EvaluationResult:
    """Per-``k`` test metrics of one selector with one classifier.

    Attributes
    ----------
    method, classifier : str
    ks : list of int
        The ``k`` actually evaluated (a per-k selector may skip some).
    error, information, log_marginal_likelihood, fit_time : list of float
        Per ``k``: test error, test information in bits (NaN without probabilities), the
        classifier's log marginal likelihood (GP only, else NaN) and its fit seconds.
    selection : Selection
    label_entropy : float
        Entropy of the test labels in bits (the ideal test information).
    hyperparameters : list of dict
    warnings : list of str
        Warnings raised while fitting, recorded rather than raised.
    """

    method: str
    classifier: str
    ks: list
    error: list
    information: list
    log_marginal_likelihood: list
    fit_time: list
    selection: Selection
    label_entropy: float
    chance_error: float
    hyperparameters: list = field(default_factory=list)
    warnings: list = field(default_factory=list)

    @property
    def selection_time(self):
        return self.selection.time_total

    def to_dict(self) -> dict[str, Any]:
        sel = self.selection
        return {
            "method": self.method,
            "classifier": self.classifier,
            "ks": self.ks,
            "error": self.error,
            "information_bits": self.information,
            "log_marginal_likelihood": self.log_marginal_likelihood,
            "classifier_fit_seconds": self.fit_time,
            "selection_seconds": sel.time_total,
            "selection_seconds_per_k": {str(k): v for k, v in sel.time_per_k.items()},
            "objective": {str(k): v for k, v in sel.objective.items()},
            "supports": {str(k): v for k, v in sel.supports.items() if k in self.ks},
            "label_entropy_bits": self.label_entropy,
            "chance_error": self.chance_error,
            "hyperparameters": self.hyperparameters,
            "warnings": self.warnings,
            "selection_info": {k: v for k, v in sel.info.items() if k not in ("objective_path", "relevance")},
        }

    def save(self, out_dir: str | PathLike[str], stem: str | None = None) -> dict[str, Path]:
        """Write ``<stem>.json`` and ``<stem>.png`` (error/information/evidence vs k) into ``out_dir``."""
        from ..io import save_figure, write_json
        from ..viz import plot_evaluation

        out_dir = Path(out_dir)
        stem = stem or f"evaluate_{self.method}_{self.classifier}"
        paths = [write_json(out_dir / f"{stem}.json", self.to_dict())]
        paths.append(save_figure(plot_evaluation([self]), out_dir / f"{stem}.png", dpi=120))
        return paths


def _hyper(clf):
    if hasattr(clf, "theta_") and hasattr(clf, "signal_variance_"):
        ls = clf.length_scale_
        return {"signal_variance": clf.signal_variance_, "length_scale": ls if np.ndim(ls) == 0 else "ard"}
    if hasattr(clf, "kernel_"):
        return {"kernel": str(clf.kernel_)}
    return {}


def evaluate_selection(
    X_train: ArrayLike,
    y_train: ArrayLike,
    X_test: ArrayLike,
    y_test: ArrayLike,
    *,
    method: str = "dual",
    classifier: str = "gp",
    ks: Sequence[int] = (1, 2, 5, 10, 20, 50, 100, 150),
    selection: Selection | None = None,
    method_params: dict[str, Any] | None = None,
    classifier_params: dict[str, Any] | None = None,
    random_state: int = 0,
    progress: bool = False,
    n_blas_threads: int | None = 1,
) -> EvaluationResult:
    """For each ``k``: select ``k`` pixels on the training set, fit a classifier on them, test it.

    Parameters
    ----------
    X_train, y_train, X_test, y_test : arrays
        Two classes. Images flattened to rows.
    method : str, default='dual'
        A selector of :data:`pixsel.experiments.SELECTORS`: pixsel's ``'forward'``,
        ``'backward'``, ``'dual'`` (= ``'gslda'``: the better of both paths per k), ``'fisher'``
        (thresholded Fisher discriminant), and scikit-learn's ``'f_classif'``,
        ``'mutual_info'``, ``'rfe_svc'``, ``'l1_logistic'``, ``'sfs_lda'``; ``'soft_ard'``.
    classifier : str, default='gp'
        One of :data:`CLASSIFIERS` (see :func:`make_classifier`).
    ks : sequence of int
        Subset sizes; values above ``n_features`` are an error.
    selection : Selection or None
        A precomputed selection (then ``method`` only names it), e.g. to share one selector run
        between several classifiers.
    method_params, classifier_params : dict or None
        Extra keyword arguments of the selector and of the classifier.
    random_state : int
    progress : bool, default=False
        Report the subset sizes done (a bar on a terminal, plain lines in a log; quiet by
        default, like all of pixsel).
    n_blas_threads : int or None, default=1
        BLAS threads while selecting and fitting (scoped, restored afterwards; ``None`` leaves
        the process setting). GP fits on a few hundred points are fastest single-threaded.

    Returns
    -------
    EvaluationResult

    Examples
    --------
    >>> from pixsel.datasets import load_digits_pair
    >>> from sklearn.model_selection import train_test_split
    >>> d = load_digits_pair(3, 5)
    >>> Xa, Xb, ya, yb = train_test_split(d.X, d.y, test_size=0.5, random_state=0, stratify=d.y)
    >>> r = evaluate_selection(Xa, ya, Xb, yb, method="dual", classifier="lda", ks=[2, 16])
    >>> r.ks, r.error[1] < r.error[0]
    ([2, 16], True)
    """
    X_train = as_float_array(X_train, "X_train")
    X_test = as_float_array(X_test, "X_test")
    y_train = np.asarray(y_train)
    y_test = np.asarray(y_test)
    if X_train.shape[1] != X_test.shape[1]:
        raise ValueError(
            f"X_train has {X_train.shape[1]} features and X_test {X_test.shape[1]}; select from the same pixels."
        )
    if len(np.unique(y_train)) != 2:
        raise ValueError(f"evaluate_selection needs two classes; y_train has {len(np.unique(y_train))}.")
    check_options(classifier, "classifier", CLASSIFIERS, owner="evaluate_selection")
    if selection is None:
        check_options(method, "method", tuple(SELECTORS), owner="evaluate_selection")
    p = X_train.shape[1]
    ks = sorted({check_int(k, "k", low=1, high=p, owner="evaluate_selection") for k in ks})
    if not ks:
        raise ValueError("ks must hold at least one subset size.")
    if selection is None:
        selection = select_pixels(X_train, y_train, method, ks, random_state=random_state,
                                  n_blas_threads=n_blas_threads, **(method_params or {}))
    ks = [k for k in ks if k in selection.supports]

    from .._progress import step_progress

    classes, counts = np.unique(y_test, return_counts=True)
    res = EvaluationResult(method=method, classifier=classifier, ks=ks, error=[], information=[],
                           log_marginal_likelihood=[], fit_time=[], selection=selection,
                           label_entropy=label_entropy(y_test), chance_error=float(1 - counts.max() / counts.sum()))
    steps = step_progress(len(ks), f"{method}/{classifier}", enabled=progress)
    for k in ks:
        S = selection.supports[k]
        clf = make_classifier(classifier, X_train[:, S], random_state=random_state, **(classifier_params or {}))
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught, blas_limit(n_blas_threads):
            warnings.simplefilter("always")
            clf.fit(X_train[:, S], y_train)
        res.fit_time.append(time.perf_counter() - t0)
        res.warnings.extend(f"k={k}: {w.category.__name__}: {w.message}" for w in caught)
        res.error.append(test_error(y_test, clf.predict(X_test[:, S])))
        if classifier != "linear-svm":
            with np.errstate(divide="ignore"), blas_limit(n_blas_threads):
                if hasattr(clf, "predict_log_proba"):
                    lp = clf.predict_log_proba(X_test[:, S])
                else:
                    lp = np.log(clf.predict_proba(X_test[:, S]))
            res.information.append(test_information(y_test, lp, clf.classes_))
        else:
            res.information.append(float("nan"))
        lml = getattr(clf, "log_marginal_likelihood_value_", None)
        res.log_marginal_likelihood.append(float("nan") if lml is None else float(lml))
        res.hyperparameters.append(_hyper(clf))
        steps.update(1, f"k = {k}")
    steps.close()
    return res
