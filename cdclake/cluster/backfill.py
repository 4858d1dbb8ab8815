"""Backfill a live cluster's table into the log: its rows read with the connector, with
``writetime(c)`` and ``ttl(c)`` of each column that has them (the connector's Spark SQL
extensions), turned into the writes ``cdclake load snapshot`` makes of an export of the same rows
(``snapshot_load.values_load``): at the backfill time, or at the original write times.

A non-frozen collection has no single write time (CQL refuses ``writetime()`` of one): it is
written at the backfill time, also when the other columns keep their original write times, as a
column of an export without its ``writetime(c)`` is. The rows reach the driver a chunk at a time:
each write goes through the CQL front door there, as a snapshot load's writes do.
"""
from __future__ import annotations

from typing import Iterator

from cdclake.cluster.connection import CATALOG
from cdclake.cluster.spark_values import model_value
from cdclake.cql.describe import maybe_quote
from cdclake.cql.values import value_literal
from cdclake.logschema import keyspace_user_types

def base_rows(spark, table, types: list, chunk_rows: int) -> Iterator[list[tuple[str, dict]]]:
    """The rows of the catalog table ``table`` (cdclake.cql's), ``chunk_rows`` at a time, each
    (where, {column: {'literal', 'value', 'writetime', 'ttl'}}) as ``table_export.row_values``
    gives an export's row (a null column: no literal)."""
    columns = table.partition_key + table.clustering + table.static + table.regular
    timed = [c for c in table.static + table.regular if not c.type.is_multi_cell]
    select = [maybe_quote(c.name) for c in columns]
    select += [f"{function}({maybe_quote(c.name)})" for c in timed for function in ("writetime", "ttl")]
    query = (f"select {', '.join(_spark_name(text) for text in select)} "
             f"from {CATALOG}.{_spark_name(table.keyspace)}.{_spark_name(table.name)}")
    udts = keyspace_user_types(types, table.keyspace)
    where = f"{table.keyspace}.{table.name}"
    chunk = []
    for number, row in enumerate(spark.sql(query).toLocalIterator(), 1):
        values = {}
        for column, value in zip(columns, row):
            model = model_value(value, column.type.cql_text(), udts)
            values[column.name] = {} if model is None else {"literal": value_literal(model, column.type), "value": model}
        for index, column in enumerate(timed):
            written, ttl = row[len(columns) + 2 * index], row[len(columns) + 2 * index + 1]
            if written is not None:
                values[column.name]["writetime"] = int(written)
            if ttl is not None:
                values[column.name]["ttl"] = int(ttl)
        chunk.append((f"{where} row {number}", values))
        if len(chunk) >= chunk_rows:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _spark_name(text: str) -> str:
    """A CQL name or call in Spark SQL: quoted names in backticks."""
    return text.replace('"', "`")
