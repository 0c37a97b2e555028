"""The public API is typed (PEP 561): every public callable annotates its parameters and return.

"Public" is every name in the ``__all__`` of ``pixsel`` and of its public subpackages; for a
class, its ``__init__`` and every public method it (or a pixsel base class) defines. The
annotations are strings (``from __future__ import annotations``) whose typing-only names are
imported under ``if TYPE_CHECKING:``; the test evaluates each one in its module's namespace plus
those imports, so a misspelt or missing name fails here, not only in a user's type checker.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import tomllib
import typing
from pathlib import Path

import pytest

import pixsel

PUBLIC_PACKAGES = [
    "pixsel",
    "pixsel.selection",
    "pixsel.decomposition",
    "pixsel.spectral",
    "pixsel.spectral.exact",
    "pixsel.stats",
    "pixsel.scores",
    "pixsel.pls",
    "pixsel.projection",
    "pixsel.datasets",
    "pixsel.io",
    "pixsel.gp",
    "pixsel.experiments",
    "pixsel.features",
    "pixsel.viz",
    "pixsel.evaluation",
    "pixsel.cli",
]


def _public_callables():
    """(qualified name, function, is_method) for every public function and method, once each."""
    seen, out = set(), []
    for pkg in PUBLIC_PACKAGES:
        module = importlib.import_module(pkg)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj) and obj.__module__.startswith("pixsel"):
                for klass in obj.__mro__:
                    if not klass.__module__.startswith("pixsel"):
                        continue
                    for attr, value in vars(klass).items():
                        if attr.startswith("_") and attr != "__init__":
                            continue
                        fn = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
                        if inspect.isfunction(fn):
                            fn = inspect.unwrap(fn)
                            if fn not in seen:
                                seen.add(fn)
                                out.append((f"{pkg}.{name}.{attr}", fn, not isinstance(value, staticmethod)))
            elif inspect.isfunction(obj) and obj.__module__.startswith("pixsel"):
                fn = inspect.unwrap(obj)
                if fn not in seen:
                    seen.add(fn)
                    out.append((f"{pkg}.{name}", fn, False))
    return out


def missing_annotations(fn, is_method=False):
    """Names of the parameters of ``fn`` without an annotation, and ``'return'`` if it lacks one."""
    sig = inspect.signature(fn)
    missing = []
    for i, (name, param) in enumerate(sig.parameters.items()):
        if is_method and i == 0:
            continue  # self / cls
        if param.annotation is inspect.Parameter.empty:
            missing.append(name)
    if sig.return_annotation is inspect.Signature.empty and fn.__name__ != "__init__":
        missing.append("return")
    return missing


_NAMESPACES = {}


def _namespace(module_name):
    """The module's globals plus what its ``if TYPE_CHECKING:`` blocks import."""
    if module_name not in _NAMESPACES:
        module = sys.modules[module_name]
        ns = dict(vars(module))
        tree = ast.parse(inspect.getsource(module))
        for node in tree.body:
            if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                code = compile(ast.Module(body=node.body, type_ignores=[]), module.__file__, "exec")
                exec(code, ns)
        _NAMESPACES[module_name] = ns
    return _NAMESPACES[module_name]


CALLABLES = _public_callables()


def test_the_walk_finds_the_public_api():
    names = {qual for qual, _, _ in CALLABLES}
    assert len(CALLABLES) > 200
    for expected in [
        "pixsel.SparseLDASelector.__init__",
        "pixsel.SparseLDASelector.fit",
        "pixsel.SparseLDASelector.transform",  # inherited from the private DaskSelectorMixin
        "pixsel.spectral.greedy_path",
        "pixsel.io.write_json",
        "pixsel.cli.main",
    ]:
        assert expected in names


def test_the_check_catches_a_missing_annotation():
    def partly(x: int, y, *, z: float = 1.0):
        return x

    class Estimator:
        def fit(self, X: object) -> None:
            return None

    assert missing_annotations(partly) == ["y", "return"]
    assert missing_annotations(Estimator.fit, is_method=True) == []


@pytest.mark.parametrize("qual, fn, is_method", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_public_callable_is_annotated(qual, fn, is_method):
    assert missing_annotations(fn, is_method) == [], f"{qual}: add type hints to its signature"
    # the string annotations resolve in the module (with its TYPE_CHECKING imports)
    hints = typing.get_type_hints(fn, globalns=_namespace(fn.__module__))
    assert "return" in hints or fn.__name__ == "__init__"


def test_py_typed_ships_with_the_package():
    root = Path(__file__).resolve().parents[1]
    assert (Path(pixsel.__file__).parent / "py.typed").is_file()
    config = tomllib.loads((root / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["pixsel"]
