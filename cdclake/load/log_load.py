"""``cdclake load log KS.TABLE FILE.csv``: a real cluster's CDC log, as cqlsh exports it
(``COPY ks.t_scylla_cdc_log TO 'f.csv'``, with or without ``HEADER = true``), into
``cdc_input.imported_log``, for the consumer tables of ``ks.t`` (``<t>_state``, ``_history``,
``_changes``) to read instead of the log the pipeline produces.

Each log row becomes the long rows ``cdc_log`` would hold for it: one per non-null log cell, under
the log column's name, its value as JSON text in the input contract's encoding (the encoding
``cdc_log`` uses; see the ``base_mutations_contract`` doc). ``cdc$deleted_<c>`` cells are kept
when true (ScyllaDB writes nothing else there). The base table's schema must be loaded first
(``cdclake load schema``); the log's columns are those its newest schema version gives.

Values are read as cqlsh prints them (``table_export``): stream ids as ``0x…`` blobs, ``cdc$time``
as timeuuids, booleans ``True``/``False``, text unquoted with cqlsh's escapes, collections in
CQL literal form, a user type's null field as nothing. cqlsh prints a null and an empty text alike
(an empty field): it reads as a null. cqlsh rounds floats to 5 and doubles to 12 significant
digits unless the export says ``WITH FLOATPRECISION = 9 AND DOUBLEPRECISION = 17``.

A bad field (a value not of its column's type, a missing stream id, time, batch sequence number
or operation) is reported with its line and column and its row is not loaded; a header naming an
unknown column, a row with the wrong number of fields or a table without a loaded schema stops
the load before anything is written (``ExportFileError``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from cdclake.cql.describe import maybe_quote
from cdclake.cql.interpreter import catalog_of
from cdclake.cql.values import to_json
from cdclake.load.schema_ddl import KEYSPACE_REPLICATION, schema_ddl
from cdclake.load.table_export import CQLSH_DIALECT, ExportFileError, check_field_counts, layout, records, row_values
from cdclake.logschema import LogColumn, log_table_columns

CHUNK_ROWS = 50_000         # log rows per chunk (and cells per append): memory stays bounded
LOG_SUFFIX = "_scylla_cdc_log"
# cdc_input.imported_log: cdc_log's columns, with where each row came from instead of its write
IMPORTED_LOG_COLUMNS = [
    "keyspace_name", "table_name", "cdc$stream_id", "cdc$time", "cdc$batch_seq_no", "cdc$operation", "cdc$ttl",
    "cdc$end_of_batch", "column_name", "value", "source_line",
]
IMPORTED_LOG_SPARK_SCHEMA = (
    "keyspace_name string, table_name string, `cdc$stream_id` binary, `cdc$time` string, `cdc$batch_seq_no` int, "
    "`cdc$operation` tinyint, `cdc$ttl` bigint, `cdc$end_of_batch` boolean, column_name string, value string, "
    "source_line string"
)


@dataclass
class LogLoad:
    rows: list[tuple] = field(default_factory=list)     # imported_log rows, IMPORTED_LOG_COLUMNS order
    log_rows: int = 0
    problems: list[str] = field(default_factory=list)


def log_loads(text: str, path: str, keyspace: str, table_name: str, *, existing: tuple[list, list, list],
              chunk_rows: int = CHUNK_ROWS) -> Iterator[LogLoad]:
    """The imported_log rows of the log export ``text`` of ``keyspace.table_name``, ``chunk_rows``
    log rows at a time; ``existing``: the warehouse's schema records. The whole file's structure
    is checked first: ``ExportFileError`` before any chunk."""
    tables, columns, types = existing
    try:
        log_columns = log_table_columns(keyspace, table_name, columns, types)
    except ValueError:
        hint = (f"; name the base table, {keyspace}.{table_name[:-len(LOG_SUFFIX)]}"
                if table_name.endswith(LOG_SUFFIX) else " (load its schema first: cdclake load schema)")
        raise ExportFileError(f"{path}: table {keyspace}.{table_name} is not in the warehouse{hint}") from None
    log_table = catalog_of(_log_table_ddl(keyspace, table_name, log_columns, types)) \
        .table(keyspace, _log_table_name(table_name))
    rows = list(records(text, path, CQLSH_DIALECT))
    if not rows:
        return iter(())
    fields, rows = layout(rows, log_table, path, write_time_columns=False)
    if "cdc$operation" not in {f.column for f in fields}:
        raise ExportFileError(f"{path}:1: the header has no cdc$operation column")
    check_field_counts(rows, fields, path)
    by_name = {c.name: c for c in log_columns}

    def chunks():
        for start in range(0, len(rows), chunk_rows):
            load = LogLoad()
            for line, row in rows[start:start + chunk_rows]:
                where = f"{path}:{line}"
                values, errors = row_values(row, fields, log_table, where, cqlsh_text=True)
                errors += [f"{where}:{f.index + 1}: column cdc$operation (tinyint): empty, a log row needs one"
                           for f in fields if f.column == "cdc$operation" and not row[f.index].strip()]
                load.problems += errors
                if not errors:
                    load.rows += _long_rows(keyspace, table_name, values, by_name, where)
                    load.log_rows += 1
            yield load

    return chunks()


def _log_table_name(table_name: str) -> str:
    return table_name + LOG_SUFFIX


def _log_table_ddl(keyspace: str, table_name: str, log_columns: list[LogColumn], types: list) -> str:
    """The log table as a CQL table of its own, with the keyspace's user types (and not the base
    table: the front door's catalog keeps log table names for ScyllaDB's own). Its key is that of
    ScyllaDB's log tables (docs/scylla/log.md §2)."""
    keyspace_types = [f for f in types if f.keyspace_name == keyspace]
    definitions = ", ".join(f"{maybe_quote(c.name)} {c.cql_type}" for c in log_columns)
    key = '(("cdc$stream_id"), "cdc$time", "cdc$batch_seq_no")'
    return "\n".join([
        # the keyspace and its types, or the keyspace alone
        schema_ddl([], [], keyspace_types) if keyspace_types
        else f"CREATE KEYSPACE {maybe_quote(keyspace)} WITH replication = {KEYSPACE_REPLICATION};",
        f"CREATE TABLE {maybe_quote(keyspace)}.{maybe_quote(_log_table_name(table_name))} "
        f"({definitions}, PRIMARY KEY {key});",
    ])


def _long_rows(keyspace: str, table_name: str, values: dict, columns: dict[str, LogColumn], where: str) -> list[tuple]:
    """One log row's imported_log rows: one per non-null base, ``cdc$deleted_`` (true) and
    ``cdc$deleted_elements_`` cell."""
    def metadata(name):
        return values.get(name, {}).get("value")

    stream = bytes.fromhex(metadata("cdc$stream_id")[2:])
    head = (keyspace, table_name, stream, metadata("cdc$time"), metadata("cdc$batch_seq_no"),
            metadata("cdc$operation"), metadata("cdc$ttl"), metadata("cdc$end_of_batch"))
    cells = []
    for name, entry in values.items():
        column = columns[name]
        if column.role == "metadata" or "value" not in entry:
            continue
        if column.role == "deleted":
            if entry["value"] is True:
                cells.append((name, "true"))
        else:
            cells.append((name, to_json(entry["value"])))
    return [(*head, name, value, where) for name, value in cells]


def load_log_text(text: str, path: str, keyspace: str, table_name: str, **options) -> LogLoad:
    """``log_loads`` as one load."""
    whole = LogLoad()
    for load in log_loads(text, path, keyspace, table_name, **options):
        whole.rows += load.rows
        whole.log_rows += load.log_rows
        whole.problems += load.problems
    return whole

