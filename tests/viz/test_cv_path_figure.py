"""plot_cv_path: the band, the chosen k and the objective panel are drawn from the data given."""

import numpy as np

from pixsel.viz import plot_cv_path

RES = {"n_features": np.array([1, 2, 3, 4]), "mean_test_score": np.array([0.7, 0.9, 0.92, 0.91]),
       "std_test_score": np.array([0.05, 0.02, 0.03, 0.03])}


def test_two_panels_and_chosen_k_marked():
    fig = plot_cv_path(RES, 2, objective=[1.0, 2.0, 2.5, 2.7], rule="one-se")
    ax, ax2 = fig.axes
    labels = [line.get_label() for line in ax.get_lines()]
    assert "chosen k = 2 (smallest k within one standard error)" in labels and "best mean, k = 3" in labels
    chosen = next(line for line in ax.get_lines() if line.get_label().startswith("chosen"))
    assert chosen.get_xdata()[0] == 2 and chosen.get_ydata()[0] == 0.9
    band = ax.collections[0].get_paths()[0].vertices
    assert np.isclose(band[:, 1].max(), 0.95) and np.isclose(band[:, 1].min(), 0.65)
    marked = next(line for line in ax2.get_lines() if line.get_label() == "k = 2")
    assert marked.get_ydata()[0] == 2.0


def test_one_panel_without_objective():
    fig = plot_cv_path(RES, 3)
    assert len(fig.axes) == 1
    assert not any(line.get_label().startswith("best mean") for line in fig.axes[0].get_lines())


def test_the_within_rule_draws_its_tolerance_and_the_band_stays_under_one():
    res = {"n_features": np.array([1, 2, 5, 10]), "mean_test_score": np.array([0.8, 0.985, 0.99, 0.995]),
           "std_test_score": np.array([0.05, 0.02, 0.03, 0.03])}
    fig = plot_cv_path(res, 2, rule="within", tol=0.01, score_range=(0.0, 1.0))
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert "chosen k = 2 (smallest k within 0.01 of the best)" in labels
    tol_line = next(line for line in ax.get_lines() if line.get_label() == "best mean - 0.01")
    assert np.isclose(tol_line.get_ydata()[0], 0.985)
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].max() <= 1.0 and np.isclose(band[:, 1].max(), 1.0)  # accuracy never drawn above 1
    # a log axis labels the k drawn, not only the powers of ten
    fig = plot_cv_path({**res, "n_features": np.array([1, 2, 5, 100])}, 2)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["1", "2", "5", "100"]
