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
