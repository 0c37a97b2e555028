"""``pixsel select DATA --k auto``: k chosen by PathSelectorCV, written into selection.json, figure."""

import json

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from pixsel import PathSelectorCV, SparseLDASelector
from pixsel.cli import main
from pixsel.datasets import load_digits_pair


@pytest.fixture
def digits_npz(tmp_path):
    d = load_digits_pair(3, 5)
    path = tmp_path / "digits35.npz"
    np.savez(path, X=d.X, y=d.y, image_shape=np.array(d.image_shape))
    return path


@pytest.mark.parametrize("rule", ["best", "one-se"])
def test_select_auto_writes_the_cv_choice(digits_npz, tmp_path, capsys, rule):
    out = tmp_path / f"out-{rule}"
    assert main(["select", str(digits_npz), "--k", "auto", "--cv", "3", "--rule", rule, "--out", str(out)]) == 0
    report = json.loads((out / "selection.json").read_text())
    d = load_digits_pair(3, 5)
    # the CLI's gslda runs the library's default passes unless --direction says otherwise
    # the folds are stratified and shuffled with --seed (0 by default)
    ref = PathSelectorCV(SparseLDASelector(), cv=StratifiedKFold(3, shuffle=True, random_state=0),
                         rule=rule).fit(d.X, d.y)
    assert report["k"] == ref.n_features_to_select_
    assert report["indices"] == ref.get_support(indices=True).tolist()
    auto = report["k_auto"]
    assert auto["folds"] == "StratifiedKFold(3, shuffle=True, random_state=0)"
    assert auto["rule"] == rule and auto["cv"] == 3 and auto["n_features"] == list(range(1, 65))
    np.testing.assert_allclose(auto["mean_test_score"], ref.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    assert (out / "cv_path.png").stat().st_size > 0 and (out / "mask.png").is_file()
    assert f"k = {ref.n_features_to_select_} chosen by 3-fold CV" in capsys.readouterr().out


def test_select_auto_bad_input(digits_npz, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["select", str(digits_npz), "--k", "auto", "--cv", "1", "--out", str(out)]) == 2
    assert "--cv must be an int >= 2" in capsys.readouterr().err
    assert main(["select", str(digits_npz), "--k", "auto", "--method", "spls", "--param", "eta=0.5",
                 "--out", str(out)]) == 2
    assert "SPLSSelector sets its sparsity with eta" in capsys.readouterr().err
    assert not (out / "selection.json").exists()
    with pytest.raises(SystemExit):
        main(["select", str(digits_npz), "--k", "many", "--out", str(out)])
    assert "-k must be an int or 'auto'" in capsys.readouterr().err


def test_select_reports_the_direction_that_ran(tmp_path):
    """With --direction cv the pass of each k is cross-validated; selection.json says so, and the
    pixels are the library's. The default runs the forward pass (then swaps at k)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X[:600], y[:600]
    data = tmp_path / "digits10.npz"
    np.savez(data, X=X, y=y, image_shape=np.array([8, 8]))
    out = tmp_path / "o"
    assert main(["select", str(data), "-k", "6", "--direction", "cv", "--out", str(out)]) == 0
    report = json.loads((out / "selection.json").read_text())
    ref = SparseLDASelector(6, direction="cv").fit(X, y)
    assert report["direction"] == "cv" == ref.direction_
    assert report["direction_by_k"] == list(ref.direction_by_k_) and len(report["direction_by_k"]) == 6
    assert report["indices"] == ref.get_support(indices=True).tolist()
    assert main(["select", str(data), "-k", "6", "--out", str(tmp_path / "f")]) == 0
    report = json.loads((tmp_path / "f" / "selection.json").read_text())
    assert report["direction"] == "forward" and "direction_by_k" not in report
    assert report["indices"] == SparseLDASelector(6).fit(X, y).get_support(indices=True).tolist()


def test_select_auto_within_is_the_library_rule(digits_npz, tmp_path):
    """--rule within (the default) is PathSelectorCV(rule='within', tol=0.01) on the shuffled
    folds: the same k, the same pixels (one refit, at that k), the k scored and the best k."""
    out = tmp_path / "o"
    assert main(["select", str(digits_npz), "--k", "auto", "--cv", "3", "--seed", "2", "--out", str(out), "-q"]) == 0
    report = json.loads((out / "selection.json").read_text())
    d = load_digits_pair(3, 5)
    ref = PathSelectorCV(SparseLDASelector(), cv=3, random_state=2, rule="within", tol=0.01).fit(d.X, d.y)
    assert report["k"] == ref.n_features_to_select_
    assert report["indices"] == ref.get_support(indices=True).tolist()
    auto = report["k_auto"]
    assert auto["n_features"] == ref.cv_results_["n_features"].tolist()
    assert auto["best_k"] == int(ref.cv_results_["n_features"][ref.best_index_]) >= report["k"]


def test_select_auto_subspace_with_constant_pixels(digits_npz, tmp_path, capsys):
    """The digits' border pixels are constant; subspace's default mode draws only features of
    positive score, so --k auto scores k up to the pixels that vary in every training fold (a
    grid up to all 64 refused its largest k), and the refusal of a fixed -k names --param."""
    d = load_digits_pair(3, 5)
    out = tmp_path / "o"
    assert main(["select", str(digits_npz), "--k", "auto", "-m", "subspace", "--cv", "3", "--out", str(out)]) == 0
    auto = json.loads((out / "selection.json").read_text())["k_auto"]
    folds = StratifiedKFold(3, shuffle=True, random_state=0).split(d.X, d.y)
    varying = min(int((np.ptp(d.X[train], axis=0) > 0).sum()) for train, _ in folds)
    assert varying < d.X.shape[1] and max(auto["n_features"]) == varying
    assert main(["select", str(digits_npz), "-k", "60", "-m", "subspace", "--out", str(tmp_path / "o2")]) == 2
    assert "--param mode='top'" in capsys.readouterr().err


def test_select_auto_gspca_certifies_the_chosen_k_only(digits_npz, tmp_path):
    """gspca's per-k certified bounds are for the report: the folds search without them (computed
    along every fold's path they made --k auto take minutes on 1024 pixels), the chosen k is
    refitted with them; the pixels are those of the search without."""
    from pixsel import SparsePCASelector

    out = tmp_path / "o"
    assert main(["select", str(digits_npz), "--k", "auto", "-m", "gspca", "--cv", "3", "--out", str(out), "-q"]) == 0
    report = json.loads((out / "selection.json").read_text())
    d = load_digits_pair(3, 5)
    ref = PathSelectorCV(SparsePCASelector(certificate=False), cv=StratifiedKFold(3, shuffle=True, random_state=0),
                         rule="within", tol=0.01).fit(d.X, d.y)
    assert report["k"] == ref.n_features_to_select_
    assert report["indices"] == ref.get_support(indices=True).tolist()
    assert report["parameters"]["certificate"] is True and report["upper_bound"] >= report["objective"]
