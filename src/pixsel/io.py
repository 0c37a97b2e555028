"""Output files for the surfaces: written atomically, completely or not at all, as JSON or figures."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from os import PathLike
    from typing import Any

    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

__all__ = ["atomic_path", "write_json", "write_npz", "save_figure", "save_image", "to_jsonable"]


def _umask() -> int:
    """The process umask, read without changing it where the OS allows (Linux ``/proc``)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: the classic read-by-setting, restored at once
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(path: str | PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto ``path`` on success only.

    The file gets the mode an ordinary ``open(path, "w")`` would give it, ``0o666`` less the
    umask (``0644`` with the usual umask 022), not the ``0600`` of :func:`tempfile.mkstemp`.
    ``path`` naming an existing folder is an ``IsADirectoryError`` raised before anything is
    written.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; give a file name to write to.")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def to_jsonable(obj: Any) -> Any:
    """Convert NumPy scalars and arrays (recursively) to plain Python for ``json``."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None if np.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


def write_json(path: str | PathLike[str], data: Any) -> Path:
    """Write ``data`` as indented JSON, atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "w") as fh:
            json.dump(to_jsonable(data), fh, indent=2)
            fh.write("\n")
    return Path(path)


def write_npz(path: str | PathLike[str], **arrays: ArrayLike) -> Path:
    """Write ``arrays`` as a compressed ``.npz``, atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)
    return Path(path)


def save_figure(fig: Figure, path: str | PathLike[str], **kwargs: Any) -> str | PathLike[str]:
    """Save a matplotlib figure atomically; the format follows the suffix (default png).

    Needs no pyplot and no backend: :mod:`pixsel.viz` figures are plain ``Figure`` objects. A
    figure made with pyplot is closed afterwards so pyplot's registry does not keep it alive.
    """
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", **kwargs)
    _release(fig)
    return path


def _release(fig):
    # only a figure that pyplot manages has a manager; then pyplot is already imported
    if getattr(fig.canvas, "manager", None) is not None:
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            plt.close(fig)


def save_image(path: str | PathLike[str], image: ArrayLike, *, cmap: str = "gray") -> str | PathLike[str]:
    """Save a 2-D array as an image file (one pixel per entry), atomically."""
    from matplotlib.image import imsave

    path = Path(path)
    with atomic_path(path) as tmp:
        imsave(tmp, np.asarray(image), cmap=cmap, format=path.suffix.lstrip(".") or "png")
    return path
