import json

import numpy as np
import pytest

from pixsel import CardinalSPLSSelector, SPLSSelector
from pixsel.cli import main


@pytest.fixture
def digits_npz(tmp_path):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    path = tmp_path / "digits.npz"
    np.savez(path, X=X, y=y, image_shape=np.array([8, 8]))
    return path


def test_select_cardinal_spls_multiclass(digits_npz, tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["select", str(digits_npz), "--method", "cardinal-spls", "-k", "12",
                 "--param", "n_components=4", "--out", str(out)]) == 0
    report = json.loads((out / "selection.json").read_text())
    z = np.load(digits_npz)
    expected = CardinalSPLSSelector(12, n_components=4).fit(z["X"], z["y"]).get_support(indices=True)
    assert report["indices"] == expected.tolist() and report["method"] == "cardinal-spls"
    assert (out / "mask.png").stat().st_size > 0
    assert "selected 12 of 64 features with cardinal-spls" in capsys.readouterr().out


def test_select_spls_eta_needs_eta(digits_npz, tmp_path, capsys):
    out = tmp_path / "s"
    assert main(["select", str(digits_npz), "--method", "spls", "-k", "5", "--out", str(out)]) == 2
    assert "eta" in capsys.readouterr().err
    assert main(["select", str(digits_npz), "--method", "spls", "-k", "5", "--param", "eta=0.6",
                 "--param", "n_components=3", "--out", str(out), "-q"]) == 0
    report = json.loads((out / "selection.json").read_text())
    z = np.load(digits_npz)
    sel = SPLSSelector(0.6, n_components=3).fit(z["X"], z["y"])
    assert report["indices"] == sel.get_support(indices=True).tolist()


def test_select_cardinal_spls_bad_k(digits_npz, tmp_path, capsys):
    assert main(["select", str(digits_npz), "--method", "cardinal-spls", "-k", "0",
                 "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "-k must be" in err and "n_features_to_select" not in err
