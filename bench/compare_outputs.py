"""Two warehouses built from the same inputs hold the same outputs: every output table (the
`cdc_lake` marts, the log tables, the state, history and change-feed tables) compared as sorted
rows, read from each warehouse's folder (Delta where the table has a Delta log), so that a
warehouse of another commit (another checkout, another process) can be compared with this one's.

    python compare_outputs.py WAREHOUSE_A WAREHOUSE_B

A warehouse is the folder holding `spark-warehouse/` (e.g. target/bench/pipeline/warehouse of
`make bench-pipeline`, in each checkout). The per-batch ledger and audit are compared as they
are (the same batches in both). Exits 1 and names the tables that differ, or that only one holds.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from _common import BENCH_DIR
from cdclake.spark import create_session

OUTPUT_SCHEMAS = ("cdc_lake",)
OUTPUT_SUFFIXES = ("_scylla_cdc_log", "_state", "_history", "_changes")
SKIPPED_SCHEMAS = {"cdc_input", "cdc_staging", "cdc_intermediate", "cdc_input_problems", "dbt_test__audit",
                   "bench_copy", "bench_baseline"}


def output_tables(warehouse: Path) -> list[str]:
    """The output tables a warehouse's folder holds, as `schema.table`."""
    tables = []
    for schema in sorted((warehouse / "spark-warehouse").glob("*.db")):
        name = schema.name[: -len(".db")]
        if name in SKIPPED_SCHEMAS:
            continue
        for table in sorted(p for p in schema.iterdir() if p.is_dir()):
            if name in OUTPUT_SCHEMAS or table.name.endswith(OUTPUT_SUFFIXES):
                tables.append(f"{name}.{table.name}")
    return tables


def table_digest(spark, warehouse: Path, table: str) -> tuple[int, str]:
    """(rows, sha256 of the sorted rows) of a table read from its folder."""
    schema, name = table.split(".")
    folder = warehouse / "spark-warehouse" / f"{schema}.db" / name
    frame = spark.read.format("delta" if (folder / "_delta_log").is_dir() else "parquet").load(str(folder))
    columns = sorted(frame.columns)
    rows = sorted(repr([row[c] for c in columns]) for row in frame.select(*columns).toLocalIterator())
    return len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()


def main() -> None:
    first, second = (Path(arg).resolve() for arg in sys.argv[1:3])
    spark = create_session(BENCH_DIR / "compare", app_name="cdclake-compare-outputs")
    tables_a, tables_b = output_tables(first), output_tables(second)
    only = sorted(set(tables_a) ^ set(tables_b))
    differ = []
    for table in sorted(set(tables_a) & set(tables_b)):
        a, b = table_digest(spark, first, table), table_digest(spark, second, table)
        print(f"{'same' if a == b else 'DIFFERENT'}: {table} ({a[0]:,} rows{'' if a == b else f' against {b[0]:,}'})")
        if a != b:
            differ.append(table)
    for table in only:
        print(f"only in {'the first' if table in tables_a else 'the second'}: {table}")
    if differ or only or not tables_a:
        sys.exit(f"{len(differ)} tables differ, {len(only)} are in one warehouse only")
    print(f"all {len(tables_a)} output tables are the same")


if __name__ == "__main__":
    main()
