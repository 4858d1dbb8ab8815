"""``cdclake load``: your keyspace into the warehouse's ``cdc_input``, without Python by hand.

    cdclake load schema FILE.cql                   cqlsh DESCRIBE KEYSPACE output -> base_tables, base_columns, base_types
    cdclake load cql FILE.cql [--now US] [--step US] [--skew US]      CQL writes (and DDL) appended to base_mutations
    cdclake load snapshot KS.TABLE FILE.csv [--write-times backfill|original] [--backfill-time US] [--now US]
                                                   a table export (cqlsh COPY TO, dsbulk unload) as the writes that write it
    cdclake load log KS.TABLE FILE.csv [KS.TABLE FILE.csv ...]
                                                   a real cluster's CDC logs (cqlsh COPY ks.t_scylla_cdc_log TO)
                                                   for the tables' consumer tables (<t>_state, _history, _changes)
    cdclake load example                           the example keyspace (seeds/), replacing every input table

Each command checks its file first. Bad lines are printed as ``FILE:LINE[:COLUMN]: why`` and
skipped, the rest loads (exit status 1). A file whose structure is wrong (it does not parse,
its header does not match the table) loads nothing (exit status 2).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cdclake.cql.errors import CqlError, CqlSyntaxError


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cdclake load", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    schema = commands.add_parser("schema", help="a keyspace's schema (cqlsh DESCRIBE KEYSPACE output)")
    cql = commands.add_parser("cql", help="CQL statements through the front door, appended to the inputs")
    snapshot = commands.add_parser("snapshot", help="backfill: a table export as the writes that write it")
    log = commands.add_parser("log", help="a real cluster's CDC log of a table, for its consumer tables")
    commands.add_parser("example", help="the example keyspace (seeds/), replacing every input table")
    for command in (schema, cql, snapshot):
        command.add_argument("--now", type=int, default=None,
                             help="the coordinator's clock for the first statement, µs (default: now)")
    schema.add_argument("file", type=Path)
    cql.add_argument("file", type=Path)
    cql.add_argument("--step", type=int, default=1000, help="client clock step per statement, µs (default 1000)")
    cql.add_argument("--skew", type=int, default=0, help="coordinator clock minus client clock, µs (default 0)")
    snapshot.add_argument("table", help="KEYSPACE.TABLE, loaded beforehand with cdclake load schema")
    snapshot.add_argument("file", type=Path)
    snapshot.add_argument("--write-times", choices=["backfill", "original"], default="backfill",
                          help="backfill: every row at --backfill-time; original: at its writetime(c) columns")
    snapshot.add_argument("--backfill-time", type=int, default=None, help="the backfill write time, µs (default --now)")
    log.add_argument("pairs", nargs="+", metavar="KEYSPACE.TABLE FILE.csv",
                     help="each base table (its schema loaded beforehand) and its log's export")
    args = parser.parse_args(argv)
    if args.command == "example":
        from cdclake.cli import run_dbt

        return run_dbt(["seed", "--full-refresh", "--vars", "{cdc_example: true}"])
    if args.command == "log":
        if len(args.pairs) % 2:
            parser.error("load log takes pairs: KEYSPACE.TABLE FILE.csv [KEYSPACE.TABLE FILE.csv ...]")
        args.pairs = [(table, Path(file)) for table, file in zip(args.pairs[::2], args.pairs[1::2])]
    for file in [file for _, file in args.pairs] if args.command == "log" else [args.file]:
        if not file.is_file():
            print(f"error: {file}: no such file", file=sys.stderr)
            return 2
    return load_file(args)


def load_file(args) -> int:
    from cdclake import inputs
    from cdclake.paths import target_dir
    from cdclake.replay import now_micros
    from cdclake.spark import create_session
    from cdclake.table_export import ExportFileError

    spark = create_session(target_dir())
    existing = inputs.read_schema_records(spark)
    if args.command == "log":
        return load_log_files(spark, args.pairs, existing)
    text = args.file.read_text()
    path = str(args.file)
    now_us = now_micros() if args.now is None else args.now
    try:
        if args.command == "schema":
            from cdclake.schema_load import load_schema_text

            load = load_schema_text(text, path, now_us, existing)
            for line in load.outcomes + load.notes:
                print(line)
            loads = [load]
        else:
            last, earlier = inputs.last_write_id(spark), inputs.WarehouseWrites(spark)
            if args.command == "cql":
                from cdclake.cql_load import load_cql_text

                loads = [load_cql_text(text, path, now_us=now_us, step_us=args.step, skew_us=args.skew,
                                       existing=existing, last_write_id=last, earlier_writes=earlier)]
            else:
                from cdclake.snapshot_load import snapshot_loads

                keyspace, _, table = args.table.partition(".")
                loads = snapshot_loads(text, path, keyspace, table, existing=existing, last_write_id=last,
                                       now_us=now_us, write_times=args.write_times, backfill_us=args.backfill_time,
                                       earlier_writes=earlier)
    except CqlSyntaxError as error:
        print(f"error: {path}:{error.line}:{error.column}: {error.detail}; nothing loaded", file=sys.stderr)
        return 2
    except (ExportFileError, CqlError) as error:
        print(f"error: {error}; nothing loaded", file=sys.stderr)
        return 2
    from cdclake.log_models import write_log_models
    from cdclake.paths import PROJECT_DIR
    from cdclake.schema_records import with_types

    table_format = os.environ.get("CDCLAKE_TABLE_FORMAT", "parquet")
    tables, columns, types = (list(records) for records in existing)   # the schemas after the load
    writes = atoms = refused = 0
    for load in loads:        # a snapshot: one chunk of rows at a time
        for problem in load.problems:
            print(problem, file=sys.stderr)
        inputs.append_inputs(spark, atoms=load.atoms, tables=load.tables, columns=load.columns, table_format=table_format)
        if load.types or inputs.missing_inputs(spark, ["base_types"]):
            types = with_types(types, load.types)
            inputs.write_types(spark, types, table_format)
        tables, columns = tables + load.tables, columns + load.columns
        writes, atoms, refused = writes + load.writes, atoms + len(load.atoms), refused + len(load.problems)
    write_log_models(PROJECT_DIR, tables, columns=columns, types=types)    # for plain dbt after the load
    print(f"loaded {writes} writes ({atoms} atoms) and {len(tables) - len(existing[0])} new table schema versions "
          "into cdc_input" + (f"; {refused} refused (above)" if refused else ""))
    return 1 if refused else 0


def load_log_files(spark, pairs: list[tuple[str, Path]], existing) -> int:
    """``cdclake load log``: the logs of some tables, (KEYSPACE.TABLE, export file) each, into
    ``cdc_input.imported_log``, some ``CHUNK_ROWS`` cells at a time. Every file's structure is
    checked before anything is written. A warehouse without writes or generations of its own
    gets empty ones: it builds with the imported logs alone."""
    from cdclake import generation_tables, inputs
    from cdclake.log_load import CHUNK_ROWS, log_loads
    from cdclake.table_export import ExportFileError

    loads = []
    for table, file in pairs:
        keyspace, _, table_name = table.partition(".")
        try:
            loads.append((table, log_loads(file.read_text(), str(file), keyspace, table_name, existing=existing)))
        except (ExportFileError, CqlError) as error:
            print(f"error: {error}; nothing loaded", file=sys.stderr)
            return 2
    table_format = os.environ.get("CDCLAKE_TABLE_FORMAT", "parquet")
    pending, loaded, total, added, refused = [], [], 0, 0, 0
    for table, chunks in loads:
        log_rows = cells = 0
        for load in chunks:
            for problem in load.problems:
                print(problem, file=sys.stderr)
            log_rows, cells, refused = log_rows + load.log_rows, cells + len(load.rows), refused + len(load.problems)
            pending += load.rows
            if len(pending) >= CHUNK_ROWS:
                added += inputs.append_imported_log(spark, pending, table_format)
                pending = []
        loaded.append(f"loaded {log_rows} log rows of {table} ({cells} cells)")
        total += cells
    added += inputs.append_imported_log(spark, pending, table_format)
    inputs.append_inputs(spark, table_format=table_format)     # creates an empty base_mutations
    if inputs.missing_inputs(spark, ["cdc_generations", "cdc_generation_streams"]):
        generation_tables.load(spark, generation_tables.GenerationTables.from_entries([]), table_format)
    print("\n".join(loaded) + "\ninto cdc_input.imported_log"
          + (f"; {total - added} cells of log rows loaded before left out" if total > added else "")
          + (f"; {refused} refused (above)" if refused else ""))
    return 1 if refused else 0
