"""Numba is optional (the extra ``numba``): without it pixsel runs its NumPy kernels, and the exact
searches, compiled branch and bounds, refuse before any work with an error naming the extra.

The suite runs with Numba installed, so the case without it runs in a fresh process in which
``import numba`` fails (``sys.modules["numba"] = None``, as for a missing package); its fits are
compared with the same fits here, where the sizes take the compiled kernels.
"""

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import numpy as np
import pytest

from pixsel._optional import MissingExtraError, missing
from pixsel._routes import HAVE_NUMBA

# p >= COMPILED_MIN_FEATURES (512): with Numba these fits take the compiled kernels
_PROBLEMS = """
import numpy as np
rng = np.random.default_rng(3)
X = rng.standard_normal((600, 520))  # more samples than features: the dense forms
two, ten = np.arange(600) % 2, np.arange(600) % 10
X[two == 1, :6] += 0.8
X[:, 6:12] += 0.5 * (ten[:, None] % 3)
"""

_FITS = """
from pixsel import ColumnSubsetSelector, PixelReconstructor, SparseLDASelector, SparsePCASelector
from pixsel.projection import lasso_gram_cd
fits = {
    "lda two classes": SparseLDASelector(6).fit(X, two),
    "lda ten classes": SparseLDASelector(6).fit(X, ten),
    "lda ten classes max-eig": SparseLDASelector(6, criterion="max-eig").fit(X, ten),
    "sparse pca": SparsePCASelector(6).fit(X),
    "column subset": ColumnSubsetSelector(6).fit(X),
    "reconstructor": PixelReconstructor(6).fit(X),
}
supports = {name: np.flatnonzero(est.get_support()).tolist() for name, est in fits.items()}
routes = {name: getattr(est, "route_reason_", "") for name, est in fits.items()}
G = X[:, :8].T @ X[:, :8] / 600
codes = lasso_gram_cd(G, X[:5, :8] @ G, 0.5).codes.tolist()
"""

_WITHOUT = _PROBLEMS + _FITS + """
import sys, json, io, contextlib, tempfile, os
from pixsel._optional import MissingExtraError
from pixsel._routes import HAVE_NUMBA
refusals = {}
for name, call in {
    "SparseLDASelector(solver='exact')": lambda: SparseLDASelector(3, solver="exact").fit(X[:, :12], two),
    "SparsePCASelector(solver='exact')": lambda: SparsePCASelector(3, solver="exact").fit(X[:, :12]),
    "ColumnSubsetSelector(solver='exact')": lambda: ColumnSubsetSelector(3, solver="exact").fit(X[:, :12]),
    "exact_support": lambda: __import__("pixsel.spectral", fromlist=["x"]).exact_support(X[0, :8], np.eye(8), 3),
    "exact_path": lambda: __import__("pixsel.spectral", fromlist=["x"]).exact_path(X[0, :8], np.eye(8)),
    "warm_up": lambda: __import__("pixsel._jit", fromlist=["x"]).warm_up(),
}.items():
    try:
        call()
        refusals[name] = None
    except MissingExtraError as exc:
        refusals[name] = str(exc)
from pixsel.cli import main
tmp = tempfile.mkdtemp()
np.savez(os.path.join(tmp, "d.npz"), X=X[:, :12], y=two)
err = io.StringIO()
with contextlib.redirect_stderr(err):
    try:
        code = main(["select", os.path.join(tmp, "d.npz"), "-k", "3", "--solver", "exact", "--out",
                     os.path.join(tmp, "out"), "--quiet"])
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"have_numba": HAVE_NUMBA, "supports": supports, "routes": routes, "codes": codes,
                  "refusals": refusals, "cli_code": code, "cli_err": err.getvalue(),
                  "cli_out_exists": os.path.exists(os.path.join(tmp, "out")),
                  "numba_imported": sys.modules.get("numba") is not None}))
"""


@pytest.fixture(scope="module")
def without_numba():
    """What a process without Numba printed (its fits, refusals and the command's exit)."""
    script = "import sys\nsys.modules['numba'] = None\n" + textwrap.dedent(_WITHOUT)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    src = Path(__file__).resolve().parents[1] / "src"
    if src.is_dir():
        env["PYTHONPATH"] = os.pathsep.join([str(src)] + [p for p in [env.get("PYTHONPATH")] if p])
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_without_numba_the_selectors_run_their_numpy_kernels_and_never_import_it(without_numba):
    assert without_numba["have_numba"] is False
    assert without_numba["numba_imported"] is False
    for name in ("lda two classes", "lda ten classes", "lda ten classes max-eig", "sparse pca"):
        assert "Numba is not installed" in without_numba["routes"][name], (name, without_numba["routes"][name])
    assert all(len(s) == 6 for s in without_numba["supports"].values())


@pytest.mark.skipif(not HAVE_NUMBA, reason="compares with the compiled kernels, which need Numba")
def test_without_numba_the_same_pixels_as_the_compiled_kernels(without_numba):
    namespace = {}
    exec(textwrap.dedent(_PROBLEMS + _FITS), namespace)
    assert "Numba-compiled" in namespace["routes"]["lda two classes"]  # this process took the compiled kernels
    assert without_numba["supports"] == namespace["supports"]
    np.testing.assert_allclose(without_numba["codes"], namespace["codes"], rtol=1e-7, atol=1e-10)


def test_without_numba_the_exact_searches_refuse_naming_the_extra(without_numba):
    for name, message in without_numba["refusals"].items():
        assert message is not None, f"{name} ran without Numba"
        assert "pip install 'pixsel[numba]'" in message and "numba" in message, message
    assert "SparseLDASelector(solver='exact') needs" in without_numba["refusals"]["SparseLDASelector(solver='exact')"]


def test_without_numba_the_command_exits_2_before_reading_the_data(without_numba):
    assert without_numba["cli_code"] == 2
    assert "--solver exact needs the optional package 'numba'" in without_numba["cli_err"]
    assert "pip install 'pixsel[numba]'" in without_numba["cli_err"]
    assert "Traceback" not in without_numba["cli_err"]
    assert without_numba["cli_out_exists"] is False


def test_missing_names_the_extra():
    exc = missing(extra="numba", package="numba", needed_for="The exact search")
    assert isinstance(exc, MissingExtraError) and isinstance(exc, ImportError)
    assert str(exc).startswith("The exact search needs the optional package 'numba'")


def test_numba_is_an_extra_not_a_runtime_dependency():
    """`pip install pixsel` (and `make demo`) installs no Numba; `make test` and the docs add the extra."""
    root = Path(__file__).resolve().parents[1]
    if not (root / "pyproject.toml").is_file():
        pytest.skip("pyproject.toml is not next to the tests (an installed copy)")
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    names = [d.split(">")[0].split("=")[0].split("[")[0].strip() for d in project["dependencies"]]
    assert "numba" not in names
    assert project["optional-dependencies"]["numba"] == ["numba>=0.59"]
    makefile = (root / "Makefile").read_text()
    assert '-e ".[test,numba,' in makefile and '-e ".[docs,numba]"' in makefile
