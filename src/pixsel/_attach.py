"""Lazy attributes of a package (PEP 562): a name is imported from its module on first use.

A package's ``__init__`` lists where each public name lives and hands the module-level
``__getattr__`` and ``__dir__`` to Python::

    __getattr__, __dir__ = attach(__name__, {"SparseLDASelector": "_lda", ...})

so that ``from pixsel.selection import SparseLDASelector`` imports ``_lda`` (and what it needs)
and nothing else: a command that fits one selector does not pay for the modules of the others
(each costs its own imports: SciPy submodules, Numba, scikit-learn helpers). Submodules stay
reachable as attributes (``pixsel.selection._cv``) without an import statement, as they were
when the ``__init__`` imported them all. What ``import *`` and :func:`dir` list is unchanged.
"""

from __future__ import annotations

import importlib

__all__ = ["attach"]


def attach(package, names):
    """``(__getattr__, __dir__)`` for ``package`` whose ``names`` map a public name to its submodule.

    Examples
    --------
    >>> getattr_, dir_ = attach("json", {"dumps_again": "encoder"})
    >>> "dumps_again" in dir_()
    True
    """

    def __getattr__(name):
        module_name = names.get(name)
        if module_name is not None:
            value = getattr(importlib.import_module(f"{package}.{module_name}"), name)
        elif name.startswith("__"):  # dunder probes (__wrapped__, __path__ of a module, ...)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        else:
            try:  # a submodule not imported yet, e.g. pixsel.selection._cv
                value = importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(names))

    return __getattr__, __dir__
