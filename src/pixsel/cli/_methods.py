"""The selection methods of ``pixsel select``: name -> how to build the estimator.

A method is registered with :func:`register`; its ``build(args, k, params)`` returns an
unfitted scikit-learn selector (``params`` are the ``--param KEY=VALUE`` pairs). Anything in
``--param`` is passed to the estimator's constructor unless the builder consumes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["Method", "METHODS", "register"]


@dataclass(frozen=True)
class Method:
    name: str
    help: str
    build: Callable
    supervised: bool = True


METHODS: dict[str, Method] = {}


def register(method: Method) -> Method:
    METHODS[method.name] = method
    return method


def _regularization(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def _build_gslda(args, k, params):
    from .. import SparseLDASelector

    kwargs = dict(direction=args.direction or "dual", regularization=_regularization(args.regularization))
    kwargs.update(params)
    return SparseLDASelector(k, **kwargs)


register(Method("gslda", "greedy sparse LDA (two classes): best separability for exactly k pixels", _build_gslda))
