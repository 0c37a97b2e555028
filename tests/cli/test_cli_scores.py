"""``pixsel scores`` and ``pixsel select --method subspace``."""

import json

import numpy as np
import pytest

from pixsel.cli import main


@pytest.fixture
def faces_npz(tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 20)
    X = rng.integers(0, 60, size=(60, 64)).astype(np.uint8)
    X[:, 9] += (40 * y).astype(np.uint8)  # one informative pixel
    path = tmp_path / "faces.npz"
    np.savez(path, X=X, y=y, image_shape=np.array([8, 8]))
    return path


def test_scores_writes_maps_and_json(faces_npz, tmp_path, capsys):
    out = tmp_path / "sc"
    assert main(["scores", str(faces_npz), "--rank", "5", "--rank", "10", "--out", str(out)]) == 0
    report = json.loads((out / "scores.json").read_text())
    names = set(report["scores"])
    assert names == {"subspace_m5", "subspace_m10", "variance", "laplacian",
                     "supervised_laplacian", "fisher"}
    for name in names:
        assert (out / f"{name}.png").stat().st_size > 0
    assert (out / "score_maps.png").stat().st_size > 0
    lev = np.array(report["scores"]["subspace_m5"]["leverage"])
    assert lev.shape == (64,) and abs(lev.sum() - 5) < 1e-8
    fisher = np.array(report["scores"]["fisher"]["scores"])
    assert int(np.argmax(fisher)) == 9
    from pixsel.selection import SubspaceScoreSelector

    z = np.load(faces_npz)
    ref = SubspaceScoreSelector(1, rank=10, random_state=0).fit(z["X"])
    np.testing.assert_allclose(report["scores"]["subspace_m10"]["scores"], ref.scores_)
    assert "scored 64 features" in capsys.readouterr().out


def test_select_subspace(faces_npz, tmp_path):
    out = tmp_path / "sel"
    assert main(["select", str(faces_npz), "--method", "subspace", "-k", "6",
                 "--param", "rank=5", "--param", "mode=sample", "--out", str(out), "-q"]) == 0
    report = json.loads((out / "selection.json").read_text())
    assert report["method"] == "subspace" and 1 <= len(report["indices"]) <= 6
    assert report["gamma"] > 0
    from pixsel.selection import SubspaceScoreSelector

    z = np.load(faces_npz)
    ref = SubspaceScoreSelector(6, rank=5, mode="sample", random_state=0).fit(z["X"])
    assert report["indices"] == ref.get_support(indices=True).tolist()
    assert (out / "mask.png").stat().st_size > 0


def test_scores_bad_rank_is_a_clear_error(faces_npz, tmp_path, capsys):
    assert main(["scores", str(faces_npz), "--rank", "0", "--out", str(tmp_path / "x")]) == 2
    assert "rank" in capsys.readouterr().err
