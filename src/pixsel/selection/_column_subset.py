"""ColumnSubsetSelector: k pixels whose span keeps the most of the (centered) images, no labels."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import N_FEATURES_TO_SELECT, StrOptions, check_input, check_params, resolve_k
from ..scores import greedy_placement, pivoted_qr_columns, placement_constraints
from ._base import ImageSelectorMixin

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["ColumnSubsetSelector"]

_METHODS = ("greedy", "qr")


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
        when there are fewer images than pixels, else ``O(n p^2)`` for the Gram matrix and
        ``O(p^2)`` per pixel. ``'qr'``: the pivots of
        the column-pivoted QR decomposition (Businger and Golub, 1965), each the pixel of largest
        residual after projecting out the previous ones: cheaper per step, blind to how much
        of the other pixels a candidate explains.

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
        the total ``||A||_F^2`` (1 means the chosen pixels reproduce every pixel exactly).
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

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.selection import ColumnSubsetSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 3)) @ rng.standard_normal((3, 12))  # rank 3
    >>> sel = ColumnSubsetSelector(3).fit(X)
    >>> sel.transform(X).shape, round(float(sel.objective_path_[-1]), 6)
    ((50, 3), 1.0)
    """

    _parameter_constraints: dict = {"n_features_to_select": N_FEATURES_TO_SELECT, "method": [StrOptions(_METHODS)]}

    def __init__(self, n_features_to_select: int | float = 10, *, method: Literal["greedy", "qr"] = "greedy") -> None:
        self.n_features_to_select = n_features_to_select
        self.method = method

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
        A = np.asarray(X, dtype=np.float64) - X.mean(axis=0, dtype=np.float64)
        total = float(np.einsum("ij,ij->", A, A))
        if self.method == "greedy":
            order, mass = greedy_placement(A, k)
        else:
            order = pivoted_qr_columns(A, k)
            # the kept mass of each prefix of the pivots: the same kernel with the pivots imposed
            _, mass = greedy_placement(A, k, constraints=placement_constraints(p, k, always_select=order))
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

    def _get_support_mask(self) -> NDArray:
        check_is_fitted(self)
        return self.support_
