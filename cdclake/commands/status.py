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


def status_lines(spark, run_results: dict | None) -> list[str]:
    from cdclake.load.inputs import missing_inputs
    from cdclake.session.warehouse import audit_totals, log_row_counts, missing_tables

    missing = set(missing_inputs(spark))
    lines = []
    if len(missing) == len(INPUT_TABLES):
        lines.append(NO_INPUTS)
    elif missing:
        lines.append("inputs missing: " + ", ".join(sorted(missing)))
    built = not missing_tables(spark, ["cdc_lake.cdc_log", "cdc_lake.cdc_write_audit"])
    if f"{INPUT_SCHEMA}.base_tables" not in missing:
        log_rows = {table: sum(ops.values()) for table, ops in log_row_counts(spark).items()} if built else {}
        # a warehouse loaded before tablets has no uses_tablets column
        tablets = ("max_by(uses_tablets, schema_version)"
                   if "uses_tablets" in spark.table(f"{INPUT_SCHEMA}.base_tables").columns else "false")
        tables = spark.sql(
            f"select keyspace_name, table_name, max_by(cdc_enabled, schema_version) as cdc_enabled, "
            f"{tablets} as uses_tablets, count(*) as versions from {INPUT_SCHEMA}.base_tables "
            "group by 1, 2 order by 1, 2").collect()
        stream_sets = {} if missing_tables(spark, [f"{INPUT_SCHEMA}.tablet_streams"]) else {
            (r.keyspace_name, r.table_name): r.sets for r in spark.sql(
                f"select keyspace_name, table_name, count(distinct set_ts_ms) as sets "
                f"from {INPUT_SCHEMA}.tablet_streams group by 1, 2").collect()}
        imported = {} if missing_tables(spark, [f"{INPUT_SCHEMA}.imported_log"]) else {
            (r.keyspace_name, r.table_name): r.log_rows for r in spark.sql(
                "select keyspace_name, table_name, count(distinct `cdc$stream_id`, `cdc$time`, `cdc$batch_seq_no`) "
                f"as log_rows from {INPUT_SCHEMA}.imported_log group by 1, 2").collect()}
        lines.append(f"tables: {len(tables)}")
        for t in tables:
            cdc = f"CDC on, {log_rows.get((t.keyspace_name, t.table_name), 0):,} log rows" if t.cdc_enabled else "CDC off"
            key = (t.keyspace_name, t.table_name)
            cdc += f" (+ {imported[key]:,} imported, replayed by its consumer tables)" if key in imported else ""
            if t.uses_tablets:
                cdc += f", tablets: {stream_sets.get(key, 0)} stream set(s)"
                if t.cdc_enabled and key not in stream_sets:
                    cdc += " (its writes are rejected until cdclake generations build or import --cdc-streams loads them)"
            lines.append(f"  {t.keyspace_name}.{t.table_name}: {cdc}, {t.versions} schema version(s)")
    if f"{INPUT_SCHEMA}.base_mutations" not in missing:
        loaded = spark.sql(f"select count(distinct write_id) as writes, max(write_id) as last "
                           f"from {INPUT_SCHEMA}.base_mutations").first()
        lines.append(f"writes loaded: {loaded.writes:,} (last write id {loaded.last})")
    if not missing_tables(spark, [f"{INPUT_SCHEMA}.load_refusals"]):
        refused = spark.table(f"{INPUT_SCHEMA}.load_refusals").count()
        lines.append(f"refused at load: {refused:,} statements and rows (cdc_lake.cdc_load_refusals)")
    if built:
        totals = audit_totals(spark)
        lines.append(f"writes processed: {totals['input_writes']:,} in {totals['batches']} batch(es) = "
                     f"{totals['logged_writes']:,} logged + {totals['unlogged_writes']:,} not logged + "
                     f"{totals['rejected_writes']:,} rejected; {totals['log_rows']:,} log rows")
    else:
        lines.append(NO_BUILD)
    if not {f"{INPUT_SCHEMA}.cdc_generations", f"{INPUT_SCHEMA}.cdc_generation_streams"} & missing:
        g = spark.sql(
            f"select count(*) as n, min(generation_ts_ms) as first, max(generation_ts_ms) as last, "
            f"(select count(*) from {INPUT_SCHEMA}.cdc_generation_streams) as streams "
            f"from {INPUT_SCHEMA}.cdc_generations").first()
        lines.append(f"generations: {g.n} (first {g.first} ms, last {g.last} ms), {g.streams:,} streams")
    return lines + last_command_lines(run_results)


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
    from cdclake.session.warehouse import catalog_exists
    from cdclake.settings import PROJECT_DIR, target_dir

    results_file = target_dir() / "run_results.json"
    run_results = json.loads(results_file.read_text()) if results_file.exists() else None
    if not catalog_exists(target_dir()):        # nothing was ever loaded: said without Spark
        print("\n".join([NO_INPUTS, NO_BUILD, *last_command_lines(run_results)]))
        return 0
    from cdclake.load.inputs import input_atoms
    from cdclake.session.spark import create_session, plan_for_input_size

    spark = create_session(target_dir())
    # its queries read the inputs and what builds made of them: sized as a build of them is
    plan_for_input_size(spark, input_atoms(spark, PROJECT_DIR, example=False))
    print("\n".join(status_lines(spark, run_results)))
    return 0
