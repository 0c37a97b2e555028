"""Users' words in users' pages: no development work log in the docs, the sources or the packaging.

The docs pages, the README, the docstrings and comments of ``src/`` and the comments of
``pyproject.toml`` are read by people who installed pixsel. Words that only mean something to
whoever wrote the code ("this round", "last session", "the issue's", "moonshot", "paper 002",
"issue 16", "#12") go stale and tell a user nothing: history belongs in CHANGELOG.md (written for
users too, so it is scanned as well), papers are cited by authors, title and year, measured
figures live on the benchmarks page.
"""

import re
from pathlib import Path

import pixsel

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SRC = ROOT / "src" / "pixsel"

#: (pattern, why) -- case-insensitive, matched line by line
FORBIDDEN = [
    (r"\bthis round\b|\blast round\b|\bprevious round\b", "a development round"),
    (r"\b(this|last|previous) session\b", "a development session"),
    (r"\bthe issue'?s\b", "the issue that asked for the work"),
    (r"\bmoonshot\b", "a development goal's name"),
    (r"\bpapers? 00\d\b|\b00\d_[0-9a-f]{16}\.txt\b", "a paper by its file number: cite authors, title, year"),
    (r"\bissues? \d+\b|\bissue-\d+\b", "an issue number"),
    (r"(?<![\w&/])#\d{1,5}\b", "an issue number"),
]
#: words that only the docs pages must avoid (a docstring may well speak of a helper function)
FORBIDDEN_IN_DOCS = [
    (r"\bintegrator('s)?\b", "who merged the work"),
    (r"\bsessions?\b", "a development session"),
    (r"\bstatus against\b", "a development checklist"),
    (r"\bthe helper'?s?\b", "who did the work"),
    (r"\bthe brief\b", "the development brief"),
]


def _files():
    docs = [p for p in DOCS.rglob("*") if p.suffix in {".rst", ".md"}
            and not {"_build", "generated", "_generated", "auto_examples"} & set(p.relative_to(DOCS).parts)]
    return [(p, True) for p in [*docs, ROOT / "README.md"]] + \
        [(p, False) for p in [*SRC.rglob("*.py"), *(ROOT / "benchmarks").glob("*.py"),
                              *(ROOT / "examples").glob("*.py"), ROOT / "pyproject.toml", ROOT / "CHANGELOG.md"]]


def _offences_of_text(text, is_doc):
    rules = FORBIDDEN + (FORBIDDEN_IN_DOCS if is_doc else [])
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for pattern, why in rules:
            m = re.search(pattern, line, flags=re.I)
            if m:
                out.append(f"{n}: {m.group(0)!r} ({why})")
    return out


def _offences(path, is_doc):
    return [f"{path.relative_to(ROOT)}:{o}" for o in _offences_of_text(path.read_text(encoding="utf-8"), is_doc)]


def test_the_rules_catch_what_they_are_meant_to():
    text = ("ok line\nFigures from this round.\nSee paper 002, Theorem 1.\nfixed in issue 16\nsee #12\n"
            "colour #0072B2 is fine\nthe moonshot\nthe integrator's rerun\none call per round is fine\n")
    found = [o.split(": ", 1)[1] for o in _offences_of_text(text, is_doc=True)]
    assert found == ["'this round' (a development round)",
                     "'paper 002' (a paper by its file number: cite authors, title, year)",
                     "'issue 16' (an issue number)", "'#12' (an issue number)",
                     "'moonshot' (a development goal's name)", "\"integrator's\" (who merged the work)"]
    assert _offences_of_text("the integrator's rerun\n", is_doc=False) == []  # docs-only words


def test_no_work_log_words_in_docs_sources_or_packaging():
    files = _files()
    assert len(files) > 100  # the scan sees the tree (docs pages, README, every module, pyproject)
    offences = [o for path, is_doc in files for o in _offences(path, is_doc)]
    assert not offences, "work-log words in user-facing text:\n" + "\n".join(offences)


def _public_estimators():
    import importlib
    import inspect
    import pkgutil

    modules = ["pixsel"] + [m.name for m in pkgutil.walk_packages(pixsel.__path__, "pixsel.")
                            if not any(part.startswith("_") for part in m.name.split(".")[1:])]
    found = {}
    for name in modules:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isclass(obj) and callable(getattr(obj, "fit", None)):
                found[obj.__name__] = obj
    return found


def test_every_public_estimator_cites_its_papers():
    estimators = _public_estimators()
    assert {"SparseLDASelector", "SparsePCASelector", "CardinalSPLSSelector",
            "SubspaceScoreSelector", "SparseLinearModelProjection"} <= set(estimators)
    missing = [name for name, cls in sorted(estimators.items())
               if not re.search(r"\n\s*References\n\s*-{10}\n", cls.__doc__ or "")]
    assert not missing, f"public estimators without a numpydoc References section: {missing}"
    for name, cls in estimators.items():  # a reference names a year, not a file or an issue
        refs = cls.__doc__.split("References\n")[1]
        assert re.search(r"\b(19|20)\d\d\b|manuscript", refs), name
