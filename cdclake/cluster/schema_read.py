"""A cluster's schema as ``cdclake load schema`` takes it: the CQL DESCRIBE would print, written
from the schema tables the connector reads.

    system_schema.keyspaces          keyspace_name, durable_writes, replication
    system_schema.types              keyspace_name, type_name, field_names, field_types
    system_schema.tables             keyspace_name, table_name, default_time_to_live, flags
    system_schema.columns            keyspace_name, table_name, column_name, kind, position, type,
                                     clustering_order
    system_schema.scylla_tables      keyspace_name, table_name, cdc, tablets (ScyllaDB's own: the
                                     CDC and tablet options of a table)
    system_schema.scylla_keyspaces   keyspace_name, initial_tablets (ScyllaDB 6.0+: set when the
                                     keyspace uses tablets)

The two ``scylla_`` tables are read where the ``--scylla-tables`` option says (a Cassandra server
has none, and refuses new tables in ``system_schema``); a keyspace without them has no CDC table.
A table with the flag set of a COMPACT STORAGE table (``dense``, or without ``compound``) is
declared WITH COMPACT STORAGE.
"""
from __future__ import annotations

import re

from cdclake.cql.describe import column_definition, create_statement, maybe_quote

KINDS = {"partition_key": 0, "clustering": 1, "static": 2, "regular": 3}


def _options(mapping) -> str:
    return "{" + ", ".join(f"'{key}': '{value}'" for key, value in sorted((mapping or {}).items())) + "}"


def keyspace_statement(keyspace: dict, scylla_keyspace: dict | None) -> str:
    text = (f"CREATE KEYSPACE {maybe_quote(keyspace['keyspace_name'])} WITH replication = "
            f"{_options(keyspace['replication'])} AND durable_writes = "
            f"{'true' if keyspace.get('durable_writes', True) else 'false'}")
    initial = (scylla_keyspace or {}).get("initial_tablets")
    if initial is not None:
        text += f" AND tablets = {{'enabled': true{'' if initial == 0 else f', {chr(39)}initial{chr(39)}: {initial}'}}}"
    return text + ";"


def type_statements(types: list[dict]) -> list[str]:
    """The keyspace's CREATE TYPE statements, each after the types its fields use."""
    pending = sorted(types, key=lambda t: t["type_name"])
    done: set[str] = set()
    statements = []
    while pending:
        ready = [t for t in pending if not any(_uses(field_type, other["type_name"])
                                              for field_type in t["field_types"] for other in pending
                                              if other is not t and other["type_name"] not in done)]
        for user_type in ready or pending[:1]:
            fields = ", ".join(f"{maybe_quote(name)} {field_type}"
                               for name, field_type in zip(user_type["field_names"], user_type["field_types"]))
            statements.append(f"CREATE TYPE {maybe_quote(user_type['keyspace_name'])}."
                              f"{maybe_quote(user_type['type_name'])} ({fields});")
            done.add(user_type["type_name"])
            pending.remove(user_type)
    return statements


def _uses(type_text: str, type_name: str) -> bool:
    return re.search(rf'(?<![\w"]){re.escape(maybe_quote(type_name))}(?![\w"])', type_text) is not None


def table_statement(table: dict, columns: list[dict], scylla_table: dict | None) -> str:
    ordered = sorted(columns, key=lambda c: (KINDS[c["kind"]], c["position"], c["column_name"]))
    definitions = [column_definition(c["column_name"], c["type"], c["kind"], False) for c in ordered]
    partition = [maybe_quote(c["column_name"]) for c in ordered if c["kind"] == "partition_key"]
    clustering = [(maybe_quote(c["column_name"]), "DESC" if c["clustering_order"] == "desc" else "ASC")
                  for c in ordered if c["kind"] == "clustering"]
    flags = set(table.get("flags") or ())
    properties = ["COMPACT STORAGE"] if flags and ("dense" in flags or "compound" not in flags) else []
    properties.append(f"default_time_to_live = {table.get('default_time_to_live') or 0}")
    scylla_table = scylla_table or {}
    if scylla_table.get("tablets"):
        properties.append(f"tablets = {_options(scylla_table['tablets'])}")
    if scylla_table.get("cdc"):
        properties.append(f"cdc = {_options(scylla_table['cdc'])}")
    return create_statement(f"{maybe_quote(table['keyspace_name'])}.{maybe_quote(table['table_name'])}",
                            definitions, partition, clustering, properties)


def describe_keyspaces(keyspaces: list[dict], types: list[dict], tables: list[dict], columns: list[dict],
                       scylla_tables: list[dict], scylla_keyspaces: list[dict]) -> str:
    """The DESCRIBE text of ``keyspaces`` from the rows (dicts) of the schema tables, theirs only;
    CDC log tables (``*_scylla_cdc_log``) are left out, as ScyllaDB makes them from their base tables."""
    def by_keyspace(rows, name):
        return [row for row in rows if row["keyspace_name"] == name]

    statements = []
    for keyspace in sorted(keyspaces, key=lambda k: k["keyspace_name"]):
        name = keyspace["keyspace_name"]
        statements.append(keyspace_statement(keyspace, next(iter(by_keyspace(scylla_keyspaces, name)), None)))
        statements += type_statements(by_keyspace(types, name))
        extra = {row["table_name"]: row for row in by_keyspace(scylla_tables, name)}
        for table in sorted(by_keyspace(tables, name), key=lambda t: t["table_name"]):
            if table["table_name"].endswith("_scylla_cdc_log"):
                continue
            own = [c for c in by_keyspace(columns, name) if c["table_name"] == table["table_name"]]
            statements.append(table_statement(table, own, extra.get(table["table_name"])))
    return "\n\n".join(statements) + "\n"
