"""What a build left in the warehouse, for the commands that read it afterwards."""
from __future__ import annotations

from typing import Iterable


def missing_tables(spark, tables: Iterable[str]) -> list[str]:
    """The tables (schema.name) not in the catalog: one listing per schema."""
    tables = list(tables)
    present = set()
    for schema in sorted({t.split(".")[0] for t in tables}):
        if spark.catalog.databaseExists(schema):
            present |= {f"{schema}.{r.tableName}" for r in spark.sql(f"show tables in {schema}").collect()}
    return [t for t in tables if t not in present]


AUDIT_COUNTS = ["input_writes", "accepted_writes", "logged_writes", "unlogged_writes", "rejected_writes", "log_rows"]


def audit_totals(spark) -> dict[str, int]:
    """The write audit summed over every batch (build), with the number of batches."""
    sums = ", ".join(f"coalesce(sum({c}), 0) as {c}" for c in AUDIT_COUNTS)
    return spark.sql(f"select count(*) as batches, {sums} from cdc_lake.cdc_write_audit").first().asDict()
