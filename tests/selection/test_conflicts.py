"""Options that cannot run together are refused at the top of ``fit``, before any data work.

Each case replaces the first step that reads the data (``validate_fit``, or the host fit of the
projection) by one that fails the test if it is reached: the error must come first. Before,
``SparseLDASelector(criterion=[...], solver='exact', always_select=[0])`` raised only after the
criterion's cross-validation had fitted every fold, and ``stability`` with
``algorithm='implicit'`` after the same.
"""

import numpy as np
import pytest

import pixsel.decomposition._slm
import pixsel.selection._cv
import pixsel.selection._lda
import pixsel.selection._spca
from pixsel import PathSelectorCV, SparseLDASelector, SparseLinearModelProjection, SparsePCASelector, SPLSSelector

LDA_CONFLICTS = [
    ({"stability": 5, "algorithm": "implicit"}, "stability needs algorithm='dense'"),
    ({"stability": 5, "algorithm": "implicit", "criterion": "cv"}, "stability needs algorithm='dense'"),
    ({"stability": 5, "solver": "exact"}, "stability selection reads greedy paths"),
    ({"stability": 5, "groups": np.arange(6) // 2}, "stability counts single features"),
    ({"stability": 5, "patch_size": (2, 2)}, "stability counts single features"),
    ({"always_select": [0], "groups": np.arange(6) // 2}, "always_select forces single features"),
    ({"always_select": [0], "patch_size": (2, 2)}, "always_select forces single features"),
    ({"always_select": [0], "stability": 5}, "always_select cannot be combined with stability"),
    ({"always_select": [0], "algorithm": "implicit"}, "always_select needs algorithm='dense'"),
    ({"always_select": [0, 3, 4], "criterion": "cv"}, "n_features_to_select=2 is smaller than the 3 features"),
    ({"algorithm": "implicit", "direction": "backward"}, "algorithm='implicit' runs forward selection only"),
    ({"algorithm": "implicit", "solver": "exact"}, "solver='exact' needs algorithm='dense'"),
    ({"direction": "cv", "patch_size": (2, 2)}, "choosing the direction by cross-validation"),
    ({"regularization": ["rda", "auto"], "groups": np.arange(6) // 2},
     "choosing the criterion or the regularization by cross-validation"),
]

PCA_CONFLICTS = [
    ({"always_select": [0], "direction": "dual"}, "always_select runs the forward pass only"),
    ({"always_select": [0], "certificate": True}, "always_select runs the forward pass only"),
    ({"always_select": [0], "algorithm": "implicit"}, "always_select needs algorithm='dense'"),
    ({"stability": 5, "solver": "exact"}, "stability selection reads greedy paths"),
    ({"stability": 5, "algorithm": "implicit"}, "stability needs algorithm='dense'"),
    ({"stability": 5, "groups": np.arange(6) // 2}, "stability counts single features"),
    ({"algorithm": "implicit", "solver": "exact"}, "solver='exact' needs algorithm='dense'"),
    ({"algorithm": "implicit", "direction": "backward"}, "algorithm='implicit' runs forward selection only"),
]


def _no_data_work(*args, **kwargs):
    raise AssertionError("fit read the data before refusing the options")


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((30, 6)), np.arange(30) % 3


@pytest.mark.parametrize(("params", "match"), LDA_CONFLICTS)
def test_lda_conflicts_raise_before_any_data_work(monkeypatch, data, params, match):
    monkeypatch.setattr(pixsel.selection._lda, "validate_fit", _no_data_work)
    monkeypatch.setattr(SparseLDASelector, "_cross_validate", _no_data_work)
    with pytest.raises(ValueError, match=match):
        SparseLDASelector(2, **params).fit(*data)


@pytest.mark.parametrize(("params", "match"), PCA_CONFLICTS)
def test_pca_conflicts_raise_before_any_data_work(monkeypatch, data, params, match):
    monkeypatch.setattr(pixsel.selection._spca, "validate_fit", _no_data_work)
    with pytest.raises(ValueError, match=match):
        SparsePCASelector(2, **params).fit(data[0])


def test_general_model_with_a_kernel_raises_before_any_data_work(monkeypatch, data):
    monkeypatch.setattr(pixsel.decomposition._slm, "fit_on_host", _no_data_work)
    with pytest.raises(ValueError, match="model='general' of SparseLinearModelProjection is linear only"):
        SparseLinearModelProjection(model="general", kernel="rbf").fit(data[0])



def test_path_selector_cv_refuses_a_selector_without_k_before_any_data_work(monkeypatch, data):
    monkeypatch.setattr(pixsel.selection._cv, "check_input", _no_data_work)
    with pytest.raises(TypeError, match="SPLSSelector sets its sparsity with eta"):
        PathSelectorCV(SPLSSelector(0.5)).fit(*data)
