"""The ``pixsel`` command line: it only parses arguments, calls pixsel's public API and writes files.

Each subcommand lives in its own module exposing ``add_parser(subparsers)``; the parser it
adds sets ``func`` to the function that runs it. To add a subcommand, write the module and list
it in ``_COMMANDS``. Loading is :mod:`pixsel.datasets`, computing is the estimators and
:mod:`pixsel.experiments`, pictures are :mod:`pixsel.viz`, files are :mod:`pixsel.io`.

One flag set: an option means the same thing, and has the same default, in every command that
has it (``tests/cli/test_cli_one_meaning.py`` checks the defaults); one that does not apply to
the data or the method is refused.

====================  ==================================================================
``DATA``              the input (.npz, .mat, .csv or a folder of class subfolders)
``--split``           which part of a train/test .npz (select, path, scores, project; evaluate
                      uses both: the train part to select and fit, the test part to measure)
``-m, --method``      the method (select, path, project, evaluate)
``-k, --k``           subset size (select: one K; evaluate: a comma-separated list)
``-n, --n-components``  target dimension M (project)
``-c, --classifier``  the classifier (evaluate)
``--regularization``  sparse LDA's within-class covariance: ledoit-wolf-floor (the default
                      everywhere, as SparseLDASelector's), ledoit-wolf, rda, auto, none or a ridge value
``--seed``            random seed (alias ``--random-state``; default 0)
``--param KEY=VALUE`` extra estimator/selector parameter, repeatable
``-o, --out DIR``     output folder; one that already holds files is refused (exit 2) unless
                      ``--overwrite``
``-q, --quiet``       no progress bar, no summary
``--progress``        progress as plain lines when stderr is not a terminal (a log); on a
                      terminal a bar shows anyway
``--debug``           on an error, print the traceback too
====================  ==================================================================

Exit status: 0 success; 2 a user error, explained in ONE line on stderr that says how to fix it;
130 interrupted by Ctrl-C (a partial result that was kept carries ``"status": "interrupted"``
in its JSON); 1 a bug in pixsel (with its traceback). Output files are written atomically with
the permissions of an ordinary new file (``0644`` under the usual umask).
"""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from . import _demo, _evaluate, _path, _place, _project, _scores, _select

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NoReturn

__all__ = ["main", "build_parser", "console"]

_COMMANDS = [_select, _path, _scores, _project, _evaluate, _demo, _place]


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
            "--seed (= --random-state), --param KEY=VALUE, -o/--out DIR (--overwrite to reuse a folder that "
            "holds files), -q/--quiet, --progress, --debug. "
            "Exit status: 0 success, 2 user error (one line on stderr saying how to fix it), "
            "130 interrupted (Ctrl-C), 1 a bug (with a traceback)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"pixsel {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_debug(parser, False)
    for module in _COMMANDS:
        module.add_parser(sub)
    for command_parser in sub.choices.values():
        _add_debug(command_parser, argparse.SUPPRESS)  # also after the command, same meaning
    return parser


def _add_debug(parser, default):
    parser.add_argument("--debug", action="store_true", default=default,
                        help="on an error, also print the Python traceback")


def check_out_dir(out, *, overwrite=False) -> None:
    """Refuse an output folder that cannot be made before any work is done (nothing is created).

    ``out`` naming an existing file is a ``FileExistsError``; a file on the way to it a
    ``NotADirectoryError``; a folder without write permission a ``PermissionError``; an existing
    folder that holds files, without ``overwrite``, a :class:`~pixsel.cli._errors.UsageError`.
    """
    import errno
    import os
    from pathlib import Path

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise FileExistsError(errno.EEXIST, "exists", str(out))
    if out.is_dir() and not overwrite:
        held = sorted(p.name for p in out.iterdir())
        if held:
            from ._errors import UsageError

            shown = ", ".join(held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
            raise UsageError(f"the output folder {out} already holds files ({shown}); add --overwrite to "
                             "replace them, or choose a new folder with --out DIR.")
    parent = out
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(parent))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, "Permission denied", str(parent))


def _warn_in_one_line(command, params=()):
    """Show warnings as ``pixsel CMD: warning: ...`` lines (no file names, no source lines), in the
    command's words (:func:`pixsel.cli._errors.in_cli_words`).

    A warning that differs from one shown only in its numbers (the same estimator warning from
    every cross-validation fold, component or k) is shown once; ``show.summary()`` then writes
    one line that says how many more came."""
    import re

    from ._errors import in_cli_words

    repeats = {}  # the warning with its numbers masked -> [its first text, how many more came]

    def show(message, category, filename, lineno, file=None, line=None):
        from .._progress import _emit, is_terminal

        text = in_cli_words(" ".join(str(message).split()), command, params)
        stream = file or sys.stderr
        key = (id(stream), re.sub(r"\d+(\.\d+)?", "#", re.sub(r"\[[^\]]*\]", "[#]", text)))
        if key in repeats:
            repeats[key][1] += 1
            return
        repeats[key] = [text, 0]
        # the one progress writer: on a terminal the line goes above the bar, never glued to it
        _emit(f"pixsel {command}: warning: {text}", stream, terminal=is_terminal(stream))

    def summary(stream=None):
        from .._progress import _emit, is_terminal

        stream = stream or sys.stderr
        for first, more in repeats.values():
            if more:
                head = first if len(first) <= 60 else first[:57] + "..."
                _emit(f"pixsel {command}: warning: the warning '{head}' came {more} more time(s), with other "
                      "numbers (other folds, components or sizes): shown once", stream,
                      terminal=is_terminal(stream))
        repeats.clear()

    show.summary = summary
    return show


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pixsel`` console script; returns the exit status.

    Exit status: 0 success; 2 a user error, explained in one line on stderr (``--debug`` adds the
    traceback); 130 interrupted by Ctrl-C (a partial result kept is marked ``"status":
    "interrupted"``); 1 an unexpected error (a bug: the traceback is printed). See
    :mod:`pixsel.cli._errors`.
    """
    import warnings

    from ._errors import EXIT_INTERRUPTED, EXIT_USAGE, in_cli_words, user_message

    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    command = args.command
    if extra:  # said with the command's own usage, not the top-level one
        no_param = " ('pixsel " + command + " --help' lists its options)" if "--param" in extra else ""
        _subparser(parser, command).error(f"unrecognized arguments: {' '.join(extra)}{no_param}")
    params = [str(p).split("=", 1)[0].strip() for p in getattr(args, "param", None) or ()]
    try:
        with warnings.catch_warnings():
            # what pixsel says about the data and the results (UserWarning and its kinds, such as
            # ConvergenceWarning) is part of the command's output: always a line on stderr, whatever
            # the interpreter's filters (deprecations keep them)
            warnings.simplefilter("always", UserWarning)
            warnings.showwarning = show = _warn_in_one_line(command, params)
            if getattr(args, "out", None) is not None:
                check_out_dir(args.out, overwrite=getattr(args, "overwrite", False))
            code = int(args.func(args) or 0)
            show.summary()
            return code
    except KeyboardInterrupt:
        print(f"pixsel {command}: interrupted (Ctrl-C); nothing more was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        message = user_message(exc)
        if message is None:
            raise
        if args.debug:
            import traceback

            traceback.print_exc()
        print(f"pixsel {command}: error: {in_cli_words(message, command, params)}", file=sys.stderr)
        return EXIT_USAGE


def _subparser(parser, command):
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def console(argv: Sequence[str] | None = None) -> NoReturn:
    """The ``pixsel`` console script and ``python -m pixsel``: :func:`main`, then a quick exit.

    An ordinary exit tears down every module the command imported (about 1800 once
    scikit-learn, SciPy and Matplotlib are in), a noticeable wait after the work is done and
    the files are written. Here, once
    :func:`main` returns, what an ordinary exit does that matters is done -- the ``atexit``
    handlers (clusters, worker pools, temporary folders, logging) and the flush of stdout and
    stderr -- and the process ends with :func:`os._exit`. While another non-daemon thread
    still runs, or an exception escapes :func:`main`, the exit is the ordinary one. Tests and
    programs call :func:`main`, which returns the status.
    """
    import atexit
    import os
    import threading

    code = main(argv)
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)
    if others or run_exitfuncs is None:
        raise SystemExit(code)
    run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (pixsel ... | head) or stream: nothing to keep
            pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()
