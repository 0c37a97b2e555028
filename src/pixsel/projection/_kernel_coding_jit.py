"""The Gram-form lasso's coordinate descent, one sample at a time, compiled with Numba.

:func:`pixsel.projection._kernel_coding.lasso_gram_cd` updates one coordinate of every sample
per NumPy call; with ``K`` atoms a sweep is ``K`` rounds of about ten calls, and the rank-one
update of the correlations touches the whole batch whenever one sample's coordinate moves. Codes
are sparse, so most coordinates do not move: :func:`lasso_gram_cd_rows` runs each sample's sweeps
in one compiled loop and updates its correlations only for the coordinates that change
(``O(K)`` per visit plus ``O(K)`` per change). The arithmetic per coordinate is the NumPy loop's,
in the same order (the initial correlations ``c - G a`` are summed over the non-zero codes rather
than by BLAS, so values agree to rounding); the NumPy loop stays as the oracle it is tested
against.

Imported lazily by :mod:`pixsel.projection._kernel_coding` (Numba's import and the first
compilation are paid once; ``cache=True`` keeps the machine code next to this file).
"""

from __future__ import annotations

import numpy as np
from .._optional import numba as _numba

njit = _numba().njit  # Numba is optional: without it, a clear error naming the extra that installs it

__all__ = ["lasso_gram_cd_rows"]


@njit(cache=True, nogil=True)
def lasso_gram_cd_rows(G, C, A, alpha, max_iter, tol):
    """Cyclic coordinate descent of ``1/2 a^T G a - c^T a + alpha ||a||_1`` for every row.

    ``A`` (C order, ``n x K``) holds the warm start and receives the codes. Returns the number of
    sweeps each sample ran and whether it met the stopping rule of
    :func:`~pixsel.projection.lasso_gram_cd` (largest change in a sweep ``<= tol`` times the
    largest code).
    """
    n, K = C.shape
    sweeps = np.zeros(n, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    q = np.empty(K)
    tiny = np.finfo(np.float64).tiny
    for i in range(n):
        a = A[i]
        for j in range(K):
            q[j] = C[i, j]
        for k in range(K):
            ak = a[k]
            if ak != 0.0:
                for j in range(K):
                    q[j] -= ak * G[k, j]
        for it in range(max_iter):
            dmax = 0.0
            for k in range(K):
                gkk = G[k, k]
                if not gkk > 0.0:
                    continue
                ak = a[k]
                rho = q[k] + gkk * ak
                mag = abs(rho) - alpha
                if mag > 0.0:
                    new = (mag if rho > 0.0 else -mag) / gkk
                else:
                    new = 0.0
                d = new - ak
                if d != 0.0:
                    a[k] = new
                    for j in range(K):
                        q[j] -= d * G[k, j]
                    if abs(d) > dmax:
                        dmax = abs(d)
            sweeps[i] = it + 1
            amax = 0.0
            for k in range(K):
                if abs(a[k]) > amax:
                    amax = abs(a[k])
            if not dmax > tol * max(amax, tiny):
                done[i] = True
                break
    return sweeps, done
