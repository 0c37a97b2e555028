"""How the numerator ``A`` of ``max x^T A x / x^T B x`` is given, and the pair checks.

The bottom of :mod:`pixsel.spectral`: every other module (greedy paths, certificates,
renormalization, the exact search) reads the form of ``A`` from here, so none of them needs
another.

* ``'vector'``: ``a`` of shape (p,), ``A = a a^T`` (binary LDA);
* ``'factor'``: ``M`` of shape (p, r), ``A = M M^T`` (multiclass LDA, ``r = C - 1``);
* ``'full'``: a symmetric ``p x p`` matrix (sparse PCA, general pairs).
"""

from __future__ import annotations

import numpy as np

from .._validation import _max_asymmetry, check_finite, check_options, check_pair

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

__all__ = ["FORMS", "infer_form", "check_form_pair", "as_full", "as_factor"]

FORMS = ("auto", "vector", "factor", "full")


def _is_symmetric(A):
    """``np.allclose(A, A.T, rtol=1e-10, atol=1e-12 max|A|)`` read in row blocks (no p x p
    temporaries); ``max |A - A.T| <= 1e-12 max|A| + 1e-10 max|A|`` is checked blockwise with the
    elementwise rule."""
    p = A.shape[0]
    if p == 0:
        return True
    worst, scale = _max_asymmetry(A)
    if not np.isfinite(worst):
        return False
    if worst <= 1e-12 * scale:
        return True
    # the elementwise rule (relative to |A.T|) only matters in this rare near-tie
    return bool(np.allclose(A, A.T, rtol=1e-10, atol=1e-12 * scale))


def infer_form(A: ArrayLike) -> Literal["vector", "factor", "full"]:
    """``'vector'``, ``'factor'`` or ``'full'`` for an array ``A``.

    A 1-D array is a vector, a square symmetric matrix is full, any other 2-D array a factor.

    Examples
    --------
    >>> import numpy as np
    >>> infer_form(np.ones(3)), infer_form(np.ones((3, 2))), infer_form(np.eye(3))
    ('vector', 'factor', 'full')
    """
    A = np.asarray(A)
    if A.ndim == 1:
        return "vector"
    if A.ndim == 2 and A.shape[0] == A.shape[1] and _is_symmetric(A):
        return "full"
    if A.ndim == 2:
        return "factor"
    raise ValueError(
        f"A must be a vector of shape (p,), a factor of shape (p, r) or a symmetric matrix of shape "
        f"(p, p); got an array with shape {A.shape}."
    )


def check_form_pair(A, B=None, *, form="auto", owner=None):
    """Validate ``(A, B)`` once and return ``(A, B, form)`` with ``form`` resolved.

    ``B`` is checked (square, finite, symmetric, matching ``A``) exactly once, in row blocks;
    None stays None (the identity). See :func:`pixsel._validation.check_pair`.

    Examples
    --------
    >>> import numpy as np
    >>> A, B, form = check_form_pair(np.eye(3))
    >>> form, B is None
    ('full', True)
    """
    check_options(form, "form", FORMS, owner=owner)
    A_arr = np.asarray(A)
    if A_arr.dtype.kind not in "biuf":
        raise TypeError(f"A must hold real numbers; got dtype {A_arr.dtype}.")
    if form == "auto":
        form = infer_form(check_finite(A_arr, "a" if A_arr.ndim == 1 else "A"))
    A_arr, B_arr = check_pair(A_arr, B, form=form, owner=owner)
    return A_arr, B_arr, form


def as_full(A, form):
    """The ``p x p`` matrix ``A`` of a vector, factor or full numerator."""
    if form == "full":
        return A
    F = A[:, None] if form == "vector" else A
    return F @ F.T


def as_factor(A, form):
    """A ``p x r`` factor of a vector or factor numerator (``A[:, None]`` for a vector)."""
    return A[:, None] if form == "vector" else A
