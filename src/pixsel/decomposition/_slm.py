"""SparseLinearModelProjection: dimensionality reduction with the sparse linear model (NIPS 2011)."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.decomposition import DictionaryLearning, MiniBatchDictionaryLearning, sparse_encode
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._backend import HostFitTransformerMixin, fit_on_host, transform_inputs
from .._lazy import dask_rows
from .._validation import Interval, StrOptions, check_int, check_params
from ..projection import (
    estimate_sigma_tau,
    estimate_variances,
    general_slm_projection,
    kernel_dictionary_learning,
    kernel_lasso_codes,
    kernel_lasso_factor,
    kernel_slm_projection,
    lasso_gram_cd,
    slm_projection,
)
from ._base import KERNEL_CONSTRAINTS, _KernelMixin

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["SparseLinearModelProjection"]

#: Coordinate-descent sweeps (at least) of the codes that ``sigma`` and ``tau`` are estimated from.
SCALE_CODING_MAX_ITER = 100


def _lasso(algorithm):
    """The lasso solver handed to the kernels: scikit-learn's ``sparse_encode`` with design ``R``."""

    def lasso(Z, R, alpha):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return sparse_encode(Z, R.T, algorithm=algorithm, alpha=alpha)

    return lasso


class _EpochProgress:
    """scikit-learn's dictionary-learning ``callback(locals())`` turned into epoch steps of a bar."""

    def __init__(self, steps):
        self.steps = steps
        self.epoch = 0

    def __call__(self, env):
        per_epoch = env.get("n_steps_per_iter")
        if per_epoch:  # MiniBatchDictionaryLearning: called after every mini-batch step i
            epoch = (int(env["i"]) + 1) // int(per_epoch)
        else:  # DictionaryLearning: called every 5 iterations ii
            epoch = int(env.get("ii", 0)) + 1
        if epoch > self.epoch:
            self.steps.update(epoch - self.epoch, f"epoch {epoch}")
            self.epoch = epoch


class SparseLinearModelProjection(HostFitTransformerMixin, _KernelMixin, ClassNamePrefixFeaturesOutMixin,
                                  TransformerMixin, BaseEstimator):
    """Linear (or kernel) projection preserving sparse-code inner products in expectation.

    Gkioulekas and Zickler, "Dimensionality reduction using the sparse linear model", NIPS 2011.
    ``fit`` learns a dictionary ``D`` (or takes one), codes the training data, estimates the noise
    level ``sigma`` and the Laplace code scale ``tau`` (unless given), and computes the projection:

    * ``model='standard'``: the closed form ``L = diag(f(lambda_M)) V_M^T`` of Eq. (7)-(8), with
      ``(lambda_M, V_M)`` the top eigenpairs of ``D D^T`` (``sigma = 0``: Eq. 9);
    * ``model='general'``: per-atom Laplace scales ``tau_i`` and per-pixel noise variances, problem
      (10)-(11), solved by :func:`pixsel.projection.general_slm_projection`;
    * ``kernel`` set: the kernel extension ``B = V_M diag(g(lambda_M))`` of Eq. (17)-(18) with atoms
      in the kernel's feature space, either pre-images (``dictionary`` given) or learned in the
      representer form ``D = Phi(basis) F`` by kernel dictionary learning.

    **Sparsity parameter.** ``alpha`` is the paper's ``lambda = sigma^2 / tau`` and is passed
    unchanged as scikit-learn's ``alpha``: scikit-learn's dictionary learning and ``sparse_encode``
    minimize ``1/2 ||x - D a||^2 + alpha ||a||_1``, which is the kernel lasso (13),
    ``1/(2 sigma^2) ||x - D a||^2 + 1/tau ||a||_1``, multiplied by ``sigma^2``. (Eq. (3) as printed
    has ``1/sigma^2`` instead of ``1/(2 sigma^2)``; under that scaling ``alpha = lambda / 2``.)

    **Estimating sigma and tau.** ``tau`` is the Laplace maximum-likelihood scale of the training
    codes, ``mean |a_ij|``. In the linear model ``sigma^2`` is by default the maximum-likelihood
    white-noise variance of the training residuals, ``mean (X - A D^T)^2`` (``sigma=None``);
    ``sigma='prior'`` takes instead the ratio the lasso itself assumes, ``sigma^2 = alpha * tau``
    (``alpha = lambda = sigma^2 / tau``), which is what the kernel model uses (a residual in the
    feature space has no per-coordinate variance). Measured on CMU PIE with 5 training images per
    person (``benchmarks/bench_slm_stability.py``), the residual estimate gives the better 4-NN
    accuracy: the prior's larger ``sigma`` turns the projection from a whitening of the dictionary
    into a PCA-like weighting. The scales jumped between random halves of a face set with the
    former LARS coder (degenerate active sets on near-duplicate atoms); the coordinate-descent
    coder keeps them stable. The values used are stored in ``sigma_`` and ``tau_``.

    **Solver.** The linear dictionary is learned by scikit-learn's
    ``MiniBatchDictionaryLearning`` (or ``DictionaryLearning``) with its coordinate-descent lasso
    (``coding_algorithm='lasso_cd'``); the lasso's per-sample convergence warnings inside a
    stochastic dictionary update are expected and are not shown. The kernel dictionary is learned
    by alternating a compiled coordinate-descent lasso on the atoms' Gram matrix (warm-started) and
    the representer-form update, which works from the sparse codes and never forms an
    ``n_basis^2 x n_atoms`` product (:mod:`pixsel.projection`); an iteration costs about a third
    of a ``KernelPCA`` fit on the same kernel at ~1.5 %-dense codes, ~0.8 of one at ~15 %. Nothing is
    printed unless ``progress=True``.

    **Array libraries.** Under ``sklearn.set_config(array_api_dispatch=True)`` an ``X`` of
    another library (PyTorch, CuPy, array-api-strict) is fitted on a host copy: scikit-learn's
    dictionary learning and lasso have no array-API support, so the dictionary, the codes and the
    closed-form projection are computed with NumPy. The fitted arrays are then put on X's device,
    and ``transform`` of new data (``X @ components_.T``, or the kernel against ``basis_``) runs
    in X's library on its device, in X's float dtype.

    Parameters
    ----------
    n_components : int, default=2
        ``M``, at most ``n_features`` (linear) or ``n_atoms`` (kernel). Components beyond the
        rank of the dictionary are zero (``rank_`` says how many are not).
    n_atoms : int, optional
        ``K``. Default: ``n_features`` (linear, as in the paper's face experiment) or
        ``min(256, n_basis)`` (kernel). Ignored when ``dictionary`` is given.
    alpha : float, default=0.05
        Sparsity penalty ``lambda = sigma^2 / tau`` of dictionary learning and coding (see above).
    sigma : float or 'prior', optional
        Noise standard deviation (``>= 0``). None: the root-mean-square training residual (linear
        model) or ``sqrt(alpha * tau_)`` (kernel model); ``'prior'``: ``sqrt(alpha * tau_)``.
    tau : float, optional
        Laplace code scale (``> 0``); estimated from the training codes when None.
    model : {'standard', 'general'}, default='standard'
        ``'general'`` is linear only.
    kernel : str or callable, optional
        None for the linear model, else a kernel name or callable of
        :func:`sklearn.metrics.pairwise.pairwise_kernels` (``'rbf'``, ``'poly'``, ``'linear'``...).
    gamma, degree, coef0 : kernel parameters (as in ``pairwise_kernels``).
    kernel_params : dict, optional
        Extra keyword arguments of a callable kernel.
    dictionary : array-like of shape (n_atoms, n_features), optional
        Fixed atoms (one per row). Linear model: the dictionary ``D = dictionary.T``. Kernel
        model: pre-image atoms ``Phi(d_i)``.
    fit_algorithm : {'minibatch', 'batch'}, default='minibatch'
        scikit-learn ``MiniBatchDictionaryLearning`` or ``DictionaryLearning`` (linear model).
    max_iter : int, default=30
        Epochs / iterations of dictionary learning (linear and kernel).
    batch_size : int, default=256
        Mini-batch size (``fit_algorithm='minibatch'``).
    n_basis : int, optional
        Kernel model without a dictionary: number of training samples (drawn at random) that
        carry the representer form; default all of them. The memory is ``O(n_basis^2)``.
    coding_algorithm : {'lasso_cd', 'lasso_lars'}, default='lasso_cd'
        Lasso solver of :func:`sklearn.decomposition.sparse_encode` for the codes, and the matching
        ``fit_algorithm`` (``'cd'`` / ``'lars'``) of scikit-learn's dictionary learning (linear
        model). Coordinate descent is much faster for many atoms; LARS (exact, the former default)
        costs up to an order of magnitude more. The kernel model learns its dictionary with its own vectorized
        coordinate descent; ``'lasso_lars'`` there codes through ``sparse_encode`` instead.
    coding_max_iter : int, default=30
        Coordinate-descent sweeps per lasso (``'lasso_cd'``) inside linear dictionary learning
        (scikit-learn's ``transform_max_iter``, whose default is 1000). A stochastic dictionary
        update needs no exact codes: on digits and USPS 3 vs 5 (held-out halves), 30 sweeps
        instead of 100 fit faster and learn dictionaries with the same or a lower held-out lasso
        objective and projections with the same nearest-neighbour accuracy
        (``benchmarks/bench_slm_sweeps.py``). The final codes that ``sigma`` and ``tau`` are
        estimated from, which the scales depend on directly, get at least 100 sweeps.
    tol : float, default=1e-2
        Relative objective change that stops kernel dictionary learning. MOD with unit atoms
        creeps: on 600 USPS digits (Gaussian kernel, 300 atoms, alpha 0.01-0.1, three random
        subsets) ``1e-3`` takes 20-30 iterations where ``1e-2`` takes 4-12, and k-means on the
        projections moves by -0.009 / +0.005 / -0.002 (accuracy / NMI / ARI, mean over the nine
        runs; at most 0.05 in one run), less than the spread between subsets
        (``docs/findings-kernel-slm.md``).
    random_state : int, RandomState or None
        Dictionary initialization and the basis subsample.
    progress : bool or callable, default=False
        Report dictionary learning in epochs, with the time left (a bar on a terminal, plain
        lines elsewhere; see :mod:`pixsel._progress`). ``pixsel project`` turns it on for a
        terminal or ``--progress``. A callable receives the epochs instead, as ``progress(done,
        total, what)`` after each epoch (``what``: ``'SLM dictionary (epochs)'``; the kernel
        model: ``'kernel SLM dictionary (iterations)'``), and nothing is drawn.

    Attributes
    ----------
    dictionary_ : ndarray of shape (n_atoms, n_features)
        Linear atoms, or the kernel model's pre-image atoms (absent for a representer-form
        kernel dictionary, see ``dictionary_coef_``).
    components_ : ndarray of shape (n_components, n_features)
        ``L`` (linear model only); ``transform(X) = X @ components_.T``.
    coef_ : ndarray of shape (n_atoms, n_components)
        ``B`` of Eq. (17) (kernel model only).
    basis_ : ndarray of shape (n_basis, n_features)
        Kernel model: the samples the kernel is evaluated against in ``transform``
        (``transform(X) = k(X, basis_) @ dual_coef_``); the pre-image atoms when given.
    dictionary_coef_ : ndarray of shape (n_basis, n_atoms)
        Kernel model, learned dictionary: ``D = Phi(basis_) F``.
    dual_coef_ : ndarray of shape (n_basis, n_components)
        Kernel model: ``F @ B`` (or ``B`` for pre-image atoms).
    eigenvalues_ : ndarray of shape (n_components,)
        Top eigenvalues of ``D D^T`` (or ``K_DD``); for ``model='general'`` the eigenvalues of
        ``L^T L``.
    sigma_, tau_ : float
        The noise level and code scale used.
    code_var_, noise_var_ : ndarray
        ``model='general'``: per-atom code variances ``2 tau_i^2`` and per-pixel noise variances.
    rank_ : int
        Number of non-zero components.
    n_iter_ : int
        Dictionary-learning iterations (kernel), epochs run (linear), or solver iterations
        (``model='general'``); 0 when the dictionary was given.
    history_ : list of float
        Kernel model, learned dictionary: the dictionary-learning objective at every iteration.
    converged_ : bool
        Kernel model, learned dictionary: whether the relative objective change fell below
        ``tol`` within ``max_iter`` iterations (no warning is issued: like scikit-learn's
        ``MiniBatchDictionaryLearning``, ``max_iter`` is a budget).
    n_features_in_ : int

    References
    ----------
    * I. Gkioulekas and T. Zickler, "Dimensionality reduction using the sparse linear model",
      Advances in Neural Information Processing Systems 24 (NIPS), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.decomposition import SparseLinearModelProjection
    >>> X = np.random.default_rng(0).normal(size=(60, 8))
    >>> slm = SparseLinearModelProjection(n_components=2, n_atoms=12, random_state=0).fit(X)
    >>> slm.transform(X).shape, slm.components_.shape
    ((60, 2), (2, 8))
    """

    _parameter_constraints: dict = {
        **KERNEL_CONSTRAINTS,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_atoms": [Interval(Integral, 1, None, closed="left"), None],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "sigma": [StrOptions(("prior",)), Interval(Real, 0, None, closed="left"), None],
        "tau": [Interval(Real, 0, None, closed="neither"), None],
        "model": [StrOptions(("standard", "general"))],
        "kernel": [*KERNEL_CONSTRAINTS["kernel"], None],
        "dictionary": ["array-like", None],
        "fit_algorithm": [StrOptions(("minibatch", "batch"))],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "n_basis": [Interval(Integral, 2, None, closed="left"), None],
        "coding_algorithm": [StrOptions(("lasso_cd", "lasso_lars"))],
        "coding_max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "progress": ["boolean", callable],
    }

    def __init__(
        self,
        n_components: int = 2,
        *,
        n_atoms: Any = None,
        alpha: float = 0.05,
        sigma: float | Literal["prior"] | None = None,
        tau: float | None = None,
        model: Literal["standard", "general"] = "standard",
        kernel: Any = None,
        gamma: Any = None,
        degree: int = 3,
        coef0: int = 1,
        kernel_params: Any = None,
        dictionary: Any = None,
        fit_algorithm: Literal["minibatch", "batch"] = "minibatch",
        max_iter: int = 30,
        batch_size: int = 256,
        n_basis: Any = None,
        coding_algorithm: Literal["lasso_cd", "lasso_lars"] = "lasso_cd",
        coding_max_iter: int = 30,
        tol: float = 1e-2,
        random_state: int | np.random.RandomState | None = None,
        progress: bool | Callable[[int, int, str], object] = False,
    ) -> None:
        self.n_components = n_components
        self.n_atoms = n_atoms
        self.alpha = alpha
        self.sigma = sigma
        self.tau = tau
        self.model = model
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.dictionary = dictionary
        self.fit_algorithm = fit_algorithm
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.n_basis = n_basis
        self.coding_algorithm = coding_algorithm
        self.coding_max_iter = coding_max_iter
        self.tol = tol
        self.random_state = random_state
        self.progress = progress

    # ------------------------------------------------------------------ helpers
    def _resolve_scales(self, alpha, tau_hat, residual_sigma, owner):
        """``sigma_``, ``tau_`` from the parameters and the estimates (see the class notes)."""
        tau = tau_hat if self.tau is None else float(self.tau)
        if tau <= 0:
            raise ValueError(
                f"All sparse codes of the training data are zero with alpha={self.alpha}, so the code "
                "scale tau cannot be estimated. Lower alpha or pass tau explicitly."
            )
        if isinstance(self.sigma, str) or (self.sigma is None and self.kernel is not None):
            sigma = np.sqrt(alpha * tau)  # the lasso's prior ratio sigma^2 / tau = alpha
        elif self.sigma is None:
            sigma = residual_sigma
        else:
            sigma = self.sigma
        return float(sigma), float(tau)

    def _progress(self, total, desc):
        from .._progress import CallbackSteps, step_progress

        if callable(self.progress):
            return CallbackSteps(self.progress, total, desc)
        return step_progress(total, desc, enabled=bool(self.progress))

    # ---------------------------------------------------------------------- fit
    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Learn (or take) the dictionary, estimate ``sigma`` and ``tau``, compute the projection.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples (e.g. images flattened and normalized to unit length). Never modified.
        y : ignored

        Returns
        -------
        self
        """
        # scikit-learn's dictionary learning and lasso are NumPy only: the fit runs on a host
        # copy of X (the "projection" route), the fitted arrays go back to X's device
        check_params(self)  # the parameters, then the options that cannot run together
        return fit_on_host(self, X, y, self._fit_host)

    def _check_conflicts(self):
        if self.model == "general" and self.kernel is not None:
            raise ValueError(f"model='general' of {type(self).__name__} is linear only; set kernel=None.")

    def _fit_host(self, X, y=None):
        """:meth:`fit` on NumPy input (array-API dispatch off)."""
        owner = type(self).__name__
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        n, p = X.shape
        alpha, max_iter = float(self.alpha), int(self.max_iter)
        self._coding_max_iter = int(self.coding_max_iter)
        # the codes sigma and tau are estimated from: solved further, the scales depend on them directly
        self._scale_max_iter = max(self._coding_max_iter, SCALE_CODING_MAX_ITER)
        rng = check_random_state(self.random_state)
        if self.kernel is None:
            self._fit_linear(X, alpha, max_iter, rng, owner)
        else:
            self._fit_kernel(X, alpha, max_iter, rng, owner)
        return self

    def _check_dictionary(self, p, owner):
        D = np.asarray(self.dictionary)
        if D.ndim != 2 or D.shape[1] != p:
            raise ValueError(
                f"The 'dictionary' parameter of {owner} must have shape (n_atoms, {p}) (one atom per "
                f"row, as many columns as X has features); got shape {D.shape}."
            )
        D = D.astype(np.float64)
        if not np.all(np.isfinite(D)):
            raise ValueError(f"The 'dictionary' parameter of {owner} contains NaN or infinite values.")
        return D

    def _fit_linear(self, X, alpha, max_iter, rng, owner):
        n, p = X.shape
        if self.n_components > p:
            raise ValueError(
                f"The 'n_components' parameter of {owner} must be at most n_features={p}; got "
                f"{self.n_components} (X has {p} feature(s)). A linear projection to M dimensions needs M <= N."
            )
        M = int(self.n_components)
        self.n_iter_ = 0
        if self.dictionary is not None:
            atoms = self._check_dictionary(p, owner)
        else:
            K = p if self.n_atoms is None else int(self.n_atoms)
            seed = rng.randint(np.iinfo(np.int32).max)
            fa = "lars" if self.coding_algorithm == "lasso_lars" else "cd"
            with self._progress(max_iter, "SLM dictionary (epochs)") as steps:
                common = dict(n_components=K, alpha=alpha, max_iter=max_iter, random_state=seed, fit_algorithm=fa,
                              transform_algorithm=self.coding_algorithm, transform_alpha=alpha,
                              transform_max_iter=self._coding_max_iter,
                              callback=_EpochProgress(steps) if self.progress else None)
                if self.fit_algorithm == "minibatch":
                    bs = int(self.batch_size)
                    dl = MiniBatchDictionaryLearning(batch_size=min(bs, n), **common)
                else:
                    dl = DictionaryLearning(**common)
                with warnings.catch_warnings():
                    # a lasso that stops early inside a stochastic dictionary update is expected
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    dl.fit(X)
            atoms = np.asarray(dl.components_, dtype=np.float64)
            self.n_iter_ = int(dl.n_iter_)
        need_codes = self.model == "general" or self.tau is None or self.sigma is None
        tau_hat = residual_sigma = 0.0
        if need_codes:
            Xd = np.asarray(X, dtype=np.float64)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                codes = sparse_encode(Xd, atoms, algorithm=self.coding_algorithm, alpha=alpha,
                                      max_iter=self._scale_max_iter)
            residual_sigma, tau_hat = estimate_sigma_tau(Xd, codes, atoms)
        self.sigma_, self.tau_ = self._resolve_scales(alpha, tau_hat, residual_sigma, owner)
        self.dictionary_ = atoms
        if self.model == "standard":
            res = slm_projection(atoms, M, sigma=self.sigma_, tau=self.tau_)
            self.components_ = res.components
            self.eigenvalues_ = res.eigenvalues
            self.rank_ = res.rank
        else:
            code_var, noise_var = estimate_variances(Xd, codes, atoms)
            if self.tau is not None:  # user-given global scale overrides the per-atom estimate
                code_var = np.full_like(code_var, 2 * self.tau_**2)
            if self.sigma is not None:  # a given (or prior) sigma overrides the per-pixel estimate
                noise_var = np.full_like(noise_var, self.sigma_**2)
            res = general_slm_projection(atoms, M, code_var=code_var, noise_var=noise_var)
            if not res.converged:
                warnings.warn(
                    f"The general-model solver of {owner} stopped after {res.n_iter} iterations "
                    f"without converging ({res.message}).",
                    ConvergenceWarning,
                    stacklevel=3,
                )
            self.components_ = res.components
            self.eigenvalues_ = res.eigenvalues
            self.rank_ = int(np.count_nonzero(res.eigenvalues > 0))
            self.code_var_, self.noise_var_ = code_var, noise_var
            self.n_iter_ = res.n_iter
        self._n_out = M

    def _fit_kernel(self, X, alpha, max_iter, rng, owner):
        n, p = X.shape
        Xd = np.asarray(X, dtype=np.float64)
        self.n_iter_ = 0
        if self.dictionary is not None:
            atoms = self._check_dictionary(p, owner)
            Kdd = self._pairwise(atoms, atoms)
            K = atoms.shape[0]
            self.dictionary_ = atoms
            self.basis_ = atoms
            F = None
            codes = None
            if self.tau is None:
                Kxd = self._pairwise(Xd, atoms)
                if self.coding_algorithm == "lasso_cd":
                    codes = lasso_gram_cd(Kdd, Kxd, alpha, max_iter=self._scale_max_iter).codes
                else:
                    R, W = kernel_lasso_factor(Kdd)
                    codes = kernel_lasso_codes(Kxd, R, W, alpha, _lasso(self.coding_algorithm))
        else:
            n_basis = n if self.n_basis is None else int(self.n_basis)
            n_basis = min(n_basis, n)
            idx = np.sort(rng.choice(n, size=n_basis, replace=False)) if n_basis < n else np.arange(n)
            basis = Xd[idx]
            K = min(256, n_basis) if self.n_atoms is None else check_int(
                self.n_atoms, "n_atoms", low=1, high=n_basis, owner=owner
            )
            Kxx = self._pairwise(basis, basis)
            initial = np.sort(rng.choice(n_basis, size=K, replace=False))
            lasso = None if self.coding_algorithm == "lasso_cd" else _lasso(self.coding_algorithm)
            with self._progress(max_iter, "kernel SLM dictionary (iterations)") as steps:
                F, codes, self.n_iter_, self.history_, self.converged_, Kdd = kernel_dictionary_learning(
                    Kxx, initial, alpha, lasso, max_iter=max_iter, tol=float(self.tol), return_gram=True,
                    callback=(lambda it, obj: steps.update(1, f"objective {obj:.6g}")) if self.progress else None,
                )
            self.basis_ = basis
            self.dictionary_coef_ = F
        if self.n_components > K:
            raise ValueError(
                f"The 'n_components' parameter of {owner} must be at most n_atoms={K} in the kernel "
                f"model; got {self.n_components}."
            )
        M = int(self.n_components)
        tau_hat = float(np.mean(np.abs(codes))) if codes is not None else 0.0
        self.sigma_, self.tau_ = self._resolve_scales(alpha, tau_hat, 0.0, owner)
        res = kernel_slm_projection(Kdd, M, sigma=self.sigma_, tau=self.tau_)
        self.coef_ = res.components
        self.dual_coef_ = res.components if F is None else F @ res.components
        self.eigenvalues_ = res.eigenvalues
        self.rank_ = res.rank
        self._n_out = M

    # ---------------------------------------------------------------- transform
    @dask_rows
    def transform(self, X: ArrayLike) -> NDArray:
        """Project ``X``: ``X @ components_.T`` (linear) or ``k(X, basis_) @ dual_coef_`` (kernel).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self, "eigenvalues_")
        names = ("components_", "basis_", "dual_coef_")  # those of the fitted model (linear or kernel)
        Xw, (components, basis, dual_coef) = transform_inputs(
            self, X, self.eigenvalues_, *(getattr(self, name, None) for name in names)
        )
        if self.kernel is None:
            return Xw @ components.T
        return self._pairwise(Xw, basis) @ dual_coef

    @property
    def _n_features_out(self):
        return self._n_out
