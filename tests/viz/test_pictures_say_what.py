"""Pictures that say what was computed: exact or greedy, optimal or the gap, interrupted; many
classes told apart; panels that do not touch; greedy curves not hidden by the exact markers."""

import numpy as np
import pytest

from pixsel.viz import plot_exact_path, plot_masks, plot_scatter


def test_mask_panels_do_not_touch():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    bgs = [np.arange(64.0), np.arange(64.0)[::-1]]
    masks = [np.arange(64) < k for k in (1, 4, 8, 16)]
    fig = plot_masks(bgs, masks, (8, 8), titles=[f"k = {k}" for k in (1, 4, 8, 16)],
                     bg_titles=["mean of 3", "mean of 5"])
    FigureCanvasAgg(fig).draw()
    boxes = [ax.get_window_extent() for ax in fig.axes]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            gap_x = max(b.x0 - a.x1, a.x0 - b.x1)
            gap_y = max(b.y0 - a.y1, a.y0 - b.y1)
            assert max(gap_x, gap_y) > 5  # pixels of space between any two panels
    # the column titles stay inside the figure
    for ax in fig.axes[:4]:
        assert ax.title.get_window_extent().y1 <= fig.bbox.y1


def test_scatter_with_40_classes_has_a_colourbar_and_no_repeated_colour():
    rng = np.random.default_rng(0)
    Y, labels = rng.normal(size=(400, 2)), np.arange(400) % 40
    fig = plot_scatter(Y, labels, class_names=[f"person {i}" for i in range(40)])
    assert len(fig.axes) == 2 and fig.axes[1].get_ylabel() == "class (40)"
    colours = fig.axes[0].collections[0].to_rgba(np.arange(40))
    assert len({tuple(np.round(c, 6)) for c in colours}) == 40
    assert "person 0" in [t.get_text() for t in fig.axes[1].get_yticklabels()]


@pytest.mark.parametrize("n_classes", [3, 12])
def test_scatter_up_to_20_classes_has_a_legend_with_distinct_colours(n_classes):
    rng = np.random.default_rng(0)
    fig = plot_scatter(rng.normal(size=(5 * n_classes, 2)), np.arange(5 * n_classes) % n_classes)
    legend = fig.axes[0].get_legend()
    assert legend is not None and len(legend.get_texts()) == n_classes
    colours = {tuple(np.round(c.get_facecolor()[0][:3], 6)) for c in fig.axes[0].collections}
    assert len(colours) == n_classes


def test_exact_path_draws_the_greedy_curves_above_the_markers():
    k = 5
    fw, bw = np.linspace(1, 2, k), np.linspace(1, 2, k) + 0.01
    fig = plot_exact_path({"forward": fw, "backward": bw}, bw, bw + 0.1, ["optimal"] * 3 + ["interrupted"] * 2,
                          title="x\nexact search interrupted (Ctrl-C): 3/5 k proved optimal")
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    marker_z = max(lines["certified optimum (exact search)"].get_zorder(),
                   lines["best found, search stopped (not proved)"].get_zorder())
    assert lines["greedy backward elimination"].get_zorder() > marker_z
    assert lines["greedy forward selection"].get_zorder() > marker_z
    assert "interrupted" in ax.get_title()


def test_exact_path_draws_rounding_sized_differences_as_zero():
    """A greedy curve equal to the optimum up to a few ulps, and a bound equal to it likewise, draw
    flat zeros in the lower panel, not 1e-14 % spikes; a real shortfall still shows."""
    obj = np.array([1.0, 2.0, 3.0, 4.0])
    greedy = obj * (1 - np.array([3e-16, 0.0, 4e-16, 0.02]))  # the last k: 2 % below the optimum
    fig = plot_exact_path({"forward": greedy}, obj, obj * (1 + 2e-16), ["optimal"] * 4)
    lower = fig.axes[1]
    short = {ln.get_label(): ln for ln in lower.get_lines()}["better greedy curve below the best found (%)"]
    np.testing.assert_allclose(short.get_ydata(), [0.0, 0.0, 0.0, 2.0])
    assert [bar.get_height() for bar in lower.patches] == [0.0] * 4


@pytest.mark.parametrize("word", ["time_limit", "node_limit", "interrupted", "stopped"])
def test_exact_path_reads_every_unproved_word_as_open(word):
    """The status words of ExactPath, and the 'stopped' that earlier versions wrote (saved JSON),
    all draw open markers; 'optimal' and 'gap_reached' draw filled ones."""
    obj = np.array([1.0, 2.0, 3.0, 4.0])
    fig = plot_exact_path({"forward": obj}, obj, obj + 0.1, ["optimal", "gap_reached", word, word])
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert len(lines["best found, search stopped (not proved)"].get_xdata()) == 2
    assert len(lines["certified optimum (exact search)"].get_xdata()) == 2


def test_select_mask_title_says_exact_and_the_gap():
    from pixsel import SparseLDASelector
    from pixsel.cli._select import mask_title

    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((100, 30)), np.arange(100) % 2
    greedy = SparseLDASelector(5).fit(X, y)
    assert mask_title("gslda", greedy) == "greedy sparse LDA: 5 pixels"
    with pytest.warns(Warning, match="before proving optimality"):
        stopped = SparseLDASelector(8, solver="exact", node_limit=20, regularization="rda").fit(X, y)  # stopped
    title = mask_title("gslda", stopped)
    assert title.startswith("exact sparse LDA: 8 pixels") and "not proved optimal" in title
    assert "node limit reached" in title and f"certified gap {100 * stopped.gap_:.3g} %" in title
    solved = SparseLDASelector(2, solver="exact").fit(X[:, :8], y)
    assert mask_title("gslda", solved) == "exact sparse LDA: 2 pixels, certified optimal"
