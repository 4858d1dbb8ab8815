"""``cdclake load snapshot KS.TABLE FILE.csv``: backfill a table's existing rows into the log.

The file is an export of the table's rows: cqlsh ``COPY ks.t TO 'f.csv'`` (with or without
``HEADER = true``; without, the columns are the table's in DESCRIBE order, as COPY writes them)
or ``dsbulk unload`` (ISO timestamps, collections as JSON). A header may add ``writetime(c)`` and
``ttl(c)`` columns for regular and static columns (a ``SELECT ..., writetime(c), ttl(c)`` export).
Each row becomes the CQL write that writes it again, run through the CQL front door, so its
log rows are those ScyllaDB logs for that write:

- ``backfill`` time (the default): one ``INSERT ... USING TIMESTAMP <backfill time>`` per row,
  with each column's remaining ``ttl(c)`` when exported (columns with different TTLs: one more
  ``UPDATE`` per TTL).
- ``original`` write times: per row an ``INSERT`` of the key with the columns written at the
  earliest ``writetime(c)``, and one ``UPDATE`` per later write time, each ``USING TIMESTAMP``
  that time; all in write-time order. ScyllaDB admits a write that old only inside the
  generation operating at the load's clock (``--now``), so older rows are rejected with its
  error text (``cdc_rejected_writes``), as a real backfill of them would be.

A bad field (a value not of the column's type, an empty key) is reported with its line and
column and its row is not loaded; a header naming an unknown column, a row with the wrong number
of fields or an unknown table stops the load before anything is written (``SnapshotFileError``).
"""
from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from typing import Iterator

from cdclake.cql import types as t
from cdclake.cql.describe import maybe_quote
from cdclake.cql.errors import CqlError
from cdclake.cql.interpreter import catalog_of
from cdclake.cql.parse_expressions import term as parse_term
from cdclake.cql.parser import parse_script
from cdclake.cql.token_stream import TokenStream
from cdclake.cql.values import literal_value
from cdclake.cql_load import CqlLoad, load_cql_statements
from cdclake.schema_ddl import schema_ddl

WRITE_TIME_MODES = ("backfill", "original")
CHUNK_ROWS = 50_000         # export rows per front-door run and append: memory stays bounded
_META = re.compile(r"(writetime|ttl)\((.+)\)\Z", re.IGNORECASE)
_QUOTED_TYPES = ("text", "ascii", "varchar", "inet", "timestamp", "date", "time")


class SnapshotFileError(ValueError):
    """The file's structure is wrong (header, field count, table): nothing is loaded."""


@dataclass
class _Field:
    index: int              # 0-based position in the CSV row
    column: str
    role: str               # 'value', 'writetime' or 'ttl'


def snapshot_loads(text: str, path: str, keyspace: str, table_name: str, *, existing: tuple[list, list, list],
                   last_write_id: int, now_us: int, write_times: str = "backfill", backfill_us: int | None = None,
                   earlier_writes=None, chunk_rows: int = CHUNK_ROWS) -> Iterator[CqlLoad]:
    """The writes that load the export ``text`` of ``keyspace.table_name`` (see the module
    docstring), ``chunk_rows`` rows at a time, write ids continuing from chunk to chunk;
    ``backfill_us``: the backfill write time (default ``now_us``). The whole file's structure is
    checked first: ``SnapshotFileError`` before any chunk."""
    if write_times not in WRITE_TIME_MODES:
        raise ValueError(f"write_times must be one of {WRITE_TIME_MODES}")
    preamble = schema_ddl(*existing) if existing[0] else ""
    try:
        table = catalog_of(preamble).table(keyspace, table_name)
    except CqlError:
        raise SnapshotFileError(f"{path}: table {keyspace}.{table_name} is not in the warehouse "
                                "(load its schema first: cdclake load schema)") from None
    rows = list(_records(text, path))
    if not rows:
        return iter(())
    fields, rows = _layout(rows, table, path)
    if write_times == "original" and not any(f.role == "writetime" for f in fields):
        raise SnapshotFileError(f"{path}:1: original write times need writetime(c) columns in the header")
    for line, row in rows:
        if len(row) != len(fields):
            raise SnapshotFileError(f"{path}:{line}: {len(row)} fields, the header has {len(fields)}")

    def chunks(last: int):
        for start in range(0, len(rows), chunk_rows):
            load = _rows_load(rows[start:start + chunk_rows], fields, table, path, existing=existing,
                              last_write_id=last, now_us=now_us, write_times=write_times,
                              backfill_us=now_us if backfill_us is None else backfill_us, earlier_writes=earlier_writes)
            last = max((atom.write_id for atom in load.atoms), default=last)
            yield load

    return chunks(last_write_id)


def load_snapshot_text(text: str, path: str, keyspace: str, table_name: str, **options) -> CqlLoad:
    """``snapshot_loads`` as one load (all chunks' writes and problems)."""
    whole = CqlLoad()
    for load in snapshot_loads(text, path, keyspace, table_name, **options):
        whole.atoms += load.atoms
        whole.problems += load.problems
    return whole


def _rows_load(rows: list, fields: list[_Field], table, path: str, *, write_times: str, backfill_us: int,
               **options) -> CqlLoad:
    """The writes of some rows of the export, run through the front door (``options``: those of
    ``load_cql_statements``). In write-time order with original write times."""
    problems, writes = [], []
    for line, row in rows:
        values, errors = _row_values(row, fields, table, f"{path}:{line}")
        problems += errors
        if not errors:
            writes += [(timestamp, line, statement)
                       for timestamp, statement in _row_writes(values, table, write_times, backfill_us)]
    writes.sort(key=lambda w: w[0] if write_times == "original" else 0)
    statements = parse_script("\n".join(statement for _, _, statement in writes))
    load = load_cql_statements(statements, path, step_us=0,
                               lines={index: f"{path}:{line}" for index, (_, line, _) in enumerate(writes)}, **options)
    load.problems = problems + load.problems
    return load


def _records(text: str, path: str):
    """(first line number, fields) of each CSV record, blank lines skipped."""
    reader = csv.reader(io.StringIO(text), strict=True)
    line = 1
    try:
        for row in reader:
            if row and any(field.strip() for field in row):
                yield line, row
            line = reader.line_num + 1
    except csv.Error as error:
        raise SnapshotFileError(f"{path}:{reader.line_num}: not CSV ({error})") from None


def _layout(rows: list, table, path: str) -> tuple[list[_Field], list]:
    """The fields of each row, from the header when the first record is one (a field of it names a
    column: then it is dropped), else the table's columns in the driver's order (cqlsh COPY TO
    without HEADER)."""
    names = [c.name for c in table.partition_key + table.clustering] + \
        sorted(c.name for c in table.static + table.regular)     # the driver's column order
    first_line, first = rows[0]
    cleaned = [f.strip() for f in first]
    looks_like_header = any(c.strip('"') in names or _META.match(c) for c in cleaned)
    if not looks_like_header:
        return [_Field(i, name, "value") for i, name in enumerate(names)], rows
    fields = []
    for index, text in enumerate(cleaned):
        meta = _META.match(text)
        column = (meta.group(2) if meta else text).strip().strip('"')
        where = f"{path}:{first_line}:{index + 1}"
        if column not in names:
            raise SnapshotFileError(f"{where}: {text}: {table.keyspace}.{table.name} has no column {column}")
        if meta and table.column(column).is_primary_key:
            raise SnapshotFileError(f"{where}: {text}: a primary-key column has no write time or TTL")
        fields.append(_Field(index, column, meta.group(1).lower() if meta else "value"))
    keys = [c.name for c in table.partition_key + table.clustering]
    missing = [k for k in keys if k not in {f.column for f in fields if f.role == "value"}]
    if missing:
        raise SnapshotFileError(f"{path}:{first_line}: the header has no primary-key column {', '.join(missing)}")
    return fields, rows[1:]


def _row_values(row: list[str], fields: list[_Field], table, where: str) -> tuple[dict, list[str]]:
    """{column: {'literal', 'writetime', 'ttl'}} of one row, and its problems by line and column."""
    values: dict[str, dict] = {}
    errors = []
    for field in fields:
        text = row[field.index].strip()
        at = f"{where}:{field.index + 1}"
        column = table.column(field.column)
        entry = values.setdefault(field.column, {})
        if field.role == "value":
            if text == "":
                if column.is_primary_key:
                    errors.append(f"{at}: column {field.column} ({column.type}): empty, a key column needs a value")
                continue
            literal = cql_literal(text, column.type)
            try:
                literal_value(parse_term(TokenStream(literal)), column.type, field.column)
            except CqlError as error:      # a syntax error's own line and column are the literal's
                errors.append(f"{at}: column {field.column} ({column.type}): value {text!r}: "
                              f"{getattr(error, 'detail', error)}")
                continue
            entry["literal"] = literal
        elif text != "":
            if not re.fullmatch(r"-?\d+", text) or (field.role == "ttl" and int(text) <= 0):
                errors.append(f"{at}: {field.role}({field.column}): value {text!r} is not a "
                              f"{'positive number of seconds' if field.role == 'ttl' else 'timestamp in microseconds'}")
                continue
            entry[field.role] = int(text)
    return values, errors


def _row_writes(values: dict, table, write_times: str, backfill_us: int) -> list[tuple[int, str]]:
    """(write time, statement) of the writes that write one row again."""
    keys = [c.name for c in table.partition_key + table.clustering]
    others = [name for name, entry in values.items() if name not in keys and "literal" in entry]
    groups: dict[tuple[int, int | None], list[str]] = {}
    for name in others:
        entry = values[name]
        timestamp = entry.get("writetime", backfill_us) if write_times == "original" else backfill_us
        groups.setdefault((timestamp, entry.get("ttl")), []).append(name)
    if not groups:                    # keys only: the row marker alone
        groups[(backfill_us, None)] = []
    ordered = sorted(groups.items(), key=lambda item: (item[0][0], item[0][1] is not None, item[0][1] or 0))
    qualified = f"{maybe_quote(table.keyspace)}.{maybe_quote(table.name)}"
    writes = []
    for number, ((timestamp, ttl), names) in enumerate(ordered):
        using = f"USING TIMESTAMP {timestamp}" + (f" AND TTL {ttl}" if ttl else "")
        if number == 0:
            columns = keys + names
            writes.append((timestamp, f"INSERT INTO {qualified} ({', '.join(maybe_quote(c) for c in columns)}) "
                                      f"VALUES ({', '.join(values[c]['literal'] for c in columns)}) {using};"))
        else:
            assignments = ", ".join(f"{maybe_quote(c)} = {values[c]['literal']}" for c in names)
            where = " AND ".join(f"{maybe_quote(c)} = {values[c]['literal']}" for c in keys)
            writes.append((timestamp, f"UPDATE {qualified} {using} SET {assignments} WHERE {where};"))
    return writes


def cql_literal(text: str, cql_type: t.CqlType) -> str:
    """The CQL literal of an exported value: cqlsh's text form (CQL literals already, except bare
    text, timestamps, dates and times) or dsbulk's (ISO timestamps, JSON collections)."""
    if isinstance(cql_type, t.NativeType):
        if cql_type.name in _QUOTED_TYPES:
            return "'" + text.replace("'", "''") + "'"
        return text
    if text[:1] in "[{" and '"' in text:
        try:
            return _json_literal(json.loads(text), cql_type)
        except ValueError:
            pass
    return text


def _json_literal(value, cql_type: t.CqlType) -> str:
    """A dsbulk JSON value as the CQL literal of ``cql_type``."""
    if value is None:
        return "null"
    if isinstance(cql_type, (t.ListType, t.SetType)):
        inner = ", ".join(_json_literal(v, cql_type.element) for v in value)
        return f"[{inner}]" if isinstance(cql_type, t.ListType) else f"{{{inner}}}"
    if isinstance(cql_type, t.MapType):
        pairs = value.items() if isinstance(value, dict) else value
        return "{" + ", ".join(f"{_json_literal(k, cql_type.key)}: {_json_literal(v, cql_type.value)}"
                               for k, v in pairs) + "}"
    if isinstance(cql_type, t.TupleType):
        return "(" + ", ".join(_json_literal(v, e) for v, e in zip(value, cql_type.items)) + ")"
    if isinstance(cql_type, t.UserType):
        return "{" + ", ".join(f"{maybe_quote(name)}: {_json_literal(value.get(name), ft)}"
                               for name, ft in zip(cql_type.field_names, cql_type.field_types) if name in value) + "}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return cql_literal(str(value), cql_type)


