"""A log table's columns: their CQL types (as ScyllaDB derives them from the base table's), their
order (``SELECT *``), and for a generated ``<keyspace>.<table>_scylla_cdc_log`` model the Spark
types the ``scylla_cdc_log_table`` macro gives them (macros/marts/scylla_cdc_logs/): the model's contract. A
mapping that drifts from the macro's fails the model's build (the contract is enforced), so the
two cannot disagree silently.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from cdclake.load.schema_records import BaseColumn, BaseTypeField
from python_udfs.cql_types import TUPLE, UDT, CqlType, UdtRegistry, parse_cql_type
from python_udfs.errors import CqlTypeError

# The hidden value column of a dense COMPACT STORAGE table with only key columns has this type;
# the log has no column for it (docs/scylla/log.md §2.2), though its cell's TTL is cdc$ttl.
NOT_LOGGED_TYPE = "empty"
LOG_METADATA_TYPES = {
    "cdc$stream_id": "blob",
    "cdc$time": "timeuuid",
    "cdc$batch_seq_no": "int",
    "cdc$operation": "tinyint",
    "cdc$ttl": "bigint",
    "cdc$end_of_batch": "boolean",
}


def log_column_types(base_columns: Iterable[Mapping], udts: UdtRegistry | None = None) -> dict[str, str]:
    """Log column name -> CQL type of the log column (docs/scylla/log.md §2.2)."""
    types = dict(LOG_METADATA_TYPES)
    for c in base_columns:
        name, parsed = c["column_name"], parse_cql_type(c["cql_type"])
        if parsed.name == NOT_LOGGED_TYPE:
            continue
        if parsed.name == UDT and not parsed.frozen and parsed.udt_name in (udts or {}):
            types[name] = f"frozen<{parsed}>"
            types[f"cdc$deleted_elements_{name}"] = "frozen<set<smallint>>"
        elif parsed.is_collection and not parsed.frozen:
            key = str(parsed.params[0])
            if parsed.name == "list":
                types[name] = f"frozen<map<timeuuid, {key}>>"
                types[f"cdc$deleted_elements_{name}"] = "frozen<set<timeuuid>>"
            else:
                types[name] = f"frozen<{parsed}>"
                types[f"cdc$deleted_elements_{name}"] = f"frozen<set<{key}>>"
        else:
            types[name] = str(parsed)
        if c["kind"] in ("static", "regular"):
            types[f"cdc$deleted_{name}"] = "boolean"
    return types


def log_select_order(names: list[str]) -> list[str]:
    """A log table's columns in ScyllaDB's order (``SELECT *``, DESCRIBE): its partition key
    ``cdc$stream_id``, its clustering key ``cdc$time``, ``cdc$batch_seq_no``, then every other
    column by name (UTF-8 bytes)."""
    keys = ["cdc$stream_id", "cdc$time", "cdc$batch_seq_no"]
    return keys + sorted((n for n in names if n not in keys), key=lambda n: n.encode("utf-8"))


# cql_to_spark_type (macros/schema/cql_types.sql)
SPARK_SCALARS = {
    "int": "int", "smallint": "smallint", "tinyint": "tinyint", "bigint": "bigint",
    "counter": "bigint", "varint": "decimal(38,0)", "decimal": "decimal(38,18)",
    "float": "float", "double": "double", "boolean": "boolean",
    "text": "string", "varchar": "string", "ascii": "string", "uuid": "string",
    "timeuuid": "string", "inet": "string", "duration": "string",
    "blob": "binary", "timestamp": "timestamp", "date": "date", "time": "bigint",
}
KIND_ORDER = {"partition_key": 0, "clustering": 1, "static": 2, "regular": 3}


class UnmappedTypeError(ValueError):
    pass


@dataclass(frozen=True)
class LogColumn:
    name: str           # the log column, e.g. `cdc$deleted_status`
    spark_type: str     # Spark's simpleString form, e.g. `map<string,int>`
    cql_type: str       # the log column's CQL type
    kind: str           # metadata, partition_key, clustering, static or regular
    role: str           # metadata, value, deleted or deleted_elements
    base_column: str | None = None
    base_cql_type: str | None = None


def spark_type(cql_type: str, udts: dict[str, list[tuple[str, str]]]) -> str:
    """The Spark type of a CQL type, as ``cql_to_spark_type`` maps it."""
    return _spark_type(parse_cql_type(cql_type), udts)


def _spark_type(t: CqlType, udts: dict[str, list[tuple[str, str]]]) -> str:
    if t.name in SPARK_SCALARS:
        return SPARK_SCALARS[t.name]
    if t.name in ("list", "set"):
        return f"array<{_spark_type(t.params[0], udts)}>"
    if t.name == "map":
        return f"map<{_spark_type(t.params[0], udts)},{_spark_type(t.params[1], udts)}>"
    if t.name == TUPLE:
        return "struct<" + ",".join(f"f{i}:{_spark_type(p, udts)}" for i, p in enumerate(t.params)) + ">"
    if t.name == UDT and t.udt_name in udts:
        return "struct<" + ",".join(
            f"{_field_name(name)}:{spark_type(field_type, udts)}" for name, field_type in udts[t.udt_name]
        ) + ">"
    raise UnmappedTypeError(f"CQL type {str(t)!r} has no Spark mapping")


def _field_name(name: str) -> str:
    return name if name.isidentifier() and name.isascii() else "`" + name.replace("`", "``") + "`"


def keyspace_user_types(types: Iterable[BaseTypeField], keyspace: str) -> dict[str, list[tuple[str, str]]]:
    """The keyspace's user types as the macro reads them: name -> [(field, type)] by position."""
    registry: dict[str, list[tuple[str, str]]] = {}
    for f in sorted(types, key=lambda f: (f.type_name, f.field_position)):
        if f.keyspace_name == keyspace:
            registry.setdefault(f.type_name, []).append((f.field_name, f.field_type.lower()))
    return registry


def latest_base_columns(keyspace: str, table: str, columns: Iterable[BaseColumn]) -> list[BaseColumn]:
    """The base table's columns of its latest schema version in log-table order (partition key,
    clustering, static, regular; each by position), without the hidden ``empty`` column of a
    dense COMPACT STORAGE table, which the log leaves out."""
    own = [c for c in columns if c.keyspace_name == keyspace and c.table_name == table
           and c.cql_type.strip().lower() != NOT_LOGGED_TYPE]
    if not own:
        return []
    latest = max(c.schema_version for c in own)
    return sorted((c for c in own if c.schema_version == latest), key=lambda c: (KIND_ORDER[c.kind], c.position))


def generated_model_meta(
    keyspace: str, table: str, columns: Iterable[BaseColumn], types: Iterable[BaseTypeField]
) -> dict:
    """What the macros of a table's generated models (log and consumer tables) read of its
    schema, declared in their properties (``config.meta``) so that no model queries the schema
    while it compiles: the table, its columns (``latest_base_columns``, as the macro
    ``scylla_cdc_log_columns`` returns them) and its keyspace's user types
    (``scylla_cdc_user_types``)."""
    return {
        "cdc_base_table": f"{keyspace}.{table}",
        "cdc_base_columns": [{"name": c.column_name, "kind": c.kind.lower(), "cql_type": c.cql_type.lower()}
                             for c in latest_base_columns(keyspace, table, columns)],
        "cdc_user_types": {name: [list(field) for field in fields]
                           for name, fields in keyspace_user_types(types, keyspace).items()},
    }


def log_table_columns(
    keyspace: str, table: str, columns: Iterable[BaseColumn], types: Iterable[BaseTypeField]
) -> list[LogColumn]:
    """The log table's columns: metadata, then the base table's latest schema version's columns
    (partition key, clustering, static, regular), each non-key one followed by
    ``cdc$deleted_<c>`` and, when multi-cell, ``cdc$deleted_elements_<c>``."""
    own = latest_base_columns(keyspace, table, columns)
    if not own:
        raise ValueError(f"no columns for base table {keyspace}.{table} in base_columns")
    udts = keyspace_user_types(types, keyspace)
    rows = [{"column_name": c.column_name, "kind": c.kind, "cql_type": c.cql_type.strip().lower()} for c in own]
    try:
        cql_types = log_column_types(rows, udts)
    except CqlTypeError as error:
        raise UnmappedTypeError(f"{keyspace}.{table}: {error}") from error
    result = [LogColumn(name, SPARK_SCALARS[t], t, "metadata", "metadata") for name, t in LOG_METADATA_TYPES.items()]
    for c in own:
        names = [(c.column_name, "value")]
        if c.kind in ("static", "regular"):
            names.append((f"cdc$deleted_{c.column_name}", "deleted"))
            if f"cdc$deleted_elements_{c.column_name}" in cql_types:
                names.append((f"cdc$deleted_elements_{c.column_name}", "deleted_elements"))
        for name, role in names:
            try:
                mapped = spark_type(cql_types[name], udts)
            except (UnmappedTypeError, CqlTypeError) as error:
                raise UnmappedTypeError(f"{keyspace}.{table}, column {c.column_name}: {error}") from error
            result.append(LogColumn(name, mapped, cql_types[name], c.kind, role, c.column_name, c.cql_type))
    return result
