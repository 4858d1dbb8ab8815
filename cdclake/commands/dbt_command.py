"""The dbt commands on the embedded session (``cdclake build|run|test|seed|compile|docs ...``):
the log models written first, a build's unchanged inputs left out, each table's row count as it
finishes, and a summary that accounts for every write."""
from __future__ import annotations

import json
import sys

from cdclake.settings import target_dir

# dbt commands that never touch the warehouse, so need no Spark session
COMMANDS_WITHOUT_SPARK = {"clean", "deps", "init", "parse", "ls", "list", "docs serve"}
COMMANDS_WITH_SUMMARY = {"build", "run"}


BATCH_MODEL = "int_build_batch"    # the node that opens a build's batch: it runs when an input moved


SUMMARY_FILE = "cdclake_build_summary.json"    # the warehouse's totals as the last summary printed them


def print_build_summary(spark, result=None, args: list[str] = ()) -> None:
    """What a build produced: writes in and their fate, log rows per table and operation. A
    build that ran no batch (no input moved since the last one: ``result``, dbt's, has no
    BATCH_MODEL) or whose batch found no new write says so; a full refresh (``args``) says that
    it replaced the batch history. A build that ran no node at all prints the warehouse's totals
    as the last summary left them (SUMMARY_FILE), asking Spark nothing."""
    from cdclake.project.unchanged_inputs import NoNodeRan

    summary_file = target_dir() / SUMMARY_FILE
    if isinstance(result, NoNodeRan) and summary_file.exists():
        saved = json.loads(summary_file.read_text())
        print(f"\nno new writes: no input changed since the last build, no batch added ({saved['batches']} so far)")
        if saved["totals"]:
            print("\n".join(saved["totals"]))
        return
    from cdclake.session.warehouse import audit_totals, log_row_counts

    batches = spark.table("cdc_lake.cdc_write_audit").orderBy("batch_id").collect()
    batch_ran = result is None or BATCH_MODEL in {r.node.name for r in result.result.results}
    this_batch = spark.table("cdc_intermediate.int_build_batch").first().batch_id if batch_ran else None
    audits = [audit for audit in batches if audit.batch_id == this_batch]
    if this_batch is None:
        print(f"\nno new writes: no input changed since the last build, no batch added ({len(batches)} so far)")
    elif not audits:   # a build with no new writes is no batch (cdc_write_audit)
        print(f"\nno new writes: no batch added ({len(batches)} so far)")
    else:
        audit = audits[0]
        print(
            f"\nbatch {audit.batch_id}: {audit.input_writes} writes in = {audit.logged_writes} logged "
            f"+ {audit.unlogged_writes} not logged (tables without CDC) "
            f"+ {audit.rejected_writes} rejected; {audit.log_rows} log rows"
        )
        if "--full-refresh" in args:
            print("  (a full refresh: every write loaded so far in one batch, which replaces the audit's "
                  "earlier batches)")
    totals = []
    if len(batches) > 1:
        sums = audit_totals(spark)
        totals.append(
            f"all {sums['batches']} batches: {sums['input_writes']} writes in = {sums['logged_writes']} logged "
            f"+ {sums['unlogged_writes']} not logged + {sums['rejected_writes']} rejected; "
            f"{sums['log_rows']} log rows"
        )
    for (keyspace, table), ops in sorted(log_row_counts(spark).items()):
        detail = ", ".join(f"op {op}: {n}" for op, n in sorted(ops.items()))
        totals.append(f"  {keyspace}.{table}_scylla_cdc_log: {sum(ops.values())} rows ({detail})")
    for r in spark.sql(
        "select reason, count(*) as n from cdc_lake.cdc_rejected_writes group by reason order by reason"
    ).collect():
        totals.append(f"  rejected ({r.reason}): {r.n}")
    if spark.catalog.tableExists("cdc_lake.cdc_load_refusals"):
        refused = spark.table("cdc_lake.cdc_load_refusals").count()
        if refused:
            totals.append(f"  refused at load: {refused} (cdc_lake.cdc_load_refusals; they never reached the inputs)")
    if totals:
        print("\n".join(totals))
    summary_file.write_text(json.dumps({"batches": len(batches), "totals": totals}))
    if this_batch is None:          # no batch ran: the streams below would be the last batch's
        return
    used = spark.sql(
        "select groups.generation_ts_ms, count(distinct groups.stream_id) as streams_used, "
        "max(generation.streams) as streams "
        "from cdc_intermediate.int_batch_atoms as groups "
        "inner join (select generation_ts_ms, count(*) as streams from cdc_staging.stg_cdc_input__generation_streams "
        "group by 1) as generation on groups.generation_ts_ms = generation.generation_ts_ms "
        "where not groups.uses_tablets group by 1 order by 1"
    ).collect()
    for r in used:
        print(f"  generation {r.generation_ts_ms} ms: {r.streams_used} of its {r.streams} streams used")
    used = spark.sql(
        "select groups.keyspace_name, groups.table_name, groups.generation_ts_ms, "
        "count(distinct groups.stream_id) as streams_used, max(sets.streams) as streams "
        "from cdc_intermediate.int_batch_atoms as groups "
        "inner join (select keyspace_name, table_name, set_ts_ms, count(*) as streams "
        "from cdc_staging.stg_cdc_input__tablet_streams group by 1, 2, 3) as sets "
        "on groups.keyspace_name = sets.keyspace_name and groups.table_name = sets.table_name "
        "and groups.generation_ts_ms = sets.set_ts_ms "
        "where groups.uses_tablets group by 1, 2, 3 order by 1, 2, 3"
    ).collect()
    for r in used:
        print(f"  {r.keyspace_name}.{r.table_name} stream set {r.generation_ts_ms} ms: "
              f"{r.streams_used} of its {r.streams} streams used")


def dbt_command(args: list[str]) -> str:
    """The dbt command of ``args``: its first word, or two for ``docs generate|serve``."""
    if not args:
        return ""
    if args[0] == "docs" and len(args) > 1 and not args[1].startswith("-"):
        return f"docs {args[1]}"
    return args[0]


def prepare_inputs(spark, project_dir, command: str, *, example: bool) -> str | None:
    """Before dbt parses: the log models of the schemas the build reads (log_models.py). A build
    or run needs inputs: without them (nor the example chosen), the reason to stop."""
    from cdclake.load.inputs import missing_inputs
    from cdclake.project.log_models import write_log_models_for_inputs

    write_log_models_for_inputs(spark, project_dir, example=example)
    if command not in COMMANDS_WITH_SUMMARY or example:
        return None
    missing = missing_inputs(spark)
    return missing_inputs_problem(missing) if missing else None


def missing_inputs_problem(missing: list[str]) -> str:
    return (f"the warehouse has no {', '.join(missing)}: load your keyspace (cdclake load schema|cql|snapshot, "
            "cdclake generations build|import), or the example keyspace (cdclake load example)")


def nothing_to_build(args: list[str]) -> bool:
    """Whether a build of a local warehouse would run no node (unchanged_inputs.nothing_to_run),
    asked before its JVM starts: then none starts (the example's build with no input moved took
    6.3 s with a session, 1.2 s without). Holds the warehouse as a session would; not after a run that did
    not end well (the session tidies after it)."""
    from cdclake.project import dbt, unchanged_inputs
    from cdclake.session import target_lock
    from cdclake.session.spark import choose_table_format, delta_jar, local_warehouse_dir

    warehouse = local_warehouse_dir(target_dir())
    if warehouse is None or not (target_dir() / SUMMARY_FILE).exists():
        return False
    target_lock.hold(target_dir())
    if not target_lock.last_run_finished(target_dir(), forget=False):
        return False
    choose_table_format(delta_jar())          # the environment dbt would see, as the record does
    project_dir = dbt.project_dir_of(args)
    dbt.prepare_environment(project_dir)
    return unchanged_inputs.nothing_to_run(args, project_dir, warehouse)


def run_dbt(args: list[str]) -> int:
    """Run a dbt command in this process on the session it needs; its exit status."""
    from cdclake.project import dbt, unchanged_inputs

    args = dbt.with_batch_exclusion(args)      # a user's selection adds to the default selector's
    command = dbt_command(args)
    if "--help" in args or "-h" in args:          # dbt's help: no session, no inputs, no project
        from dbt.cli.main import dbtRunner

        return 0 if dbtRunner().invoke(args).success else 1
    spark = None
    target = dbt.target_name(args)
    example = str(dbt.cli_vars(args).get("cdc_example", False)).lower() == "true"
    if command in COMMANDS_WITH_SUMMARY and target == dbt.EMBEDDED_TARGET and not example:
        from cdclake.load.inputs import INPUT_SCHEMA, INPUT_TABLES
        from cdclake.session.warehouse import catalog_exists

        if not catalog_exists(target_dir()):        # nothing was ever loaded: said without Spark
            print(f"error: {missing_inputs_problem([f'{INPUT_SCHEMA}.{t}' for t in INPUT_TABLES])}", file=sys.stderr)
            return 2
    if command == "build" and target == dbt.EMBEDDED_TARGET and not example and nothing_to_build(args):
        print_build_summary(None, unchanged_inputs.NoNodeRan(), args)
        return 0
    atoms = None
    if command not in COMMANDS_WITHOUT_SPARK and target == dbt.EMBEDDED_TARGET:
        from cdclake.load.inputs import example_input_atoms, local_input_atoms
        from cdclake.session.spark import create_session, is_small_input, local_warehouse_dir

        # the inputs' size from their files, before the JVM starts: it is started for it
        warehouse = local_warehouse_dir(target_dir())
        atoms = example_input_atoms(dbt.project_dir_of(args)) if example else \
            local_input_atoms(warehouse) if warehouse is not None else None
        spark = create_session(target_dir(), small_data=atoms is not None and is_small_input(atoms))
    elif command not in COMMANDS_WITHOUT_SPARK and target == "thrift":  # `cdclake serve` owns the session
        from cdclake.session.thrift import adopt_server_table_format

        adopt_server_table_format()
    if spark is not None:
        problem = prepare_inputs(spark, dbt.project_dir_of(args), command, example=example)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
        from cdclake.load.inputs import input_atoms
        from cdclake.session.spark import plan_for_input_size

        plan_for_input_size(spark, atoms if atoms is not None else
                            input_atoms(spark, dbt.project_dir_of(args), example=example))
    # a build on the embedded session leaves out the nodes whose inputs have not changed
    project_dir = dbt.project_dir_of(args)
    if spark is not None and command in COMMANDS_WITH_SUMMARY:
        from cdclake.project.progress import ModelRowCounts, spark_row_counter

        with ModelRowCounts(spark_row_counter(spark)) as row_counts:
            result = unchanged_inputs.invoke(args, project_dir, callbacks=[row_counts])
    else:
        result = unchanged_inputs.invoke(args, project_dir)
    if result.success and spark is not None and command in COMMANDS_WITH_SUMMARY:
        print_build_summary(spark, result, args)
    if not result.success and spark is not None:
        from cdclake.project.input_problems import print_input_problems

        print_input_problems(spark, result, sys.stderr)
    return 0 if result.success else 1


def run(args) -> int:
    """The dbt command of a parsed command line, with its arguments as given (dbt parses them)."""
    return run_dbt([args.command, *args.dbt_args])
