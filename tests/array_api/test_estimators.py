"""Estimators and the array API: without dispatch a tensor is converted to NumPy (scikit-learn's
rule); with dispatch (dispatch_checks.py, run here in a process with SCIPY_ARRAY_API=1)
everything follows X. dispatch_checks.py runs scikit-learn's ``check_array_api_input`` itself
on the selectors and projections that follow X (the same check the common checks would run,
deselected from the main run by tests/conftest.py)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pixsel.selection import ScoreSelector, SubspaceScoreSelector

torch = pytest.importorskip("torch")
HERE = Path(__file__).parent


def test_without_dispatch_tensors_become_numpy():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 8)) * np.arange(1, 9)
    sel = SubspaceScoreSelector(3, rank=2, random_state=0).fit(torch.asarray(X))
    ref = SubspaceScoreSelector(3, rank=2, random_state=0).fit(X)
    assert isinstance(sel.scores_, np.ndarray) and isinstance(sel.weights_, np.ndarray)
    np.testing.assert_array_equal(sel.get_support(), ref.get_support())
    assert isinstance(ScoreSelector(2, criterion="variance").fit(torch.asarray(X)).scores_, np.ndarray)


def test_under_dispatch():
    """Runs dispatch_checks.py with SCIPY_ARRAY_API=1 (set before SciPy is imported)."""
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    root = HERE.parent.parent
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         str(HERE / "dispatch_checks.py")],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )
    tail = (proc.stdout + proc.stderr)[-6000:]
    assert proc.returncode == 0, tail
    assert " passed" in proc.stdout and "skipped" not in proc.stdout.splitlines()[-1], tail

