"""Optional dependencies: a missing one is an error that names the extra installing it."""

import sys

import numpy as np
import pytest

from pixsel._optional import MissingExtraError, require


def test_require_imports_or_names_the_extra(monkeypatch):
    assert require("json", extra="images", package="json", needed_for="x") is sys.modules["json"]
    monkeypatch.setitem(sys.modules, "skimage.filters", None)
    with pytest.raises(MissingExtraError, match=r"The Gabor bank.*'scikit-image'.*pip install 'pixsel\[images\]'"):
        from pixsel.features import gabor_bank

        gabor_bank(1, 1)
    assert issubclass(MissingExtraError, ImportError)


def test_lgbp_without_scikit_image_names_the_extra(monkeypatch):
    from pixsel.features import lbp_codes

    monkeypatch.setitem(sys.modules, "skimage.feature", None)
    with pytest.raises(MissingExtraError, match=r"pixsel\[images\]"):
        lbp_codes(np.zeros((1, 4, 4)))


def test_scikit_image_is_not_a_runtime_dependency():
    """The runtime dependencies stay small: scikit-image is the extra 'images' (and in the test
    and bench extras, which use it), not a dependency of `pip install pixsel`."""
    import tomllib
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("pyproject.toml is not next to the tests (an installed copy)")
    project = tomllib.loads(pyproject.read_text())["project"]
    names = [d.split(">")[0].split("=")[0].split("[")[0].strip() for d in project["dependencies"]]
    assert "scikit-image" not in names and "pillow" in names
    assert any(d.startswith("scikit-image") for d in project["optional-dependencies"]["images"])
