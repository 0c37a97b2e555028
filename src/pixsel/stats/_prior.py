"""A stationary covariance target for images: the sample covariance's diagonal in the DCT basis.

With ``Phi`` the orthonormal two-dimensional DCT-II basis of ``h x w`` images (``p x p``), the
target is ``T = Phi diag(lam) Phi^T`` with ``lam`` the variance of each DCT coefficient of the
centred images: the sample covariance ``S`` with its off-diagonal entries in the DCT basis set to
zero (so ``trace(T) = trace(S)`` and ``trace(S T) = ||T||_F^2 = sum(lam^2)``). A covariance that
is diagonal in a cosine basis is close to a translation-invariant (stationary) one; ``T`` is full
rank where ``S`` has rank below the number of images. ``(1 - rho) S + rho T`` is the shrunk
covariance; :func:`dct_shrinkage_intensity` gives the Ledoit-Wolf intensity ``rho`` towards ``T``
(Ledoit and Wolf, "A well-conditioned estimator for large-dimensional covariance matrices",
Journal of Multivariate Analysis, 2004; with a structured target as in Schaefer and Strimmer, "A
shrinkage approach to large-scale covariance matrix estimation and implications for functional
genomics", Statistical Applications in Genetics and Molecular Biology, 2005).

Every product with ``T`` is a DCT, a scaling and an inverse DCT; its diagonal and that of ``T^2``
are separable sums (``O(p (h + w))``). The transforms of a stack of images are products with the
two small DCT matrices (``O(p (h + w))`` multiply-adds per image, in blocks of images that stay in
cache), which up to 64 pixels a side is as fast as SciPy's fast transform of the stack, and the
fast transform on larger images.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.fft import dct, dctn, idctn

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["DCTPrior", "dct_spectrum", "dct_shrinkage_intensity", "dct_shrinkage_intensity_bound"]


#: Images per block of the stack transforms: the intermediate product of a block stays in cache.
_BLOCK = 16


@functools.lru_cache(maxsize=16)
def _dct_matrix(m, dtype=np.float64):
    """The 1-D orthonormal DCT-II matrix: ``D[u, y] = c_u(y)``, ``dct(x) = D x`` (read-only, shared),
    in ``dtype`` (rounded from the double-precision matrix)."""
    D = dct(np.eye(m), norm="ortho", axis=0).astype(dtype, copy=False)
    D.setflags(write=False)
    return D


#: Images of at least this many pixels a side are transformed by SciPy's fast (FFT-based) DCT of
#: the stack; smaller ones by products with the two DCT matrices, which are as fast or faster
#: there (one thread, a forward transform: 48x48 7.2 against 7.7 ms for 400 images, 64x64 13.6
#: against 11.8 ms, 96x96 21.0 against 13.8 ms and 128x128 44.4 against 22.6 ms for 200).
_FFT_MIN_SIDE = 96


def _transform(X3, out, *, inverse=False, scale=None, squares=None):
    """The orthonormal 2-D DCT-II of every image of the stack ``X3`` (``(n, h, w)``; with
    ``inverse``, the inverse transform, of ``X3 * scale``) into ``out`` (which may be ``X3``),
    block by block; with ``squares`` (an ``(h, w)`` array) the sum of ``out[i] ** 2`` is added
    to it while each block is in cache. ``dctn(x) = Dh x Dw^T``: two matrix products per image,
    or the fast transform from :data:`_FFT_MIN_SIDE` pixels a side (the same numbers to
    rounding). The products run in ``out``'s precision (single precision: half the time of
    double's), each block of ``X3`` rounded to it in cache."""
    h, w = X3.shape[1:]
    in_place = out is X3
    fast = min(h, w) >= _FFT_MIN_SIDE
    dtype = out.dtype
    if not fast:
        dh, dw = _dct_matrix(h, dtype), _dct_matrix(w, dtype)
        left, right = (np.ascontiguousarray(dh.T), dw) if inverse else (dh, np.ascontiguousarray(dw.T))
    if scale is not None:
        scale = np.asarray(scale, dtype=dtype)
    for s in range(0, X3.shape[0], _BLOCK):
        blk = X3[s:s + _BLOCK]
        own = in_place or blk.dtype != dtype
        if blk.dtype != dtype:
            blk = blk.astype(dtype)
        if scale is not None:  # scaled where it is overwritten anyway (or a rounded copy), else into a copy
            blk = np.multiply(blk, scale, out=blk if own else None)
        if fast:
            res = out[s:s + _BLOCK]
            res[...] = (idctn if inverse else dctn)(blk, type=2, norm="ortho", axes=(1, 2))
        else:
            res = np.matmul(np.matmul(left, blk), right, out=out[s:s + _BLOCK])
        if squares is not None:
            squares += np.einsum("nij,nij->ij", res, res)
    return out


def _shape(image_shape, p):
    h, w = (int(d) for d in image_shape[:2])
    if h * w != p:
        raise ValueError(f"image_shape {tuple(image_shape)} has {h * w} pixels; the data has {p} features.")
    return h, w


def dct_spectrum(A: ArrayLike, image_shape: tuple[int, ...], *, ddof: int = 1,
                 return_coefficients: bool = False, gram: ArrayLike | None = None,
                 dtype: type = np.float64) -> NDArray | tuple[NDArray, NDArray]:
    """Variance of every 2-D DCT coefficient of the centred images ``A`` (one pass over them).

    Parameters
    ----------
    A : array-like of shape (n_samples, height * width)
        Centred images, flattened row-major (not modified).
    image_shape : tuple of int
        ``(height, width)``.
    ddof : int, default=1
        The sums of squares are divided by ``n_samples - ddof``.
    return_coefficients : bool, default=False
        Also return the coefficients (for :meth:`DCTPrior.apply` on the same images).
    gram : array-like of shape (height * width, height * width), optional
        ``A^T A`` when the caller has it: the spectrum is then its diagonal in the DCT basis,
        ``O(p^2 (height + width))`` without reading the images (fewer multiply-adds than
        transforming them when there are more images than pixels). Not with
        ``return_coefficients``.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        The precision of the transform of the images (and of the coefficients returned).
        ``numpy.float32`` takes half the time; the spectrum, still returned in double
        precision, is then accurate to about ``1e-6`` relative (the rounding of the
        coefficients), far below its sampling error with any number of images.

    Returns
    -------
    lam : ndarray of shape (height, width)
        ``lam[u, v]``: the mean square of the orthonormal DCT-II coefficient ``(u, v)``; the
        diagonal of ``Phi^T S Phi``, ``S`` the sample covariance.
    coefficients : ndarray of shape (n_samples, height, width)
        Only with ``return_coefficients``: the DCT of every image.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, -1.0, 1.0, -1.0], [-1.0, 1.0, -1.0, 1.0]])
    >>> lam = dct_spectrum(A, (2, 2))   # 2x2 images [[1, -1], [1, -1]]: all at frequency (0, 1)
    >>> np.round(lam, 6).tolist()
    [[0.0, 8.0], [0.0, 0.0]]
    >>> np.round(dct_spectrum(A, (2, 2), gram=A.T @ A), 6).tolist()   # the same from A^T A
    [[0.0, 8.0], [0.0, 0.0]]
    >>> np.round(dct_spectrum(A, (2, 2), dtype=np.float32), 5).tolist()   # in single precision
    [[0.0, 8.0], [0.0, 0.0]]
    """
    A = np.asarray(A, dtype=np.float64)
    n, p = A.shape
    h, w = _shape(image_shape, p)
    dh, dw = _dct_matrix(h), _dct_matrix(w)
    if gram is not None:
        if return_coefficients:
            raise ValueError("dct_spectrum: return_coefficients needs the images; pass gram=None.")
        G = np.asarray(gram, dtype=np.float64)
        if G.shape != (p, p):
            raise ValueError(f"dct_spectrum: gram must be A^T A of shape ({p}, {p}); got {G.shape}.")
        return _gram_spectrum(G, dh, dw) / max(n - ddof, 1)
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dct_spectrum: dtype must be numpy.float64 or numpy.float32; got {dtype}.")
    lam = np.zeros((h, w))
    coef = _transform(A.reshape(n, h, w), np.empty((n, h, w), dtype=dtype), squares=lam)
    lam /= max(n - ddof, 1)
    return (lam, coef) if return_coefficients else lam


def _gram_spectrum(G, dh, dw):
    """``diag(Phi^T G Phi)`` on the frequencies of the rows of ``dh`` and ``dw`` (all, or the lowest)."""
    h, w = dh.shape[1], dw.shape[1]
    bh, bw = dh.shape[0], dw.shape[0]
    p = h * w
    # lam[u, v] = sum Dh[u, y] Dw[v, x] Dh[u, y'] Dw[v, x'] G[(y, x), (y', x')], contracted over x'
    # (a product per row of G), then x at the same v, then y and y'
    H = np.matmul(G.reshape(p, h, w), np.ascontiguousarray(dw.T)).reshape(h, w, h * bw)  # [y, x, (y', v)]
    H *= np.broadcast_to(dw.T[:, None, :], (w, h, bw)).reshape(w, h * bw)
    K = H.sum(axis=1).reshape(h, h, bw)  # [y, y', v]
    return np.einsum("vuz,uz->uv", np.matmul(dh, K.transpose(2, 0, 1)), dh).reshape(bh, bw)


def dct_shrinkage_intensity(A: ArrayLike, lam: ArrayLike, *, gram: ArrayLike | None = None) -> float:
    """The Ledoit-Wolf intensity of the shrinkage of the sample covariance towards ``T``.

    With ``B = A^T A / n`` and the target ``T = Phi diag(lam_n) Phi^T`` (``lam_n = lam (n - 1) /
    n``, the same normalisation), Ledoit and Wolf's intensity is ``min(beta, delta) / delta``
    with ``delta = ||B - T||_F^2 = ||B||_F^2 - sum(lam_n^2)`` and ``beta = (sum_i ||a_i||^4 / n
    - ||B||_F^2) / n``, the estimated variance of the entries of ``B``. No ``p x p`` matrix is
    formed: ``||B||_F^2 = ||A A^T||_F^2 / n^2``.

    Parameters
    ----------
    A : array-like of shape (n_samples, n_features)
        Centred data (not modified).
    lam : array-like
        :func:`dct_spectrum` of ``A`` (``ddof=1``).
    gram : array-like, optional
        ``A^T A`` or ``A A^T`` when the caller has it (its squared Frobenius norm is the same).

    Returns
    -------
    rho : float
        In ``[0, 1]``: 0 keeps the sample covariance, 1 is the target.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 64))
    >>> A = X - X.mean(axis=0)
    >>> rho = dct_shrinkage_intensity(A, dct_spectrum(A, (8, 8)))
    >>> 0.5 < rho <= 1.0   # white noise, fewer images than pixels: shrink far towards T
    True
    """
    A = np.asarray(A, dtype=np.float64)
    n, p = A.shape
    G = (A @ A.T if n <= p else A.T @ A) if gram is None else np.asarray(gram, dtype=np.float64)
    sum_sq = float(np.einsum("ij,ij->", G, G)) / (n * n)
    lam_n = np.asarray(lam, dtype=np.float64) * (max(n - 1, 1) / n)
    delta = sum_sq - float(np.sum(lam_n * lam_n))
    # the squared row norms: the diagonal of A A^T when that is the Gram matrix at hand
    rows = np.diagonal(G) if n < p and G.shape == (n, n) else np.einsum("ij,ij->i", A, A)
    fourth = float(np.sum(rows ** 2))
    beta = (fourth / n - sum_sq) / n
    if delta <= 1e-12 * sum_sq:  # the covariance is the target (up to rounding): nothing to shrink
        return 0.0
    return float(min(max(beta, 0.0), delta) / delta)


def dct_shrinkage_intensity_bound(A: ArrayLike, image_shape: tuple[int, ...], *, gram: ArrayLike,
                                  block: int = 8, row_sq: ArrayLike | None = None) -> float:
    """An upper bound on :func:`dct_shrinkage_intensity`, from the lowest frequencies of the spectrum.

    With ``lam`` known on the ``block x block`` lowest frequencies and the others summing to ``R``
    (the trace is ``trace(A^T A)``), ``sum(lam^2) <= sum_block(lam^2) + R^2``, so ``delta`` is at
    least ``||B||_F^2`` minus that and the intensity at most ``beta`` over it (1 when that says
    nothing). On images whose variance sits in the low frequencies (faces, digits) it is close
    to the intensity, at ``O(p^2 block)`` from ``A^T A`` instead of ``O(p^2 (height + width))``:
    enough to tell that an intensity is small without the whole spectrum.

    Parameters
    ----------
    A : array-like of shape (n_samples, height * width)
        Centred images (not modified; read once, for the row norms).
    image_shape : tuple of int
        ``(height, width)``.
    gram : array-like of shape (height * width, height * width)
        ``A^T A``.
    block : int, default=8
        The lowest frequencies read along each axis.
    row_sq : array-like of shape (n_samples,), optional
        The squared norms of the rows of ``A`` when the caller has them (``A`` is then not read).

    Returns
    -------
    bound : float
        In ``[0, 1]``, never below ``dct_shrinkage_intensity(A, dct_spectrum(A, image_shape))``
        (up to rounding); equal to it when ``block`` covers the image.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 16)).cumsum(axis=1)   # smooth rows: most variance at low frequencies
    >>> A = X - X.mean(axis=0)
    >>> rho = dct_shrinkage_intensity(A, dct_spectrum(A, (4, 4)))
    >>> bound = dct_shrinkage_intensity_bound(A, (4, 4), gram=A.T @ A, block=2)
    >>> bool(rho <= bound < 1.0)
    True
    """
    A = np.asarray(A, dtype=np.float64)
    n, p = A.shape
    h, w = _shape(image_shape, p)
    G = np.asarray(gram, dtype=np.float64)
    if G.shape != (p, p):
        raise ValueError(f"dct_shrinkage_intensity_bound: gram must be A^T A of shape ({p}, {p}); got {G.shape}.")
    b = int(block)
    if b < 1:
        raise ValueError(f"dct_shrinkage_intensity_bound: block must be an int >= 1; got {block!r}.")
    lam_n = _gram_spectrum(G, _dct_matrix(h)[:b], _dct_matrix(w)[:b]) / n  # the block of lam (n - 1) / n
    rest = max(float(np.trace(G)) / n - float(lam_n.sum()), 0.0)
    sum_sq = float(np.einsum("ij,ij->", G, G)) / (n * n)
    delta_low = sum_sq - float(np.sum(lam_n * lam_n)) - rest * rest
    rows = np.einsum("ij,ij->i", A, A) if row_sq is None else np.asarray(row_sq, dtype=np.float64)
    if rows.shape != (n,):
        raise ValueError(f"dct_shrinkage_intensity_bound: row_sq must hold the {n} squared row norms of A; got shape "
                         f"{rows.shape}.")
    beta = (float(rows @ rows) / n - sum_sq) / n
    if beta <= 0:
        return 0.0
    return float(min(beta / delta_low, 1.0)) if delta_low > 0 else 1.0


class DCTPrior:
    """``T = Phi diag(lam) Phi^T`` on ``h x w`` images, applied without forming it.

    Parameters
    ----------
    lam : array-like of shape (height, width)
        The variance of each DCT coefficient (:func:`dct_spectrum`).

    Examples
    --------
    >>> import numpy as np
    >>> T = DCTPrior(np.ones((4, 4)))       # a flat spectrum: the identity
    >>> x = np.arange(16.0)
    >>> bool(np.allclose(T.matvec(x), x)), bool(np.allclose(T.diag(), 1.0))
    (True, True)
    """

    def __init__(self, lam: ArrayLike) -> None:
        self.lam = np.asarray(lam, dtype=np.float64)
        self.shape = self.lam.shape
        self.p = int(self.lam.size)
        h, w = self.shape
        # the 1-D orthonormal DCT-II matrices: dctn(x) = Dh x Dw^T, Dh[u, y] = c_u(y)
        self._dh = _dct_matrix(h)
        self._dw = _dct_matrix(w)

    def apply(self, X: ArrayLike, *, coefficients: ArrayLike | None = None, overwrite: bool = False) -> NDArray:
        """``X T`` for rows ``X`` of shape (m, p): every row filtered by the spectrum.

        ``coefficients``: the DCT of the rows (shape (m, height, width)) when the caller has
        them (:func:`dct_spectrum`); ``X`` is then not read. They are not modified unless
        ``overwrite`` (a float64 or float32 C-ordered array): the result is then written over
        them, which saves a copy of the data, in their precision (single precision
        coefficients give ``X T`` to single precision, in half the time).
        """
        h, w = self.shape
        if coefficients is None:
            X = np.asarray(X, dtype=np.float64)
            m = X.shape[0]
            coef = _transform(X.reshape(m, h, w), np.empty((m, h, w)))
        else:
            given = coefficients
            coef = given if overwrite and isinstance(given, np.ndarray) else np.array(given, dtype=np.float64)
            if coef.dtype not in (np.float64, np.float32) or not coef.flags.c_contiguous or not coef.flags.writeable:
                coef = np.array(coef, dtype=np.float64)
            m = coef.shape[0]
            coef = coef.reshape(m, h, w)
        return _transform(coef, coef, inverse=True, scale=self.lam).reshape(m, self.p)

    def matvec(self, x: ArrayLike) -> NDArray:
        """``T x`` for one vector of length p (two small matrix products each way)."""
        dh, dw = self._dh, self._dw
        coef = dh @ np.asarray(x, dtype=np.float64).reshape(self.shape) @ dw.T
        coef *= self.lam
        return (dh.T @ coef @ dw).ravel()

    def column(self, i: int) -> NDArray:
        """``T[:, i]``: the spectrum times the DCT of the unit image at pixel ``i``, transformed back."""
        y, x = divmod(int(i), self.shape[1])
        coef = np.outer(self._dh[:, y], self._dw[:, x])
        coef *= self.lam
        return (self._dh.T @ coef @ self._dw).ravel()

    def columns(self, idx: ArrayLike) -> NDArray:
        """``T[:, idx]``, shape (p, len(idx))."""
        idx = np.asarray(idx, dtype=np.intp)
        y, x = np.divmod(idx, self.shape[1])
        coef = self._dh[:, y].T[:, :, None] * self._dw[:, x].T[:, None, :]
        coef *= self.lam
        return _transform(coef, coef, inverse=True).reshape(idx.size, self.p).T

    def diag(self) -> NDArray:
        """``diag(T)``, length p: ``sum_f Phi_jf^2 lam_f``."""
        return ((self._dh ** 2).T @ self.lam @ self._dw ** 2).ravel()

    def diag_sq(self) -> NDArray:
        """``diag(T^2)`` (the squared norm of every column of ``T``), length p."""
        return ((self._dh ** 2).T @ (self.lam * self.lam) @ self._dw ** 2).ravel()

    def trace(self) -> float:
        return float(self.lam.sum())
