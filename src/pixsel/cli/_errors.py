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
(``OSError`` and its kinds) and unreadable archives (``zipfile.BadZipFile``, ``EOFError`` of a
truncated file). Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import zipfile

__all__ = ["EXIT_OK", "EXIT_BUG", "EXIT_USAGE", "EXIT_INTERRUPTED", "UsageError", "user_message"]

EXIT_OK, EXIT_BUG, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(ValueError):
    """A bad combination of command-line options; the message says which option to change."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def user_message(exc: BaseException) -> str | None:
    """The one-line message of a user error, or None when ``exc`` is a bug (keep the traceback)."""
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
