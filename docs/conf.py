"""Sphinx configuration of pixsel's documentation site (``make docs``).

The build is offline: no intersphinx inventories are fetched and nothing is downloaded. Pages
that follow the code are generated here at build time so that they cannot drift from it:

* the API reference lists each public package's ``__all__`` (autosummary, ``api.rst``);
* ``_generated/toplevel.rst`` maps the names re-exported by ``pixsel`` to their packages;
* ``_generated/cli_help.rst`` holds the ``--help`` text of ``pixsel`` and of each command.

The topic pages (``docs/*.md``: each capability's design, protocol and figures; the benchmarks
page) are Markdown, read by MyST.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
from pathlib import Path

import pixsel

HERE = Path(__file__).resolve().parent
GENERATED = HERE / "_generated"

# -- project ----------------------------------------------------------------------------------
project = "pixsel"
author = "pixsel developers"
copyright = "2026, pixsel developers"
version = release = pixsel.__version__

# -- general ----------------------------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
# the topic pages are Markdown written for GitHub too: links to files outside the site (a
# benchmark script, the changelog) are plain links, and a table of figures may skip a heading level
suppress_warnings = ["myst.xref_missing", "myst.header"]
myst_heading_anchors = 3
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "**.ipynb_checkpoints",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "_generated/*.rst",  # included into pages, not pages themselves
]
default_role = "obj"
pygments_style = "sphinx"

# autodoc / autosummary: the members of a module are its __all__
autosummary_generate = True
autosummary_ignore_module_all = False
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections already give the types

# numpydoc: no automatic member tables (the class template lists the methods itself)
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True

# sphinx-gallery: examples/plot_*.py, executed at build time on bundled or generated data
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "plot_gallery": os.environ.get("PIXSEL_DOCS_PLOT", "True"),
    "abort_on_example_error": True,
}

# -- HTML -------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"pixsel {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "methods": [], "cli": [], "changelog": []}
html_static_path: list[str] = []
html_show_sourcelink = False

# -- pages generated from the code ------------------------------------------------------------

PUBLIC_PACKAGES = [
    "pixsel.selection",
    "pixsel.decomposition",
    "pixsel.spectral",
    "pixsel.stats",
    "pixsel.scores",
    "pixsel.pls",
    "pixsel.projection",
    "pixsel.gp",
    "pixsel.features",
    "pixsel.experiments",
    "pixsel.viz",
    "pixsel.datasets",
    "pixsel.io",
    "pixsel.config",
]


def _public_home(obj, name):
    """The public package among PUBLIC_PACKAGES that exports ``obj`` under ``name``."""
    for pkg in PUBLIC_PACKAGES:
        mod = importlib.import_module(pkg)
        if name in getattr(mod, "__all__", ()) and getattr(mod, name, None) is obj:
            return pkg
    return None


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:  # keep mtimes: no needless rebuilds
        path.write_text(text)


def _toplevel_listing() -> str:
    lines = []
    for name in pixsel.__all__:
        if name.startswith("_"):
            continue
        home = _public_home(getattr(pixsel, name), name)
        if home is None:
            raise RuntimeError(
                f"pixsel.{name} is exported by pixsel but by none of {PUBLIC_PACKAGES}; "
                "add its package to PUBLIC_PACKAGES in docs/conf.py so the API reference shows it."
            )
        lines.append(f"   ~{home}.{name}")
    return ".. autosummary::\n\n" + "\n".join(lines) + "\n"


def _help(argv) -> str:
    from pixsel.cli import main

    out = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "92"
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main(argv)
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return out.getvalue().rstrip()


def _cli_help() -> str:
    top = _help(["--help"])
    commands = re.findall(r"^ {4}([a-z][a-z-]*)(?: {2,}|$)", top, flags=re.M)
    if not commands:
        raise RuntimeError("no subcommands found in 'pixsel --help'; update _cli_help in docs/conf.py")
    parts = []
    for text, title in [(top, "pixsel")] + [(_help([c, "--help"]), f"pixsel {c}") for c in commands]:
        block = "\n".join("   " + line if line else "" for line in text.splitlines())
        parts.append(f"``{title}``\n{'~' * (len(title) + 4)}\n\n.. code-block:: text\n\n{block}\n")
    return "\n".join(parts)


_write(GENERATED / "toplevel.rst", _toplevel_listing())
_write(GENERATED / "cli_help.rst", _cli_help())


# -- docstring types: fitted attributes in shapes ---------------------------------------------
# scikit-learn's convention writes shapes with fitted attributes, ``ndarray of shape
# (n_features_in_,)``; in reStructuredText a bare word ending in "_" is a link to a target that
# does not exist (an error under -W). Before numpydoc renders a docstring, such words in the
# type of a "name : type" line are quoted as literals. Prose is left alone: write ``name_``.
_PARAM_LINE = re.compile(r"^(\s*[\w*][\w, *]* : )(.+)$")
_TRAILING_UNDERSCORE = re.compile(r"(?<![\w`])([A-Za-z_]\w*[A-Za-z0-9]_)(?![\w`])")


def _quote_fitted_names_in_types(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        m = _PARAM_LINE.match(line)
        if m and "`" not in m.group(2):
            lines[i] = m.group(1) + _TRAILING_UNDERSCORE.sub(r"``\1``", m.group(2))


def setup(app):
    app.connect("autodoc-process-docstring", _quote_fitted_names_in_types, priority=100)
