# scylla-cdc-lake: `make demo` and `make test` work on a fresh machine (Python 3.10+); they
# install Java 17 (and for the tests Debian's chromium) when missing, or say how.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: java browser jars cassandra-jars cassandra setup demo test test-unit replay-example seeds lint check docs docs-serve report bench bench-pipeline bench-replay bench-startup bench-cluster clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

## Java for Spark; Debian's chromium for the browser tests (installed when missing, or how to).
java:
	@scripts/system_packages.sh java

browser:
	@scripts/system_packages.sh chromium

## Delta Lake's jars from Maven Central (jars/, the version of the delta-spark package); without them: Parquet.
## Also the Spark Cassandra Connector's (jars/cassandra-connector/) and cdclake's data source for CDC log
## tables built on it (java/log-source, needs javac), for `cdclake load cluster`.
jars: $(STAMP)
	@scripts/fetch_jars.sh $(BIN)/python

## Apache Cassandra's server from Maven Central (jars/cassandra-server/): the real CQL server of the tests.
cassandra-jars:
	@scripts/fetch_cassandra.sh

## A Cassandra server in target/cassandra (CQL on port 9042, or CASSANDRA_PORT=N) until Ctrl-C.
CASSANDRA_PORT ?= 9042
cassandra: java $(STAMP) cassandra-jars
	$(BIN)/python tests/python/cassandra_server.py --port $(CASSANDRA_PORT)

setup: java $(STAMP) jars

## Load the example keyspace's inputs (seeds/), build its CDC logs on embedded Spark, print a summary.
demo: java $(STAMP) jars
	$(BIN)/cdclake load example
	$(BIN)/cdclake build

## sqlfluff (sparksql dialect, .sqlfluff) over the models and macros; part of `make test`.
lint: $(STAMP)
	$(BIN)/sqlfluff lint models macros --processes 2
## Validate the last build's outputs with Great Expectations (Data Docs in target/gx/data_docs).
check: java $(STAMP) jars
	$(BIN)/cdclake check

## Run the whole test suite (math vectors, driver property tests, CQL front door, dbt pipeline, acceptance corpus).
test: java browser $(STAMP) jars cassandra-jars lint
	$(BIN)/python -m pytest

## The tests that need no Spark (the loop of editing): under a minute.
test-unit: $(STAMP)
	$(BIN)/python -m pytest -m "not functional" -q

## Replay the example CQL script and print its log as a cqlsh-like grid.
replay-example: java $(STAMP) jars
	$(BIN)/cdclake replay examples/shop.cql --format table

## Regenerate the example seeds from examples/shop.cql.
seeds: $(STAMP)
	$(BIN)/python scripts/build_example_seeds.py

## Benchmarks: each prints its ratio against a baseline measured in the same run.
bench: java $(STAMP) jars
	cd bench && ../$(BIN)/python bench_tokens.py 2>/dev/null
	cd bench && ../$(BIN)/python bench_range_join.py 2>/dev/null
	cd bench && ../$(BIN)/python bench_generation.py 2>/dev/null

## End to end: WRITES synthetic writes (default 100000), a full build against a copy job of the same atoms.
WRITES ?= 100000
bench-pipeline: java $(STAMP) jars
	cd bench && ../$(BIN)/python bench_pipeline.py $(WRITES) 2>/dev/null

## A three-statement `cdclake replay`, new process each run, against a bare Spark session's start.
bench-replay: java $(STAMP) jars
	cd bench && ../$(BIN)/python bench_replay.py 2>/dev/null

## The example's commands as a user waits for them (each a new process), against BASELINE (another checkout, set up).
BASELINE ?=
bench-startup: java $(STAMP) jars
	cd bench && ../$(BIN)/python bench_startup.py "$(BASELINE)" 2>/dev/null

## A CDC log pull from a Cassandra node (ROWS log rows, default 200000) against a plain connector read of it.
ROWS ?= 200000
bench-cluster: java $(STAMP) jars cassandra-jars
	cd bench && ../$(BIN)/python bench_cluster_pull.py $(ROWS) 2>/dev/null

## The lineage site: generate it from the last build, then serve it on http://127.0.0.1:8080.
docs: java $(STAMP) jars
	$(BIN)/cdclake docs generate

docs-serve: $(STAMP)
	$(BIN)/cdclake docs serve --no-browser

## A static HTML page with pictures of the last build: target/report/index.html.
report: java $(STAMP) jars
	$(BIN)/cdclake report

clean:
	rm -rf target logs
