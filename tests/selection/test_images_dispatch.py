"""Image stacks under ``array_api_dispatch``: a colour stack of another library (array-api-strict,
the standard and nothing more: no ``reshape`` method) is flattened in its own library, and the
fitted selection follows X. Run in a process with ``SCIPY_ARRAY_API=1`` (scikit-learn refuses dispatch
otherwise; see tests/array_api/test_estimators.py)."""

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("array_api_strict")

CHECK = textwrap.dedent('''
    import numpy as np, sklearn, array_api_strict as xps
    from pixsel import ScoreSelector, SparseLDASelector, SubspaceScoreSelector
    from pixsel._array_api import device_of, to_numpy

    rng = np.random.default_rng(0)
    X = rng.random((60, 6, 5, 3)) + 1.0
    y = np.arange(60) % 3
    X[y == 1, 1, 2] += 1.0
    flat = X.reshape(60, -1)
    Xd, yd = xps.asarray(X), xps.asarray(y)
    for make in (lambda: SubspaceScoreSelector(4, rank=2, mode="top", random_state=0),
                 lambda: ScoreSelector(4, criterion="fisher"), lambda: SparseLDASelector(3)):
        with sklearn.config_context(array_api_dispatch=True):
            est = make().fit(Xd, yd)
            out = est.transform(Xd)
        ref = make().fit(X, y)
        assert est.image_shape_ == (6, 5, 3), est.image_shape_
        np.testing.assert_array_equal(est.get_support_image(), ref.get_support_image())
        assert type(out).__module__.split(".")[0] == "array_api_strict" and device_of(out) == device_of(Xd)
        np.testing.assert_allclose(to_numpy(out), flat[:, ref.get_support()])
        np.testing.assert_array_equal(to_numpy(est.ranking_), ref.ranking_)
    print("stacks follow X")
''')


def test_colour_stacks_of_other_libraries_under_dispatch():
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    proc = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "stacks follow X" in proc.stdout, (proc.stdout + proc.stderr)[-4000:]
