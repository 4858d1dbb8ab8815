"""``cdclake load``: your keyspace into the warehouse's ``cdc_input``, without Python by hand.

    cdclake load schema FILE.cql                   cqlsh DESCRIBE KEYSPACE output -> base_tables, base_columns, base_types
    cdclake load cql FILE.cql [--now US] [--step US] [--skew US]      CQL writes (and DDL) appended to base_mutations
    cdclake load snapshot KS.TABLE FILE.csv [--write-times backfill|original] [--backfill-time US] [--now US]
                                                   a table export (cqlsh COPY TO, dsbulk unload) as the writes that write it
    cdclake load log KS.TABLE FILE.csv [KS.TABLE FILE.csv ...]
                                                   a real cluster's CDC logs (cqlsh COPY ks.t_scylla_cdc_log TO)
                                                   for the tables' consumer tables (<t>_state, _history, _changes)
    cdclake load cluster HOST[:PORT] KEYSPACE[.TABLE] ... [--what schema,generations,log]
                                                   a live cluster's schemas, generations and CDC logs
                                                   (since the last pull), read with the Spark Cassandra Connector
    cdclake load example                           the example keyspace (seeds/), replacing every input table

Each command checks its file first, before Spark starts when it can (a CQL file parses, an
export is CSV): a file whose structure is wrong (it does not parse, its header does not match
the table) loads nothing (exit status 2). Bad lines are printed as ``FILE:LINE[:COLUMN]: why``,
kept in ``cdc_input.load_refusals`` (the mart ``cdc_load_refusals``) and skipped; the rest loads
(exit status 1). A write more than the generation leeway (5 s) after its coordinator's clock is
loaded with a warning: the build rejects it, as ScyllaDB does ("from the future"). Without
``--now`` a load says which clock it used: the wall clock, or for a snapshot the warehouse's
clock just after its last loaded write.
"""
from __future__ import annotations

import sys
from pathlib import Path

from cdclake import settings
from cdclake.commands.load_store import DEFAULT_STEP_US, ensure_build_inputs, load_clock, store_loads
from cdclake.cql.errors import CqlError, CqlSyntaxError


def configure(parser) -> None:
    parser.description = __doc__.split("\n\n")[0]
    commands = parser.add_subparsers(dest="load_command", required=True, metavar="WHAT")
    schema = commands.add_parser("schema", help="a keyspace's schema (cqlsh DESCRIBE KEYSPACE output)")
    cql = commands.add_parser("cql", help="CQL statements through the front door, appended to the inputs")
    snapshot = commands.add_parser("snapshot", help="backfill: a table export as the writes that write it")
    log = commands.add_parser("log", help="a real cluster's CDC log of a table, for its consumer tables")
    commands.add_parser("example", help="the example keyspace (seeds/), replacing every input table")
    from cdclake.commands import load_cluster

    load_cluster.configure(commands.add_parser("cluster", help="a live cluster's schemas, generations and CDC logs "
                                                              "(the Spark Cassandra Connector)"))
    for command in (schema, cql):
        command.add_argument("--now", type=int, default=None,
                             help="the coordinator's clock for the first statement, µs (default: now)")
    snapshot.add_argument("--now", type=int, default=None,
                          help="the coordinator's clock, µs (default: just after the warehouse's last loaded "
                               "write, else now)")
    schema.add_argument("file", type=Path)
    cql.add_argument("file", type=Path)
    cql.add_argument("--step", type=int, default=DEFAULT_STEP_US, help="client clock step per statement, µs (default 1000)")
    cql.add_argument("--skew", type=int, default=0, help="coordinator clock minus client clock, µs (default 0)")
    snapshot.add_argument("table", help="KEYSPACE.TABLE, loaded beforehand with cdclake load schema")
    snapshot.add_argument("file", type=Path)
    snapshot.add_argument("--write-times", choices=["backfill", "original"], default="backfill",
                          help="backfill: every row at --backfill-time; original: at its writetime(c) columns")
    snapshot.add_argument("--backfill-time", type=int, default=None, help="the backfill write time, µs (default --now)")
    log.add_argument("pairs", nargs="+", metavar="KEYSPACE.TABLE FILE.csv",
                     help="each base table (its schema loaded beforehand) and its log's export")


def run(args) -> int:
    if args.load_command == "cluster":
        from cdclake.commands import load_cluster

        return load_cluster.run(args)
    if args.load_command == "example":
        from cdclake.commands.dbt_command import run_dbt

        return run_dbt(["seed", "--full-refresh", "--vars", "{cdc_example: true}"])
    if args.load_command == "log":
        if len(args.pairs) % 2:
            print("error: load log takes pairs: KEYSPACE.TABLE FILE.csv [KEYSPACE.TABLE FILE.csv ...]",
                  file=sys.stderr)
            return 2
        args.pairs = [(table, Path(file)) for table, file in zip(args.pairs[::2], args.pairs[1::2])]
    for file in [file for _, file in args.pairs] if args.load_command == "log" else [args.file]:
        if not file.is_file():
            print(f"error: {file}: no such file", file=sys.stderr)
            return 2
    return load_file(args)


def check_file(args) -> tuple[object, int]:
    """The checks of a file that need no Spark, made before a session starts: a CQL file parses
    (its statements are returned), an export is CSV. The exit status 2 when the file fails them
    (said on stderr), else 0."""
    from cdclake.cql.parser import parse_script
    from cdclake.load.table_export import CQLSH_DIALECT, ExportFileError, records

    files = [file for _, file in args.pairs] if args.load_command == "log" else [args.file]
    try:
        if args.load_command in ("schema", "cql"):
            return parse_script(args.file.read_text()), 0
        for file in files:
            for _ in records(file.read_text(), str(file), CQLSH_DIALECT if args.load_command == "log" else None):
                pass
    except CqlSyntaxError as error:
        print(f"error: {args.file}:{error.line}:{error.column}: {error.detail}; nothing loaded", file=sys.stderr)
        return None, 2
    except ExportFileError as error:
        print(f"error: {error}; nothing loaded", file=sys.stderr)
        return None, 2
    return None, 0


def load_file(args) -> int:
    from cdclake.load import inputs
    from cdclake.load.table_export import ExportFileError
    from cdclake.replay import now_micros
    from cdclake.session.spark import create_session
    from cdclake.settings import target_dir

    statements, status = check_file(args)
    if status:
        return status
    spark = create_session(target_dir())
    existing = inputs.read_schema_records(spark)
    if args.load_command == "log":
        return load_log_files(spark, args.pairs, existing)
    path = str(args.file)
    now_us = load_clock(spark, args, now_micros())
    try:
        if args.load_command == "schema":
            from cdclake.load.schema_load import load_schema_statements

            load = load_schema_statements(statements, path, now_us, existing)
            for line in load.outcomes + load.notes:
                print(line)
            loads = [load]
        else:
            last, earlier = inputs.last_write_id(spark), inputs.WarehouseWrites(spark)
            if args.load_command == "cql":
                from cdclake.load.cql_load import load_cql_statements

                loads = [load_cql_statements(statements, path, now_us=now_us, step_us=args.step, skew_us=args.skew,
                                             existing=existing, last_write_id=last, earlier_writes=earlier)]
            else:
                from cdclake.load.snapshot_load import snapshot_loads

                keyspace, _, table = args.table.partition(".")
                loads = snapshot_loads(args.file.read_text(), path, keyspace, table, existing=existing,
                                       last_write_id=last, now_us=now_us, write_times=args.write_times,
                                       backfill_us=args.backfill_time, earlier_writes=earlier)
    except (ExportFileError, CqlError) as error:
        print(f"error: {error}; nothing loaded", file=sys.stderr)
        return 2
    return store_loads(spark, loads, existing, path, args.load_command)


def load_log_files(spark, pairs: list[tuple[str, Path]], existing) -> int:
    """``cdclake load log``: the logs of some tables, (KEYSPACE.TABLE, export file) each, into
    ``cdc_input.imported_log``, some ``CHUNK_ROWS`` cells at a time. Every file's structure is
    checked before anything is written. A warehouse without writes or generations of its own
    gets empty ones: it builds with the imported logs alone."""
    from cdclake.load import inputs
    from cdclake.load.log_load import CHUNK_ROWS, log_loads
    from cdclake.load.table_export import ExportFileError

    loads = []
    for table, file in pairs:
        keyspace, _, table_name = table.partition(".")
        try:
            loads.append((table, log_loads(file.read_text(), str(file), keyspace, table_name, existing=existing)))
        except (ExportFileError, CqlError) as error:
            print(f"error: {error}; nothing loaded", file=sys.stderr)
            return 2
    from cdclake.load.refusals import refusal_rows
    from cdclake.replay import now_micros

    table_format = settings.table_format()
    pending, loaded, total, added, refused = [], [], 0, 0, []
    for table, chunks in loads:
        log_rows = cells = 0
        for load in chunks:
            for problem in load.problems:
                print(problem, file=sys.stderr)
            log_rows, cells, refused = log_rows + load.log_rows, cells + len(load.rows), refused + load.problems
            pending += load.rows
            if len(pending) >= CHUNK_ROWS:
                added += inputs.append_imported_log(spark, pending, table_format)
                pending = []
        loaded.append(f"loaded {log_rows} log rows of {table} ({cells} cells)")
        total += cells
    added += inputs.append_imported_log(spark, pending, table_format)
    ensure_build_inputs(spark, table_format)
    if refused:
        inputs.append_refusals(spark, refusal_rows(refused, "log", now_micros()), table_format)
    print("\n".join(loaded) + "\ninto cdc_input.imported_log"
          + (f"; {total - added} cells of log rows loaded before left out" if total > added else "")
          + (f"; {len(refused)} refused (above, kept in cdc_input.load_refusals)" if refused else ""))
    return 1 if refused else 0
