"""The exit-code contract of the ``pixsel`` command and the one-line messages of user errors.

=====  ==================================================================================
code   meaning
=====  ==================================================================================
0      success
1      a bug in pixsel: the traceback is printed (please report it)
2      a user error (bad input file, bad option, unwritable output): ONE line on stderr
       that says how to fix it, no traceback (``--debug`` prints it too)
130    interrupted (Ctrl-C); a partial result that was kept is written with
       ``"status": "interrupted"`` in its JSON
=====  ==================================================================================

:func:`user_message` decides what is a user error: the exceptions pixsel raises for bad input
and options (``ValueError``, ``TypeError``, ``KeyError``), files that cannot be read or written
(``OSError`` and its kinds), unreadable archives (``zipfile.BadZipFile``, ``EOFError`` of a
truncated file) and a missing optional package (``pixsel._optional.MissingExtraError``, whose
message names the extra to install). Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import zipfile

__all__ = ["EXIT_OK", "EXIT_BUG", "EXIT_USAGE", "EXIT_INTERRUPTED", "UsageError", "user_message", "in_cli_words"]

EXIT_OK, EXIT_BUG, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(ValueError):
    """A bad combination of command-line options; the message says which option to change."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def user_message(exc: BaseException) -> str | None:
    """The one-line message of a user error, or None when ``exc`` is a bug (keep the traceback)."""
    from .._optional import MissingExtraError

    if isinstance(exc, MissingExtraError):
        return _one_line(exc)
    if isinstance(exc, zipfile.BadZipFile):
        return _one_line(
            f"the .npz file is not a valid zip archive ({exc}): it is corrupt or truncated; "
            "write it again with numpy.savez(path, X=X, y=y)."
        )
    if isinstance(exc, EOFError):
        return _one_line(f"the data file ended early ({exc}): it is truncated; write it again.")
    if isinstance(exc, PermissionError):
        where = exc.filename or "the output"
        return _one_line(f"permission denied: {where}; choose a folder you can write to with --out DIR "
                         "(or read access to the input).")
    if isinstance(exc, IsADirectoryError):
        return _one_line(f"{exc.filename or exc} is a folder where a file was expected; give a file path.")
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        where = exc.filename or exc
        return _one_line(f"{where} exists and is not a folder; --out names the output FOLDER: choose a new "
                         "name or remove the file.")
    if isinstance(exc, FileNotFoundError):
        return _one_line(exc.strerror and exc.filename and f"{exc.strerror}: {exc.filename}" or str(exc))
    if isinstance(exc, OSError):
        return _one_line(f"{exc.strerror or exc}{': ' + str(exc.filename) if exc.filename else ''}; check the "
                         "path, the free disk space and the permissions.")
    if isinstance(exc, KeyError):
        return _one_line(exc.args[0] if exc.args else exc)
    if isinstance(exc, (ValueError, TypeError)):
        return _one_line(exc)
    return None


#: per command, the estimator parameters that a flag sets: messages name the flag the user typed
_FLAGS = {
    "select": {"n_features_to_select": "-k", "time_limit": "--time-limit", "node_limit": "--node-limit",
               "gap_tol": "--gap-tol", "random_state": "--seed", "direction": "--direction",
               "regularization": "--regularization", "solver": "--solver", "rule": "--rule",
               # the selector's own folds (--direction cv); --cv sets those of --k auto
               "cv": "--param cv", "mode": "--param mode"},
    "path": {"time_limit": "--time-limit", "n_jobs": "--n-jobs", "regularization": "--regularization",
             "solver": "--solver"},
    "project": {"n_components": "-n", "random_state": "--seed"},
    "scores": {"rank": "--rank", "gamma": "--gamma", "n_neighbors": "--n-neighbors", "random_state": "--seed"},
    "evaluate": {"n_restarts": "--restarts", "test_size": "--test-size", "random_state": "--seed",
                 "regularization": "--regularization"},
}


def in_cli_words(text: str, command: str, params=()) -> str:
    """``text`` (an estimator's message) with its parameter names as the flags of ``command``.

    ``The 'time_limit' parameter of SparseLDASelector must be ...`` reads ``--time-limit must
    be ...``; ``Lower n_features_to_select to 54`` reads ``Lower -k to 54``; ``time_limit=3`` reads
    ``--time-limit 3``. Names set with ``--param`` (``params``) read ``--param NAME``; other names are
    left as they are.

    Examples
    --------
    >>> in_cli_words("The 'n_components' parameter of PCA must be >= 1. Got 0 instead.", "project")
    '-n must be >= 1. Got 0 instead.'
    >>> in_cli_words("The 'time_limit' parameter of SparseLDASelector must be a real number in the range "
    ...              "[0, inf) or None. Got -1.0 instead.", "select")
    '--time-limit must be a real number in the range [0, inf). Got -1.0 instead.'
    >>> in_cli_words("Lower n_features_to_select to at most 54.", "select")
    'Lower -k to at most 54.'
    >>> in_cli_words("Use cv=2 or fewer folds.", "select")  # the selector's folds; --cv is --k auto's
    'Use --param cv=2 or fewer folds.'
    >>> in_cli_words("Give --param cv=2.", "select")
    'Give --param cv=2.'
    >>> in_cli_words("Pass n_components=3 or fewer.", "select", params=["n_components"])
    'Pass --param n_components=3 or fewer.'
    """
    import re

    flags = dict(_FLAGS.get(command, {}))
    for name in params:
        flags.setdefault(name, f"--param {name}")
    if not flags:
        return text

    def flag(name, fallback):
        return flags.get(name, fallback)

    flagged = []

    def parameter(m):
        name = flag(m.group(1), None)
        if name is None:
            return m.group(0)
        if not name.startswith("--param "):
            flagged.append(name)
        return name

    text = re.sub(r"The '(\w+)' parameter of \w+", parameter, text)
    if flagged:  # a flag left out is the estimator's None: on the command line there is no None to pass
        text = re.sub(r"(must be [^.]*?),? or None(?=\. Got )", r"\1", text)
    def assignment(m):
        name, value = m.group(1), m.group(2)
        if name not in flags:
            return m.group(0)
        flag = flags[name]
        return f"{flag}={value}" if flag.startswith("--param ") else f"{flag} {value}"

    text = re.sub(r"(?<!--param )\b(\w+)=([^\s,;)]+)", assignment, text)  # '--param cv=2' is in its words
    named = [n for n in flags if "_" in n]  # free mentions: only names that cannot be ordinary words
    if named:
        text = re.sub(r"(?<!--param )(?<![\w'-])(" + "|".join(map(re.escape, named)) + r")(?![\w'])", lambda m: flags[m.group(1)],
                      text)
    return text
