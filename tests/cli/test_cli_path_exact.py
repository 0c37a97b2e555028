"""``pixsel path --solver exact``: the certified path drawn beside the greedy ones (issue 14)."""

import json

import numpy as np
import pytest

from pixsel.cli import main
from pixsel.spectral import exact_path
from pixsel.stats import class_statistics, regularize


def _two_classes(tmp_path, seed, n, p):
    """Correlated (Brownian-like) features with a class shift, saved as DIR/d.npz."""
    rng = np.random.default_rng(seed)
    X = np.cumsum(rng.standard_normal((n, p)), axis=1)
    y = rng.integers(0, 2, n)
    X += np.outer(y, rng.standard_normal(p))
    data = tmp_path / "d.npz"
    np.savez(data, X=X, y=y)
    return X, y, data


def test_path_solver_exact_writes_per_k_status_and_figure(tmp_path, capsys):
    X, y, data = _two_classes(tmp_path, 4, 90, 9)
    out = tmp_path / "o"
    assert main(["path", str(data), "--solver", "exact", "--time-limit", "60", "--out", str(out)]) == 0
    report = json.loads((out / "path.json").read_text())
    ex = report["exact"]
    assert ex["status"] == ["optimal"] * 9 and ex["k"] == list(range(1, 10))
    assert ex["relative_gap"] == [0.0] * 9
    st = class_statistics(X, y)
    B, _ = regularize(st.within, report["regularization"]["method"], X=X, y=y, means=st.means,
                      classes=st.classes)  # the command's default, said in the JSON
    ref = exact_path(st.between, B)
    np.testing.assert_allclose(ex["objective"], ref.objective, rtol=1e-9)
    # the optimum is never below either greedy path
    for name in ("forward", "backward"):
        assert np.all(np.array(ex["objective"]) >= np.array(report["paths"][name]["objective"]) - 1e-9)
    assert (out / "path.png").stat().st_size > 0
    assert "9 of 9 k certified optimal" in capsys.readouterr().out


def test_path_solver_exact_time_limit_zero_still_certifies(tmp_path):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((60, 14)) @ rng.standard_normal((14, 14))
    data = tmp_path / "u.npz"
    np.savez(data, X=X)
    out = tmp_path / "o"
    assert main(["path", str(data), "--method", "gspca", "--solver", "exact", "--time-limit", "0", "-q",
                 "--out", str(out)]) == 0
    ex = json.loads((out / "path.json").read_text())["exact"]
    assert np.all(np.array(ex["upper_bound"]) >= np.array(ex["objective"]))
    assert ex["status"][0] == "optimal" and ex["status"][-1] == "optimal"  # k = 1 and k = p in closed form


def test_path_solver_exact_on_two_processes_and_bad_n_jobs(tmp_path, capsys):
    """--n-jobs 2 gives the same certified path (26 features: the workers start from 24 on);
    --n-jobs 0 is a user error (exit 2, says how)."""
    _, _, data = _two_classes(tmp_path, 6, 120, 26)
    one, two = tmp_path / "one", tmp_path / "two"
    assert main(["path", str(data), "--solver", "exact", "-q", "--out", str(one)]) == 0
    assert main(["path", str(data), "--solver", "exact", "--n-jobs", "2", "-q", "--out", str(two)]) == 0
    ex1 = json.loads((one / "path.json").read_text())["exact"]
    ex2 = json.loads((two / "path.json").read_text())["exact"]
    assert ex2["status"] == ["optimal"] * 26
    np.testing.assert_allclose(ex2["objective"], ex1["objective"], rtol=1e-9)
    capsys.readouterr()
    assert main(["path", str(data), "--solver", "exact", "--n-jobs", "0", "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err
    assert "--n-jobs must be" in err and "-1: every CPU" in err
    assert not (tmp_path / "bad" / "path.json").exists()


@pytest.mark.slow
def test_path_solver_exact_sparse_pca_on_more_than_256_features(tmp_path, capsys):
    """gspca on 270 features (past the leaps-and-bounds search's 256): every k <= --max-k, each size
    its own search within --time-limit, two at once with --n-jobs 2; without --time-limit or with a
    --max-k past the features, a user error before any work."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((80, 6)) @ rng.standard_normal((6, 270)) + 0.3 * rng.standard_normal((80, 270))
    data = tmp_path / "wide.npz"
    np.savez(data, X=X)
    out = tmp_path / "o"
    assert main(["path", str(data), "--method", "gspca", "--solver", "exact", "--out", str(out)]) == 2
    assert "--time-limit" in capsys.readouterr().err and not out.exists()
    assert main(["path", str(data), "--method", "gspca", "--solver", "exact", "--max-k", "300", "--time-limit", "5",
                 "--out", str(out)]) == 2
    assert "--max-k must be between 1 and the number of features (270)" in capsys.readouterr().err
    assert main(["path", str(data), "--method", "gspca", "--solver", "exact", "--time-limit", "2", "--max-k", "8",
                 "--n-jobs", "2", "-q", "--out", str(out)]) == 0
    report = json.loads((out / "path.json").read_text())
    ex = report["exact"]
    assert ex["k"] == list(range(1, 9)) and ex["status"][0] == "optimal"
    obj, ub = np.array(ex["objective"]), np.array(ex["upper_bound"])
    assert np.all(ub >= obj * (1 - 1e-12))
    A = np.cov(X, rowvar=False)
    lam = [np.linalg.eigvalsh(A[np.ix_(S, S)])[-1] for S in ex["supports"]]
    np.testing.assert_allclose(obj, lam, rtol=1e-6)  # each objective is its support's value
    assert np.all(obj >= np.array(report["paths"]["forward"]["objective"][:8]) * (1 - 1e-9))  # never below the greedy
    assert (out / "path.png").stat().st_size > 0
