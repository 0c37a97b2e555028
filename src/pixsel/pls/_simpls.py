"""SIMPLS (de Jong, 1993): partial least squares for one or several responses.

SIMPLS works on the cross-covariance ``S = X^T Y`` of centred data. Component ``a`` takes as
weight ``r_a`` the dominant left singular vector of the current ``S``, scales it so that the
score ``t_a = X r_a`` has unit norm, and deflates ``S`` by the orthonormalized loading
``v_a`` (``S <- S - v_a v_a^T S``). The weights ``R`` apply to the *original* centred ``X``, the
scores are orthonormal (``T^T T = I``) and the regression coefficients are ``B = R Q^T`` with
``Q = Y^T T``. For one response SIMPLS and NIPALS (scikit-learn's ``PLSRegression``) give the
same model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._array_api import device_of, get_namespace, is_numpy, sign_flip

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["SIMPLSResult", "simpls"]

# A component is "exhausted" when the deflated cross-covariance (or the score it gives) is this
# small relative to the first one: the data support no further PLS direction.
_RTOL_EXHAUSTED = 1e-9


@dataclass(frozen=True)
class SIMPLSResult:
    """A fitted SIMPLS model on centred data.

    Attributes
    ----------
    x_rotations : ndarray of shape (n_features, n_components)
        Weights ``R``: scores are ``T = (X - x_mean) @ R``.
    x_scores : ndarray of shape (n_samples, n_components)
        Orthonormal scores ``T`` of the training data.
    x_loadings : ndarray of shape (n_features, n_components)
        ``P = Xc^T T``.
    y_loadings : ndarray of shape (n_targets, n_components)
        ``Q = Yc^T T``.
    coef : ndarray of shape (n_features, n_targets)
        ``B = R Q^T``; predictions are ``(X - x_mean) @ coef + y_mean``.
    x_mean, y_mean : ndarray
        Column means removed before fitting.
    n_components : int
        Number of components extracted (fewer than requested only when ``strict=False`` and the
        data support no more).
    """

    x_rotations: np.ndarray
    x_scores: np.ndarray
    x_loadings: np.ndarray
    y_loadings: np.ndarray
    coef: np.ndarray
    x_mean: np.ndarray
    y_mean: np.ndarray
    n_components: int

    def predict(self, X: ArrayLike) -> NDArray:
        """Predictions ``(X - x_mean) @ coef + y_mean`` of shape (n_samples, n_targets)."""
        return (np.asarray(X, dtype=np.float64) - self.x_mean) @ self.coef + self.y_mean


def _check_selected_fit(A, R, want, n_components, owner):
    """The one check of a sparse PLS fit on the selected features ``A`` (NumPy and array API)."""
    if len(A) == 0 or R is None:
        raise ValueError(f"{owner}: no feature was selected; X^T Y is zero (Y is uncorrelated with X).")
    if R.shape[1] < want:
        raise ValueError(
            f"{owner}: n_components={n_components} exceeds the number of PLS components the "
            f"selected features support ({R.shape[1]}: X restricted to them has too low a rank "
            f"for Y). Lower n_components to at most {max(R.shape[1], 1)}."
        )


def _norm(xp, a):
    """The Euclidean (Frobenius) norm, a float: NumPy's BLAS ``nrm2`` without a temporary (the
    standard's ``vector_norm`` squares a copy there), ``vector_norm`` elsewhere."""
    return float(np.linalg.norm(a)) if is_numpy(xp) else float(xp.linalg.vector_norm(a))


def _simpls(Xc, Yc, n_components, *, strict=True, xp=None):
    """Unchecked SIMPLS on centred ``Xc`` (N x p) and ``Yc`` (N x q) of any array-API library.

    One implementation for NumPy (float64, as :func:`simpls` gives it) and the arrays of another
    library on their device (in their float dtype). Returns ``(R, T, P, Q)`` with
    ``a <= n_components`` columns, arrays of ``Xc``'s library. With ``strict`` a ``ValueError``
    is raised when fewer than ``n_components`` components exist.
    """
    xp = get_namespace(Xc)[0] if xp is None else xp
    N, p = Xc.shape
    q = Yc.shape[1]
    S = Xc.T @ Yc
    s0 = _norm(xp, S)
    x0 = _norm(xp, Xc)
    cols = {"R": [], "T": [], "P": [], "Q": [], "V": []}
    a = 0  # components extracted so far
    while a < n_components:
        if s0 == 0.0 or _norm(xp, S) <= _RTOL_EXHAUSTED * s0:
            break
        # the dominant left singular vector of S, largest |entry| positive: for several
        # responses the eigenvector of the small q x q matrix S^T S, mapped back (cheap, p >> q)
        r = S[:, 0] if q == 1 else S @ xp.linalg.eigh(S.T @ S)[1][:, -1]
        r = sign_flip(xp, r)
        t = Xc @ r
        tn = _norm(xp, t)
        if tn <= _RTOL_EXHAUSTED * x0 * _norm(xp, r):
            break
        t, r = t / tn, r / tn
        pa = Xc.T @ t
        v = pa
        if a:
            # twice-is-enough Gram-Schmidt against the previous loadings basis
            V = xp.stack(cols["V"], axis=1)
            v = v - V @ (V.T @ v)
            v = v - V @ (V.T @ v)
        v = v / _norm(xp, v)
        S = S - v[:, None] * (v @ S)[None, :]
        for name, val in zip("RTPQV", (r, t, pa, Yc.T @ t, v)):
            cols[name].append(val)
        a += 1
    if a < n_components and strict:
        raise ValueError(
            f"n_components={n_components} exceeds the number of PLS components the data "
            f"support ({a}: the cross-covariance X^T Y is exhausted after {a} component(s), "
            "for example because X has low rank or Y is constant). Lower n_components to at "
            f"most {max(a, 1)}."
        )
    shapes = {"R": p, "T": N, "P": p, "Q": q}
    return tuple(xp.stack(cols[k], axis=1) if a else xp.zeros((shapes[k], 0), dtype=Xc.dtype, device=device_of(Xc))
                 for k in "RTPQ")


def _check_xy(xp, X, Y, owner=None):
    """``X`` (2-D) and ``Y`` (1-D made a column), arrays of the namespace ``xp``, checked for shape
    and finiteness (the messages name ``owner``)."""
    who = f"{owner}: " if owner else ""
    if Y.ndim == 1:
        Y = Y[:, None]
    if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0]:
        raise ValueError(
            f"{who}X must be 2-D and Y 1-D or 2-D with the same number of rows; got shapes "
            f"{tuple(X.shape)} and {tuple(Y.shape)}."
        )
    if not (bool(xp.all(xp.isfinite(X))) and bool(xp.all(xp.isfinite(Y)))):
        raise ValueError(f"{who}X and Y must not contain NaN or infinite values; impute or drop them.")
    return X, Y


def _as_xy(X, Y, owner=None):
    """Float64 copies of ``X`` (2-D) and ``Y`` (1-D made a column), checked by :func:`_check_xy`."""
    return _check_xy(np, np.array(X, dtype=np.float64), np.array(Y, dtype=np.float64), owner)


def _check_components(n_components, N, p, owner):
    """``n_components`` as an int, refused unless in ``[1, min(N - 1, p)]`` (the message names ``owner``):
    the one check of SIMPLS and of the sparse PLS entries built on it."""
    hi = min(N - 1, p)
    if isinstance(n_components, bool) or not isinstance(n_components, (int, np.integer)) or not (
        1 <= n_components <= hi
    ):
        raise ValueError(
            f"The 'n_components' parameter of {owner} must be an int in the range [1, {hi}] "
            f"(at most min(n_samples - 1, n_features)). Got {n_components!r} instead."
        )
    return int(n_components)


def simpls(X: ArrayLike, Y: ArrayLike, n_components: int, *, strict: bool = True) -> SIMPLSResult:
    """Fit SIMPLS (de Jong, 1993) to ``X`` and one or several responses ``Y``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Predictors; centred internally (computations in float64).
    Y : array-like of shape (n_samples,) or (n_samples, n_targets)
        Responses; centred internally.
    n_components : int
        Number of latent components, ``1 <= n_components <= min(n_samples - 1, n_features)``.
    strict : bool, default=True
        Raise ``ValueError`` when the data support fewer components; otherwise return the
        components that exist.

    Returns
    -------
    SIMPLSResult

    References
    ----------
    * S. de Jong, "SIMPLS: an alternative approach to partial least squares regression",
      Chemometrics and Intelligent Laboratory Systems 18(3), 1993.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 6)); y = X[:, 0] - 2 * X[:, 3]
    >>> fit = simpls(X, y, 2)
    >>> np.allclose(fit.x_scores.T @ fit.x_scores, np.eye(2))
    True
    >>> fit.coef.shape
    (6, 1)
    """
    X, Y = _as_xy(X, Y)
    N, p = X.shape
    if N < 2:
        raise ValueError(f"X has {N} sample(s); SIMPLS needs at least 2 samples.")
    K = _check_components(n_components, N, p, "simpls")
    x_mean, y_mean = X.mean(axis=0), Y.mean(axis=0)
    X -= x_mean
    Y -= y_mean
    R, T, P, Q = _simpls(X, Y, K, strict=strict)
    return SIMPLSResult(
        x_rotations=R,
        x_scores=T,
        x_loadings=P,
        y_loadings=Q,
        coef=R @ Q.T,
        x_mean=x_mean,
        y_mean=y_mean,
        n_components=R.shape[1],
    )
