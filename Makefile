# scylla-cdc-lake: `make demo` and `make test` work on a fresh machine (Python 3.10+, Java 17).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo test replay-example seeds databricks-udfs lint check docs docs-serve report bench clean

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

## sqlfluff (sparksql dialect, .sqlfluff) over the models and macros; part of `make test`.
lint: $(STAMP)
	$(BIN)/sqlfluff lint models macros --processes 2
## Validate the last build's outputs with Great Expectations (Data Docs in target/gx/data_docs).
check: $(STAMP)
	$(BIN)/cdclake check

## Run the whole test suite (math vectors, driver property tests, CQL front door, dbt pipeline, acceptance corpus).
test: $(STAMP) lint
	$(BIN)/python -m pytest

## Replay the example CQL script and print its log as a cqlsh-like grid.
replay-example: $(STAMP)
	$(BIN)/cdclake replay examples/shop.cql --format table

## Regenerate the example seeds from examples/shop.cql.
seeds: $(STAMP)
	$(BIN)/python scripts/build_example_seeds.py

## Regenerate macros/databricks/cdc_udfs_ddl.sql (the UDFs as Unity Catalog functions) from python_udfs/.
databricks-udfs: $(STAMP)
	$(BIN)/python -m cdclake.databricks_udfs

## Benchmarks: each prints its ratio against a baseline measured in the same run.
bench: $(STAMP)
	cd bench && ../$(BIN)/python bench_tokens.py 2>/dev/null
	cd bench && ../$(BIN)/python bench_range_join.py 2>/dev/null
	cd bench && ../$(BIN)/python bench_generation.py 2>/dev/null

## The lineage site: generate it from the last build, then serve it on http://127.0.0.1:8080.
docs: $(STAMP)
	$(BIN)/cdclake docs generate

docs-serve: $(STAMP)
	$(BIN)/cdclake docs serve --no-browser

## A static HTML page with pictures of the last build: target/report/index.html.
report: $(STAMP)
	$(BIN)/cdclake report

clean:
	rm -rf target logs
