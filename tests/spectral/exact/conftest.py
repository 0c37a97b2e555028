"""The exact searches' tests patch the search's internals (limits, chunks, kernels' steps):
the compiled kernels' first run (``exact_path`` runs them once per process on small problems
before its first search) happens here, before any test patches them, and never inside one."""

import pytest

from pixsel.spectral.exact import _allk


@pytest.fixture(scope="session", autouse=True)
def _compiled_kernels_ready():
    _allk._compile_kernels(True)
    _allk._compile_kernels(False)
