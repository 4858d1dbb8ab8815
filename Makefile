# scylla-cdc-lake: `make demo` and `make test` work on a fresh machine (Python 3.10+, Java 17).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo check test replay-example seeds lint docs bench clean

$(STAMP): pyproject.toml
	@command -v java >/dev/null 2>&1 || { echo "java not found: Spark needs Java 17. Install it with: sudo apt-get install -y openjdk-17-jre-headless" >&2; exit 3; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

setup: $(STAMP)

## Build the example keyspace's CDC logs on embedded Spark and print a summary.
demo: $(STAMP)
	$(BIN)/cdclake build

## Validate the last build's outputs with Great Expectations (Data Docs in target/gx/data_docs).
check: $(STAMP)
	$(BIN)/cdclake check

## Run the whole test suite (math vectors, driver property tests, CQL front door, dbt pipeline, acceptance corpus).
test: $(STAMP)
	$(BIN)/python -m pytest

## Replay the example CQL script and print its log as a cqlsh-like grid.
replay-example: $(STAMP)
	$(BIN)/cdclake replay examples/shop.cql --format table

## Regenerate the example seeds from examples/shop.cql.
seeds: $(STAMP)
	$(BIN)/python scripts/build_example_seeds.py

## Benchmarks: each prints its ratio against a baseline measured in the same run.
bench: $(STAMP)
	cd bench && ../$(BIN)/python bench_tokens.py 2>/dev/null
	cd bench && ../$(BIN)/python bench_range_join.py 2>/dev/null
	cd bench && ../$(BIN)/python bench_generation.py 2>/dev/null

docs: $(STAMP)
	$(BIN)/cdclake docs generate

clean:
	rm -rf target logs
