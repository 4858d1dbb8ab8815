"""``cdclake load cluster HOST[:PORT] KEYSPACE[.TABLE] ...``: a live cluster's schemas, CDC
generations and CDC logs, read with the Spark Cassandra Connector (cdclake/cluster/).

    --what schema,generations,log   (the default: all three)
        schema        the keyspaces' schemas from system_schema, loaded as `cdclake load schema`
        generations   the CDC generations and tablets stream sets, as `cdclake generations import`
        log           each CDC table's log since the last pull, up to now minus --window seconds,
                      appended to cdc_input.imported_log with its mark in one Delta commit
    --what backfill                 the tables' rows with their write times and TTLs, as the writes
                                    `cdclake load snapshot` makes of an export of them
                                    [--write-times backfill|original] [--backfill-time US] [--now US]

Credentials come from CDCLAKE_CLUSTER_USERNAME / CDCLAKE_CLUSTER_PASSWORD or --credentials FILE,
never from the command line. A cluster that cannot be reached, refused credentials, a missing
table or a table without CDC stop the load with one line (exit status 2); log rows whose values
cannot be read are reported with their stream and cdc$time, kept in cdc_input.load_refusals, and
the rest loads (exit status 1).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from cdclake import settings

WHAT = ("schema", "generations", "log")
BACKFILL = "backfill"


def configure(parser) -> None:
    parser.add_argument("address", metavar="HOST[:PORT]", help="contact points, HOST[:PORT][,HOST...] (port 9042)")
    parser.add_argument("names", nargs="+", metavar="KEYSPACE[.TABLE]",
                        help="keyspaces (their CDC tables) or tables to read")
    parser.add_argument("--what", default=",".join(WHAT),
                        help="what to read, of schema, generations, log (default: all three)")
    parser.add_argument("--write-times", choices=["backfill", "original"], default="backfill",
                        help="backfill: every row at --backfill-time; original: at its columns' write times")
    parser.add_argument("--backfill-time", type=int, default=None, help="the backfill write time, µs (default --now)")
    parser.add_argument("--now", type=int, default=None,
                        help="the coordinator's clock of a backfill, µs (default: just after the warehouse's last write)")
    parser.add_argument("--window", type=float, default=None,
                        help="the confidence window, s: the log is read up to now minus it (default 30)")
    parser.add_argument("--until", type=int, default=None,
                        help="read the log up to this time (µs since the epoch) instead of now minus the window")
    parser.add_argument("--credentials", type=Path, help="a file of username=… and password=… lines")
    parser.add_argument("--ssl", action="store_true", help="connect with SSL")
    parser.add_argument("--truststore", type=Path, help="SSL trust store (password: CDCLAKE_CLUSTER_TRUSTSTORE_PASSWORD)")
    parser.add_argument("--keystore", type=Path, help="SSL key store for client authentication "
                                                      "(password: CDCLAKE_CLUSTER_KEYSTORE_PASSWORD)")
    parser.add_argument("--generations-keyspace", default="system_distributed",
                        help="where cdc_generation_timestamps and cdc_streams_descriptions_v2 are")
    parser.add_argument("--tablets-keyspace", default="system", help="where cdc_streams is (tablets keyspaces)")
    parser.add_argument("--scylla-tables", default="system_schema",
                        help="where scylla_tables and scylla_keyspaces are (the CDC and tablets options)")
    parser.add_argument("--ignore-msb", type=int, default=12, help="the cluster's murmur3_partitioner_ignore_msb_bits")


def run(args) -> int:
    from cdclake.cluster.connection import UNREADABLE, ClusterError, check_reachable, cluster_from_options

    what = [part.strip() for part in args.what.split(",") if part.strip()]
    wrong = [part for part in what if part not in WHAT + (BACKFILL,)]
    if wrong or not what or (BACKFILL in what and len(what) > 1):
        print(f"error: --what takes schema, generations and log, or backfill alone, not {args.what!r}", file=sys.stderr)
        return 2
    try:
        cluster = cluster_from_options(args.address, args.credentials, ssl=args.ssl, truststore=args.truststore,
                                       keystore=args.keystore)
        check_reachable(cluster)              # before Spark starts, as the tables below
        if "schema" not in what:
            known = _warehouse_schema_from_files()
            if known is not None:
                _cdc_tables(cluster, args.names, known[0])
        return _load(args, cluster, what)
    except (ClusterError, ValueError, OSError) as error:
        print(f"error: {error}; nothing more loaded", file=sys.stderr)
        return UNREADABLE


def _load(args, cluster, what: list[str]) -> int:
    from py4j.protocol import Py4JJavaError

    from cdclake.cluster.connection import ClusterError, connector_session, failure_line
    from cdclake.load import inputs

    spark = connector_session(cluster)
    reading, status = "the cluster", 0
    try:
        if "schema" in what:
            reading = "system_schema"
            status = _load_schema(spark, cluster, args)
        schema = inputs.read_schema_records(spark)
        if BACKFILL in what:
            reading = "the base tables"
            return _backfill(spark, cluster, args, schema)
        tables = _cdc_tables(cluster, args.names, schema[0])
        if "generations" in what:
            reading = f"{args.generations_keyspace}'s generation tables"
            _load_generations(spark, cluster, args, schema[0])
        if "log" in what:
            reading = "the logs"
            status = max(status, _pull(spark, cluster, args, tables, schema))
        return status
    except Py4JJavaError as error:
        raise ClusterError(failure_line(error.java_exception, cluster, reading)) from None


def _warehouse_schema_from_files():
    """The warehouse's schema records read from its files (no Spark), or None when they cannot
    be (a warehouse elsewhere, Parquet tables): then the session reads them."""
    from cdclake.load import inputs
    from cdclake.session import delta_log
    from cdclake.session.spark import local_warehouse_dir

    warehouse = local_warehouse_dir(settings.target_dir())
    names = ("base_tables", "base_columns", "base_types")
    if warehouse is None:
        return None
    folders = [delta_log.table_folder(warehouse, f"{inputs.INPUT_SCHEMA}.{name}") for name in names]
    try:
        snapshots = [delta_log.snapshot(folder) if folder.is_dir() else None for folder in folders]
        if None in snapshots:
            return None
        for found in snapshots:
            found.readable()
        return inputs.read_schema_records(None, warehouse)
    except (OSError, ValueError, delta_log.UnreadableTable):
        return None


def _cdc_tables(cluster, names: list[str], tables) -> list[tuple[str, str]]:
    """(keyspace, table) of each CDC table named, or of every CDC table of a keyspace named,
    as the warehouse's newest schemas have them."""
    from cdclake.cluster.connection import ClusterError

    newest = {}
    for table in tables:
        key = (table.keyspace_name, table.table_name)
        if key not in newest or newest[key].schema_version < table.schema_version:
            newest[key] = table
    chosen = []
    for name in names:
        keyspace, _, table = name.partition(".")
        found = [key for key in sorted(newest) if key[0] == keyspace and (not table or key[1] == table)]
        if not found:
            raise ClusterError(f"{cluster.name}: no table {name} in the warehouse's schemas (--what schema loads them)")
        if table and not newest[found[0]].cdc_enabled:
            raise ClusterError(f"{cluster.name}: table {name} has no CDC log (cdc = {{'enabled': false}})")
        chosen += [key for key in found if newest[key].cdc_enabled and key not in chosen]
    return chosen


def _load_schema(spark, cluster, args) -> int:
    from cdclake.cluster.connection import json_rows
    from cdclake.cluster.schema_read import describe_keyspaces
    from cdclake.commands.load_store import load_schema_text_into

    keyspaces = {name.partition(".")[0] for name in args.names}

    def rows(table, keyspace="system_schema", optional=False):
        return json_rows(spark, keyspace, table, optional, of_keyspaces=keyspaces)

    text = describe_keyspaces(rows("keyspaces"), rows("types"), rows("tables"), rows("columns"),
                              rows("scylla_tables", args.scylla_tables, optional=True),
                              rows("scylla_keyspaces", args.scylla_tables, optional=True))
    return load_schema_text_into(spark, text, f"{cluster.name} system_schema")


def _load_generations(spark, cluster, args, tables) -> None:
    from cdclake.cluster import generations_read
    from cdclake.cluster.connection import json_rows
    from cdclake.generations import generation_tables, tablet_streams
    from cdclake.generations.generation_tables import GenerationTables

    source = f"{cluster.name} {args.generations_keyspace}"
    generations = generations_read.vnode_generations(
        json_rows(spark, args.generations_keyspace, "cdc_generation_timestamps"),
        json_rows(spark, args.generations_keyspace, "cdc_streams_descriptions_v2"), source, args.ignore_msb)
    generation_tables.load(spark, GenerationTables.from_entries(generations), settings.table_format())
    said = f"{len(generations)} generations"
    if any(table.uses_tablets for table in tables):
        rows = generations_read.tablet_stream_rows(
            json_rows(spark, args.tablets_keyspace, "cdc_streams"), f"{cluster.name} {args.tablets_keyspace}")
        tablet_streams.load(spark, rows, settings.table_format())
        said += f", {tablet_streams.summary(rows)}"
    print(f"loaded {said} from {cluster.name} into cdc_input")


def _pull(spark, cluster, args, tables, schema) -> int:
    from cdclake.cluster.log_pull import CONFIDENCE_WINDOW_S, pull_logs
    from cdclake.commands.load_store import ensure_build_inputs
    from cdclake.load import inputs
    from cdclake.load.refusals import Refusal, refusal_rows
    from cdclake.replay import now_micros

    window = CONFIDENCE_WINDOW_S if args.window is None else args.window
    until = args.until if args.until is not None else now_micros() - int(window * 1_000_000)
    started = time.perf_counter()
    pull = pull_logs(spark, cluster, tables, schema, until_us=until, table_format=settings.table_format())
    seconds = time.perf_counter() - started
    table_format = settings.table_format()
    ensure_build_inputs(spark, table_format)
    for problem in pull.problems:
        print(problem, file=sys.stderr)
    if pull.problems:
        refused = [Refusal(*problem.split(": ", 1)) for problem in pull.problems]
        inputs.append_refusals(spark, refusal_rows(refused, "cluster", now_micros()), table_format)
    for name, (mark, until_us) in pull.windows.items():
        rows, cells = pull.tables.get(name, (0, 0))
        if name not in pull.marks:
            print(f"{name}: nothing new (pulled up to {mark} µs already)")
        else:
            print(f"{name}: {rows} log rows ({cells} cells) with cdc$time in "
                  f"({'the log start' if mark is None else f'{mark} µs'}, {until_us} µs]")
    total = sum(rows for rows, _ in pull.tables.values())
    print(f"pulled {total} log rows from {cluster.name} into cdc_input.imported_log in {seconds:.1f} s"
          + (f" ({total / seconds:,.0f} rows/s)" if seconds > 0 and total else "")
          + (f"; {len(pull.problems)} refused (above, kept in cdc_input.load_refusals)" if pull.problems else ""))
    return 1 if pull.problems else 0


def _backfill(spark, cluster, args, schema) -> int:
    """``--what backfill``: each named table's rows (a keyspace: each of its CDC tables') as the
    writes that write them again."""
    from cdclake.cluster.backfill import base_rows
    from cdclake.commands.load_store import load_clock, store_loads
    from cdclake.cql.interpreter import catalog_of
    from cdclake.load import inputs
    from cdclake.load.schema_ddl import schema_ddl
    from cdclake.load.snapshot_load import CHUNK_ROWS, RowWrites, values_load
    from cdclake.replay import now_micros

    catalog = catalog_of(schema_ddl(*schema))
    status = 0
    for keyspace, table_name in _cdc_tables(cluster, args.names, schema[0]):
        table, name = catalog.table(keyspace, table_name), f"{keyspace}.{table_name}"
        now_us = load_clock(spark, args, now_micros(), backfill=True)
        backfill_us = now_us if args.backfill_time is None else args.backfill_time
        row_writes = RowWrites(table, args.write_times, backfill_us)
        loads, last = [], inputs.last_write_id(spark)
        earlier = inputs.WarehouseWrites(spark)
        for rows, refused in base_rows(spark, table, schema[2], CHUNK_ROWS):
            load = values_load(rows, table, f"{cluster.name} {name}", existing=schema, last_write_id=last,
                               now_us=now_us, write_times=args.write_times, backfill_us=backfill_us,
                               row_writes=row_writes, earlier_writes=earlier)
            load.problems = refused + load.problems
            last = max((atom.write_id for atom in load.atoms), default=last)
            loads.append(load)
        status = max(status, store_loads(spark, loads, schema, f"{cluster.name} {name}", "cluster"))
    return status
