"""Estimators and the array API: without dispatch a tensor is converted to NumPy (scikit-learn's
rule); with dispatch (dispatch_checks.py, run here in a process with SCIPY_ARRAY_API=1)
everything follows X. scikit-learn's common check ``check_array_api_input`` of every estimator
(deselected from the main run by tests/conftest.py, which has no SCIPY_ARRAY_API) runs here too,
in a process of its own with the variable set."""

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


def test_common_array_api_checks_under_dispatch():
    """scikit-learn's ``check_array_api_input`` from the common checks (parametrize_with_checks) of
    every test file that runs them, in a process with SCIPY_ARRAY_API=1: all pass; the only skips
    are devices or libraries this machine does not have (CUDA, MPS, XPU, CuPy, dpnp)."""
    root = HERE.parent.parent
    files = sorted(str(f.relative_to(root)) for f in (root / "tests").rglob("test_*.py")
                   if f.parent != HERE and "parametrize_with_checks" in f.read_text())
    assert len(files) >= 5, files
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:randomly",
         "-k", "check_array_api_input", *files],
        cwd=root, env=env, capture_output=True, text=True, timeout=900,
    )
    tail = (proc.stdout + proc.stderr)[-6000:]
    assert proc.returncode == 0, tail
    summary = proc.stdout.strip().splitlines()[-1]
    assert " passed" in summary and " failed" not in summary and " error" not in summary, tail
    skips = [line for line in proc.stdout.splitlines() if line.startswith("SKIPPED")]
    not_here = ("cuda", "MPS", "XPU", "cupy", "dpnp")
    assert all(any(word in line for word in not_here) for line in skips), "\n".join(skips)
