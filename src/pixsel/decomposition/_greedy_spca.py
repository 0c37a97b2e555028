"""GreedySparsePCA: sparse principal components with exactly ``n_nonzero_coefs`` loadings each."""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._lazy import dask_rows
from .._validation import Interval, StrOptions, check_input, check_int, check_params
from ..spectral import DIRECTIONS, greedy_sparse_component

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal, Self

    from numpy.typing import ArrayLike, NDArray

__all__ = ["GreedySparsePCA"]


class GreedySparsePCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Greedy sparse PCA (GSPCA): components with exactly ``n_nonzero_coefs`` non-zero loadings.

    Component ``j`` is the principal eigenvector of the (deflated) covariance restricted to the
    support chosen by the exact greedy path of :func:`pixsel.spectral.greedy_path` (the
    "sparse eigenfaces" of Moghaddam, Weiss and Avidan, ICCV 2007, section 6).

    Deflation is Mackey's *projection deflation* (Mackey, NIPS 2008):
    ``C <- (I - v v^T) C (I - v v^T)`` after each unit-norm component ``v``, which keeps ``C``
    positive semidefinite and makes every later component orthogonal, in the covariance, to the
    earlier ones' directions (``v_j^T C_j = 0``). Sparse components are in general *not*
    orthogonal, so ``explained_variance_`` is the *adjusted* variance of Zou, Hastie and
    Tibshirani (2006): with the scores ``Z = Xc V^T = Q R`` (QR), component ``j`` explains
    ``R_jj^2 / (n - 1)``, the variance of its score not already explained by the earlier scores
    (their sum is the variance of the projection onto the span of the components, never more
    than the total).

    Parameters
    ----------
    n_components : int, default=1
    n_nonzero_coefs : int or None, default=None
        Loadings per component; None means ``ceil(n_features / 2)``.
    direction : {'forward', 'backward', 'dual'}, default='forward'
        Greedy pass(es) used for each component's support; ``'dual'`` keeps the better one.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Unit-norm sparse components, each with exactly ``n_nonzero_coefs_`` non-zeros (an entry
        can only vanish when the deflated covariance is exactly zero on it).
    supports_ : list of ndarray
        The support of every component.
    explained_variance_ : ndarray of shape (n_components,)
        Adjusted variances (see above), normalized by ``n_samples - 1``.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``explained_variance_`` over the total variance ``tr(C)``.
    component_variance_ : ndarray of shape (n_components,)
        ``lambda_max`` of the deflated covariance on each support (what the greedy maximised).
    upper_bound_ : ndarray of shape (n_components,)
        Certified upper bound on that maximum over all supports of the same size.
    mean_ : ndarray of shape (n_features,)
    n_nonzero_coefs_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Spectral bounds for sparse PCA: exact and greedy
      algorithms", Advances in Neural Information Processing Systems 18 (NIPS), 2005.
    * B. Moghaddam, Y. Weiss and S. Avidan, "Fast pixel/part selection with sparse eigenvectors",
      IEEE International Conference on Computer Vision (ICCV), 2007.
    * L. Mackey, "Deflation methods for sparse PCA", Advances in Neural Information Processing
      Systems 21 (NIPS), 2008.
    * H. Zou, T. Hastie and R. Tibshirani, "Sparse principal component analysis", Journal of
      Computational and Graphical Statistics 15(2), 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.decomposition import GreedySparsePCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 8)); X[:, :3] += 2 * rng.standard_normal((200, 1))
    >>> spca = GreedySparsePCA(n_components=2, n_nonzero_coefs=3).fit(X)
    >>> np.count_nonzero(spca.components_, axis=1).tolist(), spca.supports_[0].tolist()
    ([3, 3], [0, 1, 2])
    >>> spca.transform(X).shape
    (200, 2)
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_nonzero_coefs": [Interval(Integral, 1, None, closed="left"), None],
        "direction": [StrOptions(DIRECTIONS)],
    }

    def __init__(
        self,
        n_components: int = 1,
        n_nonzero_coefs: int | None = None,
        *,
        direction: Literal["forward", "backward", "dual"] = "forward",
    ) -> None:
        self.n_components = n_components
        self.n_nonzero_coefs = n_nonzero_coefs
        self.direction = direction

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Fit the sparse components on ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self
        """
        owner = check_params(self)
        X = check_input(self, X)  # text refused, (n, h, w) stacks flattened
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        n, p = X.shape
        m = check_int(self.n_components, "n_components", low=1, high=p, owner=owner)
        k = math.ceil(p / 2) if self.n_nonzero_coefs is None else check_int(
            self.n_nonzero_coefs, "n_nonzero_coefs", low=1, high=p, owner=owner
        )
        X64 = X.astype(np.float64, copy=False)
        self.mean_ = X64.mean(axis=0)
        Xc = X64 - self.mean_
        C = Xc.T @ Xc / (n - 1)
        total = float(np.trace(C))
        V = np.zeros((m, p))
        supports, lam, ub = [], np.zeros(m), np.zeros(m)
        for j in range(m):
            C = (C + C.T) / 2
            _, _, best, lam[j], V[j] = greedy_sparse_component(C, k, self.direction, certificate="inclusion")
            supports.append(best.support(k))
            ub[j] = best.upper_bound[k - 1]
            P = np.eye(p) - np.outer(V[j], V[j])
            C = P @ C @ P  # Mackey's projection deflation
        Z = Xc @ V.T
        R = np.linalg.qr(Z, mode="r")
        ev = np.diag(R) ** 2 / (n - 1)
        self.components_ = V
        self.supports_ = supports
        self.n_nonzero_coefs_ = k
        self.explained_variance_ = ev
        self.explained_variance_ratio_ = ev / total if total > 0 else np.zeros(m)
        self.component_variance_ = lam
        self.upper_bound_ = ub
        self._n_features_out = m
        return self

    @dask_rows
    def transform(self, X: ArrayLike) -> NDArray:
        """Project ``X`` on the sparse components: ``(X - mean_) @ components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)  # text refused, (n, h, w) stacks flattened
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        return (X - self.mean_) @ self.components_.T

    def inverse_transform(self, X: ArrayLike) -> NDArray:
        """Map scores back to feature space (least squares for non-orthogonal components)."""
        check_is_fitted(self)
        X = np.asarray(X, dtype=np.float64)
        G = self.components_ @ self.components_.T
        return np.linalg.solve(G, X.T).T @ self.components_ + self.mean_
