"""`cdclake load cluster` against a real CQL server (conftest's `cassandra_server`, Apache
Cassandra 5.0: ScyllaDB is not installable here). The server is given what a ScyllaDB cluster
holds: the shared replay's tables of every CQL type (a vnodes and a tablets keyspace) with their
produced CDC logs as log tables, the tables' CDC options in a `scylla_tables` table, the example
cluster's generations and a tablets table's stream set, each in a keyspace of the test's (the
server refuses new tables in `system_schema`, `system_distributed` and `system`: the options name
them).

One warehouse pulls it in three commands: the schemas, generations and the log up to a time half
way through the log; the rest of the log after it (the mark: only the new rows); a pull with
nothing new. The imported log then holds the produced log's cells, each once, as `cdclake load log`
loads a cqlsh export of it (test_imported_log shows that those build the consumer tables the
produced log does), but the decimal's scale, which the connector drops. A pull killed half way
leaves the table as it was or as the whole pull would, and the next pull gives the same rows. Bad
credentials, an unreachable cluster, a missing table and a table without CDC each stop the load
with one line."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import free_port
from scylla_system_tables import create_generation_tables, create_scylla_tables, example_history, set_cdc_options

from cdclake.cql.interpreter import catalog_of
from cdclake.cql.values import value_literal
from cdclake.generations.tablet_streams import tablet_stream_rows, tablets_tables_at_log_creation
from cdclake.load.log_load import _log_table_ddl
from cdclake.load.schema_ddl import schema_ddl
from cdclake.logschema import log_table_columns

pytestmark = pytest.mark.functional

KEYSPACES = ("exports", "exports_tablets")           # test_imported_log's tables in the shared replay
META, DIST, SYSTEM = "live_schema", "live_distributed", "live_system"
KEY = ("keyspace_name", "table_name", "cdc$stream_id", "cdc$time", "cdc$batch_seq_no", "cdc$operation", "cdc$ttl",
       "cdc$end_of_batch", "column_name", "value")


def cassandra_ddl(tables, columns, types) -> str:
    """The schema's DDL as Cassandra takes it: without ScyllaDB's cdc and tablets options."""
    text = schema_ddl(tables, columns, types)
    text = re.sub(r"\s+AND tablets = \{[^}]*\}", "", text)
    text = re.sub(r"\s+AND cdc = \{[^}]*\}", "", text)
    return re.sub(r"WITH cdc = \{[^}]*\}\s+AND ", "WITH ", text)


def execute_all(session, ddl: str) -> None:
    for statement in (s.strip() for s in ddl.split(";")):
        if statement:
            session.execute(statement)


def log_rows(cells: list[dict]) -> dict[tuple, dict]:
    """{(keyspace, table, stream, time, batch_seq_no): {column: JSON value, and the metadata}}."""
    rows: dict[tuple, dict] = {}
    for cell in cells:
        key = tuple(bytes(cell[k]) if k == "cdc$stream_id" else cell[k] for k in KEY[:5])
        row = rows.setdefault(key, {k: cell[k] for k in KEY[2:8]})
        row[cell["column_name"]] = cell["value"]
    return rows


def insert_log_row(session, keyspace: str, table: str, row: dict, log_table) -> None:
    names, literals = [], []
    for name, value in row.items():
        if value is None:
            continue
        if name == "cdc$stream_id":
            literal = "0x" + bytes(value).hex()
        elif name.startswith("cdc$") and name in ("cdc$time", "cdc$batch_seq_no", "cdc$operation", "cdc$ttl"):
            literal = str(value)
        elif name == "cdc$end_of_batch":
            literal = "true" if value else "false"
        else:
            literal = value_literal(json.loads(value, parse_float=Decimal), log_table.column(name).type)
        names.append('"' + name.replace('"', '""') + '"')
        literals.append(literal)
    session.execute(f'INSERT INTO "{keyspace}"."{table}_scylla_cdc_log" ({", ".join(names)}) '
                    f'VALUES ({", ".join(literals)})')


def plain(cell: dict, decimals: set[tuple[str, str, str]]) -> tuple:
    """A cell as compared: the stream as bytes, a decimal by its value (the connector drops its scale)."""
    values = [bytes(cell[k]) if k == "cdc$stream_id" else cell[k] for k in KEY]
    if (cell["keyspace_name"], cell["table_name"], cell["column_name"]) in decimals:
        values[-1] = str(Decimal(cell["value"]).normalize())
    return tuple(values)


@pytest.fixture(scope="module")
def live(shared_replay, cassandra_server, tmp_path_factory):
    """The server loaded as above; ``run`` runs a cdclake command against one warehouse."""
    result, _ = shared_replay
    tables, columns, types = result.schema
    ours = [t for t in tables if t.keyspace_name in KEYSPACES]
    own_columns = [c for c in columns if c.keyspace_name in KEYSPACES]
    own_types = [f for f in types if f.keyspace_name in KEYSPACES]
    cluster = cassandra_server.cluster()
    session = cluster.connect()
    execute_all(session, cassandra_ddl(ours, own_columns, own_types))
    session.execute("CREATE TABLE exports.plain (k int PRIMARY KEY, v text)")
    create_scylla_tables(session, META)
    newest = {}
    for table in ours:
        newest[(table.keyspace_name, table.table_name)] = table
    for table in newest.values():
        set_cdc_options(session, META, table.keyspace_name, table.table_name, enabled=table.cdc_enabled,
                        preimage=table.cdc_preimage, postimage=table.cdc_postimage, delta=table.cdc_delta,
                        ttl=table.cdc_ttl_seconds)
    session.execute(f"INSERT INTO {META}.scylla_keyspaces (keyspace_name, initial_tablets) VALUES ('exports_tablets', 2)")
    # the example cluster's generations; the tablets table's stream sets from the same history
    history = example_history()
    generations = history.generations()
    create_generation_tables(session, DIST, generations)
    session.execute(f"CREATE KEYSPACE {SYSTEM} WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    session.execute(f"CREATE TABLE {SYSTEM}.cdc_streams (keyspace_name text, table_name text, timestamp timestamp, "
                    "stream_state tinyint, stream_id blob, PRIMARY KEY ((keyspace_name, table_name), timestamp, "
                    "stream_state, stream_id))")
    streams = tablet_stream_rows(history, tablets_tables_at_log_creation(ours))
    for keyspace, table, set_ms, _, stream in streams:
        session.execute(f"INSERT INTO {SYSTEM}.cdc_streams (keyspace_name, table_name, timestamp, stream_state, "
                        "stream_id) VALUES (%s, %s, %s, 0, %s)", (keyspace, table, set_ms, bytes.fromhex(stream)))
    # the produced logs, as of the newest schemas (test_imported_log's exported cells)
    import test_imported_log

    cells = [c for c in test_imported_log.exported_cells(result.log_cells, result.schema)
             if c["keyspace_name"] in KEYSPACES]
    log_tables = {}
    for keyspace, table in sorted({(c["keyspace_name"], c["table_name"]) for c in cells}):
        log_columns = log_table_columns(keyspace, table, own_columns, own_types)
        ddl = _log_table_ddl(keyspace, table, log_columns, own_types)
        execute_all(session, ddl.rstrip().rstrip(";").rsplit(";", 1)[-1])     # the log table (its keyspace exists)
        log_tables[(keyspace, table)] = catalog_of(ddl).table(keyspace, f"{table}_scylla_cdc_log")
    rows = sorted(log_rows(cells).items(), key=lambda item: item[0][3])
    half = len(rows) // 2            # the rows of a write (one cdc$time) on one side
    while half < len(rows) and _time_us(rows[half][0][3]) == _time_us(rows[half - 1][0][3]):
        half += 1
    split_us = _time_us(rows[half - 1][0][3])

    def write(part):
        for key, row in part:
            insert_log_row(session, key[0], key[1], row, log_tables[key[:2]])

    work = tmp_path_factory.mktemp("load_cluster")
    base_env = {k: v for k, v in os.environ.items() if k not in ("CDCLAKE_TARGET", "CDCLAKE_TABLE_FORMAT")}
    base_env.update(CDCLAKE_TARGET_DIR=str(work / "target"), CDCLAKE_DRIVER_MEMORY="1g",
               CDCLAKE_CLUSTER_USERNAME="cassandra", CDCLAKE_CLUSTER_PASSWORD="cassandra")
    address = f"127.0.0.1:{cassandra_server.native_port}"
    options = ["--scylla-tables", META, "--generations-keyspace", DIST, "--tablets-keyspace", SYSTEM]

    def run(*args: str, password: str = "cassandra", env: dict | None = None):
        command = [sys.executable, "-m", "cdclake.cli", "load", "cluster", *args]
        process_env = {**base_env, "CDCLAKE_CLUSTER_PASSWORD": password, **(env or {})}
        return subprocess.run(command, cwd=work, env=process_env, capture_output=True, text=True, timeout=600)

    write(rows[:half])
    first = run(address, *KEYSPACES, *options, "--until", str(split_us))
    write(rows[half:])
    yield {"run": run, "env": base_env, "session": session, "address": address, "options": options, "first": first, "rows": rows, "half": half,
           "cells": cells, "generations": generations, "streams": streams, "work": work,
           "last_us": max(_time_us(key[3]) for key, _ in rows)}
    cluster.shutdown()


def _time_us(timeuuid: str) -> int:
    import uuid

    return (uuid.UUID(timeuuid).time - 0x01B21DD213814000) // 10


def imported(spark, work: Path) -> list[dict]:
    table = work / "target" / "spark-warehouse" / "cdc_input.db" / "imported_log"
    return [r.asDict() for r in spark.read.format("delta").load(str(table)).collect()]


def test_the_first_pull_loads_the_schemas_the_generations_and_the_log_up_to_its_time(live):
    first = live["first"]
    assert first.returncode == 0, first.stderr[-3000:]
    assert "exports.every: new (schema version 0)" in first.stdout
    assert f"loaded {len(live['generations'])} generations, 1 stream sets of 1 tablets tables " \
        f"({len(live['streams'])} streams) from" in first.stdout, first.stdout
    pulled = sum(int(n) for n in re.findall(r": (\d+) log rows", first.stdout))
    assert pulled == live["half"], first.stdout


def test_a_second_pull_appends_only_the_new_rows_and_a_third_nothing(live, spark):
    second = live["run"](live["address"], *KEYSPACES, "--what", "log", "--until", str(live["last_us"]))
    assert second.returncode == 0, second.stderr[-3000:]
    pulled = sum(int(n) for n in re.findall(r": (\d+) log rows", second.stdout))
    assert pulled == len(live["rows"]) - live["half"], second.stdout
    third = live["run"](live["address"], *KEYSPACES, "--what", "log", "--until", str(live["last_us"]))
    assert third.returncode == 0 and "nothing new" in third.stdout, third.stdout
    decimals = {("exports", "every", "de")}
    got = sorted(plain(cell, decimals) for cell in imported(spark, live["work"]))
    assert got == sorted(plain(cell, decimals) for cell in live["cells"])


def test_a_pull_killed_half_way_leaves_nothing_half_appended(live, spark, tmp_path):
    """A pull (with its schemas) killed as its tasks write the table's files: the table holds none
    of the pull's rows (no commit, or only the one that creates it) or all of them, and the next pull brings it to the whole log,
    each row once."""
    target = tmp_path / "target"
    env = {**live["env"], "CDCLAKE_TARGET_DIR": str(target)}
    command = [sys.executable, "-m", "cdclake.cli", "load", "cluster", live["address"], *KEYSPACES, *live["options"],
               "--what", "schema,log", "--until", str(live["last_us"])]
    victim = subprocess.Popen(command, cwd=live["work"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    table = target / "spark-warehouse" / "cdc_input.db" / "imported_log"
    started = time.monotonic()
    while time.monotonic() - started < 300 and not any(table.glob("*.parquet")) and victim.poll() is None:
        time.sleep(0.02)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    subprocess.run(["pkill", "-9", "-f", str(target)], check=False)       # its JVM
    # the pull creates the table (no rows) in a commit of its own before the one that appends
    committed = any((table / "_delta_log").glob("*.json"))
    assert len(imported(spark, tmp_path) if committed else []) in (0, len(live["cells"]))
    again = subprocess.run(command, cwd=live["work"], env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    decimals = {("exports", "every", "de")}
    assert sorted(plain(c, decimals) for c in imported(spark, tmp_path)) == \
        sorted(plain(c, decimals) for c in live["cells"])


@pytest.mark.parametrize("case", ["credentials", "unreachable", "missing table", "no cdc"])
def test_a_cluster_that_cannot_serve_the_load_stops_it_with_one_line(live, case):
    address, options = live["address"], live["options"]
    if case == "credentials":
        done = live["run"](address, "exports", *options, "--what", "log", password="wrong")
        said = "refused the credentials"
    elif case == "unreachable":
        done = live["run"](f"127.0.0.1:{free_port()}", "exports", "--what", "log")
        said = "cannot be reached"
    elif case == "missing table":
        done = live["run"](address, "exports.missing", "--what", "log")
        said = "no table exports.missing"
    else:
        done = live["run"](address, "exports.plain", *options, "--what", "schema,log")
        said = "table exports.plain has no CDC log"
    assert done.returncode == 2, done.stdout + done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and said in errors[0], done.stderr[-3000:]
    assert "Traceback" not in done.stderr
