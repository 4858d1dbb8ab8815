"""A table's rows exported to CSV (cqlsh ``COPY ks.t TO 'f.csv'``, ``dsbulk unload``): its records,
which column each field holds, and each field's CQL value. What ``cdclake load snapshot`` (a base
table) and ``cdclake load log`` (a CDC log table) read.

Without a header, a cqlsh export's fields are the table's columns in the driver's order (the
partition key, the clustering key, then the other columns sorted by name). Values are in cqlsh's
text form (CQL literals, except bare text, timestamps, dates and times) or dsbulk's (ISO
timestamps, JSON collections). cqlsh also escapes text (``\\`` for a backslash, ``\\n`` and
``\\xNN`` for control characters) and prints a user type's null field as nothing
(``{a: 1, b: }``) and a duration's parts as quotients (``1.1666666666666667y2.0mo`` for 14
months): ``cqlsh_text`` undoes all three.
"""
from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from typing import Any

from cdclake.cql import types as t
from cdclake.cql.describe import maybe_quote
from cdclake.cql.errors import CqlError
from cdclake.cql.parse_expressions import term as parse_term
from cdclake.cql.token_stream import TokenStream
from cdclake.cql.values import literal_value

# cqlsh COPY's CSV dialect (its defaults: QUOTE '"', ESCAPE '\', no doubled quotes)
CQLSH_DIALECT = {"quotechar": '"', "escapechar": "\\", "doublequote": False, "delimiter": ","}
_META = re.compile(r"(writetime|ttl)\((.+)\)\Z", re.IGNORECASE)
_QUOTED_TYPES = ("text", "ascii", "varchar", "inet", "timestamp", "date", "time")
# cqlshlib.formatting: a backslash doubled, control characters as Python's repr shows them
_CQLSH_ESCAPE = re.compile(r"\\(\\|n|t|r|x[0-9a-fA-F]{2})")
_CQLSH_ESCAPED = {"\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
# cqlshlib.formatting.duration_as_str divides with `/`: 14 months print as 1.1666666666666667y2.0mo
_CQLSH_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)(mo|ms|us|ns|y|d|h|m|s)")


class ExportFileError(ValueError):
    """The file's structure is wrong (header, field count, table): nothing is loaded."""


@dataclass
class Field:
    index: int              # 0-based position in the CSV row
    column: str
    role: str               # 'value', 'writetime' or 'ttl'


def records(text: str, path: str, dialect: dict | None = None):
    """(first line number, fields) of each CSV record, blank lines skipped."""
    reader = csv.reader(io.StringIO(text), strict=True, **(dialect or {}))
    line = 1
    try:
        for row in reader:
            if row and any(field.strip() for field in row):
                yield line, row
            line = reader.line_num + 1
    except csv.Error as error:
        raise ExportFileError(f"{path}:{reader.line_num}: not CSV ({error})") from None


def layout(rows: list, table, path: str, *, write_time_columns: bool = True) -> tuple[list[Field], list]:
    """The fields of each row, from the header when the first record is one (a field of it names a
    column: then it is dropped), else the table's columns in the driver's order (cqlsh COPY TO
    without HEADER). ``write_time_columns``: a header may add ``writetime(c)`` and ``ttl(c)``."""
    names = [c.name for c in table.partition_key + table.clustering] + \
        sorted(c.name for c in table.static + table.regular)     # the driver's column order
    first_line, first = rows[0]
    cleaned = [f.strip() for f in first]
    looks_like_header = any(c.strip('"') in names or _META.match(c) for c in cleaned)
    if not looks_like_header:
        return [Field(i, name, "value") for i, name in enumerate(names)], rows
    fields = []
    for index, text in enumerate(cleaned):
        meta = _META.match(text) if write_time_columns else None
        column = (meta.group(2) if meta else text).strip().strip('"')
        where = f"{path}:{first_line}:{index + 1}"
        if column not in names:
            raise ExportFileError(f"{where}: {text}: {table.keyspace}.{table.name} has no column {column}")
        if meta and table.column(column).is_primary_key:
            raise ExportFileError(f"{where}: {text}: a primary-key column has no write time or TTL")
        fields.append(Field(index, column, meta.group(1).lower() if meta else "value"))
    keys = [c.name for c in table.partition_key + table.clustering]
    missing = [k for k in keys if k not in {f.column for f in fields if f.role == "value"}]
    if missing:
        raise ExportFileError(f"{path}:{first_line}: the header has no primary-key column {', '.join(missing)}")
    return fields, rows[1:]


def check_field_counts(rows: list, fields: list[Field], path: str) -> None:
    for line, row in rows:
        if len(row) != len(fields):
            raise ExportFileError(f"{path}:{line}: {len(row)} fields, the header has {len(fields)}")


def row_values(row: list[str], fields: list[Field], table, where: str, *,
               cqlsh_text: bool = False) -> tuple[dict, list[str]]:
    """{column: {'literal', 'value', 'writetime', 'ttl'}} of one row (``value``: the JSON-model
    value), and its problems by line and column. An empty field is a null."""
    values: dict[str, dict] = {}
    errors = []
    for field in fields:
        text = row[field.index].strip()
        at = f"{where}:{field.index + 1}"
        column = table.column(field.column)
        entry = values.setdefault(field.column, {})
        if field.role == "value":
            if text == "":
                if column.is_primary_key and not (column.kind == "clustering" and _static_only(row, fields, table)):
                    errors.append(f"{at}: column {field.column} ({column.type}): empty, a key column needs a value")
                continue
            literal = cql_literal(cqlsh_unescaped(text, column.type) if cqlsh_text else text, column.type)
            try:
                entry["value"] = literal_value(_whole_term(literal), column.type, field.column)
            except CqlError as error:      # a syntax error's own line and column are the literal's
                errors.append(f"{at}: column {field.column} ({column.type}): value {text!r}: "
                              f"{getattr(error, 'detail', error)}")
                continue
            entry["literal"] = literal
        elif text == "":
            if field.role == "ttl":
                entry["ttl"] = 0          # read, and none: the cell has no TTL (not the table's default)
        else:
            if not re.fullmatch(r"-?\d+", text) or (field.role == "ttl" and int(text) <= 0):
                errors.append(f"{at}: {field.role}({field.column}): value {text!r} is not a "
                              f"{'positive number of seconds' if field.role == 'ttl' else 'timestamp in microseconds'}")
                continue
            entry[field.role] = int(text)
    return values, errors


def _static_only(row: list[str], fields: list[Field], table) -> bool:
    """The row of a partition holding only static cells: every clustering column empty."""
    clustering = {c.name for c in table.clustering}
    return bool(table.static) and all(row[f.index].strip() == "" for f in fields
                                      if f.role == "value" and f.column in clustering)


def _whole_term(literal: str):
    """The CQL term a field holds, nothing after it."""
    stream = TokenStream(literal)
    parsed = parse_term(stream)
    if not stream.at_end():
        raise stream.error_at(stream.current, f"unexpected {stream.current.text!r} after the value")
    return parsed


def cqlsh_unescaped(text: str, cql_type: t.CqlType) -> str:
    """A cqlsh-printed value with its text escapes undone (they occur only in text, top-level or
    quoted inside a collection) and, in a user type, a null field's missing value written ``null``."""
    text = _CQLSH_ESCAPE.sub(lambda m: _CQLSH_ESCAPED.get(m.group(1)) or chr(int(m.group(1)[1:], 16)), text)
    if isinstance(cql_type, t.NativeType) and cql_type.name == "duration":
        # each part is its unit's whole count, the quotient's floor
        return _CQLSH_DURATION_PART.sub(lambda m: f"{int(float(m.group(1)))}{m.group(2)}", text)
    return _null_fields(text) if _has_user_type(cql_type) else text


def _has_user_type(cql_type: t.CqlType) -> bool:
    return isinstance(cql_type, t.UserType) or any(_has_user_type(inner) for inner in t.inner_types(cql_type))


def _null_fields(literal: str) -> str:
    """``{a: 1, b: }`` -> ``{a: 1, b: null}``: outside quoted strings, a ``:`` followed by ``,``
    or ``}`` (after blanks) gets ``null``."""
    out, quoted, index = [], False, 0
    while index < len(literal):
        char = literal[index]
        out.append(char)
        if char == "'":
            quoted = not quoted         # '' inside a string toggles twice
        elif char == ":" and not quoted:
            rest = literal[index + 1:].lstrip(" ")
            if rest[:1] in (",", "}"):
                out.append(" null")
        index += 1
    return "".join(out)


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


def _json_literal(value: Any, cql_type: t.CqlType) -> str:
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
