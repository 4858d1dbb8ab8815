"""Wrong schema and generation inputs stop the build before any log is written, with one error
line per problem naming the input table and row (tests/dbt/inputs); per-write problems never do
(test_input_junk.py)."""
from __future__ import annotations

import json
import sys
from dataclasses import replace

import numpy as np
import pytest

from conftest import REPO
from cdclake.generations import generation_tables

sys.path.insert(0, str(REPO / "scripts"))
from build_example_seeds import NOW_US, example_atoms  # noqa: E402

ATOMS, TABLES, COLUMNS, TYPES = example_atoms()
GENERATIONS = generation_tables.from_csv_folder(REPO / "seeds")
FIRST, BOOTSTRAP = GENERATIONS.timestamps_ms


def broken_schemas():
    columns = [
        # a column that changes its kind between schema versions
        replace(c, kind="static") if (c.table_name, c.column_name, c.schema_version) == ("inventory", "price_cents", 1)
        # a type nobody knows
        else replace(c, cql_type="txet") if (c.table_name, c.column_name) == ("orders", "note")
        else c
        for c in COLUMNS
    ]
    sessions = next(t for t in TABLES if t.table_name == "sessions")
    return TABLES + [sessions], columns          # sessions twice at one version


def broken_generations():
    streams = {name: (values.copy() if isinstance(values, np.ndarray) else list(values))
               for name, values in GENERATIONS.streams.items()}
    # vnode 5 of the bootstrap generation ends where vnode 6 ends: the ranges do not tile the ring
    ends = streams["token_range_end"]
    bootstrap = streams["generation_ts_ms"] == BOOTSTRAP
    vnode6_end = ends[bootstrap & (streams["vnode_index"] == 6)][0]
    ends[bootstrap & (streams["vnode_index"] == 5)] = vnode6_end
    # a generation listed twice, and one listed without streams
    return generation_tables.GenerationTables([FIRST, BOOTSTRAP, BOOTSTRAP, BOOTSTRAP + 60_000], streams)


EXPECTED_PROBLEMS = [
    "cdc_input.base_columns: shop.inventory column price_cents is regular in schema version 0 but static in version 1",
    'cdc_input.base_columns: shop.orders column "note" version 0: cql_type "txet": unknown user-defined type',
    "cdc_input.base_tables: shop.sessions has 2 rows for schema version 0",
    f"cdc_input.cdc_generations: generation {BOOTSTRAP} ms appears 2 times",
    f"cdc_input.cdc_generation_streams: generation {BOOTSTRAP + 60_000} ms has no streams",
    f"cdc_input.cdc_generation_streams: generation {BOOTSTRAP} ms vnodes 5 and 6 both end at token",
]


@pytest.fixture(scope="module")
def failed_replay(spark, test_workspace):
    from cdclake.cql.interpreter import ScriptResult
    from cdclake.replay import replay_records

    tables, columns = broken_schemas()
    workspace = test_workspace / "broken_inputs"
    result = replay_records(ScriptResult(atoms=ATOMS, tables=tables, columns=columns, types=TYPES),
                            now_us=NOW_US, generations=broken_generations(), workspace=workspace)
    run_results = json.loads((workspace / "project" / "target" / "run_results.json").read_text())
    return result, {r["unique_id"].split(".")[-1]: r["status"] for r in run_results["results"]}


def test_the_build_fails_with_one_line_per_problem_naming_table_and_row(failed_replay):
    result, _ = failed_replay
    assert not result.dbt_succeeded
    missing = [p for p in EXPECTED_PROBLEMS if not any(line.startswith(p) for line in result.input_problems)]
    assert not missing, f"not reported: {missing}\nreported: {result.input_problems}"
    assert len(result.input_problems) == len(EXPECTED_PROBLEMS), result.input_problems


def test_no_log_is_written(failed_replay):
    _, statuses = failed_replay
    logs = {name: status for name, status in statuses.items() if name.endswith("_scylla_cdc_log") or name == "cdc_log"}
    assert logs and set(logs.values()) == {"skipped"}, logs
    assert statuses["assert_base_schemas_are_valid"] == statuses["assert_generations_are_valid"] == "fail"



def test_an_input_of_an_earlier_contract_reads_and_a_missing_column_is_named(spark, failed_replay, test_workspace):
    """`base_mutations` without `origin` (the contract before per-row TTL) reads with origin null;
    without a required column the model that reads it stops with one line naming the column."""
    import os

    from cdclake.project import dbt

    project = test_workspace / "broken_inputs" / "project"
    rows = spark.table("cdc_input.base_mutations").localCheckpoint()
    table_format = os.environ["CDCLAKE_TABLE_FORMAT"]

    def compile_staging(frame):
        frame.write.mode("overwrite").format(table_format).saveAsTable("cdc_input.base_mutations_contract_tmp")
        spark.sql("drop table cdc_input.base_mutations")
        spark.sql("alter table cdc_input.base_mutations_contract_tmp rename to cdc_input.base_mutations")
        return dbt.invoke_result(["compile", "--select", "stg_cdc_input__base_mutations", "--log-level", "warn"],
                                 project_dir=project)

    try:
        assert compile_staging(rows.drop("origin")).success
        [compiled] = (project / "target" / "compiled").rglob("stg_cdc_input__base_mutations.sql")
        staged = spark.sql(compiled.read_text())
        assert staged.count() == rows.count() and staged.where("origin is not null").count() == 0
        with pytest.raises(Exception) as stopped:
            compile_staging(rows.drop("origin", "ttl_seconds"))
        assert "cdc_input.base_mutations has no column ttl_seconds (int): the input contract " \
               "(models/staging/_cdc_input__sources.yml) requires it (optional: origin)" in str(stopped.value)
    finally:
        compile_staging(rows)
