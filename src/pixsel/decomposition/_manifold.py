"""Graph-embedding baselines as scikit-learn transformers: LPP, NPE, SR-LPP, smooth LPP, kernel LPP."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._lazy import dask_rows
from .._validation import Interval, StrOptions, check_input, check_params
from ..projection import kernel_lpp, knn_graph, lle_weights, lpp, npe, smooth_lpp, spectral_regression_lpp
from ._base import KERNEL_CONSTRAINTS, _KernelMixin

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "LocalityPreservingProjection",
    "NeighborhoodPreservingEmbedding",
    "SpectralRegressionLPP",
    "SpatiallySmoothLPP",
    "KernelLPP",
]

_GRAPH_DOC = """n_neighbors : int, default=5
        Neighbours of the symmetric k-nearest-neighbour graph (ties: lowest index).
    weight : {'heat', 'binary'}, default='heat'
        Edge weights ``exp(-||xi - xj||^2 / t)`` or 1.
    t : float, optional
        Heat-kernel width; default the mean squared neighbour distance."""


_NON_NEGATIVE = [Interval(Real, 0, None, closed="left")]
#: The ``_parameter_constraints`` of :class:`LocalityPreservingProjection`; the others take theirs.
_GRAPH_CONSTRAINTS = {
    "n_components": [Interval(Integral, 1, None, closed="left")],
    "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    "weight": [StrOptions(("heat", "binary"))],
    "t": [Interval(Real, 0, None, closed="neither"), None],
    "reg": _NON_NEGATIVE,
}


class _GraphProjection(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared fit/transform: centre on the training mean, build the graph, solve, project."""

    _parameter_constraints: dict = _GRAPH_CONSTRAINTS

    def _validate_common(self, X):
        owner = check_params(self)
        X = check_input(self, X)  # text refused, (n, h, w) stacks flattened
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        n, p = X.shape
        k = int(self.n_neighbors)
        if n < k + 1:
            raise ValueError(
                f"{owner} with n_neighbors={k} needs at least {k + 1} samples; got {n} sample(s). "
                "Lower n_neighbors or pass more samples."
            )
        return np.asarray(X, dtype=np.float64), k, owner

    def _max_components(self, X):
        """The largest ``n_components`` on ``X`` and the words that name it in the error."""
        return X.shape[1], "n_features"

    def _check_M(self, high, what, owner):
        M = int(self.n_components)
        if M > high:
            raise ValueError(
                f"The 'n_components' parameter of {owner} must be at most {what}={high}; got {M}."
            )
        return M

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Fit the projection on ``X`` (never modified); ``y`` is ignored. Returns ``self``."""
        X, k, owner = self._validate_common(X)
        M = self._check_M(*self._max_components(X), owner)
        self.mean_ = X.mean(axis=0)
        Xc = X - self.mean_
        W, nb = knn_graph(Xc, k, weight=self.weight, t=self.t)
        self.components_, self.eigenvalues_ = self._solve(Xc, W, nb, M, owner)
        return self

    def _new_data(self, X, fitted):
        """``X`` for ``transform``: the model fitted (``fitted`` set), the input checked against the
        fit, as float64."""
        check_is_fitted(self, fitted)
        X = check_input(self, X, reset=False)  # text refused, (n, h, w) stacks flattened
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        return np.asarray(X, dtype=np.float64)

    @dask_rows
    def transform(self, X: ArrayLike) -> NDArray:
        """Project: ``(X - mean_) @ components_.T``, shape ``(n_samples, n_components)``."""
        return (self._new_data(X, "components_") - self.mean_) @ self.components_.T

    @property
    def _n_features_out(self):
        return self.components_.shape[0]


class LocalityPreservingProjection(_GraphProjection):
    __doc__ = f"""Locality preserving projections (He and Niyogi, NIPS 2003).

    Smallest generalized eigenvectors of ``X^T L X a = lambda X^T D X a`` on the centred data,
    with ``L = D - W`` the Laplacian of a k-nearest-neighbour graph.

    Parameters
    ----------
    n_components : int, default=2
    {_GRAPH_DOC}
    reg : float, default=1e-6
        Ridge on ``X^T D X`` relative to its mean diagonal (needed with more pixels than samples).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
    eigenvalues_ : ndarray of shape (n_components,)
    mean_ : ndarray of shape (n_features,)
    n_features_in_ : int

    References
    ----------
    * X. He and P. Niyogi, "Locality preserving projections", Advances in Neural Information
      Processing Systems 16 (NIPS), 2003.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 5))
    >>> LocalityPreservingProjection(n_components=2).fit_transform(X).shape
    (40, 2)
    """

    def __init__(
        self,
        n_components: int = 2,
        *,
        n_neighbors: int = 5,
        weight: Literal["heat", "binary"] = "heat",
        t: Any = None,
        reg: float = 1e-6,
    ) -> None:
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.t = t
        self.reg = reg

    def _solve(self, Xc, W, nb, M, owner):
        return lpp(Xc, W, M, reg=float(self.reg))


class NeighborhoodPreservingEmbedding(_GraphProjection):
    """Neighborhood preserving embedding (He, Cai, Yan and Zhang, ICCV 2005).

    Smallest generalized eigenvectors of ``X^T (I - W)^T (I - W) X a = lambda X^T X a`` with ``W``
    the locally linear reconstruction weights on a k-nearest-neighbour graph (sparse).

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int, default=5
    lle_reg : float, default=1e-3
        Ridge of each local Gram matrix, relative to its trace.
    reg : float, default=1e-6
        Ridge on ``X^T X`` relative to its mean diagonal.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
    eigenvalues_ : ndarray of shape (n_components,)
    mean_ : ndarray of shape (n_features,)
    n_features_in_ : int

    References
    ----------
    * X. He, D. Cai, S. Yan and H.-J. Zhang, "Neighborhood preserving embedding", IEEE International
      Conference on Computer Vision (ICCV), 2005.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 5))
    >>> NeighborhoodPreservingEmbedding(n_components=2).fit_transform(X).shape
    (40, 2)
    """

    weight = "binary"
    t = None

    _parameter_constraints: dict = {
        **{k: v for k, v in _GRAPH_CONSTRAINTS.items() if k not in ("weight", "t")},  # the LLE weights
        "lle_reg": _NON_NEGATIVE,
    }

    def __init__(
        self,
        n_components: int = 2,
        *,
        n_neighbors: int = 5,
        lle_reg: float = 1e-3,
        reg: float = 1e-6,
    ) -> None:
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.lle_reg = lle_reg
        self.reg = reg

    def _solve(self, Xc, W, nb, M, owner):
        return npe(Xc, lle_weights(Xc, nb, reg=float(self.lle_reg)), M, reg=float(self.reg))


class SpectralRegressionLPP(_GraphProjection):
    __doc__ = f"""Spectral-regression LPP (Cai, He and Han, ICCV 2007).

    Graph eigenvectors (responses) followed by ridge regression of the responses on the centred
    data; no dense generalized eigenproblem in the pixel space.

    Parameters
    ----------
    n_components : int, default=2
    {_GRAPH_DOC}
    alpha : float, default=0.01
        Ridge, relative to ``trace(X^T X) / n_features``.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
    eigenvalues_ : ndarray of shape (n_components,)
        Graph eigenvalues of the responses.
    mean_ : ndarray of shape (n_features,)
    n_features_in_ : int

    References
    ----------
    * D. Cai, X. He and J. Han, "Spectral regression for efficient regularized subspace learning",
      IEEE International Conference on Computer Vision (ICCV), 2007.
    * X. He and P. Niyogi, "Locality preserving projections", Advances in Neural Information
      Processing Systems 16 (NIPS), 2003.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 5))
    >>> SpectralRegressionLPP(n_components=2).fit_transform(X).shape
    (40, 2)
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in _GRAPH_CONSTRAINTS.items() if k != "reg"},
        "alpha": _NON_NEGATIVE,
    }

    def __init__(
        self,
        n_components: int = 2,
        *,
        n_neighbors: int = 5,
        weight: Literal["heat", "binary"] = "heat",
        t: Any = None,
        alpha: float = 0.01,
    ) -> None:
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.t = t
        self.alpha = alpha

    def _max_components(self, X):
        return min(X.shape[1], X.shape[0] - 1), "min(n_features, n_samples - 1)"

    def _solve(self, Xc, W, nb, M, owner):
        return spectral_regression_lpp(Xc, W, M, alpha=float(self.alpha))


class SpatiallySmoothLPP(_GraphProjection):
    __doc__ = f"""Spatially smooth LPP (Cai, He, Hu, Han and Huang, CVPR 2007).

    LPP with the discrete-Laplacian roughness penalty ``alpha ||Delta a||^2`` on the image grid,
    so the projections are smooth images.

    Parameters
    ----------
    n_components : int, default=2
    image_shape : tuple of int, optional
        ``(height, width)`` with ``height * width = n_features``; default a 1-D chain.
    {_GRAPH_DOC}
    alpha : float, default=0.1
        Smoothness weight, relative to ``trace(X^T L X) / trace(Delta^T Delta)``.
    reg : float, default=1e-6

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
    eigenvalues_ : ndarray of shape (n_components,)
    mean_ : ndarray of shape (n_features,)
    n_features_in_ : int

    References
    ----------
    * D. Cai, X. He, Y. Hu, J. Han and T. Huang, "Learning a spatially smooth subspace for face
      recognition", IEEE Conference on Computer Vision and Pattern Recognition (CVPR), 2007.
    * X. He and P. Niyogi, "Locality preserving projections", Advances in Neural Information
      Processing Systems 16 (NIPS), 2003.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 16))
    >>> SpatiallySmoothLPP(n_components=2, image_shape=(4, 4)).fit_transform(X).shape
    (40, 2)
    """

    _parameter_constraints: dict = {**_GRAPH_CONSTRAINTS, "image_shape": ["array-like", None], "alpha": _NON_NEGATIVE}

    def __init__(
        self,
        n_components: int = 2,
        *,
        image_shape: Any = None,
        n_neighbors: int = 5,
        weight: Literal["heat", "binary"] = "heat",
        t: Any = None,
        alpha: float = 0.1,
        reg: float = 1e-6,
    ) -> None:
        self.n_components = n_components
        self.image_shape = image_shape
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.t = t
        self.alpha = alpha
        self.reg = reg

    def _solve(self, Xc, W, nb, M, owner):
        shape = (Xc.shape[1],) if self.image_shape is None else tuple(self.image_shape)
        return smooth_lpp(
            Xc, W, M, image_shape=shape,
            alpha=float(self.alpha),
            reg=float(self.reg),
        )


class KernelLPP(_KernelMixin, _GraphProjection):
    __doc__ = f"""Kernel locality preserving projections (He and Niyogi, NIPS 2003, section 4).

    The neighbour graph is built in the input space; the projection solves
    ``K L K c = lambda K D K c`` in the range of the centred kernel matrix. Memory and time are
    ``O(n_samples^2)`` and ``O(n_samples^3)``.

    Parameters
    ----------
    n_components : int, default=2
    kernel : str or callable, default='rbf'
        Any metric of :func:`sklearn.metrics.pairwise.pairwise_kernels`.
    gamma, degree, coef0 : kernel parameters.
    kernel_params : dict, optional
    {_GRAPH_DOC}
    reg : float, default=1e-6

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples_fit, n_components)
    X_fit_ : ndarray of shape (n_samples_fit, n_features)
    eigenvalues_ : ndarray of shape (n_components,)
    n_features_in_ : int

    References
    ----------
    * X. He and P. Niyogi, "Locality preserving projections", Advances in Neural Information
      Processing Systems 16 (NIPS), 2003.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 5))
    >>> KernelLPP(n_components=2, gamma=0.1).fit_transform(X).shape
    (40, 2)
    """

    _parameter_constraints: dict = {**_GRAPH_CONSTRAINTS, **KERNEL_CONSTRAINTS}

    def __init__(
        self,
        n_components: int = 2,
        *,
        kernel: str | Callable[..., Any] = "rbf",
        gamma: Any = None,
        degree: int = 3,
        coef0: int = 1,
        kernel_params: Any = None,
        n_neighbors: int = 5,
        weight: Literal["heat", "binary"] = "heat",
        t: Any = None,
        reg: float = 1e-6,
    ) -> None:
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.t = t
        self.reg = reg

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Fit on ``X`` (never modified); ``y`` is ignored. Returns ``self``."""
        X, k, owner = self._validate_common(X)
        M = self._check_M(X.shape[0], "n_samples", owner)
        K = self._pairwise(X, X)
        self._row_mean = K.mean(axis=0)
        self._all_mean = float(self._row_mean.mean())
        Kc = K - self._row_mean[None, :] - self._row_mean[:, None] + self._all_mean
        W, _ = knn_graph(X, k, weight=self.weight, t=self.t)
        self.dual_coef_, self.eigenvalues_ = kernel_lpp(
            Kc, W, M, reg=float(self.reg)
        )
        self.X_fit_ = X
        return self

    @dask_rows
    def transform(self, X: ArrayLike) -> NDArray:
        """Project: centred ``k(X, X_fit_) @ dual_coef_``."""
        K = self._pairwise(self._new_data(X, "dual_coef_"), self.X_fit_)
        Kc = K - self._row_mean[None, :] - K.mean(axis=1, keepdims=True) + self._all_mean
        return Kc @ self.dual_coef_

    @property
    def _n_features_out(self):
        return self.dual_coef_.shape[1]
