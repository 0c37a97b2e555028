# All set-up happens here: a fresh machine needs only Python >= 3.11 and pip.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# two stamps: the library and its runtime dependencies (make demo), then the test extras (make test)
STAMP      = $(VENV)/.pixsel-installed
TEST_STAMP = $(VENV)/.pixsel-test-installed
# The environment gets no pip of its own where the pip of $(PYTHON) can install into it (pip 22.3
# and newer: --python): 17 MB less, and the install takes about a quarter less CPU. Where that pip is
# older or absent, the environment's own pip installs, as before.
OUTER_PIP := $(shell $(PYTHON) -c "import pip, sys; sys.exit(tuple(map(int, pip.__version__.split('.')[:2])) < (22, 3))" 2>/dev/null && echo yes)
# --no-compile: Python writes the bytecode of the modules a run imports, not of every installed file
ifeq ($(OUTER_PIP),yes)
VENV_ARGS = --without-pip
PIP = $(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile
else
VENV_ARGS =
PIP = $(BIN)/python -m pip install --quiet --no-compile
endif

.PHONY: demo test install docs docs-clean bench bench-quick clean

demo: $(STAMP)
	$(BIN)/pixsel demo --out results/demo --overwrite

# the linter first (configured in pyproject.toml), then the whole suite on every core (pytest-xdist;
# the tests share no files and each starts its own pools and clusters; pandas, in the test extra,
# runs the common checks' DataFrame cases; the array-API common checks run under dispatch in their
# own process with SCIPY_ARRAY_API=1: tests/array_api/test_estimators.py)
test: $(TEST_STAMP)
	$(BIN)/ruff check src tests benchmarks examples docs/conf.py
	$(BIN)/python -m pytest -n auto --dist worksteal

install: $(STAMP)

# the library and what it needs at run time, nothing else: no Numba (the extra `numba`, about 190 MB
# with llvmlite: the exact searches' compiled branch and bounds and the compiled greedy loops; every
# selector and the demo run their NumPy kernels without it) and no scikit-image (the extra `images`,
# for the LGBP features and image files Pillow does not read). The setuptools that Python 3.11's venv
# puts in the environment with its pip (3.12's does not) is removed: nothing runs it, pip builds
# pixsel in an isolated environment with the setuptools pyproject.toml names, and it is 10 MB of the
# environment.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV_ARGS) $(VENV)
	$(PIP) -e .
	$(BIN)/python -m pip uninstall --quiet --yes setuptools 2>/dev/null || true
	touch $(STAMP)

# what the suite needs besides: Numba (the exact searches and the compiled kernels, which the suite
# checks against their NumPy oracles), Clarabel (the extra `conic`: the exact search's semidefinite
# bounds, 3 MB, whose tests would skip without it), pytest and the docs packages, pandas, scikit-image, PyTorch's
# CPU build and array-api-strict, dask.distributed, zarr and h5py; then the Numba kernels compiled
# ahead (about a minute), so that no test pays for compiling them
$(TEST_STAMP): $(STAMP)
	$(PIP) -e ".[test,numba,conic,distributed,cluster,arrayapi]"
	$(BIN)/python -m pixsel._jit
	touch $(TEST_STAMP)

# the documentation site, offline (no intersphinx, nothing downloaded), warnings as errors:
# docs/_build/html/index.html. PIXSEL_DOCS_PLOT=False skips running the gallery examples.
DOCS_STAMP = $(VENV)/.pixsel-docs-installed

$(DOCS_STAMP): $(STAMP)
	$(PIP) -e ".[docs,numba]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	MPLBACKEND=Agg $(BIN)/python -m sphinx -W --keep-going -b html docs docs/_build/html
	@echo "documentation: docs/_build/html/index.html"

docs-clean:
	rm -rf docs/_build docs/generated docs/auto_examples docs/_generated docs/sg_execution_times.rst

# every benchmark at its default size: an hour or more (exact solves of up to 10 minutes; see README)
bench: $(STAMP)
	$(PIP) -e ".[bench]"
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

# every benchmark at its smoke size: minutes
bench-quick: $(STAMP)
	$(PIP) -e ".[bench]"
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f --quick || exit 1; done

clean: docs-clean
	rm -rf $(VENV) results build src/*.egg-info
