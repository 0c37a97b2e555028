"""The centred Gram operator on arrays of another library: the passes over ``X`` on X's
device, for the implicit forward path (:func:`pixsel.spectral.implicit_greedy_path`), whose
state stays on the host.

The cost of the implicit path is its passes over the data: the diagonal and blocks of columns
``X^T (X[:, idx] - M[y, idx]) / N`` of the centred Gram matrix, ``O(N p b)`` each. The greedy
state is ``O(p (k + r))`` and each step touches it once (a rank-one update of a ``p x r``
panel and a few ``p``-vectors), so :class:`DeviceGramOperator` runs the passes in X's library
and on its device, in float64 where the device has it (the accumulation policy of
:mod:`pixsel.stats._gram`: float32 data, float64 products), and hands each ``p x b`` panel, the
diagonal and the class means to the host once; the NumPy kernel
(:func:`~pixsel.spectral.implicit_greedy_path`, the same code, the same path and tie rule)
consumes them unchanged. Traffic: one ``p x b`` panel per pass, against ``N x p`` reads on
the device.

:func:`gram_operator` picks the operator for an ``X``: NumPy and Dask arrays, and (the CPU
policy of :mod:`pixsel._array_api`) arrays on a CPU through a zero-copy view, get
:class:`pixsel.stats.CenteredGramOperator`; arrays on another device this one.

**Why NumPy input keeps its own operator.** :class:`pixsel.stats.CenteredGramOperator` also
serves Dask arrays (chunk by chunk, on a cluster's workers), and multiplies 8-bit images exactly
at float32 speed; this operator, given NumPy arrays, computes the same columns in float64
throughout, as fast for float64 data and slower for float32 and uint8 images:
``benchmarks/bench_xp_twins.py`` times the pair on NumPy input.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .._array_api import (
    float_dtype,
    from_numpy,
    get_namespace,
    has_float64,
    host_view,
    one_hot,
    to_numpy,
)
from .._routes import placement
from .._validation import check_real, is_dask_array
from ._gram import GRAM_BLOCK_BYTES, CenteredGramOperator, _GramAccess
from ._moments import ClassMeans, _check_counts, class_codes

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

__all__ = ["DeviceGramOperator", "gram_operator"]


def gram_operator(
    X: Any, y: ArrayLike | None = None, *, classes: Any = None, alpha: float = 0.0
) -> CenteredGramOperator | DeviceGramOperator:
    """The centred Gram operator of ``X`` for the implicit path, on X's device.

    NumPy and Dask arrays, and arrays of another library on a CPU (viewed without a copy, the
    CPU policy), get :class:`pixsel.stats.CenteredGramOperator`; arrays on any other device
    (CUDA, CuPy) a :class:`DeviceGramOperator`.
    """
    if is_dask_array(X):
        return CenteredGramOperator(X, y, classes=classes, alpha=alpha)
    xp, dev = get_namespace(X, names=["X"])
    where = placement(xp, dev)
    if where == "numpy":
        return CenteredGramOperator(X, y, classes=classes, alpha=alpha)
    if where == "host":
        return CenteredGramOperator(host_view(X), None if y is None else host_view(y), classes=classes,
                                    alpha=alpha)
    return DeviceGramOperator(X, y, classes=classes, alpha=alpha)


class DeviceGramOperator(_GramAccess):
    """:class:`pixsel.stats.CenteredGramOperator` for an ``X`` of another array library.

    ``G = Xc^T Xc / N + alpha I`` with ``Xc = X - M[y]``: the passes over ``X`` run in X's
    library on its device (rows in tiles of ``block_bytes`` of the work dtype, products in
    float64 where the device has it); the results (``p``-vectors, ``p x b`` panels, the class
    means) are NumPy float64, as the implicit forward kernels
    (:func:`pixsel.spectral.implicit_greedy_path`) read them. Same attributes and column-access protocol as ``CenteredGramOperator``.

    Examples
    --------
    >>> import numpy as np, array_api_strict as xps
    >>> X = np.array([[0., 1.], [2., 1.], [4., 5.], [6., 7.]])
    >>> G = DeviceGramOperator(xps.asarray(X), [0, 0, 1, 1])
    >>> G.submatrix([0, 1]).tolist()
    [[1.0, 0.5], [0.5, 0.5]]
    >>> G.column(1).tolist(), G.diag().tolist()
    ([0.5, 0.5], [1.0, 0.5])
    """

    def __init__(
        self, X: Any, y: ArrayLike | None = None, *, classes: Any = None, alpha: float = 0.0,
        block_bytes: int = GRAM_BLOCK_BYTES,
    ) -> None:
        xp, dev = get_namespace(X, names=["X"])
        if X.ndim != 2:
            raise ValueError(
                f"X must be a 2-D array of shape (n_samples, n_features); got an array with "
                f"{X.ndim} dimension(s). Flatten images with X.reshape(len(X), -1)."
            )
        self._xp, self._device = xp, dev
        self._wd = xp.float64 if has_float64(xp, dev) else xp.float32  # the products' dtype
        float_dtype(xp, X, dev)  # float16 / complex refused with the fix
        self.X = X
        self.n, self.p = (int(s) for s in X.shape)
        if y is None:
            codes = np.zeros(self.n, dtype=np.intp)
            classes = np.zeros(1, dtype=np.intp)
        else:
            classes, codes = class_codes(to_numpy(y), classes)
        self.codes = codes
        self._codes = from_numpy(xp, codes, dev, dtype=xp.int64)
        self.block_bytes = int(block_bytes)
        self._rows = max(1, self.block_bytes // (8 * max(self.p, 1)))  # rows per tile
        self._state = {"passes": 0, "diag": None}  # shared with with_alpha copies
        self.class_means = self._class_means(classes)
        self.means = self.class_means.means  # (C, p) float64, NumPy
        self._means = from_numpy(xp, self.means, dev, dtype=self._wd)
        if not bool(np.all(np.isfinite(self.means))):
            from .._validation import check_finite

            check_finite(to_numpy(X), "X")  # an error path: the host copy names the row
        self.alpha = check_real(alpha, "alpha", low=0, owner="DeviceGramOperator")

    # -- passes over X, tile by tile of rows ----------------------------------------------------
    def _tiles(self):
        for start in range(0, self.n, self._rows):
            stop = min(start + self._rows, self.n)
            yield start, stop, self._xp.astype(self.X[start:stop, :], self._wd, copy=False)

    def _centred(self, start, stop, Xt, means):
        """Rows ``start:stop`` (``Xt``, of the columns of ``means``) minus their class means."""
        return Xt - self._xp.take(means, self._codes[start:stop], axis=0)

    def _class_means(self, classes):
        xp = self._xp
        C = len(classes)
        self._state["passes"] += 1
        sums = None
        for start, stop, Xt in self._tiles():
            part = Xt.T @ one_hot(xp, self._codes[start:stop], C, self._wd)  # (p, C)
            sums = part if sums is None else sums + part
        counts = np.bincount(self.codes, minlength=C).astype(np.float64)
        _check_counts(classes, counts)
        means = to_numpy(sums, np.float64).T / counts[:, None]
        return ClassMeans(classes=classes, counts=counts.astype(np.int64), means=means,
                          mean=(counts @ means) / self.n, n_samples=self.n)

    def cached(self) -> AbstractContextManager[DeviceGramOperator]:
        """The context of :meth:`CenteredGramOperator.cached`; ``X`` is already on its device."""
        return contextlib.nullcontext(self)

    def diag(self) -> NDArray:
        """The diagonal (one pass, the first time; then remembered), NumPy float64."""
        if self._state["diag"] is None:
            xp = self._xp
            self._state["passes"] += 1
            sq = None
            for start, stop, Xt in self._tiles():
                R = self._centred(start, stop, Xt, self._means)
                part = xp.sum(R * R, axis=0)
                sq = part if sq is None else sq + part
            self._state["diag"] = to_numpy(sq, np.float64) / self.n
        return self._state["diag"] + self.alpha

    def columns(self, idx: ArrayLike) -> NDArray:
        """Columns ``idx`` as a ``(p, len(idx))`` NumPy float64 panel, in one pass over ``X``."""
        xp = self._xp
        idx = np.asarray(idx, dtype=np.intp).ravel()
        di = from_numpy(xp, idx, self._device, dtype=xp.int64)
        means = xp.take(self._means, di, axis=1)  # (C, b)
        self._state["passes"] += 1
        out = None
        for start, stop, Xt in self._tiles():
            # class-centred columns have zero class sums: X^T (X_idx - M_idx[y]), X not centred
            part = Xt.T @ self._centred(start, stop, xp.take(Xt, di, axis=1), means)
            out = part if out is None else out + part
        cols = to_numpy(out, np.float64) / self.n
        cols[idx, np.arange(len(idx))] += self.alpha
        return cols

    def submatrix(self, idx: ArrayLike) -> NDArray:
        """``G[idx][:, idx]`` as NumPy float64 (one pass)."""
        xp = self._xp
        idx = np.asarray(idx, dtype=np.intp).ravel()
        di = from_numpy(xp, idx, self._device, dtype=xp.int64)
        means = xp.take(self._means, di, axis=1)
        self._state["passes"] += 1
        sub = None
        for start, stop, Xt in self._tiles():
            xs = self._centred(start, stop, xp.take(Xt, di, axis=1), means)
            part = xs.T @ xs
            sub = part if sub is None else sub + part
        return to_numpy(sub, np.float64) / self.n + self.alpha * np.eye(len(idx))
