"""Small dense linear algebra on any array-API library, NumPy included: the shims the kernels share.

The standard has ``cholesky``, ``eigh``, ``inv``, ``solve`` and ``matmul`` but no triangular
solve, no generalized (``A x = lambda B x``) ``eigh`` and no ``eigh`` of a subset of the
spectrum. Where a kernel needs one of those, it calls the shim here, written with what the
standard has:

* :func:`generalized_eigh` -- ``eigh`` of ``L^{-1} A L^{-T}`` with ``B = L L^T``; ``L^{-1}`` by
  ``inv`` of the (small, well-conditioned once regularized) triangular factor, in place of the
  missing triangular solve;
* :func:`generalized_eigvalsh` -- the same eigenvalues without the eigenvectors;
* :func:`spd_solve` -- ``B^{-1} b`` from the Cholesky factor (SciPy's triangular solves on NumPy);
* :func:`top_eigh` -- the largest eigenpair from the full ``eigh`` (the standard has no subset
  selection; every caller's matrix is ``k x k`` with ``k`` the support size);
* :func:`submatrix` -- ``M[S][:, S]`` by two ``take`` (the standard has no ``ix_`` indexing).

Every function takes the namespace ``xp`` and arrays of it; indices are NumPy (host metadata)
and are sent to the device once per call. NumPy 2 is itself an array-API namespace, so
:func:`support_weights` (:func:`pixsel.spectral.weights_on_support`) and
:func:`support_objective` (the thresholding paths' prefix objectives) are one implementation
for NumPy and device arrays; :func:`pixsel.spectral.objective_on_support` stays the criteria's own
textbook evaluation, the oracle the incremental kernels (and this one) are tested against.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .._array_api import device_of, is_numpy, sign_flip
from ._criteria import as_criterion

__all__ = ["submatrix", "generalized_eigh", "generalized_eigvalsh", "spd_solve", "top_eigh", "support_weights", "support_objective"]


def _index(xp, S, like):
    return xp.asarray(np.asarray(S, dtype=np.int64), device=device_of(like))


def submatrix(xp, M, S, T=None):
    """``M[np.ix_(S, T)]`` (``T = S`` by default) for an array ``M`` of namespace ``xp``."""
    rows = xp.take(M, _index(xp, S, M), axis=0)
    return xp.take(rows, _index(xp, S if T is None else T, M), axis=1)


def _whitener(xp, B):
    """``L^{-1}`` with ``B = L L^T`` (``ValueError`` naming the fix when ``B`` is not positive definite)."""
    try:
        L = xp.linalg.cholesky((B + B.T) / 2)
    except Exception as exc:
        raise ValueError(
            "B restricted to the support is not positive definite; regularize B first "
            "(pixsel.stats.regularize(B, 'auto'))."
        ) from exc
    return xp.linalg.inv(L)  # the standard has no triangular solve: the inverse of the small factor


def generalized_eigh(xp, A, B=None):
    """``(w, V)``: ascending eigenvalues and ``B``-orthonormal eigenvectors of ``A v = w B v``.

    ``B = None`` is the identity (plain ``eigh``). Raises ``ValueError`` naming the fix when
    ``B`` is not positive definite (any library's Cholesky failure)."""
    if B is None:
        w, V = xp.linalg.eigh((A + A.T) / 2)
        return w, V
    Li = _whitener(xp, B)
    C = Li @ A @ Li.T
    w, U = xp.linalg.eigh((C + C.T) / 2)
    return w, Li.T @ U


def generalized_eigvalsh(xp, A, B=None):
    """The ascending eigenvalues of ``A v = w B v`` (no eigenvectors: the objectives' need)."""
    if B is None:
        return xp.linalg.eigvalsh((A + A.T) / 2)
    Li = _whitener(xp, B)
    C = Li @ A @ Li.T
    return xp.linalg.eigvalsh((C + C.T) / 2)


def spd_solve(xp, B, L, b):
    """``B^{-1} b`` for a vector ``b``, ``L`` the lower Cholesky factor of ``B``: two triangular
    solves on NumPy (SciPy's ``cho_solve``); the standard has no triangular solve, so other
    libraries solve with ``B`` itself."""
    if is_numpy(xp):
        return sla.cho_solve((L, True), b, check_finite=False)
    return xp.linalg.solve(B, b[:, None])[:, 0]


def top_eigh(xp, A, B=None):
    """The largest generalized eigenvalue (a float) and its eigenvector, largest entry positive."""
    w, V = generalized_eigh(xp, A, B)
    return float(w[-1]), sign_flip(xp, V[:, -1])


def _small_matrix(xp, A, S):
    """``A_SS`` of a vector (``a_S a_S^T``), a factor (``M_S M_S^T``) or a square matrix."""
    if A.ndim == 1:
        aS = xp.take(A, _index(xp, S, A))
        return aS[:, None] * aS[None, :]
    if A.shape[1] == A.shape[0]:
        return submatrix(xp, A, S)
    MS = xp.take(A, _index(xp, S, A), axis=0)
    return MS @ MS.T


def support_weights(xp, A, B, S):
    """:func:`pixsel.spectral.weights_on_support` for arrays of ``xp``: length ``p``, zero off ``S``.

    A vector ``A = a``: ``z_S = B_SS^{-1} a_S`` (a pseudo-inverse when ``B_SS`` is singular, as
    the NumPy function's least squares). A matrix or a factor: the principal generalized
    eigenvector of ``(A_SS, B_SS)`` with ``z^T B_SS z = 1``, largest entry positive."""
    p = A.shape[0]
    S = np.asarray(S, dtype=np.int64)
    dtype = A.dtype if B is None else B.dtype
    dev = device_of(A)
    if len(S) == 0:
        return xp.zeros((p,), dtype=dtype, device=dev)
    numpy_vector = xp is np and A.ndim == 1  # the two-class discriminant of a fit: NumPy's indexing
    if numpy_vector:
        BSS = None if B is None else B[S][:, S]  # the numbers of B[np.ix_(S, S)]
        aS = A[S].astype(dtype)
    else:
        BSS = None if B is None else submatrix(xp, B, S)
    if A.ndim == 1:
        if not numpy_vector:
            aS = xp.astype(xp.take(A, _index(xp, S, A)), dtype)
        if BSS is None:
            zS = aS
        else:
            try:
                if numpy_vector:  # the same test of positive definiteness by LAPACK's potrf itself
                    lower_cholesky(BSS, check_finite=False)
                else:
                    xp.linalg.cholesky(BSS)
                zS = xp.linalg.solve(BSS, aS[:, None])[:, 0]
            except Exception:
                zS = xp.linalg.pinv(BSS) @ aS
    else:
        zS = top_eigh(xp, xp.astype(_small_matrix(xp, A, S), dtype), BSS)[1]
    if numpy_vector:
        z = np.zeros(p, dtype=zS.dtype)
        z[S] = zS
        return z
    # scatter z_S into p zeros: the standard has take but no index assignment by an array
    pos = np.full(p, len(S), dtype=np.int64)
    pos[S] = np.arange(len(S))
    padded = xp.concat([zS, xp.zeros((1,), dtype=zS.dtype, device=dev)])
    return xp.take(padded, xp.asarray(pos, device=dev))


#: LAPACK's float64 Cholesky factorization and triangular solve (what SciPy's ``cho_factor`` and
#: ``solve_triangular`` call)
_POTRF, _TRTRS = sla.get_lapack_funcs(("potrf", "trtrs"), (np.empty((1, 1)),))


def lower_cholesky(M, *, check_finite=True):
    """``scipy.linalg.cho_factor(M, lower=True, check_finite=check_finite)[0]`` by the LAPACK call
    it makes, with its errors (a matrix that is not positive definite, non-finite entries): the
    same numbers without SciPy's per-call wrappers, which cost more than factoring the small
    blocks of a swap search or of the greedy path's checkpoints. Other dtypes and shapes go to
    SciPy."""
    if not (isinstance(M, np.ndarray) and M.dtype == np.float64 and M.ndim == 2 and M.size
            and M.shape[0] == M.shape[1]):
        return sla.cho_factor(M, lower=True, check_finite=check_finite)[0]
    if check_finite and not np.isfinite(M).all():
        raise ValueError("array must not contain infs or NaNs")
    c, info = _POTRF(M, lower=True, overwrite_a=False, clean=False)
    if info > 0:
        raise np.linalg.LinAlgError(f"{info}-th leading minor of the array is not positive definite")
    if info < 0:
        raise ValueError(f'LAPACK reported an illegal value in {-info}-th argument on entry to "POTRF".')
    return c


def solve_lower(c, b):
    """``scipy.linalg.solve_triangular(c, b, lower=True, check_finite=False)`` for a factor ``c``
    of :func:`lower_cholesky`, by the LAPACK call it makes."""
    if not (c.dtype == np.float64 and b.dtype == np.float64 and c.flags.f_contiguous and b.size):
        return sla.solve_triangular(c, b, lower=True, check_finite=False)
    x, info = _TRTRS(c, b, overwrite_b=False, lower=True, trans=0, unitdiag=False)
    if info > 0:
        raise np.linalg.LinAlgError(f"singular matrix: resolution failed at diagonal {info - 1}")
    if info < 0:
        raise ValueError(f"illegal value in {-info}-th argument of internal trtrs")
    return x


def support_objective(xp, A, B, S, *, criterion="max-eig"):
    """:func:`pixsel.spectral.objective_on_support` for arrays of ``xp`` (a float)."""
    S = np.asarray(S, dtype=np.int64)
    if len(S) == 0:
        return 0.0
    BSS = None if B is None else submatrix(xp, B, S)
    if A.ndim == 1:
        aS = xp.take(A, _index(xp, S, A))
        z = aS if BSS is None else xp.linalg.solve(BSS, aS[:, None])[:, 0]
        return float(xp.sum(aS * z))
    w = generalized_eigvalsh(xp, _small_matrix(xp, A, S), BSS)
    return float(as_criterion(criterion).of_eigenvalues(w, xp))
