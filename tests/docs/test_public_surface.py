"""One public surface: each public name is exported by one public module, and the benchmarks use it.

A name is public when a public module (no underscore in its dotted path) lists it in ``__all__``.
Each such name has one home; the only re-export is the ``pixsel`` package itself, which gives
the main estimators directly (``from pixsel import SparseLDASelector``) -- the same objects as
their home packages :mod:`pixsel.selection` and :mod:`pixsel.decomposition`. Internals (search
kernels, test references, helpers) are imported from the private modules where they live, not
re-exported from a public package "for the tests". The benchmarks, as surfaces, import public
names only.
"""

import ast
import importlib
import os
import pkgutil
import subprocess
import sys
import types
from collections import defaultdict
from pathlib import Path

import pixsel

ROOT = Path(__file__).resolve().parents[2]

#: packages whose estimators ``pixsel`` re-exports (the one allowed second export)
ESTIMATOR_HOMES = ("pixsel.selection", "pixsel.decomposition")

#: Names still importable from a public package without being in its ``__all__`` because code in
#: another package imports them from there. They are to be folded into their private modules
#: (or their importers' own validation); no name may be added here.
KNOWN_UNLISTED = {
    "pixsel.spectral": {"DIRECTIONS", "check_groups", "best_objective", "pick_path"},
    "pixsel.scores": {"SCORES"},
    # the family's kernels, imported by the other spectral families through their package
    "pixsel.spectral.bounds": {"certify", "accelerated_dual", "generalize", "top_eigenvalue_bound"},
    "pixsel.spectral.greedy": {
        "refine_support", "fullrank_greedy_path", "fullrank_path_xp", "multiclass_greedy_path",
        "multiclass_path_xp", "prefix_objectives", "rank_one_path", "check_form_pair_xp",
        "rank_one_greedy_path_xp", "rank_one_path_xp", "left_looking_forward",
    },
    "pixsel.spectral.implicit": {"implicit_greedy_path"},
    "pixsel.cli": {"check_out_dir"},  # a helper of the CLI's main, defined there
    # the former name of pixsel.experiments: everything it holds is exported there (and by viz)
    "pixsel.evaluation": {"*"},
}

#: Benchmarks that reach an internal on purpose: the before/after harnesses replay a former
#: implementation inside the current one. No entry may be added here (the array-API twins that
#: ``bench_xp_twins.py`` times are its subject: :func:`_timed_twins`).
KNOWN_PRIVATE_IN_BENCHMARKS = {
    ("bench_multiclass.py", "pixsel.spectral._dispatch"),
}


def _public_modules():
    names = ["pixsel"] + [m.name for m in pkgutil.walk_packages(pixsel.__path__, "pixsel.")
                          if not any(part.startswith("_") for part in m.name.split(".")[1:])]
    return {name: importlib.import_module(name) for name in names}


def _is_private(module_name):
    return any(part.startswith("_") for part in module_name.split(".")[1:])


def test_every_public_module_declares_its_names_once():
    for name, module in _public_modules().items():
        exported = getattr(module, "__all__", None)
        assert exported is not None, f"{name} has no __all__"
        assert len(exported) == len(set(exported)), f"{name}.__all__ lists a name twice"
        for attr in exported:
            assert hasattr(module, attr), f"{name}.__all__ lists {attr!r}, which it does not define"


def test_each_public_name_has_one_home():
    homes = defaultdict(list)
    for name, module in _public_modules().items():
        for attr in module.__all__:
            homes[attr].append(name)
    twice = {}
    for attr, modules in homes.items():
        others = [m for m in modules if m != "pixsel"]
        if len(others) > 1:
            twice[attr] = modules
        elif "pixsel" in modules and attr != "__version__":
            # the top-level re-export: the same object as in its one home, an estimator package
            assert others and others[0] in ESTIMATOR_HOMES, (attr, modules)
            assert getattr(pixsel, attr) is getattr(importlib.import_module(others[0]), attr), attr
    assert not twice, f"names exported by more than one public module: {twice}"


def _unlisted_names():
    """What each public package holds beyond ``__all__`` (not a submodule, not a known case)."""
    found = {}
    for name, module in _public_modules().items():
        known = KNOWN_UNLISTED.get(name, set())
        if "*" in known:
            continue
        extra = {attr for attr, value in vars(module).items()
                 if not attr.startswith("_") and attr not in module.__all__ and attr not in known
                 and not isinstance(value, types.ModuleType)
                 and getattr(value, "__module__", "pixsel").startswith("pixsel")
                 and attr not in {"TYPE_CHECKING", "annotations", "attach"}}
        if extra:
            found[name] = sorted(extra)
    return found


def test_no_new_unlisted_names_in_public_packages():
    """No grey tier: what a public package holds beyond ``__all__`` is a submodule or a known case.

    Read in a fresh interpreter: other tests may set attributes on the packages (a lazily
    imported name, a monkeypatch) that a user's ``import`` never sees."""
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            "import test_public_surface as t; print(repr(t._unlisted_names()))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = ast.literal_eval(proc.stdout.strip().splitlines()[-1])
    assert not found, ("public packages re-export names outside __all__ (export them, or import them "
                       f"from their private module): {found}")


def _benchmark_imports():
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and node.module.split(".")[0] == "pixsel":
                yield path.name, node.lineno, node.module, [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "pixsel":
                        yield path.name, node.lineno, alias.name, []


def _timed_twins():
    """The private ``*_xp.py`` modules that ``bench_xp_twins.py`` times against their NumPy kernel
    (its ``TWINS``, read from the source): the one benchmark whose subject is private kernels."""
    path = ROOT / "benchmarks" / "bench_xp_twins.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "TWINS" for t in node.targets):
            return {("bench_xp_twins.py", key.removesuffix(".py").replace("/", "."))
                    for key in ast.literal_eval(node.value)}
    return set()


def test_benchmarks_import_public_names_only():
    bad = []
    allowed = KNOWN_PRIVATE_IN_BENCHMARKS | _timed_twins()
    for filename, line, module_name, names in _benchmark_imports():
        if _is_private(module_name):
            if (filename, module_name) not in allowed:
                bad.append(f"benchmarks/{filename}:{line}: private module {module_name}")
            continue
        module = importlib.import_module(module_name)
        for attr in names:
            value = getattr(module, attr, None)
            if attr not in getattr(module, "__all__", ()) and not isinstance(value, types.ModuleType):
                bad.append(f"benchmarks/{filename}:{line}: {module_name}.{attr} is not in its __all__")
    assert not bad, "benchmarks import internals:\n" + "\n".join(bad)


def test_the_checks_see_the_benchmarks():
    imports = list(_benchmark_imports())
    assert len({f for f, *_ in imports}) > 30  # the scan reads every benchmark script
    assert ("bench_exact_speed.py", "pixsel.spectral") in {(f, m) for f, _, m, _ in imports}
