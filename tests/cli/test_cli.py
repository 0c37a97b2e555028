import json

import numpy as np
import pytest

from pixsel.cli import build_parser, main


@pytest.fixture
def digits_npz(tmp_path):
    from pixsel.datasets import load_digits_pair

    d = load_digits_pair(3, 5)
    path = tmp_path / "digits35.npz"
    np.savez(path, X=d.X, y=d.y, image_shape=np.array(d.image_shape))
    return path


def test_help_is_complete(capsys):
    parser = build_parser()
    with pytest.raises(SystemExit) as e:
        parser.parse_args(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    for cmd in ("select", "path", "demo"):
        assert cmd in text
    for cmd in ("select", "path", "demo"):
        with pytest.raises(SystemExit):
            parser.parse_args([cmd, "--help"])
        assert "--out" in capsys.readouterr().out


def test_select_writes_json_and_mask(digits_npz, tmp_path, capsys):
    out = tmp_path / "sel"
    assert main(["select", str(digits_npz), "-k", "5", "--out", str(out)]) == 0
    report = json.loads((out / "selection.json").read_text())
    assert len(report["indices"]) == 5 and report["method"] == "gslda"
    assert report["regularization"]["method"] == "ledoit-wolf-floor"  # the library's default
    assert report["parameters"]["criterion"] == "auto" and report["criterion"] == "trace"  # what 'auto' ran
    assert report["objective"] > 0 and report["pixsel_version"]
    assert (out / "mask.png").stat().st_size > 0
    # the same selection as the Python API
    from pixsel import SparseLDASelector

    z = np.load(digits_npz)
    assert report["indices"] == SparseLDASelector(5).fit(z["X"], z["y"]).get_support(indices=True).tolist()
    assert "selected 5 of 64" in capsys.readouterr().out


def test_select_reports_the_criterion_auto_ran(tmp_path):
    """With more than two classes criterion='auto' runs 'correlation', and selection.json says so."""
    from sklearn.datasets import load_digits

    X, y = load_digits(n_class=3, return_X_y=True)
    path = tmp_path / "three.npz"
    np.savez(path, X=X, y=y, image_shape=np.array([8, 8]))
    out = tmp_path / "sel"
    assert main(["select", str(path), "-k", "4", "--out", str(out), "-q"]) == 0
    report = json.loads((out / "selection.json").read_text())
    assert report["parameters"]["criterion"] == "auto" and report["criterion"] == "correlation"


def test_select_csv_and_params(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 6))
    y = rng.integers(0, 2, 60)
    X[:, 2] += 2 * y
    csv = tmp_path / "d.csv"
    np.savetxt(csv, np.column_stack([X, y]), delimiter=",")
    out = tmp_path / "o"
    assert main(["select", str(csv), "-k", "1", "--direction", "forward", "--regularization", "0.1",
                 "--out", str(out), "-q"]) == 0
    report = json.loads((out / "selection.json").read_text())
    assert report["indices"] == [2] and report["regularization"]["alpha"] == 0.1
    assert not (out / "mask.png").exists()  # no image shape


def test_select_bad_input_is_a_clear_error_and_writes_nothing(digits_npz, tmp_path, capsys):
    out = tmp_path / "bad"
    assert main(["select", str(digits_npz), "-k", "0", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "-k must be" in err and "n_features_to_select" not in err and "[1, 64]" in err  # the flag, not the API name
    assert not (out / "selection.json").exists()
    assert main(["select", str(tmp_path / "missing.npz"), "-k", "3", "--out", str(out)]) == 2
    assert "No such file" in capsys.readouterr().err


def test_atomic_write_leaves_no_partial_file(tmp_path):
    from pixsel.io import write_json

    target = tmp_path / "x.json"
    write_json(target, {"a": 1})
    with pytest.raises(TypeError):
        write_json(target, {"a": object()})
    assert json.loads(target.read_text()) == {"a": 1}  # the old complete file survives
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # no temporary left behind


def test_path_writes_all_four_paths(digits_npz, tmp_path):
    out = tmp_path / "path"
    assert main(["path", str(digits_npz), "--out", str(out), "-q"]) == 0
    report = json.loads((out / "path.json").read_text())
    assert set(report["paths"]) == {"forward", "backward", "fisher", "simple"}
    fwd = np.array(report["paths"]["forward"]["objective"])
    assert fwd.shape == (64,) and np.all(np.diff(fwd) >= -1e-9)  # nested forward path: f grows with k
    for name in ("backward", "fisher", "simple"):  # every path ends at the full set
        assert report["paths"][name]["objective"][-1] == pytest.approx(fwd[-1], rel=1e-9)
    assert np.all(np.array(report["lower_bound_eq5"]) <= fwd + 1e-9)
    assert (out / "path.png").stat().st_size > 0


def test_demo_runs_and_reports(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--no-gp"]) == 0
    summary = json.loads((out / "demo.json").read_text())
    assert summary["test_accuracy"]["linear"][-1] > 0.9  # 3 vs 5 is easy with all pixels
    assert summary["optimal_single_pixel"]["objective"] == pytest.approx(max(summary["objective"]["forward"][:1]))
    for name in ("path.png", "masks.png", "accuracy.png", "demo.json"):
        assert (out / name).stat().st_size > 0
    assert "optimal single pixel" in capsys.readouterr().out


def _subparsers():
    parser = build_parser()
    (action,) = [a for a in parser._actions if a.dest == "command"]
    return action.choices


def test_one_flag_set_across_commands():
    """An option string means the same thing (the same destination) in every command that has it."""
    dests = {}
    for sub in _subparsers().values():
        for action in sub._actions:
            for opt in action.option_strings:
                dests.setdefault(opt, set()).add(action.dest)
    clashes = {opt: d for opt, d in dests.items() if len(d) > 1}
    assert not clashes
    assert dests["-m"] == {"method"} and dests["-k"] == {"k"} and dests["-o"] == {"out"}
    assert dests["--seed"] == dests["--random-state"] == {"seed"}
    for name in ("select", "path", "project", "evaluate"):
        assert "-m" in _subparsers()[name]._option_string_actions, name


def test_demo_selection_is_the_dual_selector(tmp_path):
    from pixsel import SparseLDASelector
    from pixsel.datasets import load_digits_pair, load_train_test

    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--no-gp", "-q"]) == 0
    summary = json.loads((out / "demo.json").read_text())
    tt = load_train_test(load_digits_pair(3, 5), test_size=0.5, random_state=0)
    # the demo runs sparse LDA as select and path do: the selector's default regularization
    sel = SparseLDASelector(1, direction="dual").fit(tt.X_train, tt.y_train)
    assert summary["regularization"]["method"] == sel.regularization_["method"]
    for k in summary["ks"]:
        assert summary["supports"][str(k)] == sel.get_support_at(k, indices=True).tolist()
    assert summary["test_accuracy_all_pixels_linear"] == summary["test_accuracy"]["linear"][-1]
    assert set(summary["test_accuracy"]) == {"linear"}
