"""``pixsel place``: the files it writes, the held-out errors it reports, and user errors (exit 2)."""

import json

import numpy as np

from pixsel.cli import main


def _data(tmp_path):
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((60, 3)) @ rng.standard_normal((3, 100))).reshape(60, 10, 10) + 5
    path = tmp_path / "imgs.npz"
    np.savez(path, X=X)
    return path


def test_place_writes_json_and_pictures(tmp_path):
    out = tmp_path / "out"
    assert main(["place", str(_data(tmp_path)), "-k", "5", "--min-distance", "2", "--always-select", "0", "--alpha", "0",
                 "--out", str(out), "-q"]) == 0
    rec = json.loads((out / "place.json").read_text())
    assert rec["sensors"][0] == 0 and len(rec["sensors"]) == 5 and rec["n_test"] == 12
    err = rec["heldout_relative_error"]
    assert len(err) == 5 and err[-1] < 1e-6 < err[0]  # rank-3 images: exact from 3+ well-placed sensors
    rows, cols = np.divmod(np.array(rec["sensors"]), 10)
    d = np.hypot(rows[:, None] - rows, cols[:, None] - cols) + 99 * np.eye(5)
    assert d.min() >= 2
    for name in ("sensors.png", "reconstructions.png", "uncertainty.png", "error_vs_k.png"):
        assert (out / name).stat().st_size > 2000


def test_place_user_errors_exit_2_and_write_nothing(tmp_path, capsys):
    data = _data(tmp_path)
    out = tmp_path / "bad"
    assert main(["place", str(data), "-k", "5", "--min-distance", "8", "--out", str(out)]) == 2
    assert "min_distance=8 leaves room for only" in capsys.readouterr().err
    assert not (out / "place.json").exists()
    assert main(["place", str(data), "-k", "5", "--holdout", "1.5", "--out", str(out)]) == 2
