"""The ``pixsel`` command line: it only parses arguments, calls pixsel's public API and writes files.

Each subcommand lives in its own module exposing ``add_parser(subparsers)``; the parser it
adds sets ``func`` to the function that runs it. To add a subcommand, write the module and list
it in ``_COMMANDS``. Loading is :mod:`pixsel.datasets`, computing is the estimators and
:mod:`pixsel.experiments`, pictures are :mod:`pixsel.viz`, files are :mod:`pixsel.io`.

One flag set: an option means the same thing in every command that has it.

====================  ==================================================================
``DATA``              the input (.npz, .mat, .csv or a folder of class subfolders)
``-m, --method``      the method (select, path, project, evaluate)
``-k, --k``           subset size (select: one K; evaluate: a comma-separated list)
``-n, --n-components``  target dimension M (project)
``-c, --classifier``  the classifier (evaluate)
``--regularization``  within-class covariance: auto, none, ledoit-wolf or a ridge value
``--seed``            random seed (alias ``--random-state``; default 0)
``--param KEY=VALUE`` extra estimator/selector parameter, repeatable
``-o, --out DIR``     output folder
``-q, --quiet``       no progress bar, no summary
====================  ==================================================================
"""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from . import _demo, _evaluate, _path, _project, _scores, _select

__all__ = ["main", "build_parser"]

_COMMANDS = [_select, _path, _scores, _project, _evaluate, _demo]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pixsel",
        description=(
            "Sparse, cardinality-constrained feature selection for images: choose the k pixels "
            "(or features) that matter, for every k at once, with bounds on how good the choice is. "
            "Outputs are JSON and PNG files, written atomically."
        ),
        epilog=(
            "Run 'pixsel COMMAND --help' for the options of each command. Options mean the same in "
            "every command: -m/--method, -k/--k, -n/--n-components, -c/--classifier, --regularization, "
            "--seed (= --random-state), --param KEY=VALUE, -o/--out DIR, -q/--quiet."
        ),
    )
    parser.add_argument("--version", action="version", version=f"pixsel {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _COMMANDS:
        module.add_parser(sub)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``pixsel`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, TypeError, FileNotFoundError, KeyError) as exc:
        print(f"pixsel {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"pixsel {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
