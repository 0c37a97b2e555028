"""Scoped BLAS thread limits: the one place pixsel talks to ``threadpoolctl``.

Many small factorizations (a branch-and-bound search, the blocked Krylov steps) run several
times faster on one BLAS thread than on many; large products want all cores. Kernels that
know which they are use :func:`blas_limit` as a context; the limit is undone on exit, so no
global state changes.
"""

from __future__ import annotations

import functools
from contextlib import nullcontext

__all__ = ["blas_limit"]


@functools.lru_cache(maxsize=1)
def _controller():
    """One ``ThreadpoolController`` (scanning the loaded libraries is slow; limiting is cheap).

    SciPy's linear algebra is imported first so that its BLAS (which may be a different library
    from NumPy's) is among the ones the controller knows.
    """
    import scipy.linalg  # noqa: F401  - load SciPy's BLAS before the scan
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_limit(n=1):
    """Context that limits the BLAS libraries to ``n`` threads; ``n=None`` changes nothing.

    Examples
    --------
    >>> import numpy as np
    >>> with blas_limit(1):
    ...     float(np.ones((3, 3)).sum())
    9.0
    """
    if n is None:
        return nullcontext()
    controller = _controller()
    if _blas_threads_are(controller, int(n)):
        # already so (an outer limit, or a one-core machine): nothing to change or restore, and
        # the limit's own bookkeeping (it reads every library's settings) costs more than a
        # small product it guards
        return nullcontext()
    return controller.limit(limits=int(n), user_api="blas")


def _blas_threads_are(controller, n):
    """Whether every BLAS library the controller knows runs ``n`` threads now (one call each)."""
    libs = [lib for lib in controller.lib_controllers if lib.user_api == "blas"]
    return bool(libs) and all(lib.get_num_threads() == n for lib in libs)
