"""The objectives of the sparse generalized eigenproblem, one class each; the searches never ask for a name.

Every search in :mod:`pixsel.spectral` (greedy paths, thresholding, the exact search, the
bounds) maximizes a function ``f(S)`` of the pair ``(A_SS, B_SS)`` over supports ``S``. The
function is an object of a :class:`Criterion` subclass; a search receives the object and asks it
what it needs:

* :meth:`Criterion.value`: ``f(S)`` from scratch (the oracle every incremental kernel is tested
  against);
* :meth:`Criterion.of_eigenvalues`, :meth:`Criterion.of_matrix`, :meth:`Criterion.of_stack`: the
  objective from the generalized eigenvalues of the support, or from the whitened ``r x r``
  matrix ``G_S = M_S^T B_SS^{-1} M_S`` (one, or stacked) that the factor-form kernels update;
* :meth:`Criterion.gains` and :meth:`Criterion.losses`: the objective after adding (removing)
  each candidate, given the current factorization of the factor form;
* :meth:`Criterion.inclusion_bounds`: its per-``k`` upper bounds from the eigenvalues of the whole
  pair (the inclusion principle);
* the properties :attr:`Criterion.additive` (the objective is the sum of the generalized
  eigenvalues, so it splits over a Schur complement: ``f(F + T) = f(F) + f'(T)``, and a candidate's
  gain is closed form), :attr:`Criterion.largest_eigenvalue` (the objective is
  ``lambda_max(A_SS, B_SS)``, so the eigenvalue bounds of sparse PCA apply) and
  :attr:`Criterion.monotone` (never smaller on a larger support, whatever the sign of ``A``).

The public functions take the strings ``'max-eig'`` and ``'trace'`` and turn them into objects
with :func:`as_criterion`, the one place where the allowed names are spelled out. The classes:

==========================  ===============  ==========================================================
class                       name             objective
==========================  ===============  ==========================================================
:class:`MaxEig`             'max-eig'        ``lambda_max(A_SS, B_SS)`` (multiclass LDA, generalized
                                             pairs)
:class:`Trace`              'trace'          ``tr(B_SS^{-1} A_SS)`` (multiclass LDA, the sum of the
                                             discriminant eigenvalues)
:class:`TwoClassLDA`        'two-class'      ``a_S^T B_SS^{-1} a_S`` (``A = a a^T``: both of the above)
:class:`SparsePCA`          'spca'           ``lambda_max(C_SS)`` for a covariance ``C`` (``B = I``)
:class:`ColumnSubset`       'column-subset'  ``tr(C_{:,S} C_SS^{-1} C_{S,:})``: the variance of all the
                                             features that the chosen ones explain (the trace of the
                                             pair ``(C C^T, C)``, with ``C`` itself the factor)
:class:`Correlation`        'correlation'    the trace with ``B`` the total covariance ``B + A``: the
                                             sum of the squared canonical correlations between the
                                             features and the class indicators (FastCan's criterion)
==========================  ===============  ==========================================================

:meth:`Criterion.pair` maps a criterion's own statistics to the ``(A, B, form)`` the kernels
search, so :class:`ColumnSubset` and :class:`Correlation` run through the greedy and exact
machinery of the trace. The kernels search the pair they are given and never call :meth:`pair`:
its caller (an estimator, a test) maps the statistics first.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .._routes import compiled_enabled, note_compiled

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "CRITERIA",
    "ColumnSubset",
    "Correlation",
    "Criterion",
    "MaxEig",
    "SparsePCA",
    "Trace",
    "TwoClassLDA",
    "as_criterion",
    "criterion_named",
    "spectral_criterion",
]


#: Every criterion class by its name (filled as the classes are defined), to read a result's
#: ``info['criterion']`` back into an object (:func:`criterion_named`).
_REGISTRY: dict[str, type] = {}


def _as_pair(A, B):
    A = np.asarray(A, dtype=np.float64)
    B = np.eye(A.shape[0]) if B is None else np.asarray(B, dtype=np.float64)
    return A, B


class Criterion:
    """An objective ``f(S)`` of the pair ``(A_SS, B_SS)``; subclass it to add one.

    A subclass sets :attr:`name` and its properties and implements :meth:`of_eigenvalues` (and,
    for a faster search, :meth:`gains` / :meth:`losses`); the rest follows.
    """

    #: The name that :func:`as_criterion` maps to this class and that results report.
    name: str = ""
    #: The objective is the sum of the generalized eigenvalues of ``(A_SS, B_SS)``: it splits over
    #: a Schur complement (forced features, the exact search's additive bounds) and a candidate's
    #: gain ``||u_j||^2 / d_j`` is closed form.
    additive: bool = False
    #: The objective is the largest generalized eigenvalue: the eigenvalue bounds (Gershgorin rows,
    #: the relaxations, the sparse PCA duality certificate) apply.
    largest_eigenvalue: bool = False
    #: ``f(S) <= f(S + j)`` for every symmetric ``A`` (Cauchy interlacing); an additive objective
    #: needs a positive semi-definite ``A`` for that.
    monotone: bool = False
    #: :meth:`pair` forms ``p x p`` matrices from the statistics (a total covariance, ``C C^T``),
    #: so the pair exists only as dense matrices: the implicit route, which reaches ``B`` through
    #: the data without forming it, cannot search this criterion (unless
    #: :attr:`implicit_on_total` says how).
    needs_dense_pair: bool = False
    #: For labelled data: the name of the criterion that, searched on the pair ``(A, T)`` with
    #: ``T = B + A`` the covariance of the data about its overall mean, is this one. The implicit
    #: route then reaches ``T`` through the data as it reaches ``B``. None: no such criterion.
    implicit_on_total: str | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            _REGISTRY[cls.name] = cls

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self))

    # -- the objective from its spectrum -------------------------------------------------------
    def of_eigenvalues(self, vals, xp=np):
        """The objective from the generalized eigenvalues ``vals`` of the support, ascending."""
        raise NotImplementedError

    def of_matrix(self, G) -> float:
        """The objective of a small symmetric ``G`` (the whitened ``M_S^T B_SS^{-1} M_S``)."""
        return float(self.of_eigenvalues(np.linalg.eigvalsh(G)))

    def of_stack(self, K):
        """:meth:`of_matrix` of stacked symmetric matrices ``K`` of shape ``(..., r, r)``."""
        return self.of_eigenvalues(np.moveaxis(np.linalg.eigvalsh(K), -1, 0))

    # -- from scratch ---------------------------------------------------------------------------
    def value(self, A: ArrayLike, B: ArrayLike | None, support: ArrayLike) -> float:
        """``f(S)`` of the pair by a direct computation (0 on the empty support).

        ``A`` is a vector ``a`` (``A = a a^T``), a ``p x r`` factor ``M`` (``A = M M^T``) or a
        symmetric ``p x p`` matrix; ``B`` is symmetric positive definite (``None``: the identity).
        """
        A, B = _as_pair(A, B)
        S = np.asarray(support, dtype=np.intp)
        if len(S) == 0:
            return 0.0
        BSS = B[np.ix_(S, S)]
        if A.ndim == 1:
            aS = A[S]
            return float(aS @ sla.solve(BSS, aS, assume_a="pos"))
        ASS = A[np.ix_(S, S)] if A.shape[1] == A.shape[0] else A[S] @ A[S].T
        return float(self.of_eigenvalues(sla.eigh(ASS, BSS, eigvals_only=True)))

    def pair(self, A, B=None):
        """The ``(A, B, form)`` the kernels search for this criterion's statistics.

        ``form`` is ``None`` where the kernels infer it from ``A``.
        """
        return A, B, None

    # -- the factor form's incremental steps ------------------------------------------------------
    def gains(self, Uc, dc, G, f, *, method="auto"):
        """The objective after adding each candidate to the support of the factor form.

        ``G`` is ``M_S^T B_SS^{-1} M_S`` (``r x r``), ``f`` its objective; a candidate ``j`` adds
        ``u_j u_j^T / d_j`` to ``G``, with ``u_j`` the row of ``Uc`` (its whitened factor row,
        ``M_j - M_S^T B_SS^{-1} B_Sj``) and ``d_j`` the entry of ``dc`` (its Schur pivot). Returns
        the values (``-inf`` for a candidate screened out by a bound: it cannot win) and the
        number of candidates that needed an eigenvalue solve.
        """
        Us = Uc / np.sqrt(dc)[:, None]
        stack = G[None, :, :] + Us[:, :, None] * Us[:, None, :]
        return self.of_stack(stack), len(Uc)

    def losses(self, Wa, Pd, G):
        """The objective after removing each feature from the support of the factor form.

        ``G`` is ``M_S^T B_SS^{-1} M_S``; removing ``j`` subtracts ``w_j w_j^T / P_jj`` from it,
        with ``w_j`` the row of ``Wa`` (of ``B_SS^{-1} M_S``) and ``P_jj`` the entry of ``Pd``
        (the diagonal of ``B_SS^{-1}``).
        """
        Ws = Wa / np.sqrt(Pd)[:, None]
        stack = G[None, :, :] - Ws[:, :, None] * Ws[:, None, :]
        return self.of_stack(stack)

    # -- bounds ----------------------------------------------------------------------------------
    def inclusion_bounds(self, gen):
        """Per ``k = 1..p``, the bound on ``f`` over all supports of size ``k`` from the ascending
        generalized eigenvalues ``gen`` of the whole pair (the inclusion principle)."""
        raise NotImplementedError


class MaxEig(Criterion):
    """``lambda_max(A_SS, B_SS)``: the generalized Rayleigh quotient of the best direction on ``S``."""

    name = "max-eig"
    largest_eigenvalue = True
    monotone = True

    def of_eigenvalues(self, vals, xp=np):
        return vals[-1]

    def of_stack(self, K):
        return np.linalg.eigvalsh(K)[..., -1]

    def of_matrix(self, G) -> float:
        return float(np.linalg.eigvalsh(G)[-1])

    def gains(self, Uc, dc, G, f, *, method="auto"):
        r = G.shape[0]
        if r == 1:
            return G[0, 0] + Uc[:, 0] ** 2 / dc, 0
        theta, V = np.linalg.eigh(G)
        if method == "auto" and compiled_enabled():  # else the batched eigh (a small problem's NumPy route)
            note_compiled()
            from .greedy._multiclass_jit import top_eig_added  # Numba: imported on the first multiclass step

            vals, n_solved = top_eig_added(theta, np.ascontiguousarray(Uc @ V), dc, -np.inf)
            return vals, int(n_solved)
        # screen by the two-sided bounds, then one batched eigh of the survivors
        lower = theta[-1] + (Uc @ V[:, -1]) ** 2 / dc
        upper = theta[-1] + np.einsum("ij,ij->i", Uc, Uc) / dc
        scale = max(abs(theta[-1]), float(upper.max()), np.finfo(float).tiny)
        surv = upper >= lower.max() - 1e-12 * scale
        Us = Uc[surv] / np.sqrt(dc[surv])[:, None]
        stack = G[None, :, :] + Us[:, :, None] * Us[:, None, :]
        vals = np.full(len(Uc), -np.inf)
        vals[surv] = np.linalg.eigvalsh(stack)[:, -1]
        return vals, int(surv.sum())

    def losses(self, Wa, Pd, G):
        if G.shape[0] == 1:
            return G[0, 0] - Wa[:, 0] ** 2 / Pd
        return super().losses(Wa, Pd, G)

    def inclusion_bounds(self, gen):
        return np.full(len(gen), gen[-1])


class Trace(Criterion):
    """``tr(B_SS^{-1} A_SS)``: the sum of the generalized eigenvalues on ``S``."""

    name = "trace"
    additive = True

    def of_eigenvalues(self, vals, xp=np):
        return xp.sum(vals, axis=0) if xp is not np else vals.sum(axis=0)

    def of_stack(self, K):
        return np.trace(K, axis1=-2, axis2=-1)

    def of_matrix(self, G) -> float:
        return float(np.trace(G))

    def value(self, A, B, support):
        A, B = _as_pair(A, B)
        S = np.asarray(support, dtype=np.intp)
        if len(S) == 0:
            return 0.0
        if A.ndim == 1:
            return super().value(A, B, S)
        BSS = B[np.ix_(S, S)]
        ASS = A[np.ix_(S, S)] if A.shape[1] == A.shape[0] else A[S] @ A[S].T
        return float(np.trace(sla.cho_solve(sla.cho_factor(BSS), ASS)))

    def gains(self, Uc, dc, G, f, *, method="auto"):
        return f + np.einsum("ij,ij->i", Uc, Uc) / dc, 0

    def losses(self, Wa, Pd, G):
        return np.trace(G) - np.einsum("ij,ij->i", Wa, Wa) / Pd

    def inclusion_bounds(self, gen):
        return np.cumsum(gen[::-1])  # the inclusion principle summed over the k largest


class TwoClassLDA(Trace):
    """``a_S^T B_SS^{-1} a_S`` for ``A = a a^T`` (two-class LDA): the trace and the largest
    eigenvalue coincide, so every property of both holds."""

    name = "two-class"
    largest_eigenvalue = True
    monotone = True

    def value(self, A, B, support):
        A = np.asarray(A, dtype=np.float64)
        if A.ndim == 2 and A.shape[1] == 1:
            A = A[:, 0]
        if A.ndim != 1:
            raise ValueError(f"TwoClassLDA needs the vector a (A = a a^T); got A of shape {A.shape}.")
        return super().value(A, B, support)

    def pair(self, A, B=None):
        return np.asarray(A, dtype=np.float64).reshape(-1), B, "vector"


def _check_identity(B):
    if B is not None and not np.array_equal(B, np.eye(np.shape(B)[0])):
        raise ValueError("SparsePCA has no B (it is the identity); pass B=None.")


class SparsePCA(MaxEig):
    """``lambda_max(C_SS)`` of a covariance ``C``: the variance of the best direction on ``S``."""

    name = "spca"

    def value(self, A, B, support):
        _check_identity(B)
        return super().value(A, None, support)

    def pair(self, A, B=None):
        _check_identity(B)
        return np.asarray(A, dtype=np.float64), None, "full"


class ColumnSubset(Trace):
    """``tr(C_{:,S} C_SS^{-1} C_{S,:})`` for a covariance (or Gram matrix) ``C``.

    The variance of all the features explained by the linear least-squares fit on the chosen
    ones (the column subset selection objective, Farahat, Ghodsi and Kamel, "An efficient greedy
    method for unsupervised feature selection", 2011). It is the trace criterion of the pair
    ``(C C^T, C)`` (``C_{S,:} C_{:,S} = (C C^T)_SS``), which :meth:`pair` returns, so every search
    of the trace runs it unchanged. ``C`` is also a factor of ``C C^T``: the greedy path in the
    factor form (``greedy_path(C, C, form='factor', criterion=ColumnSubset())``) is the same path
    at ``O(p^2)`` per step; :meth:`pair` gives the full form, which no search can misread (a
    square factor is read as a full matrix where the form is not given).
    """

    name = "column-subset"
    monotone = True  # C C^T is positive semi-definite
    needs_dense_pair = True

    def objective(self, C: ArrayLike, support: ArrayLike) -> float:
        """``tr(C_{:,S} C_SS^{-1} C_{S,:})`` from the covariance itself."""
        C = np.asarray(C, dtype=np.float64)
        S = np.asarray(support, dtype=np.intp)
        if len(S) == 0:
            return 0.0
        CS = C[:, S]
        return float(np.trace(CS @ sla.solve(C[np.ix_(S, S)], CS.T, assume_a="pos")))

    def pair(self, A, B=None):
        if B is not None:
            raise ValueError("ColumnSubset reads one matrix, the covariance C; pass B=None.")
        C = np.asarray(A, dtype=np.float64)
        return C @ C.T, C, "full"


class Correlation(Trace):
    """The trace criterion with ``B`` the total covariance: ``tr((B + A)_SS^{-1} A_SS)``.

    With ``A`` the between-class covariance and ``B`` the within-class covariance of labelled
    data, ``B + A`` is the total covariance and each generalized eigenvalue of the searched pair
    is ``lambda / (1 + lambda)`` for an eigenvalue ``lambda`` of ``(A_SS, B_SS)``: a squared
    canonical correlation between the features of ``S`` and the class indicators, at most 1. The
    objective is their sum, the criterion of FastCan (Zhang and Lang, "Orthogonal least squares
    based fast feature selection for linear classification", Pattern Recognition, 2022). :meth:`pair` returns the
    searched pair ``(A, B + A)`` (``A`` kept in its form: a vector ``a``, a factor ``M`` or a
    symmetric matrix), so every search of the trace runs it unchanged; :meth:`value` is the
    trace of that pair, :meth:`objective` the same value from the statistics themselves.
    """

    name = "correlation"
    monotone = True  # A is positive semi-definite
    needs_dense_pair = True
    implicit_on_total = "trace"  # B + A is the total covariance

    @staticmethod
    def _outer(A):
        """``A`` as the symmetric ``p x p`` matrix it stands for (array-API arrays stay where they are)."""
        if A.ndim == 1:
            return A[:, None] * A[None, :]
        return A if A.shape[0] == A.shape[1] else A @ A.T

    def pair(self, A, B=None):
        if B is None:
            raise ValueError("Correlation reads the within-class covariance B (the total covariance is B + A); "
                             "pass B.")
        return A, B + self._outer(A), None

    def objective(self, A: ArrayLike, B: ArrayLike, support: ArrayLike) -> float:
        """``tr((B + A)_SS^{-1} A_SS)`` from the between-class ``A`` (vector, factor or matrix) and
        the within-class ``B``: the sum of the squared canonical correlations on ``S``."""
        A = np.asarray(A, dtype=np.float64)
        return self.value(*self.pair(A, np.asarray(B, dtype=np.float64))[:2], support)


#: The public names of the criteria and their classes: the allowed strings, written once.
CRITERIA = {"max-eig": MaxEig, "trace": Trace}


def as_criterion(criterion: str | Criterion, *, owner: str | None = None) -> Criterion:
    """The :class:`Criterion` for a public name (``'max-eig'``, ``'trace'``) or the object itself.

    Examples
    --------
    >>> as_criterion("trace")
    Trace()
    >>> as_criterion(MaxEig()).name
    'max-eig'
    """
    if isinstance(criterion, Criterion):
        return criterion
    if isinstance(criterion, type) and issubclass(criterion, Criterion):
        return criterion()
    if isinstance(criterion, str) and criterion in CRITERIA:
        return CRITERIA[criterion]()
    opts = ", ".join(repr(o) for o in CRITERIA)
    where = f" of {owner}" if owner else ""
    raise ValueError(f"The 'criterion' parameter{where} must be one of {{{opts}}}. Got {criterion!r} instead.")


def criterion_named(name: str | Criterion) -> Criterion:
    """The criterion object of a name, public or not (a result's ``info['criterion']``, an
    estimator's ``criterion`` parameter).

    The kernels' string parameters take only the names of :data:`CRITERIA` (:func:`as_criterion`);
    this reads any registered name (a search run with another criterion object records that
    object's name), so a caller asks the object -- its properties, the pair it searches
    (:meth:`Criterion.pair`) -- instead of comparing names.

    Parameters
    ----------
    name : str or Criterion
        A registered name (``'max-eig'``, ``'trace'``, ``'two-class'``, ``'spca'``,
        ``'column-subset'``, ``'correlation'``) or a criterion object (returned as it is).

    Returns
    -------
    Criterion

    Examples
    --------
    >>> criterion_named("column-subset")
    ColumnSubset()
    >>> crit = criterion_named("correlation")
    >>> crit.additive, crit.needs_dense_pair
    (True, True)
    """
    if isinstance(name, str) and name in _REGISTRY:
        return _REGISTRY[name]()
    return as_criterion(name)


def spectral_criterion(criterion: str | Criterion, *, owner: str | None = None) -> Criterion:
    """:func:`as_criterion` for the kernels that hold only two updates of the spectrum: the closed
    form of an additive criterion and the secular equations of the largest eigenvalue (the
    full-rank, device, implicit and compiled kernels, and the exact search). Any other criterion
    runs the factor form's NumPy greedy path (:meth:`Criterion.gains` / :meth:`Criterion.losses`)."""
    crit = as_criterion(criterion, owner=owner)
    if not (crit.additive or crit.largest_eigenvalue):
        where = f"{owner} " if owner else "This kernel "
        raise ValueError(
            f"{where}computes additive criteria and the largest eigenvalue only; {crit!r} is neither. "
            "Run the factor-form greedy path (pass A as a factor M with A = M M^T) for it."
        )
    return crit
