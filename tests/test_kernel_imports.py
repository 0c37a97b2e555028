"""The kernel packages validate their arguments without importing scikit-learn: the estimators
are scikit-learn estimators, the kernels take arrays and return arrays (and a worker process of
the parallel exact search, which imports the kernels only, starts without scikit-learn's import)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from pixsel.spectral import greedy_path

_KERNELS = ("pixsel.spectral", "pixsel.stats", "pixsel.scores", "pixsel.pls", "pixsel.projection")


def test_kernel_packages_import_no_sklearn():
    code = ("import importlib, json, sys\n"
            f"for name in {_KERNELS!r}:\n"
            "    importlib.import_module(name)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == []


def test_kernel_argument_errors_keep_their_message_and_types():
    rng = np.random.default_rng(0)
    a, B = rng.standard_normal(5), np.eye(5)
    with pytest.raises(ValueError, match="max_k"):
        greedy_path(a, B, max_k=9)
    with pytest.raises(ValueError, match="direction"):
        greedy_path(a, B, direction="sideways")
