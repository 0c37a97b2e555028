"""pixsel.io: atomic writes (complete or nothing, never a stray temporary file) and JSON conversion."""

import json

import numpy as np
import pytest
from matplotlib.figure import Figure

from pixsel.io import atomic_path, save_figure, save_image, to_jsonable, write_json, write_npz


def test_atomic_path_replaces_only_on_success(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    with atomic_path(target) as tmp:
        assert tmp.parent == target.parent and tmp != target
        tmp.write_text("first")
        assert not target.exists()  # nothing visible until the block succeeds
    assert target.read_text() == "first"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half-written")
            raise RuntimeError("interrupted")
    assert target.read_text() == "first"  # the old file is intact
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.txt"]  # no temporary left


def test_failed_writes_leave_nothing(tmp_path):
    with pytest.raises(TypeError):
        write_json(tmp_path / "a.json", {"x": object()})
    fig = Figure()
    fig.subplots().plot([1, 2])
    with pytest.raises(ValueError):
        save_figure(fig, tmp_path / "a.notaformat")
    assert list(tmp_path.iterdir()) == []


def test_to_jsonable_converts_numpy_and_non_finite():
    data = {1: np.float32(0.5), "a": np.arange(3), "t": (np.int64(2), [np.bool_(True)]),
            "inf": float("inf"), "ninf": -np.inf, "nan": np.nan, "arr": np.array([1.0, np.inf])}
    out = to_jsonable(data)
    assert out == {"1": 0.5, "a": [0, 1, 2], "t": [2, [True]], "inf": "inf", "ninf": "-inf", "nan": None,
                   "arr": [1.0, "inf"]}
    assert type(out["a"][0]) is int and type(out["t"][1][0]) is bool
    json.dumps(out, allow_nan=False)  # strict JSON


def test_write_json_round_trip(tmp_path):
    path = write_json(tmp_path / "d" / "r.json", {"k": np.int64(3), "v": np.array([0.25, 0.5])})
    assert json.loads(path.read_text()) == {"k": 3, "v": [0.25, 0.5]}
    assert path.read_text().endswith("\n")


def test_write_npz_and_save_image(tmp_path):
    Y = np.arange(6.0).reshape(3, 2)
    path = write_npz(tmp_path / "p.npz", Y=Y, y=np.array([0, 1, 1]))
    with np.load(path) as z:
        np.testing.assert_array_equal(z["Y"], Y)
        assert z.files == ["Y", "y"]
    img = save_image(tmp_path / "m.png", np.array([[0.0, 1.0], [0.5, 0.25]]))
    from matplotlib.image import imread

    pix = imread(img)
    assert pix.shape[:2] == (2, 2) and pix[0, 1, 0] == 1.0 and pix[0, 0, 0] == 0.0


def test_save_figure_closes_pyplot_figures_only(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    assert plt.fignum_exists(fig.number)
    save_figure(fig, tmp_path / "a.svg")
    assert not plt.fignum_exists(fig.number)  # pyplot no longer holds it
    assert (tmp_path / "a.svg").read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_files_follow_the_umask_not_mkstemp(tmp_path, umask):
    # mkstemp creates 0600 files: results nobody else could read. The mode is 0666 less the umask.
    import os
    import stat

    old = os.umask(umask)
    try:
        paths = [write_json(tmp_path / "a.json", {"a": 1}), write_npz(tmp_path / "a.npz", x=np.zeros(2))]
        fig = Figure()
        fig.subplots().plot([1, 2])
        paths.append(save_figure(fig, tmp_path / "a.png"))
        paths.append(save_image(tmp_path / "i.png", np.eye(3)))
    finally:
        os.umask(old)
    for p in paths:
        assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~umask, p


def test_atomic_path_refuses_a_folder_before_writing(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(IsADirectoryError, match="give a file name"):
        write_json(tmp_path / "d", {"a": 1})
    assert list((tmp_path / "d").iterdir()) == []
