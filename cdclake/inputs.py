"""Write the pipeline's input tables (the ``cdc_input`` source) from Python records."""
from __future__ import annotations

from typing import Iterable

from cdclake.mutations import ATOM_COLUMNS, ATOM_SPARK_SCHEMA, Atom
from cdclake.schema_records import (
    BASE_COLUMN_COLUMNS,
    BASE_COLUMNS_SPARK_SCHEMA,
    BASE_TABLE_COLUMNS,
    BASE_TABLES_SPARK_SCHEMA,
    BASE_TYPE_COLUMNS,
    BASE_TYPES_SPARK_SCHEMA,
    BaseColumn,
    BaseTable,
    BaseTypeField,
)

INPUT_SCHEMA = "cdc_input"
GENERATIONS_SPARK_SCHEMA = "generation_ts_ms bigint"
GENERATION_STREAMS_COLUMNS = [
    "generation_ts_ms", "vnode_index", "token_range_end", "ignore_msb", "shard", "stream_id",
]
GENERATION_STREAMS_SPARK_SCHEMA = (
    "generation_ts_ms bigint, vnode_index int, token_range_end bigint, ignore_msb int, "
    "shard int, stream_id string"
)


def _save(spark, name: str, rows: list[tuple], schema: str, table_format: str) -> None:
    spark.sql(f"create database if not exists {INPUT_SCHEMA}")
    frame = spark.createDataFrame(rows, schema=schema)
    frame.write.mode("overwrite").format(table_format).saveAsTable(f"{INPUT_SCHEMA}.{name}")


def write_inputs(
    spark,
    *,
    atoms: Iterable[Atom],
    tables: Iterable[BaseTable],
    columns: Iterable[BaseColumn],
    types: Iterable[BaseTypeField] = (),
    table_format: str = "parquet",
) -> None:
    """Overwrite the four mutation and schema input tables (generation_tables loads the others)."""
    def rows(records, names):
        return [tuple(r.as_row()[n] for n in names) for r in records]

    _save(spark, "base_mutations", rows(atoms, ATOM_COLUMNS), ATOM_SPARK_SCHEMA, table_format)
    _save(spark, "base_tables", rows(tables, BASE_TABLE_COLUMNS), BASE_TABLES_SPARK_SCHEMA, table_format)
    _save(spark, "base_columns", rows(columns, BASE_COLUMN_COLUMNS), BASE_COLUMNS_SPARK_SCHEMA, table_format)
    _save(spark, "base_types", rows(types, BASE_TYPE_COLUMNS), BASE_TYPES_SPARK_SCHEMA, table_format)
