"""Exact greedy paths for a full symmetric ``A`` and positive definite ``B`` (greedy sparse PCA).

The greedy criterion is the exact ``lambda_max(A_S, B_S)`` (or ``tr(B_SS^{-1} A_SS)`` with
``criterion='trace'``) of every candidate support, obtained *without* an eigendecomposition per
candidate: cheap bounds screen the candidates, and only the few survivors are evaluated, by one
of two routes behind :func:`fullrank_greedy_path`:

* dense (:mod:`pixsel.spectral.greedy._fullrank_dense`): one generalized eigendecomposition of the
  current support per step, then a secular equation per surviving candidate (any ``B``,
  ``'max-eig'`` and ``'trace'``);
* Krylov (:mod:`pixsel.spectral.greedy._fullrank_krylov`): for sparse PCA (``B = I``, ``'max-eig'``),
  two certified Ritz pairs updated by block Krylov steps, falling back to the dense route
  whenever a certificate fails, so the choice stays the exact argmax.

The secular equations and small bordered eigenproblems both use are in
:mod:`pixsel.spectral.greedy._secular`.

Complexity. Dense, per step: one ``t x t`` generalized ``eigh`` (``O(t^3)``), ``O(p t^2)`` for
the bordering rows (``O(p t)`` when ``B = I``), ``O(p)`` bounds and ``O(s t)`` per Newton
iteration for the ``s`` survivors. A forward path to ``k``: ``O(k^4 + p k^3)`` (``O(k^4 + p
k^2)`` for ``B = I``) against ``O(p k^4)`` for one eigendecomposition per candidate; the whole
backward path ``O(p^4)`` against ``O(p^5)``. Memory ``O(p k)`` beyond ``A`` and ``B``; ``A``
may be an operator (``diag()``, ``column(j)``) that is never formed, which the image-scale path
uses for ``A = Xc^T Xc / N``.
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_options
from .._criteria import spectral_criterion
from ._fullrank_dense import backward_secular, forward_partial, forward_secular
from ._fullrank_krylov import backward_krylov, forward_krylov
from .._operators import DenseOperator
from .._path import SparsePath

__all__ = ["fullrank_greedy_path"]

METHODS = ("auto", "partial", "secular")


def fullrank_greedy_path(A, B=None, *, direction="forward", criterion="max-eig", max_k=None, method="auto"):
    """Exact greedy path of ``lambda_max(A_S, B_S)`` (or ``tr``) for a full symmetric ``A``.

    Parameters
    ----------
    A : ndarray of shape (n_features, n_features) or operator
        Symmetric matrix (a covariance for sparse PCA). The forward pass also accepts an
        operator with ``p``, ``diag()`` and ``column(j)``.
    B : ndarray of shape (n_features, n_features) or None
        Symmetric positive definite; ``None`` is the identity (sparse PCA).
    direction : {'forward', 'backward'}
    criterion : {'max-eig', 'trace'}
    max_k : int or None
        Forward only: stop after ``max_k`` steps.
    method : {'auto', 'partial', 'secular'}
        ``B = I`` and ``'max-eig'``: ``'auto'`` keeps two certified Ritz pairs and evaluates the
        (few) survivors of the screening by block Krylov updates (``O(t^2)`` per product, both
        directions); ``'partial'`` (forward) uses a partial ``eigh`` of each survivor's
        ``(t + 1) x (t + 1)`` matrix (``O(t^3)``); ``'secular'`` the secular equation on the
        full eigendecomposition of ``A_SS`` (and the full-spectrum backward path).

    Returns
    -------
    SparsePath
        ``info['n_secular']`` counts the candidates whose secular equation was solved (the
        others were discarded by the bound screening); with ``method='auto'`` and ``B = I``,
        ``info['n_krylov']`` counts the Krylov evaluations and ``info['n_dense_steps']`` the
        steps that fell back to the dense route.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 3.5]])
    >>> path = fullrank_greedy_path(A)
    >>> path.order.tolist(), path.objective.round(4).tolist()
    ([0, 1, 2], [4.0, 4.618, 4.618])
    """
    criterion = spectral_criterion(criterion, owner="fullrank_greedy_path")
    check_options(method, "method", METHODS)
    check_options(direction, "direction", ("forward", "backward"))
    identity_max_eig = B is None and criterion.largest_eigenvalue
    Bd = None if B is None else np.asarray(B, dtype=np.float64)
    if direction == "forward":
        Aop = A if hasattr(A, "column") else DenseOperator(A)
        n_steps = Aop.p if max_k is None else int(max_k)
        if identity_max_eig and method == "auto":
            order, objective, info = forward_krylov(Aop, n_steps)
        elif identity_max_eig and method == "partial":
            order, objective, info = forward_partial(Aop, n_steps)
        else:
            order, objective, info = forward_secular(Aop, Bd, criterion, n_steps)
        Astore = Aop.matrix if isinstance(Aop, DenseOperator) else None
    else:
        Astore = np.asarray(A, dtype=np.float64)
        if identity_max_eig and method == "auto" and Astore.shape[0] > 4:
            order, objective, info = backward_krylov(Astore)
        else:
            order, objective, info = backward_secular(Astore, Bd, criterion)
    info = dict(info, criterion=criterion.name, form="full")
    return SparsePath(order=order, objective=objective, direction=direction, A=Astore, B=Bd, info=info)
