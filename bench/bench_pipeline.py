"""End to end: a synthetic workload of N writes through the input contract, one full `dbt build`
of the pipeline, against a Spark job that reads the same atoms and writes them back (the copy
job), measured in the same session and table format; then N/100 more writes appended and an
incremental build of them; then a build with no input moved (it runs no node); then, the writes'
table touched (a new Delta version, no new writes), a build of an empty batch: what the
incremental build's nodes cost with no writes, the floor under the incremental build (in the same
process, warm, as the others), and the same build again with every node run: the builds after
the first leave out the nodes that read only the schemas and generations, unchanged
(cdclake/unchanged_inputs.py).

The workload (bench.workload_sql): 80% of the writes go to a clustered table with a set column,
20% to a single-row table with pre- and post-images; about 10 writes per partition; INSERTs (some
with a TTL that expires during the workload), UPDATEs, cell, row, range and partition deletes,
collection overwrites; one write in 1,000 is invalid (a text value in an int column).

    python bench_pipeline.py [WRITES]        (default 100000; or BENCH_WRITES)

BENCH_EXCLUDE (dbt node selectors, space-separated) leaves nodes out of both builds.

Prints the seconds of the copy job and of the builds, their ratios, whether they meet issue 11's
targets (at a million writes: the full build within 15x the copy job, the 1% incremental build
within 10% of the full one), the task seconds of the copy job and of each build (Spark's event
log, kept in target/bench/pipeline/event_log: bench/_event_log.py), the audit's counts and the
slowest models from dbt's run_results.json.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import time

from _common import BENCH_DIR, report, timed
from _event_log import event_log_conf, task_seconds

WRITES = int(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("BENCH_WRITES", 100_000))
START_US = 1_700_000_000_000_000      # first write; the schema is created a second before
STEP_US = 100                         # between two writes: 1M writes span 100 s
SHORT_TTL_S = 30                      # expires inside a 1M-write workload
INVALID_EVERY = 1000                  # one write in INVALID_EVERY is invalid
FULL_BUILD_TARGET_X = 15              # issue 11's targets at a million writes, on 2 cores
INCREMENTAL_TARGET_PERCENT = 10
EVENT_LOG_DIR = BENCH_DIR / "pipeline" / "event_log"
PHASE_WINDOWS: dict[str, tuple[float, float]] = {}     # the copy job's and each build's wall-clock window

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


def load_inputs(spark, table_format: str) -> tuple[object, int]:
    """Schema tables and log models from SCHEMA_CQL (the front door), the generation, the atoms;
    returns the scratch dbt project and the number of atoms."""
    from cdclake import generation_tables, inputs, log_models
    from cdclake.cql.interpreter import run_script
    from cdclake.replay import default_generations, prepare_scratch_project

    schema = run_script(SCHEMA_CQL, now_us=START_US - 1_000_000)
    assert not schema.errors, schema.errors
    project = prepare_scratch_project(BENCH_DIR / "pipeline")
    log_models.write_log_models(project, schema.tables, columns=schema.columns, types=schema.types)
    inputs.write_inputs(spark, atoms=[], tables=schema.tables, columns=schema.columns, types=schema.types,
                        table_format=table_format)
    generation_tables.load(spark, default_generations(START_US), table_format)
    workload_atoms(spark, WRITES).write.mode("overwrite").format(table_format) \
        .saveAsTable("cdc_input.base_mutations")
    return project, spark.table("cdc_input.base_mutations").count()


def workload_atoms(spark, writes: int, first: int = 0):
    from cdclake.mutations import ATOM_SPARK_SCHEMA

    typed = [f"cast({name} as {spark_type}) as {name}"
             for name, spark_type in (field.split() for field in ATOM_SPARK_SCHEMA.split(", "))]
    return spark.sql(workload_sql(writes, first)).selectExpr(*typed)


def copy_job(spark, table_format: str) -> None:
    """The baseline: read the atoms and write them back as another table."""
    spark.sql("create database if not exists bench_copy")
    spark.table("cdc_input.base_mutations").write.mode("overwrite").format(table_format) \
        .saveAsTable("bench_copy.base_mutations")


def run_results(project) -> list[dict]:
    """The nodes' results of the last dbt command (run_results.json)."""
    return json.loads((project / "target" / "run_results.json").read_text())["results"]


def node_times(project) -> list[tuple[str, float]]:
    """(node, seconds) of the last dbt command, slowest first."""
    return sorted(((r["unique_id"].split(".", 2)[-1], r["execution_time"]) for r in run_results(project)),
                  key=lambda item: -item[1])


def dbt_threads(project) -> int:
    """How many dbt threads ran the last command's nodes (the profile's `threads`)."""
    return len({r["thread_id"] for r in run_results(project) if r["thread_id"] != "main"})


def consumer_share(times: list[tuple[str, float]]) -> str:
    """The seconds of the consumer tables (the log replay, the state, history and change-feed
    tables and their tests) and their share of all nodes' seconds."""
    from cdclake.consumer_models import KINDS

    def is_consumer(node: str) -> bool:
        return "log_replay" in node or "state_is_the_history" in node or "changes_are_logged" in node \
            or any(node.endswith(f"_{kind}") for kind in KINDS)
    consumer, total = sum(t for n, t in times if is_consumer(n)), sum(t for _, t in times)
    return f"{consumer:.1f} s of {total:.1f} s ({100 * consumer / total:.0f}%)"


def build(project, seconds: dict, name: str, *extra: str) -> None:
    """One `dbt build` as cdclake runs it (cdclake.dbt: the nodes that read only unchanged
    schemas and generations left out, unless BENCH_EXCLUDE selects nodes itself)."""
    from cdclake import dbt

    excluded = os.environ.get("BENCH_EXCLUDE", "").split()
    with timed(seconds, name, PHASE_WINDOWS):
        run = dbt.invoke_result(["build", *(["--exclude", *excluded] if excluded else []), "--log-level", "warn",
                                 *extra], project_dir=project)
    if not run.success:
        sys.exit(f"the {name} build failed: see {project / 'logs' / 'dbt.log'}")
    # each build's run results (each node's start and end: its critical path) beside node_times.json
    shutil.copyfile(project / "target" / "run_results.json",
                    BENCH_DIR / "pipeline" / f"run_results_{name.replace(' ', '_').replace(',', '')}.json")


def main() -> None:
    from cdclake import unchanged_inputs
    from cdclake.spark import create_session, plan_for_input_size

    spark = create_session(BENCH_DIR / "pipeline" / "warehouse", app_name="cdclake-bench-pipeline",
                           conf=event_log_conf(EVENT_LOG_DIR))
    table_format = os.environ["CDCLAKE_TABLE_FORMAT"]
    seconds: dict[str, float] = {}
    with timed(seconds, "load"):
        project, atom_count = load_inputs(spark, table_format)
    plan_for_input_size(spark, atom_count)      # as `cdclake build` plans for its inputs
    with timed(seconds, "copy", PHASE_WINDOWS):
        copy_job(spark, table_format)
    build(project, seconds, "full", "--full-refresh")
    full_nodes = node_times(project)
    increment = max(1, WRITES // 100)
    workload_atoms(spark, increment, first=WRITES).write.mode("append").format(table_format) \
        .saveAsTable("cdc_input.base_mutations")
    build(project, seconds, "incremental")
    incremental_nodes = node_times(project)
    build(project, seconds, "no new writes")   # no input moved: no node runs
    # a new version of the writes' table with no new writes: the nodes of an incremental build
    # run on an empty batch, what any incremental build costs before its writes
    spark.sql("alter table cdc_input.base_mutations set tblproperties ('cdclake.bench.touched' = 'true')")
    build(project, seconds, "empty batch")
    idle_nodes = node_times(project)
    unchanged_inputs.forget_builds(project)     # the same, every node run (the baseline of skipping)
    build(project, seconds, "empty batch, every node")
    audits = [r.asDict() for r in spark.table("cdc_lake.cdc_write_audit").orderBy("batch_id").collect()]
    if [a["input_writes"] for a in audits] != [WRITES, increment]:
        sys.exit(f"the audit counts {[a['input_writes'] for a in audits]} writes, not {[WRITES, increment]}")
    lines = [
        f"{WRITES:,} writes, {atom_count:,} atoms, {table_format} tables, "
        f"{spark.sparkContext.defaultParallelism} cores, {dbt_threads(project)} dbt threads"
        + (f", excluded: {os.environ['BENCH_EXCLUDE']}" if os.environ.get("BENCH_EXCLUDE") else ""),
        f"copy job (read and rewrite the atoms): {seconds['copy']:.1f} s",
        f"full build (dbt build --full-refresh, tests included): {seconds['full']:.1f} s = "
        f"{seconds['full'] / seconds['copy']:.1f}x the copy job",
        f"incremental build of {increment:,} more writes: {seconds['incremental']:.1f} s = "
        f"{100 * seconds['incremental'] / seconds['full']:.0f}% of the full build "
        f"({len(incremental_nodes)} of the full build's {len(full_nodes)} nodes)",
        f"a build with no input moved (no node runs): {seconds['no new writes']:.1f} s",
        f"a build of an empty batch (the writes' table touched, no new writes; the incremental build's "
        f"nodes): {seconds['empty batch']:.1f} s = {100 * seconds['empty batch'] / seconds['full']:.0f}% of the "
        f"full build ({len(idle_nodes)} nodes); the same with every node ({len(node_times(project))}, none left "
        f"out for unchanged inputs): {seconds['empty batch, every node']:.1f} s",
    ]
    tasks = task_seconds(EVENT_LOG_DIR, PHASE_WINDOWS)
    lines.append(
        "task seconds (Spark's event log: the tasks' run time, their CPU time in brackets; the work, "
        "whatever the overlap): " + ", ".join(f"{name} {run:,.1f} ({cpu:,.1f})" for name, (run, cpu) in tasks.items())
        + f"; the full build {tasks['full'][0] / max(tasks['copy'][0], 0.001):.0f}x the copy job's")
    full_ratio, incremental_share = seconds["full"] / seconds["copy"], seconds["incremental"] / seconds["full"]
    lines.append(
        f"targets: full build <= {FULL_BUILD_TARGET_X}x the copy job "
        f"{'met' if full_ratio <= FULL_BUILD_TARGET_X else 'not met'}, 1% incremental build <= "
        f"{INCREMENTAL_TARGET_PERCENT}% of the full build "
        f"{'met' if 100 * incremental_share <= INCREMENTAL_TARGET_PERCENT else 'not met'}")
    for audit in audits:
        lines.append(f"audit, batch {audit['batch_id']}: "
                     + ", ".join(f"{k} {v:,}" for k, v in audit.items() if k != "batch_id"))
    nodes_file = BENCH_DIR / "pipeline" / "node_times.json"
    nodes_file.write_text(json.dumps({"full": full_nodes, "incremental": incremental_nodes,
                                      "empty batch": idle_nodes,
                                      "empty batch, every node": node_times(project)}, indent=1))
    lines += [
        "slowest nodes, full: " + ", ".join(f"{name} {t:.1f} s" for name, t in full_nodes[:8]),
        "slowest nodes, incremental: " + ", ".join(f"{name} {t:.1f} s" for name, t in incremental_nodes[:8]),
        f"consumer tables (log replay, state, history, changes, their tests; seconds of nodes, which overlap"
        f" on several threads): full {consumer_share(full_nodes)}, "
        f"incremental {consumer_share(incremental_nodes)}",
        f"every node's seconds: {nodes_file}",
    ]
    report("end-to-end pipeline", lines)


if __name__ == "__main__":
    main()
