"""Optional dependencies: import one, or say which extra to install.

The runtime dependencies (``pip install pixsel``) are what the selectors, the command line and
``pixsel demo`` need. Packages only some functions need live in extras of ``pyproject.toml``;
those functions import them with :func:`require`, which raises :class:`MissingExtraError` (an
``ImportError``) naming the extra and the package when it is missing; the command line prints
its message as a user error (exit 2).
"""

from __future__ import annotations

import importlib

__all__ = ["MissingExtraError", "require", "missing", "numba"]


class MissingExtraError(ImportError):
    """An optional package is missing; the message says which extra of pixsel installs it."""


def require(module: str, *, extra: str, package: str, needed_for: str):
    """Import ``module``, or raise an ``ImportError`` saying how to install it.

    Parameters
    ----------
    module : str
        The module to import, e.g. ``"skimage.feature"``.
    extra : str
        The extra of pixsel that installs it, e.g. ``"images"``.
    package : str
        Its name on PyPI, e.g. ``"scikit-image"``.
    needed_for : str
        What needs it, completing "... needs ``package``", e.g. ``"LGBP features"``.

    Returns
    -------
    module

    Raises
    ------
    MissingExtraError
        When ``module`` cannot be imported.

    Examples
    --------
    >>> require("json", extra="images", package="json", needed_for="this example").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise missing(extra=extra, package=package, needed_for=needed_for) from None


def missing(*, extra: str, package: str, needed_for: str) -> MissingExtraError:
    """The error :func:`require` raises, for a caller that knows already that ``package`` is missing.

    Examples
    --------
    >>> print(missing(extra="numba", package="numba", needed_for="The exact search"))
    The exact search needs the optional package 'numba', which is not installed. Install it with `pip install 'pixsel[numba]'` (or `pip install numba`).
    """
    return MissingExtraError(
        f"{needed_for} needs the optional package {package!r}, which is not installed. Install it with "
        f"`pip install 'pixsel[{extra}]'` (or `pip install {package}`)."
    )


#: What the compiled kernels serve, completing "... needs the optional package 'numba'".
NUMBA_NEEDED_FOR = ("A compiled kernel (the branch and bound of an exact search, or a greedy loop asked for with "
                    "compiled=True)")


def numba():
    """The ``numba`` module, or :class:`MissingExtraError` naming the extra ``numba``.

    Numba is optional: without it every greedy path, selector and projection runs its NumPy
    kernels (the oracles of the compiled ones), and the exact searches, which are compiled
    branch and bounds, say how to install it. The compiled kernels' modules import it through
    here, so a missing Numba is one clear error wherever a compiled kernel is asked for.
    """
    return require("numba", extra="numba", package="numba", needed_for=NUMBA_NEEDED_FOR)
