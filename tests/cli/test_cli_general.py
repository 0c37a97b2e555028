import json

import numpy as np
import pytest

from pixsel.cli import main


@pytest.fixture
def digits_npz(tmp_path):
    from sklearn.datasets import load_digits

    d = load_digits(n_class=4)
    path = tmp_path / "digits4.npz"
    np.savez(path, X=d.data, y=d.target, image_shape=np.array([8, 8]))
    return path


def test_select_gspca_unsupervised(digits_npz, tmp_path):
    out = tmp_path / "s"
    assert main(["select", str(digits_npz), "-k", "6", "--method", "gspca", "--direction", "forward",
                 "--out", str(out), "-q"]) == 0
    report = json.loads((out / "selection.json").read_text())
    from pixsel import SparsePCASelector

    z = np.load(digits_npz)
    sel = SparsePCASelector(6, direction="forward").fit(z["X"])
    assert report["indices"] == sel.get_support(indices=True).tolist()
    assert report["upper_bound"] >= sel.explained_variance_


def test_select_gslda_multiclass(digits_npz, tmp_path):
    out = tmp_path / "m"
    assert main(["select", str(digits_npz), "-k", "4", "--param", "criterion=trace", "--out", str(out), "-q"]) == 0
    assert len(json.loads((out / "selection.json").read_text())["indices"]) == 4


@pytest.mark.parametrize("method", ["gspca", "gslda"])
def test_path_draws_certified_bound(digits_npz, tmp_path, method):
    out = tmp_path / method
    assert main(["path", str(digits_npz), "--method", method, "--out", str(out), "-q"]) == 0
    report = json.loads((out / "path.json").read_text())
    fwd = np.array(report["paths"]["forward"]["objective"])
    ub = np.array(report["upper_bound"])
    assert ub.shape == fwd.shape and np.all(ub >= fwd - 1e-9 * np.abs(fwd).max())
    assert (out / "path.png").stat().st_size > 0
