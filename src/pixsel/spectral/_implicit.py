"""Image-scale forward selection: greedy paths without any ``p x p`` matrix.

When the data have ``N`` rows and ``p`` columns with ``N << p`` (faces or textures at full
resolution, ``p = 16384`` and more), the ``p x p`` scatter matrices cost ``8 p^2`` bytes and
``N p^2`` flops, while a forward path to ``k`` needs only the diagonal and ``k`` columns. This
kernel takes the matrices as *operators* with that column access, typically
:class:`pixsel.stats.CenteredGramOperator` (``Xc^T Xc / N + alpha I``, used through the data):

* LDA: ``A = a a^T`` (``a = m_1 - m_0``) or ``A = F F^T`` (``F`` the between-class factor of shape
  ``(p, C - 1)``), given as ``a`` or ``F``, and ``B`` the within-class operator with its ridge;
* sparse PCA: ``A`` the covariance operator, ``B = I``.

The statistics (class means, between-class factor, ridge) come from :mod:`pixsel.stats`; the
kernel never sees samples or labels. The forward kernels are the left-looking ones of
:mod:`~pixsel.spectral._multiclass` (binary ``r = 1`` and multiclass LDA) and
:mod:`~pixsel.spectral._fullrank` (sparse PCA). Time ``O(N p k + p k^2)`` (LDA) with a
``CenteredGramOperator``, memory ``O(p k)`` for the path state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from .._validation import check_int, check_options, sign_flip
from ._fullrank import fullrank_greedy_path
from ._multiclass import multiclass_greedy_path
from ._path import SparsePath

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

__all__ = ["implicit_greedy_path", "use_implicit"]


def use_implicit(n_samples, n_features):
    """The automatic rule: implicit when the ``p x p`` matrix would be large and ``N < p``.

    Examples
    --------
    >>> use_implicit(2000, 16384), use_implicit(2414, 1024)
    (True, False)
    """
    return n_features > 4096 and n_samples < n_features


@dataclass
class ImplicitSparsePath(SparsePath):
    """A :class:`SparsePath` whose ``B`` (and ``A`` for sparse PCA) live in an operator."""

    operator: object = None

    def weights(self, k):
        S = self.support(k)
        z = np.zeros(self.operator.p)
        sub = self.operator.submatrix(S)
        if self.info.get("kind") == "pca":
            vals, vecs = np.linalg.eigh(sub)
        else:
            F = self.A if self.A.ndim == 2 else self.A[:, None]
            vals, vecs = sla.eigh(F[S] @ F[S].T, sub)
        z[S] = sign_flip(vecs[:, -1])
        return z


def _check_operator(op, name, p=None):
    if not (hasattr(op, "column") and hasattr(op, "diag") and hasattr(op, "submatrix")):
        raise TypeError(
            f"{name} must be an operator with diag(), column(j) and submatrix(idx), such as "
            f"pixsel.stats.CenteredGramOperator(X, y); got {type(op).__name__}. For dense "
            "matrices use pixsel.spectral.greedy_path."
        )
    if p is not None and op.p != p:
        raise ValueError(f"{name} is {op.p} x {op.p} but A has {p} rows; they must match.")


def implicit_greedy_path(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    max_k: int,
    criterion: Literal["max-eig", "trace"] = "max-eig",
) -> ImplicitSparsePath:
    """Forward greedy path of ``(A, B)`` given as operators, without any ``p x p`` matrix.

    Parameters
    ----------
    A : operator, ndarray of shape (p,) or ndarray of shape (p, r)
        With ``B=None`` (sparse PCA): the covariance operator, e.g.
        ``CenteredGramOperator(X)``. With ``B`` (LDA): the between-class vector ``a`` (binary,
        ``A = a a^T``) or factor ``F`` (``A = F F^T``).
    B : operator or None
        The within-class operator with its ridge, e.g.
        ``CenteredGramOperator(X, y, alpha=alpha)``; it must be positive definite (a ridge
        ``alpha > 0`` when ``N < p``).
    max_k : int
        Number of forward steps.
    criterion : {'max-eig', 'trace'}
        Multiclass criterion.

    Returns
    -------
    ImplicitSparsePath
        Forward path of length ``max_k`` with ``weights(k)`` computed through the operator;
        ``info['kind']`` is ``'pca'`` or ``'lda'`` and ``info['alpha']`` the ridge of ``B``.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.stats import CenteredGramOperator
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((20, 50)); y = np.repeat([0, 1], 10); X[y == 1, 7] += 3
    >>> B = CenteredGramOperator(X, y, alpha=0.01)
    >>> int(implicit_greedy_path(B.class_means.between, B, max_k=3).order[0])
    7
    """
    check_options(criterion, "criterion", ("max-eig", "trace"), owner="implicit_greedy_path")
    if B is None:
        _check_operator(A, "A")
        max_k = check_int(max_k, "max_k", low=1, high=A.p, owner="implicit_greedy_path")
        path = fullrank_greedy_path(A, None, direction="forward", max_k=max_k)
        info = dict(path.info, kind="pca")
        # lambda_max(A_S) <= tr(A_S) <= sum of the k largest variances (certified, cheap)
        ub = _envelope(np.cumsum(np.sort(A.diag())[::-1])[:max_k])
        return ImplicitSparsePath(
            order=path.order, objective=path.objective, direction="forward", A=None, B=None,
            upper_bound=ub, info=info, operator=A,
        )
    F = np.asarray(A, dtype=np.float64)
    if F.ndim not in (1, 2):
        raise ValueError(f"A must be a vector (p,) or a factor (p, r) when B is given; got shape {F.shape}.")
    p = F.shape[0]
    _check_operator(B, "B", p)
    max_k = check_int(max_k, "max_k", low=1, high=p, owner="implicit_greedy_path")
    Fm = F[:, None] if F.ndim == 1 else F
    path = multiclass_greedy_path(Fm, B, direction="forward", criterion=criterion, max_k=max_k)
    alpha = float(getattr(B, "alpha", 0.0))
    info = dict(path.info, kind="lda", alpha=alpha)
    ub = None
    if alpha > 0:  # lambda_max(A_S, B_S) <= lambda_max(A_S) / lambda_min(B) <= sum_k |F_i|^2 / alpha
        rows = np.einsum("ij,ij->i", Fm, Fm)
        ub = _envelope(np.cumsum(np.sort(rows)[::-1])[:max_k] / alpha)
    return ImplicitSparsePath(
        order=path.order, objective=path.objective, direction="forward", A=F, B=None,
        upper_bound=ub, info=info, operator=B,
    )


def _envelope(ub):
    """Monotone envelope ``min_{k' >= k}`` plus the 1e-10 rounding slack of the certificates."""
    ub = np.minimum.accumulate(ub[::-1])[::-1]
    return ub * (1 + 1e-10) + 1e-10 * np.abs(ub).max()
