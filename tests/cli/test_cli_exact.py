"""``pixsel select --solver exact``: the certified optimum, as the selectors find it (issue 4)."""

import json

import numpy as np

from pixsel import SparseLDASelector
from pixsel.cli import main
from pixsel.selection import SparsePCASelector


def _data(seed, n=120, p=11):
    rng = np.random.default_rng(seed)
    X = np.cumsum(rng.standard_normal((n, p)), axis=1)  # correlated columns: greedy can miss
    y = rng.integers(0, 2, n)
    X += np.outer(y, rng.standard_normal(p))
    return X, y


def test_cli_solver_exact(tmp_path, capsys):
    X, y = _data(1)
    path = tmp_path / "d.npz"
    np.savez(path, X=X, y=y)
    out = tmp_path / "o"
    assert main(["select", str(path), "-k", "4", "--method", "gslda", "--solver", "exact", "--time-limit", "60",
                 "--out", str(out)]) == 0
    report = json.loads((out / "selection.json").read_text())
    assert report["status"] == "optimal" and report["gap"] == 0.0 and report["n_nodes"] >= 1
    ref = SparseLDASelector(4, solver="exact").fit(X, y)
    assert report["indices"] == ref.get_support(indices=True).tolist()
    assert "certified optimal" in capsys.readouterr().out


def test_cli_gspca_solver_exact(tmp_path, capsys):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((40, 9)) @ rng.standard_normal((9, 9))
    path = tmp_path / "u.npz"
    np.savez(path, X=X)
    out = tmp_path / "o"
    assert main(["select", str(path), "-k", "3", "--method", "gspca", "--solver", "exact", "--out", str(out)]) == 0
    report = json.loads((out / "selection.json").read_text())
    assert report["status"] == "optimal" and report["n_nodes"] >= 1
    assert report["indices"] == SparsePCASelector(3, solver="exact").fit(X).get_support(indices=True).tolist()
    assert "certified optimal" in capsys.readouterr().out
