"""SparsePCASelector: unsupervised pixel selection by the first sparse principal component."""

from __future__ import annotations

import contextlib

import numpy as np

from .._array_api import to_numpy
from .._backend import fit_route, store_on_route, validate_fit
from .._routes import follow, record_compiled
from .._validation import StrOptions, check_params
from ..spectral import DIRECTIONS, certify, greedy_path, greedy_sparse_component, leading_component, refine_support
from ..stats import covariance, gram_operator
from ._base import PATH_CONSTRAINTS, _PathSelector
from ._exact_fit import relative_gap
from ._groups import exact_group_fit, fit_groups, group_paths, store_groups

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal, Self

    from numpy.typing import ArrayLike

__all__ = ["SparsePCASelector"]


class SparsePCASelector(_PathSelector):
    """Greedy sparse PCA (GSPCA): the k features whose first principal component has most variance.

    The criterion is ``lambda_max(C_SS)``, the largest eigenvalue of the sample covariance ``C``
    restricted to a support ``S`` of exactly ``k`` features: the generalized problem of
    "Generalized Spectral Bounds for Sparse LDA" (Moghaddam, Weiss and Avidan, ICML 2006) with
    ``B = I``. Each greedy step is exact (see
    :func:`pixsel.spectral.greedy_path`). By default the forward path to ``k`` is followed by
    :func:`pixsel.spectral.refine_support` at ``k``; a certified upper bound on the best variance
    over all supports of size ``k`` is stored with the selection when asked
    (``certificate=True``).

    Parameters
    ----------
    n_features_to_select : int or float, default=10
        ``k``: an int in ``[1, n_features]`` or a fraction in ``(0, 1]``.
    direction : {'forward', 'backward', 'dual'}, default='forward'
        ``'forward'`` runs the greedy pass up to ``k`` only (the fastest); ``'dual'`` also runs
        the whole backward path from ``p`` down and keeps the support of larger variance at ``k``
        (ties go to the backward pass). The backward path is ``O(p^4)`` (slow at ``p`` in the
        thousands) and, on the
        Extended Yale B faces, gave no better support than forward + ``refine`` (see
        ``benchmarks/bench_defaults.py``), hence the default.
    algorithm : {'auto', 'dense', 'implicit'}, default='auto'
        ``'dense'`` forms the ``p x p`` covariance; ``'implicit'`` works through ``X`` (memory
        ``O(N p + p k)``, forward only); ``'auto'`` picks ``'implicit'`` when ``p > 4096`` and
        ``N < p`` (the direction is then forced to forward; see ``direction_``). (Named like
        scikit-learn's ``algorithm`` switches; ``solver`` is reserved for greedy vs exact.)
    refine : bool, default=True
        Dense algorithm only: improve the selected support by
        :func:`pixsel.spectral.refine_support` (truncated power steps, a sweep of every 1-swap
        behind a certified screening bound, first-order group exchanges and grow-and-shrink
        moves; never worse, no longer on the nested path).
        On by default: greedy paths alone fall short of abess's support at ``k = 100, 300`` on the
        faces; the refinement reaches it at a fraction of the cost of a backward path.
        ``get_support_at`` for other ``k`` still reads the unrefined path.
    certificate : bool, default=False
        Dense algorithm only: compute ``upper_bound_``, a certified upper bound on the best
        variance of any ``k`` features (inclusion bounds, and the sparse PCA duality certificate
        of every support on the path when ``p <= 2048``; about as long as the fit itself at
        ``p = 1024``, hence opt-in). ``solver='exact'`` always certifies.
    solver : {'greedy', 'exact'}, default='greedy'
        ``'exact'`` (dense algorithm only): the support at ``n_features_to_select`` is the
        certified optimum of :func:`pixsel.spectral.exact_support` (branch and bound started from
        the greedy support); ``upper_bound_`` / ``gap_`` are then its certificate and ``status_``,
        ``n_nodes_`` report the search.
    time_limit : float or None, default=None
        Seconds allowed to the exact search; when it stops first, the best support found is kept
        with its certified gap and a ``ConvergenceWarning`` is raised.
    node_limit : int or None, default=None
        Search-tree nodes allowed to the exact search (stops like ``time_limit``).
    gap_tol : float, default=0.0
        Relative gap at which the exact search may stop (status ``'gap_reached'``): the support
        returned is then within ``gap_tol`` (as a fraction) of the optimum.
    progress : bool, default=False
        Report the exact search (nodes, best objective, certified bound, relative gap): a bar on
        a terminal, plain lines elsewhere. Library code is quiet by default.
    groups : array-like of shape (n_features,), 'channels' or None, default=None
        Select whole *groups* of features: one group id per feature; the variance is that of the
        union of the chosen groups and ``n_features_to_select`` counts groups. None: the pixels
        of a colour stack ``X`` of shape ``(n, h, w, c)``, single features otherwise;
        ``'channels'``: every feature alone. With groups, ``refine`` and ``certificate`` do not
        apply (single-feature moves and bounds); ``solver='exact'`` searches over groups.
    patch_size : (int, int) or None, default=None
        Select non-overlapping ``a x b`` patches of an image stack ``(n, h, w)`` or
        ``(n, h, w, c)``; the sides must divide the image's.
    stability : int or None, default=None
        Stability selection ("Stability selection", Meinshausen and Buehlmann, JRSS-B, 2010):
        an int ``>= 2`` fits that many selectors, each on a random half of the samples, records
        in ``selection_frequencies_`` how often each feature is selected, and keeps the
        ``n_features_to_select`` most frequent (ties to the earlier entry in the full-data
        path); ``components_`` is then the leading component on them. NumPy input,
        ``solver='greedy'`` and the dense algorithm only.
    stability_correlation : float in (0, 1] or None, default=None
        Only with ``stability``: cluster stability selection ("Cluster stability selection",
        Faletto and Bien, 2022). Features whose absolute correlations on ``X`` are all at least
        this value form a cluster (complete linkage), and a cluster counts as selected by a
        resampled path when any of its members is: nearly interchangeable features (neighbouring
        pixels) then share one count instead of splitting it. The support is the
        ``n_features_to_select`` most frequent clusters, each by its most frequently selected
        member (ties to the earlier entry in the full-data path); with fewer clusters than
        features, their second members follow. ``0.9`` pools features that explain at least
        81 % of each other's variance; ``1.0`` only exact duplicates (up to sign and scale).
        ``None``: plain stability selection, each feature counted alone. The support spreads
        over more distinct regions; on face images it does not make the chosen pixels steadier
        across draws of the training images (the documentation's quality page, *Stability*).
    random_state : int, RandomState instance or None, default=None
        Draws the half-samples of ``stability`` (unused otherwise).
    always_select : array-like of int or None, default=None
        Features every support contains (abess's ``always_select``); ``n_features_to_select``
        and the ``k`` of :meth:`get_support_at` count them, so both must be at least their
        number. The largest eigenvalue does not split over a forced set, so the forward pass
        from ``F`` evaluates every candidate's variance ``lambda_max(C_SS)`` exactly (``O(p k^3)``
        per step, for modest ``p`` and ``k``); ``direction='forward'`` and the dense algorithm
        only, without groups or ``stability``. With ``solver='exact'`` the certified support is
        the best that contains ``F`` (the search fixes ``F`` in at its root, from the forward
        pass's support). ``refine`` does not apply
        (its swaps would drop forced features); ``certificate`` is refused.
        ``objective_path_`` is NaN below ``|F|``.

    Attributes
    ----------
    support_ : ndarray of shape (n_features,) of bool
    n_features_to_select_ : int
    objective_path_ : ndarray of shape (n_features,) or (n_features_to_select_,)
        Per k, the best variance ``lambda_max(C_SS)`` of the computed directions (at
        ``n_features_to_select_``, that of ``support_``, refined or exact when asked); as long as
        the longest path run (the forward pass stops at ``n_features_to_select_``).
    direction_ : str
        The direction(s) actually run.
    algorithm_ : str
        The algorithm actually run ('dense' or 'implicit').
    route_, route_reason_ : str
        Which kernels ran the greedy path and why, in one sentence: ``'compiled'`` (Numba, on
        a large problem or once this process has loaded them), ``'numpy'`` (a small problem:
        the NumPy kernels answer before the compiled ones would load; or a search with no
        compiled kernel, such as the forward pass of the trace and correlation criteria, whose
        steps are BLAS products on any route), ``'implicit'`` (no
        ``p x p`` matrix), ``'array_api'`` (another library's arrays on their device),
        ``'host'`` (another library's arrays on a CPU) or ``'dask'``. The selection is the same
        on every route (up to rounding).
    explained_variance_ : float
        ``lambda_max(C_SS)`` of the selected support (covariance normalized by ``n - 1``).
    components_ : ndarray of shape (1, n_features)
        The unit-norm sparse principal component on the support.
    upper_bound_ : float
        Certified upper bound on the best variance of any ``k`` features (``inf`` unless
        ``certificate=True`` or ``solver='exact'``).
    gap_ : float
        The relative gap ``(upper_bound_ - explained_variance_) / explained_variance_``: no
        ``k`` features explain more than ``1 + gap_`` times the selected variance (0 when
        certified optimal, ``inf`` without a bound): the certified gap of the documentation's
        exact-search page.
    absolute_gap_ : float
        ``upper_bound_ - explained_variance_``, in units of variance.
    forward_path_, backward_path_ : SparsePath or None
    ranking_ : ndarray of shape (n_features,) of int
        The step at which each feature enters the greedy path that gives the support at
        ``n_features_to_select_`` (1 = first); before the refinement's swaps.
    selection_frequencies_, scores_ : ndarray of shape (n_features,)
        Only with ``stability``: the fraction of the resampled fits that selected each feature
        (``scores_`` is the same array, larger is better).
    stability_clusters_ : ndarray of shape (n_features,) of int
        Only with ``stability_correlation``: the cluster of each feature (``0 ..
        n_clusters - 1``, numbered by their first feature).
    cluster_frequencies_ : ndarray of shape (n_clusters,)
        Only with ``stability_correlation``: the fraction of the resampled fits whose support
        holds at least one member of each cluster.
    status_, n_nodes_ : str, int
        Only with ``solver='exact'``: the search status (``'optimal'``, ``'gap_reached'``,
        ``'time_limit'``, ``'node_limit'`` or ``'interrupted'``, as defined in the
        documentation's exact-search page, "Status and certified gap") and the nodes searched.
    always_select_ : ndarray of int
        The forced features, sorted (empty without ``always_select``).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    n_features_selected_, groups_, n_groups_, group_support_, image_shape_, image_support_
        The selection in features, groups and pixels (see :class:`SparseLDASelector`).

    Notes
    -----
    Array API: under ``sklearn.set_config(array_api_dispatch=True)`` a PyTorch, CuPy or
    array-api-strict ``X`` is fitted on its device (the covariance in X's float dtype, the
    greedy path and the leading component there); the refinement's swaps and
    ``solver='exact'`` run on a host copy of the ``p x p`` covariance made once. Every fitted
    array is on X's device; ``get_support`` returns NumPy booleans.

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Spectral bounds for sparse PCA: exact and greedy
      algorithms", Advances in Neural Information Processing Systems 18 (NIPS), 2005.
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925
    * B. Moghaddam, Y. Weiss and S. Avidan, "Fast pixel/part selection with sparse eigenvectors",
      IEEE International Conference on Computer Vision (ICCV), 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.selection import SparsePCASelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 6)); X[:, [1, 4]] += 3 * rng.standard_normal((100, 1))
    >>> SparsePCASelector(2).fit(X).get_support(indices=True).tolist()
    [1, 4]
    """

    def __init__(
        self,
        n_features_to_select: int | float = 10,
        *,
        direction: Literal["forward", "backward", "dual"] = "forward",
        algorithm: Literal["auto", "dense", "implicit"] = "auto",
        refine: bool = True,
        certificate: bool = False,
        solver: Literal["greedy", "exact"] = "greedy",
        time_limit: float | None = None,
        node_limit: int | None = None,
        gap_tol: float = 0.0,
        progress: bool = False,
        groups: ArrayLike | str | None = None,
        patch_size: tuple[int, int] | None = None,
        stability: int | None = None,
        stability_correlation: float | None = None,
        random_state: int | np.random.RandomState | None = None,
        always_select: ArrayLike | None = None,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.direction = direction
        self.algorithm = algorithm
        self.refine = refine
        self.certificate = certificate
        self.solver = solver
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.gap_tol = gap_tol
        self.progress = progress
        self.groups = groups
        self.patch_size = patch_size
        self.stability = stability
        self.stability_correlation = stability_correlation
        self.random_state = random_state
        self.always_select = always_select

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        return tags

    _parameter_constraints: dict = {
        **PATH_CONSTRAINTS,
        "direction": [StrOptions(DIRECTIONS)],
        "refine": ["boolean"],
        "certificate": ["boolean"],
    }

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Select ``n_features_to_select`` features of largest first sparse principal component.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), (n, h, w) or (n, h, w, c)
            An image stack is flattened (C order); a colour stack selects whole pixels.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        owner = check_params(self)  # the parameters, then the options that cannot run together
        X, image_shape = self._flatten_images(X)
        route = fit_route("greedy", X, chunked=False)
        # 8-bit NumPy images: their covariance from the integers themselves (stats.covariance)
        raw8 = X if isinstance(X, np.ndarray) and X.dtype in (np.uint8, np.int8, np.bool_) else None
        X, _ = validate_fit(self, route, X, dtype=[np.float64, np.float32])
        p = X.shape[1]
        grouping = fit_groups(self, p, image_shape)  # k counts groups when features are grouped
        n_resamples = self._check_stability(owner)
        if n_resamples and grouping is not None:  # the pixels of a colour stack
            raise ValueError(f"{owner}: stability counts single features; use it without groups, "
                             "patch_size or a colour image stack (flatten X to (n_samples, n_features)).")
        k = self._resolve_k(p) if grouping is None else grouping.k
        # the forward steps in all (the compiled rule of a full matrix), where the fit runs only forward
        # paths of single features (an exact search loads the compiled kernels for its engine anyway)
        forward = self.direction == "forward" and self.solver != "exact" and grouping is None
        steps = k * (1 + n_resamples) if forward else None
        route = self._sized_route(route, X, k=k, path_steps=steps,
                                  **({} if grouping is None else {"algorithm": "dense", "groups": True}))
        F = self._resolve_forced(p, k, owner, grouping=grouping, n_resamples=n_resamples, implicit=route.implicit)
        self.algorithm_ = route.algorithm
        self.route_, self.route_reason_ = route.name, route.reason
        # every kernel of the fit (the refinement and the forced features' path included) follows
        # the route's compiled/NumPy decision
        sized = follow(route) if route.name in ("compiled", "numpy") else contextlib.nullcontext()
        with record_compiled() as ran, sized:  # whether the search had a compiled kernel to run
            if grouping is not None:
                value, comp, ub = self._fit_groups(X, grouping, k, raw8)
            else:
                C, comp, ub = self._search(X, k, F, route, owner, raw8)
                value, comp, ub = self._improve(X, C, k, comp, ub, F, n_resamples, route)
        self._settle_route(ran)
        self._store_component(value, comp, ub)
        store_groups(self, grouping, image_shape)
        store_on_route(self, route)
        return self

    def _check_conflicts(self):
        super()._check_conflicts()
        if self.always_select is not None and np.asarray(self.always_select).size and (
                self.direction != "forward" or self.certificate):
            raise ValueError(f"{type(self).__name__}: always_select runs the forward pass only, without certificate "
                             "(the largest eigenvalue does not split over the forced features); use "
                             "direction='forward' and certificate=False.")

    def _check_implicit(self, owner):
        super()._check_implicit(owner)
        if self.solver == "exact":
            raise ValueError(f"{owner}: solver='exact' needs algorithm='dense' (the p x p covariance).")
        if self.direction == "backward":
            raise ValueError(
                f"{owner}: algorithm='implicit' runs forward selection only; use direction='forward' "
                "or algorithm='dense' (which forms the p x p covariance)."
            )

    def _fit_groups(self, X, grouping, k, raw8=None):
        """Whole groups: the covariance, the group path(s), the exact group search when asked;
        returns the variance, the component and the upper bound of the support at ``k``.
        ``raw8``: the 8-bit images ``X`` was converted from, if any (their covariance, exactly)."""
        C = covariance(X if raw8 is None else raw8)
        direction = self.direction
        fwd, bwd = group_paths(grouping, C, None, direction, max_k=k if direction == "forward" else None)
        self._set_paths(fwd, bwd, k, direction)
        ub = np.inf
        if self.solver == "exact":
            self.support_ = exact_group_fit(self, grouping, C, None, k)
            ub = float(self.upper_bound_)
        S = np.flatnonzero(to_numpy(self.support_))
        value, comp = leading_component(to_numpy(C, np.float64), S)
        if self.solver == "exact":
            value = self.exact_result_.objective  # the certified value, not its recomputation
        return float(value), comp, ub

    def _search(self, X, k, F, route, owner, raw8=None):
        """The statistics and the greedy path(s), stored; returns the covariance (None on the
        implicit route), the component at ``k`` and its upper bound (``inf`` unless certified).
        ``raw8``: the 8-bit NumPy images ``X`` was converted from, if any (their covariance from
        the integers, :func:`pixsel.stats.covariance`)."""
        cov_X = X if raw8 is None else raw8
        n, p = X.shape
        direction, ub = self.direction, np.inf
        if route.implicit:
            self._check_implicit(owner)  # chosen by algorithm='auto' on the data
            direction, C = "forward", None
            fwd, bwd = greedy_path(gram_operator(X), max_k=k), None  # passes on X's device
            # A = Xc^T Xc / n there; report the (n - 1)-normalized variance like the dense solver
            fwd.objective = fwd.objective * n / (n - 1)
            comp = fwd.weights(k)
        elif len(F):  # forward from the forced features, every candidate evaluated exactly
            C = covariance(cov_X, route=route)
            fwd, bwd = greedy_path(to_numpy(C, np.float64), max_k=k, always_select=F), None
            comp = leading_component(to_numpy(C, np.float64), fwd.support(k))[1]
        else:
            C = covariance(cov_X, route=route)
            fwd, bwd, best, _, comp = greedy_sparse_component(C, k, direction, route=route)
            comp = to_numpy(comp, np.float64)
            if self.certificate:
                certify(best, dual=p <= 2048)
                ub = float(best.upper_bound[k - 1])
        self._set_paths(fwd, bwd, k, direction)
        return C, comp, ub

    def _improve(self, X, C, k, comp, ub, F, n_resamples, route):
        """The greedy support at ``k`` refined, replaced by the most frequent features of
        ``stability`` or by the exact optimum, as asked; returns its variance, component and bound."""
        S = np.flatnonzero(self.support_)
        value = float(self.objective_path_[k - 1])
        if self.refine and route.algorithm == "dense" and not len(F):
            Ch = to_numpy(C, np.float64)  # the refinement's small swaps run on the host
            S, value, _ = refine_support(Ch, S)
            comp = leading_component(Ch, S)[1]
            self.support_ = np.zeros(X.shape[1], dtype=bool)
            self.support_[S] = True
            self.objective_path_[k - 1] = value
        if self._stabilize(X, None, k, n_resamples, route):  # the most frequent k features
            S = np.flatnonzero(self.support_)
            value, comp = leading_component(to_numpy(C, np.float64), S)
        if self.solver == "exact":
            self._solve_exact(C, None, k, route=route)  # device statistics: one host copy
            value, ub = float(self.exact_result_.objective), float(self.upper_bound_)
            comp = self.exact_result_.weights.copy()
        return value, comp, ub

    def _store_component(self, value, comp, ub):
        """``components_``, ``explained_variance_`` and the certificate's bound and gaps."""
        self.components_ = (comp / np.linalg.norm(comp))[None, :]
        self.explained_variance_ = value
        self.upper_bound_ = ub
        self.absolute_gap_ = ub - self.explained_variance_
        self.gap_ = relative_gap(ub, self.explained_variance_)
