# All set-up happens here: a fresh machine needs only Python >= 3.11 and pip.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.pixsel-installed

.PHONY: demo test install docs docs-clean bench bench-quick clean

demo: $(STAMP)
	$(BIN)/pixsel demo --out results/demo --overwrite

# the linter first (configured in pyproject.toml), then the whole suite (pandas, in the test extra,
# runs the common checks' DataFrame cases; the array-API common checks run under dispatch in their
# own process with SCIPY_ARRAY_API=1: tests/array_api/test_estimators.py)
test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples docs/conf.py
	$(BIN)/python -m pytest

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,distributed,cluster,arrayapi]"
	# compile the Numba kernels once, into Numba's cache: a first fit then loads them (about a minute)
	$(BIN)/python -m pixsel._jit
	touch $(STAMP)

# the documentation site, offline (no intersphinx, nothing downloaded), warnings as errors:
# docs/_build/html/index.html. PIXSEL_DOCS_PLOT=False skips running the gallery examples.
DOCS_STAMP = $(VENV)/.pixsel-docs-installed

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	MPLBACKEND=Agg $(BIN)/python -m sphinx -W --keep-going -b html docs docs/_build/html
	@echo "documentation: docs/_build/html/index.html"

docs-clean:
	rm -rf docs/_build docs/generated docs/auto_examples docs/_generated docs/sg_execution_times.rst

# every benchmark at its default size: an hour or more (exact solves of up to 10 minutes; see README)
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

# every benchmark at its smoke size: minutes
bench-quick: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f --quick || exit 1; done

clean: docs-clean
	rm -rf $(VENV) results build src/*.egg-info
