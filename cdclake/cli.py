"""``cdclake``: prepares embedded Spark (session, warehouse, UDFs), then runs dbt or a replay.

    cdclake [--master URL] [--verbose] COMMAND ...
        URL: a Spark cluster's master (default CDCLAKE_SPARK_MASTER, else local[*]);
        --verbose (CDCLAKE_VERBOSE=1): Spark's warnings and cdclake's choices (table format, planning) too

    cdclake build|run|test|seed|compile|docs generate|... [dbt flags]   dbt, in this process
    cdclake docs serve [--port N] [--host H] [--no-browser]           the lineage site of target/
    cdclake report [--out PATH]        a static HTML page of the build's generations, streams, rejects
    cdclake replay SCRIPT.cql [--now US] [--step US] [--skew US] [--generations PATH] [--format jsonl|table] [--self-checks]
                   [--enable-create-table-with-compact-storage] [--row-ttl-scan-period SECONDS]
    cdclake load schema|cql|snapshot|log|example ...   your keyspace (or the example) into cdc_input (load_cli.py)
    cdclake generate                   the log/consumer table models and UDF macros, in target/generated/ (plain dbt: run it first)
    cdclake sql ["QUERY" | KS.TABLE] [--format table|jsonl]   Spark SQL over the warehouse (no argument: a shell)
    cdclake status                     what the warehouse holds: tables, schema versions, writes, generations, builds
    cdclake generations build HISTORY.yml | import --descriptions V2.csv ...   [--csv DIR]
    cdclake serve [--host 127.0.0.1] [--port 10000]   a Spark Thrift server on the warehouse, UDFs set up
    cdclake check [--docs-dir DIR] [--only DATASET]   Great Expectations suite on the build's outputs (after a build)
"""
from __future__ import annotations

import argparse
import logging
import os
import sys

from cdclake.paths import target_dir

log = logging.getLogger("cdclake")

# dbt commands that never touch the warehouse, so need no Spark session
COMMANDS_WITHOUT_SPARK = {"clean", "deps", "init", "parse", "ls", "list", "docs serve"}
COMMANDS_WITH_SUMMARY = {"build", "run"}


def _setup_logging() -> None:
    """cdclake's own messages on stderr (its choices too when --verbose); other libraries'
    loggers (py4j, ...) stay quiet. Output that is not a terminal gets no colour codes from dbt."""
    from cdclake.spark import verbose

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("cdclake: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG if verbose() else logging.INFO)
    log.propagate = False
    if not sys.stdout.isatty():
        os.environ.setdefault("DBT_USE_COLORS", "false")


BATCH_MODEL = "int_build_batch"    # the node that opens a build's batch: it runs when an input moved


def print_build_summary(spark, result=None, args: list[str] = ()) -> None:
    """What a build produced: writes in and their fate, log rows per table and operation. A
    build that ran no batch (no input moved since the last one: ``result``, dbt's, has no
    BATCH_MODEL) or whose batch found no new write says so; a full refresh (``args``) says that
    it replaced the batch history."""
    from cdclake.warehouse import audit_totals, log_row_counts

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
    if len(batches) > 1:
        totals = audit_totals(spark)
        print(
            f"all {totals['batches']} batches: {totals['input_writes']} writes in = {totals['logged_writes']} logged "
            f"+ {totals['unlogged_writes']} not logged + {totals['rejected_writes']} rejected; "
            f"{totals['log_rows']} log rows"
        )
    for (keyspace, table), ops in sorted(log_row_counts(spark).items()):
        detail = ", ".join(f"op {op}: {n}" for op, n in sorted(ops.items()))
        print(f"  {keyspace}.{table}_scylla_cdc_log: {sum(ops.values())} rows ({detail})")
    for r in spark.sql(
        "select reason, count(*) as n from cdc_lake.cdc_rejected_writes group by reason order by reason"
    ).collect():
        print(f"  rejected ({r.reason}): {r.n}")
    if spark.catalog.tableExists("cdc_lake.cdc_load_refusals"):
        refused = spark.table("cdc_lake.cdc_load_refusals").count()
        if refused:
            print(f"  refused at load: {refused} (cdc_lake.cdc_load_refusals; they never reached the inputs)")
    used = spark.sql(
        "select groups.generation_ts_ms, count(distinct groups.stream_id) as streams_used, "
        "max(generation.streams) as streams "
        "from cdc_intermediate.int_batch_atoms as groups "
        "inner join (select generation_ts_ms, count(*) as streams from cdc_staging.stg_cdc_input__generation_streams "
        "group by 1) as generation on groups.generation_ts_ms = generation.generation_ts_ms "
        "group by 1 order by 1"
    ).collect()
    for r in used:
        print(f"  generation {r.generation_ts_ms} ms: {r.streams_used} of its {r.streams} streams used")


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
    from cdclake.inputs import missing_inputs
    from cdclake.log_models import write_log_models_for_inputs

    write_log_models_for_inputs(spark, project_dir, example=example)
    if command not in COMMANDS_WITH_SUMMARY or example:
        return None
    missing = missing_inputs(spark)
    if not missing:
        return None
    return (f"the warehouse has no {', '.join(missing)}: load your keyspace (cdclake load schema|cql|snapshot, "
            "cdclake generations build|import), or the example keyspace (cdclake load example)")


def run_dbt(args: list[str]) -> int:
    from cdclake import dbt

    command = dbt_command(args)
    spark = None
    target = dbt.target_name(args)
    if command not in COMMANDS_WITHOUT_SPARK and target == dbt.EMBEDDED_TARGET:
        from cdclake.spark import create_session

        spark = create_session(target_dir())
    elif command not in COMMANDS_WITHOUT_SPARK and target == "thrift":  # `cdclake serve` owns the session
        from cdclake.serve import adopt_server_table_format

        adopt_server_table_format()
    if spark is not None:
        example = str(dbt.cli_vars(args).get("cdc_example", False)).lower() == "true"
        problem = prepare_inputs(spark, dbt.project_dir_of(args), command, example=example)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
        from cdclake.inputs import input_atoms
        from cdclake.spark import plan_for_input_size

        plan_for_input_size(spark, input_atoms(spark, dbt.project_dir_of(args), example=example))
    if spark is not None and command in COMMANDS_WITH_SUMMARY:
        from cdclake.progress import ModelRowCounts, spark_row_counter

        with ModelRowCounts(spark_row_counter(spark)) as row_counts:
            result = dbt.invoke_result(args, callbacks=[row_counts])
    else:
        result = dbt.invoke_result(args)
    if result.success and spark is not None and command in COMMANDS_WITH_SUMMARY:
        print_build_summary(spark, result, args)
    if not result.success and spark is not None:
        from cdclake.input_problems import print_input_problems

        print_input_problems(spark, result, sys.stderr)
    return 0 if result.success else 1


def replay_main(argv: list[str]) -> int:
    """``cdclake replay``: the CQL front door answers first (a syntax error, the statements
    ScyllaDB would refuse), before Spark starts; a script that writes nothing to a table builds nothing."""
    from cdclake import output
    from cdclake.cql.errors import CqlError
    from cdclake.cql.interpreter import run_statements
    from cdclake.cql.parser import parse_script
    from cdclake.replay import now_micros, replay_records

    parser = argparse.ArgumentParser(prog="cdclake replay", description="Replay a CQL script into CDC log rows.")
    parser.add_argument("script", help="CQL script file ('-' for standard input)")
    parser.add_argument("--now", type=int, default=None,
                        help="client clock start, microseconds since the epoch (default: now)")
    parser.add_argument("--step", type=int, default=1000, help="client clock step per statement, µs (default 1000)")
    parser.add_argument("--skew", type=int, default=0, help="coordinator clock minus client clock, µs (default 0)")
    parser.add_argument("--generations", default=None,
                        help="a cluster history (.yml) or a folder with cdc_generations.csv and "
                             "cdc_generation_streams.csv (default: one node, 256 vnodes, 2 shards, "
                             "ignore_msb 12, started an hour before --now)")
    parser.add_argument("--schema-from-warehouse", action="store_true",
                        help="start from the schemas loaded into the warehouse (cdclake load schema|cql; "
                             "each table's latest version), so that a script of writes alone replays; "
                             "without it a replay knows only the schemas its script creates")
    parser.add_argument("--format", choices=["jsonl", "table"], default="table")
    parser.add_argument("--self-checks", action="store_true",
                        help="build the whole project with every data test (the log replayed back "
                             "to the base state, the audit's sums), as cdclake build does; by "
                             "default only the tables a replay prints and the input checks")
    parser.add_argument("--enable-create-table-with-compact-storage", action="store_true",
                        help="ScyllaDB's option of that name: allow CREATE TABLE ... WITH COMPACT STORAGE")
    parser.add_argument("--row-ttl-scan-period", type=float, default=86400.0, metavar="SECONDS",
                        help="how often the per-row TTL expiration service scans (ScyllaDB's "
                             "alternator_ttl_period_in_seconds, default 86400)")
    args = parser.parse_args(argv)

    text = sys.stdin.read() if args.script == "-" else open(args.script, encoding="utf-8").read()
    now_us = now_micros() if args.now is None else args.now
    try:
        statements = parse_script(text)
        existing = {}
        if args.schema_from_warehouse:
            existing["schema_preamble"] = warehouse_schema_ddl()
            if not existing["schema_preamble"]:
                print("error: the warehouse holds no schema: load it first (cdclake load schema FILE.cql)",
                      file=sys.stderr)
                return 2
        script = run_statements(statements, now_us=now_us, step_us=args.step, skew_us=args.skew,
                                enable_compact_storage=args.enable_create_table_with_compact_storage,
                                row_ttl_scan_period_s=args.row_ttl_scan_period, **existing)
    except CqlError as e:  # a syntax error, or a construct the front door does not support yet
        print(f"{args.script}: {e}", file=sys.stderr)
        return 2

    for outcome in sorted(script.descriptions + script.conditional_results, key=lambda o: o.index):
        print(outcome, file=sys.stderr)
    for error in script.errors:
        print(f"error: {error}", file=sys.stderr)
    if not script.atoms and not script.final_tables():
        return 1 if script.errors else 0          # nothing to log: no build
    sys.stderr.flush()
    result = replay_records(script, now_us=now_us, generations=args.generations, self_checks=args.self_checks)
    for w in result.rejected_writes:
        print(
            f"rejected write {w['write_id']} ({w['keyspace_name']}.{w['table_name']} "
            f"partition {w['partition_key']}): {w['error_class']}: {w['error_text']}",
            file=sys.stderr,
        )
    if args.format == "jsonl":
        for line in output.jsonl_lines(result.log_rows):
            print(line)
    else:
        for table, columns in result.log_columns.items():
            rows = [r for r in result.log_rows if r["table"] == table]
            print(output.table_text(table, output.log_select_order(columns), rows))
    if not result.dbt_succeeded:
        for problem in result.input_problems:
            print(f"error: {problem}", file=sys.stderr)
        print("error: the dbt build failed (see the messages above)", file=sys.stderr)
        return 1
    return 1 if script.errors else 0


def warehouse_schema_ddl() -> str:
    """The DDL of the schemas loaded into the target folder's warehouse (``cdclake replay
    --schema-from-warehouse``), read by the replay's own session: empty when it holds none."""
    from cdclake.paths import target_dir
    from cdclake.replay import replay_session, warehouse_schema
    from cdclake.schema_ddl import schema_ddl

    tables, columns, types = warehouse_schema(replay_session(target_dir() / "replay"))
    return schema_ddl(tables, columns, types) if tables else ""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    while argv and argv[0] in ("--verbose", "-v", "--master") or argv and argv[0].startswith("--master="):
        if argv[0] in ("--verbose", "-v"):
            os.environ["CDCLAKE_VERBOSE"] = "1"
            argv = argv[1:]
            continue
        if argv[0].startswith("--master="):      # cdclake --master spark://host:7077 build ...
            argv = ["--master", argv[0].split("=", 1)[1]] + argv[1:]
        if len(argv) < 3:
            print("error: cdclake --master URL COMMAND ...", file=sys.stderr)
            return 2
        os.environ["CDCLAKE_SPARK_MASTER"] = argv[1]
        argv = argv[2:]
    _setup_logging()
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    from cdclake.spark import JavaMissingError
    from cdclake.target_lock import TargetInUseError

    try:
        if argv[0] == "replay":
            return replay_main(argv[1:])
        if argv[0] == "serve":
            from cdclake.serve import serve_main

            return serve_main(argv[1:])
        if argv[0] == "report":
            from cdclake.report import main as report_main

            return report_main(argv[1:])
        if argv[0] == "load":
            from cdclake.load_cli import main as load_main

            return load_main(argv[1:])
        if argv[0] == "generate":
            from cdclake.generated import main as generate_main

            return generate_main(argv[1:])
        if argv[0] == "sql":
            from cdclake.sql_shell import main as sql_main

            return sql_main(argv[1:])
        if argv[0] == "status":
            from cdclake.status import main as status_main

            return status_main(argv[1:])
        if argv[0] == "generations":
            from cdclake.generations_cli import main as generations_main

            return generations_main(argv[1:])
        if argv[0] == "check":
            from cdclake.check import main as check_main

            return check_main(argv[1:])
        return run_dbt(argv)
    except JavaMissingError as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    except TargetInUseError as e:
        print(f"error: {e}", file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
