"""One entry point for greedy paths of the sparse generalized eigenproblem ``max x^T A x / x^T B x``.

``A`` is given in the form that makes it cheapest (Moghaddam, Weiss and Avidan, 2006, section 2):

* a vector ``a`` (rank one, binary LDA ``A = a a^T``) -> the binary Schur-complement kernel
  :func:`~pixsel.spectral.rank_one_greedy_path`;
* a ``p x r`` factor ``M`` with ``A = M M^T`` (multiclass LDA, ``r = C - 1``) ->
  :func:`~pixsel.spectral.greedy._multiclass.multiclass_greedy_path`;
* a full symmetric ``p x p`` matrix (sparse PCA, general pairs) ->
  :func:`~pixsel.spectral.greedy._fullrank.fullrank_greedy_path`;
* a Gram operator (``A`` for sparse PCA, or ``B`` for LDA; column access through the data, no
  ``p x p`` matrix) -> :func:`~pixsel.spectral.implicit_greedy_path` (forward, to ``max_k``).

Where the path runs (NumPy or its compiled kernels, NumPy on host views of a CPU array of
another library, the array-API kernels on a device, the implicit kernel for an operator) is the
route that :func:`pixsel._routes.choose` gives for the ``'greedy'`` family.
"""

from __future__ import annotations

import functools

import numpy as np

from .._array_api import get_namespace, host_view, to_numpy
from .._routes import choose, compiled_enabled, sized_kernels
from .._validation import check_excluded, check_forced, check_int, check_options, check_search
from ._criteria import as_criterion
from ._forced import forced_path
from ._forms import FORMS, check_form_pair
from ._path import SparsePath
from .bounds import certify
from .greedy._exclude import excluded_path
from .greedy import (
    check_form_pair_xp,
    fullrank_greedy_path,
    fullrank_path_xp,
    multiclass_greedy_path,
    multiclass_path_xp,
    rank_one_greedy_path_xp,
    rank_one_path,
)
from .implicit import implicit_greedy_path

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from .._routes import Route
    from ._path import SparsePath

__all__ = ["greedy_path"]

CERTIFICATES = ("auto", "dual", "inclusion")


@sized_kernels  # small NumPy problems run the NumPy kernels (pixsel._routes.compiled_pays)
def greedy_path(
    A: ArrayLike,
    B: ArrayLike | None = None,
    *,
    direction: Literal["forward", "backward"] = "forward",
    criterion: Literal["max-eig", "trace"] = "max-eig",
    form: Literal["auto", "vector", "factor", "full"] = "auto",
    max_k: int | None = None,
    certificate: Literal["auto", "dual", "inclusion"] | None = None,
    callback: Callable[[int, int], None] | None = None,
    always_select: ArrayLike | None = None,
    never_select: ArrayLike | None = None,
    beam_width: int = 1,
    refine: bool | int = False,
    route: Route | None = None,
    check_input: bool = True,
    **kernel_options: Any,
) -> SparsePath:
    """Greedy forward or backward path of ``max x^T A x / x^T B x`` subject to ``card(x) = k``.

    Parameters
    ----------
    A : ndarray of shape (n_features,), (n_features, r) or (n_features, n_features), or operator
        The numerator: a vector ``a`` (``A = a a^T``), a factor ``M`` (``A = M M^T``) or a
        symmetric matrix. float32 is accepted; the kernels compute in float64. Arrays of
        another library (PyTorch, CuPy, array-api-strict; ``A`` and ``B`` from the same one)
        run on their device, every form (in float64 where the device has it); on a CPU device
        NumPy's kernels run on views of them (the CPU policy of :mod:`pixsel._array_api`).
        With ``B=None``, a Gram operator (:func:`pixsel.stats.gram_operator`) is the covariance
        used through the data (implicit sparse PCA).
    B : ndarray of shape (n_features, n_features), operator or None
        Symmetric positive definite denominator; ``None`` means the identity (sparse PCA). A
        Gram operator with its ridge (``gram_operator(X, y).with_alpha(alpha)``) runs the
        implicit LDA path: no ``p x p`` matrix, forward only, ``max_k`` required.
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
    certificate : {None, 'auto', 'dual', 'inclusion'}, default None
        Opt-in per-``k`` certified upper bounds stored on ``path.upper_bound`` (see
        :func:`pixsel.spectral.certify`). ``None`` (default): none, so the path runs at kernel
        speed (the bounds cost a generalized eigenproblem of the whole pair, and ``'dual'`` one
        ``O(p^3)`` test per ``k``). ``'inclusion'``: the inclusion-principle and norm bounds;
        ``'dual'`` adds the sparse PCA duality certificate (``B = I``, full ``A``);
        ``'auto'`` = ``'dual'`` when ``p <= 256`` else ``'inclusion'``.
    callback : callable or None
        Progress hook, called as ``callback(steps_done, n_steps)`` as the path goes: after every
        step of the multiclass (factor) kernel, after chunks of steps of its backward loop; the
        other forms (a few inverses, or a full-rank pair) call it once when done.
    **kernel_options
        Passed to the blocked binary kernel for a vector ``A`` (``block_size``, ``check_every``,
        ``drift_tol``; see :func:`pixsel.spectral.rank_one_greedy_path`), or
        ``block_size`` to the implicit kernel (columns of ``B`` per pass over the data).
    always_select : array-like of int or None, default None
        Forced features ``F`` (as abess's ``always_select``): every support of size
        ``k >= |F|`` contains them, and ``k`` counts them. With the trace criterion or a vector
        ``A`` the path is the greedy path (forward or backward) of the Schur-complement pair
        conditioned on ``F``, since ``f(F + T) = f(F) + f'(T)``; with ``criterion='max-eig'``
        and a matrix ``A`` (where the largest eigenvalue does not split) a forward pass from
        ``F`` evaluates every candidate exactly, ``O(p k^3)`` per step (forward only).
        ``objective[k - 1]`` is NaN for ``k < |F|``; ``max_k`` counts ``F``. Dense NumPy
        arrays only (device arrays are copied to the host), without ``certificate``.
    never_select : array-like of int or None, default None
        Excluded features (FastCan's ``indices_exclude``): no support contains them. The path is
        that of the pair restricted to the other features, with ``p - |never_select|`` entries
        (a backward pass starts from all the others). Dense arrays only (device arrays are
        copied to the host); disjoint from ``always_select``.
    beam_width : int, default 1
        Forward only: keep the ``beam_width`` best distinct supports of every size and extend
        each by every feature (one rank-one update each); every size's support is the better of the
        beam's best and the forward pass's. 1 is the forward pass itself. A vector ``A`` or the
        trace criterion, dense arrays or a Gram operator ``B`` (its columns read as the beam needs
        them); the path stops at ``max_k`` (every size without it). ``callback`` is called for
        the forward pass's steps, then for every size the beam reaches.
    refine : bool or int, default False
        Swap refinement of the support of every size of the path (:func:`pixsel.spectral.swap_refine`,
        never below the support it starts from): True allows up to 100 swaps per size, an int
        that many. Dense arrays. With ``beam_width`` or ``refine`` the supports are no longer
        nested: ``path.support(k)`` reads them from ``path.info['supports']``.
    route : Route or None, default None
        Where the kernels run (:func:`pixsel._routes.choose`, ``'greedy'`` family): an estimator
        passes the route its ``fit`` resolved; None asks the route table for the arrays given.
        The form follows the arguments (a Gram operator runs the implicit kernel).
    check_input : bool, default True
        False: the caller vouches for ``A`` and ``B`` (finite, ``B`` symmetric, float64 NumPy
        arrays it formed itself) and for ``max_k`` (None or in ``[1, p]``), as scikit-learn's
        ``check_input``; a two-class forward pass (a vector ``A``, no forced or excluded
        features, beam, refinement, certificate or kernel options, on the NumPy route) then runs
        without the checks of the pair, which cost about as much as the pass on small tables.
        Every other call is checked as with True.

    Returns
    -------
    SparsePath
        ``order`` and ``objective`` per ``k``; ``info['criterion']`` and ``info['form']``;
        ``upper_bound`` when a ``certificate`` was asked for.

    Notes
    -----
    ``B`` is validated once (square, finite, symmetric, in row blocks without ``p x p``
    temporaries) and handed to the kernel unchecked.

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Fast pixel/part selection with sparse eigenvectors",
      IEEE International Conference on Computer Vision (ICCV), 2007.
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925
    * B. Moghaddam, Y. Weiss and S. Avidan, "Spectral bounds for sparse PCA: exact and greedy
      algorithms", Advances in Neural Information Processing Systems 18 (NIPS), 2005.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 3.5]])
    >>> greedy_path(A, direction="backward").order.tolist()
    [2, 1, 0]
    >>> greedy_path(np.array([1.0, 2.0, 0.5])).order.tolist()
    [1, 0, 2]
    """
    owner = "greedy_path"
    check_options(direction, "direction", ("forward", "backward"), owner=owner)
    criterion = as_criterion(criterion, owner=owner)
    if not check_input and _formed_vector(A, B, direction, form, certificate, beam_width, refine, always_select,
                                          never_select, kernel_options, route):
        return _formed_vector_path(A, B, criterion=criterion, max_k=max_k, callback=callback)
    if certificate is not None:
        check_options(certificate, "certificate", CERTIFICATES, owner=owner)
    if beam_width != 1 or refine:
        return _searched(A, B, beam_width, refine, direction=direction, criterion=criterion, form=form, max_k=max_k,
                         certificate=certificate, callback=callback, always_select=always_select,
                         never_select=never_select, kernel_options=kernel_options, route=route)
    if never_select is not None and len(np.atleast_1d(never_select)):
        return _excluded(A, B, never_select, direction=direction, criterion=criterion, form=form, max_k=max_k,
                         certificate=certificate, callback=callback, always_select=always_select,
                         kernel_options=kernel_options, route=route)
    if always_select is not None and len(np.atleast_1d(always_select)):
        return _forced(A, B, always_select, direction=direction, criterion=criterion, form=form, max_k=max_k,
                       certificate=certificate, callback=callback, kernel_options=kernel_options, route=route)
    if _is_operator(A) or _is_operator(B):  # a Gram operator: the implicit form, wherever its data lives
        return _implicit_path(A, B, direction=direction, criterion=criterion, form=form, max_k=max_k,
                              certificate=certificate, callback=callback, kernel_options=kernel_options)
    xp, dev = get_namespace(A, B, names=["A", "B"])
    backend = (choose("greedy", xp=xp, device=dev, algorithm="dense") if route is None else route).backend
    if backend == "host":
        # the CPU policy (pixsel._array_api): NumPy's compiled kernels on views of A and B; the
        # path is host metadata either way
        A, B = host_view(A), host_view(B)
    elif backend == "device":  # CUDA, CuPy, or forced: every form runs on the arrays' device
        path = _greedy_path_xp(xp, dev, A, B, direction=direction, criterion=criterion, form=form,
                               max_k=max_k, certificate=certificate, kernel_options=kernel_options)
        if callback is not None:
            callback(len(path.order), len(path.order))
        return path
    A, B, form = check_form_pair(A, B, form=form, owner=owner)
    p = A.shape[0]
    max_k = _checked_max_k(max_k, direction, 1, p, owner)
    if kernel_options and form != "vector":
        raise TypeError(
            f"greedy_path got options {sorted(kernel_options)} that only the binary kernel (a vector A) accepts."
        )
    if form == "vector":  # the rank-one elimination, to max_k steps when given
        path = rank_one_path(A, np.eye(p) if B is None else B, direction, max_k=max_k, **kernel_options)
        path.info = dict(path.info, criterion=criterion.name, form="vector")
    elif form == "factor":
        path = multiclass_greedy_path(A, B, direction=direction, criterion=criterion, max_k=max_k,
                                      callback=callback)
    else:
        path = _fullrank_path(A, B, direction=direction, criterion=criterion, max_k=max_k)
    stepwise = form == "factor"  # the kernel reports
    if callback is not None and not stepwise:
        callback(len(path.order), len(path.order))
    if certificate is not None:
        dual = certificate == "dual" or (certificate == "auto" and p <= 256)
        certify(path, dual=dual)
    return path


def _formed_vector(A, B, direction, form, certificate, beam_width, refine, always_select, never_select,
                   kernel_options, route):
    """Whether :func:`greedy_path` with ``check_input=False`` may run the two-class forward pass
    unchecked: a float64 NumPy vector ``A`` and ``p x p`` float64 NumPy ``B``, no option that
    takes another entry point, the NumPy route."""
    return (direction == "forward" and form in ("auto", "vector") and certificate is None and beam_width == 1
            and not refine and not kernel_options and (route is None or route.backend == "numpy")
            and (always_select is None or not len(always_select)) and (never_select is None or not len(never_select))
            and type(A) is np.ndarray and A.ndim == 1 and A.dtype == np.float64
            and type(B) is np.ndarray and B.dtype == np.float64 and B.shape == (A.shape[0], A.shape[0]))


def _formed_vector_path(a, B, *, criterion, max_k, callback):
    """The forward pass of a two-class pair the caller formed (:func:`greedy_path`'s
    ``check_input=False``): the kernel, path, ``info`` and progress call of the checked entry
    point, which has chosen the kernels (its decorator) already."""
    path = rank_one_path(a, B, "forward", max_k=max_k)
    path.info = dict(path.info, criterion=criterion.name, form="vector")
    if callback is not None:
        callback(len(path.order), len(path.order))
    return path


def _fullrank_path(A, B, *, direction, criterion, max_k):
    """The full-rank path of checked NumPy ``A`` and ``B``: the NumPy (or compiled) kernels, but a
    backward path of the largest eigenvalue on the NumPy route (below the compiled size, or without
    Numba) runs the array-API kernel with NumPy as its namespace, the faster of the two there (the
    same path; ``benchmarks/bench_xp_twins.py`` times both on NumPy input)."""
    if direction == "backward" and criterion.largest_eigenvalue and not compiled_enabled():
        order, objective, info = fullrank_path_xp(np, A, B, direction=direction, criterion=criterion)
        info = {"secular_reruns": info["secular_reruns"], "criterion": criterion.name, "form": "full"}
        return SparsePath(order=order, objective=objective, direction=direction, A=A, B=B, info=info)
    return fullrank_greedy_path(A, B, direction=direction, criterion=criterion, max_k=max_k)


def _checked_max_k(max_k, direction, low, p, owner):
    """``max_k`` checked in ``[low, p]``; None stays None. Refused for the backward direction,
    which starts from all features."""
    if max_k is None:
        return None
    if direction == "backward":
        raise ValueError("max_k only applies to the forward direction (backward starts from all features).")
    return check_int(max_k, "max_k", low=low, high=p, owner=owner)


def _host_paths(route):
    """:func:`greedy_path` for the host arrays of the forced, excluded and searched paths: the
    fit's route when its arrays are NumPy already (NumPy, Dask statistics), else asked anew."""
    return greedy_path if route is None or route.foreign else functools.partial(greedy_path, route=route)


def _dense_on_host(A, B, form, operator_message, *, plain=None, certificate=None, kernel_options=None):
    """``(A, B, form)`` as checked float64 host arrays, for the paths that need the matrices
    themselves (forced or excluded features, the beam and the swaps): a Gram operator is refused
    with ``operator_message``, and where ``plain`` names the option, a certificate or kernel options."""
    if _is_operator(A) or _is_operator(B):
        raise ValueError(f"greedy_path: {operator_message}")
    if plain is not None and (certificate is not None or kernel_options):
        raise ValueError(f"greedy_path: {plain} without certificate and kernel options; drop "
                         f"{'certificate' if certificate is not None else sorted(kernel_options)}.")
    A = to_numpy(A, np.float64)
    B = None if B is None else to_numpy(B, np.float64)
    return check_form_pair(A, B, form=form, owner="greedy_path")


def _forced(A, B, always_select, *, direction, criterion, form, max_k, certificate, callback, kernel_options,
            route=None):
    """The path with forced features (:mod:`pixsel.spectral._forced`), on host arrays."""
    owner = "greedy_path"
    A, B, form = _dense_on_host(A, B, form, "always_select needs dense A and B (the Schur complement on the forced "
                                "features); pass the matrices, not a Gram operator.",
                                plain="always_select runs", certificate=certificate, kernel_options=kernel_options)
    p = A.shape[0]
    F = check_forced(always_select, p, owner=owner)
    max_k = _checked_max_k(max_k, direction, len(F), p, owner)
    return forced_path(_host_paths(route), A, B, F, direction=direction, criterion=criterion, form=form, max_k=max_k,
                       callback=callback)


def _excluded(A, B, never_select, *, always_select, max_k, form, kernel_options, route=None, **options):
    """The path without the features of ``never_select`` (:mod:`pixsel.spectral.greedy._exclude`)."""
    A, B, form = _dense_on_host(A, B, form, "never_select needs dense A and B (the pair restricted to the other "
                                "features); pass the matrices, not a Gram operator.")
    E = check_excluded(never_select, A.shape[0], always_select=always_select, k=max_k, owner="greedy_path")
    return excluded_path(_host_paths(route), A, B, E, form=form, always_select=always_select, max_k=max_k,
                         **options, **kernel_options)


def _searched(A, B, beam_width, refine, *, direction, criterion, form, certificate, kernel_options, route=None,
              **options):
    """The beam search and the swaps (:mod:`pixsel.spectral.greedy._search`), on host arrays."""
    from .greedy._search import searched_path  # the swaps import the exact search, which imports us

    width, sweeps = check_search(beam_width, refine, owner="greedy_path")
    if _is_operator(B) and not _is_operator(A):
        return _searched_implicit(A, B, width, sweeps, direction=direction, criterion=criterion, form=form,
                                  certificate=certificate, kernel_options=kernel_options, **options)
    A, B, form = _dense_on_host(A, B, form, "beam_width > 1 and refine need dense A and B; pass the matrices, not "
                                "a Gram operator, or beam_width=1 and refine=False.",
                                plain="beam_width > 1 and refine run", certificate=certificate,
                                kernel_options=kernel_options)
    if width > 1 and direction != "forward":
        raise ValueError("greedy_path: the beam search grows supports; use direction='forward' with beam_width > 1.")
    _check_beam_criterion(width, form == "vector", criterion)
    return searched_path(_host_paths(route), A, B, beam_width=width, sweeps=sweeps, direction=direction,
                         criterion=criterion, form=form, **options)


def _check_beam_criterion(width, vector, criterion):
    """Refuse a beam wider than 1 where the gains do not add up (the largest eigenvalue of a factor)."""
    if width > 1 and not (vector or as_criterion(criterion).additive):
        raise ValueError("greedy_path: the beam search runs with a vector A or criterion='trace' (the gains of the "
                         "largest eigenvalue are not additive); use criterion='trace' or beam_width=1.")


def _searched_implicit(A, B, width, sweeps, *, direction, criterion, form, certificate, kernel_options, max_k,
                       callback, always_select, never_select):
    """The beam search and the swaps over the implicit forward pass: ``A`` a vector or factor,
    ``B`` a Gram operator read through its columns (:mod:`pixsel.spectral.greedy._search`)."""
    from .greedy._search import searched_path

    if (always_select is not None and len(np.atleast_1d(always_select))) or (
            never_select is not None and len(np.atleast_1d(never_select))):
        raise ValueError("greedy_path: always_select and never_select with a Gram operator need the dense pair; "
                         "pass the matrices, or drop always_select and never_select.")
    A = np.asarray(A, dtype=np.float64)
    if A.ndim not in (1, 2) or A.shape[0] != B.p or (A.ndim == 2 and A.shape[1] >= A.shape[0]):
        raise ValueError(f"greedy_path: with a Gram operator B, A is a vector ({B.p},) or a factor ({B.p}, r) with "
                         f"r < {B.p}; got shape {A.shape}.")
    _check_beam_criterion(width, A.ndim == 1, criterion)

    def implicit(A, B, *, criterion, max_k, **_):
        return _implicit_path(A, B, direction=direction, criterion=criterion, form=form, max_k=max_k,
                              certificate=certificate, callback=callback, kernel_options=kernel_options)

    return searched_path(implicit, A, B, beam_width=width, sweeps=sweeps, criterion=criterion,
                         form="vector" if A.ndim == 1 else "factor", max_k=max_k, always_select=None,
                         never_select=None, callback=callback)


def _is_operator(M):
    """A matrix given by column access (``diag()``, ``columns(idx)``), never formed."""
    return M is not None and callable(getattr(M, "diag", None)) and callable(getattr(M, "columns", None))


def _implicit_path(A, B, *, direction, criterion, form, max_k, certificate, callback, kernel_options):
    """:func:`pixsel.spectral.greedy_path` with a Gram operator: the implicit forward path."""
    if direction != "forward":
        raise ValueError(
            "greedy_path with a Gram operator runs forward selection only (the backward path starts "
            "from the p x p matrix); use direction='forward', or pass the matrix."
        )
    if max_k is None:
        raise ValueError("greedy_path with a Gram operator needs max_k (the number of forward steps).")
    if certificate is not None:
        raise ValueError(
            "greedy_path with a Gram operator has no certificate option (the implicit path stores its "
            "own cheap upper bound); use certificate=None."
        )
    if form != "auto":
        raise ValueError(f"greedy_path with a Gram operator reads A itself; use form='auto', not {form!r}.")
    if set(kernel_options) - {"block_size"}:
        raise TypeError(
            f"greedy_path got options {sorted(set(kernel_options) - {'block_size'})} that the implicit "
            "kernel does not have; it accepts block_size."
        )
    return implicit_greedy_path(A, B, max_k=max_k, criterion=criterion, callback=callback, **kernel_options)


def _greedy_path_xp(xp, dev, A, B, *, direction, criterion, form, max_k, certificate, kernel_options):
    """:func:`pixsel.spectral.greedy_path` for arrays of another library, on their device.

    A vector ``A`` (binary LDA) without ``max_k`` runs the blocked rank-one kernel
    (:mod:`._rank_one_xp`), a factor (or a vector with ``max_k``) the multiclass kernel
    (:mod:`._multiclass_xp`), a full matrix the dense full-rank kernel (:mod:`._fullrank_xp`).
    The path (``p`` indices and objectives) is NumPy; ``path.A`` / ``path.B`` are host copies
    made once, so ``path.weights(k)`` and the certificates work as for NumPy input.
    """
    owner = "greedy_path"
    check_options(form, "form", FORMS, owner=owner)
    form = check_form_pair_xp(xp, A, B, owner, form=form)
    p = A.shape[0]
    max_k = _checked_max_k(max_k, direction, 1, p, owner)
    options = dict(kernel_options)
    if form == "vector" and max_k is None:
        if set(options) - {"block_size"}:
            raise TypeError(
                f"greedy_path got options {sorted(set(options) - {'block_size'})} that the "
                "array-API kernel does not have (it keeps no drift checkpoints); pass NumPy arrays "
                "for them, or only block_size."
            )
        if B is None:
            B = xp.eye(p, dtype=A.dtype if xp.isdtype(A.dtype, "real floating") else xp.float64, device=dev)
        path = rank_one_greedy_path_xp(xp, dev, A, B, direction, options.get("block_size"), owner=owner)
        path.info = dict(path.info, criterion=criterion.name, form="vector")
    else:
        if options:
            raise TypeError(
                f"greedy_path got options {sorted(options)} that only the binary kernel (a vector A "
                "without max_k) accepts."
            )
        if form == "full":
            order, objective, info = fullrank_path_xp(xp, A, B, direction=direction, criterion=criterion,
                                                      max_k=max_k)
        else:
            M = A[:, None] if form == "vector" else A
            order, objective, info = multiclass_path_xp(xp, M, B, direction=direction, criterion=criterion,
                                                        max_k=max_k)
        path = SparsePath(order=order, objective=objective, direction=direction, A=to_numpy(A, np.float64),
                          B=None if B is None else to_numpy(B, np.float64),
                          info=dict(info, criterion=criterion.name, form=form))
    if certificate is not None:
        certify(path, dual=certificate == "dual" or (certificate == "auto" and p <= 256))
    return path
