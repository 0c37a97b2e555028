"""ColumnSubsetSelector: k pixels whose span keeps the most of the (centered) images, no labels."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (N_FEATURES_TO_SELECT, PLACEMENT_PARAMETERS, Interval, StrOptions, check_input,
                           check_params, resolve_k)
from ..scores import (greedy_placement, kept_mass, pivoted_qr_columns, placement_constraints, placement_gram,
                      refine_placement)
from ..spectral import criterion_named
from ._base import ImageSelectorMixin
from ._exact_fit import SOLVERS, _exact_fit_attributes

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["ColumnSubsetSelector"]

_METHODS = ("greedy", "qr")
#: The placement constraints the selector takes (those of :func:`pixsel.scores.placement_constraints`).
_CONSTRAINTS = tuple(name for name in PLACEMENT_PARAMETERS if name != "image_shape")


class ColumnSubsetSelector(ImageSelectorMixin, SelectorMixin, BaseEstimator):
    """Unsupervised, deterministic column-subset selection: pixels that span the images.

    The ``k`` selected pixels ``S`` are chosen so that the other pixels are well predicted from
    them by least squares: the kept Frobenius mass ``||P_S A||_F^2`` of the centered data ``A``
    (``P_S`` the projector on the span of the chosen columns) is large. Unlike a per-pixel score
    (variance, Laplacian score), a pixel that duplicates one already chosen gains nothing, so the
    selection covers the image instead of piling up in its brightest-varying region.

    Parameters
    ----------
    n_features_to_select : int or float, default=10
        ``k``: an int in ``[1, n_features]`` (larger selects all the features, with a warning), or a
        float in ``(0, 1]`` for a fraction of the features.
    method : {'greedy', 'qr'}, default='greedy'
        ``'greedy'``: at each step the pixel that increases the kept mass the most ("An efficient
        greedy method for unsupervised feature selection", Farahat, Ghodsi and Kamel, ICDM 2011),
        run on the data itself (:func:`~pixsel.scores.greedy_placement`): ``O(n p)`` per pixel
        when there are fewer images than pixels, else ``O(n p^2)`` for the Gram matrix (from 512
        pixels and for ``k`` up to ``p / 8`` accumulated in single precision for the ranking,
        :func:`~pixsel.scores.placement_gram`; the kept masses are exact) and ``O(p^2)`` per pixel. ``'qr'``: the pivots of
        the column-pivoted QR decomposition (Businger and Golub, 1965), each the pixel of largest
        residual after projecting out the previous ones: cheaper per step, blind to how much
        of the other pixels a candidate explains.
    solver : {'greedy', 'exact'}, default='greedy'
        ``'exact'``: the support of ``method``'s path at ``n_features_to_select`` is replaced by
        the certified best support of that size for the same objective, the kept mass
        (:func:`pixsel.spectral.exact_support` on the column-subset criterion, the pair
        ``(C C^T, C)`` of the pixel covariance ``C``, started from the forward and backward
        greedy supports improved by single exchanges);
        ``status_``, ``gap_``, ``upper_bound_`` and ``n_nodes_`` report it. Needs a positive
        definite pixel covariance (more images than pixels, no constant or duplicated pixel).
        The search is exponential in the worst case: give it a ``time_limit`` beyond a few
        dozen pixels; a stopped search keeps the best support found with its certified gap.
    time_limit : float or None, default=None
        Seconds allowed to the exact search; when it stops before proving optimality, the best
        support found is kept with its certified gap and a ``ConvergenceWarning`` is raised.
    node_limit : int or None, default=None
        Search-tree nodes allowed to the exact search (stops like ``time_limit``).
    gap_tol : float, default=0.0
        Relative gap at which the exact search may stop (status ``'gap_reached'``): the support
        returned is then within ``gap_tol`` (as a fraction) of the optimum.
    progress : bool, default=False
        Report the exact search (nodes, best kept mass, certified bound, relative gap) once it
        has run a few seconds: a bar on a terminal, plain lines elsewhere. Library code is quiet
        by default.
    always_select : array-like of int or bool or None, default=None
        Pixels every selection contains (installed sensors; flattened indices or a mask),
        counted in ``n_features_to_select`` and chosen first, in the order given. With
        ``solver='exact'`` the certified support is the best one that contains them (the search
        runs on the covariance of the other pixels given these, the kept mass they add).
    never_select : array-like of int or bool or None, default=None
        Pixels no selection contains, with either solver. Disjoint from ``always_select``.
    regions : array-like of int of shape (height, width) or (n_pixels,), default=None
        A label image of regions, with ``max_per_region`` and/or ``min_per_region``.
    max_per_region, min_per_region : int or dict, default=None
        At most / at least this many chosen pixels per region (an int for every region, or
        ``{label: count}``), installed ones counted.
    min_distance : float, default=None
        Every two chosen pixels at least this far apart (Euclidean, in pixels; needs the image
        shape: an image stack, or ``image_shape``).
    costs : array-like of shape (height, width) or (n_pixels,), default=None
        Cost of each pixel, with ``budget``: the chosen pixels cost at most ``budget`` in total.
    budget : float, default=None
    image_shape : tuple of int, default=None
        ``(height, width)`` when ``X`` holds flattened images (an image stack gives it).
        The constraints are those of :class:`PixelReconstructor` (checked before any work by
        :func:`pixsel.scores.placement_constraints`), honoured by the greedy at every step and,
        with ``solver='exact'``, by the search at every node
        (:func:`pixsel.spectral.exact_support`'s ``always_select``, ``never_select`` and
        ``constraints``), which then starts from the constrained greedy's placement.
        ``method='qr'`` takes none of them (use ``method='greedy'``).

    Attributes
    ----------
    support_ : ndarray of shape (n_features,) of bool
    n_features_to_select_ : int
    order_ : ndarray of shape (n_features_to_select_,) of int
        The selected pixels in the order they were chosen.
    ranking_ : ndarray of shape (n_features,) of int
        ``ranking_[i]`` is the step at which pixel ``i`` was chosen (1 = first);
        pixels not chosen have rank ``n_features_to_select_ + 1``.
    objective_path_ : ndarray of shape (n_features_to_select_,)
        ``objective_path_[t]``: the kept mass of the first ``t + 1`` pixels, as a fraction of
        the total ``||A||_F^2`` (1 means the chosen pixels reproduce every pixel exactly). With
        ``solver='exact'`` the pixels of the certified support are ordered by the greedy
        restricted to them, so the last entry is the support's kept mass.
    status_, upper_bound_, n_nodes_ : str, float, int
        Only with ``solver='exact'``: the search status (``'optimal'``, ``'gap_reached'``,
        ``'time_limit'``, ``'node_limit'`` or ``'interrupted'``, defined in the documentation's
        exact-search page, "Status and certified gap"), the certified upper bound on the kept
        mass fraction of every support of size ``n_features_to_select_``, and the nodes searched.
    gap_ : float
        Only with ``solver='exact'``: the relative gap ``(upper_bound_ - objective) /
        objective`` of the returned support (0 when certified optimal).
    absolute_gap_ : float
        Only with ``solver='exact'``: ``upper_bound_`` less the support's kept mass fraction.
    always_select_, never_select_ : ndarray of int
        The forced and the excluded pixels, sorted (empty without ``always_select`` /
        ``never_select``).
    n_features_in_ : int
    image_shape_ : tuple or None
        ``(h, w)`` or ``(h, w, c)`` when ``X`` was an image stack (flattened in C order;
        ``transform`` takes the stack or the rows, ``get_support_image()`` gives the mask in
        this shape); None after a fit on 2-D rows.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` has string feature names.

    References
    ----------
    * A. K. Farahat, A. Ghodsi and M. S. Kamel, "An efficient greedy method for unsupervised feature
      selection", IEEE International Conference on Data Mining (ICDM), 2011.
    * P. Businger and G. H. Golub, "Linear least squares solutions by Householder transformations",
      Numerische Mathematik 7, 1965.
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006 (the branch and bound of
      ``solver='exact'``).

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.selection import ColumnSubsetSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 3)) @ rng.standard_normal((3, 12))  # rank 3
    >>> sel = ColumnSubsetSelector(3).fit(X)
    >>> sel.transform(X).shape, round(float(sel.objective_path_[-1]), 6)
    ((50, 3), 1.0)
    >>> X = rng.standard_normal((200, 8)) @ rng.standard_normal((8, 8))
    >>> best = ColumnSubsetSelector(3, solver="exact").fit(X)
    >>> best.status_, best.gap_, bool(best.objective_path_[-1] >= sel.fit(X).objective_path_[-1])
    ('optimal', 0.0, True)
    """

    _parameter_constraints: dict = {
        "n_features_to_select": N_FEATURES_TO_SELECT,
        "method": [StrOptions(_METHODS)],
        "solver": [StrOptions(SOLVERS)],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "node_limit": [Interval(Integral, 0, None, closed="left"), None],
        "gap_tol": [Interval(Real, 0, None, closed="left")],
        "progress": ["boolean"],
        **PLACEMENT_PARAMETERS,
    }

    def __init__(self, n_features_to_select: int | float = 10, *, method: Literal["greedy", "qr"] = "greedy",
                 solver: Literal["greedy", "exact"] = "greedy", time_limit: float | None = None,
                 node_limit: int | None = None, gap_tol: float = 0.0,
                 progress: bool = False, always_select: ArrayLike | None = None,
                 never_select: ArrayLike | None = None, regions: ArrayLike | None = None,
                 max_per_region: int | dict | None = None, min_per_region: int | dict | None = None,
                 min_distance: float | None = None, costs: ArrayLike | None = None, budget: float | None = None,
                 image_shape: tuple[int, ...] | None = None) -> None:
        self.n_features_to_select = n_features_to_select
        self.method = method
        self.solver = solver
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.gap_tol = gap_tol
        self.progress = progress
        self.always_select = always_select
        self.never_select = never_select
        self.regions = regions
        self.max_per_region = max_per_region
        self.min_per_region = min_per_region
        self.min_distance = min_distance
        self.costs = costs
        self.budget = budget
        self.image_shape = image_shape

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Choose ``n_features_to_select`` pixels of ``X`` (``y`` is ignored).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), (n_samples, h, w) or (n_samples, h, w, c)
            Samples: images flattened, or a grey or colour image stack (flattened in C order,
            every channel value a feature). Never modified.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        owner = check_params(self)
        X = check_input(self, X)  # text refused, (n, h, w[, c]) stacks flattened, image_shape_ kept
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        p = X.shape[1]
        k = resolve_k(self.n_features_to_select, p, owner, cap=True)
        if getattr(self, "image_shape_", None) is None and self.image_shape is not None:
            self.image_shape_ = tuple(int(d) for d in self.image_shape)
        given = {name: getattr(self, name) for name in _CONSTRAINTS if getattr(self, name) is not None}
        constrained = bool(given)
        if constrained and self.method == "qr":
            raise ValueError(f"{owner}: method='qr' takes no placement constraint ({', '.join(given)}; its pivots "
                             "are the decomposition's); use method='greedy', which honours them.")
        # checked before any work; None without constraints (the greedy's unconstrained route)
        shape = getattr(self, "image_shape_", None)
        shape = None if shape is None else shape[:2]
        cons = placement_constraints(p, k, image_shape=shape, owner=owner, **given) if constrained else None
        self.always_select_ = np.sort(cons.always) if cons is not None else np.zeros(0, dtype=np.intp)
        self.never_select_ = np.flatnonzero(cons.never) if cons is not None else np.zeros(0, dtype=np.intp)
        A = np.asarray(X, dtype=np.float64) - X.mean(axis=0, dtype=np.float64)
        total = float(np.einsum("ij,ij->", A, A))
        C = self._exact_covariance(A, total, owner) if self.solver == "exact" else None  # refused before work
        if self.method == "greedy":
            # A^T A of many pixels in single precision for the ranking (as PixelReconstructor), the
            # path's kept masses then from exact columns: n p k multiply-adds, which pay for
            # themselves against the n p^2 / 4 saved up to k = p / 8
            G, rtol = placement_gram(A) if A.shape[0] > p and 8 * k <= p else (None, 0.0)
            order, mass = greedy_placement(A, k, gram=G, gram_rtol=rtol, constraints=cons)
            if rtol:
                mass = kept_mass((A[:, order].T @ A).T, order)
            del G
        else:
            order = pivoted_qr_columns(A, k)
            # the kept mass of each prefix of the pivots: the same kernel with the pivots imposed
            _, mass = greedy_placement(A, k, constraints=placement_constraints(p, k, always_select=order))
        if C is not None:
            crit = criterion_named("column-subset")
            pair_A, pair_B, _ = crit.pair(C)
            self.objective_path_ = mass / total
            # without constraints no initial support: the search starts from its own forward and
            # backward greedy supports, each improved by exchanges (at least the greedy's kept mass);
            # with any, from the constrained greedy's placement improved by swaps (the search's own
            # greedy passes do not know budgets, regions or distances)
            start = None if cons is None else refine_placement(A, k, constraints=cons).support
            best = np.flatnonzero(_exact_fit_attributes(self, pair_A, pair_B, k, criterion=crit, initial=start,
                                                        constraints=cons))
            # the certified pixels in the greedy's order among themselves (the installed ones first,
            # in the order given): each prefix's kept mass
            outside = np.setdiff1d(np.arange(p), best)
            forced = None if cons is None or not len(cons.always) else cons.always
            order, mass = greedy_placement(A, k, constraints=placement_constraints(
                p, k, always_select=forced, never_select=outside))
        self.n_features_to_select_ = k
        self.order_ = order
        ranking = np.full(p, k + 1, dtype=np.intp)
        ranking[order] = np.arange(1, k + 1)
        self.ranking_ = ranking
        self.objective_path_ = mass / total if total > 0 else np.zeros(k)
        support = np.zeros(p, dtype=bool)
        support[order] = True
        self.support_ = support
        return self

    def _exact_covariance(self, A, total, owner):
        """The pixel covariance scaled to unit trace (kept mass fractions), checked positive definite."""
        n, p = A.shape
        C = A.T @ A / total if total > 0 else np.zeros((p, p))
        try:
            np.linalg.cholesky(C)
        except np.linalg.LinAlgError:
            rank = int(np.linalg.matrix_rank(A))
            raise ValueError(
                f"{owner}(solver='exact') needs the pixel covariance to be positive definite (the search "
                f"solves with it); X has {n} samples of {p} features, of rank {rank} after centering. Give "
                "it more images than pixels and drop constant or duplicated pixels, or use solver='greedy'."
            ) from None
        return C

    def _get_support_mask(self) -> NDArray:
        check_is_fitted(self)
        return self.support_
