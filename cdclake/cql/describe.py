"""``DESCRIBE TABLE`` as ScyllaDB renders it (``schema::get_create_statement``, schema/schema.cc),
for what the front door models: the column list (key columns, then static and regular columns by
name, ``STATIC``, the per-row ``TTL`` column), the primary key, the clustering order, COMPACT
STORAGE, ``default_time_to_live`` and the ``cdc`` options (``cdc::options::to_map``). ScyllaDB
also prints its other table properties (compaction, caching, ...), which the front door does
not model; they are left out.

A CDC log table is described with its columns as ScyllaDB derives them (docs/scylla/log.md §2.2):
``cdc$stream_id``, ``cdc$time``, ``cdc$batch_seq_no``, then every other column by name.
"""
from __future__ import annotations

import re
from typing import Optional

from cdclake.cql.table_schema import EMPTY, Table
from cdclake.cql.token_stream import RESERVED_KEYWORDS
from cdclake.logschema import log_column_types, log_select_order

_UNQUOTED = re.compile(r"[a-z][a-z0-9_]*\Z")


def maybe_quote(identifier: str) -> str:
    """``cql3::util::maybe_quote``: bare when ``[a-z][a-z0-9_]*`` and not a reserved keyword."""
    if _UNQUOTED.match(identifier) and identifier not in RESERVED_KEYWORDS:
        return identifier
    return '"' + identifier.replace('"', '""') + '"'


def cdc_property(table: Table) -> Optional[str]:
    """``cdc = {...}`` as DESCRIBE shows it, or None when the table has no cdc property."""
    options = table.cdc.normalised_map()
    return None if options is None else cdc_property_text(options)


def cdc_property_text(options: dict[str, str]) -> str:
    """``cdc = {'delta': 'full', ...}``: the options by name, as DESCRIBE prints them."""
    return "cdc = {" + ", ".join(f"'{key}': '{value}'" for key, value in sorted(options.items())) + "}"


def tablets_property(table: Table) -> Optional[str]:
    """``tablets = {...}`` as DESCRIBE shows it (``schema::schema_properties``: the options
    ScyllaDB keeps, by name, values quoted), after the table's other properties and before its
    extensions (``cdc``); None without options."""
    from cdclake.cql.tablets_options import table_tablet_options

    options = table_tablet_options(table.properties.get("tablets"), 0)
    if not options:
        return None
    return "tablets = {" + ", ".join(f"'{key}': '{value}'" for key, value in sorted(options.items())) + "}"


def create_statement(qualified: str, columns: list[str], partition: list[str], clustering: list[tuple[str, str]],
                      properties: list[str]) -> str:
    lines = [f"CREATE TABLE {qualified} ("] + [f"    {column}," for column in columns]
    key = ", ".join(partition)
    if len(partition) > 1:
        key = f"({key})"
    lines.append("    PRIMARY KEY (" + ", ".join([key] + [name for name, _ in clustering]) + ")")
    clauses = []
    if clustering:
        clauses.append("CLUSTERING ORDER BY (" + ", ".join(f"{name} {order}" for name, order in clustering) + ")")
    return "\n".join(lines) + "\n) WITH " + "\n    AND ".join(clauses + properties) + ";"


def column_definition(name: str, cql_type: str, kind: str, is_ttl_column: bool) -> str:
    """A column as CREATE TABLE declares it: name, type, then ``TTL`` and ``STATIC`` when they apply."""
    return (f"{maybe_quote(name)} {cql_type}" + (" TTL" if is_ttl_column else "")
            + (" STATIC" if kind == "static" else ""))


def describe_table(table: Table) -> str:
    columns = [column_definition(column.name, column.type.cql_text(), column.kind, column.name == table.ttl_column)
               for column in table.columns if column.type != EMPTY]    # not a dense table's hidden value column
    properties = (["COMPACT STORAGE"] if table.compact_storage else []) + \
        [f"default_time_to_live = {table.default_time_to_live}"]
    tablets = tablets_property(table)
    if tablets is not None:
        properties.append(tablets)
    cdc = cdc_property(table)
    if cdc is not None:
        properties.append(cdc)
    return create_statement(
        f"{maybe_quote(table.keyspace)}.{maybe_quote(table.name)}", columns,
        [maybe_quote(c.name) for c in table.partition_key],
        [(maybe_quote(c.name), "DESC" if c.clustering_order == "desc" else "ASC") for c in table.clustering],
        properties)


def describe_log_table(table: Table, user_types: dict[str, list[tuple[str, str]]]) -> str:
    """The CDC log table of ``table`` (its current columns)."""
    rows = [{"column_name": c.name, "kind": c.kind, "cql_type": c.type.cql_text()} for c in table.columns]
    types = log_column_types(rows, user_types)
    columns = [f"{maybe_quote(name)} {types[name]}" for name in log_select_order(list(types))]
    return create_statement(
        f"{maybe_quote(table.keyspace)}.{maybe_quote(table.name + '_scylla_cdc_log')}", columns,
        [maybe_quote("cdc$stream_id")], [(maybe_quote("cdc$time"), "ASC"), (maybe_quote("cdc$batch_seq_no"), "ASC")],
        ["default_time_to_live = 0"])
