"""``cdclake generations``: build a cluster's CDC generations, or import a real cluster's, and
load them as the ``cdc_input`` generation tables (or write them as seed-layout CSV files).

    cdclake generations build HISTORY.yml [--csv DIR]
    cdclake generations import --descriptions V2.csv [--timestamps TS.csv] [--ignore-msb 12] [--csv DIR]
    cdclake generations import --generations-v3 V3.csv --topology TOPOLOGY.csv [--csv DIR]
    cdclake generations import --cdc-streams STREAMS.csv|.txt ... [--csv DIR]   (tablets tables)
"""
from __future__ import annotations

import time
from pathlib import Path

from cdclake import settings
from cdclake.generations import generation_tables, tablet_streams
from cdclake.generations.generation_tables import GenerationTables


def _import(args) -> GenerationTables | None:
    """The vnode generations the import options name (None: only tablets streams are imported)."""
    from cdclake.generations import generation_import as gi

    if args.cdc_streams and not (args.generations_v3 or args.descriptions):
        return None
    if args.generations_v3:
        if not args.topology:
            raise SystemExit("--generations-v3 needs --topology (a system.topology export with committed_cdc_generations)")
        generations = gi.import_cdc_generations_v3(args.generations_v3, gi.read_committed_cdc_generations(args.topology))
    elif args.descriptions:
        generations = gi.import_streams_descriptions_v2(
            args.descriptions, args.timestamps, ignore_msb=args.ignore_msb)
    else:
        raise SystemExit("give --descriptions (cdc_streams_descriptions_v2), --generations-v3 or --cdc-streams")
    return GenerationTables.from_entries(generations)


def _load_tablet_streams(spark, history_path: Path) -> str:
    """The stream sets of the warehouse's tablets tables (load their schemas first) from the
    history, into cdc_input.tablet_streams; what was written, for the summary."""
    from cdclake.generations.cluster_history import load_cluster_history
    from cdclake.load.inputs import read_schema_records

    tables = tablet_streams.tablets_tables_at_log_creation(read_schema_records(spark)[0])
    if not tables:
        return ""
    rows = tablet_streams.tablet_stream_rows(load_cluster_history(history_path), tables)
    tablet_streams.load(spark, rows, settings.table_format())
    return f"{tablet_streams.summary(rows)} to cdc_input.tablet_streams"


def configure(parser) -> None:
    parser.description = __doc__.split("\n\n")[0]
    commands = parser.add_subparsers(dest="generations_command", required=True, metavar="HOW")
    build = commands.add_parser("build", help="every generation of a cluster history file")
    build.add_argument("history", type=Path)
    imported = commands.add_parser("import", help="generations exported with cqlsh COPY TO")
    imported.add_argument("--descriptions", type=Path, help="system_distributed.cdc_streams_descriptions_v2 export")
    imported.add_argument("--timestamps", type=Path, help="system_distributed.cdc_generation_timestamps export")
    imported.add_argument("--ignore-msb", type=int, default=12,
                          help="the cluster's murmur3_partitioner_ignore_msb_bits (v2 does not store it; default 12)")
    imported.add_argument("--generations-v3", type=Path, help="system.cdc_generations_v3 export")
    imported.add_argument("--topology", type=Path, help="system.topology export (generation ids -> timestamps)")
    imported.add_argument("--cdc-streams", type=Path, nargs="+", metavar="FILE",
                          help="system.cdc_streams as cqlsh's COPY TO or SELECT prints it: the stream sets of "
                               "tables of tablets keyspaces (into cdc_input.tablet_streams)")
    for command in (build, imported):
        command.add_argument("--csv", type=Path, help="write seed-layout CSV files here instead of loading them")


def run(args) -> int:
    started = time.perf_counter()
    tables = generation_tables.from_history_file(args.history) if args.generations_command == "build" else _import(args)
    tablet_rows = _imported_tablet_streams(args)
    built = time.perf_counter()
    if args.csv:
        if tables is not None:
            generation_tables.write_csv_folder(tables, args.csv)
        if tablet_rows is not None:
            tablet_streams.write_csv(tablet_rows, args.csv)
        where = f"{args.csv}/"
    else:
        from cdclake.session.spark import create_session
        from cdclake.settings import target_dir

        spark = create_session(target_dir())
        where = []
        if tables is not None:
            generation_tables.load(spark, tables, settings.table_format())
            where.append("cdc_input.cdc_generations and cdc_input.cdc_generation_streams")
        if args.generations_command == "build":
            where.append(_load_tablet_streams(spark, args.history))
        elif tablet_rows is not None:
            from cdclake.generations import tablet_streams

            tablet_streams.load(spark, tablet_rows, settings.table_format())
            where.append("cdc_input.tablet_streams")
        where = ", ".join(part for part in where if part)
    done = []
    if tables is not None:
        done.append(f"{len(tables.timestamps_ms)} generations, {tables.stream_count:,} streams")
    if tablet_rows is not None:
        done.append(tablet_streams.summary(tablet_rows))
    print(f"{'; '.join(done)}: built in {built - started:.1f} s, written to {where} "
          f"in {time.perf_counter() - built:.1f} s")
    return 0


def _imported_tablet_streams(args) -> list[tuple] | None:
    if args.generations_command != "import" or not args.cdc_streams:
        return None
    from cdclake.generations.tablet_import import import_cdc_streams

    return import_cdc_streams(list(args.cdc_streams))
