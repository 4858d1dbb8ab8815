"""What a load adds to ``cdc_input`` and what it says about it, for every ``cdclake load``: the
appends of its writes, schema versions and refusals, its clock, its warnings."""
from __future__ import annotations

import sys

from cdclake import settings

DEFAULT_STEP_US = 1000    # the client clock's step between statements (cdclake load cql --step)


def store_loads(spark, loads: list, existing, path: str, command: str) -> int:
    """Append what some loads of ``path`` add (writes, schema versions, types) to ``cdc_input``,
    with their refusals, write the log models and say what was loaded; the exit status."""
    from cdclake.load import inputs
    from cdclake.load.refusals import refusal_rows
    from cdclake.load.schema_records import with_types
    from cdclake.project.log_models import write_log_models
    from cdclake.replay import now_micros
    from cdclake.settings import PROJECT_DIR

    table_format = settings.table_format()
    tables, columns, types = (list(records) for records in existing)   # the schemas after the load
    writes = atoms = 0
    refused = []
    for load in loads:        # a snapshot: one chunk of rows at a time
        for problem in load.problems:
            print(problem, file=sys.stderr)
        warn_of_future_writes(load.atoms, path)
        inputs.append_inputs(spark, atoms=load.atoms, tables=load.tables, columns=load.columns, table_format=table_format)
        if load.types or inputs.missing_inputs(spark, ["base_types"]):
            types = with_types(types, load.types)
            inputs.write_types(spark, types, table_format)
        tables, columns = tables + load.tables, columns + load.columns
        writes, atoms, refused = writes + load.writes, atoms + len(load.atoms), refused + load.problems
    if refused:
        inputs.append_refusals(spark, refusal_rows(refused, command, now_micros()), table_format)
    write_log_models(PROJECT_DIR, tables, columns=columns, types=types)    # for plain dbt after the load
    print(f"loaded {writes} writes ({atoms} atoms) and {len(tables) - len(existing[0])} new table schema versions "
          "into cdc_input" + (f"; {len(refused)} refused (above, kept in cdc_input.load_refusals)" if refused else ""))
    return 1 if refused else 0


def ensure_build_inputs(spark, table_format: str) -> None:
    """An empty ``base_mutations`` and empty generation tables where the warehouse has none: a
    warehouse holding only imported logs builds their consumer tables."""
    from cdclake.generations import generation_tables
    from cdclake.load import inputs

    inputs.append_inputs(spark, table_format=table_format)
    if inputs.missing_inputs(spark, ["cdc_generations", "cdc_generation_streams"]):
        generation_tables.load(spark, generation_tables.GenerationTables.from_entries([]), table_format)


def load_schema_text_into(spark, text: str, path: str) -> int:
    """A DESCRIBE text (``path`` names where it came from) loaded as ``cdclake load schema`` loads
    a file; the exit status."""
    from cdclake.load import inputs
    from cdclake.load.schema_load import load_schema_text
    from cdclake.replay import now_micros

    existing = inputs.read_schema_records(spark)
    load = load_schema_text(text, path, now_micros(), existing)
    for line in load.outcomes + load.notes:
        print(line)
    return store_loads(spark, [load], existing, path, "schema")


def load_clock(spark, args, wall_clock_us: int, backfill: bool | None = None) -> int:
    """The coordinator's clock of a load: ``--now``; else, for a snapshot (a backfill), the
    warehouse's loaded clock just after its last write (one default step later), or the wall
    clock when it holds none; else the wall clock. Says which on stderr."""
    from cdclake.load import inputs

    if args.now is not None:
        return args.now
    backfill = args.load_command == "snapshot" if backfill is None else backfill
    loaded = inputs.loaded_clock_us(spark) if backfill else None
    clock, source = (wall_clock_us, "the wall clock") if loaded is None else \
        (loaded + DEFAULT_STEP_US, "just after the warehouse's last write")
    print(f"clock: {clock} µs ({_utc(clock)}), {source} (--now to choose)", file=sys.stderr)
    return clock


def warn_of_future_writes(atoms, path: str) -> None:
    """A warning for each write whose timestamp is beyond the leeway after its coordinator's clock:
    the build will reject it as ScyllaDB does ("from the future", macros/streams/admission.sql)."""
    from cdclake.project.project_vars import project_var

    leeway = int(project_var("cdc_generation_leeway_us"))
    seen = set()
    for atom in atoms:
        if atom.write_id in seen or atom.write_timestamp <= atom.coordinator_now_us + leeway:
            continue
        seen.add(atom.write_id)
        print(f"warning: {path}: write {atom.write_id} ({atom.keyspace_name}.{atom.table_name}) at "
              f"{_utc(atom.write_timestamp)} is more than {leeway / 1e6:g} s after the load's clock "
              f"({_utc(atom.coordinator_now_us)}): ScyllaDB refuses it (a stream \"from the future\"), "
              "and so will the build", file=sys.stderr)


def _utc(micros: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(micros / 1e6, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
