"""A user's own keyspace from an empty warehouse, in commands only (each a new process, as a user
runs them): DESCRIBE output, a cluster history, a CQL script and a table export in; plain
`cdclake build`; that keyspace's log tables out, the backfilled rows logged as the matching
INSERTs are. On Parquet, for time: the CLI's Delta builds are test_spark_cluster's."""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from conftest import REPO
from outputs import location, snapshot_views, table_format
from test_load_files import DESCRIBE, LOG_HEADER, LOG_ROWS, with_log_table_forms

from cdclake.project.project_files import PROJECT_PARTS
from cdclake.session.spark import SMALL_INPUT_ATOMS

NOW_US = 1_700_000_000_000_000          # 2023-11-14 22:13:20 UTC
BACKFILL_US = NOW_US - 60_000_000
TWIN = """
CREATE TABLE metrics.sensors_twin (
    sensor_id uuid PRIMARY KEY,
    name text,
    attrs map<text, text>,
    placed timestamp
) WITH cdc = {'enabled': 'true'};
"""
HISTORY = """\
ring_delay_ms: 30000
seed: "metrics cluster"
nodes:
  - {name: n1, joined_at: "2023-11-14 21:00:00", num_tokens: 16, shards: 2}
  - {name: n2, joined_at: "2023-11-14 21:00:00", num_tokens: 16, shards: 2}
"""
S1, S2 = "5b6962dd-3f90-4c93-8f61-eabfa4a803e2", "6b6962dd-3f90-4c93-8f61-eabfa4a803e2"
# the sensors export, and the INSERTs that write its rows (into the twin table, at the backfill time)
SENSORS_CSV = f"""sensor_id,name,attrs,placed
{S1},"it's","{{'k': 'v', 'l': 'w'}}",2023-11-14 22:00:00.000000+0000
{S2},beta,,
not-a-uuid,gamma,,
"""
TWIN_INSERTS = f"""
INSERT INTO metrics.sensors_twin (sensor_id, name, attrs, placed) VALUES ({S1}, 'it''s', {{'k': 'v', 'l': 'w'}},
    '2023-11-14 22:00:00.000000+0000') USING TIMESTAMP {BACKFILL_US};
INSERT INTO metrics.sensors_twin (sensor_id, name) VALUES ({S2}, 'beta') USING TIMESTAMP {BACKFILL_US};
"""
WRITES = f"""
INSERT INTO metrics.readings (sensor_id, day, at, loc, tags, value)
    VALUES ({S1}, '2023-11-14', '2023-11-14 22:00:00', {{site: 'a', rack: 1}}, {{'x'}}, 1.5);
UPDATE metrics.readings SET value = 2.5 WHERE sensor_id = {S1} AND day = '2023-11-14' AND at = '2023-11-14 22:00:00';
INSERT INTO metrics.nothere (k) VALUES (1);
""" + TWIN_INSERTS
# readings at their original write times: the second predates the generation operating at the load
READINGS_CSV = f"""sensor_id,day,at,value,writetime(value)
{S2},2023-11-14,2023-11-14 22:01:00.000000+0000,7.5,{NOW_US - 600_000_000}
{S2},2023-11-14,2023-11-14 20:00:00.000000+0000,8.5,{NOW_US - 3 * 3600_000_000}
"""


@pytest.fixture(scope="module")
def own_keyspace(tmp_path_factory):
    """A copy of the project (its log models are the example's until a build writes them) and an
    empty target folder; ``run`` runs one cdclake command there."""
    work = tmp_path_factory.mktemp("own_keyspace")
    project = work / "project"
    for part in (*PROJECT_PARTS, "profiles"):
        source, copy = REPO / part, project / part
        copy.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, copy)
    (work / "ks.cql").write_text(with_log_table_forms(DESCRIBE) + TWIN)
    (work / "cluster.yml").write_text(HISTORY)
    (work / "writes.cql").write_text(WRITES)
    (work / "sensors.csv").write_text(SENSORS_CSV)
    (work / "readings.csv").write_text(READINGS_CSV)
    env = {k: v for k, v in os.environ.items() if k != "CDCLAKE_TARGET"}
    env.update(CDCLAKE_TABLE_FORMAT="parquet", CDCLAKE_PROJECT_DIR=str(project), CDCLAKE_TARGET_DIR=str(work / "target"), CDCLAKE_DRIVER_MEMORY="1g")
    # every command's JVM maps the class archive an earlier one wrote (cdclake/session/jvm_archive.py):
    # with -Xshare:on a JVM that cannot stops
    env["JAVA_TOOL_OPTIONS"] = "-Xshare:on"

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "cdclake.cli", *args], cwd=work, env=env, input=stdin,
                              capture_output=True, text=True, timeout=900)

    return work, project, run


def test_loads_report_bad_lines_and_load_the_rest(own_keyspace):
    work, _, run = own_keyspace
    schema = run("load", "schema", "ks.cql", "--now", str(NOW_US))
    assert schema.returncode == 0, schema.stderr[-2000:]
    assert "metrics.sensors_twin: new (schema version 0)" in schema.stdout
    assert "ks.cql:" in schema.stdout and "CREATE INDEX skipped" in schema.stdout
    # the log tables as DESCRIBE prints them: skipped, said, and the load succeeds
    assert "ALTER TABLE metrics.readings_scylla_cdc_log skipped" in schema.stdout
    assert "CREATE TABLE metrics.sensors_scylla_cdc_log skipped" in schema.stdout
    assert run("generations", "build", "cluster.yml").returncode == 0
    writes = run("load", "cql", "writes.cql", "--now", str(NOW_US))
    assert writes.returncode == 1 and "writes.cql:5:1: INSERT INTO metrics.nothere" in writes.stderr
    assert "loaded 4 writes" in writes.stdout
    sensors = run("load", "snapshot", "metrics.sensors", "sensors.csv", "--now", str(NOW_US + 1_000_000),
                  "--backfill-time", str(BACKFILL_US))
    assert sensors.returncode == 1 and "sensors.csv:4:1: column sensor_id (uuid): value 'not-a-uuid'" in sensors.stderr
    assert "loaded 2 writes" in sensors.stdout
    # no --now: the warehouse's clock just after its last write (the sensors' load, at NOW_US + 1 s)
    readings = run("load", "snapshot", "metrics.readings", "readings.csv", "--write-times", "original")
    assert readings.returncode == 0 and "loaded 2 writes" in readings.stdout, readings.stderr[-2000:]
    assert f"clock: {NOW_US + 1_001_000} µs (2023-11-14 22:13:21.001000 UTC), just after the warehouse's " \
           "last write" in readings.stderr


def test_a_plain_build_writes_the_keyspaces_log_tables(own_keyspace):
    work, project, run = own_keyspace
    build = run("--verbose", "build")
    assert build.returncode == 0, (build.stdout + build.stderr)[-4000:]
    # written in the warehouse's target folder, not in the project
    models = sorted(p.name for p in (work / "target" / "generated" / "models" / "marts" / "scylla_cdc_logs").glob("*.sql"))
    assert models == ["metrics__readings_scylla_cdc_log.sql", "metrics__sensors_scylla_cdc_log.sql",
                      "metrics__sensors_twin_scylla_cdc_log.sql"]
    assert "batch 1: 8 writes in = 7 logged + 0 not logged (tables without CDC) + 1 rejected" in build.stdout
    # the atoms in cdc_input.base_mutations: far below the limit, the build plans for small data
    assert re.search(rf"planning: small data \(\d+ input atoms, below {SMALL_INPUT_ATOMS}\)", build.stderr), \
        build.stderr[-2000:]
    assert "  refused at load: 2 (cdc_lake.cdc_load_refusals; they never reached the inputs)" in build.stdout
    status = run("status")
    assert "metrics.readings: CDC on, " in status.stdout and "writes loaded: 8 (last write id 8)" in status.stdout
    assert "refused at load: 2 statements and rows (cdc_lake.cdc_load_refusals)" in status.stdout
    # quiet by default: none of Spark's log lines, none of cdclake's choices (--verbose above)
    assert not re.search(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d (WARN|INFO) ", status.stderr, re.MULTILINE), status.stderr
    assert "planning: small data" not in status.stderr and "Setting default log level" not in status.stderr
    assert "last dbt command: build" in status.stdout and "succeeded" in status.stdout


def test_backfilled_rows_are_logged_as_their_inserts_and_too_old_ones_rejected(own_keyspace, spark):
    work, _, _ = own_keyspace
    warehouse = work / "target"

    def rows(table):
        return spark.read.format(table_format(warehouse, table)).load(str(location(warehouse, table))).collect()

    def comparable(log_rows):      # cdc$time's low bits differ per write; its time is the write's
        return sorted(repr({**r.asDict(), "cdc$time": timeuuid_micros(r["cdc$time"])}) for r in log_rows)

    sensors, twin = rows("metrics.sensors_scylla_cdc_log"), rows("metrics.sensors_twin_scylla_cdc_log")
    assert len(sensors) == 2 and comparable(sensors) == comparable(twin)
    assert {timeuuid_micros(r["cdc$time"]) for r in sensors} == {BACKFILL_US}
    # the readings export at its original write times: the older row predates the generation
    assert sorted((r["cdc$operation"], r.value) for r in rows("metrics.readings_scylla_cdc_log")
                  if r.sensor_id == S2) == [(2, 7.5), (9, 7.5)]        # the insert and its post-image
    # a view of the ledger: read through the warehouse's own metastore
    [rejected] = [dict(ast.literal_eval(row))
                  for row in snapshot_views(warehouse, ["cdc_lake.cdc_rejected_writes"])["cdc_lake.cdc_rejected_writes"]]
    assert rejected["write_id"] == 7
    assert rejected["error_text"].startswith('cdc: attempted to get a stream "from the past"')


def test_sql_queries_the_warehouse_orders_log_rows_by_time_and_lists_load_refusals(own_keyspace):
    """`cdclake sql`, statements from stdin: the refusals of the loads, a log table by its bare
    name (in stream, then time order), and `cdc_time_us` ordering rows by time where the text of
    `cdc$time` does not."""
    _, _, run = own_keyspace
    sql = run("sql", "--format", "jsonl", stdin=(
        "select command, file_name, line_number, column_number, statement_text, reason from cdc_lake.cdc_load_refusals "
        "order by file_name;\n"
        "metrics.readings_scylla_cdc_log;\n"
        "select `cdc$time` as t from metrics.readings_scylla_cdc_log order by cdc_time_us(`cdc$time`);\n"))
    assert sql.returncode == 0, sql.stderr[-3000:]
    rows = [json.loads(line) for line in sql.stdout.splitlines()]
    refusals, rest = rows[:2], rows[2:]
    assert [(r["command"], r["file_name"], r["line_number"], r["column_number"]) for r in refusals] == [
        ("snapshot", "sensors.csv", 4, 1), ("cql", "writes.cql", 5, 1)]
    assert refusals[0]["statement_text"] is None and refusals[0]["reason"].startswith("column sensor_id (uuid): value 'not-a-uuid'")
    assert refusals[1]["statement_text"].startswith("INSERT INTO metrics.nothere") and "nothere" in refusals[1]["reason"]
    log_rows, times = rest[:len(rest) // 2], [r["t"] for r in rest[len(rest) // 2:]]
    assert len(log_rows) == len(times) > 2
    keys = [(r["cdc$stream_id"], timeuuid_micros(r["cdc$time"]), r["cdc$batch_seq_no"]) for r in log_rows]
    assert keys == sorted(keys)
    assert times == sorted(times, key=timeuuid_micros) and times != sorted(times)   # the text's order is not time's


def test_replay_starts_from_the_warehouses_schemas_when_asked(own_keyspace):
    work, _, run = own_keyspace
    (work / "only_writes.cql").write_text(f"INSERT INTO metrics.sensors (sensor_id, name) VALUES ({S1}, 'x');\n")
    replay = run("replay", "only_writes.cql", "--schema-from-warehouse", "--now", str(NOW_US), "--format", "jsonl")
    assert replay.returncode == 0, replay.stderr[-3000:]
    [row] = [json.loads(line) for line in replay.stdout.splitlines()]
    assert (row["table"], row["sensor_id"], row["name"], row["cdc$operation"]) == \
        ("metrics.sensors_scylla_cdc_log", S1, "x", 2)


def test_loads_and_builds_leave_the_project_as_it_was(own_keyspace):
    """What the commands wrote (the log and consumer table models, the UDF macros) is in the
    target folder: the project's files are the checkout's, none added, changed or removed (as
    `git status --porcelain` is empty in a checkout)."""
    _, project, _ = own_keyspace

    def files(root: Path) -> dict[str, bytes]:
        return {str(path.relative_to(root)): path.read_bytes() for part in PROJECT_PARTS
                for path in ([root / part] if (root / part).is_file() else sorted((root / part).rglob("*")))
                if path.is_file() and "__pycache__" not in path.parts}

    assert files(project) == files(REPO)


def test_a_cluster_log_for_a_table_built_from_the_produced_log_asks_for_a_full_refresh(own_keyspace):
    """`cdclake load log`: bad lines by line and column, the rest loaded; then the table's
    consumer tables would mix two logs, which an incremental build refuses (last in this module:
    its build fails)."""
    work, _, run = own_keyspace
    (work / "sensors_log.csv").write_text(LOG_HEADER + LOG_ROWS)
    load = run("load", "log", "metrics.sensors", "sensors_log.csv")
    assert load.returncode == 1, load.stderr[-2000:]
    assert "sensors_log.csv:3:10: column cdc$operation (tinyint): value '9x'" in load.stderr
    assert "sensors_log.csv:4:10: column cdc$operation (tinyint): empty" in load.stderr
    assert "loaded 1 log rows of metrics.sensors (6 cells)\ninto cdc_input.imported_log" in load.stdout
    assert "metrics.sensors: CDC on, 2 log rows (+ 1 imported, replayed by its consumer tables)" \
        in run("status").stdout
    build = run("build")
    assert build.returncode == 1
    output = build.stdout + build.stderr
    assert "A log was loaded for metrics.sensors after its consumer tables were built from the produced log: " \
           "rebuild them with `cdclake build --full-refresh`" in output
    # refused by the batch, which every model of a batch follows: before the log tables
    assert "in model int_build_batch" in output, output[-4000:]


def timeuuid_micros(text: str) -> int:
    return (uuid.UUID(text).time - 0x01B21DD213814000) // 10
