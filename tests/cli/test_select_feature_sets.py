"""``pixsel select --always-select / --never-select``: the estimator's always_select and never_select,
refused before any work where the method cannot force or exclude features."""

import json

import numpy as np
import pytest

from pixsel import SparseLDASelector, SparsePCASelector
from pixsel.cli import main


@pytest.fixture
def data(tmp_path):
    """Two classes; features 2 and 5 separate them best, 2 the most."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 40)
    X = rng.standard_normal((80, 8))
    X[:, 2] += 3 * y
    X[:, 5] += 2 * y
    path = tmp_path / "d.npz"
    np.savez(path, X=X, y=y)
    return path, X, y


def _selected(out):
    return json.loads((out / "selection.json").read_text())


def test_never_select_excludes_and_matches_the_library(data, tmp_path):
    path, X, y = data
    out = tmp_path / "plain"
    assert main(["select", str(path), "-k", "2", "--out", str(out), "-q"]) == 0
    assert 2 in _selected(out)["indices"]
    out = tmp_path / "never"
    assert main(["select", str(path), "-k", "2", "--never-select", "2,7", "--out", str(out), "-q"]) == 0
    report = _selected(out)
    ref = SparseLDASelector(2, never_select=[2, 7]).fit(X, y).get_support(indices=True)
    assert report["indices"] == ref.tolist() and not {2, 7} & set(report["indices"])
    assert report["parameters"]["never_select"] == "[2, 7]"


def test_never_select_with_the_exact_solver(data, tmp_path):
    """--solver exact --never-select: the certified optimum without the excluded features, as the library finds it."""
    path, X, y = data
    out = tmp_path / "exact"
    assert main(["select", str(path), "-k", "2", "--solver", "exact", "--never-select", "2", "--out", str(out),
                 "-q"]) == 0
    report = _selected(out)
    ref = SparseLDASelector(2, solver="exact", never_select=[2]).fit(X, y)
    assert report["indices"] == ref.get_support(indices=True).tolist() and 2 not in report["indices"]
    assert report["status"] == "optimal" and 5 in report["indices"]


def test_always_select_forces_and_matches_the_library(data, tmp_path):
    path, X, y = data
    out = tmp_path / "lda"
    assert main(["select", str(path), "-k", "2", "--always-select", "0", "--out", str(out), "-q"]) == 0
    ref = SparseLDASelector(2, always_select=[0]).fit(X, y).get_support(indices=True)
    assert _selected(out)["indices"] == ref.tolist() and 0 in ref
    out = tmp_path / "pca"
    assert main(["select", str(path), "-k", "3", "-m", "gspca", "--always-select", "4", "--out", str(out), "-q"]) == 0
    ref = SparsePCASelector(3, always_select=[4], direction="forward").fit(X).get_support(indices=True)
    assert _selected(out)["indices"] == ref.tolist() and 4 in ref


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-m", "gspca", "--never-select", "1"], "--never-select applies to --method gslda; method 'gspca' cannot "
                                                 "exclude features: drop --never-select or change --method."),
        (["-m", "subspace", "--always-select", "1"], "--always-select applies to --method gslda, gspca; method "
                                                     "'subspace' cannot force features"),
        (["--never-select", "2", "--param", "never_select=[3]"], "--never-select and --param never_select=... set "
                                                                 "the same parameter"),
        (["--never-select", "1,2", "--always-select", "2"], "both always_select and never_select"),
        (["--never-select", "99"], "outside"),
    ],
)
def test_bad_feature_sets_exit_2_with_the_fix(data, tmp_path, capsys, argv, message):
    path, _, _ = data
    out = tmp_path / "o"
    assert main(["select", str(path), "-k", "2", "--out", str(out), *argv]) == 2
    assert message in capsys.readouterr().err
    assert not (out / "selection.json").exists()


@pytest.mark.parametrize("value", ["a,b", ","])
def test_unreadable_indices_are_a_usage_error(data, tmp_path, capsys, value):
    path, _, _ = data
    with pytest.raises(SystemExit) as exc:
        main(["select", str(path), "-k", "2", "--never-select", value, "--out", str(tmp_path / "o")])
    assert exc.value.code == 2
    assert "feature ind" in capsys.readouterr().err


def test_colour_pixels_refuse_single_features_with_the_fix(tmp_path, capsys):
    """A colour stack selects whole pixels; the indices name single values: --channels is the fix."""
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 20)
    X = rng.standard_normal((40, 3 * 4 * 3))
    X[:, 5] += 2 * y
    path = tmp_path / "colour.npz"
    np.savez(path, X=X, y=y, image_shape=np.array([3, 4, 3]))
    out = tmp_path / "o"
    assert main(["select", str(path), "-k", "2", "--never-select", "5", "--out", str(out)]) == 2
    assert "add --channels" in capsys.readouterr().err and not out.exists()
    assert main(["select", str(path), "-k", "2", "--never-select", "5", "--channels", "--out", str(out), "-q"]) == 0
    assert 5 not in _selected(out)["indices"]


def test_k_auto_scores_the_sizes_the_excluded_features_leave(data, tmp_path):
    path, _, _ = data
    out = tmp_path / "auto"
    assert main(["select", str(path), "-k", "auto", "--cv", "3", "--never-select", "2,7", "--out", str(out), "-q"]) == 0
    report = _selected(out)
    assert max(report["k_auto"]["n_features"]) == 6  # 8 features, 2 never selected
    assert not {2, 7} & set(report["indices"])
