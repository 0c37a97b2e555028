"""Certified upper bounds on the best objective over *all* supports of each size ``k``.

``opt(k) = max_{|S| = k} f(S)`` with ``f(S) = lambda_max(A_S, B_S)`` (or the trace). Every bound
here is a theorem, never an estimate; the tests check them against brute force. Per ``k`` the
stored bound is the smallest of:

1. **Inclusion principle** (Moghaddam, Weiss and Avidan 2006, Theorem 1, Eq. (8)): ``opt(k) <= lambda_max(A, B)``; for
   the trace criterion the sum of the ``k`` largest generalized eigenvalues of ``(A, B)``.
2. **Norm bounds** (``A`` positive semidefinite): ``lambda_max(A_S, B_S) <= lambda_max(A_S) /
   lambda_min(B)`` (``lambda_min(B_SS) >= lambda_min(B)`` by inclusion) and ``lambda_max(A_S) <=``
   the sum of the ``k`` largest diagonal entries of ``A`` (``sum of the k largest a_i^2`` for a
   vector, of squared row norms for a factor) and ``<=`` the Gershgorin bound
   ``max_i (A_ii + sum of the k - 1 largest |A_ij|, j != i)``.
3. **Monotonicity**: ``opt(k) <= opt(k + 1)`` (interlacing), so ``ub(k) = min_{k' >= k} ub(k')``.
4. For ``B = I`` (sparse PCA) the **duality certificate** of d'Aspremont, Bach and El Ghaoui
   (JMLR 2008, section 6): with ``x`` the leading eigenvector of the path's support ``I``
   mapped to sample space (``a_i^T x = (A_{i,I} v) / sqrt(lambda)``) and a penalty ``rho``
   between ``max_{i not in I} (a_i^T x)^2`` and ``min_{i in I} (a_i^T x)^2``, the matrices
   ``Y_i = B_i x x^T B_i / x^T B_i x`` (``i in I``, ``B_i = a_i a_i^T - rho I``) and
   ``Y_i = rho (a_i^T a_i - rho) / (rho - (a_i^T x)^2) P a_i a_i^T P / |P a_i|^2``
   (``i not in I``, ``P = I - x x^T``) are dual feasible, so
   ``opt(k) <= rho k + lambda_max(sum_i Y_i)``. When ``lambda_max(sum_i Y_i) <= lambda - rho k``
   (checked by a Cholesky factorization of ``(lambda - rho k) I - sum_i Y_i``, computed as a
   ``p x p`` Gram matrix from ``A`` alone) the bound equals ``lambda``: the greedy support is
   *proved optimal*.

5. For a full ``A`` and ``'max-eig'``, the row bounds of
   :mod:`pixsel.spectral.bounds._spca_bounds` (Gershgorin, Frobenius and trace bounds from the
   ``k`` largest entries of each row; divided by ``lambda_min(B)`` for a general ``B``) and, for
   ``B = I``, the dual bound of d'Aspremont et al.'s semidefinite relaxation on the
   soft-thresholding family (``relaxation``): on pixel covariances these are within a few per
   cent of the greedy objective where the inclusion bound is several times it.

All bounds are inflated by a relative ``1e-10`` to absorb rounding; a bound below a computed
objective is a defect.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .._criteria import as_criterion, criterion_named
from .._forms import infer_form
from ._spca_bounds import generalize, row_bounds_path, spca_bounds_path

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray

    from .._path import SparsePath

__all__ = ["certify", "inclusion_bounds", "dual_certificate"]

_SLACK = 1e-10


def _topk_cumsum(values):
    return np.cumsum(np.sort(values)[::-1])


def _lambda_min(B):
    if B is None:
        return 1.0
    return float(sla.eigvalsh(B, subset_by_index=[0, 0])[0])


def inclusion_bounds(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    criterion: Literal["max-eig", "trace"] = "max-eig",
    form: Literal["vector", "factor", "full"] | None = None,
    spectrum: ArrayLike | None = None,
) -> NDArray:
    """Per-``k`` upper bounds (1)-(3) of the module docstring, shape ``(p,)``.

    Parameters
    ----------
    A : ndarray
        Vector, ``p x r`` factor or symmetric ``p x p`` matrix (``form`` says which; inferred
        when None).
    B : ndarray of shape (p, p) or None
    criterion : {'max-eig', 'trace'}
    spectrum : ndarray of shape (p,), optional
        The eigenvalues of a full ``A`` when the caller has them (``np.linalg.eigvalsh(A)``); with
        ``B`` None they are the generalized ones too, so ``A`` is not decomposed here.

    Examples
    --------
    >>> import numpy as np
    >>> inclusion_bounds(np.array([3.0, 1.0, 2.0])).round(6).tolist()
    [9.0, 13.0, 14.0]
    """
    criterion = as_criterion(criterion, owner="inclusion_bounds")
    A = np.asarray(A, dtype=np.float64)
    form = infer_form(A) if form is None else form
    p = A.shape[0]
    Bd = None if B is None else np.asarray(B, dtype=np.float64)
    if Bd is not None:
        try:
            np.linalg.cholesky(Bd)
        except np.linalg.LinAlgError:  # singular B: lambda_max(A, B) is unbounded, no finite bound
            return np.full(p, np.inf)
    F = A[:, None] if form == "vector" else A
    if form == "full":
        ev = np.linalg.eigvalsh(A) if spectrum is None else np.sort(np.asarray(spectrum, dtype=np.float64))
        gen = ev if Bd is None else sla.eigh(A, Bd, eigvals_only=True)  # B = I: the same spectrum, once
        psd = _psd_spectrum(ev, A)
        dA = np.diag(A)
    else:
        G = F.T @ (F if Bd is None else sla.solve(Bd, F, assume_a="pos"))
        gen = np.concatenate([np.zeros(p - min(p, G.shape[0])), np.linalg.eigvalsh((G + G.T) / 2)[-p:]])
        psd = True
        dA = np.einsum("ij,ij->i", F, F)
    gen = np.sort(gen)
    ub = np.empty(p)
    ub[:] = criterion.inclusion_bounds(gen)
    if psd:
        lmin = _lambda_min(Bd)
        if lmin > 0:
            ub = np.minimum(ub, _topk_cumsum(dA) / lmin)
            if form == "full" and criterion.largest_eigenvalue and p <= 4096:
                off = np.abs(A)
                np.fill_diagonal(off, 0.0)
                off = -np.sort(-off, axis=1)  # descending per row
                csum = np.concatenate([np.zeros((p, 1)), np.cumsum(off, axis=1)[:, :-1]], axis=1)
                gersh = (np.diag(A)[:, None] + csum).max(axis=0)
                ub = np.minimum(ub, gersh / lmin)
        if criterion.monotone or psd:
            ub = np.minimum.accumulate(ub[::-1])[::-1]
    return ub * (1 + _SLACK) + _SLACK * np.abs(ub).max()


def dual_certificate(A: ArrayLike, support: ArrayLike, *, n_rho: int = 3) -> tuple[float, bool]:
    """d'Aspremont-Bach-El Ghaoui certificate for sparse PCA (``B = I``) on one support.

    Parameters
    ----------
    A : ndarray of shape (p, p)
        Positive semidefinite covariance.
    support : array-like of int
    n_rho : int
        Number of penalties tried inside the admissible interval.

    Returns
    -------
    bound : float
        ``lambda_max(A_I) (1 + 1e-10)`` when the support is proved optimal, else ``inf``.
    proved : bool

    Examples
    --------
    >>> import numpy as np
    >>> A = np.diag([5.0, 1.0, 0.5]) + 0.1
    >>> dual_certificate(A, [0])[1]
    True
    """
    A = np.asarray(A, dtype=np.float64)
    p = A.shape[0]
    I = np.asarray(sorted(support), dtype=np.intp)
    t = len(I)
    # the leading eigenpair alone (LAPACK's dsyevr): a third of a full decomposition's time, which
    # over a whole path of p sizes is most of the certificate's
    theta, V = sla.eigh(A[np.ix_(I, I)], subset_by_index=[t - 1, t - 1], driver="evr", check_finite=False)
    lam, v = theta[-1], V[:, -1]
    if t == p:
        return lam * (1 + _SLACK), True
    if lam <= 0:
        return np.inf, False
    g = A[:, I] @ v / np.sqrt(lam)  # a_i^T x for every feature
    c = g * g
    inI = np.zeros(p, dtype=bool)
    inI[I] = True
    lo, hi = c[~inI].max(), c[inI].min()
    if not lo < hi:
        return np.inf, False
    dA = np.diag(A)
    for f in np.linspace(0, 1, n_rho + 2)[1:-1]:
        rho = lo + f * (hi - lo)
        alpha = np.zeros(p)
        beta = np.zeros(p)
        sq = np.sqrt(c[inI] - rho)
        alpha[inI] = g[inI] / sq
        beta[inI] = -rho / sq
        out = ~inI & (dA > rho)
        resid = dA[out] - c[out]
        with np.errstate(divide="ignore", invalid="ignore"):
            mu = rho * (dA[out] - rho) / (rho - c[out])
            al = np.where(resid > 0, np.sqrt(mu / resid), 0.0)
        alpha[out] = al
        beta[out] = -al * g[out]
        keep = (alpha != 0) | (beta != 0)
        al, be, gk = alpha[keep], beta[keep], g[keep]
        ag = al * gk
        sigma = lam - rho * t
        if sigma <= 0:
            continue
        # sigma I - Gram is positive definite only if its diagonal is: read it before forming the
        # Gram matrix (on images most penalties fail here)
        shift = sigma * (1 + _SLACK)
        if not (shift - (al * al * dA[keep] + 2 * ag * be + be * be) > 0).all():
            continue
        if _rayleigh_exceeds(A, keep, al, ag, be, shift):
            continue
        Gram = al[:, None] * A[np.ix_(keep, keep)] * al[None, :]
        Gram += np.outer(ag, be) + np.outer(be, ag) + np.outer(be, be)
        Mtx = -Gram
        Mtx[np.diag_indices_from(Mtx)] += shift
        try:
            np.linalg.cholesky(Mtx)
        except np.linalg.LinAlgError:
            continue
        return lam + _SLACK * sigma + _SLACK * abs(lam), True
    return np.inf, False


def _rayleigh_exceeds(A, keep, al, ag, be, shift, n_iter=6):
    """Whether a Rayleigh quotient of ``Gram = D A_KK D + ag be^T + be ag^T + be be^T``
    (``D = diag(al)``, ``K = keep``) exceeds ``shift``, from a few power steps on the positive
    semi-definite Gram matrix without forming it (``O(p^2)`` a step): then ``shift I - Gram`` is not
    positive definite, and its factorization (``O(p^3)``) can be skipped. A quotient never exceeds
    the largest eigenvalue, so a True answer is certain; False decides nothing."""
    x = np.ones(len(al)) / np.sqrt(len(al))
    full = np.zeros(A.shape[0])
    for _ in range(n_iter):
        full[keep] = al * x
        y = al * (A @ full)[keep] + ag * (be @ x) + be * (ag @ x) + be * (be @ x)
        q = float(x @ y)
        if q > shift:
            return True
        norm = np.linalg.norm(y)
        if not norm > 0:
            return False
        x = y / norm
    return False


def _psd_spectrum(ev, A):
    """Whether the spectrum ``ev`` (ascending) of ``A`` is that of a positive semidefinite matrix,
    to rounding."""
    return bool(ev[0] >= -1e-12 * max(np.abs(A).max(), 1e-300))


def _row_and_relaxation(A, B, n, relaxation, max_features, psd=None):
    """Bound (5) of the module docstring for ``k = 1..n`` (imported lazily: ``spectral.exact``
    imports this module's package back); ``psd``: whether ``A`` is positive semidefinite, when
    the caller knows."""

    A = np.asarray(A, dtype=np.float64)
    A = (A + A.T) / 2
    p = A.shape[0]
    identity = B is None or np.array_equal(np.asarray(B), np.eye(p))
    if identity:
        relax = relaxation is True or (relaxation == "auto" and p <= max_features)
        return spca_bounds_path(A, n, relaxation=relax, psd=psd)
    try:
        wB = sla.eigvalsh(np.asarray(B, dtype=np.float64))
    except np.linalg.LinAlgError:
        return np.full(n, np.inf)
    if not wB[0] > 0:
        return np.full(n, np.inf)
    rb = row_bounds_path(A, n, psd=psd)
    return np.array([generalize(b, wB[0], wB[-1]) for b in rb])


def certify(
    path: SparsePath,
    *,
    dual: Literal["auto", True, False] = "auto",
    max_dual_features: int = 2048,
    relaxation: Literal["auto", True, False] = "auto",
    max_relaxation_features: int = 512,
) -> SparsePath:
    """Store per-``k`` certified upper bounds on ``path.upper_bound`` and return the path.

    Parameters
    ----------
    path : SparsePath
        From :func:`pixsel.spectral.greedy_path` (uses ``path.A``, ``path.B``, ``path.info``).
    dual : {'auto', True, False}
        Run the sparse PCA duality certificate on every support of the path (``B = I`` and a
        full positive semidefinite ``A`` only; ``'auto'`` when ``p <= max_dual_features``).
    max_dual_features : int
    relaxation : {'auto', True, False}
        Add the semidefinite-relaxation dual bounds (5) for ``B = I``, full ``A`` and
        ``'max-eig'`` (``'auto'``: when ``p <= max_relaxation_features``; they cost about 50
        certified ``lambda_max`` of ``p x p`` matrices). The row bounds of (5) are always added.
    max_relaxation_features : int

    Returns
    -------
    SparsePath
        The same object, with ``upper_bound`` (length ``len(path.objective)``) and
        ``info['proved_optimal']`` (bool per ``k``; ``None`` without the dual certificate).

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925
    * A. d'Aspremont, F. Bach and L. El Ghaoui, "Optimal solutions for sparse principal component
      analysis", Journal of Machine Learning Research 9, 2008.
    """
    A = path.A
    if A is None:
        return path
    criterion = criterion_named(path.info.get("criterion", "max-eig"))
    form = path.info.get("form") or infer_form(A)
    B = path.B
    if B is not None and form == "vector" and np.allclose(B, np.eye(B.shape[0])):
        B = None
    # a full A's spectrum, once: the inclusion bounds and the row bounds' semidefiniteness read it
    Af = np.asarray(A, dtype=np.float64)
    spectrum = np.linalg.eigvalsh(Af) if form == "full" else None
    ub = inclusion_bounds(A, B, criterion=criterion, form=form, spectrum=spectrum)[: len(path.objective)]
    proved = None
    p = np.asarray(A).shape[0]
    if form == "full" and criterion.largest_eigenvalue:
        psd = _psd_spectrum(spectrum, Af)
        ub = np.minimum(ub, _row_and_relaxation(A, B, len(path.objective), relaxation, max_relaxation_features,
                                                psd=psd))
    use_dual = dual is True or (dual == "auto" and p <= max_dual_features)
    if use_dual and form == "full" and B is None and criterion.largest_eigenvalue:
        proved = np.zeros(len(path.objective), dtype=bool)
        for k in range(1, len(path.objective) + 1):
            if path.direction == "backward" or k <= path.n_features:
                bound, ok = dual_certificate(A, path.support(k))
                if ok:
                    proved[k - 1] = True
                    ub[k - 1] = min(ub[k - 1], bound)
        ub = np.minimum.accumulate(ub[::-1])[::-1]
    path.upper_bound = ub
    path.info = dict(path.info, proved_optimal=proved)
    return path
