"""The README is the user's README: it begins with the two set-up commands, stays short, cites
papers by authors and title, names no development issue, and its Python examples run. The docs
site has topic pages (not issue write-ups) and a Benchmarks page organised by capability."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def test_readme_begins_with_the_two_commands_and_is_short():
    text = README.read_text()
    assert text.startswith("```\nmake demo\nmake test\n```\n")
    assert len(text.splitlines()) <= 150
    for section in ("## Which selector?", "## Install", "## Python", "## Command line",
                    "## Exact, with a certificate", "## Documentation"):
        assert section in text
    table = text.split("## Which selector?")[1].split("##")[0]
    assert table.count("\n| ") >= 5  # a short table: one row per situation


@pytest.mark.parametrize("path", [README, *sorted(DOCS.glob("*.md")), *sorted(DOCS.glob("*.rst"))],
                         ids=lambda p: p.name)
def test_user_facing_text_cites_papers_not_files_or_issues(path):
    text = path.read_text()
    assert not re.search(r"[Pp]aper 00\d|shared/papers|papers/00\d", text), path.name
    assert not re.search(r"\bissues? \d+\b|docs/issue-\d", text), path.name


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # a loaded machine may stop the search
def test_readme_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2
    namespace = {}
    code = "\n".join(blocks).replace("time_limit=60", "time_limit=20")
    exec(compile(code, "README.md", "exec"), namespace)  # the README's own examples
    assert namespace["sel"].get_support_image().shape == (8, 8)
    assert namespace["exact"].status_ in ("optimal", "time_limit")


def test_docs_have_topic_pages_and_a_benchmarks_page_by_capability():
    assert not list(DOCS.glob("issue-*.md"))
    index = (DOCS / "index.rst").read_text()
    topics = ["greedy-sparse-lda", "spectral-framework", "exact-search", "sparse-pls", "subspace-scores",
              "slm-projections", "gp-classification", "scaling", "benchmarks"]
    for page in topics:
        assert (DOCS / f"{page}.md").exists() and f"\n   {page}\n" in index, page
    bench = (DOCS / "benchmarks.md").read_text()
    assert bench.count("| peer | date | machine | load |") >= 10
    assert "## First call" in bench and "bench_first_call" in bench
