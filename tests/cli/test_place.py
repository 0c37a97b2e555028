"""``pixsel place``: the files it writes, the held-out errors it reports, and user errors (exit 2)."""

import json

import numpy as np
import pytest

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
                 "--shrinkage", "none", "--out", str(out), "-q"]) == 0
    rec = json.loads((out / "place.json").read_text())
    assert rec["sensors"][0] == 0 and len(rec["sensors"]) == 5 and rec["n_test"] == 12
    assert rec["shrinkage"] == "none" and rec["shrinkage_used"] == 0.0
    err = rec["heldout_relative_error"]
    assert len(err) == 5 and err[-1] < 1e-6 < err[0]  # rank-3 images: exact from 3+ well-placed sensors
    rows, cols = np.divmod(np.array(rec["sensors"]), 10)
    d = np.hypot(rows[:, None] - rows, cols[:, None] - cols) + 99 * np.eye(5)
    assert d.min() >= 2
    for name in ("sensors.png", "reconstructions.png", "uncertainty.png", "error_vs_k.png"):
        assert (out / name).stat().st_size > 2000


def test_place_defaults_are_the_estimator_defaults(tmp_path, capsys):
    """Without --refine and --shrinkage: PixelReconstructor's defaults on the same training images
    (48 images of 100 pixels: the covariance shrunk, no swaps), and their record in place.json."""
    from pixsel import PixelReconstructor

    path = _data(tmp_path)
    out = tmp_path / "default"
    assert main(["place", str(path), "-k", "4", "--out", str(out), "-q"]) == 0
    rec = json.loads((out / "place.json").read_text())
    X = np.load(path)["X"]
    train = np.random.default_rng(rec["seed"]).permutation(60)[rec["n_test"]:]
    ref = PixelReconstructor(4).fit(X[train])
    assert rec["refine"] == "auto" and rec["shrinkage"] == "auto" and "n_swaps" not in rec
    assert rec["shrinkage_used"] == ref.shrinkage_ > 0 and rec["sensors"] == ref.sensors_.tolist()
    assert main(["place", str(path), "-k", "4", "--out", str(tmp_path / "said")]) == 0
    assert f"covariance shrunk by {ref.shrinkage_:.3g}" in capsys.readouterr().out
    out = tmp_path / "fixed"
    assert main(["place", str(path), "-k", "4", "--shrinkage", "0.3", "--refine", "no", "--out", str(out), "-q"]) == 0
    rec = json.loads((out / "place.json").read_text())
    assert rec["shrinkage_used"] == 0.3 and rec["refine"] is False


def test_place_user_errors_exit_2_and_write_nothing(tmp_path, capsys):
    data = _data(tmp_path)
    out = tmp_path / "bad"
    assert main(["place", str(data), "-k", "5", "--min-distance", "8", "--out", str(out)]) == 2
    assert "min_distance=8 leaves room for only" in capsys.readouterr().err
    assert not (out / "place.json").exists()
    assert main(["place", str(data), "-k", "5", "--holdout", "1.5", "--out", str(out)]) == 2
    for bad in ("2", "lots"):
        with pytest.raises(SystemExit) as exc:  # argparse refuses the value before any work
            main(["place", str(data), "-k", "5", "--shrinkage", bad, "--out", str(out)])
        assert exc.value.code == 2 and not (out / "place.json").exists()
        assert "must be auto, none or an intensity in [0, 1]" in capsys.readouterr().err


def _full_rank(tmp_path):
    """100 images of 5 x 5 pixels (more images than pixels: a positive definite covariance)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((100, 4)) @ rng.standard_normal((4, 25)) + 0.3 * rng.standard_normal((100, 25))
    path = tmp_path / "full.npz"
    np.savez(path, X=X.reshape(100, 5, 5))
    return path, X


def test_place_exact_is_the_brute_force_optimum(tmp_path):
    from itertools import combinations

    from pixsel.scores._column_subset import column_subset_objective

    path, X = _full_rank(tmp_path)
    out = tmp_path / "exact"
    assert main(["place", str(path), "-k", "3", "--exact", "60", "--alpha", "0", "--out", str(out), "-q"]) == 0
    rec = json.loads((out / "place.json").read_text())
    assert rec["exact"]["status"] == "optimal" and rec["exact"]["gap"] == 0.0
    train = np.random.default_rng(rec["seed"]).permutation(100)[rec["n_test"]:]
    A = X[train] - X[train].mean(axis=0)
    G = A.T @ A
    best = max(column_subset_objective(G, list(S)) for S in combinations(range(25), 3)) / np.trace(G)
    assert abs(rec["exact"]["kept_mass_fraction"] - rec["kept_mass_fraction"][-1]) < 1e-12
    assert abs(rec["kept_mass_fraction"][-1] - best) < 1e-9
    assert column_subset_objective(G, rec["sensors"]) / np.trace(G) > best - 1e-9


def test_place_exact_with_installed_and_excluded_pixels(tmp_path):
    """--exact with --always-select and --never-select: the best 4 pixels that contain the installed
    two and avoid the excluded ones (brute force over every such placement), the installed first."""
    from itertools import combinations

    from pixsel.scores._column_subset import column_subset_objective

    path, X = _full_rank(tmp_path)
    out = tmp_path / "exact"
    assert main(["place", str(path), "-k", "4", "--exact", "60", "--alpha", "0", "--always-select", "12,3",
                 "--never-select", "7,8,13", "--out", str(out), "-q"]) == 0
    rec = json.loads((out / "place.json").read_text())
    assert rec["exact"]["status"] == "optimal"
    train = np.random.default_rng(rec["seed"]).permutation(100)[rec["n_test"]:]
    A = X[train] - X[train].mean(axis=0)
    G = A.T @ A
    free = [j for j in range(25) if j not in (12, 3, 7, 8, 13)]
    best = max(column_subset_objective(G, [12, 3, *S]) for S in combinations(free, 2)) / np.trace(G)
    assert rec["sensors"][:2] == [12, 3] and not {7, 8, 13} & set(rec["sensors"])
    assert abs(rec["kept_mass_fraction"][-1] - best) < 1e-9
    unconstrained = max(column_subset_objective(G, list(S)) for S in combinations(range(25), 4)) / np.trace(G)
    assert best < unconstrained  # the constraints bind here: the check is not the unconstrained optimum's


def test_place_exact_with_a_minimum_distance(tmp_path):
    """--exact --min-distance 3.5: the best 3 pixels of the 5 x 5 images pairwise at least 3.5 apart
    (brute force over every such placement), which the distance makes differ from the free optimum."""
    from itertools import combinations

    from pixsel.scores._column_subset import column_subset_objective

    path, X = _full_rank(tmp_path)
    out = tmp_path / "exact"
    assert main(["place", str(path), "-k", "3", "--exact", "60", "--alpha", "0", "--min-distance", "3.5",
                 "--out", str(out), "-q"]) == 0
    rec = json.loads((out / "place.json").read_text())
    assert rec["exact"]["status"] == "optimal"
    train = np.random.default_rng(rec["seed"]).permutation(100)[rec["n_test"]:]
    A = X[train] - X[train].mean(axis=0)
    G = A.T @ A
    rc = np.array(np.divmod(np.arange(25), 5)).T

    def apart(S):
        return all(np.hypot(*(rc[i] - rc[j])) >= 3.5 for i, j in combinations(S, 2))

    best = max(column_subset_objective(G, list(S)) for S in combinations(range(25), 3) if apart(S)) / np.trace(G)
    assert apart(rec["sensors"]) and abs(rec["kept_mass_fraction"][-1] - best) < 1e-9
    assert best < max(column_subset_objective(G, list(S)) for S in combinations(range(25), 3)) / np.trace(G)


def test_place_exact_user_errors_exit_2(tmp_path, capsys):
    path, _ = _full_rank(tmp_path)
    out = tmp_path / "bad"
    assert main(["place", str(path), "-k", "2", "--exact", "5", "--always-select", "0,1,2", "--out", str(out)]) == 2
    assert "3 installed sensors (always_select) are more than k=2" in capsys.readouterr().err
    assert main(["place", str(path), "-k", "3", "--exact", "5", "--shrinkage", "0.5", "--out", str(out)]) == 2
    assert "drop --shrinkage or --exact" in capsys.readouterr().err
    assert main(["place", str(_data(tmp_path)), "-k", "3", "--exact", "5", "--out", str(out)]) == 2  # 48 images of 100 pixels
    assert "positive definite" in capsys.readouterr().err
    assert not (out / "place.json").exists()


def test_place_refine_writes_the_swapped_sensors(tmp_path, capsys):
    """--refine: place.json holds the sensors after the swaps (those of PixelReconstructor(refine=True)
    on the same training images), their kept mass at least the greedy's, and the greedy's order beside."""
    from pixsel import PixelReconstructor

    path, X = _full_rank(tmp_path)
    out = tmp_path / "refined"
    assert main(["place", str(path), "-k", "4", "--refine", "--alpha", "0", "--out", str(out), "-q"]) == 0
    rec = json.loads((out / "place.json").read_text())
    train = np.random.default_rng(rec["seed"]).permutation(100)[rec["n_test"]:]
    ref = PixelReconstructor(4, alpha=0, refine=True, image_shape=(5, 5)).fit(X[train])
    assert rec["refine"] is True and rec["sensors"] == ref.sensors_.tolist()
    assert rec["greedy_order"] == ref.order_.tolist() and rec["n_swaps"] == ref.n_swaps_
    assert rec["kept_mass_fraction_at_k"] >= rec["kept_mass_fraction"][-1] - 1e-12
    assert main(["place", str(path), "-k", "4", "--refine", "--exact", "5", "--out", str(tmp_path / "x")]) == 2
    assert "drop --refine" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
