"""``cdclake replay SCRIPT.cql``: the CQL front door, then the log a scratch warehouse builds."""
from __future__ import annotations

import sys


def configure(parser) -> None:
    parser.description = "Replay a CQL script into CDC log rows."
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


def run(args) -> int:
    """``cdclake replay``: the CQL front door answers first (a syntax error, the statements
    ScyllaDB would refuse), before Spark starts; a script that writes nothing to a table builds nothing."""
    from cdclake import output
    from cdclake.cql.errors import CqlError
    from cdclake.cql.interpreter import run_statements
    from cdclake.cql.parser import parse_script
    from cdclake.logschema import log_select_order
    from cdclake.replay import now_micros, replay_records

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
            print(output.table_text(table, log_select_order(columns), rows))
    if not result.dbt_succeeded:
        for problem in result.input_problems:
            print(f"error: {problem}", file=sys.stderr)
        print("error: the dbt build failed (see the messages above)", file=sys.stderr)
        return 1
    return 1 if script.errors else 0


def warehouse_schema_ddl() -> str:
    """The DDL of the schemas loaded into the target folder's warehouse (``cdclake replay
    --schema-from-warehouse``), read by the replay's own session: empty when it holds none."""
    from cdclake.load.schema_ddl import schema_ddl
    from cdclake.replay import replay_session, warehouse_schema
    from cdclake.settings import target_dir

    tables, columns, types = warehouse_schema(replay_session(target_dir() / "replay"))
    return schema_ddl(tables, columns, types) if tables else ""
