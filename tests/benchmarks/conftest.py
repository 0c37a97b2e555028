"""``run_script`` (a fixture): a benchmark script run in this process as ``python script.py ARGS``
would run it.

A smoke test that checks what a script prints and writes needs no fresh interpreter unless it is
about a first call, an import or a process start (those keep ``subprocess``). Run here, the
script skips the 2-5 s of imports (NumPy, SciPy, scikit-learn, Matplotlib, PyTorch) that every
fresh interpreter pays and the suite's test workers have already paid. The script runs as
``__main__`` with its folder first on ``sys.path``, and with ``sys.argv``, the environment and
the working directory set as ``subprocess.run`` would set them; all of these are restored
afterwards, and so are Matplotlib's rcParams, its open figures, NumPy's error state and
PyTorch's thread count. Warnings keep a fresh interpreter's default filters and are written to
the run's stderr: the suite turns warnings into errors, but a peer's ``ConvergenceWarning``
printed by a benchmark is output, not a failure.
"""

import contextlib
import importlib.util
import io
import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _interpreter_warning_filters(stream):
    """Python's own filters (a fresh interpreter's, without -W or PYTHONWARNINGS), warnings written
    to ``stream`` as the interpreter writes them to stderr."""
    warnings.resetwarnings()
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.filterwarnings("ignore", category=category)

    def show(message, category, filename, lineno, file=None, line=None):
        stream.write(warnings.formatwarning(message, category, filename, lineno, line))

    warnings.showwarning = show


def _run_script(script, *args, env=None, cwd=None):
    """Run ``script`` with ``args`` in this process; a ``subprocess.CompletedProcess`` (text output).

    ``env`` replaces the environment for the run and ``cwd`` is the working directory, as in
    ``subprocess.run``. ``SystemExit`` gives the return code (a message is written to stderr with
    code 1, as the interpreter does); any other exception propagates to the test.
    """
    script = Path(script)
    argv = [str(script), *map(str, args)]
    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_argv, saved_path = dict(os.environ), os.getcwd(), sys.argv, list(sys.path)
    saved_err = np.geterr()
    torch = sys.modules.get("torch")  # bench_array_api sets PyTorch's thread count
    saved_torch_threads = torch.get_num_threads() if torch is not None else None
    code = 0
    try:
        import matplotlib
        import matplotlib.pyplot as plt

        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = argv
        sys.path.insert(0, str(script.parent))
        with (matplotlib.rc_context(), warnings.catch_warnings(), contextlib.redirect_stdout(out),
              contextlib.redirect_stderr(err)):
            _interpreter_warning_filters(err)
            try:
                runpy.run_path(str(script), run_name="__main__")
            except SystemExit as exc:
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
                    code = 1
            finally:
                plt.close("all")
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        sys.argv = saved_argv
        sys.path[:] = saved_path
        np.seterr(**saved_err)
        if saved_torch_threads is not None:
            torch.set_num_threads(saved_torch_threads)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


@pytest.fixture
def run_script():
    """``run_script(script, *args, env=None, cwd=None)``: the script run in this process (see the module)."""
    return _run_script


def _load_benchmark(name):
    """The benchmark script ``benchmarks/<name>.py`` imported as a module (its folder on
    ``sys.path`` while it imports, as when it runs), to test its helpers."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return mod


@pytest.fixture(scope="session")
def load_benchmark():
    """``load_benchmark(name)``: ``benchmarks/<name>.py`` imported as a module."""
    return _load_benchmark
