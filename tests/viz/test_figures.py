"""Every figure of pixsel.viz: its axes, labels and legend, that it saves, and that no backend is forced."""

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from matplotlib.figure import Figure

from pixsel import viz
from pixsel.io import save_figure


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _saves(fig, tmp_path):
    path = save_figure(fig, tmp_path / "fig.png", dpi=50)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_masks_draws_the_selected_pixels_in_colour(tmp_path):
    bg = np.arange(6.0)
    mask = np.array([True, False, False, False, False, True])
    fig = viz.plot_masks([bg, bg[::-1]], [mask, ~mask], (2, 3), titles=["a", "b"], bg_titles=["r0", "r1"])
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    assert [ax.get_title() for ax in fig.axes[:2]] == ["a", "b"]
    assert fig.axes[0].get_ylabel() == "r0" and fig.axes[2].get_ylabel() == "r1"
    # the legend says what red means
    assert [t.get_text() for t in fig.legends[0].get_texts()][0] == "selected pixels"
    rgb = fig.axes[0].get_images()[0].get_array()
    np.testing.assert_allclose(rgb[0, 0], viz._figures.SELECTED)  # selected: the mask colour
    np.testing.assert_allclose(rgb[0, 1], [0.2] * 3)  # unselected: the gray background, scaled to [0, 1]
    _saves(fig, tmp_path)


def test_plot_paths_styles_bounds_and_labels(tmp_path):
    curves = {"forward": [1.0, 2.0, 3.0], "Backward GSLDA": [1.0, 2.5, 3.0], "fisher": [0.5, 1.0, 3.0]}
    fig = viz.plot_paths(curves, upper_bound=[2, 3, 3], lower_bound=[0.1, 0.2, 3], title="t", xlabel="k")
    ax = fig.axes[0]
    assert ax.get_title() == "t" and ax.get_xlabel() == "k" and ax.get_ylabel() == "objective f(S)"
    # methods named in words, bounds explained (no bare "fisher" or "Eq.(5)"); the legend sits
    # under the axes, never over the curves
    assert ax.get_legend() is None
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts[:3] == ["greedy forward selection", "Backward GSLDA", "thresholded Fisher discriminant"]
    # each bound says what it guarantees, and why it may look flat or far below the curves
    assert texts[3].startswith("certified upper bound: no k features score more") and "flat" in texts[3]
    assert texts[4].startswith("worst-case guarantee (Moghaddam et al. 2007, Eq. 5)") and "far below" in texts[4]
    colors = [ln.get_color() for ln in ax.get_lines()[:3]]
    assert colors == list(viz.PALETTE[:3])  # Okabe-Ito: colour-blind safe
    assert [ln.get_linestyle() for ln in ax.get_lines()[:3]] == ["-", "--", ":"]
    np.testing.assert_array_equal(ax.get_lines()[1].get_xdata(), [1, 2, 3])
    _saves(fig, tmp_path)


def test_plot_curves_log_axis_and_legend(tmp_path):
    fig = viz.plot_curves([1, 2, 4], {"a": [1, 2, 3], "b": [3, 2, 1]}, xlabel="k", ylabel="acc", title="t", logx=True)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "k" and ax.get_ylabel() == "acc"
    assert _legend(ax) == ["a", "b"]
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), [3, 2, 1])
    _saves(fig, tmp_path)


def _result(method, lml):
    return SimpleNamespace(method=method, classifier="gp", ks=[1, 2, 4], error=[0.3, 0.2, 0.1],
                           information=[0.1, 0.4, 0.6], log_marginal_likelihood=lml,
                           chance_error=0.5, label_entropy=1.0)


@pytest.mark.parametrize("lml,panels", [([-50.0, -40.0, -30.0], 3), ([np.nan] * 3, 2)])
def test_plot_evaluation_panels(lml, panels, tmp_path):
    fig = viz.plot_evaluation([_result("dual", lml), _result("fisher", lml)], title="T")
    assert len(fig.axes) == panels and fig._suptitle.get_text() == "T"
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert labels[:2] == ["test error", "test information (bits)"]
    assert (labels[2:] == ["log marginal likelihood"]) == (panels == 3)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["greedy sparse LDA (best of forward and backward), gp classifier",
                                    "thresholded Fisher discriminant, gp classifier", "chance (majority class)",
                                    "ideal (label entropy)"]
    assert all(ax.get_xscale() == "log" and ax.get_xlabel() == "k (selected pixels)" for ax in fig.axes)
    _saves(fig, tmp_path)


def test_plot_images_grid_titles_and_marks(tmp_path):
    imgs = [np.arange(4.0), np.ones(4), np.zeros(4)]
    fig = viz.plot_images(imgs, ["a", "b", "c"], (2, 2), marks=[[3], None, [0, 1]], ncols=2)
    assert len(fig.axes) == 4  # 2 x 2 grid, the last panel empty
    assert [ax.get_title() for ax in fig.axes] == ["a", "b", "c", ""]
    (dot,) = fig.axes[0].get_lines()
    assert (dot.get_xdata()[0], dot.get_ydata()[0]) == (1, 1)  # flat index 3 = row 1, column 1
    assert len(fig.axes[2].get_lines()[0].get_xdata()) == 2 and not fig.axes[1].get_lines()
    _saves(fig, tmp_path)


def test_score_image_and_maps(tmp_path):
    img = viz.score_image([2.0, 4.0, np.inf, 3.0], (2, 2))
    np.testing.assert_allclose(img, [[0.0, 1.0], [1.0, 0.5]])
    np.testing.assert_array_equal(viz.score_image([5.0, 5.0], (1, 2)), [[0.0, 0.0]])
    values = [5.0, np.inf]
    viz.score_image(values, (1, 2))
    assert values == [5.0, np.inf]  # the caller's values are not modified
    fig = viz.plot_score_maps({"variance": np.arange(4.0), "fisher": -np.arange(4.0)}, (2, 2),
                              titles={"fisher": "Fisher"})
    maps = [ax for ax in fig.axes if ax.get_images() and ax.get_title()]
    assert [ax.get_title() for ax in maps] == ["variance", "Fisher"]
    np.testing.assert_allclose(maps[1].get_images()[0].get_array(), [[1.0, 2 / 3], [1 / 3, 0.0]])
    # one colorbar per map, saying what the colours mean
    bars = [ax for ax in fig.axes if ax not in maps]
    assert len(bars) == 2 and all("importance" in ax.get_ylabel() for ax in bars)
    single = viz.plot_score_maps({"variance": np.arange(4.0)}, (2, 2))
    assert single.get_size_inches()[0] >= 4  # a single map at a readable size
    _saves(fig, tmp_path)


def test_plot_scatter_legend_only_for_few_labels(tmp_path):
    Y = np.random.default_rng(0).normal(size=(30, 3))
    fig = viz.plot_scatter(Y, np.arange(30) % 3, title="pca")
    ax = fig.axes[0]
    assert ax.get_title() == "pca" and ax.get_xlabel() == "component 1" and ax.get_ylabel() == "component 2"
    assert ax.get_legend().get_title().get_text() == "class" and _legend(ax) == ["0", "1", "2"]
    np.testing.assert_allclose(ax.collections[0].get_offsets(), Y[::3, :2])
    named = viz.plot_scatter(Y, np.arange(30) % 3, class_names=["cat", "dog", "owl"]).axes[0]
    assert _legend(named) == ["cat", "dog", "owl"]
    assert len({tuple(c.get_facecolor()[0]) for c in named.collections}) == 3  # three distinct colours
    assert viz.plot_scatter(Y, np.arange(30)).axes[0].get_legend() is None  # 30 labels: no legend
    assert viz.plot_scatter(Y).axes[0].get_legend() is None
    _saves(fig, tmp_path)


def test_viz_forces_no_backend_and_leaves_pyplot_alone():
    code = (
        "import sys, matplotlib\n"
        "matplotlib.use('svg')\n"
        "import numpy as np\n"
        "from pixsel import viz\n"
        "fig = viz.plot_paths({'forward': [1.0, 2.0]})\n"
        "assert matplotlib.get_backend() == 'svg', matplotlib.get_backend()\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
        "import pixsel.cli, pixsel.experiments, pixsel.io\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_plot_masks_fills_the_chosen_pixels_of_colour_images_over_faded_colours():
    from pixsel.viz import plot_masks
    from pixsel.viz._figures import SELECTED

    bg = np.random.default_rng(0).uniform(0, 1, (3, 4, 3))
    mask = np.zeros((3, 4, 3), dtype=bool)
    mask[1, 2, :] = True
    fig = plot_masks([bg.ravel()], [mask.ravel()], (3, 4, 3), titles=["1 pixel"])
    ax = fig.axes[0]
    rgb = np.asarray(ax.images[0].get_array())
    assert rgb.shape == (3, 4, 3)
    np.testing.assert_allclose(rgb[1, 2], SELECTED)  # the chosen pixel carries the selection colour
    others = np.delete(rgb.reshape(-1, 3), 1 * 4 + 2, axis=0)
    assert others.min() >= 0.5  # the rest faded: the selection stands out on any image
    assert np.ptp(others, axis=1).max() < 0.2  # and mostly greyed, so its colours never hide it
    # a black edge around the chosen pixel: four sides
    (edges,) = ax.collections
    assert len(edges.get_segments()) == 4
    # the legend says what the colour means, as asked
    fig = plot_masks([bg.ravel()], [mask.ravel()], (3, 4, 3), label="pixels with a selected channel value")
    assert fig.legends[0].get_texts()[0].get_text() == "pixels with a selected channel value"
