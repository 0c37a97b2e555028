"""One meaning, one default per option in every command; the JSON says which default was used."""

import argparse
import inspect
import json

import numpy as np
import pytest

from pixsel.cli import build_parser, main
from pixsel.cli._common import LDA_REGULARIZATION

#: options whose default is the command's own by design (its output folder, its methods, its k)
_OWN_DEFAULT = {"-o", "--out", "-m", "--method", "-k", "--k"}


@pytest.fixture
def digits_npz(tmp_path):
    from pixsel.datasets import load_digits_pair

    d = load_digits_pair(3, 5)
    path = tmp_path / "digits35.npz"
    np.savez(path, X=d.X, y=d.y, image_shape=np.array(d.image_shape))
    return path


def _defaults():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    defaults = {}
    for name, command in sub.choices.items():
        for action in command._actions:
            for option in action.option_strings:
                defaults.setdefault(option, {})[name] = action.default
    return defaults


def test_an_option_has_one_default_in_every_command():
    differ = {o: d for o, d in _defaults().items()
              if o not in _OWN_DEFAULT and len({repr(v) for v in d.values()}) > 1}
    assert differ == {}
    assert set(_defaults()["--regularization"]) >= {"select", "path", "evaluate"}


def test_the_cli_default_is_the_selectors_default():
    from pixsel import SparseLDASelector

    assert inspect.signature(SparseLDASelector).parameters["regularization"].default == LDA_REGULARIZATION


def test_path_and_select_agree_on_the_same_data_and_k(digits_npz, tmp_path):
    path_out, sel_out = tmp_path / "path", tmp_path / "sel"
    assert main(["path", str(digits_npz), "--out", str(path_out), "-q"]) == 0
    assert main(["select", str(digits_npz), "-k", "10", "--direction", "forward", "--out", str(sel_out), "-q"]) == 0
    path = json.loads((path_out / "path.json").read_text())
    sel = json.loads((sel_out / "selection.json").read_text())
    assert path["regularization"]["method"] == sel["regularization"]["method"] == LDA_REGULARIZATION
    forward = path["paths"]["forward"]
    # select reads the same forward pass at k, then swaps while the objective rises: the same
    # pixels when no swap improves, else a support at least as good, with the swaps counted
    if sel["n_swaps"] == 0:
        assert sorted(forward["order"][:10]) == sel["indices"]
        assert forward["objective"][9] == pytest.approx(sel["objective"], rel=1e-9)
    else:
        assert sel["objective"] > forward["objective"][9]
        assert len(set(sel["indices"]) - set(forward["order"][:10])) <= sel["n_swaps"]


def test_path_and_select_agree_with_more_than_two_classes(tmp_path):
    """Three classes: path runs select's criterion ('auto': correlation), says so, and its forward
    pass at k is select's support before the swaps (the paths were the largest eigenvalue's)."""
    from sklearn.datasets import load_digits

    from pixsel import SparseLDASelector
    from pixsel.selection import lda_paths
    from pixsel.spectral import criterion_named

    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, [1, 3, 5])
    X, y = X[keep][:150], y[keep][:150]
    data = tmp_path / "three.npz"
    np.savez(data, X=X, y=y, image_shape=np.array([8, 8]))
    path_out, sel_out = tmp_path / "path", tmp_path / "sel"
    assert main(["path", str(data), "--out", str(path_out), "-q"]) == 0
    assert main(["select", str(data), "-k", "6", "--param", "refine=False", "--out", str(sel_out), "-q"]) == 0
    path = json.loads((path_out / "path.json").read_text())
    sel = json.loads((sel_out / "selection.json").read_text())
    assert path["criterion"] == sel["criterion"] == "correlation"
    forward = path["paths"]["forward"]
    assert sorted(forward["order"][:6]) == sel["indices"]
    assert forward["objective"][5] == pytest.approx(sel["objective"], rel=1e-9)
    sel_lib = SparseLDASelector(6, refine=False).fit(X, y)
    assert sel_lib.get_support(indices=True).tolist() == sel["indices"]
    # the objective is the correlation criterion's, from the statistics themselves
    from pixsel.stats import class_statistics, regularize

    st = class_statistics(X, y)
    B, _ = regularize(st.within, LDA_REGULARIZATION, X=X, y=y, means=st.means, classes=st.classes)
    value = criterion_named("correlation").objective(st.between_factor, B, forward["order"][:6])
    assert forward["objective"][5] == pytest.approx(value, rel=1e-9)
    # the library's default is unchanged: the largest eigenvalue's paths
    assert lda_paths(X, y, regularization=LDA_REGULARIZATION).criterion == "max-eig"


def test_regularization_given_is_used_and_written(digits_npz, tmp_path):
    out = tmp_path / "path"
    assert main(["path", str(digits_npz), "--regularization", "auto", "--out", str(out), "-q"]) == 0
    assert json.loads((out / "path.json").read_text())["regularization"]["method"] == "auto"


def test_regularization_refused_where_it_means_nothing(digits_npz, tmp_path, capsys):
    assert main(["select", str(digits_npz), "-k", "3", "-m", "gspca", "--regularization", "auto",
                 "--out", str(tmp_path / "a")]) == 2
    assert "--regularization applies to --method gslda" in capsys.readouterr().err
    assert main(["path", str(digits_npz), "-m", "gspca", "--regularization", "auto", "--out", str(tmp_path / "b")]) == 2
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_evaluate_uses_the_same_regularization(digits_npz, tmp_path):
    out = tmp_path / "ev"
    assert main(["evaluate", str(digits_npz), "-c", "lda", "-k", "2,4", "--out", str(out), "-q"]) == 0
    report = json.loads((out / "evaluate.json").read_text())
    assert report["selection_info"]["regularization"]["method"] == LDA_REGULARIZATION
