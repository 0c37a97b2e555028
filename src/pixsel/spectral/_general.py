"""One entry point for greedy paths of the sparse generalized eigenproblem ``max x^T A x / x^T B x``.

``A`` is given in the form that makes it cheapest (paper 002, section 2):

* a vector ``a`` (rank one, binary LDA ``A = a a^T``) -> the binary Schur-complement kernel;
* a ``p x r`` factor ``M`` with ``A = M M^T`` (multiclass LDA, ``r = C - 1``) ->
  :func:`~pixsel.spectral._multiclass.multiclass_greedy_path`;
* a full symmetric ``p x p`` matrix (sparse PCA, general pairs) ->
  :func:`~pixsel.spectral._fullrank.fullrank_greedy_path`.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_finite, check_int, check_options
from ._certificates import certify
from ._fullrank import fullrank_greedy_path
from ._multiclass import multiclass_greedy_path

try:  # the blocked binary kernel, when present
    from ._greedy import greedy_path as _binary_greedy_path
except ImportError:  # pragma: no cover - before the blocked kernel is merged
    from ._greedy_reference import greedy_path_reference as _binary_greedy_path

__all__ = ["greedy_path", "infer_form"]

FORMS = ("auto", "vector", "factor", "full")


def infer_form(A):
    """``'vector'``, ``'factor'`` or ``'full'`` for an array ``A`` (see :func:`greedy_path`).

    Examples
    --------
    >>> import numpy as np
    >>> infer_form(np.ones(3)), infer_form(np.ones((3, 2))), infer_form(np.eye(3))
    ('vector', 'factor', 'full')
    """
    A = np.asarray(A)
    if A.ndim == 1:
        return "vector"
    if A.ndim == 2 and A.shape[0] == A.shape[1] and np.allclose(A, A.T, rtol=1e-10, atol=1e-12 * np.abs(A).max()):
        return "full"
    if A.ndim == 2:
        return "factor"
    raise ValueError(f"A must be a vector, a p x r factor or a p x p symmetric matrix; got shape {A.shape}.")


def greedy_path(
    A, B=None, *, direction="forward", criterion="max-eig", form="auto", max_k=None, certificate="auto",
    **kernel_options,
):
    """Greedy forward or backward path of ``max x^T A x / x^T B x`` subject to ``card(x) = k``.

    Parameters
    ----------
    A : ndarray of shape (n_features,), (n_features, r) or (n_features, n_features)
        The numerator: a vector ``a`` (``A = a a^T``), a factor ``M`` (``A = M M^T``) or a
        symmetric matrix. float32 is accepted; the kernels compute in float64.
    B : ndarray of shape (n_features, n_features) or None
        Symmetric positive definite denominator; ``None`` means the identity (sparse PCA).
    direction : {'forward', 'backward'}
        Forward selection from the empty set or backward elimination from all features.
    criterion : {'max-eig', 'trace'}
        ``lambda_max(A_S, B_S)`` (the generalized Rayleigh quotient) or the sum of the
        generalized eigenvalues ``tr(B_SS^{-1} A_SS)``. Identical for a vector ``A``.
    form : {'auto', 'vector', 'factor', 'full'}
        How to read ``A``; ``'auto'`` takes a square symmetric matrix as ``'full'`` and any other
        2-D array as a factor.
    max_k : int or None
        Forward only: stop after ``max_k`` features (the path then has ``max_k`` entries).
    certificate : {'auto', 'dual', 'inclusion', None}
        Per-``k`` certified upper bounds stored on ``path.upper_bound`` (see
        :func:`pixsel.spectral.certify`): ``'inclusion'`` the inclusion-principle and norm bounds
        (cheap), ``'dual'`` adds the sparse PCA duality certificate (``B = I``, full ``A``;
        one ``O(p^3)`` test per ``k``), ``'auto'`` = ``'dual'`` when ``p <= 256`` else
        ``'inclusion'``, ``None`` none.
    **kernel_options
        Passed to the blocked binary kernel for a vector ``A`` (``block_size``, ``check_every``,
        ``drift_tol``; see :mod:`pixsel.spectral._greedy`).

    Returns
    -------
    SparsePath
        ``order`` and ``objective`` per ``k``; ``info['criterion']`` and ``info['form']``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 3.5]])
    >>> greedy_path(A, direction="backward").order.tolist()
    [2, 1, 0]
    >>> greedy_path(np.array([1.0, 2.0, 0.5])).order.tolist()
    [1, 0, 2]
    """
    check_options(direction, "direction", ("forward", "backward"), owner="greedy_path")
    check_options(criterion, "criterion", ("max-eig", "trace"), owner="greedy_path")
    check_options(form, "form", FORMS, owner="greedy_path")
    A = np.asarray(A)
    if A.dtype.kind not in "fiub":
        raise TypeError(f"A must hold real numbers; got dtype {A.dtype}.")
    A = check_finite(A.astype(np.float64, copy=False), "A")
    form = infer_form(A) if form == "auto" else form
    p = A.shape[0]
    if form == "vector" and A.ndim != 1:
        raise ValueError(f"form='vector' needs a 1-D A; got shape {A.shape}.")
    if form == "full" and (A.ndim != 2 or A.shape[1] != p or not np.allclose(A, A.T)):
        raise ValueError(f"form='full' needs a symmetric p x p A; got shape {A.shape}.")
    if form == "factor" and A.ndim != 2:
        raise ValueError(f"form='factor' needs a 2-D p x r A; got shape {A.shape}.")
    if B is not None:
        B = check_finite(np.asarray(B).astype(np.float64, copy=False), "B")
        if B.shape != (p, p):
            raise ValueError(f"B must have shape ({p}, {p}) to match A; got {B.shape}.")
        if not np.allclose(B, B.T, rtol=1e-10, atol=1e-12 * max(np.abs(B).max(), 1e-300)):
            raise ValueError("B must be symmetric; symmetrize it with (B + B.T) / 2.")
    if max_k is not None:
        max_k = check_int(max_k, "max_k", low=1, high=p, owner="greedy_path")
        if direction == "backward":
            raise ValueError("max_k only applies to the forward direction (backward starts from all features).")
    if certificate not in ("auto", "dual", "inclusion", None):
        raise ValueError(
            "The 'certificate' parameter of greedy_path must be one of {'auto', 'dual', 'inclusion', None}. "
            f"Got {certificate!r} instead."
        )
    if kernel_options and not (form == "vector" and max_k is None):
        raise TypeError(
            f"greedy_path got options {sorted(kernel_options)} that only the binary kernel (a vector A "
            "without max_k) accepts."
        )
    if form == "vector" and max_k is None:
        path = _binary_greedy_path(A, np.eye(p) if B is None else B, direction=direction, **kernel_options)
        path.info = dict(path.info, criterion=criterion, form="vector")
    elif form == "vector":
        path = multiclass_greedy_path(A[:, None], B, direction=direction, criterion=criterion, max_k=max_k)
        path.A, path.info["form"] = A, "vector"
    elif form == "factor":
        path = multiclass_greedy_path(A, B, direction=direction, criterion=criterion, max_k=max_k)
    else:
        path = fullrank_greedy_path(A, B, direction=direction, criterion=criterion, max_k=max_k)
    if certificate is not None:
        dual = certificate == "dual" or (certificate == "auto" and p <= 256)
        certify(path, dual=dual)
    return path
