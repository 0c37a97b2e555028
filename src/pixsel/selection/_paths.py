"""Whole greedy and thresholding paths of a problem, for every k: ``lda_paths`` and ``pca_paths``.

These are the estimator-layer functions behind ``pixsel path`` (Fig. 7 of "Fast Pixel/Part
Selection with Sparse Eigenvectors", Moghaddam, Weiss and Avidan, ICCV 2007): they run
statistics -> regularization -> kernels once and return every path with its bounds, so that
surfaces (CLI, figures, benchmarks) never assemble that pipeline themselves.

Array API: ``X`` (and ``y``) of another library (PyTorch, CuPy, array-api-strict) are reduced
to their statistics on their device, regularized there, and the greedy paths run there; the
paths themselves (``p`` indices and objectives per path) and the bounds are NumPy, host
metadata like ``classes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..spectral import (
    SparsePath,
    criterion_named,
    fisher_thresholding_path,
    greedy_path,
    simple_thresholding,
    simple_thresholding_path,
    sparsity_lower_bound,
)
from .._array_api import to_numpy
from .._validation import check_options
from ..stats import Regularization, class_statistics, covariance, regularize
from ._lda import criterion_for

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["PathSet", "lda_paths", "pca_paths"]

#: The values of :func:`lda_paths`' ``criterion``: :class:`~pixsel.SparseLDASelector`'s names
LDA_PATH_CRITERIA = ("max-eig", "trace", "correlation", "auto")


@dataclass
class PathSet:
    """The paths of one problem, named, with the bounds that hold for every support of size k.

    Attributes
    ----------
    paths : dict of str to SparsePath
        ``'forward'``, ``'backward'``, ``'fisher'``, ``'simple'`` for two classes;
        ``'forward'``, ``'backward'``, ``'simple'`` for more classes and for sparse PCA.
    lower_bound : ndarray of shape (n_features,) or None
        The worst-case lower bound of Eq. (5) (two classes only), else None.
    upper_bound : ndarray of shape (n_features,) or None
        Elementwise minimum of the certified per-k upper bounds of the paths, or None.
    regularization : Regularization or None
        What was done to the within-class covariance (None for sparse PCA).
    criterion : str or None
        The objective of the sparse LDA paths, ``'trace'`` or ``'correlation'`` (None for sparse
        PCA).
    """

    paths: dict[str, SparsePath] = field(default_factory=dict)
    lower_bound: np.ndarray | None = None
    upper_bound: np.ndarray | None = None
    regularization: Regularization | None = None
    criterion: str | None = None


def _bar(total, desc, progress):
    """Steps shown only when ``progress`` is true and the work lasts over two seconds
    (:func:`pixsel._progress.step_progress`: a bar on a terminal, plain lines in a log), or
    reported to ``progress`` when it is a callable (:class:`pixsel._progress.CallbackSteps`)."""
    from .._progress import CallbackSteps, step_progress

    if callable(progress):
        return CallbackSteps(progress, total, desc)
    return step_progress(total, desc, enabled=bool(progress))


def _min_upper(paths):
    ub = [p.upper_bound for p in paths.values() if p.upper_bound is not None]
    return np.minimum.reduce(ub) if ub else None


def _run(steps, bar):
    out = {}
    for name, fn in steps:
        out[name] = fn()
        bar.update(1, f"{name} path")
    return out


def lda_paths(X: ArrayLike, y: ArrayLike, *, regularization: str = "auto", criterion: str = "max-eig",
              progress: Any = False) -> PathSet:
    """All greedy and thresholding sparse LDA paths of a classification problem.

    Parameters
    ----------
    X : array-like or dask array of shape (n_samples, n_features)
        Samples (never modified).
    y : array-like of shape (n_samples,)
        Two or more class labels.
    regularization : 'auto', 'none', None, float, 'ledoit-wolf' or 'ledoit-wolf-floor', default='auto'
        How the within-class covariance ``B`` is regularized (see :func:`pixsel.stats.regularize`).
    criterion : {'max-eig', 'trace', 'correlation', 'auto'}, default='max-eig'
        The objective of the paths, as :class:`SparseLDASelector`'s ``criterion``: ``'max-eig'``,
        the largest generalized eigenvalue of ``(A_SS, B_SS)``; ``'trace'``, their sum (with two
        classes both are the papers' Rayleigh quotient ``a_S^T B_SS^-1 a_S``); ``'correlation'``,
        the trace with ``B`` the total covariance ``B + A`` (a sum of squared canonical
        correlations, at most the number of classes - 1); ``'auto'``: ``'correlation'`` with more
        than two classes and ``'trace'`` with two, the selector's default (``pixsel path`` runs it).
    progress : bool or callable, default=False
        Show a progress bar (for work longer than two seconds); a callable is called as
        ``progress(done, total, desc)`` after each path instead.

    Returns
    -------
    PathSet
        Two classes: forward and backward greedy paths of ``(a a^T, B)`` with ``a`` the
        difference of the class means, the renormalized Fisher and simple thresholding paths,
        and the Eq. (5) lower bound. More classes: forward, backward and simple thresholding of
        ``(M M^T, B)``. Greedy paths carry the ``certificate='auto'`` per-k upper bounds.

    Examples
    --------
    >>> from pixsel.datasets import load_digits_pair
    >>> from pixsel.selection import lda_paths
    >>> d = load_digits_pair(3, 5)
    >>> ps = lda_paths(d.X, d.y)
    >>> sorted(ps.paths)
    ['backward', 'fisher', 'forward', 'simple']
    >>> bool((ps.upper_bound >= ps.paths['forward'].objective - 1e-9).all())
    True
    """
    check_options(criterion, "criterion", LDA_PATH_CRITERIA, owner="lda_paths")
    with _bar(5, "paths", progress) as bar:
        st = class_statistics(X, y)
        B, reg = regularize(st.within, regularization, X=X, y=y, means=st.means, classes=st.classes)
        # the criterion object answers for its name: the pair it searches (the correlation
        # criterion: the trace of (A, B + A), B + A the total covariance) and the search itself
        search = criterion_named(criterion_for(criterion, st.n_classes))
        B = search.pair(st.between if st.n_classes == 2 else st.between_factor, B)[1]
        # simple_thresholding of a factor and the Eq. (5) bound (one eigh of B) have no device
        # kernel: they run on a host copy of the statistics, made once (NumPy's float64
        # statistics pass unchanged)
        def host(v):
            return to_numpy(v, np.float64)

        if st.n_classes > 2:
            M = st.between_factor
            Mh, Bh = host(M), host(B)
            paths = {
                "forward": greedy_path(M, B, direction="forward", criterion=search, certificate="auto"),
                "backward": greedy_path(M, B, direction="backward", criterion=search, certificate="auto"),
                "simple": simple_thresholding(Mh, Bh, criterion=search),
            }
            bar.update(4, "forward, backward and simple-thresholding paths")
            return PathSet(paths, None, _min_upper(paths), reg, search.name)
        a = st.between
        ah, Bh = host(a), host(B)
        bar.update(1, "class statistics")
        paths = _run(
            (
                ("forward", lambda: greedy_path(a, B, direction="forward", certificate="auto")),
                ("backward", lambda: greedy_path(a, B, direction="backward", certificate="auto")),
                ("fisher", lambda: fisher_thresholding_path(a, B)),
                ("simple", lambda: simple_thresholding_path(a, B)),
            ),
            bar,
        )
    return PathSet(paths, sparsity_lower_bound(ah, Bh), _min_upper(paths), reg, search.name)


def pca_paths(X: ArrayLike, *, progress: Any = False) -> PathSet:
    """Greedy forward, backward and simple-thresholding sparse PCA paths of the covariance of X.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples (never modified).
    progress : bool or callable, default=False
        Show a progress bar (for work longer than two seconds); a callable is called as
        ``progress(done, total, desc)`` after each path instead.

    Returns
    -------
    PathSet
        ``'forward'``, ``'backward'`` (with the ``certificate='dual'`` per-k upper bounds) and
        ``'simple'`` paths of the variance of the first sparse component; ``lower_bound`` and
        ``regularization`` are None.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.selection import pca_paths
    >>> X = np.random.default_rng(0).normal(size=(50, 6))
    >>> ps = pca_paths(X)
    >>> sorted(ps.paths)
    ['backward', 'forward', 'simple']
    >>> bool(np.isclose(ps.paths['forward'].objective[-1], np.linalg.eigvalsh(np.cov(X.T))[-1]))
    True
    """
    with _bar(3, "paths", progress) as bar:
        C = covariance(X)
        Ch = to_numpy(C, np.float64)  # NumPy's float64 covariance passes unchanged
        paths = _run(
            (
                ("forward", lambda: greedy_path(C, direction="forward", form="full", certificate="dual")),
                ("backward", lambda: greedy_path(C, direction="backward", form="full", certificate="dual")),
                ("simple", lambda: simple_thresholding(Ch)),
            ),
            bar,
        )
    return PathSet(paths, None, _min_upper(paths), None)

