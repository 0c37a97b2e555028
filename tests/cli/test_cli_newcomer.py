"""What a newcomer hits first: options that hold, errors in the command's words, degenerate data
said, --k auto that prefers few pixels, pictures that say what they show."""

import json

import numpy as np
import pytest
from PIL import Image

from pixsel.cli import main


@pytest.fixture
def digits_npz(tmp_path):
    from pixsel.datasets import load_digits_pair

    d = load_digits_pair(3, 5)
    path = tmp_path / "digits35.npz"
    np.savez(path, X=d.X, y=d.y, image_shape=np.array(d.image_shape))
    return path


def _folder(root, classes=3, n=6, colour=False, size=8, seed=0):
    rng = np.random.default_rng(seed)
    for c in range(classes):
        (root / f"class{c}").mkdir(parents=True, exist_ok=True)
        for i in range(n):
            shape = (size, size, 3) if colour else (size, size)
            img = rng.integers(0, 200, shape).astype(np.uint8)
            img[c, :] = 255  # a planted row per class
            Image.fromarray(img).save(root / f"class{c}" / f"{i}.png")
    return root


# -- options that hold -------------------------------------------------------------------------


def test_split_on_a_folder_and_grey_on_a_file_are_refused(tmp_path, digits_npz, capsys):
    folder = _folder(tmp_path / "f")
    assert main(["select", str(folder), "-k", "2", "--split", "train", "--out", str(tmp_path / "a")]) == 2
    assert "--split train applies to an .npz with X_train/X_test" in capsys.readouterr().err
    assert main(["select", str(digits_npz), "-k", "2", "--grey", "--out", str(tmp_path / "b")]) == 2
    assert "--grey converts a folder of colour images" in capsys.readouterr().err


def test_channels_on_grey_images_is_refused(tmp_path, capsys):
    folder = _folder(tmp_path / "f")
    for command in (["select", str(folder), "-k", "2"], ["scores", str(folder)]):
        assert main([*command, "--channels", "--out", str(tmp_path / command[0])]) == 2
        assert "holds grey images" in capsys.readouterr().err
        assert not (tmp_path / command[0]).exists()


def test_param_in_scores_is_used_and_checked_and_path_says_it_has_none(tmp_path, digits_npz, capsys):
    out = tmp_path / "s"
    assert main(["scores", str(digits_npz), "--rank", "5", "--no-baselines", "--param", "n_iter=2",
                 "--out", str(out), "-q"]) == 0
    assert "subspace_m5" in json.loads((out / "scores.json").read_text())["scores"]
    assert main(["scores", str(digits_npz), "--param", "alpha=1", "--out", str(tmp_path / "s2")]) == 2
    assert "unknown --param alpha for pixsel scores; the valid keys are: center, n_iter" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["path", str(digits_npz), "--param", "alpha=1", "--out", str(tmp_path / "p")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: pixsel path") and "'pixsel path --help' lists its options" in err


def test_the_mat_variables_read_are_said(tmp_path, capsys):
    from scipy.io import savemat

    rng = np.random.default_rng(0)
    path = tmp_path / "d.mat"
    savemat(path, {"fea": rng.normal(size=(20, 4)), "gnd": np.arange(20) % 2, "other": np.ones(3)})
    assert main(["select", str(path), "-k", "1", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "read X from the variable 'fea' and y from 'gnd'; not read: other" in out


def test_a_text_file_named_npz_and_a_semicolon_csv(tmp_path, capsys):
    text = tmp_path / "notes.npz"
    text.write_text("these are my notes\nnot arrays\n")
    assert main(["select", str(text), "-k", "1", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "is a text file, not an .npz (zip) archive" in err and "pickle" not in err
    csv = tmp_path / "semi.csv"
    csv.write_text("a;b;label\n1,5;2;0\n3;4,25;1\n5;6;0\n7;8;1\n2;1;0\n6;8;1\n")
    assert main(["select", str(csv), "-k", "1", "--out", str(tmp_path / "b")]) == 0
    report = json.loads((tmp_path / "b" / "selection.json").read_text())
    assert report["n_features"] == 2 and report["n_samples"] == 6  # the semicolons and decimal commas read


@pytest.mark.parametrize("argv, flag, api", [
    (["select", "{data}", "-k", "0"], "-k must be an int in the range [1, 64]", "n_features_to_select"),
    (["select", "{data}", "-k", "3", "--solver", "exact", "--time-limit", "-1"], "--time-limit must be", "time_limit"),
    (["project", "{data}", "-n", "0"], "-n must be an int", "n_components"),
    (["select", "{data}", "-k", "3", "-m", "cardinal-spls", "--param", "n_components=0"],
     "--param n_components must be an int", "The 'n_components'"),
])
def test_errors_name_the_flags_not_the_api_parameters(tmp_path, digits_npz, capsys, argv, flag, api):
    argv = [a.format(data=digits_npz) for a in argv]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert flag in err and api not in err, err


def test_cv_advice_is_never_circular(tmp_path, capsys):
    rng = np.random.default_rng(0)
    path = tmp_path / "small.npz"
    y = np.array([0] * 6 + [1] * 2)
    np.savez(path, X=rng.normal(size=(8, 5)), y=y)
    assert main(["select", str(path), "--k", "auto", "--cv", "3", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "use --cv 2" in err and "--cv 3 or fewer" not in err
    np.savez(path, X=rng.normal(size=(7, 5)), y=np.array([0] * 6 + [1]))
    assert main(["select", str(path), "--k", "auto", "--cv", "2", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "warning: 1 of the 2 classes" in err and "hold one sample" in err
    assert "every class needs at least 2" in err and "--cv 2 or fewer" not in err and "cv=" not in err


def test_direction_cv_advice_names_the_option_that_sets_its_folds(tmp_path, capsys):
    """--direction cv cross-validates with the selector's folds (--param cv=N); its advice named
    --cv, which sets the folds of --k auto only: following it repeated the same error. --cv with
    a fixed -k, which nothing read, is refused."""
    rng = np.random.default_rng(0)
    path = tmp_path / "small.npz"
    np.savez(path, X=rng.normal(size=(10, 6)), y=np.array([0] * 8 + [1] * 2))
    base = ["select", str(path), "-k", "2", "--direction", "cv", "-q"]
    assert main([*base, "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "Use --param cv=2" in err and "--cv 2" not in err and "--param --param" not in err
    assert main([*base, "--param", "cv=2", "--out", str(tmp_path / "b")]) == 0
    assert json.loads((tmp_path / "b" / "selection.json").read_text())["parameters"]["cv"] == 2
    assert main(["select", str(path), "-k", "2", "--cv", "2", "--out", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert "--cv sets the folds of --k auto" in err and "--param cv=N" in err and "--param --param" not in err


# -- degenerate data said ------------------------------------------------------------------------


def test_one_image_per_class_is_warned(tmp_path, capsys):
    """The within-class covariance is zero: the default shrinkage (of a zero matrix) is refused in
    the command's words, before any search (it used to fail inside it, on a singular B, or to
    report the same objective for every support); a ridge runs."""
    folder = _folder(tmp_path / "f", classes=3, n=1)
    for command in (["select", str(folder), "-k", "2"], ["path", str(folder)]):
        assert main([*command, "--out", str(tmp_path / "r"), "-q"]) == 2
        err = capsys.readouterr().err
        assert "the within-class scatter is zero" in err
        assert "--regularization 'ledoit-wolf-floor'" in err and "use --regularization 'auto'" in err
        assert "leading minor" not in err and "regularization=" not in err
        assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())
    assert main(["select", str(folder), "-k", "2", "--regularization", "auto", "--out", str(tmp_path / "o"),
                 "-q"]) == 0
    err = capsys.readouterr().err
    assert "pixsel select: warning: every class of" in err and "the within-class scatter is zero" in err
    report = json.loads((tmp_path / "o" / "selection.json").read_text())
    assert any("within-class scatter is zero" in n for n in report["notes"])


def test_evaluate_warns_of_one_sample_classes_as_select_does(tmp_path, capsys):
    """A training part with a class of one sample: the same warning as select's, in the JSON's notes;
    a random split that cannot be stratified says which class and how to fix it."""
    rng = np.random.default_rng(0)
    split = tmp_path / "split.npz"
    np.savez(split, X_train=rng.normal(size=(7, 6)), y_train=np.array([0] * 6 + [1]),
             X_test=rng.normal(size=(6, 6)), y_test=np.array([0, 0, 0, 1, 1, 1]))
    out = tmp_path / "e"
    assert main(["evaluate", str(split), "-c", "lda", "-k", "1,2", "--out", str(out), "-q"]) == 0
    err = capsys.readouterr().err
    assert "pixsel evaluate: warning: 1 of the 2 classes of the training part of" in err
    assert "hold one sample" in err and "give at least 2 samples per class" in err
    report = json.loads((out / "evaluate.json").read_text())
    assert any("hold one sample" in n for n in report["notes"])
    whole = tmp_path / "whole.npz"
    np.savez(whole, X=rng.normal(size=(13, 6)), y=np.array([0] * 6 + [1] * 6 + [2]))
    assert main(["evaluate", str(whole), "--classes", "0,1", "-c", "lda", "--out", str(tmp_path / "w")]) == 2
    err = capsys.readouterr().err
    assert "1 class(es) hold one sample (2)" in err and "--test FILE" in err
    assert not (tmp_path / "w").exists()
    # two samples in every class: no warning
    np.savez(split, X_train=rng.normal(size=(8, 6)), y_train=np.array([0] * 6 + [1] * 2),
             X_test=rng.normal(size=(6, 6)), y_test=np.array([0, 0, 0, 1, 1, 1]))
    assert main(["evaluate", str(split), "-c", "lda", "-k", "1", "--out", str(tmp_path / "e2"), "-q"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_empty_class_folders_nested_images_and_mixed_bit_depths_are_warned(tmp_path, capsys):
    folder = _folder(tmp_path / "f", classes=2, n=4)
    (folder / "empty").mkdir()
    (folder / "class0" / "more").mkdir()
    Image.fromarray(np.zeros((8, 8), np.uint8)).save(folder / "class0" / "more" / "x.png")
    Image.fromarray(np.full((8, 8), 40000, np.uint16)).save(folder / "class1" / "deep.png")
    assert main(["select", str(folder), "-k", "2", "--out", str(tmp_path / "o"), "-q"]) == 0
    text = capsys.readouterr().err
    assert text.count("pixsel select: warning: ") == 3
    from pixsel.datasets import load

    with pytest.warns(UserWarning) as record:  # the library warns too, one warning each
        data = load(folder)
    assert len(record) == 3 and data.class_names == ["class0", "class1"] and len(data.notes) == 3
    assert "1 class folder(s) hold no images and were dropped: empty" in text
    assert "hold images that were not read (class0/more)" in text
    assert "different bit depths (8 of 8 bits, 1 of 16 bits)" in text


def test_classes_one_level_down_name_the_folder_to_give(tmp_path, capsys):
    root = tmp_path / "data"
    _folder(root / "faces", classes=3, n=2)
    assert main(["select", str(root), "-k", "2", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"give {root / 'faces'} as DATA" in err and "y has 1" not in err


# -- --k auto ------------------------------------------------------------------------------------


def test_k_auto_takes_the_smallest_k_within_the_tolerance(digits_npz, tmp_path):
    from pixsel.cli._select import within_tolerance

    out = tmp_path / "o"
    assert main(["select", str(digits_npz), "--k", "auto", "--cv", "3", "--out", str(out), "-q"]) == 0
    report = json.loads((out / "selection.json").read_text())
    auto = report["k_auto"]
    assert auto["rule"] == "within" and auto["tol"] == 0.01
    mean = np.asarray(auto["mean_test_score"])
    ks = np.asarray(auto["n_features"])
    # the smallest k whose mean is within 0.01 of the best: no smaller k qualifies
    assert report["k"] == within_tolerance(auto, 0.01) <= auto["best_k"]
    assert mean[ks == report["k"]][0] >= mean.max() - 0.01
    assert np.all(mean[ks < report["k"]] < mean.max() - 0.01)
    assert len(report["indices"]) == report["k"]
    # --tol 0 is the best k
    out0 = tmp_path / "o0"
    assert main(["select", str(digits_npz), "--k", "auto", "--cv", "3", "--tol", "0", "--out", str(out0), "-q"]) == 0
    best = json.loads((out0 / "selection.json").read_text())
    assert best["k"] == best["k_auto"]["best_k"] == int(ks[np.argmax(mean)])


def test_k_auto_with_cardinal_spls_and_a_constant_pixel(digits_npz, tmp_path, capsys):
    """The digits have constant (always blank) pixels: the k scored stop at those that vary."""
    out = tmp_path / "o"
    assert main(["select", str(digits_npz), "--k", "auto", "-m", "cardinal-spls", "--cv", "3",
                 "--out", str(out), "-q"]) == 0, capsys.readouterr().err
    report = json.loads((out / "selection.json").read_text())
    z = np.load(digits_npz)
    varying = int((np.ptp(z["X"], axis=0) > 0).sum())
    assert max(report["k_auto"]["n_features"]) <= varying and len(report["indices"]) == report["k"]


def test_rule_and_tol_without_k_auto_are_refused(digits_npz, tmp_path, capsys):
    assert main(["select", str(digits_npz), "-k", "3", "--tol", "0.02", "--out", str(tmp_path / "o")]) == 2
    assert "--rule and --tol choose k with --k auto" in capsys.readouterr().err


# -- pictures that say what they show ------------------------------------------------------------


def test_colour_single_channel_masks_say_channel_values(tmp_path):
    from pixsel.cli._select import mask_label, mask_title

    class Est:
        def get_support(self):
            mask = np.zeros((2, 2, 3), bool)
            mask[0, 0, :2] = True
            mask[1, 1, 2] = True
            return mask.ravel()

    assert mask_title("gslda", Est(), "features", (2, 2, 3)) == "greedy sparse LDA:\n3 channel values in 2 pixels"
    assert mask_label("features", (2, 2, 3)) == "pixels with a selected channel value"
    assert mask_label("pixels", (2, 2, 3)) == "selected pixels (all channels)"


def test_colour_scores_are_one_map_per_pixel_or_per_channel(tmp_path):
    folder = _folder(tmp_path / "f", colour=True)
    out = tmp_path / "s"
    assert main(["scores", str(folder), "--rank", "3", "--no-baselines", "--out", str(out), "-q"]) == 0
    assert (out / "subspace_m3.png").stat().st_size > 0
    from pixsel.viz import plot_score_maps

    values = np.arange(8 * 8 * 3, dtype=float)
    fig = plot_score_maps({"s": values}, (8, 8, 3))
    (img,) = fig.axes[0].get_images()
    assert img.get_array().shape == (8, 8)  # one value per pixel, never an RGB picture
    np.testing.assert_allclose(img.get_array()[0, 1], (values[3:6].sum() - values[:3].sum()) /
                               (values[-3:].sum() - values[:3].sum()))
    assert "3 channels summed" in fig.axes[0].get_title()
    fig = plot_score_maps({"s": values}, (8, 8, 3), channels="each")
    assert [ax.get_title().split("\n")[-1] for ax in fig.axes if ax.get_images()] == [
        "red channel", "green channel", "blue channel"]


def test_project_title_is_the_method_in_words(tmp_path, digits_npz):
    from unittest import mock

    import pixsel.viz as viz

    titles = []
    real = viz.plot_scatter

    def spy(*args, **kwargs):
        titles.append(kwargs.get("title"))
        return real(*args, **kwargs)

    with mock.patch.object(viz, "plot_scatter", spy):
        assert main(["project", str(digits_npz), "-n", "2", "-m", "pca", "--out", str(tmp_path / "o"), "-q"]) == 0
    assert titles == ["PCA: digits35.npz"]


def test_demo_pictures_say_which_selection_they_show(tmp_path):
    from unittest import mock

    import pixsel.viz as viz

    seen = {}
    for name in ("plot_masks", "plot_curves"):
        real = getattr(viz, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            fig = _real(*args, **kwargs)
            seen[_name] = fig
            return fig

        seen[name + "_patch"] = mock.patch.object(viz, name, spy)
    with seen.pop("plot_masks_patch"), seen.pop("plot_curves_patch"):
        assert main(["demo", "--no-gp", "--out", str(tmp_path / "d"), "-q"]) == 0
    assert "greedy sparse LDA" in seen["plot_masks"]._suptitle.get_text()
    ax = seen["plot_curves"].axes[0]
    assert "greedy sparse LDA" in ax.get_title()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4", "8", "16", "32", "64"]


def test_the_hdf5_dataset_read_is_said(tmp_path, capsys):
    h5py = pytest.importorskip("h5py")
    pytest.importorskip("dask")
    rng = np.random.default_rng(0)
    path = tmp_path / "d.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("images", data=rng.normal(size=(12, 4, 4)))
        f.create_dataset("y", data=np.arange(12) % 2)
    assert main(["select", str(path), "-k", "2", "--out", str(tmp_path / "o")]) == 0
    assert "read X from the HDF5 dataset 'images' of d.h5 and y from 'y'" in capsys.readouterr().out


# -- progress ----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["gslda", "gspca"])
def test_path_shows_its_stages_as_select_does(tmp_path, digits_npz, capsys, method):
    """--progress in a log: the stages of path as plain lines (reading, loading, the paths with
    one line per path counted, writing), no cursor codes; -q: nothing."""
    out = tmp_path / "p"
    assert main(["path", str(digits_npz), "-m", method, "--progress", "--out", str(out)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"pixsel path: reading {digits_npz}"
    assert "pixsel path: loading the paths (scikit-learn, SciPy)" in lines
    n = 5 if method == "gslda" else 3  # two classes: the statistics, forward, backward, Fisher, simple
    assert any(ln.startswith(f"pixsel path: {method} paths (365 samples, 64 features") for ln in lines), lines
    assert any(ln.startswith(f"pixsel path: {method}, paths: path {n} of {n} (") for ln in lines), lines
    assert any(ln.startswith(f"pixsel path: {method} paths done (") for ln in lines), lines
    # the last stage named (a slow write on a busy machine may add the heartbeat after it)
    assert [ln for ln in lines if "still working" not in ln][-1] == "pixsel path: writing path.json, path.png"
    assert not any("\r" in ln or "\x1b" in ln for ln in lines)
    assert (out / "path.json").is_file() and (out / "path.png").is_file()
    assert main(["path", str(digits_npz), "-m", method, "-q", "--progress", "--out", str(tmp_path / "q")]) == 0
    assert capsys.readouterr().err == ""


def test_paths_report_to_a_callable():
    from pixsel.datasets import load_digits_pair
    from pixsel.selection import lda_paths, pca_paths

    d = load_digits_pair(3, 5)
    calls = []
    ps = lda_paths(d.X, d.y, progress=lambda *a: calls.append(a))
    assert calls[-1] == (5, 5, "paths") and [c[0] for c in calls] == [1, 2, 3, 4, 5]
    assert sorted(ps.paths) == ["backward", "fisher", "forward", "simple"]
    calls.clear()
    pca_paths(d.X, progress=lambda *a: calls.append(a))
    assert calls[-1] == (3, 3, "paths")


def test_limits_without_the_exact_search_are_refused_in_plain_words(digits_npz, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["select", str(digits_npz), "-k", "2", "--time-limit", "1", "--out", str(out)]) == 2
    assert "--time-limit only limits the exact search: add --solver exact" in capsys.readouterr().err
    assert main(["select", str(digits_npz), "-k", "2", "--time-limit", "1", "--gap-tol", "0.1", "--out", str(out)]) == 2
    assert "--time-limit, --gap-tol only limit the exact search" in capsys.readouterr().err
    assert not out.exists()


def test_a_warning_repeated_by_every_fold_is_shown_once():
    """--k auto refits in every fold: the same estimator warning, with other numbers, came once
    per fold and component; it is shown once, then one line says how many more came."""
    import io

    from pixsel.cli import _warn_in_one_line

    show, stream = _warn_in_one_line("select"), io.StringIO()
    for comps in ("[5]", "[4, 5]", "[2]"):
        show(f"did not converge within max_iter=100 for component(s) {comps}", UserWarning, "f", 1, file=stream)
    show("every class of f holds one sample", UserWarning, "f", 1, file=stream)
    show.summary(stream)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "pixsel select: warning: did not converge within max_iter=100 for component(s) [5]"
    assert lines[1] == "pixsel select: warning: every class of f holds one sample"
    assert "came 2 more time(s)" in lines[2] and "'did not converge" in lines[2] and len(lines) == 3


def test_a_store_without_its_reader_is_a_user_error(tmp_path, capsys, monkeypatch):
    """An HDF5 file where h5py is not installed (the environment of `make demo`): one line naming
    the extra, exit status 2 (it was an ImportError with a traceback, exit status 1)."""
    import sys

    monkeypatch.setitem(sys.modules, "h5py", None)  # import h5py raises ImportError
    path = tmp_path / "d.h5"
    path.write_bytes(b"\x89HDF\r\n\x1a\n")
    assert main(["select", str(path), "-k", "2", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "needs the optional package 'h5py'" in err and "pip install 'pixsel[cluster]'" in err
    assert "Traceback" not in err
