"""scikit-learn's common checks for EVERY public estimator at its DEFAULT parameters (issue 13).

The estimators are found from the ``__all__`` of the public packages, so a new estimator is
checked without editing this file. Eight of them (the selectors, ``GreedySparsePCA`` and
``SparseLinearModelProjection``) are checked at their defaults in
``tests/selection/test_defaults.py`` with the cap-and-warn behaviour of their ``k``; this file
checks all the others and asserts that the lists together are the whole public API.

``GaussianProcessProbitClassifier()`` at its defaults (EP, 2 optimizer restarts) also passes every
check, but takes about a minute per classifier check on the project's 2-core machines; the suite
checks it with ``optimizer=None`` (tests/gp/test_classifier.py), which runs the same code paths
but the hyperparameter search.

scikit-learn does not run its ``check_param_validation`` on estimators outside scikit-learn;
every public pixsel estimator declares ``_parameter_constraints``, so it is run here on all of
them (GaussianProcessProbitClassifier included: every parameter it tries is refused before any
work).
"""

import ast
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import check_param_validation, parametrize_with_checks

import pixsel.decomposition
import pixsel.gp
import pixsel.selection

PACKAGES = (pixsel.selection, pixsel.decomposition, pixsel.gp)
DEFAULTS_FILE = Path(__file__).parent / "selection" / "test_defaults.py"


def public_estimators():
    found = []
    for module in PACKAGES:
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                found.append(obj)
    return found


def checked_in_test_defaults():
    """Class names in the ``DEFAULTS`` list of tests/selection/test_defaults.py (built as ``Cls()``)."""
    tree = ast.parse(DEFAULTS_FILE.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DEFAULTS" for t in node.targets):
            return {call.func.id for call in node.value.elts if not call.args and not call.keywords}
    return set()


ESTIMATORS = public_estimators()
ELSEWHERE = checked_in_test_defaults()
SLOW_AT_DEFAULTS = {"GaussianProcessProbitClassifier"}  # see the module docstring
HERE = [cls for cls in ESTIMATORS if cls.__name__ not in ELSEWHERE | SLOW_AT_DEFAULTS]


def test_every_public_estimator_is_checked_at_its_defaults():
    names = {cls.__name__ for cls in ESTIMATORS}
    assert len(names) == 17
    assert ELSEWHERE <= names and len(ELSEWHERE) == 10
    assert {cls.__name__ for cls in HERE} | ELSEWHERE | SLOW_AT_DEFAULTS == names
    assert {"PathSelectorCV", "KernelLPP", "LocalityPreservingProjection"} <= {cls.__name__ for cls in HERE}
    assert "GaussianProcessProbitClassifier(" in (Path(__file__).parent / "gp" / "test_classifier.py").read_text()


@parametrize_with_checks([cls() for cls in HERE])
def test_default_parameters_pass_the_common_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_every_parameter_is_declared_and_validated_before_fitting(cls):
    assert set(cls._parameter_constraints) == set(cls().get_params(deep=False))
    check_param_validation(cls.__name__, cls())
