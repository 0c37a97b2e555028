"""The eigendecomposition the kernel projections share: a symmetric Gram matrix, eigenvalues
decreasing, and the rank rule that says which of them count as non-zero."""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = []

#: An eigenvalue above ``-_PSD_ATOL`` is round-off whatever ``psd_tol`` says.
_PSD_ATOL = 1e-12


def descending_eigh(gram: NDArray, rtol: float, *, psd_tol: float | None = None) -> tuple[NDArray, NDArray, NDArray]:
    """``(w, V, keep)``: the eigenpairs of ``(gram + gram.T) / 2`` by decreasing eigenvalue and
    the mask of those above ``rtol * max(w[0], 0)`` (none when no eigenvalue is positive).

    With ``psd_tol``, a ``gram`` whose smallest eigenvalue is below ``-psd_tol * lambda_max``
    (and below ``-1e-12``) is refused with a ``ValueError`` that says how to fix it; smaller
    negative eigenvalues are round-off and are simply not kept.
    """
    w, V = sla.eigh(0.5 * (gram + gram.T))
    w, V = w[::-1], V[:, ::-1]
    lmax = max(float(w[0]), 0.0) if w.size else 0.0
    if psd_tol is not None and w.size and w[-1] < -psd_tol * max(lmax, 1e-300) and w[-1] < -_PSD_ATOL:
        raise ValueError(
            f"gram is not positive semidefinite: its smallest eigenvalue is {w[-1]:.3g} (largest "
            f"{w[0]:.3g}). Use a positive semidefinite kernel (e.g. 'rbf', 'linear', 'poly' with a "
            "non-negative coef0) or add a small ridge to the diagonal."
        )
    keep = w > rtol * lmax if lmax > 0 else np.zeros_like(w, dtype=bool)
    return w, V, keep
