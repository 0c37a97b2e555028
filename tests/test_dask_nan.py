"""A NaN in a row-chunked Dask array is reported at its row of the whole array (issue 13).

Every public entry point that takes Dask input -- the ``fit`` of the estimators whose docstring
says ``dask array``, ``lda_paths``, and every ``transform`` that returns a lazy Dask array --
must say where the NaN is in ``X`` (row 217), not where it is inside its chunk (row 17 of the
chunk of rows 200 to 249), and not only "X contains NaN".
"""

import inspect
import warnings

import dask.array as da
import numpy as np
import pytest
from numpydoc.docscrape import NumpyDocString
from sklearn.base import BaseEstimator

import pixsel.decomposition
import pixsel.gp
import pixsel.selection
from pixsel.selection import ScoreSelector, SubspaceScoreSelector, lda_paths

LOCATED = r"X \(rows 200 to 249\) contains 1 NaN .* the first at index \(217, 3\)"


def _estimators():
    out = []
    for module in (pixsel.selection, pixsel.decomposition, pixsel.gp):
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                out.append(obj)
    return out


def _fit_takes_dask(cls):
    doc = NumpyDocString(inspect.getdoc(cls.fit) or "")
    return any(p.name == "X" and "dask" in p.type for p in doc["Parameters"])


ESTIMATORS = _estimators()
DASK_FIT = [cls() for cls in ESTIMATORS if _fit_takes_dask(cls)]
DASK_FIT += [ScoreSelector(criterion=c) for c in ("uniform", "supervised_laplacian", "fisher")]
DASK_FIT += [ScoreSelector(mode="sample"), SubspaceScoreSelector(mode="sample")]


FAST = {"SparseLinearModelProjection": {"n_atoms": 5, "max_iter": 2}}  # the transform is tested


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 12))
    y = np.arange(300) % 2
    X_nan = X.copy()
    X_nan[217, 3] = np.nan
    return X, X_nan, y


def test_the_dask_estimators_are_found():
    names = {type(e).__name__ for e in DASK_FIT}
    assert {"SparseLDASelector", "ScoreSelector", "SubspaceScoreSelector"} <= names


@pytest.mark.parametrize("estimator", DASK_FIT, ids=repr)
def test_fit_reports_the_global_row(estimator):
    _, X_nan, y = _data()
    with pytest.raises(ValueError, match=LOCATED):
        estimator.fit(da.from_array(X_nan, chunks=(50, 12)), y)


def test_lda_paths_reports_the_global_row():
    _, X_nan, y = _data()
    with pytest.raises(ValueError, match=LOCATED):
        lda_paths(da.from_array(X_nan, chunks=(50, 12)), y)


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if hasattr(c, "transform")], ids=lambda c: c.__name__)
def test_lazy_transform_reports_the_global_row(cls):
    X, X_nan, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings of small default fits
        estimator = cls(**FAST.get(cls.__name__, {})).fit(X, y)
    lazy = estimator.transform(da.from_array(X, chunks=(50, 12)))
    if not isinstance(lazy, da.Array):
        pytest.skip(f"{cls.__name__}.transform does not keep Dask input lazy")
    np.testing.assert_allclose(lazy.compute(), estimator.transform(X))
    with pytest.raises(ValueError, match=LOCATED):
        estimator.transform(da.from_array(X_nan, chunks=(50, 12))).compute()
