"""The CQL that recreates a warehouse's base-table schemas (their latest versions) in the front
door: CREATE KEYSPACE, CREATE TYPE (nested types first), CREATE TABLE with the columns, keys,
clustering order, static and per-row TTL columns, ``default_time_to_live`` and ``cdc`` options
of the ``cdc_input`` schema records. ``cdclake load cql`` runs it before the user's script, so
the script's statements meet the tables loaded earlier."""
from __future__ import annotations

import re
from typing import Iterable

from cdclake.cql.describe import cdc_property_text, column_definition, create_statement, maybe_quote
from cdclake.load.schema_records import BaseColumn, BaseTable, BaseTypeField, latest_versions

KIND_ORDER = {"partition_key": 0, "clustering": 1, "static": 2, "regular": 3}
# the replication of a recreated keyspace: the front door models none of it
KEYSPACE_REPLICATION = "{'class': 'NetworkTopologyStrategy', 'replication_factor': 1}"


def schema_ddl(tables: Iterable[BaseTable], columns: Iterable[BaseColumn], types: Iterable[BaseTypeField]) -> str:
    tables = latest_versions(tables)
    versions = {(t.keyspace_name, t.table_name): t.schema_version for t in tables}
    columns_of: dict[tuple[str, str], list[BaseColumn]] = {}
    for column in columns:
        if versions.get((column.keyspace_name, column.table_name)) == column.schema_version:
            columns_of.setdefault((column.keyspace_name, column.table_name), []).append(column)
    fields_of: dict[tuple[str, str], list[BaseTypeField]] = {}
    for field in types:
        fields_of.setdefault((field.keyspace_name, field.type_name), []).append(field)

    keyspaces = sorted({t.keyspace_name for t in tables} | {keyspace for keyspace, _ in fields_of})
    statements = [create_keyspace(k, [t for t in tables if t.keyspace_name == k]) for k in keyspaces]
    statements += [create_type(keyspace, name, fields_of[(keyspace, name)])
                   for keyspace, name in types_in_dependency_order(fields_of)]
    statements += [create_table(t, columns_of.get((t.keyspace_name, t.table_name), [])) for t in tables]
    return "\n".join(statements) + "\n"


def create_keyspace(keyspace: str, tables: list[BaseTable]) -> str:
    """A keyspace of tablets tables uses tablets, with their replication factor (their tablet
    counts are the tables' own options)."""
    tablets = [t for t in tables if t.uses_tablets]
    if not tablets:
        return f"CREATE KEYSPACE {maybe_quote(keyspace)} WITH replication = {KEYSPACE_REPLICATION};"
    factor = max(t.replication_factor or 1 for t in tablets)
    return (f"CREATE KEYSPACE {maybe_quote(keyspace)} WITH replication = {{'class': 'NetworkTopologyStrategy', "
            f"'replication_factor': {factor}}} AND tablets = {{'enabled': true}};")


def types_in_dependency_order(fields_of: dict[tuple[str, str], list[BaseTypeField]]) -> list[tuple[str, str]]:
    """User types, each after the types its fields use (a type can only use types created before it)."""
    ordered: list[tuple[str, str]] = []
    pending = sorted(fields_of)
    while pending:
        ready = [key for key in pending
                 if not any(other != key and other not in ordered and _uses(field.field_type, other[1])
                            for field in fields_of[key] for other in pending if other[0] == key[0])]
        if not ready:      # a cycle cannot be created in CQL; keep the rest in name order
            ready = pending[:1]
        ordered += ready
        pending = [key for key in pending if key not in ready]
    return ordered


def _uses(type_text: str, type_name: str) -> bool:
    return re.search(rf"(?<![\w\"]){re.escape(type_name)}(?![\w\"])", type_text) is not None


def create_type(keyspace: str, name: str, fields: list[BaseTypeField]) -> str:
    body = ", ".join(f"{maybe_quote(f.field_name)} {f.field_type}" for f in sorted(fields, key=lambda f: f.field_position))
    return f"CREATE TYPE {maybe_quote(keyspace)}.{maybe_quote(name)} ({body});"


def create_table(table: BaseTable, columns: list[BaseColumn]) -> str:
    columns = sorted(columns, key=lambda c: (KIND_ORDER[c.kind], c.position))
    return create_statement(
        f"{maybe_quote(table.keyspace_name)}.{maybe_quote(table.table_name)}",
        [column_definition(c.column_name, c.cql_type, c.kind, c.column_name == table.ttl_column) for c in columns],
        [maybe_quote(c.column_name) for c in columns if c.kind == "partition_key"],
        [(maybe_quote(c.column_name), "DESC" if c.clustering_order == "desc" else "ASC")
         for c in columns if c.kind == "clustering"],
        [f"default_time_to_live = {table.default_time_to_live}", cdc_option(table)]
        + ([f"tablets = {{'min_tablet_count': '{table.tablet_count}'}}"] if table.tablet_count else []))


def cdc_option(table: BaseTable) -> str:
    return cdc_property_text({
        "enabled": "true" if table.cdc_enabled else "false", "preimage": table.cdc_preimage,
        "postimage": "true" if table.cdc_postimage else "false", "delta": table.cdc_delta,
        "ttl": str(table.cdc_ttl_seconds),
    })
