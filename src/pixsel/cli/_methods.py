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
    exact: bool = False  # has solver='exact' (and its limits)
    #: the estimator class's name in :mod:`pixsel` (``--param`` keys are checked against its parameters)
    estimator: str = ""
    uses_k: bool = True  # -k is the number of features selected

    def estimator_class(self):
        import pixsel

        return getattr(pixsel, self.estimator)


METHODS: dict[str, Method] = {}


def register(method: Method) -> Method:
    METHODS[method.name] = method
    return method


def _solver_kwargs(args):
    """solver, its limits and progress from the command line (only the ones given)."""
    from ._common import show_progress

    kwargs = {"progress": show_progress(args)}
    if getattr(args, "solver", None):
        kwargs["solver"] = args.solver
    for name in ("time_limit", "node_limit", "gap_tol"):
        if getattr(args, name, None) is not None:
            kwargs[name] = getattr(args, name)
    return kwargs


def _build_gslda(args, k, params):
    from .. import SparseLDASelector
    from ._common import regularization

    # the regularization is always passed: one default in every command, written in the JSON
    kwargs = {"regularization": regularization(args)}
    if getattr(args, "direction", None) is not None:
        kwargs["direction"] = args.direction
    kwargs.update(_solver_kwargs(args))
    kwargs.update(params)
    return SparseLDASelector(k, **kwargs)


register(Method("gslda", "greedy sparse LDA (two or more classes; --param criterion=trace for the papers' eigenvalue sum): best separability for exactly k pixels", _build_gslda, exact=True,
                estimator="SparseLDASelector"))


def _build_cardinal_spls(args, k, params):
    from .. import CardinalSPLSSelector

    return CardinalSPLSSelector(k, **params)


def _build_spls(args, k, params):
    from .. import SPLSSelector

    params = dict(params)
    if "eta" not in params:
        raise ValueError(
            "method 'spls' (SPLS-eta) needs --param eta=VALUE with VALUE in (0, 1); it selects as many "
            "features as eta gives and does not use -k. Use --method cardinal-spls for exactly k features."
        )
    return SPLSSelector(params.pop("eta"), **params)


register(Method(
    "cardinal-spls",
    "cardinal sparse PLS (classes one-hot or continuous y): exactly k features "
    "(--param n_components=5)",
    _build_cardinal_spls,
    estimator="CardinalSPLSSelector",
))
register(Method(
    "spls",
    "SPLS-eta (Chun & Keles): as many features as --param eta=VALUE gives; -k is not used",
    _build_spls,
    estimator="SPLSSelector",
    uses_k=False,
))


def _build_subspace(args, k, params):
    from ..selection import SubspaceScoreSelector

    kwargs = dict(random_state=args.seed)
    kwargs.update(params)
    return SubspaceScoreSelector(k, **kwargs)


register(Method(
    "subspace",
    "subspace scores (unsupervised): rank-m leverage + gamma * residual; k distinct pixels drawn "
    "by the scores (--param mode=top for the highest scores, mode=sample for the rescaled sketch; "
    "--param rank=40 --param gamma=theory; --seed for the draws and the Krylov SVD)",
    _build_subspace,
    supervised=False,
    estimator="SubspaceScoreSelector",
))


def _build_gspca(args, k, params):
    from .. import SparsePCASelector

    kwargs = dict(certificate=True)  # the report shows the certified bound (about a second at p = 1024)
    if args.direction:
        kwargs.update(direction=args.direction)
    if getattr(args, "always_select", None) is not None:
        # the largest eigenvalue does not split over forced features: the forward pass, no certificate
        kwargs.update(certificate=False, direction=args.direction or "forward")
    kwargs.update(_solver_kwargs(args))
    kwargs.update(params)
    return SparsePCASelector(k, **kwargs)


register(Method("gspca", "greedy sparse PCA (unsupervised): most variance of the first sparse component on exactly k pixels",
                _build_gspca, supervised=False, exact=True, estimator="SparsePCASelector"))
