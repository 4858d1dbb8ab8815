"""Base-table schema records: the rows of ``cdc_input.base_tables``, ``cdc_input.base_columns``
and ``cdc_input.base_types``.

They mirror ScyllaDB's ``system_schema.tables``/``columns``/``types`` plus the table's
normalised ``cdc`` options (``docs/scylla/log.md`` §1). The CQL front door produces them from DDL.
"""
from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields
from typing import Iterable, Optional


@dataclass(frozen=True)
class BaseTable:
    keyspace_name: str
    table_name: str
    cdc_enabled: bool
    cdc_preimage: str = "false"        # 'false' | 'true' | 'full'
    cdc_postimage: bool = False
    cdc_delta: str = "full"            # 'full' | 'keys'
    cdc_ttl_seconds: int = 86400       # 0 = log rows never expire
    default_time_to_live: int = 0      # seconds, 0 = none
    cdc_log_created_ms: Optional[int] = None   # when the log table was created (CDC first enabled)
    schema_version: int = 0            # increases with every change of the table (ALTER TABLE, ...)
    ttl_column: Optional[str] = None   # the per-row TTL column (``c type TTL``, ``ALTER TABLE t TTL c``)
    uses_tablets: bool = False         # its keyspace uses tablets: CDC streams per table (docs/scylla/tablets.md)
    tablet_count: Optional[int] = None     # tablets: the count its keyspace's `initial` or its own
    #                                        `min_tablet_count` sets (a power of two); None: the cluster's default
    replication_factor: Optional[int] = None   # tablets: the keyspace's replication factor (largest over its DCs)

    def as_row(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class BaseColumn:
    keyspace_name: str
    table_name: str
    column_name: str
    kind: str                          # 'partition_key' | 'clustering' | 'static' | 'regular'
    position: int                      # 0-based position within its kind; static/regular: ScyllaDB's column-id order (by name)
    cql_type: str                      # normalised CQL type text, e.g. 'int', 'map<int, text>', 'frozen<list<int>>'
    clustering_order: str = "none"     # 'asc' | 'desc' for clustering columns, else 'none'
    schema_version: int = 0            # the table's schema version this column belongs to

    def as_row(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class BaseTypeField:
    """One field of a user-defined type, like a (field_names[i], field_types[i]) pair of
    ``system_schema.types``."""

    keyspace_name: str
    type_name: str
    field_position: int                # 0-based declaration index (the field's element key)
    field_name: str
    field_type: str                    # CQL type text; nested user types are frozen

    def as_row(self) -> dict:
        return asdict(self)


def record_from_row(record_class, row: dict):
    """A schema record from a table row (Spark) or a CSV row (text: ``True``/``False``, numbers,
    empty for none), typed by the record's field annotations; a column the row lacks (a table of
    an earlier contract) takes the field's default."""
    values = {}
    for f in fields(record_class):
        value = row.get(f.name, None if f.default is MISSING else f.default)
        if isinstance(value, str) and f.type != "str":
            if value == "":
                value = None
            elif "bool" in f.type:
                value = value.strip().lower() == "true"
            elif "int" in f.type:
                value = int(value)
        values[f.name] = value
    return record_class(**values)


def changed_types(types: Iterable[BaseTypeField], old: Iterable[BaseTypeField]) -> list[BaseTypeField]:
    """The fields of the user types in ``types`` that are new or differ from ``old``'s."""
    def by_type(fields_):
        grouped: dict[tuple[str, str], set] = {}
        for f in fields_:
            grouped.setdefault((f.keyspace_name, f.type_name), set()).add(f)
        return grouped

    new, before = by_type(types), by_type(old)
    return [f for key in sorted(new) if new[key] != before.get(key)
            for f in sorted(new[key], key=lambda f: f.field_position)]


def with_types(old: Iterable[BaseTypeField], new: Iterable[BaseTypeField]) -> list[BaseTypeField]:
    """Every user type's fields once ``new`` types replace the ``old`` fields of the same types."""
    new = list(new)
    redefined = {(f.keyspace_name, f.type_name) for f in new}
    return [f for f in old if (f.keyspace_name, f.type_name) not in redefined] + new


def latest_versions(tables: Iterable[BaseTable]) -> list[BaseTable]:
    """Each table's latest schema version, ordered by keyspace and name."""
    latest: dict[tuple[str, str], BaseTable] = {}
    for table in tables:
        key = (table.keyspace_name, table.table_name)
        if key not in latest or latest[key].schema_version < table.schema_version:
            latest[key] = table
    return [latest[key] for key in sorted(latest)]


BASE_TABLE_COLUMNS = [f.name for f in fields(BaseTable)]
BASE_COLUMN_COLUMNS = [f.name for f in fields(BaseColumn)]

BASE_TYPE_COLUMNS = [f.name for f in fields(BaseTypeField)]

BASE_TABLES_SPARK_SCHEMA = (
    "keyspace_name string, table_name string, cdc_enabled boolean, cdc_preimage string, "
    "cdc_postimage boolean, cdc_delta string, cdc_ttl_seconds bigint, default_time_to_live int, "
    "cdc_log_created_ms bigint, schema_version bigint, ttl_column string, uses_tablets boolean, tablet_count int, "
    "replication_factor int"
)
BASE_COLUMNS_SPARK_SCHEMA = (
    "keyspace_name string, table_name string, column_name string, kind string, position int, "
    "cql_type string, clustering_order string, schema_version bigint"
)
BASE_TYPES_SPARK_SCHEMA = (
    "keyspace_name string, type_name string, field_position int, field_name string, field_type string"
)
