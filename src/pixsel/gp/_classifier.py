"""A scikit-learn-compatible binary GP classifier with the probit likelihood (EP or Laplace)."""

from __future__ import annotations

import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.optimize as sopt
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .._threads import blas_limit
from .._validation import Interval, StrOptions, check_input, check_params
from ._ep import ep_binary_probit, ep_log_marginal_grad, ep_predict
from ._kernels import SquaredExponential
from ._laplace import laplace_binary_probit, laplace_log_marginal_grad, laplace_predict

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["GaussianProcessProbitClassifier"]

_OWNER = "GaussianProcessProbitClassifier"


class _OutOfTime(Exception):
    pass


def _median_distance(X, rng, max_points=500):
    idx = rng.choice(len(X), size=min(len(X), max_points), replace=False)
    Z = X[np.sort(idx)]
    sq = (Z * Z).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2 * Z @ Z.T
    d = np.sqrt(np.maximum(sq[np.triu_indices(len(Z), 1)], 0.0))
    d = d[d > 0]
    return float(np.median(d)) if len(d) else 1.0


class GaussianProcessProbitClassifier(ClassifierMixin, BaseEstimator):
    """Binary GP classification, probit likelihood, squared-exponential kernel (GPML ch. 3).

    The latent posterior is approximated by expectation propagation (GPML Algorithm 3.5-3.6) or
    by the Laplace approximation (Algorithm 3.1-3.2); the hyperparameters (signal variance and
    one common length-scale, or one length-scale per feature with ``ard=True``, "soft-ARD") are
    fitted by maximizing the approximate log marginal likelihood with L-BFGS-B from
    ``1 + n_restarts`` starting points; the best optimum is kept.

    Parameters
    ----------
    approximation : {'ep', 'laplace'}, default='ep'
    ard : bool, default=False
        One length-scale per feature (soft-ARD) instead of one common length-scale.
    n_restarts : int, default=2
        Optimizer restarts beyond the first start. The first start is ``signal_variance_init``
        and ``length_scale_init`` (default: 1 and the median pairwise distance of the training
        inputs); each restart draws ``log sf`` and ``log ell`` uniformly within +-log(10) of
        the first start (one common draw for all ARD length-scales times a per-feature jitter).
    max_iter : int, default=200
        L-BFGS-B iterations per start. The search is bounded: signal standard deviation in
        [0.01, 100] (beyond 100 the probit is saturated; on nearly separable data the evidence
        keeps growing with it), length-scales in [ell0 / 1e3, ell0 * 1e4].
    max_time : float or None, default=None
        Wall-clock budget in seconds for the whole hyperparameter search; when it runs out the
        best point seen so far is kept and ``stopped_by_time_`` is True.
    length_scale_init, signal_variance_init : float, array-like or None
        First starting point (``length_scale_init`` may have one entry per feature with
        ``ard=True``; a scalar is broadcast).
    optimizer : {'lbfgs', None}, default='lbfgs'
        ``None`` keeps the initial hyperparameters (no search).
    ep_algorithm : {'parallel', 'sequential'}, default='parallel'
        The EP sweep of :func:`pixsel.gp.ep_binary_probit` (a parallel sweep that does not
        converge is finished sequentially).
    ep_damping : float in (0, 1], default=0.8
        Step of the parallel EP sweep in the natural site parameters.
    ep_tol : float, default=1e-5
        EP stops when no site parameter changed by more than this in a sweep.
    blas_threads : int or None, default=1
        BLAS threads inside ``fit`` and the predictions (scoped with ``threadpoolctl``; restored
        afterwards). EP and Laplace run many O(n^2) and O(n^3) operations on n x n matrices of a
        few hundred to a few thousand rows, where one thread is as fast or faster, and on a
        shared, oversubscribed machine much faster (contended threads wait for each other).
        ``None`` leaves the process setting alone.
    random_state : int, RandomState instance or None
    ep_method : {'parallel', 'sequential'} or None, default=None
        Deprecated alias of ``ep_algorithm`` (pixsel's switch vocabulary: ``algorithm`` says
        how the same answer is computed); when set it wins, with a ``FutureWarning``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    theta_ : ndarray
        Log-hyperparameters ``[log sf, log ell...]``.
    signal_variance_ : float
    length_scale_ : float or ndarray of shape (n_features,)
    relevance_ : ndarray of shape (n_features,)
        Inverse length-scales (ARD relevance); the common value repeated when ``ard=False``.
    log_marginal_likelihood_value_ : float
    restarts_ : list of dict
        Per start: initial and final ``theta``, final log marginal likelihood, iterations.
    n_iter_ : int
        Objective evaluations over all starts.
    fit_time_ : float
        Seconds spent in ``fit``.
    stopped_by_time_ : bool

    References
    ----------
    * C. E. Rasmussen and C. K. I. Williams, "Gaussian processes for machine learning", MIT Press,
      2006, chapter 3.
    * T. P. Minka, "Expectation propagation for approximate Bayesian inference", Conference on
      Uncertainty in Artificial Intelligence (UAI), 2001.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> clf = GaussianProcessProbitClassifier(n_restarts=0, random_state=0).fit(X, y)
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    _parameter_constraints: dict = {
        "approximation": [StrOptions(("ep", "laplace"))],
        "ard": ["boolean"],
        "n_restarts": [Interval(Integral, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "max_time": [Interval(Real, 0, None, closed="neither"), None],
        "length_scale_init": [Interval(Real, 0, None, closed="neither"), "array-like", None],
        "signal_variance_init": [Interval(Real, 0, None, closed="neither"), None],
        "optimizer": [StrOptions(("lbfgs",)), None],
        "ep_algorithm": [StrOptions(("parallel", "sequential"))],
        "ep_damping": [Interval(Real, 0, 1, closed="right")],
        "ep_tol": [Interval(Real, 0, None, closed="neither")],
        "blas_threads": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "ep_method": [StrOptions(("parallel", "sequential")), None],
    }

    def __init__(
        self,
        approximation: Literal["ep", "laplace"] = "ep",
        *,
        ard: bool = False,
        n_restarts: int = 2,
        max_iter: int = 200,
        max_time: float | None = None,
        length_scale_init: ArrayLike | None = None,
        signal_variance_init: ArrayLike | None = None,
        optimizer: Literal["lbfgs"] | None = "lbfgs",
        ep_algorithm: Literal["parallel", "sequential"] = "parallel",
        ep_damping: float = 0.8,
        ep_tol: float = 1e-5,
        blas_threads: int | None = 1,
        random_state: int | np.random.RandomState | None = None,
        ep_method: Literal["parallel", "sequential"] | None = None,
    ) -> None:
        self.approximation = approximation
        self.ard = ard
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.max_time = max_time
        self.length_scale_init = length_scale_init
        self.signal_variance_init = signal_variance_init
        self.optimizer = optimizer
        self.ep_algorithm = ep_algorithm
        self.ep_damping = ep_damping
        self.ep_tol = ep_tol
        self.blas_threads = blas_threads
        self.random_state = random_state
        self.ep_method = ep_method

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # -- inference -----------------------------------------------------------------------------
    def _infer(self, K, yy, init):
        if self.approximation == "ep":
            algorithm = getattr(self, "_ep_mode", self.ep_algorithm)
            st = ep_binary_probit(K, yy, init=init, algorithm=algorithm, damping=self.ep_damping, tol=self.ep_tol,
                                  max_sweeps=50 if algorithm == "parallel" else 200)
            if not st.converged and algorithm == "parallel":
                # parallel sweeps can oscillate (e.g. large signal variance on nearly separable
                # data); the sequential ones converge for the log-concave probit likelihood:
                # finish from where the parallel sweeps stopped and stay sequential in this fit
                st = ep_binary_probit(K, yy, init=(st.tau, st.nu), algorithm="sequential", tol=self.ep_tol)
                self._ep_mode = "sequential"
            return st, (st.tau, st.nu)
        st = laplace_binary_probit(K, yy, init=init)
        return st, st.a

    def _lml_and_grad(self, kernel, theta, X, yy, init):
        K = kernel(theta, X)
        K[np.diag_indices_from(K)] += 1e-8 * np.exp(2 * theta[0])  # jitter for a PD Cholesky
        st, warm = self._infer(K, yy, init)
        if self.approximation == "ep":
            g = ep_log_marginal_grad(kernel, theta, X, K, st)
        else:
            g = laplace_log_marginal_grad(kernel, theta, X, K, yy, st)
        return st, warm, g

    def _threads(self):
        return blas_limit(self.blas_threads)

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Fit the hyperparameters and the latent posterior.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Exactly two classes.

        Returns
        -------
        self
        """
        check_params(self)
        with self._threads():
            return self._fit(X, y)

    def _fit(self, X, y):
        t0 = time.perf_counter()
        ep_algorithm = self.ep_algorithm
        if self.ep_method is not None:
            warnings.warn(
                f"{_OWNER}(ep_method=...) was renamed ep_algorithm=...; pass ep_algorithm instead.",
                FutureWarning,
                stacklevel=3,
            )
            ep_algorithm = self.ep_method
        X = check_input(self, X)  # text refused, (n, h, w) stacks flattened
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        target = type_of_target(y, input_name="y")
        self.classes_ = np.unique(y)
        if target not in ("binary",) or len(self.classes_) != 2:
            raise ValueError(
                f"Only binary classification is supported. The type of the target is {target} "
                f"({len(self.classes_)} class(es)); {_OWNER} needs two classes, e.g. one class "
                "against the rest."
            )
        rng = check_random_state(self.random_state)
        self._ep_mode = ep_algorithm
        yy = np.where(y == self.classes_[1], 1.0, -1.0)
        p = X.shape[1]
        kernel = SquaredExponential(bool(self.ard), p)
        ell0 = (
            _median_distance(X, rng)
            if self.length_scale_init is None
            else np.asarray(self.length_scale_init, dtype=np.float64)
        )
        sf2_0 = 1.0 if self.signal_variance_init is None else float(self.signal_variance_init)
        if np.any(np.asarray(ell0) <= 0) or sf2_0 <= 0:
            raise ValueError("length_scale_init and signal_variance_init must be positive.")
        log_ell0 = np.log(np.broadcast_to(ell0, (p,)) if self.ard else float(np.mean(ell0)))
        theta0 = np.concatenate([[0.5 * np.log(sf2_0)], np.atleast_1d(log_ell0)])
        ref = float(np.log(np.median(np.broadcast_to(ell0, (p,)))))
        bounds = [(np.log(1e-2), np.log(1e2))] + [(ref - np.log(1e3), ref + np.log(1e4))] * (
            kernel.n_params - 1
        )
        starts = [theta0]
        for _ in range(self.n_restarts):
            jitter = rng.uniform(-np.log(10), np.log(10), size=2)
            th = theta0.copy()
            th[0] += jitter[0]
            th[1:] += jitter[1] + (rng.normal(0, 0.1, size=p) if self.ard else 0.0)
            starts.append(th)
        starts = [np.clip(s, [b[0] for b in bounds], [b[1] for b in bounds]) for s in starts]

        deadline = None if self.max_time is None else t0 + float(self.max_time)
        best = {"lml": -np.inf, "theta": theta0, "state": None, "warm": None}
        self.restarts_ = []
        self.n_iter_ = 0
        self.stopped_by_time_ = False
        for th0 in starts:
            cache = {"warm": None, "n": 0}

            def objective(theta):
                if deadline is not None and best["state"] is not None and time.perf_counter() > deadline:
                    raise _OutOfTime
                cache["n"] += 1
                try:
                    st, warm, g = self._lml_and_grad(kernel, theta, X, yy, cache["warm"])
                except np.linalg.LinAlgError:
                    return 1e10, np.zeros_like(theta)
                if not np.isfinite(st.log_Z) or not np.all(np.isfinite(g)):
                    return 1e10, np.zeros_like(theta)
                cache["warm"] = warm
                if st.log_Z > best["lml"]:
                    best.update(lml=st.log_Z, theta=np.array(theta), state=st, warm=warm)
                return -st.log_Z, -g

            if self.optimizer is None:
                objective(th0)
                self.restarts_.append({"theta0": th0, "theta": th0, "lml": best["lml"], "n_eval": 1})
                self.n_iter_ = 1
                break
            lml_before = best["lml"]
            try:
                res = sopt.minimize(objective, th0, jac=True, method="L-BFGS-B", bounds=bounds,
                                    options={"maxiter": int(self.max_iter)})
                self.restarts_.append({"theta0": th0, "theta": res.x, "lml": -float(res.fun),
                                       "n_eval": cache["n"], "message": str(res.message)})
            except _OutOfTime:
                self.stopped_by_time_ = True
                self.restarts_.append({"theta0": th0, "theta": best["theta"], "lml": max(best["lml"], lml_before),
                                       "n_eval": cache["n"], "message": "stopped by max_time"})
            self.n_iter_ += cache["n"]
            if self.stopped_by_time_:
                break
        if best["state"] is None:
            raise ValueError(
                "The GP marginal likelihood could not be evaluated at any starting point (the "
                "covariance was not positive definite). Rescale X or set length_scale_init."
            )
        self.theta_ = best["theta"]
        self.log_marginal_likelihood_value_ = float(best["lml"])
        # final inference at the best hyperparameters, for prediction
        K = kernel(self.theta_, X)
        K[np.diag_indices_from(K)] += 1e-8 * np.exp(2 * self.theta_[0])
        self.state_, _ = self._infer(K, yy, best["warm"])
        if self.approximation == "ep" and not self.state_.converged:
            warnings.warn(f"EP did not converge in {self.state_.n_sweeps} sweeps at the final "
                          "hyperparameters.", ConvergenceWarning, stacklevel=2)
        self._kernel = kernel
        self._K = K
        self._yy = yy
        self.X_train_ = X.copy()
        sf2, ell = kernel.split(self.theta_)
        self.signal_variance_ = float(sf2)
        self.length_scale_ = ell if self.ard else float(ell)
        self.relevance_ = 1.0 / np.broadcast_to(ell, (p,)).astype(np.float64)
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _predict_parts(self, X):
        check_is_fitted(self)
        X = check_input(self, X, reset=False)  # text refused, (n, h, w) stacks flattened
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Ks = self._kernel(self.theta_, self.X_train_, X)
        kss = self._kernel.diag(self.theta_, X)
        pred = ep_predict if self.approximation == "ep" else laplace_predict
        with self._threads():
            return pred(self._K, Ks, kss, self._yy, self.state_)

    def decision_function(self, X: ArrayLike) -> NDArray:
        """``E[f*] / sqrt(1 + V[f*])``, the probit argument of ``p(y* = classes_[1])``.

        Positive favours ``classes_[1]``; monotone in the predictive probability.
        """
        m, v, _, _ = self._predict_parts(X)
        return m / np.sqrt(1.0 + v)

    def predict_log_proba(self, X: ArrayLike) -> NDArray:
        """Log predictive class probabilities, columns ordered as ``classes_``."""
        _, _, lp_pos, lp_neg = self._predict_parts(X)
        return np.column_stack([lp_neg, lp_pos])

    def predict_proba(self, X: ArrayLike) -> NDArray:
        """Predictive class probabilities ``Phi(mean / sqrt(1 + var))``, columns as ``classes_``."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: ArrayLike) -> NDArray:
        """Predicted class: ``classes_[1]`` where the predictive probability exceeds 1/2."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
