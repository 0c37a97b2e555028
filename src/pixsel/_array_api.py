"""The array API in one place: namespaces, devices, the dtype policy and the few shims.

pixsel's kernels and statistics run on any array library that implements the Python array API
standard (through ``array_api_compat``: NumPy, PyTorch on CPU or CUDA, CuPy, array-api-strict).
NumPy stays the default and the fastest path on a CPU: a NumPy array takes the NumPy code
(unchanged, tuned), every other namespace the standard code written against ``xp``.

The rules:

* **Everything follows the data.** The namespace and the device of the result are those of the
  input arrays. Two array inputs from different libraries, or on different devices, are an
  error that names the fix (:func:`get_namespace`); plain Python lists follow the arrays.
* **Labels and metadata are NumPy.** Class labels are small; they are coded on the host
  (``np.unique``) and the integer codes are sent to the device once. ``classes`` and ``counts``
  of the statistics stay NumPy; everything of size ``p`` lives on the data's device.
* **dtype policy** (:func:`float_dtype`): on the NumPy path, statistics accumulate in float64
  (as they always have). On another namespace the work dtype is X's own: float32 stays float32
  on the device (what a GPU is fast at; checked against float64 in the tests), float64 stays
  float64, integers and booleans become float64 (float32 on a device without float64). float16
  and bfloat16 are refused: a ``p x p`` scatter accumulated in 11 bits of mantissa loses every
  digit of a covariance.
* **On a CPU, the NumPy code runs** (:func:`runs_on_host`). pixsel's NumPy kernels are tuned
  (SYRK statistics, Numba-compiled greedy paths, LAPACK solves) and NumPy is the fastest path on
  a CPU, so arrays of another library that live on a CPU (PyTorch's ``cpu`` device,
  array-api-strict's ``CPU_DEVICE``) are viewed as NumPy without a copy (:func:`host_view`, DLPack),
  the NumPy kernel runs, and the results come back in X's library, on its device and in the
  dtype the array-API kernel would have returned (:func:`call_on_host`; computed in float64
  like NumPy's, so a float32 result is float64 rounded once). The array-API kernels run on every
  other device (CUDA, CuPy, array-api-strict's fake devices). Measured with ``bench_array_api``
  (one thread, n = 5,000 x 4096): forced on a CPU, the array-API kernels cost 0.9-1.4 x NumPy
  on array-api-strict (the same BLAS) for statistics, scores, SPLS and the implicit passes, 4-12 x
  for the greedy paths (one host round-trip per step where NumPy's kernel is compiled), and
  1.1-5.8 x on PyTorch's CPU build (its own ``X^T X`` is 1.9 x NumPy's). They are faster only
  for float32 statistics (0.6 x on array-api-strict), by accumulating in float32 where NumPy
  accumulates in float64; the policy keeps NumPy's precision, so on a CPU every library gets
  the NumPy result.
  The private switch :func:`_force_array_api` (tests and the benchmark only) makes every kernel
  take its array-API code on a CPU too, so each ``*_xp`` kernel is still checked against NumPy
  in CI.
* **Shims** for what the standard lacks, each one small and documented here: :func:`to_numpy`
  (the standard has no way back to the host), :func:`one_hot` (no ``bincount``),
  :func:`sign_flip` (no multi-axis integer indexing).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses

import numpy as np

__all__ = [
    "get_namespace",
    "is_numpy",
    "float_dtype",
    "has_float64",
    "in_working_precision",
    "to_numpy",
    "to_host",
    "from_numpy",
    "one_hot",
    "sign_flip",
    "dispatch_enabled",
    "device_of",
    "is_cpu",
    "runs_on_host",
    "host_view",
    "call_on_host",
]

# tests and the benchmark only: run the array-API kernels on a CPU too (see _force_array_api)
_FORCE_ARRAY_API = contextvars.ContextVar("pixsel_force_array_api", default=False)


def is_numpy(xp) -> bool:
    """True for NumPy (the module itself or ``array_api_compat``'s wrapper of it)."""
    if xp is np:
        return True
    from array_api_compat import is_numpy_namespace

    return is_numpy_namespace(xp)


def _is_array(x) -> bool:
    if type(x) is np.ndarray:  # the common case, without the array-API probe (which says True)
        return True
    if x is None or isinstance(x, (list, tuple, int, float, bool, str)):
        return False
    from array_api_compat import is_array_api_obj

    return is_array_api_obj(x) and type(x).__module__.split(".")[0] != "dask"


def _library(x) -> str:
    return type(x).__module__.split(".")[0]


def _fix_hint(lib, to, ref):
    """How to put the array ``to`` into library ``lib`` (the library of ``ref``)."""
    if lib == "torch":
        return f"{to} = torch.asarray({to}, device={ref}.device)"
    if lib == "cupy":
        return f"{to} = cupy.asarray({to})"
    if lib == "numpy":
        return f"{to} = numpy.asarray({to}) ({to}.cpu().numpy() for a tensor on a GPU)"
    return f"{to} = xp.asarray({to}, device={ref}.device) with xp the namespace of {ref}"


def device_of(x):
    """The device of an array (``'cpu'`` for NumPy)."""
    from array_api_compat import device

    return device(x)


def get_namespace(*arrays, names=None):
    """The array namespace and device shared by ``arrays`` (``None`` entries and lists skipped).

    Parameters
    ----------
    *arrays : arrays, lists or None
    names : sequence of str, optional
        The argument names, for the messages (default ``X``, ``y``, ...).

    Returns
    -------
    xp : module
        NumPy itself for NumPy input (and when no argument is an array), otherwise the
        ``array_api_compat`` namespace.
    device : object or None
        The common device (None for NumPy).

    Raises
    ------
    TypeError
        If the arrays come from different libraries.
    ValueError
        If they live on different devices.

    Examples
    --------
    >>> import numpy as np
    >>> xp, dev = get_namespace(np.ones(3), [0, 1, 2])
    >>> xp is np, dev
    (True, None)
    """
    if all(a is None or type(a) is np.ndarray for a in arrays):  # plain NumPy: what the checks below find
        return np, None
    names = list(names or ["X", "y", "sample_weight"][: len(arrays)])
    names += [f"argument {i}" for i in range(len(names), len(arrays))]
    found = [(n, a) for n, a in zip(names, arrays) if _is_array(a)]
    if not found:
        return np, None
    libs = {}
    for n, a in found:
        libs.setdefault(_library(a), n)
    if len(libs) > 1:
        (lib0, n0), (lib1, n1) = list(libs.items())[:2]
        raise TypeError(
            f"{n0} is a {lib0} array but {n1} is a {lib1} array; pixsel follows the library of "
            f"{n0} and does not mix libraries. Convert {n1} first: {_fix_hint(lib0, n1, n0)}."
        )
    lib = next(iter(libs))
    if lib == "numpy":
        return np, None
    from array_api_compat import array_namespace

    xp = array_namespace(*(a for _, a in found))
    devices = [(n, device_of(a)) for n, a in found]
    for n, d in devices[1:]:
        if d != devices[0][1]:
            raise ValueError(
                f"{devices[0][0]} is on device {devices[0][1]!r} but {n} is on {d!r}; pixsel "
                f"computes on the device of {devices[0][0]} and does not move data behind your "
                f"back. Move {n} there first, e.g. {n}.to({devices[0][0]}.device) in PyTorch."
            )
    return xp, devices[0][1]


def dispatch_enabled() -> bool:
    """Whether scikit-learn's ``array_api_dispatch`` is on (estimators then follow X's library)."""
    import sklearn

    return bool(sklearn.get_config().get("array_api_dispatch", False))


def has_float64(xp, device=None) -> bool:
    """Whether ``device`` of namespace ``xp`` computes in float64 (not every GPU does)."""
    try:
        info = xp.__array_namespace_info__()
        return "float64" in info.dtypes(device=device, kind="real floating")
    except (AttributeError, TypeError):  # pragma: no cover - namespaces without the info API
        return True


def in_working_precision(xp, A, B=None):
    """``(A, B)`` cast to float64 where ``A``'s device has it, else to float32 (``B=None`` stays None)."""
    hi = xp.float64 if has_float64(xp, device_of(A)) else xp.float32
    return xp.astype(A, hi), None if B is None else xp.astype(B, hi)


def float_dtype(xp, X, device=None, *, name="X"):
    """The floating dtype pixsel computes in for ``X`` on a non-NumPy namespace.

    float32 and float64 are kept; integers and booleans become float64 (float32 on a device
    without float64); float16, bfloat16 and complex dtypes raise.

    Examples
    --------
    >>> import array_api_strict as xps
    >>> float_dtype(xps, xps.asarray([1, 2]))
    array_api_strict.float64
    """
    dt = X.dtype
    if dt in (xp.float32, xp.float64):
        if dt == xp.float64 and not has_float64(xp, device):  # pragma: no cover - such arrays can't exist
            return xp.float32
        return dt
    if xp.isdtype(dt, ("integral", "bool")):
        return xp.float64 if has_float64(xp, device) else xp.float32
    if xp.isdtype(dt, "real floating"):  # float16, bfloat16
        raise TypeError(
            f"{name} has dtype {dt}, which cannot hold the sums of squares pixsel accumulates "
            f"(11 bits or fewer of mantissa). Convert it first: {name}.astype(float32) in NumPy, "
            f"{name}.to(torch.float32) in PyTorch."
        )
    raise TypeError(f"{name} must hold real numbers; got dtype {dt}.")


def to_numpy(x, dtype=None):
    """A NumPy copy (or view) of an array of any namespace and device: the way back to the host.

    Examples
    --------
    >>> import array_api_strict as xps
    >>> to_numpy(xps.asarray([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """
    if isinstance(x, np.ndarray) or np.isscalar(x):
        return np.asarray(x, dtype=dtype)
    lib = _library(x)
    if lib == "torch":
        out = x.detach().cpu().numpy()
    elif lib == "cupy":
        out = x.get()
    else:
        try:
            out = np.asarray(x)
        except (TypeError, ValueError, RuntimeError):  # not on the host: move it there first
            from array_api_compat import array_namespace, to_device

            host = array_namespace(x).__array_namespace_info__().default_device()
            out = np.asarray(to_device(x, host))
    return np.asarray(out, dtype=dtype)


def to_host(*arrays, names=None):
    """The arrays as NumPy for host-only work (the exact search): arrays of one other library
    (on one device) are copied to the host once; NumPy arrays, lists and None pass unchanged.

    Examples
    --------
    >>> import array_api_strict as xps
    >>> a, b = to_host(xps.asarray([1.0]), None)
    >>> type(a).__name__, b
    ('ndarray', None)
    """
    xp, _ = get_namespace(*arrays, names=names or ["A", "B"][: len(arrays)])
    if is_numpy(xp):
        return arrays
    return tuple(a if not _is_array(a) else to_numpy(a) for a in arrays)


def from_numpy(xp, a, device=None, dtype=None):
    """A NumPy array ``a`` in namespace ``xp`` on ``device`` (``a`` itself for NumPy)."""
    if is_numpy(xp):
        return np.asarray(a, dtype=dtype)
    return xp.asarray(np.ascontiguousarray(a), dtype=dtype, device=device)


def one_hot(xp, codes, n_classes, dtype):
    """``H[i, c] = (codes[i] == c)`` of shape ``(n, C)``; the standard has no ``bincount``,
    so class counts are ``sum(H, axis=0)`` and class sums ``X^T H``."""
    cls = xp.arange(n_classes, dtype=codes.dtype, device=device_of(codes))
    return xp.astype(codes[:, None] == cls[None, :], dtype)


def sign_flip(xp, V):
    """:func:`pixsel._validation.sign_flip` for any namespace: each row's largest-|.| entry is
    made positive, ties to the lowest index (``argmax`` returns the first), zero rows kept."""
    rows = V[None, :] if V.ndim == 1 else V
    if rows.shape[0] == 0 or rows.shape[1] == 0:
        return xp.asarray(V, copy=True)
    idx = xp.argmax(xp.abs(rows), axis=1)
    cols = xp.arange(rows.shape[1], dtype=idx.dtype, device=device_of(V))
    picked = xp.sum(xp.where(cols[None, :] == idx[:, None], rows, xp.zeros_like(rows)), axis=1)
    s = xp.where(picked < 0, -xp.ones_like(picked), xp.ones_like(picked))
    out = rows * s[:, None]
    return out[0, :] if V.ndim == 1 else out


@contextlib.contextmanager
def _force_array_api(on: bool = True):
    """Private switch (tests and ``bench_array_api`` only): inside, arrays of another library on
    a CPU take the array-API kernels instead of the NumPy ones (:func:`runs_on_host` is False),
    so every ``*_xp`` kernel is exercised without a GPU. Scoped to the context (a ContextVar)."""
    token = _FORCE_ARRAY_API.set(bool(on))
    try:
        yield
    finally:
        _FORCE_ARRAY_API.reset(token)


def is_cpu(xp, device) -> bool:
    """Whether ``device`` of namespace ``xp`` is the host CPU, where NumPy can view the memory:
    NumPy, PyTorch's ``cpu``, array-api-strict's ``CPU_DEVICE``. CuPy, CUDA and any device this
    function does not know are not (their arrays take the array-API kernels)."""
    if is_numpy(xp):
        return True
    from array_api_compat import is_array_api_strict_namespace, is_torch_namespace

    if is_torch_namespace(xp):
        return getattr(device, "type", device) == "cpu"
    if is_array_api_strict_namespace(xp):
        return str(device) == str(xp.Device("CPU_DEVICE"))
    return False


def runs_on_host(xp, device) -> bool:
    """The CPU policy: True when NumPy's kernel should run for arrays of ``xp`` on ``device``
    (NumPy itself, or another library on a CPU outside :func:`_force_array_api`)."""
    return is_numpy(xp) or (not _FORCE_ARRAY_API.get() and is_cpu(xp, device))


def host_view(x):
    """A NumPy view of an array that lives on the CPU, without a copy (DLPack); NumPy arrays,
    lists, scalars and None pass unchanged. The view shares the caller's memory: pixsel's NumPy
    kernels never write into their inputs.

    Examples
    --------
    >>> import array_api_strict as xps
    >>> a = xps.asarray([1.0, 2.0])
    >>> host_view(a).tolist()
    [1.0, 2.0]
    """
    if not _is_array(x) or isinstance(x, np.ndarray):
        return x
    if _library(x) == "torch":
        x = x.detach().resolve_conj().resolve_neg()
    return np.from_dlpack(x)


def _back(xp, device, obj, dtype):
    """``obj`` with every floating NumPy array (inside tuples and dataclasses too) put in ``xp``
    on ``device`` in ``dtype``; integer arrays (labels, counts, indices) stay NumPy."""
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind != "f":
            return obj
        return xp.asarray(np.ascontiguousarray(obj, dtype=np.dtype(_np_dtype_name(xp, dtype))),
                          device=device)
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(_back(xp, device, o, dtype) for o in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {f.name: _back(xp, device, getattr(obj, f.name), dtype)
                   for f in dataclasses.fields(obj) if f.init}
        return dataclasses.replace(obj, **changes)
    return obj


def _np_dtype_name(xp, dtype):
    return "float32" if dtype == xp.float32 else "float64"


def call_on_host(fn, xp, device, *args, dtype=None, **kwargs):
    """Run the NumPy function ``fn`` on host views of the array arguments (:func:`host_view`,
    inside tuples too)
    and return its floating results in ``xp`` on ``device``, in ``dtype`` (default: the work
    dtype of the first argument, :func:`float_dtype`, as the array-API kernel would return).

    Examples
    --------
    >>> import array_api_strict as xps
    >>> import numpy as np
    >>> out = call_on_host(np.cumsum, xps, None, xps.asarray([1.0, 2.0]))
    >>> type(out).__module__.split(".")[0], out.dtype
    ('array_api_strict', array_api_strict.float64)
    """
    if dtype is None:
        dtype = float_dtype(xp, args[0], device) if args and _is_array(args[0]) else xp.float64
    def view(a):
        return tuple(view(b) for b in a) if isinstance(a, tuple) else host_view(a)

    args = tuple(view(a) for a in args)
    kwargs = {k: view(v) for k, v in kwargs.items()}
    return _back(xp, device, fn(*args, **kwargs), dtype)
