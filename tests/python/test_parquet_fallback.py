"""Parquet stays a supported table format: the example built with ``CDCLAKE_TABLE_FORMAT=parquet``
(in a subprocess, with the Delta jars still on the classpath) writes Parquet tables holding
exactly the rows of the session's build, which is Delta when the set-up fetched the jars. So
`make test` builds the example on both formats."""
from __future__ import annotations

import os
from pathlib import Path

from cdclake.spark import delta_jar
from outputs import snapshot_files
from test_killed_builds import RUN_TIMEOUT_S, start_build


def test_the_example_on_parquet_equals_the_session_build(spark, test_workspace, example_outputs):
    target = test_workspace / "parquet" / "target"
    target.mkdir(parents=True)
    log = test_workspace / "parquet" / "build.log"
    process = start_build(target, log, CDCLAKE_TABLE_FORMAT="parquet")
    assert process.wait(timeout=RUN_TIMEOUT_S) == 0, f"the Parquet build failed:\n{log.read_text()[-4000:]}"
    assert "table format: parquet (CDCLAKE_TABLE_FORMAT=parquet)" in log.read_text()
    marts = target / "spark-warehouse" / "cdc_lake.db"
    assert not list(marts.glob("*/_delta_log")), "a table of the Parquet build is Delta"
    rebuilt = snapshot_files(spark, target, sorted(example_outputs), "parquet")
    differing = [table for table in example_outputs if rebuilt[table] != example_outputs[table]]
    assert not differing, f"tables that differ between the Parquet and the session's build: {differing}"


def test_the_session_builds_on_delta_with_the_jars_the_set_up_fetched(spark, example_build):
    assert delta_jar() is not None, "no Delta Lake jar in jars/: run make jars"
    assert os.environ["CDCLAKE_TABLE_FORMAT"] == "delta"
    warehouse = Path(spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:"))
    for seed in ("cdc_input.db/cdc_generations", "cdc_input.db/base_mutations"):
        assert (warehouse / seed / "_delta_log").is_dir(), seed
