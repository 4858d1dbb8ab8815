"""What a build left in the warehouse, for the commands that read it afterwards."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Iterable


def catalog_exists(target: Path) -> bool:
    """Whether the catalog of cdclake's session for ``target`` exists: its Derby metastore in that
    folder (cdclake.session.spark.create_session), created when the session first starts. Without
    it no table was ever registered, every input is missing, and a command can say so without
    starting Spark."""
    return (Path(target) / "metastore_db").is_dir()


def missing_tables(spark, tables: Iterable[str]) -> list[str]:
    """The tables (schema.name) not in the catalog: one listing per schema."""
    tables = list(tables)
    present = set()
    for schema in sorted({t.split(".")[0] for t in tables}):
        if spark.catalog.databaseExists(schema):
            present |= {f"{schema}.{r.tableName}".lower() for r in spark.sql(f"show tables in {schema}").collect()}
    return [t for t in tables if t.lower() not in present]


AUDIT_COUNTS = ["input_writes", "accepted_writes", "logged_writes", "unlogged_writes", "rejected_writes", "log_rows"]


def audit_totals(spark) -> dict[str, int]:
    """The write audit summed over every batch (build), with the number of batches."""
    sums = ", ".join(f"coalesce(sum({c}), 0) as {c}" for c in AUDIT_COUNTS)
    return spark.sql(f"select count(*) as batches, {sums} from cdc_lake.cdc_write_audit").first().asDict()


def log_row_counts(spark) -> dict[tuple[str, str], Counter]:
    """Log rows per base table (keyspace, table) and ``cdc$operation``, from ``cdc_lake.cdc_log``
    (one row per log row and column cell: counted by their key)."""
    counts: dict[tuple[str, str], Counter] = {}
    for r in spark.sql(
        "select keyspace_name, table_name, `cdc$operation` as op, "
        "count(distinct `cdc$stream_id`, `cdc$time`, `cdc$batch_seq_no`) as n "
        "from cdc_lake.cdc_log group by 1, 2, 3"
    ).collect():
        counts.setdefault((r.keyspace_name, r.table_name), Counter())[r.op] = r.n
    return counts
