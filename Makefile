# All set-up happens here: a fresh machine needs only Python >= 3.11 and pip.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.pixsel-installed

.PHONY: demo test install bench bench-quick clean

demo: $(STAMP)
	$(BIN)/pixsel demo --out results/demo

test: $(STAMP)
	$(BIN)/python -m pytest

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,distributed,cluster]"
	touch $(STAMP)

# the issue-sized runs: hours in all (the Monte Carlo of 50,000 pairs alone is ~6 h; see README)
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

# every benchmark at its smoke size: minutes
bench-quick: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f --quick || exit 1; done

clean:
	rm -rf $(VENV) results build src/*.egg-info
