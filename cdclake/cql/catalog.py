"""Keyspaces, user types and tables built from DDL, with ScyllaDB's validation.

Each ``Catalog`` method applies one DDL statement: it validates everything first and changes
the catalog only when the statement is valid (nothing is half-applied). Errors carry ScyllaDB's
texts (``create_table_statement.cc``, ``alter_table_statement.cc``, ``cdc/log.cc``).

The tables themselves, their columns and what CREATE and ALTER TABLE do to them: table_schema.py.

CDC log tables are not modelled as tables: the catalog only remembers which ``<t>_scylla_cdc_log``
names are taken by a log (attached while CDC is on, detached but kept after it is turned off,
docs/scylla/log.md §1), to refuse name clashes as ScyllaDB does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Optional

from cdclake.cql import ast
from cdclake.cql import types as t
from cdclake.cql.cdc_options import CdcOptions, parse_cdc_options
from cdclake.cql.tablets_options import (
    altered_initial_tablets,
    check_tablets_strategy,
    given_tablet_count,
    initial_tablets,
    replication_factor,
    table_tablet_options,
)
from cdclake.cql.errors import (
    CqlAlreadyExistsError,
    CqlConfigurationError,
    CqlRequestError,
    CqlUnsupportedError,
)
from cdclake.cql.table_schema import (
    Column,
    Table,
    build_table,
    check_non_frozen_udt,
    parse_default_ttl,
    table_with_renamed_keys,
    table_with_ttl_column,
    table_without_columns,
)
from cdclake.load.schema_records import BaseColumn, BaseTable, BaseTypeField

CDC_LOG_SUFFIX = "_scylla_cdc_log"
NAME_LENGTH = 48
_NAME = re.compile(r"\w+\Z")


@dataclass
class Keyspace:
    name: str
    properties: dict
    tables: dict[str, Table] = field(default_factory=dict)
    user_types: dict[str, t.UserType] = field(default_factory=dict)
    cdc_log_names: set[str] = field(default_factory=set)   # names taken by (attached or detached) CDC logs
    initial_tablets: Optional[int] = None       # None: vnodes; else tablets, 0 when no count was given


class Catalog:
    def __init__(self, enable_compact_storage: bool = False, tablets_by_default: bool = False) -> None:
        self.keyspaces: dict[str, Keyspace] = {}
        # ScyllaDB's enable_create_table_with_compact_storage (off by default, db/config.cc)
        self.enable_compact_storage = enable_compact_storage
        # a keyspace without a tablets option: tablets (ScyllaDB's shipped tablets_mode_for_new_keyspaces:
        # enabled) or vnodes (releases before tablets)
        self.tablets_by_default = tablets_by_default

    # ------------------------------------------------------------------ lookups
    def keyspace(self, name: str) -> Keyspace:
        found = self.keyspaces.get(name)
        if found is None:
            raise CqlRequestError(f"Keyspace {name} does not exist")
        return found

    def table(self, keyspace: str, name: str) -> Table:
        found = self.keyspace(keyspace).tables.get(name)
        if found is None:
            if name in self.keyspaces[keyspace].cdc_log_names:
                raise CqlUnsupportedError(f"statements on CDC log table {keyspace}.{name} are not supported")
            raise CqlRequestError(f"unconfigured table {name}")
        return found

    def user_type(self, keyspace: str, name: str) -> Optional[t.UserType]:
        found = self.keyspaces.get(keyspace)
        return found.user_types.get(name) if found else None

    def resolve_type(self, expr: ast.TypeExpr, keyspace: str) -> t.CqlType:
        return t.resolve_type(expr, keyspace, self.user_type)

    # ------------------------------------------------------------------ keyspaces
    def create_keyspace(self, statement: ast.CreateKeyspace) -> None:
        _check_name(statement.keyspace, "keyspace")
        replication = statement.properties.get("replication")
        if not isinstance(replication, dict) or "class" not in replication:
            raise CqlConfigurationError("Missing mandatory replication strategy class")
        tablets = initial_tablets(statement.properties, 0 if self.tablets_by_default else None)
        check_tablets_strategy(replication, tablets)
        if statement.keyspace in self.keyspaces:
            if statement.if_not_exists:
                return
            raise CqlAlreadyExistsError(f"Keyspace {statement.keyspace} already exists")
        self.keyspaces[statement.keyspace] = Keyspace(statement.keyspace, dict(statement.properties),
                                                      initial_tablets=tablets)

    def alter_keyspace(self, statement: ast.AlterKeyspace) -> None:
        keyspace = self.keyspace(statement.keyspace)
        keyspace.initial_tablets = altered_initial_tablets(statement.properties, keyspace.initial_tablets)
        keyspace.properties.update(statement.properties)

    def drop_keyspace(self, statement: ast.DropObject) -> None:
        name = statement.name.name
        if name not in self.keyspaces:
            if statement.if_exists:
                return
            raise CqlRequestError(f"Cannot drop non existing keyspace '{name}'.")
        del self.keyspaces[name]

    # ------------------------------------------------------------------ user types
    def create_type(self, statement: ast.CreateType, keyspace_name: str) -> None:
        keyspace = self.keyspace(keyspace_name)
        name = statement.type_name.name
        names = [field_name for field_name, _ in statement.fields]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise CqlRequestError(f"Duplicate field name {duplicates[0]} in type {name}")
        field_types = tuple(self._field_type(expr, keyspace_name) for _, expr in statement.fields)
        if name in keyspace.user_types:
            if statement.if_not_exists:
                return
            raise CqlAlreadyExistsError(f"A user type of name {keyspace_name}.{name} already exists")
        keyspace.user_types[name] = t.UserType(keyspace_name, name, tuple(names), field_types)

    def _field_type(self, expr: ast.TypeExpr, keyspace_name: str) -> t.CqlType:
        field_type = self.resolve_type(expr, keyspace_name)
        if field_type.is_counter:
            raise CqlRequestError("A user type cannot contain counters")
        if isinstance(field_type, t.UserType) and field_type.is_multi_cell:
            raise CqlRequestError("A user type cannot contain non-frozen UDTs")
        return field_type

    def alter_type(self, statement: ast.AlterType, keyspace_name: str) -> None:
        keyspace = self.keyspace(keyspace_name)
        name = statement.type_name.name
        current = keyspace.user_types.get(name)
        if current is None:
            raise CqlRequestError(f"No user type named {keyspace_name}.{name} exists.")
        if statement.action == "add":
            field_name, expr = statement.fields[0]
            if field_name in current.field_names:
                raise CqlRequestError(f"Cannot add new field {field_name} to type {keyspace_name}.{name}: "
                                      "a field of the same name already exists")
            updated = replace(current, field_names=current.field_names + (field_name,),
                              field_types=current.field_types + (self._field_type(expr, keyspace_name),))
        else:
            names = list(current.field_names)
            for old, new in statement.renames:
                if old not in names:
                    raise CqlRequestError(f"Unknown field {old} in type {keyspace_name}.{name}")
                names[names.index(old)] = new
            if len(set(names)) != len(names):
                raise CqlRequestError(f"Duplicate field name in type {keyspace_name}.{name} after renaming")
            updated = replace(current, field_names=tuple(names))
        self._replace_user_type(keyspace, updated)

    def _replace_user_type(self, keyspace: Keyspace, updated: t.UserType) -> None:
        for type_name, user_type in list(keyspace.user_types.items()):
            is_updated = type_name == updated.name
            keyspace.user_types[type_name] = updated if is_updated else t.replace_user_type(user_type, updated)
        for table_name, table in list(keyspace.tables.items()):
            keyspace.tables[table_name] = replace(table, **{
                part: tuple(replace(column, type=t.replace_user_type(column.type, updated))
                            for column in getattr(table, part))
                for part in ("partition_key", "clustering", "static", "regular")})

    def drop_type(self, statement: ast.DropObject, keyspace_name: str) -> None:
        keyspace = self.keyspace(keyspace_name)
        name = statement.name.name
        if name not in keyspace.user_types:
            if statement.if_exists:
                return
            raise CqlRequestError(f"No user type named {keyspace_name}.{name} exists.")
        for table in keyspace.tables.values():
            if any(t.uses_user_type(column.type, keyspace_name, name) for column in table.columns):
                raise CqlRequestError(f"Cannot drop user type {keyspace_name}.{name} as it is still used by table "
                                      f"{table.qualified_name}")
        for other_name, other in keyspace.user_types.items():
            if other_name != name and any(t.uses_user_type(ft, keyspace_name, name) for ft in other.field_types):
                raise CqlRequestError(f"Cannot drop user type {keyspace_name}.{name} as it is still used by user type "
                                      f"{other_name}")
        del keyspace.user_types[name]

    # ------------------------------------------------------------------ tables
    def create_table(self, statement: ast.CreateTable, keyspace_name: str) -> None:
        name = statement.table.name
        if not _NAME.match(name):
            raise CqlRequestError(f'"{name}" is not a valid table name '
                                  '(must be alphanumeric character only: [0-9A-Za-z]+)')
        if len(name) > NAME_LENGTH:
            raise CqlRequestError(f'Table names shouldn\'t be more than {NAME_LENGTH} characters long (got "{name}")')
        if keyspace_name not in self.keyspaces:
            raise CqlRequestError(f"Cannot create a table in a non-existent keyspace: {keyspace_name}")
        keyspace = self.keyspaces[keyspace_name]
        table = build_table(statement, keyspace_name, self.resolve_type, self.enable_compact_storage)
        table_tablet_options(table.properties.get("tablets"), keyspace.initial_tablets)
        if table.cdc.enabled:
            self._check_cdc_can_be_enabled(keyspace, table)
        if name in keyspace.tables or name in keyspace.cdc_log_names:
            if statement.if_not_exists:
                return
            raise CqlAlreadyExistsError(f'Cannot add already existing table "{name}" to keyspace "{keyspace_name}"')
        keyspace.tables[name] = table
        if table.cdc.enabled:
            keyspace.cdc_log_names.add(name + CDC_LOG_SUFFIX)

    def _check_cdc_can_be_enabled(self, keyspace: Keyspace, table: Table) -> None:
        """ScyllaDB's checks when CDC gets enabled (docs/scylla/log.md §1)."""
        if table.is_counter:
            raise CqlRequestError(f"Cannot create CDC log for table {table.qualified_name}. "
                                  "Counter support not implemented")
        log_name = table.name + CDC_LOG_SUFFIX
        if log_name in keyspace.tables:
            raise CqlRequestError(f"Cannot create CDC log table for table {table.qualified_name} because a table "
                                  f"of name {keyspace.name}.{log_name} already exists")

    def alter_table(self, statement: ast.AlterTable, keyspace_name: str) -> None:
        keyspace = self.keyspace(keyspace_name)
        name = statement.table.name
        if name in keyspace.cdc_log_names and name not in keyspace.tables:
            self._refuse_log_table_alter(statement, keyspace_name)
        table = self.table(keyspace_name, name)
        if statement.action == "with":
            updated = self._table_with_options(table, statement.options)
            table_tablet_options(statement.options.properties.get("tablets"), keyspace.initial_tablets)
            if updated.cdc.enabled:
                self._check_cdc_can_be_enabled(keyspace, updated)
                keyspace.cdc_log_names.add(name + CDC_LOG_SUFFIX)
        elif statement.action == "add":
            if table.is_dense:
                raise CqlRequestError("Cannot add new column to a COMPACT STORAGE table")
            updated = self._table_with_added_columns(table, statement.columns)
        elif statement.action == "drop":
            if table.compact_storage:
                raise CqlRequestError("Cannot drop columns from a non-CQL3 table")
            updated = table_without_columns(table, statement.column_names)
            if updated.ttl_column in statement.column_names:     # its tag goes with it
                updated = replace(updated, ttl_column=None)
        elif statement.action == "rename":
            updated = table_with_renamed_keys(table, statement.renames)
        elif statement.action == "ttl":
            updated = table_with_ttl_column(table, statement.ttl_column)
        else:
            raise CqlRequestError("Altering column types is not supported by ScyllaDB")
        keyspace.tables[name] = updated

    @staticmethod
    def _refuse_log_table_alter(statement: ast.AlterTable, keyspace_name: str) -> None:
        name = statement.table.name
        cdc = statement.options.properties.get("cdc") if statement.options else None
        if cdc is not None and parse_cdc_options(cdc).enabled:
            raise CqlRequestError(f"Cannot create a CDC log for a table {keyspace_name}.{name}, "
                                  "because creating nested CDC logs is not allowed")
        raise CqlUnsupportedError(f"ALTER TABLE of CDC log table {keyspace_name}.{name} is not supported")

    def _table_with_options(self, table: Table, options: ast.TableOptions) -> Table:
        if options.clustering_order:
            raise CqlRequestError("Cannot change the CLUSTERING ORDER of an existing table")
        if options.compact_storage:
            raise CqlRequestError("Cannot add COMPACT STORAGE to an existing table")
        properties = dict(options.properties)
        changes: dict = {}
        if "cdc" in properties:
            changes["cdc"] = parse_cdc_options(properties.pop("cdc"))
        if "default_time_to_live" in properties:
            changes["default_time_to_live"] = parse_default_ttl(properties.pop("default_time_to_live"))
            if changes["default_time_to_live"] > 0 and table.is_counter:
                raise CqlRequestError("Cannot set default_time_to_live on a table with counters")
        return replace(table, properties={**table.properties, **properties}, **changes)

    def _table_with_added_columns(self, table: Table, definitions: tuple[ast.ColumnDefinition, ...]) -> Table:
        static, regular = list(table.static), list(table.regular)
        for definition in definitions:
            if table.column(definition.name) or any(c.name == definition.name for c in static + regular):
                raise CqlRequestError(f"Invalid column name {definition.name} because it conflicts with an "
                                      "existing column")
            column_type = self.resolve_type(definition.type, table.keyspace)
            if definition.is_static:
                if not table.is_compound:
                    raise CqlRequestError("Static columns are not allowed in COMPACT STORAGE tables")
                if not table.clustering:
                    raise CqlRequestError("Static columns are only useful (and thus allowed) if the table has "
                                          "at least one clustering column")
            if column_type.is_counter and not table.is_counter:
                raise CqlConfigurationError(f"Cannot add a counter column ({definition.name}) in a non counter "
                                            "column family")
            if table.is_counter and not column_type.is_counter:
                raise CqlConfigurationError(f"Cannot add a non counter column ({definition.name}) in a counter "
                                            "column family")
            if table.compact_storage and column_type.is_multi_cell:
                raise CqlRequestError("Cannot use non-frozen collections in COMPACT STORAGE tables")
            check_non_frozen_udt(column_type)
            column = Column(definition.name, column_type, "static" if definition.is_static else "regular")
            (static if definition.is_static else regular).append(column)
        return table.with_columns(static, regular)

    def drop_table(self, statement: ast.DropObject, keyspace_name: str) -> None:
        keyspace = self.keyspace(keyspace_name)
        name = statement.name.name
        if name in keyspace.tables:
            del keyspace.tables[name]
            keyspace.cdc_log_names.discard(name + CDC_LOG_SUFFIX)
            return
        if name in keyspace.cdc_log_names:
            base = keyspace.tables.get(name[: -len(CDC_LOG_SUFFIX)])
            if base is not None and base.cdc.enabled:
                raise CqlRequestError(f"Cannot drop CDC log table {keyspace_name}.{name} while CDC is enabled on "
                                      f"{base.qualified_name}")
            keyspace.cdc_log_names.discard(name)
            return
        if not statement.if_exists:
            raise CqlRequestError(f"Cannot drop non existing table '{name}' in keyspace '{keyspace_name}'.")

    # ------------------------------------------------------------------ records
    def tables_with_ttl_column(self) -> list[Table]:
        return [table for table in self._all_tables() if table.ttl_column is not None]

    def base_tables(self) -> list[BaseTable]:
        return [BaseTable(
            keyspace_name=table.keyspace, table_name=table.name, cdc_enabled=table.cdc.enabled,
            cdc_preimage=table.cdc.preimage if table.cdc.enabled else "false",
            cdc_postimage=table.cdc.postimage if table.cdc.enabled else False,
            cdc_delta=table.cdc.delta if table.cdc.enabled else "full",
            cdc_ttl_seconds=table.cdc.ttl_seconds if table.cdc.enabled else CdcOptions().ttl_seconds,
            default_time_to_live=table.default_time_to_live, ttl_column=table.ttl_column,
            **self._tablets_fields(table),
        ) for table in self._all_tables()]

    def _tablets_fields(self, table: Table) -> dict:
        """uses_tablets, tablet_count and replication_factor of a table's record."""
        keyspace = self.keyspaces[table.keyspace]
        if keyspace.initial_tablets is None:
            return {}
        options = table_tablet_options(table.properties.get("tablets"), keyspace.initial_tablets)
        return {"uses_tablets": True, "tablet_count": given_tablet_count(keyspace.initial_tablets, options),
                "replication_factor": replication_factor(dict(keyspace.properties.get("replication") or {}))}

    def base_columns(self) -> list[BaseColumn]:
        rows = []
        for table in self._all_tables():
            for kind_columns in (table.partition_key, table.clustering, table.static, table.regular):
                for position, column in enumerate(kind_columns):
                    rows.append(BaseColumn(
                        keyspace_name=table.keyspace, table_name=table.name, column_name=column.name,
                        kind=column.kind, position=position, cql_type=column.type.cql_text(),
                        clustering_order=column.clustering_order))
        return rows

    def base_types(self) -> list[BaseTypeField]:
        return [
            BaseTypeField(keyspace_name=keyspace.name, type_name=user_type.name, field_position=position,
                          field_name=field_name, field_type=field_type.cql_text())
            for keyspace in self.keyspaces.values()
            for user_type in keyspace.user_types.values()
            for position, (field_name, field_type) in enumerate(zip(user_type.field_names, user_type.field_types))
        ]

    def _all_tables(self) -> list[Table]:
        return [table for keyspace in self.keyspaces.values() for table in keyspace.tables.values()]


def _check_name(name: str, what: str) -> None:
    if not _NAME.match(name):
        raise CqlRequestError(f'"{name}" is not a valid {what} name '
                              '(must contain alphanumeric character only: [0-9A-Za-z]+)')
    if len(name) > NAME_LENGTH:
        raise CqlRequestError(f"{what.capitalize()} names shouldn't be more than {NAME_LENGTH} characters long "
                              f'(got "{name}")')
