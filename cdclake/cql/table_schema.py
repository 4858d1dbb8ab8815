"""A table's schema (``Table``, ``Column``): what CREATE TABLE builds and how ALTER TABLE changes
its columns, with ScyllaDB's checks and error texts (``create_table_statement.cc``,
``alter_table_statement.cc``, ``schema.cc``).

Column order: partition-key and clustering columns keep their PRIMARY KEY order; static and
regular columns are ordered by name, comparing UTF-8 bytes. That is ScyllaDB's column id order
(``schema::rebuild`` insists "Regular columns should be sorted by name", using the UTF-8
comparator of ``regular_column_name_type``), the order the CDC log derives its columns in
(docs/scylla/log.md §2.2), and the ``position`` given to ``BaseColumn`` rows.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from cdclake.cql import ast
from cdclake.cql import types as t
from cdclake.cql.cdc_options import CdcOptions, parse_cdc_options
from cdclake.cql.errors import CqlConfigurationError, CqlRequestError

MAX_TTL_SECONDS = 20 * 365 * 86400          # 630720000, ScyllaDB's max_ttl


@dataclass(frozen=True)
class Column:
    name: str
    type: t.CqlType
    kind: str                        # 'partition_key' | 'clustering' | 'static' | 'regular'
    clustering_order: str = "none"   # 'asc' | 'desc' for clustering columns

    @property
    def is_primary_key(self) -> bool:
        return self.kind in ("partition_key", "clustering")


EMPTY = t.NativeType("empty")       # the type of a dense table's hidden value column (cql3 name "empty")


@dataclass(frozen=True)
class Table:
    keyspace: str
    name: str
    partition_key: tuple[Column, ...]
    clustering: tuple[Column, ...]
    static: tuple[Column, ...]
    regular: tuple[Column, ...]
    cdc: CdcOptions = CdcOptions()
    default_time_to_live: int = 0
    compact_storage: bool = False
    properties: dict = field(default_factory=dict, compare=False)
    ttl_column: Optional[str] = None    # per-row TTL: rows expire at this column's time (docs/scylla/corners.md)

    @property
    def qualified_name(self) -> str:
        return f"{self.keyspace}.{self.name}"

    @property
    def columns(self) -> tuple[Column, ...]:
        return self.partition_key + self.clustering + self.static + self.regular

    def column(self, name: str) -> Optional[Column]:
        for column in self.columns:
            if column.name == name:
                return column
        return None

    @property
    def is_dense(self) -> bool:
        """COMPACT STORAGE with a clustering key: no row marker, one value column (schema.cc)."""
        return self.compact_storage and bool(self.clustering)

    @property
    def is_compound(self) -> bool:
        """Not COMPACT STORAGE, or more than one clustering column (schema.cc)."""
        return not self.compact_storage or len(self.clustering) > 1

    @property
    def hidden_value(self) -> Optional[Column]:
        """The hidden EMPTY-typed column of a dense table with only key columns."""
        return self.regular[0] if self.is_dense and self.regular and self.regular[0].type == EMPTY else None

    @property
    def is_counter(self) -> bool:
        return any(column.type.is_counter for column in self.static + self.regular)

    def with_columns(self, static: list[Column], regular: list[Column]) -> "Table":
        return replace(self, static=_by_name(static), regular=_by_name(regular))


def _by_name(columns: list[Column]) -> tuple[Column, ...]:
    return tuple(sorted(columns, key=lambda column: column.name.encode("utf-8")))



# ---------------------------------------------------------------------------- CREATE TABLE


COMPACT_STORAGE_DISABLED = (
    "Support for the deprecated feature of 'CREATE TABLE WITH COMPACT STORAGE' is disabled and will eventually be "
    "removed in a future version.  To enable, set the 'enable_create_table_with_compact_storage' config option to "
    "'true'.")


def build_table(statement: ast.CreateTable, keyspace: str, resolve_type, enable_compact_storage: bool = False) -> Table:
    """The ``Table`` a CREATE TABLE statement defines (``create_table_statement::raw_statement::prepare``)."""
    names = [column.name for column in statement.columns]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise CqlRequestError(f"Multiple definition of identifier {name}")
    if not statement.primary_keys:
        raise CqlRequestError("No PRIMARY KEY specified (exactly one required)")
    if len(statement.primary_keys) > 1:
        raise CqlRequestError("Multiple PRIMARY KEYs specified (exactly one required)")
    options = statement.options
    if options.compact_storage and not enable_compact_storage:
        raise CqlRequestError(COMPACT_STORAGE_DISABLED)
    properties = dict(options.properties)
    cdc = parse_cdc_options(properties.pop("cdc")) if "cdc" in properties else CdcOptions()
    default_ttl = parse_default_ttl(properties.pop("default_time_to_live", 0))

    remaining = {column.name: column for column in statement.columns}
    types = {column.name: resolve_type(column.type, keyspace) for column in statement.columns}
    ttl_column = _ttl_column_of(statement.columns, types)
    for column in statement.columns:
        if default_ttl > 0 and types[column.name].is_counter:
            raise CqlRequestError("Cannot set default_time_to_live on a table with counters")
        check_non_frozen_udt(types[column.name])
    partition_names, clustering_names = statement.primary_keys[0]
    key_columns = []
    for kind, key_names in (("partition_key", partition_names), ("clustering", clustering_names)):
        for key_name in key_names:
            definition = remaining.pop(key_name, None)
            if definition is None:
                raise CqlRequestError(f"Unknown definition {key_name} referenced in PRIMARY KEY")
            _check_key_column(definition, types[key_name])
            key_columns.append((kind, key_name))
    _check_static_columns(statement, clustering_names, options.compact_storage)
    if ttl_column is not None and ttl_column.name in partition_names + clustering_names:
        raise CqlRequestError(f"TTL column {ttl_column.name} cannot be part of the PRIMARY KEY")
    if ttl_column is not None and ttl_column.is_static:
        raise CqlRequestError(f"TTL column {ttl_column.name} cannot be a static column")
    orders = _clustering_orders(options.clustering_order, clustering_names)
    partition = tuple(Column(n, types[n], "partition_key") for k, n in key_columns if k == "partition_key")
    clustering = tuple(Column(n, types[n], "clustering", orders[n]) for k, n in key_columns if k == "clustering")
    static = [Column(n, types[n], "static") for n, d in remaining.items() if d.is_static]
    regular = [Column(n, types[n], "regular") for n, d in remaining.items() if not d.is_static]
    if options.compact_storage:
        _check_compact_storage(clustering_names, static + regular)
        if clustering_names and not regular:       # dense, keys only: a hidden EMPTY-typed value column
            regular = [Column(_hidden_value_name(names), EMPTY, "regular")]
    table = Table(keyspace, statement.table.name, partition, clustering, (), (), cdc, default_ttl,
                  options.compact_storage, properties,
                  ttl_column.name if ttl_column else None).with_columns(static, regular)
    _check_counter_columns(table)
    return table


TTL_COLUMN_TYPES = ("timestamp", "bigint", "int")


def _ttl_column_of(definitions, types: dict) -> Optional[ast.ColumnDefinition]:
    """The column declared ``TTL`` (``add_definition``): one at most, of a TTL column type."""
    found = None
    for definition in definitions:
        if not definition.is_ttl:
            continue
        if found is not None:
            raise CqlRequestError(f"Cannot have more than one TTL column in a table. Saw {found.name} and "
                                  f"{definition.name}")
        column_type = types[definition.name]
        if column_type.cql_text() not in TTL_COLUMN_TYPES:
            raise CqlRequestError(f"TTL column '{definition.name}' must be of type timestamp, bigint or int, "
                                  f"can't be {column_type.cql_text()}")
        found = definition
    return found


def _hidden_value_name(taken: list[str]) -> str:
    """``schema_builder::default_names``: ``value``, else ``value1``, ``value2``, ..."""
    name, number = "value", 0
    while name in taken:
        number += 1
        name = f"value{number}"
    return name


def _check_key_column(definition: ast.ColumnDefinition, column_type: t.CqlType) -> None:
    name = definition.name
    if column_type.is_multi_cell:
        what = "collection" if t.is_collection(column_type) else "user-defined"
        raise CqlRequestError(f"Invalid non-frozen {what} type for PRIMARY KEY component {name}")
    if column_type.is_counter:
        raise CqlRequestError(f"counter type is not supported for PRIMARY KEY part {name}")
    if t.references_duration(column_type):
        raise CqlRequestError(f"duration type is not supported for PRIMARY KEY part {name}")
    if definition.is_static:
        raise CqlRequestError(f"Static column {name} cannot be part of the PRIMARY KEY")


def check_non_frozen_udt(column_type: t.CqlType) -> None:
    if isinstance(column_type, t.UserType) and column_type.is_multi_cell:
        if any(field_type.is_multi_cell for field_type in column_type.field_types):
            raise CqlRequestError("Non-frozen UDTs with nested non-frozen collections are not supported")


def _check_static_columns(statement: ast.CreateTable, clustering_names, compact_storage: bool) -> None:
    if any(column.is_static for column in statement.columns):
        if compact_storage:
            raise CqlRequestError("Static columns are not supported in COMPACT STORAGE tables")
        if not clustering_names:
            raise CqlRequestError("Static columns are only useful (and thus allowed) if the table has at least one "
                                  "clustering column")


def _clustering_orders(defined: tuple[tuple[str, str], ...], clustering_names) -> dict[str, str]:
    if len(defined) > len(clustering_names):
        raise CqlRequestError("Only clustering key columns can be defined in CLUSTERING ORDER directive")
    defined_names = [name for name, _ in defined]
    for index, (name, _) in enumerate(defined):
        expected = clustering_names[index]
        if name != expected:
            if expected in defined_names:
                raise CqlRequestError(f"The order of columns in the CLUSTERING ORDER directive must be the one of the "
                                      f"clustering key ({expected} must appear before {name})")
            raise CqlRequestError(f"Missing CLUSTERING ORDER for column {expected}")
    orders = {name: "asc" for name in clustering_names}
    orders.update(dict(defined))
    return orders


def _check_compact_storage(clustering_names, non_key_columns: list[Column]) -> None:
    if any(column.type.is_multi_cell for column in non_key_columns):
        raise CqlRequestError("Non-frozen collections and UDTs are not supported with COMPACT STORAGE")
    if clustering_names and len(non_key_columns) > 1:
        raise CqlRequestError("COMPACT STORAGE with composite PRIMARY KEY allows no more than one column not part "
                              f"of the PRIMARY KEY (got: {', '.join(c.name for c in non_key_columns)})")
    if not clustering_names and not non_key_columns:
        raise CqlRequestError("COMPACT STORAGE with non-composite PRIMARY KEY require one column not part of the "
                              "PRIMARY KEY, none given")


def _check_counter_columns(table: Table) -> None:
    """``schema::rebuild``: a counter table has only counter non-key columns and vice versa."""
    if table.is_counter:
        for column in table.static + table.regular:
            if not column.type.is_counter:
                raise CqlConfigurationError(f"Cannot add a non counter column ({column.name}) in a counter "
                                            "column family")


def parse_default_ttl(raw: object) -> int:
    try:
        ttl = int(str(raw))
    except ValueError:
        raise CqlConfigurationError(f"Invalid value for default_time_to_live: {raw} is not an integer") from None
    if ttl < 0:
        raise CqlConfigurationError("default_time_to_live must be greater than or equal to 0 (got {})".format(ttl))
    if ttl > MAX_TTL_SECONDS:
        raise CqlConfigurationError(f"default_time_to_live must be less than or equal to {MAX_TTL_SECONDS} (got {ttl})")
    return ttl



# ---------------------------------------------------------------------------- ALTER TABLE


def table_with_ttl_column(table: Table, name: Optional[str]) -> Table:
    """``ALTER TABLE t TTL c`` / ``TTL NULL`` (``alter_table_statement``, case ttl)."""
    if name is None:
        if table.ttl_column is None:
            raise CqlRequestError(f"Cannot unset TTL column, table {table.qualified_name} does not have a TTL "
                                  "column set")
        return replace(table, ttl_column=None)
    column = table.column(name)
    if column is None:
        raise CqlRequestError(f"Column '{name}' does not exist in table {table.qualified_name}")
    if column.type.cql_text() not in TTL_COLUMN_TYPES:
        raise CqlRequestError(f"TTL column {name} must be of type timestamp, bigint or int, can't be "
                              f"{column.type.cql_text()}")
    if column.is_primary_key:
        raise CqlRequestError(f"Cannot use a primary key column {name} as a TTL column")
    if column.kind == "static":
        raise CqlRequestError(f"Cannot use a static column {name} as a TTL column")
    if table.ttl_column is not None:
        raise CqlRequestError(f"Cannot set TTL column, table {table.qualified_name} already has a TTL column "
                              f"defined: {table.ttl_column}")
    return replace(table, ttl_column=name)



def table_without_columns(table: Table, names: tuple[str, ...]) -> Table:
    static, regular = list(table.static), list(table.regular)
    for name in names:
        column = table.column(name)
        if column is None:
            raise CqlRequestError(f"Column {name} was not found in table {table.name}")
        if column.is_primary_key:
            raise CqlRequestError(f"Cannot drop PRIMARY KEY part {name}")
        static = [c for c in static if c.name != name]
        regular = [c for c in regular if c.name != name]
    return table.with_columns(static, regular)


def table_with_renamed_keys(table: Table, renames: tuple[tuple[str, str], ...]) -> Table:
    partition, clustering = list(table.partition_key), list(table.clustering)
    taken = {column.name for column in table.columns}
    for old, new in renames:
        column = table.column(old)
        if column is None:
            raise CqlRequestError(f"Cannot rename unknown column {old} in keyspace {table.keyspace}")
        if not column.is_primary_key:
            raise CqlRequestError(f"Cannot rename non PRIMARY KEY part {old}")
        if new in taken:
            raise CqlRequestError(f"Cannot rename column {old} to {new} in keyspace {table.keyspace}; "
                                  "another column of that name already exist")
        taken.discard(old)
        taken.add(new)
        partition = [replace(c, name=new) if c.name == old else c for c in partition]
        clustering = [replace(c, name=new) if c.name == old else c for c in clustering]
    return replace(table, partition_key=tuple(partition), clustering=tuple(clustering))
