"""``pixsel project``: projected data (npz), report (json) and, for M = 2, a scatter picture."""

import json

import numpy as np
import pytest

from pixsel.cli import main


@pytest.fixture
def digits_npz(tmp_path):
    from pixsel.datasets import load_digits_pair

    d = load_digits_pair(3, 5)
    path = tmp_path / "digits35.npz"
    np.savez(path, X=d.X[:120], y=d.y[:120], image_shape=np.array(d.image_shape))
    return path


def test_project_slm_writes_npz_json_and_scatter(digits_npz, tmp_path, capsys):
    out = tmp_path / "proj"
    args = ["project", str(digits_npz), "--method", "slm", "-n", "2", "--normalize",
            "--param", "n_atoms=16", "--param", "max_iter=1", "--out", str(out)]
    assert main(args) == 0
    z = np.load(out / "projection.npz")
    assert z["Y"].shape == (120, 2) and z["components"].shape == (2, 64) and z["y"].shape == (120,)
    report = json.loads((out / "projection.json").read_text())
    assert report["method"] == "slm" and report["sigma"] >= 0 and report["tau"] > 0
    assert (out / "scatter.png").stat().st_size > 0
    # same numbers as the Python API with the same seed
    from pixsel.decomposition import SparseLinearModelProjection

    X = np.load(digits_npz)["X"].astype(float)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Y = SparseLinearModelProjection(2, n_atoms=16, max_iter=1, random_state=0).fit_transform(X)
    np.testing.assert_allclose(z["Y"], Y)
    assert "projected 120 samples" in capsys.readouterr().out


def test_project_other_method_without_scatter_and_bad_m(digits_npz, tmp_path, capsys):
    out = tmp_path / "p3"
    assert main(["project", str(digits_npz), "--method", "lpp", "-n", "3", "--out", str(out), "-q"]) == 0
    assert np.load(out / "projection.npz")["Y"].shape == (120, 3)
    assert not (out / "scatter.png").exists()
    assert main(["project", str(digits_npz), "--method", "slm", "-n", "65", "--out", str(out), "-q",
                 "--overwrite"]) == 2
    assert "n_features=64" in capsys.readouterr().err


def test_project_is_listed_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["project", "--help"])
    text = capsys.readouterr().out
    assert "--method" in text and "-m" in text and "--out" in text


def test_project_slm_progress_counts_epochs(digits_npz, tmp_path, monkeypatch):
    import io

    import pixsel._progress as prog

    out_lines = io.StringIO()
    monkeypatch.setattr(prog, "step_progress", lambda total, desc, *, enabled=True, **kw: prog.StepProgress(
        total, desc, enabled=enabled, delay=0, interval=0, stream=out_lines))
    args = ["project", str(digits_npz), "--method", "slm", "-n", "2", "--param", "n_atoms=16",
            "--param", "max_iter=3", "--param", "batch_size=40", "--progress", "--overwrite", "--out",
            str(tmp_path / "p"), "-q"]
    assert main(args) == 0  # -q wins over --progress
    assert out_lines.getvalue() == ""
    assert main(args[:-1]) == 0
    lines = out_lines.getvalue().splitlines()
    assert lines and all(line.startswith("SLM dictionary (epochs): ") for line in lines)
    assert "1/3 epoch 1 done" in lines[0]
    assert json.loads((tmp_path / "p" / "projection.json").read_text())["parameters"]["progress"] is True
