"""Image-scale forward selection: greedy paths from the data ``X`` without any ``p x p`` matrix.

When ``X`` has ``N`` rows and ``p`` columns with ``N << p`` (faces or textures at full
resolution, ``p = 16384`` and more), the ``p x p`` scatter matrices cost ``8 p^2`` bytes and
``N p^2`` flops, while a forward path to ``k`` needs only ``k`` of their columns. Here

* ``B = Xc^T Xc / N + alpha I`` with ``Xc`` the within-class centred data (LDA), and
* ``A = Xc^T Xc / N`` with ``Xc`` the centred data (sparse PCA, ``B = I``)

are used through ``X``: column ``j`` is ``X^T (X[:, j] - m_{y, j}) / N`` (the class-centred
column has zero class sums, so the means never multiply a ``p``-vector), one ``O(N p)``
product per step; the diagonal costs one pass. ``X`` is never copied or centred in memory
(float32 data stay float32). The forward kernels are the left-looking ones of
:mod:`~pixsel.spectral._multiclass` (binary ``r = 1`` and multiclass LDA) and
:mod:`~pixsel.spectral._fullrank` (sparse PCA). Time ``O(N p k + p k^2)`` (LDA) and memory
``O(N p)`` for ``X`` plus ``O(p k)`` for the path state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from .._validation import as_float_array, check_int, check_options, check_real
from ._fullrank import fullrank_greedy_path
from ._multiclass import multiclass_greedy_path
from ._path import SparsePath

__all__ = ["implicit_greedy_path", "use_implicit", "CenteredGramOperator"]


class CenteredGramOperator:
    """``Xc^T Xc / N + alpha I`` with ``Xc = X - means[codes]``, used through ``X`` only."""

    def __init__(self, X, codes, means, alpha=0.0):
        self.X = X
        self.codes = codes
        self.means = means  # (C, p) float64
        self.n, self.p = X.shape
        self.alpha = float(alpha)

    def _centered_col(self, j):
        return X_col(self.X, j) - self.means[self.codes, j]

    def diag(self):
        sq = np.einsum("ij,ij->j", self.X, self.X, dtype=np.float64)
        counts = np.bincount(self.codes, minlength=len(self.means)).astype(np.float64)
        sq -= counts @ (self.means * self.means)
        return np.maximum(sq, 0.0) / self.n + self.alpha

    def column(self, j):
        xc = self._centered_col(j).astype(self.X.dtype, copy=False)
        col = (self.X.T @ xc).astype(np.float64) / self.n
        col[j] += self.alpha
        return col

    def submatrix(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        XS = self.X[:, idx].astype(np.float64) - self.means[self.codes][:, idx]
        return XS.T @ XS / self.n + self.alpha * np.eye(len(idx))


def X_col(X, j):
    return np.asarray(X[:, j], dtype=np.float64)


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
        v = vecs[:, -1]
        z[S] = v * np.sign(v[np.argmax(np.abs(v))])
        return z


def _class_means(X, y):
    classes, codes = np.unique(y, return_inverse=True)
    C = len(classes)
    counts = np.bincount(codes, minlength=C).astype(np.float64)
    onehot = np.zeros((C, X.shape[0]), dtype=X.dtype)
    onehot[codes, np.arange(X.shape[0])] = 1
    sums = (onehot @ X).astype(np.float64)  # one O(C N p) product, no copy of X
    return classes, codes, sums / counts[:, None], counts


def implicit_greedy_path(X, y=None, *, max_k, alpha=None, criterion="max-eig"):
    """Forward greedy path computed from ``X`` without forming a ``p x p`` matrix.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (float32 kept; integers converted to float64). Never copied or modified.
    y : array-like of shape (n_samples,) or None
        Class labels: binary (``A = a a^T``, ``a = m_1 - m_0``) or multiclass LDA
        (``A = M M^T``, the between-class covariance); ``None`` for sparse PCA
        (``A = Xc^T Xc / N``, ``B = I``).
    max_k : int
        Number of forward steps.
    alpha : float or None
        Ridge added to the within-class covariance (LDA only). ``None``: ``1e-3`` times the mean
        within-class variance (recorded in ``info['alpha']``); it must be positive when
        ``N < p`` because the within-class covariance is then singular.
    criterion : {'max-eig', 'trace'}
        Multiclass criterion.

    Returns
    -------
    ImplicitSparsePath
        Forward path of length ``max_k`` with ``weights(k)`` computed from ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((20, 50)); y = np.repeat([0, 1], 10); X[y == 1, 7] += 3
    >>> int(implicit_greedy_path(X, y, max_k=3).order[0])
    7
    """
    X = as_float_array(X, "X")
    n, p = X.shape
    max_k = check_int(max_k, "max_k", low=1, high=p, owner="implicit_greedy_path")
    check_options(criterion, "criterion", ("max-eig", "trace"), owner="implicit_greedy_path")
    if y is None:
        codes = np.zeros(n, dtype=np.intp)
        means = X.mean(axis=0, dtype=np.float64)[None, :]
        op = CenteredGramOperator(X, codes, means, 0.0)
        path = fullrank_greedy_path(op, None, direction="forward", max_k=max_k)
        info = dict(path.info, kind="pca")
        # lambda_max(A_S) <= tr(A_S) <= sum of the k largest variances (certified, cheap)
        ub = _envelope(np.cumsum(np.sort(op.diag())[::-1])[:max_k])
        return ImplicitSparsePath(
            order=path.order, objective=path.objective, direction="forward", A=None, B=None,
            upper_bound=ub, info=info, operator=op,
        )
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},) to match X; got {y.shape}.")
    classes, codes, means, counts = _class_means(X, y)
    if len(classes) < 2:
        raise ValueError("y has a single class; LDA needs at least two (pass y=None for sparse PCA).")
    op = CenteredGramOperator(X, codes, means, 0.0)
    if alpha is None:
        alpha = 1e-3 * float(op.diag().mean())
    else:
        alpha = check_real(alpha, "alpha", low=0, owner="implicit_greedy_path")
    op.alpha = alpha
    if len(classes) == 2:
        F = means[1] - means[0]
        path = multiclass_greedy_path(F[:, None], op, direction="forward", criterion=criterion, max_k=max_k)
    else:
        pi = counts / n
        mean = pi @ means
        D = (means - mean).T * np.sqrt(pi)
        u = np.sqrt(pi)[:, None]
        Q, _ = np.linalg.qr(np.hstack([u, np.eye(len(pi))[:, :-1]]))
        F = D @ Q[:, 1:]
        path = multiclass_greedy_path(F, op, direction="forward", criterion=criterion, max_k=max_k)
    info = dict(path.info, kind="lda", alpha=alpha, classes=classes)
    ub = None
    if alpha > 0:  # lambda_max(A_S, B_S) <= lambda_max(A_S) / lambda_min(B) <= sum_k |F_i|^2 / alpha
        rows = np.einsum("ij,ij->i", F.reshape(p, -1), F.reshape(p, -1))
        ub = _envelope(np.cumsum(np.sort(rows)[::-1])[:max_k] / alpha)
    return ImplicitSparsePath(
        order=path.order, objective=path.objective, direction="forward", A=F, B=None, upper_bound=ub,
        info=info, operator=op,
    )


def _envelope(ub):
    """Monotone envelope ``min_{k' >= k}`` plus the 1e-10 rounding slack of the certificates."""
    ub = np.minimum.accumulate(ub[::-1])[::-1]
    return ub * (1 + 1e-10) + 1e-10 * np.abs(ub).max()
