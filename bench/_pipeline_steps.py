"""The steps of bench_pipeline.py that write a benchmark warehouse's inputs, each run as a process
of its own (the warehouse's Derby metastore takes one process at a time, and every build is a
`cdclake build` process, as a scheduler runs it):

    python _pipeline_steps.py load WAREHOUSE WRITES             schema, generation, WRITES writes; the copy job
    python _pipeline_steps.py append WAREHOUSE FIRST WRITES     WRITES more writes from the FIRST-th on
    python _pipeline_steps.py touch WAREHOUSE                   a new version of the writes' table, no writes
    python _pipeline_steps.py audit WAREHOUSE                   the audit's batches

Each prints one JSON line: what it measured or read.

The workload (workload_sql): 80% of the writes go to a clustered table with a set column, 20%
to a single-row table with pre- and post-images; about 10 writes per partition; inserts (some
with a TTL that expires during the workload), updates, cell, row, range and partition deletes,
collection overwrites; one write in 1,000 is invalid (a text value in an int column).
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

START_US = 1_700_000_000_000_000      # first write; the schema is created a second before
STEP_US = 100                         # between two writes: 1M writes span 100 s
SHORT_TTL_S = 30                      # expires inside a 1M-write workload
INVALID_EVERY = 1000                  # one write in INVALID_EVERY is invalid

SCHEMA_CQL = """
CREATE KEYSPACE bench WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};
CREATE TABLE bench.readings (sensor_id bigint, at int, value int, note text, labels set<text>,
    PRIMARY KEY (sensor_id, at)) WITH cdc = {'enabled': true};
CREATE TABLE bench.accounts (account_id bigint PRIMARY KEY, balance bigint, owner text)
    WITH cdc = {'enabled': true, 'preimage': true, 'postimage': true};
"""


def atom(kind: str, *, ck: str = "null", column: str = "null", live: str = "null", value: str = "null",
         ttl: str = "null", range_start: str = "null", range_end: str = "null", element: str = "null") -> str:
    """One base_mutations atom of write ``i`` as a SQL struct (the same field types everywhere)."""
    return f"""named_struct(
        'atom_kind', '{kind}', 'clustering_key', cast({ck} as string), 'column_name', cast({column} as string),
        'is_live', cast({live} as boolean), 'value', cast({value} as string), 'ttl_seconds', cast({ttl} as int),
        'range_start', cast({range_start} as string),
        'range_start_inclusive', if({range_start} is null, cast(null as boolean), true),
        'range_end', cast({range_end} as string),
        'range_end_inclusive', if({range_end} is null, cast(null as boolean), false),
        'element_key', cast({element} as string), 'write_shift', if('{kind}' = 'collection_tombstone', -1, 0))"""


def workload_sql(writes: int, first: int = 0) -> str:
    """The atoms of ``writes`` writes from the ``first``-th on, in the columns of cdc_input.base_mutations."""
    ck = "concat('{\"at\":', i % 4, '}')"
    value = f"if(i % {INVALID_EVERY} = {INVALID_EVERY - 1}, '\"x\"', cast(i % 1000 as string))"  # text in an int: invalid
    ttl = f"if(r < 2, {SHORT_TTL_S}, null)"
    label = "concat('\"l', i % 3, '\"')"
    note = "concat('\"n', i, '\"')"
    owner = "concat('\"o', i, '\"')"
    first_rows = ("'{\"at\":0}'", "'{\"at\":2}'")
    readings = f"""case
        when r < 8 then array({atom('row_marker', ck=ck, live='true', ttl=ttl)},
                              {atom('cell', ck=ck, column="'value'", live='true', value=value, ttl=ttl)},
                              {atom('cell', ck=ck, column="'note'", live='true', value=note, ttl=ttl)},
                              {atom('cell', ck=ck, column="'labels'", live='true', element=label, ttl=ttl)})
        when r < 13 then array({atom('cell', ck=ck, column="'value'", live='true', value=value)})
        when r < 16 then array({atom('cell', ck=ck, column="'note'", live='false')})
        when r < 18 then array({atom('row_tombstone', ck=ck)})
        when r < 19 then array({atom('range_tombstone', range_start=first_rows[0], range_end=first_rows[1])})
        else array({atom('collection_tombstone', ck=ck, column="'labels'")},
                   {atom('cell', ck=ck, column="'labels'", live='true', element=label)})
        end"""
    balance = "cast(i % 100000 as string)"
    accounts = f"""case
        when r < 10 then array({atom('row_marker', live='true')},
                               {atom('cell', column="'balance'", live='true', value=balance)},
                               {atom('cell', column="'owner'", live='true', value=owner)})
        when r < 17 then array({atom('cell', column="'balance'", live='true', value=balance)})
        when r < 19 then array({atom('cell', column="'owner'", live='false')})
        else array({atom('partition_tombstone')})
        end"""
    return f"""
        with writes as (
            select id as i, pmod(hash(id), 20) as r, id % 5 = 0 as to_accounts, {START_US} + id * {STEP_US} as ts
            from range({first}, {first + writes})
        ),
        atoms as (
            select i, ts, to_accounts,
                   explode(if(to_accounts, {accounts}, {readings})) as a
            from writes
        )
        select i + 1 as write_id, ts as coordinator_now_us, 'bench' as keyspace_name,
               if(to_accounts, 'accounts', 'readings') as table_name,
               if(to_accounts, concat('{{"account_id":', i div 50, '}}'), concat('{{"sensor_id":', i div 10, '}}'))
                   as partition_key,
               a.atom_kind, ts + a.write_shift as write_timestamp, a.clustering_key, a.column_name, a.is_live,
               a.value, a.ttl_seconds, a.range_start, a.range_start_inclusive, a.range_end,
               a.range_end_inclusive, a.element_key, 0 as schema_version, cast(null as string) as origin
        from atoms"""


def workload_atoms(spark, writes: int, first: int = 0):
    from cdclake.load.mutation_records import ATOM_SPARK_SCHEMA

    typed = [f"cast({name} as {spark_type}) as {name}"
             for name, spark_type in (field.split() for field in ATOM_SPARK_SCHEMA.split(", "))]
    return spark.sql(workload_sql(writes, first)).selectExpr(*typed)


def session(warehouse: Path):
    from cdclake.session.spark import create_session

    return create_session(warehouse, app_name="cdclake-bench-pipeline-step")


def load(warehouse: Path, writes: int) -> dict:
    """Schema tables from SCHEMA_CQL (the front door; `cdclake build` writes the log models),
    the generation, the atoms; then the copy job: read the atoms and write them back as another
    table (the baseline)."""
    from cdclake.cql.interpreter import run_script
    from cdclake.generations import generation_tables
    from cdclake.load import inputs
    from cdclake.replay import default_generations

    spark = session(warehouse)
    table_format = os.environ["CDCLAKE_TABLE_FORMAT"]
    schema = run_script(SCHEMA_CQL, now_us=START_US - 1_000_000)
    assert not schema.errors, schema.errors
    inputs.write_inputs(spark, atoms=[], tables=schema.tables, columns=schema.columns, types=schema.types,
                        table_format=table_format)
    generation_tables.load(spark, default_generations(START_US), table_format)
    workload_atoms(spark, writes).write.mode("overwrite").format(table_format).saveAsTable("cdc_input.base_mutations")
    atoms = spark.table("cdc_input.base_mutations").count()
    spark.sql("create database if not exists bench_copy")
    start, wall_start = time.perf_counter(), time.time()
    spark.table("cdc_input.base_mutations").write.mode("overwrite").format(table_format) \
        .saveAsTable("bench_copy.base_mutations")
    return {"atoms": atoms, "format": table_format, "cores": spark.sparkContext.defaultParallelism,
            "copy_s": time.perf_counter() - start, "copy_window": [wall_start, time.time()]}


def append(warehouse: Path, first: int, writes: int) -> dict:
    spark = session(warehouse)
    workload_atoms(spark, writes, first=first).write.mode("append").format(os.environ["CDCLAKE_TABLE_FORMAT"]) \
        .saveAsTable("cdc_input.base_mutations")
    return {"appended_writes": writes}


def touch(warehouse: Path) -> dict:
    spark = session(warehouse)
    spark.sql("alter table cdc_input.base_mutations set tblproperties ('cdclake.bench.touched' = 'true')")
    return {"touched": True}


def audit(warehouse: Path) -> dict:
    spark = session(warehouse)
    return {"audits": [r.asDict() for r in spark.table("cdc_lake.cdc_write_audit").orderBy("batch_id").collect()]}


def main() -> None:
    step, warehouse, *rest = sys.argv[1:]
    warehouse = Path(warehouse)
    if step == "load":
        result = load(warehouse, int(rest[0]))
    elif step == "append":
        result = append(warehouse, int(rest[0]), int(rest[1]))
    elif step == "touch":
        result = touch(warehouse)
    elif step == "audit":
        result = audit(warehouse)
    else:
        sys.exit(f"unknown step {step}")
    from cdclake.session.target_lock import finished

    finished()          # as a cdclake command that ended well: the next build need not tidy after it
    print(json.dumps(result))


if __name__ == "__main__":
    main()
