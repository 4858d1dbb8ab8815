"""Two warehouses built from the same inputs hold the same outputs: every output table (the
`cdc_lake` marts, the log tables, the state, history and change-feed tables; tables or views)
compared as sorted rows, each warehouse read through its own metastore in a process of its own,
so that a warehouse of another commit (another checkout, where a mart may be a table and not a
view) can be compared with this one's.

    python compare_outputs.py WAREHOUSE_A WAREHOUSE_B

A warehouse is the folder holding `spark-warehouse/` and its metastore (e.g.
target/bench/pipeline/warehouse/target of `make bench-pipeline`, in each checkout). The
per-batch ledger and audit are compared as they are (the same batches in both). Exits 1 and
names the tables that differ, or that only one holds.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

OUTPUT_SCHEMAS = ("cdc_lake",)
OUTPUT_SUFFIXES = ("_scylla_cdc_log", "_state", "_history", "_changes")
SKIPPED_SCHEMAS = {"cdc_input", "cdc_staging", "cdc_intermediate", "cdc_input_problems", "dbt_test__audit",
                   "bench_copy", "bench_baseline", "default"}


def digests(warehouse: Path) -> dict[str, list]:
    """{schema.table: [rows, sha256 of the sorted rows]} of every output table or view of the
    warehouse (run in a process of its own: a Derby metastore takes one process at a time)."""
    from cdclake.session.spark import create_session

    spark = create_session(warehouse, app_name="cdclake-compare-outputs")
    found = {}
    for schema in sorted(r[0] for r in spark.sql("show schemas").collect()):
        if schema in SKIPPED_SCHEMAS:
            continue
        for row in spark.sql(f"show tables in `{schema}`").collect():
            if row.isTemporary or not (schema in OUTPUT_SCHEMAS or row.tableName.endswith(OUTPUT_SUFFIXES)):
                continue
            frame = spark.table(f"`{schema}`.`{row.tableName}`")
            columns = sorted(frame.columns)
            rows = sorted(repr([r[c] for c in columns]) for r in frame.select(*columns).toLocalIterator())
            found[f"{schema}.{row.tableName}"] = [len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()]
    return found


def digests_in_process(warehouse: Path) -> dict[str, list]:
    done = subprocess.run([sys.executable, __file__, "--digests", str(warehouse)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"reading {warehouse} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    if sys.argv[1] == "--digests":
        print(json.dumps(digests(Path(sys.argv[2]).resolve())))
        return
    first, second = (digests_in_process(Path(arg).resolve()) for arg in sys.argv[1:3])
    only = sorted(set(first) ^ set(second))
    differ = []
    for table in sorted(set(first) & set(second)):
        a, b = first[table], second[table]
        print(f"{'same' if a == b else 'DIFFERENT'}: {table} ({a[0]:,} rows{'' if a == b else f' against {b[0]:,}'})")
        if a != b:
            differ.append(table)
    for table in only:
        print(f"only in {'the first' if table in first else 'the second'}: {table}")
    if differ or only or not first:
        sys.exit(f"{len(differ)} tables differ, {len(only)} are in one warehouse only")
    print(f"all {len(first)} output tables are the same")


if __name__ == "__main__":
    main()
