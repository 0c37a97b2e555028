"""Thin matrix products of the full-rank Krylov paths, compiled with Numba.

:func:`pixsel.spectral._fullrank_krylov.forward_krylov` multiplies the growing ``A_SS`` (a
leading block of a row-major buffer) by one to three vectors per Krylov pass, and the rows of
every candidate by the two Ritz vectors per step. OpenBLAS runs such ``n x 2`` products as a
``dgemm`` whose packing costs 3-5 x two ``dgemv`` (measured at ``t = 300..1000`` on one
thread), while the product is bound by reading the matrix once. These loops read each matrix
row once for all the vectors (fused dot products), so a pass costs about one ``dgemv``. The
sums are in a different order from BLAS (``fastmath`` lets the compiler vectorize them): the
Krylov step certifies its results by residual norms, so only rounding differs.

Imported lazily by :mod:`pixsel.spectral._fullrank_krylov` (``cache=True`` keeps the machine
code next to this file for later processes).
"""

from __future__ import annotations

from numba import njit

__all__ = ["lead_block_matmul", "lead_block_symmatmul", "rows_matmul"]


@njit(cache=True, nogil=True, fastmath=True)
def _dots(A, r, n, QT, q0, m, out, o):
    """``out[q0 + l, o] = A[r, :n] . QT[q0 + l, :n]`` for ``l < m`` (``m <= 3``), one read of the row."""
    if m == 1:
        v0 = QT[q0]
        s0 = 0.0
        for j in range(n):
            s0 += A[r, j] * v0[j]
        out[q0, o] = s0
    elif m == 2:
        v0 = QT[q0]
        v1 = QT[q0 + 1]
        s0 = 0.0
        s1 = 0.0
        for j in range(n):
            x = A[r, j]
            s0 += x * v0[j]
            s1 += x * v1[j]
        out[q0, o] = s0
        out[q0 + 1, o] = s1
    else:
        v0 = QT[q0]
        v1 = QT[q0 + 1]
        v2 = QT[q0 + 2]
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        for j in range(n):
            x = A[r, j]
            s0 += x * v0[j]
            s1 += x * v1[j]
            s2 += x * v2[j]
        out[q0, o] = s0
        out[q0 + 1, o] = s1
        out[q0 + 2, o] = s2


@njit(cache=True, nogil=True, fastmath=True)
def lead_block_matmul(A, n, QT, out):
    """``out[:, :n] = (A[:n, :n] @ QT[:, :n].T).T`` for a row-major ``A`` (the leading block)."""
    m = QT.shape[0]
    for q0 in range(0, m, 3):
        mm = min(3, m - q0)
        for i in range(n):
            _dots(A, i, n, QT, q0, mm, out, i)


@njit(cache=True, nogil=True, fastmath=True)
def lead_block_symmatmul(A, n, QT, out):
    """:func:`lead_block_matmul` for a symmetric leading block, reading its lower triangle only.

    Row ``i`` of the triangle gives its dot product with ``q`` (``j <= i``) and, transposed,
    the update ``out[j] += A[i, j] q[i]`` (``j < i``): both loops run along contiguous memory,
    so half the matrix is read (1.6-2 x faster than the full block at ``n = 300..1000``).
    """
    m = QT.shape[0]
    for q in range(m):
        for i in range(n):
            out[q, i] = 0.0
    for q0 in range(0, m, 2):
        if q0 + 1 < m:
            v0 = QT[q0]
            v1 = QT[q0 + 1]
            o0 = out[q0]
            o1 = out[q0 + 1]
            for i in range(n):
                x0 = v0[i]
                x1 = v1[i]
                s0 = A[i, i] * x0
                s1 = A[i, i] * x1
                for j in range(i):
                    a = A[i, j]
                    s0 += a * v0[j]
                    s1 += a * v1[j]
                    o0[j] += a * x0
                    o1[j] += a * x1
                o0[i] += s0
                o1[i] += s1
        else:
            v0 = QT[q0]
            o0 = out[q0]
            for i in range(n):
                x0 = v0[i]
                s0 = A[i, i] * x0
                for j in range(i):
                    a = A[i, j]
                    s0 += a * v0[j]
                    o0[j] += a * x0
                o0[i] += s0


@njit(cache=True, nogil=True, fastmath=True)
def rows_matmul(A, rows, n, QT, out):
    """``out[:, r] = A[rows[r], :n] @ QT[:, :n].T`` for a row-major ``A``."""
    m = QT.shape[0]
    for q0 in range(0, m, 3):
        mm = min(3, m - q0)
        for r in range(rows.shape[0]):
            _dots(A, rows[r], n, QT, q0, mm, out, r)
