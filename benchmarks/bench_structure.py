"""How a change spreads through pixsel: the structural goals of "one objective, many searches".

Goal: a criterion is one class behind one registration, so no code outside the criterion module
branches on a criterion's name; no array-API twin of a NumPy kernel without a benchmark that
justifies it (``bench_xp_twins.py`` times the pair on NumPy input, and the twin's docstring says
so); no private module imported across packages (in the library and the benchmarks);
the two largest estimators' ``fit`` at most 40 lines; every public estimator declares
``_parameter_constraints`` and cites its papers in a ``References`` section.

The script reads the source tree it sits in (nothing is timed) and prints one line per goal with
the measured figure, the goal and whether it is met, plus the sites behind every figure that
misses, so a contributor sees where to look. ``--quick`` is the same run (it takes about a second).
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from _common import parser, write_results

import pixsel
import pixsel.decomposition
import pixsel.gp
import pixsel.selection

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "pixsel"
BENCH = ROOT / "benchmarks"

#: the module where criteria are defined and their public names are mapped to objects
CRITERION_MODULE = SRC / "spectral" / "_criteria.py"
#: the benchmark that times each kept array-API twin against its NumPy kernel on NumPy input
TWIN_BENCH = BENCH / "bench_xp_twins.py"
#: the two estimators whose ``fit`` the goal bounds, with the bound
FIT_LIMITS = {"SparseLDASelector": 40, "SparsePCASelector": 40}


def _modules(folder):
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _is_criterion(node):
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.lstrip("_").endswith("criterion")


def _is_strings(node):
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    return False


def criterion_branches():
    """Comparisons of a ``criterion`` variable with string names, outside the criterion module."""
    sites = []
    for path in _modules(SRC):
        if path == CRITERION_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            if any(_is_criterion(a) for a in operands) and any(_is_strings(a) for a in operands):
                sites.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return sites


def measured_twins():
    """``TWINS`` of the twin benchmark, read from its source (nothing imported): the ``*_xp.py``
    modules it times on NumPy input against their NumPy kernel, each with the callable timed."""
    if not TWIN_BENCH.is_file():
        return {}
    for node in ast.parse(TWIN_BENCH.read_text(), str(TWIN_BENCH)).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "TWINS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def xp_twins():
    """Modules named ``*_xp.py`` (array-API twins of a NumPy kernel) that no benchmark justifies,
    and those it does. A twin is justified when the twin benchmark lists it in ``TWINS``, calls the
    callable listed there, which the module defines, and the module's docstring names the
    benchmark (where a reader of the module learns why the NumPy kernel stays)."""
    measured = measured_twins()
    bench = TWIN_BENCH.read_text() if TWIN_BENCH.is_file() else ""
    unjustified, justified = [], []
    for path in _modules(SRC):
        if not path.stem.endswith("_xp"):
            continue
        site = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(), str(path))
        name = measured.get(str(path.relative_to(SRC.parent)))
        if name is None:
            unjustified.append(f"{site}: not timed by {TWIN_BENCH.name} (TWINS)")
        elif not any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name for n in tree.body):
            unjustified.append(f"{site}: does not define {name}, which {TWIN_BENCH.name} times")
        elif not re.search(rf"\b{re.escape(name)}\(", bench):
            unjustified.append(f"{site}: {TWIN_BENCH.name} lists {name} but never calls it")
        elif TWIN_BENCH.name not in (ast.get_docstring(tree) or ""):
            unjustified.append(f"{site}: its docstring does not name {TWIN_BENCH.name}")
        else:
            justified.append(site)
    return unjustified, justified


def _private(parts):
    return any(part.startswith("_") for part in parts)


def _imported_modules(path):
    """Absolute dotted names of the modules ``path`` imports from (relative imports resolved)."""
    package = path.relative_to(ROOT / "src").with_suffix("").parts[:-1] if SRC in path.parents else ()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            mod = base + (node.module.split(".") if node.module else [])
            if node.module is None:  # ``from . import _x``: the names are modules
                for alias in node.names:
                    yield node.lineno, mod + [alias.name]
            else:
                yield node.lineno, mod


def private_imports():
    """Imports of another package's private module (``src/``), or of any private pixsel module
    (``benchmarks/``). The top-level private modules of ``pixsel`` (validation, routes, progress)
    are the package's shared infrastructure and are not counted for ``src/``; the twin benchmark's
    imports of the ``*_xp.py`` modules it times (its ``TWINS``, see :func:`xp_twins`) are its
    subject and are not counted either."""
    sites = []
    for path in _modules(SRC):
        own = path.relative_to(SRC).parts[0]
        for lineno, mod in _imported_modules(path):
            if len(mod) < 3 or mod[0] != "pixsel":
                continue
            if mod[1] != own.removesuffix(".py") and _private(mod[2:]):
                sites.append(f"{path.relative_to(ROOT)}:{lineno} imports {'.'.join(mod)}")
    timed_twins = {key.removesuffix(".py").replace("/", ".") for key in measured_twins()}
    for path in _modules(BENCH):
        for lineno, mod in _imported_modules(path):
            if path == TWIN_BENCH and ".".join(mod) in timed_twins:
                continue  # the twin benchmark imports the private twins it times (and nothing else)
            if mod[0] == "pixsel" and _private(mod[1:]):
                sites.append(f"{path.relative_to(ROOT)}:{lineno} imports {'.'.join(mod)}")
    return sites


def fit_lengths():
    """Lines of ``fit`` (docstring excluded) of the estimators in :data:`FIT_LIMITS`."""
    out = {}
    for name in FIT_LIMITS:
        cls = getattr(pixsel, name)
        tree = ast.parse(Path(inspect.getsourcefile(cls)).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == name:
                fit = next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "fit")
                body = fit.body[1:] if ast.get_docstring(fit) else fit.body
                out[name] = body[-1].end_lineno - body[0].lineno + 1
    return out


def public_estimators():
    """Every estimator class in the ``__all__`` of the packages that hold estimators."""
    found = {}
    for module in (pixsel, pixsel.selection, pixsel.decomposition, pixsel.gp):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and hasattr(obj, "fit") and hasattr(obj, "get_params"):
                found[name] = obj
    return found


def without_constraints():
    """Estimators whose declared constraints (their own or a base class's) miss a parameter."""
    missing = []
    for name, cls in public_estimators().items():
        declared = getattr(cls, "_parameter_constraints", None)
        if not isinstance(declared, dict) or set(cls().get_params(deep=False)) - set(declared):
            missing.append(name)
    return sorted(missing)


def without_references():
    pattern = re.compile(r"^\s*References\n\s*-{4,}", re.M)
    return sorted(n for n, cls in public_estimators().items() if not pattern.search(inspect.getdoc(cls) or ""))


def main():
    args = parser("bench_structure", __doc__.splitlines()[0]).parse_args()
    fits = fit_lengths()
    twins, justified = xp_twins()
    goals = [
        ("criterion-name branches outside the criterion module", criterion_branches(), 0),
        ("*_xp.py twins of NumPy kernels no benchmark justifies", twins, 0),
        ("private imports across packages (src/ and benchmarks/)", private_imports(), 0),
        ("public estimators without _parameter_constraints", without_constraints(), 0),
        ("public estimators without a References section", without_references(), 0),
    ]
    rows = {}
    print(f"{'goal':<58} {'measured':>8} {'goal':>6}  met")
    for label, sites, limit in goals:
        rows[label] = {"count": len(sites), "goal": limit, "sites": sites}
        print(f"{label:<58} {len(sites):>8} {limit:>6}  {'yes' if len(sites) <= limit else 'no'}")
    for name, n in fits.items():
        rows[f"{name}.fit lines"] = {"count": n, "goal": FIT_LIMITS[name]}
        print(f"{name + '.fit lines':<58} {n:>8} {FIT_LIMITS[name]:>6}  {'yes' if n <= FIT_LIMITS[name] else 'no'}")
    for label, sites, limit in goals:
        if len(sites) > limit:
            print(f"\n{label}:")
            for site in sites:
                print(f"  {site}")
    print(f"\n*_xp.py twins kept beside a NumPy kernel, timed by {TWIN_BENCH.name}: {len(justified)}")
    for site in justified:
        print(f"  {site}")
    print(f"({TWIN_BENCH.name} imports the private twins it times; those imports are not counted above)")
    write_results(args, {"goals": rows, "criterion_module": str(CRITERION_MODULE.relative_to(ROOT)),
                         "justified_twins": justified})


if __name__ == "__main__":
    main()
