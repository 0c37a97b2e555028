"""Shared fixtures: the shared-data lookup skips with a reason when a file is absent."""

import pytest

from pixsel.datasets import data_dir, load_shared


@pytest.fixture
def shared_data():
    """``shared_data(name)`` returns the arrays of a shared .npz, or skips the test."""

    def _get(name):
        path = data_dir() / name
        if not path.is_file():
            pytest.skip(f"{name} not found in {path.parent} (set PIXSEL_DATA to pixsel's shared data folder)")
        return load_shared(name)

    return _get
