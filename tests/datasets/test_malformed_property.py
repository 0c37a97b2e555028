"""Property test (issue 13): malformed arrays and files fed to every loader and every public selector.

The only outcomes allowed: a result, or an error of the documented kind (ValueError / TypeError,
or a UserWarning-backed capped result) whose message is one readable sentence, never numpy's or
zipfile's raw text.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pixsel
from pixsel.datasets import load

_RAW = ("could not convert", "Object arrays cannot be loaded", "File is not a zip file", "setting an array element")

_shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6)
_arrays = st.sampled_from([np.float64, np.float32, np.int64, np.uint8, np.bool_, "<U3"]).flatmap(
    lambda dt: hnp.arrays(dt, _shapes)) | hnp.arrays(np.float64, _shapes).map(lambda a: a.astype(object))


def _allowed(exc):
    assert isinstance(exc, (ValueError, TypeError)), repr(exc)
    msg = str(exc)
    assert msg and not any(raw in msg for raw in _RAW), msg


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(X=_arrays, y_len=st.integers(0, 7), strings=st.booleans())
def test_npz_loader_on_malformed_arrays(tmp_path, X, y_len, strings):
    y = np.array([f"c{i % 2}" for i in range(y_len)]) if strings else np.arange(y_len) % 2
    path = tmp_path / "m.npz"
    np.savez(path, X=X, y=y)
    try:
        d = load(path)
    except (ValueError, TypeError) as exc:
        _allowed(exc)
        return
    assert d.X.ndim == 2 and d.X.dtype.kind in "biuf" and len(d.y) == len(d.X)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200), suffix=st.sampled_from([".npz", ".csv", ".mat"]))
def test_loaders_on_garbage_files(tmp_path, data, suffix):
    path = tmp_path / f"g{suffix}"
    path.write_bytes(data)
    try:
        load(path)
    except (ValueError, TypeError) as exc:
        _allowed(exc)


SELECTORS = [pixsel.SparseLDASelector, pixsel.SparsePCASelector, pixsel.ScoreSelector, pixsel.SubspaceScoreSelector,
             pixsel.CardinalSPLSSelector, pixsel.SPLSSelector]


@pytest.mark.parametrize("cls", SELECTORS, ids=lambda c: c.__name__)
@settings(max_examples=15, deadline=None)
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(0, 8), st.integers(0, 5)),
                    elements=st.floats(-1e3, 1e3) | st.just(np.nan)))
def test_selectors_on_malformed_arrays(cls, X):
    y = np.arange(len(X)) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            est = cls().fit(X, y)
        except (ValueError, TypeError) as exc:
            _allowed(exc)
            return
    assert est.get_support().shape == (X.shape[1],)
