import json

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from pixsel import SparseLDASelector
from pixsel.datasets import load_digits_pair
from pixsel.experiments import SELECTORS, evaluate_selection, select_pixels


@pytest.fixture(scope="module")
def digits():
    d = load_digits_pair(3, 5)
    Xa, Xb, ya, yb = train_test_split(d.X, d.y, test_size=0.5, random_state=0, stratify=d.y)
    return Xa, ya, Xb, yb


def test_evaluate_end_to_end_with_gp_and_output(digits, tmp_path):
    Xa, ya, Xb, yb = digits
    Xa0 = Xa.copy()
    res = evaluate_selection(Xa, ya, Xb, yb, method="dual", classifier="gp", ks=[1, 8],
                             classifier_params={"n_restarts": 0}, progress=False)
    np.testing.assert_array_equal(Xa, Xa0)
    assert res.ks == [1, 8]
    # the selection is the selector's
    sel = SparseLDASelector(1, regularization="auto").fit(Xa, ya)  # the experiments run the papers' objective
    for k in res.ks:
        np.testing.assert_array_equal(res.selection.supports[k], sel.get_support_at(k, indices=True))
    assert res.error[1] < res.error[0] < res.chance_error
    assert res.error[1] < 0.05
    assert res.information[0] < res.information[1] <= res.label_entropy + 1e-12
    assert np.all(np.isfinite(res.log_marginal_likelihood))
    assert res.log_marginal_likelihood[1] > res.log_marginal_likelihood[0]
    assert res.selection_time > 0 and all(t > 0 for t in res.fit_time)
    paths = res.save(tmp_path)
    report = json.loads(paths[0].read_text())
    assert report["ks"] == [1, 8] and report["error"] == res.error
    assert len(report["supports"]["8"]) == 8
    assert paths[1].stat().st_size > 0


@pytest.mark.parametrize("classifier", ["gp-ep", "linear-svm", "lda"])
def test_evaluate_other_classifiers(digits, classifier):
    Xa, ya, Xb, yb = digits
    res = evaluate_selection(Xa, ya, Xb, yb, method="forward", classifier=classifier, ks=[4],
                             classifier_params={"n_restarts": 0} if classifier == "gp-ep" else None, progress=False)
    assert res.error[0] < 0.2
    if classifier == "linear-svm":
        assert np.isnan(res.information[0]) and np.isnan(res.log_marginal_likelihood[0])
    else:
        assert 0 < res.information[0] <= res.label_entropy
    assert np.isfinite(res.log_marginal_likelihood[0]) == (classifier == "gp-ep")


@pytest.mark.parametrize("method", sorted(set(SELECTORS) - {"soft_ard"}))
def test_every_selector_returns_k_distinct_features(digits, method):
    Xa, ya, _, _ = digits
    params = {"max_k": 1, "cv": 2} if method == "sfs_lda" else {}
    sel = select_pixels(Xa, ya, method, [1, 2, 6], random_state=0, **params)
    ks = [1] if method == "sfs_lda" else [1, 2, 6]
    assert sorted(sel.supports) == ks
    for k in ks:
        S = sel.supports[k]
        assert len(np.unique(S)) == k and np.all(np.diff(S) > 0) and S.max() < Xa.shape[1]
    if method == "sfs_lda":  # refitted per k: its time is per k and sums to the total
        assert set(sel.time_per_k) == {1} and sel.time_total == pytest.approx(sum(sel.time_per_k.values()))
    else:  # one run serves every k; rankings and single paths give nested supports
        assert all(v is None for v in sel.time_per_k.values())
        if method not in ("dual", "gslda"):  # dual picks the better of two paths per k
            assert set(sel.supports[1]) <= set(sel.supports[2]) <= set(sel.supports[6])
    if method in ("forward", "backward", "dual", "gslda", "fisher"):
        assert sel.objective[2] > sel.objective[1] > 0


def test_soft_ard_selector_ranks_by_relevance(digits):
    Xa, ya, _, _ = digits
    sel = select_pixels(Xa[:80], ya[:80], "soft_ard", [3], random_state=0, approximation="laplace", max_iter=5)
    rel = sel.info["relevance"]
    assert rel.shape == (64,)
    np.testing.assert_array_equal(sel.supports[3], np.sort(np.argsort(-rel, kind="stable")[:3]))


def test_evaluate_bad_inputs(digits):
    Xa, ya, Xb, yb = digits
    with pytest.raises(ValueError, match="The 'k' parameter of evaluate_selection"):
        evaluate_selection(Xa, ya, Xb, yb, ks=[0], progress=False)
    with pytest.raises(ValueError, match="The 'classifier' parameter"):
        evaluate_selection(Xa, ya, Xb, yb, classifier="svm", ks=[1], progress=False)
    with pytest.raises(ValueError, match="The 'method' parameter"):
        evaluate_selection(Xa, ya, Xb, yb, method="lasso", ks=[1], progress=False)
    with pytest.raises(ValueError, match="two classes"):
        evaluate_selection(Xa, np.arange(len(ya)) % 3, Xb, yb, ks=[1], progress=False)
    with pytest.raises(ValueError, match="same pixels"):
        evaluate_selection(Xa, ya, Xb[:, :10], yb, ks=[1], progress=False)


def test_former_name_pixsel_evaluation_still_imports():
    import pixsel.evaluation as old
    import pixsel.experiments as new
    from pixsel.viz import plot_evaluation, plot_images

    for name in new.__all__:
        assert getattr(old, name) is getattr(new, name)
    assert old.plot_curves is plot_evaluation and old.plot_images is plot_images
