"""Graph-embedding baselines: LPP, NPE, spectral-regression LPP, spatially smooth LPP, kernel LPP.

All take data that the caller has already centred (the estimators centre on the training mean)
and return projections as rows (``(n_components, n_features)``), or dual coefficients
(``(n_samples, n_components)``) for kernel LPP. Generalized eigenproblems ``A a = lambda B a`` are
solved densely with :func:`scipy.linalg.eigh`; ``B`` gets a ridge ``reg * trace(B) / dim`` so that a
singular ``B`` (fewer samples than pixels) is well defined and nothing is divided by zero.

References: He and Niyogi, "Locality Preserving Projections", NIPS 2003; He, Cai, Yan and Zhang,
"Neighborhood preserving embedding", ICCV 2005; Cai, He and Han, "Spectral regression for
efficient regularized subspace learning", ICCV 2007; Cai, He, Hu, Han and Huang, "Learning a
spatially smooth subspace for face recognition", CVPR 2007.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from .._validation import check_int, check_options, check_real, sign_flip
from ._spectrum import descending_eigh

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "knn_graph",
    "lle_weights",
    "lpp",
    "npe",
    "spectral_regression_lpp",
    "spatial_laplacian",
    "smooth_lpp",
    "kernel_lpp",
]


def _neighbors(X, k):
    """The ``k`` nearest other samples of each row, nearest first, distance ties to the lowest
    index; returns ``(indices, squared distances)``.

    scikit-learn's brute-force search finds them (``k + 1`` of them, to see a tie at the
    boundary); its order among equal distances is unspecified, so each row is re-sorted by
    (distance, index), and the rare rows whose ``k``-th and ``(k + 1)``-th distances tie are
    redone against every sample with a stable sort."""
    from sklearn.metrics import pairwise_distances
    from sklearn.neighbors import NearestNeighbors

    n = X.shape[0]
    m = min(k + 1, n - 1)  # X=None excludes each sample from its own neighbours
    nn = NearestNeighbors(n_neighbors=m, algorithm="brute").fit(X)
    dist, idx = nn.kneighbors()
    d2 = dist**2
    order = np.lexsort((idx, d2), axis=-1)
    idx = np.take_along_axis(idx, order, axis=1)
    d2 = np.take_along_axis(d2, order, axis=1)
    if m > k:
        for i in np.flatnonzero(d2[:, k] == d2[:, k - 1]):
            row = pairwise_distances(X[i : i + 1], X)[0] ** 2
            row[i] = np.inf
            j = np.argsort(row, kind="stable")[:k]
            idx[i, :k], d2[i, :k] = j, row[j]
    return idx[:, :k], d2[:, :k]


def knn_graph(
    X: ArrayLike,
    n_neighbors: int,
    *,
    weight: Literal["heat", "binary"] = "heat",
    t: Any = None,
) -> tuple[Any, Any]:
    """Symmetric k-nearest-neighbour graph (sparse), as used by LPP and NPE.

    Neighbours are found by scikit-learn's brute-force search (Euclidean); ties are broken by the
    lowest index and a sample is never its own neighbour.
    The graph is symmetrized with ``W = max(W, W^T)``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_neighbors : int
        ``k``, in ``[1, n_samples - 1]``.
    weight : {'heat', 'binary'}
        ``exp(-||xi - xj||^2 / t)`` or 1 on the edges.
    t : float, optional
        Heat-kernel width; default: the mean squared distance to the ``k`` neighbours (0 distances
        everywhere give weight 1).

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    neighbors : ndarray of shape (n_samples, n_neighbors)
        The (unsymmetrized) neighbour indices, nearest first.

    Examples
    --------
    >>> import numpy as np
    >>> W, nb = knn_graph(np.array([[0.0], [1.0], [3.0]]), 1, weight="binary")
    >>> W.toarray()
    array([[0., 1., 0.],
           [1., 0., 1.],
           [0., 1., 0.]])
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    k = check_int(n_neighbors, "n_neighbors", low=1, high=max(n - 1, 1))
    if n < 2:
        raise ValueError(f"A neighbour graph needs at least 2 samples; got {n} sample(s).")
    check_options(weight, "weight", ("heat", "binary"))
    nbrs, dist = _neighbors(X, k)
    if weight == "heat":
        t = float(np.mean(dist)) if t is None else check_real(t, "t", low=0)
        vals = np.exp(-dist / t) if t > 0 else np.ones_like(dist)
    else:
        vals = np.ones_like(dist)
    rows = np.repeat(np.arange(n), k)
    W = sp.csr_matrix((vals.ravel(), (rows, nbrs.ravel())), shape=(n, n))
    W = W.maximum(W.T).tocsr()
    return W, nbrs


def lle_weights(X: ArrayLike, neighbors: ArrayLike, *, reg: float = 1e-3) -> sp.csr_matrix:
    """Locally linear reconstruction weights (NPE's graph), as a sparse ``(n, n)`` matrix.

    For each sample ``i`` the weights ``w`` on its neighbours minimize
    ``||x_i - sum_j w_j x_j||^2`` subject to ``sum_j w_j = 1``; the local Gram matrix gets a ridge
    ``reg * trace`` (LLE's usual regularization; needed when ``k > n_features``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> lle_weights(X, np.array([[1, 2], [0, 2], [1, 0]]), reg=1e-9).toarray()[1].round(6)
    array([0.5, 0. , 0.5])
    """
    X = np.asarray(X, dtype=np.float64)
    nb = np.asarray(neighbors, dtype=np.intp)
    n, k = nb.shape
    Z = X[nb] - X[:, None, :]  # (n, k, p)
    C = np.einsum("nkp,nlp->nkl", Z, Z)
    tr = np.trace(C, axis1=1, axis2=2)
    r = np.where(tr > 0, reg * tr, reg)
    C[:, np.arange(k), np.arange(k)] += r[:, None]
    w = np.linalg.solve(C, np.ones((n, k, 1)))[..., 0]
    w /= np.sum(w, axis=1, keepdims=True)
    rows = np.repeat(np.arange(n), k)
    return sp.csr_matrix((w.ravel(), (rows, nb.ravel())), shape=(n, n))


def _ridge(B, reg):
    B = 0.5 * (B + B.T)
    dim = B.shape[0]
    scale = float(np.trace(B)) / dim if dim else 0.0
    B[np.diag_indices_from(B)] += reg * (scale if scale > 0 else 1.0)
    return B


def _smallest_generalized(A, B, M, reg):
    A = 0.5 * (A + A.T)
    B = _ridge(B, reg)
    w, V = sla.eigh(A, B, subset_by_index=[0, M - 1])
    return w, V


def _range_basis(X, rtol):
    """Orthonormal basis ``V`` (p x r) of the row space of ``X`` when X is rank deficient, else None.

    LPP and NPE have ``B = X^T (.) X`` singular when ``rank(X) < n_features`` (fewer samples than
    pixels); the null space of ``X`` then gives spurious eigenvalues ``0 / ridge``. Solving in the
    range of ``X`` (the PCA step of Laplacianfaces, keeping every direction with singular value above
    ``rtol * s_max``) removes them; data of full column rank are left untouched.
    """
    n, p = X.shape
    if n > p:
        s = sla.svdvals(X)
        if s.size and s[-1] > rtol * s[0]:
            return None
    _, s, Vt = sla.svd(X, full_matrices=False, lapack_driver="gesdd")
    keep = s > rtol * (s[0] if s.size else 0.0)
    return Vt[keep].T


def _check_M(n_components, high):
    return check_int(n_components, "n_components", low=1, high=high)


def _in_range(X, n_components, rtol):
    """``(X @ basis, M, basis)`` with :func:`_range_basis` (``(X, M, None)`` at full column rank).

    ``X`` is taken as float64 and ``M``, the checked ``n_components``, refused above the rank,
    since the range holds only that many directions.
    """
    X = np.asarray(X, dtype=np.float64)
    M = _check_M(n_components, X.shape[1])
    basis = _range_basis(X, rtol)
    if basis is None:
        return X, M, None
    if M > basis.shape[1]:
        raise ValueError(
            f"n_components={M} exceeds the rank {basis.shape[1]} of the centred data; ask for fewer "
            "components or pass more samples."
        )
    return X @ basis, M, basis


def _from_range(V, basis):
    """The components (rows, sign rule of :func:`sign_flip`) in the pixel space from eigenvectors
    solved in :func:`_in_range`."""
    return sign_flip(V.T if basis is None else V.T @ basis.T)


def _laplacian_forms(X, W):
    """``(X^T Dg X, X^T L X)`` for the graph ``W`` (``Dg`` its degree matrix, ``L = Dg - W``)."""
    W = sp.csr_matrix(W)
    deg = np.asarray(W.sum(axis=1)).ravel()
    XtDX = X.T @ (deg[:, None] * X)
    return XtDX, XtDX - X.T @ (W @ X)


def lpp(
    X: ArrayLike,
    W: ArrayLike,
    n_components: int,
    *,
    reg: float = 1e-6,
    rtol: float = 1e-6,
) -> tuple[NDArray, NDArray]:
    """Locality preserving projections: smallest solutions of ``X^T L X a = lambda X^T Dg X a``.

    ``L = Dg - W`` is the graph Laplacian of ``W`` and ``Dg`` its degree matrix. When ``X`` is
    rank deficient (fewer samples than features) the problem is solved in the range of ``X``
    (singular values above ``rtol * s_max``), as the PCA step of Laplacianfaces does.

    Returns
    -------
    components : ndarray of shape (n_components, n_features)
        ``Dg``-orthonormal rows (``a^T (X^T Dg X + ridge) a = 1``), sign rule "largest entry positive".
    eigenvalues : ndarray of shape (n_components,)
        Increasing.

    References
    ----------
    * X. He and P. Niyogi, "Locality preserving projections", Advances in Neural Information
      Processing Systems 16 (NIPS), 2003.
    """
    X, M, basis = _in_range(X, n_components, rtol)
    XtDX, XtLX = _laplacian_forms(X, W)
    w, V = _smallest_generalized(XtLX, XtDX, M, reg)
    return _from_range(V, basis), w


def npe(
    X: ArrayLike,
    W: ArrayLike,
    n_components: int,
    *,
    reg: float = 1e-6,
    rtol: float = 1e-6,
) -> tuple[NDArray, NDArray]:
    """Neighborhood preserving embedding: smallest solutions of ``X^T M X a = lambda X^T X a``.

    ``M = (I - W)^T (I - W)`` with ``W`` the locally linear reconstruction weights
    (:func:`lle_weights`).

    References
    ----------
    * X. He, D. Cai, S. Yan and H.-J. Zhang, "Neighborhood preserving embedding", IEEE International
      Conference on Computer Vision (ICCV), 2005.
    """
    X, M, basis = _in_range(X, n_components, rtol)
    W = sp.csr_matrix(W)
    R = X - W @ X  # (I - W) X
    w, V = _smallest_generalized(R.T @ R, X.T @ X, M, reg)
    return _from_range(V, basis), w


def spectral_regression_lpp(
    X: ArrayLike,
    W: ArrayLike,
    n_components: int,
    *,
    alpha: float = 0.01,
) -> tuple[NDArray, NDArray]:
    """Spectral-regression LPP (Cai, He and Han 2007).

    Step 1: responses ``y`` = the largest generalized eigenvectors of ``W y = lambda Dg y`` after
    the trivial constant one (computed from ``Dg^-1/2 W Dg^-1/2``). Step 2: ridge regression
    ``a = argmin ||X a - y||^2 + alpha ||a||^2`` (``alpha`` relative to ``trace(X^T X) / n_features``),
    in the primal or the dual form, whichever is smaller.

    Returns
    -------
    components : ndarray of shape (n_components, n_features)
    eigenvalues : ndarray of shape (n_components,)
        Graph eigenvalues of the responses (decreasing).

    References
    ----------
    * D. Cai, X. He and J. Han, "Spectral regression for efficient regularized subspace learning",
      IEEE International Conference on Computer Vision (ICCV), 2007.
    """
    X = np.asarray(X, dtype=np.float64)
    n, p = X.shape
    M = _check_M(n_components, min(p, n - 1))
    alpha = check_real(alpha, "alpha", low=0)
    W = sp.csr_matrix(W)
    deg = np.asarray(W.sum(axis=1)).ravel()
    dinv = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
    Wn = (dinv[:, None] * W.toarray()) * dinv[None, :]
    w, U = sla.eigh(Wn, subset_by_index=[n - M - 1, n - 1])
    w, U = w[::-1][1:], U[:, ::-1][:, 1:]
    Y = dinv[:, None] * U
    lam = alpha * max(float(np.sum(X * X)) / p, np.finfo(float).tiny)
    if p <= n:
        G = X.T @ X
        G[np.diag_indices_from(G)] += lam
        A = sla.solve(G, X.T @ Y, assume_a="pos")
    else:
        G = X @ X.T
        G[np.diag_indices_from(G)] += lam
        A = X.T @ sla.solve(G, Y, assume_a="pos")
    return sign_flip(A.T), w


def spatial_laplacian(image_shape: tuple[int, int]) -> sp.csr_matrix:
    """Discrete Laplacian ``Delta`` (sparse ``N x N``) on an image grid, Neumann boundary.

    ``(Delta a)_i = deg_i a_i - sum_{j ~ i} a_j`` over the 4-neighbours inside the image, so
    ``a^T Delta^T Delta a`` is the roughness penalty of spatially smooth LPP. A 1-D shape gives a
    chain.

    Examples
    --------
    >>> spatial_laplacian((3,)).toarray()
    array([[ 1., -1.,  0.],
           [-1.,  2., -1.],
           [ 0., -1.,  1.]])
    """
    shape = tuple(int(s) for s in np.atleast_1d(image_shape))
    if len(shape) not in (1, 2) or min(shape) < 1:
        raise ValueError(f"image_shape must be (n,) or (height, width) with positive sizes; got {shape}.")
    if len(shape) == 1:
        shape = (1, shape[0])
    h, w = shape
    idx = np.arange(h * w).reshape(h, w)
    pairs = [(idx[:, :-1].ravel(), idx[:, 1:].ravel()), (idx[:-1, :].ravel(), idx[1:, :].ravel())]
    i = np.concatenate([p[0] for p in pairs])
    j = np.concatenate([p[1] for p in pairs])
    A = sp.csr_matrix((np.ones(len(i)), (i, j)), shape=(h * w, h * w))
    A = A + A.T
    deg = np.asarray(A.sum(axis=1)).ravel()
    return (sp.diags(deg) - A).tocsr()


def smooth_lpp(
    X: ArrayLike,
    W: ArrayLike,
    n_components: int,
    *,
    image_shape: tuple[int, int],
    alpha: float = 0.1,
    reg: float = 1e-6,
) -> tuple[NDArray, NDArray]:
    """Spatially smooth LPP (Cai et al. 2007): LPP with the roughness penalty ``alpha J(a)``.

    Smallest solutions of ``(X^T L X + alpha' Delta^T Delta) a = lambda X^T Dg X a`` with
    ``alpha' = alpha * trace(X^T L X) / trace(Delta^T Delta)`` (so ``alpha`` is scale free).
    ``alpha = 0`` is plain LPP.

    References
    ----------
    * D. Cai, X. He, Y. Hu, J. Han and T. Huang, "Learning a spatially smooth subspace for face
      recognition", IEEE Conference on Computer Vision and Pattern Recognition (CVPR), 2007.
    """
    X = np.asarray(X, dtype=np.float64)
    p = X.shape[1]
    M = _check_M(n_components, p)
    alpha = check_real(alpha, "alpha", low=0)
    Lap = spatial_laplacian(image_shape)
    if Lap.shape[0] != p:
        raise ValueError(f"image_shape {tuple(image_shape)} has {Lap.shape[0]} pixels but X has {p} features.")
    P = (Lap.T @ Lap).toarray()
    XtDX, A = _laplacian_forms(X, W)
    tp = float(np.trace(P))
    A = A + (alpha * float(np.trace(A)) / tp if tp > 0 else 0.0) * P
    w, V = _smallest_generalized(A, XtDX, M, reg)
    return sign_flip(V.T), w


def kernel_lpp(
    gram: ArrayLike,
    W: ArrayLike,
    n_components: int,
    *,
    reg: float = 1e-6,
    rtol: float = 1e-8,
) -> tuple[NDArray, NDArray]:
    """Kernel LPP (He and Niyogi 2003, section 4), solved in the range of the kernel matrix.

    ``K L K c = lambda K Dg K c`` restricted to ``range(K)``: with ``K = U diag(mu) U^T`` (eigenvalues
    above ``rtol * mu_max``) the empirical feature coordinates ``Z = U diag(sqrt(mu))`` satisfy
    ``Z Z^T = K``, and kernel LPP is linear :func:`lpp` on ``Z``; the dual coefficients are
    ``C = U diag(mu^-1/2) A^T``. Null-space directions of ``K`` (which would give spurious zero
    eigenvalues) are excluded, and no eigenvalue is inverted below the tolerance.

    Parameters
    ----------
    gram : ndarray of shape (n_samples, n_samples)
        Centred training kernel matrix (positive semidefinite).
    W : sparse matrix of shape (n_samples, n_samples)
        Neighbour graph.
    n_components : int
        At most the numerical rank of ``gram``.
    rtol : float, default=1e-8
        Kernel eigenvalues below ``rtol * mu_max`` are dropped: their inverse square roots would
        amplify round-off (a looser tolerance makes the projection depend on summation order).

    Returns
    -------
    coef : ndarray of shape (n_samples, n_components)
        A new (centred) kernel row ``k(x)`` maps to ``k(x) @ coef``.
    eigenvalues : ndarray of shape (n_components,)

    References
    ----------
    * X. He and P. Niyogi, "Locality preserving projections", Advances in Neural Information
      Processing Systems 16 (NIPS), 2003.
    """
    Kx = np.asarray(gram, dtype=np.float64)
    n = Kx.shape[0]
    M = _check_M(n_components, n)
    mu, U, keep = descending_eigh(Kx, rtol)
    r = int(np.count_nonzero(keep))
    if M > r:
        raise ValueError(
            f"n_components={M} exceeds the numerical rank {r} of the kernel matrix; ask for at most {r} "
            "components or use a kernel of higher rank (e.g. 'rbf')."
        )
    mu, U = mu[keep], U[:, keep]
    Z = U * np.sqrt(mu)[None, :]
    A, w = lpp(Z, W, M, reg=reg)
    return (U / np.sqrt(mu)[None, :]) @ A.T, w
