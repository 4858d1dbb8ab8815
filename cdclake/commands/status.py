"""``cdclake status``: what the warehouse holds, from its tables and the last dbt command's results.

    the tables (CDC or not, schema versions, log rows produced and imported, a tablets table's
    stream sets), the writes loaded and processed (by batch), what the loads refused, the
    generations and streams, and the last dbt command (when, what, how it ended).
"""
from __future__ import annotations

import json

from cdclake.load.inputs import INPUT_SCHEMA, INPUT_TABLES

NO_INPUTS = ("no inputs: load your keyspace (cdclake load schema|cql|snapshot, cdclake generations build|import) "
             "or the example (cdclake load example)")
NO_BUILD = "writes processed: none (no build yet)"


LOG_ROW_KEY = ["cdc$stream_id", "cdc$time", "cdc$batch_seq_no"]     # a log row among its cells


def status_lines(spark_or_tables, run_results: dict | None) -> list[str]:
    """The status of a warehouse: ``spark_or_tables`` is a session, or a reader of its tables
    (cdclake/session/warehouse_tables.py): answered from the tables' files when they are local."""
    from cdclake.session.warehouse import AUDIT_COUNTS
    from cdclake.session.warehouse_tables import read_tables

    tables = spark_or_tables if hasattr(spark_or_tables, "table") and not hasattr(spark_or_tables, "sql") \
        else read_tables(spark_or_tables)
    inputs = {name: tables.exists(f"{INPUT_SCHEMA}.{name}") for name in
              (*INPUT_TABLES, "tablet_streams", "imported_log", "load_refusals")}

    def rows(name: str, columns: list[str]) -> list[dict]:
        found = tables.table(name, columns)
        return [] if found is None else found.to_pylist()

    def distinct_rows(name: str, group: list[str], key: list[str]) -> dict[tuple, int]:
        """The number of distinct ``key`` values per ``group`` value of ``name``'s rows."""
        found = tables.table(name, group + key)
        if found is None or not found.num_rows:
            return {}
        counted = found.group_by(group + key).aggregate([]).group_by(group).aggregate([([], "count_all")])
        return {tuple(row[c] for c in group): row["count_all"] for row in counted.to_pylist()}

    lines = []
    missing = [name for name in INPUT_TABLES if not inputs[name]]
    if len(missing) == len(INPUT_TABLES):
        lines.append(NO_INPUTS)
    elif missing:
        lines.append("inputs missing: " + ", ".join(sorted(f"{INPUT_SCHEMA}.{name}" for name in missing)))
    built = tables.exists("cdc_intermediate.int_log_written") and tables.exists("cdc_lake.cdc_write_audit")
    if inputs["base_tables"]:
        log_rows = {}
        if built:
            for (keyspace, table, _), n in distinct_rows("cdc_intermediate.int_log_written",
                                                         ["keyspace_name", "table_name", "cdc$operation"],
                                                         LOG_ROW_KEY).items():
                log_rows[(keyspace, table)] = log_rows.get((keyspace, table), 0) + n
        described = {}
        for row in rows(f"{INPUT_SCHEMA}.base_tables", ["keyspace_name", "table_name", "cdc_enabled",
                                                        "schema_version"] + _uses_tablets(tables)):
            key = (row["keyspace_name"], row["table_name"])
            versions, newest = described.get(key, (0, None))
            if newest is None or row["schema_version"] > newest["schema_version"]:
                newest = row
            described[key] = (versions + 1, newest)
        stream_sets = {key: len({r["set_ts_ms"] for r in group}) for key, group in _by_table(
            rows(f"{INPUT_SCHEMA}.tablet_streams", ["keyspace_name", "table_name", "set_ts_ms"])
            if inputs["tablet_streams"] else []).items()}
        imported = distinct_rows(f"{INPUT_SCHEMA}.imported_log", ["keyspace_name", "table_name"], LOG_ROW_KEY) \
            if inputs["imported_log"] else {}
        lines.append(f"tables: {len(described)}")
        for key, (versions, t) in sorted(described.items()):
            cdc = f"CDC on, {log_rows.get(key, 0):,} log rows" if t["cdc_enabled"] else "CDC off"
            cdc += f" (+ {imported[key]:,} imported, replayed by its consumer tables)" if key in imported else ""
            if t.get("uses_tablets"):
                cdc += f", tablets: {stream_sets.get(key, 0)} stream set(s)"
                if t["cdc_enabled"] and key not in stream_sets:
                    cdc += " (its writes are rejected until cdclake generations build or import --cdc-streams loads them)"
            lines.append(f"  {key[0]}.{key[1]}: {cdc}, {versions} schema version(s)")
    if inputs["base_mutations"]:
        found = tables.table(f"{INPUT_SCHEMA}.base_mutations", ["write_id"])
        writes = 0 if found is None else len(set(found.column("write_id").to_pylist()) - {None})
        last = None if found is None or not writes else max(w for w in found.column("write_id").to_pylist() if w is not None)
        lines.append(f"writes loaded: {writes:,} (last write id {last})")
    if inputs["load_refusals"]:
        found = tables.table(f"{INPUT_SCHEMA}.load_refusals", ["refused_at_us"])
        lines.append(f"refused at load: {0 if found is None else found.num_rows:,} statements and rows "
                     "(cdc_lake.cdc_load_refusals)")
    if built:
        audits = rows("cdc_lake.cdc_write_audit", AUDIT_COUNTS)
        totals = {c: sum(a[c] or 0 for a in audits) for c in AUDIT_COUNTS}
        lines.append(f"writes processed: {totals['input_writes']:,} in {len(audits)} batch(es) = "
                     f"{totals['logged_writes']:,} logged + {totals['unlogged_writes']:,} not logged + "
                     f"{totals['rejected_writes']:,} rejected; {totals['log_rows']:,} log rows")
    else:
        lines.append(NO_BUILD)
    if inputs["cdc_generations"] and inputs["cdc_generation_streams"]:
        generations = [r["generation_ts_ms"] for r in rows(f"{INPUT_SCHEMA}.cdc_generations", ["generation_ts_ms"])]
        found = tables.table(f"{INPUT_SCHEMA}.cdc_generation_streams", ["generation_ts_ms"])
        lines.append(f"generations: {len(generations)} (first {min(generations, default=None)} ms, "
                     f"last {max(generations, default=None)} ms), {0 if found is None else found.num_rows:,} streams")
    return lines + last_command_lines(run_results)


def _uses_tablets(tables) -> list[str]:
    """``uses_tablets`` when ``base_tables`` has it (a warehouse loaded before tablets has not)."""
    try:
        tables.table(f"{INPUT_SCHEMA}.base_tables", ["uses_tablets"])
        return ["uses_tablets"]
    except Exception:  # noqa: BLE001 - no such column, as each reader says it
        return []


def _by_table(rows: list[dict]) -> dict[tuple, list[dict]]:
    grouped: dict[tuple, list[dict]] = {}
    for row in rows:
        grouped.setdefault((row["keyspace_name"], row["table_name"]), []).append(row)
    return grouped


def last_command_lines(run_results: dict | None) -> list[str]:
    """The last dbt command: what, when, how many nodes, how it ended (none without results)."""
    if not run_results:
        return []
    results = run_results["results"]
    failed = [r["unique_id"].split(".")[-1] for r in results if r["status"] in ("error", "fail")]
    return [f"last dbt command: {run_results['args'].get('which', '?')} at "
            f"{run_results['metadata']['generated_at']}, {len(results)} nodes in {run_results['elapsed_time']:.1f} s, "
            + (f"failed: {', '.join(failed)}" if failed else "succeeded")]


def configure(parser) -> None:
    parser.description = __doc__.split("\n\n")[0]


def run(args) -> int:
    """Answered from the warehouse's files without starting Spark when they are local and
    readable (cdclake/session/warehouse_tables.py), else with a session."""
    from cdclake.session.spark import local_warehouse_dir
    from cdclake.session.warehouse import catalog_exists
    from cdclake.session.warehouse_tables import FilesUnreadable, WarehouseFiles
    from cdclake.settings import target_dir

    results_file = target_dir() / "run_results.json"
    run_results = json.loads(results_file.read_text()) if results_file.exists() else None
    if not catalog_exists(target_dir()):        # nothing was ever loaded: said without Spark
        print("\n".join([NO_INPUTS, NO_BUILD, *last_command_lines(run_results)]))
        return 0
    warehouse = local_warehouse_dir(target_dir())
    if warehouse is not None:
        try:
            print("\n".join(status_lines(WarehouseFiles(warehouse), run_results)))
            return 0
        except FilesUnreadable:
            pass
    from cdclake.load.inputs import input_atoms
    from cdclake.session.spark import create_session, plan_for_input_size
    from cdclake.settings import PROJECT_DIR

    spark = create_session(target_dir())
    # its queries read the inputs and what builds made of them: sized as a build of them is
    plan_for_input_size(spark, input_atoms(spark, PROJECT_DIR, example=False))
    from cdclake.session.warehouse_tables import SparkTables

    print("\n".join(status_lines(SparkTables(spark), run_results)))
    return 0
