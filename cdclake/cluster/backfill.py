"""Backfill a live cluster's table into the log: its rows read with the connector, with
``writetime(c)`` and ``ttl(c)`` of each column that has them (the connector's Spark SQL
extensions), turned into the writes ``cdclake load snapshot`` makes of an export of the same rows
(``snapshot_load.values_load``): at the backfill time, or at the original write times.

A non-frozen collection or user type has no single write time or TTL (ScyllaDB refuses
``writetime()`` and ``ttl()`` of one): it is written at the backfill time with no TTL clause (the
table's default TTL applies), also when the other columns keep their original write times, as a
column of an export without its ``writetime(c)`` is (docs/limits.md). The rows reach the driver a
chunk at a time: each write goes through the CQL front door there, as a snapshot load's writes do.
"""
from __future__ import annotations

from typing import Iterator

from cdclake.cluster.connection import CATALOG
from cdclake.cluster.spark_values import model_value
from cdclake.cql.describe import maybe_quote
from cdclake.cql.types import is_collection
from cdclake.cql.values import value_literal
from cdclake.load.refusals import Refusal
from cdclake.logschema import keyspace_user_types

def base_rows(spark, table, types: list, chunk_rows: int) -> Iterator[tuple[list[tuple[str, dict]], list[Refusal]]]:
    """The rows of the catalog table ``table`` (cdclake.cql's), ``chunk_rows`` at a time, each
    (where, {column: {'literal', 'value', 'writetime', 'ttl'}}) as ``table_export.row_values``
    gives an export's row (``row_entries``), with the rows whose values cannot be read (refused,
    named by their key)."""
    columns = table.partition_key + table.clustering + table.static + table.regular
    timed = [c for c in table.static + table.regular if not c.type.is_multi_cell]
    select = [maybe_quote(c.name) for c in columns]
    select += [f"{function}({maybe_quote(c.name)})" for c in timed for function in ("writetime", "ttl")]
    query = (f"select {', '.join(_spark_name(text) for text in select)} "
             f"from {CATALOG}.{_spark_name(table.keyspace)}.{_spark_name(table.name)}")
    udts = keyspace_user_types(types, table.keyspace)
    where = f"{table.keyspace}.{table.name}"
    chunk, refused = [], []
    for number, row in enumerate(spark.sql(query).toLocalIterator(), 1):
        try:
            chunk.append((f"{where} row {number}", row_entries(row, columns, timed, udts)))
        except (TypeError, ValueError, KeyError) as error:
            key = ", ".join(f"{c.name} = {value!r}" for c, value in zip(columns, row) if c.is_primary_key)
            refused.append(Refusal(f"{where} row {number}", f"key ({key}): a value cannot be read ({error})"))
        if len(chunk) + len(refused) >= chunk_rows:
            yield chunk, refused
            chunk, refused = [], []
    if chunk or refused:
        yield chunk, refused


def row_entries(row, columns, timed, udts) -> dict[str, dict]:
    """One connector row (the columns, then ``writetime`` and ``ttl`` of each of ``timed``) as
    {column: {'literal', 'value', 'writetime', 'ttl'}}: a null column has no literal, a cell read
    without TTL has ``ttl`` 0. The connector reads a null collection as an empty one: an empty
    frozen collection is a value only when it has a write time (a non-frozen one is never empty)."""
    values = {}
    for column, value in zip(columns, row):
        model = model_value(value, column.type.cql_text(), udts)
        values[column.name] = {} if model is None else {"literal": value_literal(model, column.type), "value": model}
    for index, column in enumerate(timed):
        written, ttl = row[len(columns) + 2 * index], row[len(columns) + 2 * index + 1]
        entry = values[column.name]
        if written is not None:
            entry["writetime"] = int(written)
        entry["ttl"] = 0 if ttl is None else int(ttl)
    for column in columns:
        entry = values[column.name]
        if not column.is_primary_key and is_collection(column.type) and _empty(entry.get("value")) \
                and "writetime" not in entry:
            entry.pop("literal", None)
            entry.pop("value", None)
    return values


def _empty(model) -> bool:
    """A collection's JSON-model value with no element."""
    return isinstance(model, dict) and any(model.get(kind) == [] for kind in ("list", "set", "map"))


def _spark_name(text: str) -> str:
    """A CQL name or call in Spark SQL: quoted names in backticks."""
    return text.replace('"', "`")
