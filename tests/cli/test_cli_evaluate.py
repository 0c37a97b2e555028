"""``pixsel evaluate``: test error / information vs k, through the experiments surface."""

import json

import numpy as np

from pixsel.cli import main


def _digits_npz(tmp_path, **extra):
    from pixsel.datasets import load_digits_pair

    d = load_digits_pair(3, 5)
    path = tmp_path / "digits35.npz"
    np.savez(path, X=d.X, y=d.y, image_shape=np.array(d.image_shape), **extra)
    return path, d


def test_cli_evaluate_on_digits(tmp_path, capsys):
    path, d = _digits_npz(tmp_path)
    out = tmp_path / "ev"
    assert main(["evaluate", str(path), "--method", "gslda", "--classifier", "lda", "--k", "1,3", "--out", str(out),
                 "--quiet"]) == 0
    rep = json.loads((out / "evaluate.json").read_text())
    assert rep["ks"] == [1, 3] and rep["method"] == "gslda" and rep["classifier"] == "lda"
    assert rep["n_train"] + rep["n_test"] == len(d.y) and "stratified" in rep["split"]
    assert (out / "evaluate.png").stat().st_size > 0
    assert main(["evaluate", str(path), "--k", "1,x", "--out", str(out), "--quiet", "--overwrite"]) == 2
    assert "comma-separated" in capsys.readouterr().err


def test_cli_evaluate_same_numbers_as_the_api(tmp_path):
    from pixsel.datasets import load_train_test
    from pixsel.experiments import evaluate_selection

    path, _ = _digits_npz(tmp_path)
    out = tmp_path / "ev"
    assert main(["evaluate", str(path), "-m", "fisher", "-c", "logistic", "-k", "2,6", "--seed", "3",
                 "--test-size", "0.4", "-o", str(out), "-q"]) == 0
    rep = json.loads((out / "evaluate.json").read_text())
    tt = load_train_test(path, test_size=0.4, random_state=3)
    # the command's sparse LDA regularization is the one of select and path (the selector's default)
    from pixsel.cli._common import LDA_REGULARIZATION

    res = evaluate_selection(tt.X_train, tt.y_train, tt.X_test, tt.y_test, method="fisher", classifier="logistic",
                             ks=[2, 6], random_state=3, progress=False,
                             method_params={"regularization": LDA_REGULARIZATION})
    assert rep["selection_info"]["regularization"]["method"] == LDA_REGULARIZATION
    assert rep["error"] == res.error and rep["split"] == tt.split
    assert rep["supports"] == {str(k): v.tolist() for k, v in res.selection.supports.items()}


def test_cli_evaluate_uses_the_test_arrays_or_file(tmp_path):
    from pixsel.datasets import load_digits_pair

    d = load_digits_pair(3, 5)
    both = tmp_path / "split.npz"
    np.savez(both, X_train=d.X[:200], y_train=d.y[:200], X_test=d.X[200:], y_test=d.y[200:])
    out = tmp_path / "ev"
    assert main(["evaluate", str(both), "-c", "lda", "-k", "2", "-o", str(out), "-q"]) == 0
    rep = json.loads((out / "evaluate.json").read_text())
    assert rep["split"] == "X_test/y_test in DATA" and rep["n_train"] == 200 and rep["n_test"] == len(d.y) - 200
    train, test = tmp_path / "train.npz", tmp_path / "test.npz"
    np.savez(train, X=d.X[:150], y=d.y[:150])
    np.savez(test, X=d.X[150:], y=d.y[150:])
    assert main(["evaluate", str(train), "--test", str(test), "-c", "lda", "-k", "2", "-o", str(out), "-q",
                 "--overwrite"]) == 0
    rep = json.loads((out / "evaluate.json").read_text())
    assert rep["split"] == f"--test {test}" and rep["n_test"] == len(d.y) - 150
