"""Switches that override where pixsel's kernels run, to check or measure a path; none is needed to use pixsel.

pixsel chooses the kernels of each call from its input and sizes: NumPy arrays take the NumPy (or
compiled) kernels, arrays of another library on a GPU the array-API kernels on that device, and
arrays of another library on the CPU are read as NumPy views without a copy (the faster kernels
there), their results given back in the input's library. The switch below changes that choice
inside a ``with`` block only.

* :func:`array_api_kernels` -- arrays of another library on the CPU run through the array-API
  kernels that a GPU runs, so that path can be checked, or the CPU policy measured, without a GPU.
* :func:`compiled_kernels` -- NumPy input runs the Numba-compiled kernels (``True``) or the NumPy
  ones (``False``) whatever its size, instead of the size rule (small problems take the NumPy
  kernels until the process has loaded the compiled ones), to compare the two or to time a rule.
* :func:`lowrank_backward` -- the backward pass of sparse LDA with fewer images than pixels runs
  in the ``n``-dimensional form (``True``, the default) or the dense form (``False``), to
  compare the two or to time the choice.
* :func:`count_round_trips` -- counts the host round trips (scalar reads, copies back) that those
  kernels make on the CPU: each would make a GPU wait, so the count is the CPU's proxy for a
  path's latency on a GPU.
"""

from __future__ import annotations

import contextlib

__all__ = ["array_api_kernels", "compiled_kernels", "lowrank_backward", "count_round_trips"]


@contextlib.contextmanager
def array_api_kernels(enabled: bool = True):
    """Within the block, arrays of another array library on the CPU take the array-API kernels.

    Outside it, a PyTorch CPU tensor (or an array of another array-API library on the CPU) is read
    as a NumPy view and runs pixsel's NumPy kernels; inside, it runs the array-API kernels, the
    code that a GPU runs, on the CPU. The results are the same up to rounding; the block lets a
    user without a GPU check that code path on their data, or time what the default saves. NumPy
    input is unaffected. The switch holds for the thread (or asyncio task) that entered the
    block, until it exits.

    Parameters
    ----------
    enabled : bool, default=True
        ``False`` restores the default choice inside an enclosing block.

    Examples
    --------
    >>> import numpy as np
    >>> import array_api_strict as xps
    >>> from pixsel.spectral import greedy_path
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.standard_normal((40, 6))
    >>> B, a = Z.T @ Z / 40 + 0.1 * np.eye(6), rng.standard_normal(6)
    >>> with array_api_kernels():
    ...     path = greedy_path(xps.asarray(a), xps.asarray(B))
    >>> bool(np.array_equal(np.asarray(path.order), greedy_path(a, B).order))
    True
    """
    from ._array_api import _force_array_api

    with _force_array_api(enabled):
        yield


@contextlib.contextmanager
def compiled_kernels(enabled: bool | None = True):
    """Within the block, NumPy input runs the compiled kernels (or the NumPy ones) at every size.

    By default each fit picks its kernels by size: problems of fewer than 512 features run the
    NumPy kernels until this process has loaded the compiled ones (a first fit then neither
    compiles nor loads Numba's code), larger ones run compiled, except two-class paths and short
    sparse PCA paths, whose NumPy kernels come close: they too run NumPy's until the compiled
    ones are loaded. The two give the same supports; the block lets a user compare them, time one route
    on their data, or load the compiled kernels once for a long run of fits. It holds for the
    thread (or asyncio task) that entered it, until it exits.

    Parameters
    ----------
    enabled : bool or None, default=True
        ``True``: the Numba-compiled kernels; ``False``: the NumPy kernels; ``None`` restores the
        size rule inside an enclosing block.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel.spectral import greedy_path
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.standard_normal((40, 6))
    >>> B, a = Z.T @ Z / 40 + 0.1 * np.eye(6), rng.standard_normal(6)
    >>> with compiled_kernels(False):
    ...     numpy_path = greedy_path(a, B)
    >>> bool(np.array_equal(numpy_path.order, greedy_path(a, B).order))
    True
    """
    from ._routes import compiled_kernels as _compiled

    with _compiled(enabled):
        yield


@contextlib.contextmanager
def lowrank_backward(enabled: bool = True):
    """Within the block, sparse LDA's backward pass may run in the ``n``-dimensional form (or never).

    With fewer images ``n`` than pixels ``p``, a ridge or a shrinkage makes the within-class
    covariance ``lam I + U U^T`` with ``U`` of shape ``(p, n)``, and the backward pass of
    :class:`pixsel.SparseLDASelector` then removes pixels by updates of an ``n x n`` system
    (:func:`pixsel.spectral.lowrank_backward_path`) instead of a ``p x p`` inverse, with the same
    order. ``False`` keeps the dense pass inside the block, to compare the two or time the
    choice. It holds for the thread (or asyncio task) that entered it, until it exits.

    Parameters
    ----------
    enabled : bool, default=True
        ``False``: the dense backward pass; ``True`` restores the default inside an enclosing block.

    Examples
    --------
    >>> import numpy as np
    >>> from pixsel import SparseLDASelector
    >>> rng = np.random.default_rng(0)
    >>> y = np.arange(12) % 3
    >>> X = rng.standard_normal((12, 30)) + rng.standard_normal((3, 30))[y]
    >>> nform = SparseLDASelector(4, direction="backward").fit(X, y)
    >>> with lowrank_backward(False):
    ...     dense = SparseLDASelector(4, direction="backward").fit(X, y)
    >>> bool(np.array_equal(nform.support_, dense.support_))
    True
    """
    from ._routes import lowrank_backward_kernels

    with lowrank_backward_kernels(enabled):
        yield


@contextlib.contextmanager
def count_round_trips():
    """Within the block, count the host round trips of array-api-strict and PyTorch (CPU) arrays.

    On a GPU a kernel launch is asynchronous and what stalls the device is a read on the host: a
    scalar (``float(x)``, ``int(x)``, ``bool(x)``, ``x.item()``) or a copy back (``numpy.asarray(x)``,
    ``x.tolist()``, a ``to_device`` to the CPU). Run a path on those libraries' CPU arrays inside
    :func:`array_api_kernels` and this block, and the count is what a GPU would wait for. Nested
    conversions count once, and only those that succeed. While the block is active the two
    libraries' array classes are wrapped (restored on exit), so use it from one thread at a time.

    Yields
    ------
    RoundTrips
        ``total``, and the counts ``by_kind`` (``'scalar'``, ``'copy'``) and ``by_method``; they
        grow while the block runs.

    Examples
    --------
    >>> import array_api_strict as xps
    >>> with count_round_trips() as trips:
    ...     a = xps.asarray([1.0, 2.0])
    ...     s = xps.sum(a)           # no round trip: the sum stays an array
    ...     total = float(s)         # one scalar read
    >>> trips.total, dict(trips.by_kind)
    (1, {'scalar': 1})
    """
    from ._round_trips import count_round_trips as _count

    with _count() as trips:
        yield trips
