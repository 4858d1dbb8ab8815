"""A real cluster's log in (`cdclake load log`): our own logs exported the way cqlsh prints them
(`COPY ks.t_scylla_cdc_log TO`, cqlsh's formatter: cqlsh_export), imported into a warehouse that
holds the schemas and nothing else, build the same consumer tables (state, history, change feed)
as the produced logs did. The logs: those of the shared replay (the 51 documentation cases,
ScyllaDB's corners, the consumer cases: every CQL type and operation the front door takes), in
one build of the consumer tables and what they read, whose state tables are taken at the newest
change of all its logs, as the replay's were."""
from __future__ import annotations

import contextlib
import sys

import pytest
from cqlsh_export import export_log_table

from cdclake.load.log_load import load_log_text
from cdclake.logschema import keyspace_user_types, log_table_columns

LOG_SUFFIX = "_scylla_cdc_log"
KEY = "'it''s \\\\ \"x\"'"     # a clustering key with a quote, a backslash and double quotes
# in conftest's shared replay: every CQL type and the text cqlsh escapes (a newline, a control
# character, a no-break space), with images; a table of a tablets keyspace (its streams' index 0)
SCRIPT = f"""
CREATE KEYSPACE exports WITH replication = {{'class': 'NetworkTopologyStrategy', 'replication_factor': 1}};
CREATE TYPE exports.pt (x double, label text);
CREATE TABLE exports.every (k int, c text, s tinyint static, b blob, bo boolean, d date, de decimal, du duration,
    f float, db double, i inet, sm smallint, ti time, ts timestamp, u uuid, tu timeuuid, vi varint, bi bigint,
    tx text, fl frozen<list<text>>, tp tuple<int, text>, m map<text, frozen<pt>>, st set<double>, l list<text>,
    PRIMARY KEY (k, c)) WITH cdc = {{'enabled': true, 'preimage': true, 'postimage': true}};
INSERT INTO exports.every (k, c, s, b, bo, d, de, du, f, db, i, sm, ti, ts, u, tu, vi, bi, tx, fl, tp, m, st, l)
    VALUES (1, {KEY}, -7, 0xcafe, true, '2023-11-14', 12.3400, 14mo2d3h4m5s6ms7us8ns, 1.1, 0.1, '2001:db8::1', -300,
    '08:12:54.123456789', '2023-11-14 22:13:20.123', 5b6962dd-3f90-4c93-8f61-eabfa4a803e2,
    e4a1b2c0-8000-11ee-8080-808080808080, 123456789012345678901234567890, -9007199254740993, 'line1
line2', ['a, b', 'c'], (1, 'x'), {{'p': {{x: 2.5, label: 'q'}}, 'r': {{x: NaN, label: null}}}},
    {{-Infinity, 0.5, Infinity}}, ['z']) USING TTL 3600;
UPDATE exports.every SET l = l + ['y'], m['s'] = {{x: -0.0}}, st = st - {{0.5}}, f = NaN, db = -0.0,
    tx = 'za\u017c\u00f3\u0142\u0107\u00a0\u0001' WHERE k = 1 AND c = {KEY};
DELETE l[0], s FROM exports.every WHERE k = 1 AND c = {KEY};
CREATE KEYSPACE exports_tablets WITH replication = {{'class': 'NetworkTopologyStrategy', 'replication_factor': 1}}
    AND tablets = {{'enabled': true, 'initial': 2}};
CREATE TABLE exports_tablets.t (k int, c int, v text, m map<int, text>, PRIMARY KEY (k, c))
    WITH cdc = {{'enabled': true, 'preimage': true, 'postimage': true}};
INSERT INTO exports_tablets.t (k, c, v, m) VALUES (1, 1, 'a', {{1: 'x'}});
INSERT INTO exports_tablets.t (k, c, v) VALUES (2, 1, 'b');
UPDATE exports_tablets.t SET v = 'c', m[2] = 'y' WHERE k = 1 AND c = 1;
DELETE FROM exports_tablets.t WHERE k = 2;
"""


def log_columns_of(schema) -> dict[str, list]:
    """{KEYSPACE.TABLE: its log table's columns} (its newest schema version's)."""
    tables, columns, types = schema
    newest = {f"{t.keyspace_name}.{t.table_name}" for t in tables if t.cdc_enabled}
    return {table: log_table_columns(*table.split("."), columns, types) for table in newest
            if any(c.keyspace_name + "." + c.table_name == table for c in columns)}


def exported_cells(cells: list[dict], schema) -> list[dict]:
    """The cells a log table holds when exported: not those of columns dropped since (ScyllaDB
    drops them from the log table too)."""
    names = {table: {c.name for c in columns} for table, columns in log_columns_of(schema).items()}
    return [c for c in cells if c["column_name"] in names.get(f"{c['keyspace_name']}.{c['table_name']}", ())]


def exports(cells: list[dict], schema) -> dict[str, str]:
    """{KEYSPACE.TABLE: cqlsh's CSV of its log}, every other one with a header."""
    types = schema[2]
    log_columns = log_columns_of(schema)
    by_table: dict[str, list[dict]] = {}
    for cell in exported_cells(cells, schema):
        by_table.setdefault(f"{cell['keyspace_name']}.{cell['table_name']}", []).append(cell)
    return {table: export_log_table(table_cells, log_columns[table], keyspace_user_types(types, table.split(".")[0]),
                                    header=number % 2 == 0)
            for number, (table, table_cells) in enumerate(sorted(by_table.items()))}


@pytest.fixture(scope="module")
def imported(shared_replay, spark, test_workspace):
    """The shared replay's logs exported, then loaded with `cdclake load log` into a warehouse
    holding only their schemas, and built (the consumer tables and what they read). Returns the
    produced log cells, the consumer tables' rows of both builds and the load's exit code."""
    from cdclake.commands.load import load_log_files
    from cdclake.load import inputs
    from cdclake.project import dbt
    from cdclake.project.log_models import write_log_models
    from cdclake.replay import _consumer_table_rows, prepare_scratch_project

    result, _ = shared_replay
    schema, cells = result.schema, result.log_cells
    files = exports(cells, schema)
    folder = test_workspace / "imported_log"
    folder.mkdir(exist_ok=True)
    # a warehouse with the schemas alone: no writes, no generations, no log imported before
    tables, columns, types = schema
    inputs.write_inputs(spark, atoms=[], tables=tables, columns=columns, types=types)
    for name in ("base_mutations", "cdc_generations", "cdc_generation_streams", "tablet_streams", "imported_log"):
        spark.sql(f"drop table if exists cdc_input.{name}")
    pairs = []
    for table, text in files.items():
        pairs.append((table, folder / f"{table}{LOG_SUFFIX}.csv"))
        pairs[-1][1].write_text(text)
    with contextlib.redirect_stdout(sys.stderr):
        code = load_log_files(spark, pairs, schema)       # `cdclake load log` with every pair
    project = prepare_scratch_project(test_workspace / "imported_log_build")
    log_tables = write_log_models(project, tables, columns=columns, types=types)
    with contextlib.redirect_stdout(sys.stderr):
        run = dbt.invoke_result(["build", "--full-refresh", "--select", "+tag:cdc_consumer_table",
                                 "--log-level", "warn"], project_dir=project)
    assert run.success, "the build of the imported logs failed"
    produced = {table: sorted(map(repr, rows)) for table, rows in result.consumer_rows.items()}
    built = {table: sorted(map(repr, rows)) for table, rows in _consumer_table_rows(spark, log_tables).items()}
    exported = exported_cells(cells, schema)
    dropped_since = {f"{c['keyspace_name']}.{c['table_name']}" for c in cells if c not in exported}
    return {"cells": exported, "dropped_since": dropped_since, "files": files, "code": code,
            "produced": produced, "built": built}


def test_every_export_loads_without_a_problem(imported):
    assert len(imported["files"]) > 70 and imported["code"] == 0


def test_the_imported_log_holds_the_produced_logs_cells(imported, spark):
    """Cell for cell: the same log rows, columns and JSON values as cdc_log (floats and doubles
    exported with the digits that give them back)."""
    key = ("keyspace_name", "table_name", "cdc$stream_id", "cdc$time", "cdc$batch_seq_no", "cdc$operation",
           "cdc$ttl", "cdc$end_of_batch", "column_name", "value")

    def plain(row: dict) -> tuple:
        return tuple(bytes(row[k]) if k == "cdc$stream_id" else row[k] for k in key)

    imported_rows = sorted(plain(r.asDict()) for r in spark.table("cdc_input.imported_log").collect())
    assert imported_rows == sorted(plain(cell) for cell in imported["cells"])


def test_the_imported_logs_build_the_consumer_tables_the_produced_logs_did(imported):
    """But those of the table whose schema versions drop a column (test_schema_versions): its
    export lacks that column's cells, as a real export made after the DROP does."""
    produced, built = imported["produced"], imported["built"]
    assert imported["dropped_since"] == {"versions.t"}
    assert len(built) > 100 and sorted(built) == sorted(produced)
    different = [table for table in produced if built[table] != produced[table]
                 and table.rsplit("_", 1)[0] not in imported["dropped_since"]]
    assert not different, f"{len(different)} consumer tables differ, e.g. {different[0]}: " \
                          f"{built[different[0]][:3]} != {produced[different[0]][:3]}"


def test_a_tablets_tables_log_loads_with_its_tablet_streams(imported, spark):
    """Its rows keep their streams (index 0, version 1: one per tablet); its consumer tables are
    among those the test above compares."""
    from python_udfs.stream_ids import decode_stream_id

    streams = {bytes(r["cdc$stream_id"]) for r in spark.table("cdc_input.imported_log")
               .where("keyspace_name = 'exports_tablets'").select("`cdc$stream_id`").collect()}
    assert streams and {(decode_stream_id(s).index, decode_stream_id(s).version) for s in streams} == {(0, 1)}
    assert "exports_tablets.t_history" in imported["built"]


def test_a_log_export_loaded_twice_adds_nothing(imported, spark):
    from cdclake.load import inputs

    before = spark.table("cdc_input.imported_log").count()
    table, text = sorted(imported["files"].items())[0]
    keyspace, name = table.split(".")
    load = load_log_text(text, "again.csv", keyspace, name, existing=inputs.read_schema_records(spark))
    assert load.rows and inputs.append_imported_log(spark, load.rows) == 0
    assert spark.table("cdc_input.imported_log").count() == before

