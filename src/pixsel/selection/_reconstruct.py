"""PixelReconstructor: place k sensors (pixels) and reconstruct whole images from their readings."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .._validation import (MAX_SWAP_SWEEPS, PLACEMENT_PARAMETERS, Interval, RealNotInt, StrOptions, check_input,
                           check_params, resolve_k)
from ..scores import (
    conditional_solve,
    fold_prior_products,
    fold_products,
    fold_products_from_outer,
    kept_mass,
    noise_cv_errors,
    placement_constraints,
    placement_gram,
    refine_placement,
)
from ..stats import DCTPrior, dct_shrinkage_intensity, dct_shrinkage_intensity_bound, dct_spectrum

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["PixelReconstructor"]

#: The noise levels ``alpha='auto'`` chooses from, by cross-validation on the training images.
ALPHA_GRID = (0.001, 0.01, 0.03, 0.1, 0.3, 1.0)
#: Folds of that cross-validation (interleaved: image ``i`` is in fold ``i % _CV_FOLDS``).
_CV_FOLDS = 3
#: ``alpha='auto'`` on fewer training images than this uses this fallback instead.
_AUTO_MIN_SAMPLES, _AUTO_FALLBACK = 2 * _CV_FOLDS, 0.01

#: ``shrinkage='auto'`` shrinks only when the estimated Ledoit-Wolf intensity is at least this; below
#: it the sample covariance is kept (the plain fit). On faces and digits the intensity falls as
#: ``1 / n_samples`` (0.006-0.013 with about 2000 training images, 0.06-0.4 with 50-200), and the
#: shrunk model changed their held-out error by about 1 % or less, in either direction, below
#: 0.05; it lowered it by 1-9 % above 0.06 (textures: 0.88).
AUTO_SHRINKAGE_MIN = 0.05

#: With fewer images than pixels (from 512 pixels) and a shrunk covariance the placement ranks in
#: single precision (the spectrum's and ``A T``'s transforms, ``A A^T``, the bounds and the steps'
#: passes: half the time) when the shrinkage is at least this: the prior then weighs at least as
#: much as the sample covariance. On 64x64, 48x48 and 32x32 textures (shrinkage 0.71-1.0) the
#: path was the double-precision one at every k up to 150 (one tie at the last step); where the
#: sample covariance weighed more the rounding moved late steps: faces with 5 images per person
#: (shrinkage 0.07-0.08) at k = 100 (kept masses within 2e-5), and without shrinkage 10 per
#: person of CMU PIE from step 30-76 (kept mass up to 0.18 % lower at k = 100).
_SINGLE_MIN_SHRINKAGE = 0.5
#: ... and when the largest centred image norm lies in this range, so that its products (up to
#: about the norm's fourth power times the pixels) stay inside single precision's range.
_SINGLE_DATA_RANGE = (1e-6, 1e6)

#: Eigenvalues of the measured block below this fraction of its largest are dropped in the solve
#: (only reached with ``alpha=0`` on measurements that duplicate each other).
_EIG_RTOL = 1e-12


class PixelReconstructor(SelectorMixin, BaseEstimator):
    """Sensor placement: choose k pixels to measure and reconstruct whole images from them.

    ``fit`` chooses the pixels with the greedy column subset (each step the pixel whose
    reading, added to the others, explains the most of the centred training images) under the
    constraints real sensors have, then learns the map from the k readings to every pixel: the
    mean of each pixel given the readings under the Gaussian model with the training images'
    covariance (``basis='pixels'``) or its top ``n_basis`` principal components (``'pca'``), and
    readings with noise of variance ``alpha`` times the mean pixel variance. That is regularized
    (ridge) least squares; the model's posterior standard deviation of each pixel is
    the uncertainty map ``std_``.

    The greedy order is a path: every ``k' <= k`` of it is available without refitting
    (``get_support_at``, ``predict(..., k=k')``, ``get_std_at``). With ``refine`` the ``k``
    sensors are then improved by swaps (one placed pixel out, another in, while the kept mass
    rises); the shorter prefixes stay the greedy path's.

    Parameters
    ----------
    n_features_to_select : int or float, default=10
        ``k``, the pixels (sensors) to place, installed ones included: an int in
        ``[1, n_pixels]`` (larger places all pixels, with a warning) or a float in ``(0, 1]``
        for a fraction of the pixels. A pixel of a colour image measures all its channels.
    basis : {'pixels', 'pca'}, default='pixels'
        The covariance of the reconstruction model: the sample covariance of the pixels, or its
        restriction to the top ``n_basis`` principal components.
    n_basis : int, default=None
        Principal components for ``basis='pca'`` (default and maximum: ``min(n_samples - 1,
        n_features)``).
    alpha : float or 'auto', default='auto'
        Noise variance of a reading, as a fraction of the mean pixel variance (the ridge
        penalty). ``0`` interpolates the readings exactly. ``'auto'`` chooses it from
        ``ALPHA_GRID`` by 3-fold cross-validation of the held-out relative error on the training
        images, with the fitted sensors (``alpha_``); few training images and many sensors call
        for a larger value.
    always_select : array-like of int, default=None
        Installed sensors (flattened pixel indices, row-major): always chosen, first.
    never_select : array-like of int, default=None
        Pixels never chosen.
    regions : array-like of int of shape (height, width) or (n_pixels,), default=None
        A label image of regions, with ``max_per_region`` and/or ``min_per_region``.
    max_per_region : int or dict, default=None
        At most this many sensors per region (an int for every region, or ``{label: max}``).
    min_per_region : int or dict, default=None
        At least this many sensors per region (an int for every region, or ``{label: min}``),
        installed sensors counted; exactly ``n`` per region: ``min_per_region=n,
        max_per_region=n``. The minima hold for the ``k`` sensors placed; shorter prefixes of
        the path (``get_support_at``) may not meet them, as the greedy takes the pixels a region
        lacks only once the remaining steps are needed for them.
    min_distance : float, default=None
        Every two sensors at least this far apart (Euclidean, in pixels; needs the image shape).
    costs : array-like of shape (height, width) or (n_pixels,), default=None
        Cost of a sensor at each pixel, with ``budget``.
    budget : float, default=None
        The sensors, installed ones included, cost at most this in total.
    image_shape : tuple of int, default=None
        ``(height, width)`` when ``X`` holds flattened images (an image stack gives it).
    refine : 'auto', bool or int, default='auto'
        Improve the ``k`` greedy sensors by swaps: visit the placed pixels in turn and replace
        each by the unplaced pixel that raises the kept mass most, when one does (every
        constraint above holds after each swap; installed sensors stay), until no single swap
        raises it (:func:`pixsel.scores.refine_placement`; the swaps are valued in closed form
        from the greedy's factors, no refit). True: up to 100 swaps; an int: at most that many
        (0 is False). ``'auto'``: True with more training images than pixels when the sample
        covariance is kept (``shrinkage_ == 0``), False otherwise: there the swaps lowered the
        held-out error of every measured placement (faces and digits), the fit staying about
        PySensors' QR time, while with fewer images than pixels (textures) they raised it at small ``k``,
        most of all on the shrunk covariance, at up to 2.5 times the fit (see the sensor placement
        page's benchmark). ``order_`` and the shorter prefixes read by ``get_support_at(k')``,
        ``predict(..., k=k')`` and ``get_std_at(k')`` stay the greedy path; ``sensors_`` holds
        the refined pixels. Grey images only (``'auto'`` does not swap colour pixels).

        .. versionchanged:: 0.2
           The default was False; ``refine=False`` keeps the greedy's sensors.
    shrinkage : {'auto'}, float or None, default='auto'
        Shrink the covariance of the model towards a stationary one, for the placement and the
        reconstruction: ``(1 - rho) S + rho T`` with ``S`` the sample covariance and ``T`` its
        diagonal in the two-dimensional cosine (DCT) basis (:class:`pixsel.stats.DCTPrior`), a
        full-rank covariance close to a translation-invariant one. ``'auto'``: ``rho`` is the
        Ledoit-Wolf intensity towards ``T`` (:func:`pixsel.stats.dct_shrinkage_intensity`),
        large with few images of many pixels (textures) and near 0 with many, when it is at
        least ``AUTO_SHRINKAGE_MIN`` (0.05), else 0: the data ask for the shrinkage, or the fit
        is the plain one (same pixels and model, ``shrinkage_ = 0``) at the cost of the
        intensity alone; a float: that ``rho`` in ``[0, 1]``. ``None``: the sample covariance.
        Needs grey images of known shape and ``basis='pixels'`` (``'auto'`` otherwise keeps the
        sample covariance). The greedy then maximizes the kept mass under the shrunk covariance.

        .. versionchanged:: 0.2
           ``'auto'`` keeps the sample covariance when the intensity is below
           ``AUTO_SHRINKAGE_MIN``, and is the default (it was None): on textures it lowered
           the held-out error by 1-12 %, on faces and digits it costs the intensity's bound
           alone; ``shrinkage=None`` keeps the sample covariance.

    Attributes
    ----------
    n_features_to_select_ : int
        ``k``, the pixels placed.
    order_ : ndarray of shape (n_features_to_select_,) of int
        The pixels in the order the greedy chose them (flattened ``height * width`` indices).
    sensors_ : ndarray of shape (n_features_to_select_,) of int
        The fitted sensors: ``order_``, with each pixel a swap of ``refine`` took out replaced in
        its place by the pixel it brought in.
    objective_path_ : ndarray of shape (n_features_to_select_,)
        Fraction of the training images' centred Frobenius mass spanned by the first ``t + 1``
        pixels of the greedy path (with ``shrinkage``: of the shrunk covariance's trace,
        ``trace(C_{:,S} C_SS^{-1} C_{S,:}) / trace(C)``).
    objective_ : float
        The same fraction for ``sensors_`` (``objective_path_[-1]`` without swaps).
    n_swaps_ : int
        Only when ``refine`` ran: the swaps taken.
    support_ : ndarray of shape (n_features_in_,) of bool
        The measured features (all channels of the chosen pixels).
    mean_ : ndarray of shape (n_features_in_,)
    alpha_ : float
        The noise level used (``alpha``, or the one ``'auto'`` chose).
    cv_errors_ : dict of float to float
        With ``alpha='auto'``: the cross-validated relative error of each candidate.
    noise_variance_ : float
        ``alpha_`` times the mean pixel variance.
    shrinkage_ : float
        The shrinkage intensity ``rho`` used (0: the sample covariance, also when ``'auto'``
        estimated one below ``AUTO_SHRINKAGE_MIN``).
    std_ : ndarray of shape image_shape_ or (n_features_in_,)
        Posterior standard deviation of each pixel given the k readings.
    image_shape_ : tuple of int
        ``(height, width)`` or ``(height, width, channels)``, when known.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` has string feature names.

    See Also
    --------
    ColumnSubsetSelector : the same greedy, without constraints or reconstruction.

    References
    ----------
    K. Manohar, B. W. Brunton, J. N. Kutz and S. L. Brunton, "Data-driven sparse sensor
    placement for reconstruction: demonstrating the benefits of exploiting known patterns",
    IEEE Control Systems Magazine, 2018.

    B. M. de Silva, K. Manohar, E. Clark, B. W. Brunton, J. N. Kutz and S. L. Brunton,
    "PySensors: A Python package for sparse sensor placement", Journal of Open Source
    Software, 2021.

    A. K. Farahat, A. Ghodsi and M. S. Kamel, "An efficient greedy method for unsupervised
    feature selection", ICDM 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel import PixelReconstructor
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.standard_normal((60, 3)) @ rng.standard_normal((3, 64))).reshape(60, 8, 8)
    >>> rec = PixelReconstructor(4, alpha=0.0, min_distance=2.0, shrinkage=None).fit(X[:50])
    >>> int(rec.get_support_image().sum()), rec.predict(rec.transform(X[50:])).shape
    (4, (10, 8, 8))
    >>> round(rec.score(X[50:]), 6)  # 1 - relative error: rank-3 images are exact from 4 readings
    1.0
    >>> PixelReconstructor(4).fit(X[:50]).shrinkage_ > 0  # 50 images of 64 pixels: the default shrinks
    True
    """

    _parameter_constraints: dict = {
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0, 1, closed="right")],
        "basis": [StrOptions({"pixels", "pca"})],
        "n_basis": [Interval(Integral, 1, None, closed="left"), None],
        "alpha": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        **PLACEMENT_PARAMETERS,
        "refine": [StrOptions({"auto"}), "boolean", Interval(Integral, 0, None, closed="left")],
        "shrinkage": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="both"), None],
    }

    def __init__(self, n_features_to_select: int | float = 10, *, basis: Literal["pixels", "pca"] = "pixels",
                 n_basis: int | None = None, alpha: float | str = "auto", always_select: ArrayLike | None = None,
                 never_select: ArrayLike | None = None, regions: ArrayLike | None = None,
                 max_per_region: int | dict | None = None, min_per_region: int | dict | None = None,
                 min_distance: float | None = None, costs: ArrayLike | None = None, budget: float | None = None,
                 image_shape: tuple[int, ...] | None = None, refine: str | bool | int = "auto",
                 shrinkage: str | float | None = "auto") -> None:
        self.n_features_to_select = n_features_to_select
        self.basis = basis
        self.n_basis = n_basis
        self.alpha = alpha
        self.always_select = always_select
        self.never_select = never_select
        self.regions = regions
        self.max_per_region = max_per_region
        self.min_per_region = min_per_region
        self.min_distance = min_distance
        self.costs = costs
        self.budget = budget
        self.image_shape = image_shape
        self.refine = refine
        self.shrinkage = shrinkage

    # --- fit

    def _flatten(self, X, *, reset):
        """A 2-D view of ``X`` (stacks of (h, w) or (h, w, c) images flattened) and its channels."""
        if isinstance(X, np.ndarray) and X.ndim == 4:
            shape = tuple(int(d) for d in X.shape[1:])
            if not reset and getattr(self, "image_shape_", shape) != shape:
                raise ValueError(f"{type(self).__name__} was fitted on images of shape {self.image_shape_}; X holds "
                                 f"images of shape {shape}: resize them to {self.image_shape_}.")
            X2 = X.reshape(X.shape[0], -1)
            X2 = check_input(self, X2, reset=False)
            if reset:
                self.image_shape_ = shape
            return X2, True
        stacked = isinstance(X, np.ndarray) and X.ndim == 3
        return check_input(self, X, reset=reset), stacked

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Place ``n_features_to_select`` sensors and learn the reconstruction (``y`` is ignored).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), (n_samples, height, width) or (n_samples, height, width, channels)
            Training images. Never modified.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        owner = check_params(self)
        X, stacked = self._flatten(X, reset=True)
        # a float array was checked finite by check_input: no second pass over it
        checked = isinstance(X, np.ndarray) and X.dtype.kind == "f"
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2,
                          ensure_all_finite=not checked)
        if not stacked and self.image_shape is not None:
            self.image_shape_ = tuple(int(d) for d in self.image_shape)
        shape = getattr(self, "image_shape_", None)
        p = X.shape[1]
        c = int(shape[2]) if shape is not None and len(shape) == 3 else 1
        if shape is not None and int(np.prod(shape)) * (1 if len(shape) == 3 else c) != p:
            raise ValueError(f"{owner}: image_shape {shape} has {int(np.prod(shape))} pixels; X has {p} features.")
        L = p // c
        k = resolve_k(self.n_features_to_select, L, owner, cap=True)
        cons = placement_constraints(L, k, image_shape=None if shape is None else shape[:2],
                                     always_select=self.always_select, never_select=self.never_select,
                                     regions=self.regions, max_per_region=self.max_per_region,
                                     min_per_region=self.min_per_region,
                                     min_distance=self.min_distance, costs=self.costs, budget=self.budget, owner=owner)
        swaps = self._swaps(owner, c)  # None: refine='auto', settled once the shrinkage is known
        shrink = self._shrink(owner, c, shape)
        n = X.shape[0]
        self.mean_ = X.mean(axis=0, dtype=np.float64)
        A = np.subtract(X, self.mean_, dtype=np.float64)
        auto = self.alpha == "auto" and n >= _AUTO_MIN_SAMPLES
        # the smaller Gram matrix: the greedy's, and the folds'; A^T A of many pixels in single
        # precision (gram_rtol > 0), for the placement alone: the model's columns are exact below,
        # and a shrunk model takes the exact matrix (its spectrum and intensity are read from it):
        # at once for a given shrinkage, after the intensity's bound for 'auto'
        # fewer images than pixels, from 512 pixels, and a shrunk covariance that may weigh the prior
        # at least as much as the sample covariance: A A^T in single precision, and the transforms
        # of the spectrum and of A T, the bounds and the steps' passes as well (``single``): they
        # rank the pixels; the model's covariance columns and the kept masses are computed from
        # exact columns below. Where the sample covariance weighs more (or alone) the fit is exact
        # (the rounding moved late steps of the path there: see _SINGLE_MIN_SHRINKAGE).
        single = False
        gram_rtol = 0.0
        if n <= p:
            maybe = shrink == "auto" or (isinstance(shrink, float) and shrink >= _SINGLE_MIN_SHRINKAGE)
            G, outer_rtol = placement_gram(A, outer=True) if maybe else (A @ A.T, 0.0)
            if outer_rtol:
                # single precision needs the products of the steps inside its range: images whose
                # largest norm is within _SINGLE_DATA_RANGE (pixel values of any usual scale)
                top = float(np.sqrt(np.max(np.diagonal(G), initial=0.0)))
                single = _SINGLE_DATA_RANGE[0] <= top <= _SINGLE_DATA_RANGE[1]
                if not single:
                    G = A @ A.T
        elif isinstance(shrink, float):
            G, gram_rtol = A.T @ A, 0.0
        else:
            G, gram_rtol = placement_gram(A)
        rho, prior, AT = 0.0, None, None
        # the squared norms of the images, read once for the bound and the folds (more images than pixels)
        row_sq = np.einsum("ij,ij->i", A, A) if n > p and (auto or shrink == "auto") else None
        if shrink == "auto" and n > p and dct_shrinkage_intensity_bound(A, shape[:2], gram=G,
                                                                        row_sq=row_sq) < AUTO_SHRINKAGE_MIN:
            shrink = None  # the intensity is below the threshold (its bound from the lowest frequencies says so)
        if shrink:
            if gram_rtol:  # the shrunk model's spectrum and intensity, and its greedy, on the exact A^T A
                G, gram_rtol = A.T @ A, 0.0
            # the spectrum from the p x p Gram matrix when there are more images than pixels (no
            # pass over the images), else from the images' coefficients, kept for A T
            coef = None
            if n > p:
                lam = dct_spectrum(A, shape[:2], gram=G)
            else:
                lam, coef = dct_spectrum(A, shape[:2], return_coefficients=True,
                                         dtype=np.float32 if single else np.float64)
            rho = dct_shrinkage_intensity(A, lam, gram=G) if shrink == "auto" else float(shrink)
            if single and rho < _SINGLE_MIN_SHRINKAGE:  # the sample covariance weighs more: exact from here
                single = False
                G = A @ A.T
                coef = None
                if rho >= AUTO_SHRINKAGE_MIN * (1.0 - 1e-3):  # (well below it, the exact intensity is too)
                    lam, coef = dct_spectrum(A, shape[:2], return_coefficients=True)
                    rho = dct_shrinkage_intensity(A, lam, gram=G)
            if shrink == "auto" and rho < AUTO_SHRINKAGE_MIN:
                rho = 0.0  # the data do not ask for it: the plain fit
            if rho > 0:
                prior = DCTPrior(lam)
                # every centred image filtered by T (the greedy's and the folds'), over the coefficients
                AT = prior.apply(A) if coef is None else prior.apply(None, coefficients=coef, overwrite=True)
            del coef
        if swaps is None:  # more images than pixels and the sample covariance kept: the swaps pay
            swaps = MAX_SWAP_SWEEPS if c == 1 and n > p and rho == 0 else 0
        res = refine_placement(A, k, block=c, constraints=cons, gram=G, max_swaps=swaps, shrinkage=rho,
                               prior=prior, prior_rows=AT, gram_rtol=gram_rtol)
        order, mass, placed = res.order, res.objective, res.support
        # the covariance columns of the path's pixels, then of the pixels the swaps brought in
        pixels = np.concatenate([order, np.setdiff1d(placed, order)])
        all_cols = (pixels[:, None] * c + np.arange(c)).ravel()
        cols = np.sort((placed[:, None] * c + np.arange(c)).ravel())  # the measured features at k
        index = np.full(p, -1, dtype=np.intp)
        index[all_cols] = np.arange(all_cols.size)
        # with shrinkage the placement computed the columns of G' = (1 - rho) A^T A + rho (n - 1) T
        # and of T at every pixel it took: the model's covariance columns without a pass over A
        shrunk = res.columns if rho > 0 and not single else None  # (rounded where the ranking was single)
        if shrunk is not None and not all(int(i) in shrunk for i in all_cols):
            shrunk = None
        folds = None
        if n > p:
            var = np.diagonal(G) / (n - 1)  # exact, also where G was accumulated in single precision
            # the model's columns: exact ones A^T A[:, all_cols] where G is rounded
            S = G[:, all_cols] if not gram_rtol else (A[:, all_cols].T @ A).T
            if auto:
                folds = fold_products(A, S[:, index[cols]], cols, _CV_FOLDS, row_sq=row_sq)
        else:
            var = np.einsum("ij,ij->j", A, A) / (n - 1)
            # A^T A[:, all_cols], this order running BLAS on A as stored, not on its transpose
            S = None if shrunk is not None else (A[:, all_cols].T @ A).T
            if auto:
                folds = fold_products_from_outer(G, A[:, cols], _CV_FOLDS)
        prior_cv = None
        if rho > 0:  # the shrunk covariance (1 - rho) S + rho T, its columns and diagonal
            # T[:, all_cols], Fortran-ordered (p, k): a contiguous copy per column
            TS = prior.columns(all_cols) if shrunk is None else np.array([shrunk[int(i)][1] for i in all_cols]).T
            var = (1.0 - rho) * var + rho * prior.diag()
            if auto:
                for fo, extra in zip(folds, fold_prior_products(A[:, cols], AT[:, cols], _CV_FOLDS)):
                    fo.update(extra)
                at = index[cols]  # the columns of TS at cols: T[:, cols] = TS[:, at]
                if at.size == all_cols.size:  # TS is T[:, cols] in another order: its Gram matrix, reordered
                    TtT = (TS.T @ TS)[np.ix_(at, at)]
                else:
                    Tc = TS[:, at]
                    TtT = Tc.T @ Tc
                prior_cv = {"rho": rho, "Tss": TS[cols][:, at], "trace": prior.trace(), "TtT": TtT}
        placed_mass = res.support_objective
        if gram_rtol:  # (no shrinkage) the path's and the placement's kept masses from exact columns
            mass = kept_mass(S[:, :k * c], all_cols[:k * c])[c - 1::c]
            placed_mass = float(kept_mass(S[:, index[cols]], cols)[-1])
        elif single and rho > 0:  # the directions moved with the rounded A A^T and A T: exact masses
            Gc = (1.0 - rho) * S + (rho * (n - 1)) * TS  # G'[:, all_cols] from the exact columns
            mass = kept_mass(Gc[:, :k], all_cols[:k])
            placed_mass = float(kept_mass(Gc[:, index[cols]], cols)[-1])
            del Gc
        total = float(var.sum() * (n - 1))
        del G
        if self.basis == "pixels":
            if rho == 0:
                self._cov = S / (n - 1)
            elif shrunk is not None:  # G'[:, all_cols] / (n - 1) = (1 - rho) S / (n - 1) + rho T[:, all_cols]
                self._cov = np.array([shrunk[int(i)][0] for i in all_cols]).T  # Fortran-ordered, as S
                self._cov /= n - 1
            else:
                self._cov = (1.0 - rho) * (S / (n - 1)) + rho * TS
        else:
            r = min(n - 1, p) if self.n_basis is None else min(int(self.n_basis), n - 1, p)
            r = max(r, 1)
            _, s, Vt = np.linalg.svd(A, full_matrices=False)
            V, lam = Vt[:r].T, s[:r] ** 2 / (n - 1)
            self._cov = (V * lam) @ V[all_cols].T
            var = np.einsum("ij,ij,j->i", V, V, lam)
            self.n_basis_ = r
        self._var = var
        self._cols, self._index, self._fitted_cols = all_cols, index, cols
        self._block = c
        self._stacked = stacked
        if auto:
            errors = noise_cv_errors(folds, p, ALPHA_GRID, rtol=_EIG_RTOL, prior=prior_cv)
            self.cv_errors_ = {a: float(e) for a, e in zip(ALPHA_GRID, errors)}
            self.alpha_ = min(ALPHA_GRID, key=lambda a: (self.cv_errors_[a], a))
        elif self.alpha == "auto":
            self.alpha_, self.cv_errors_ = _AUTO_FALLBACK, {}
        else:
            self.alpha_, self.cv_errors_ = float(self.alpha), {}
        self.noise_variance_ = self.alpha_ * float(var.mean()) if var.size else 0.0
        self.n_features_to_select_ = k
        self.shrinkage_ = float(rho)
        self.order_ = order
        self.sensors_ = placed
        self.objective_path_ = mass / total if total > 0 else np.zeros(k)
        self.objective_ = placed_mass / total if total > 0 else 0.0
        if swaps:
            self.n_swaps_ = res.n_swaps
        self.support_ = self.get_support_at(k)
        self.std_ = self.get_std_at(k)
        return self

    def _swaps(self, owner, channels):
        """The swaps ``refine`` allows (0: none; None: ``'auto'``, settled by the fit), refused before
        any work where they cannot run."""
        refine = self.refine
        if isinstance(refine, str):
            return None
        sweeps = (MAX_SWAP_SWEEPS if refine else 0) if isinstance(refine, bool) else int(refine)
        if sweeps and channels > 1:
            raise ValueError(f"{owner}: refine swaps single grey pixels; the images have {channels} channels. Use "
                             "refine=False with colour images.")
        return sweeps

    def _shrink(self, owner, channels, shape):
        """``'auto'``, a float > 0 or None: the shrinkage to run, refused before any work where it cannot."""
        value = self.shrinkage
        if value is None or (value != "auto" and float(value) == 0.0):
            return None
        usable = self.basis == "pixels" and channels == 1 and shape is not None
        if value == "auto":
            return "auto" if usable else None
        if not usable:
            raise ValueError(f"{owner}: shrinkage={value!r} shrinks towards a covariance of grey images of known shape "
                             "with basis='pixels': pass an image stack (n_samples, height, width) or image_shape, "
                             "basis='pixels', or shrinkage=None.")
        return float(value)

    def transform(self, X: ArrayLike) -> NDArray:
        """The readings of the fitted sensors: ``X`` reduced to the measured features.

        Parameters
        ----------
        X : array-like of whole images, in the training shape

        Returns
        -------
        readings : ndarray of shape (n_samples, n_features_to_select_ * channels)
        """
        if isinstance(X, np.ndarray) and X.ndim >= 3:
            X, _ = self._flatten(X, reset=False)
        return super().transform(X)

    def _get_support_mask(self) -> NDArray:
        check_is_fitted(self)
        return self.support_

    # --- the path

    def _check_k(self, k):
        check_is_fitted(self, "order_")
        if k is None:
            return self.n_features_to_select_
        if isinstance(k, bool) or not isinstance(k, Integral) or not 1 <= k <= self.n_features_to_select_:
            raise ValueError(f"k must be an int in [1, {self.n_features_to_select_}] (the fitted path); got {k!r}. "
                             "Refit with a larger n_features_to_select for more sensors.")
        return int(k)

    def _measured(self, k):
        """Measured features of the ``k`` sensors (the fitted ones at ``n_features_to_select_``, else the
        path's first ``k``), sorted: the column order of the readings."""
        if k == self.n_features_to_select_:
            return self._fitted_cols
        return np.sort(self._cols[: k * self._block])

    def _pixels(self, k):
        return self.sensors_ if k == self.n_features_to_select_ else self.order_[:k]

    def get_support_at(self, k: int | None = None) -> NDArray:
        """The measured features of the first ``k`` sensors of the path, as a boolean mask.

        At ``k = n_features_to_select_`` the fitted sensors (``sensors_``, after the swaps of
        ``refine``); below it the greedy path's first ``k`` pixels.

        Parameters
        ----------
        k : int, default=None
            In ``[1, n_features_to_select_]``; default all the fitted sensors.

        Returns
        -------
        mask : ndarray of shape (n_features_in_,) of bool
        """
        k = self._check_k(k)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self._measured(k)] = True
        return mask

    def get_support_image(self, k: int | None = None) -> NDArray:
        """The chosen pixels as a boolean image of shape ``(height, width)``.

        Parameters
        ----------
        k : int, default=None
            The first ``k`` sensors of the path (default all: ``sensors_``).

        Returns
        -------
        mask : ndarray of shape (height, width) of bool
        """
        k = self._check_k(k)
        shape = getattr(self, "image_shape_", None)
        if shape is None:
            raise ValueError(f"{type(self).__name__} was fitted on a 2-D X and does not know the image shape: fit "
                             "it on an image stack (n_samples, height, width) or pass image_shape=(height, width).")
        mask = np.zeros(int(np.prod(shape[:2])), dtype=bool)
        mask[self._pixels(k)] = True
        return mask.reshape(shape[:2])

    def _solve(self, k, *, std=False):
        """``(meas, C_k, W, var)``: measured features, covariance columns of the readings,
        ``(Sigma_kk + noise I)^+`` and (with ``std``) the posterior variance of every pixel."""
        meas = self._measured(k)
        C = self._cov[:, self._index[meas]]
        W, var = conditional_solve(C, meas, self.noise_variance_, self._var if std else None, rtol=_EIG_RTOL)
        return meas, C, W, var

    def get_std_at(self, k: int | None = None) -> NDArray:
        """Posterior standard deviation of every pixel given the readings of the first ``k`` sensors.

        Parameters
        ----------
        k : int, default=None
            In ``[1, n_features_to_select_]``; default all the fitted sensors.

        Returns
        -------
        std : ndarray of shape image_shape_ or (n_features_in_,)
        """
        k = self._check_k(k)
        *_, var = self._solve(k, std=True)
        std = np.sqrt(var)
        shape = getattr(self, "image_shape_", None)
        return std.reshape(shape) if shape is not None and int(np.prod(shape)) == std.size else std

    # --- reconstruction

    def _readings(self, measurements, k):
        """The readings as a 2-D float array of shape (n, k * channels)."""
        owner = type(self).__name__
        width = k * self._block
        p = self.n_features_in_
        arr = np.asarray(measurements) if isinstance(measurements, (list, tuple)) else measurements
        if getattr(arr, "ndim", 2) == 1:
            raise ValueError(f"{owner}.predict expects a 2-D array of readings (n_samples, {width}); got a 1-D array. "
                             "Reshape your data: measurements.reshape(1, -1) for one sample.")
        if isinstance(arr, np.ndarray) and arr.ndim >= 3:
            arr, _ = self._flatten(arr, reset=False)
        if getattr(arr, "ndim", 2) == 2 and arr.shape[1] == p:  # whole images: read the sensors' pixels
            X = validate_data(self, arr, dtype=[np.float64, np.float32], reset=False)
            return np.asarray(X, dtype=np.float64)[:, self._measured(k)]
        X = check_array(arr, dtype=[np.float64, np.float32], ensure_all_finite=False)
        if X.shape[1] != width:
            more = f" or {p} (whole images)" if p != width else ""
            raise ValueError(f"X has {X.shape[1]} features, but {owner} is expecting {width} features as input (the "
                             f"readings at get_support_at({k}), in increasing feature order){more}.")
        if not np.all(np.isfinite(X)):
            bad = np.argwhere(~np.isfinite(X))[0]
            raise ValueError(f"{owner}: the measurements hold NaN or infinite values (first at row {bad[0]}, reading "
                             f"{bad[1]}): drop or repair those readings, or fit without the failed sensor.")
        return np.asarray(X, dtype=np.float64)

    def predict(self, measurements: ArrayLike, k: int | None = None) -> NDArray:
        """Reconstruct whole images from the readings of the first ``k`` sensors.

        Parameters
        ----------
        measurements : array-like of shape (n_samples, k * channels)
            The readings at ``get_support_at(k)``, in increasing feature order (what
            ``transform`` returns for the fitted ``k``; ``reshape(1, -1)`` for one sample).
            Whole images (the training shape) are accepted too: their pixels at the sensors are
            read.
        k : int, default=None
            Sensors of the path to use, in ``[1, n_features_to_select_]``; default all.

        Returns
        -------
        images : ndarray of shape (n_samples, ...) in the training images' shape
        """
        k = self._check_k(k)
        Y = self._readings(measurements, k)
        meas, C, W, _ = self._solve(k)
        out = self.mean_ + ((Y - self.mean_[meas]) @ W) @ C.T
        if self._stacked:
            out = out.reshape((out.shape[0], *self.image_shape_))
        return out

    def score(self, X: ArrayLike, y: ArrayLike | None = None) -> float:
        """``1 -`` the relative reconstruction error of held-out images from their sensor pixels.

        The relative error is ``||X - X_hat||_F / ||X - mean_||_F``: 0 is exact, 1 is no better
        than the training mean image.

        Parameters
        ----------
        X : array-like of whole images, in the training shape
        y : None
            Ignored.

        Returns
        -------
        float
        """
        check_is_fitted(self, "order_")
        X2, _ = self._flatten(X, reset=False) if isinstance(X, np.ndarray) and X.ndim >= 3 else (X, False)
        X2 = validate_data(self, X2, dtype=[np.float64, np.float32], reset=False)
        X2 = np.asarray(X2, dtype=np.float64)
        rec = self.predict(X2).reshape(X2.shape)
        den = float(np.sum((X2 - self.mean_) ** 2))
        err = float(np.sum((X2 - rec) ** 2))
        return float(1.0 - (np.sqrt(err / den) if den > 0 else (0.0 if err == 0 else np.inf)))
