"""Import the CDC stream sets of a real cluster's tablets tables from its ``system.cdc_streams``
(ScyllaDB 2025.4+, ``docs/scylla/tablets.md`` §2, §7.1), as rows of ``cdc_input.tablet_streams``
(``TABLET_STREAMS_COLUMNS``, cdclake/generations/tablet_streams.py).

The table (virtual, read-only): partition key ``keyspace_name text, table_name text`` (the base
table's names), clustering ``timestamp timestamp, stream_state tinyint, stream_id blob``. Two forms
of export are read, told apart by their content::

    COPY system.cdc_streams TO 'streams.csv';                   -- or WITH HEADER=true
    cqlsh -e "SELECT * FROM system.cdc_streams" > streams.txt   -- or a terminal session's text

* COPY TO: the CSV format of ``generation_import`` (``read_cqlsh_csv``); without a header the
  columns are the table's (keyspace_name, table_name, timestamp, stream_state, stream_id); a header
  (told by its content unless ``header`` is given) names them in any order. Parts written by
  MAXOUTPUTSIZE (``streams.csv.1``…, no header) can be passed together.
* SELECT: cqlsh's table (`` name | name``, a ``---+---`` line, values right-aligned,
  ``(N rows)``), its pages (a repeated header on a terminal, ``---MORE---``), colors, and the
  ``EXPAND ON`` form (``@ Row N`` then a ``name | value`` line per column). Text outside the tables
  (prompt, statement, warnings) is skipped; a table with fewer rows than its ``(N rows)`` is an error.

Timestamps as cqlsh prints them (``2026-01-10 12:00:00.000+0000``, ``.000000`` on screen, other
zones, epoch ms); blobs ``0x…``. Only the rows of state 0 (the streams of the set in force from that
timestamp) are kept; the closed (1) and opened (2) rows are read and checked, then dropped. A
stream's last token is the token its ID carries (bytes 0-7, signed big-endian, §2), imported as given
and never derived from a tablet count (§5). Whether the states agree with each other is the
pipeline's check, not the importer's. Errors are ``GenerationImportError`` naming the file, line and
column.

Output: ``(keyspace_name, table_name, set_ts_ms, last_token, stream_id hex)`` tuples, sorted by
keyspace, table, set, token (then ID), exact duplicates once.
"""
from __future__ import annotations

import io
import re
from dataclasses import replace
from typing import Iterator, Optional

from cdclake.generations.generation_import import (
    CsvOptions,
    GenerationImportError,
    Sources,
    _as_list,
    _field,
    _name,
    _Text,
    parse_blob,
    parse_cqlsh_timestamp,
    parse_int,
    read_cqlsh_csv,
)
from python_udfs.stream_ids import STREAM_ID_BYTES

CDC_STREAMS_COLUMNS = ("keyspace_name", "table_name", "timestamp", "stream_state", "stream_id")
STREAM_STATES = {0: "current", 1: "closed", 2: "opened"}
CURRENT = 0

Located = tuple[str, dict, dict]                         # (file, {column: line}, {column: text})

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_RULE = re.compile(r"-+(?:\+-+)+")                       # under a header: -----+-----
_FOOTER = re.compile(r"\((\d+) rows?\)")
_VERTICAL = re.compile(r"@ Row (\d+)")
_MORE = "---MORE---"


# --------------------------------------------------------------------------------------------- values

def stream_token(stream_id: bytes) -> int:
    """The token a stream ID carries: bytes 0-7 as a signed big-endian int64 (§2)."""
    return int.from_bytes(stream_id[:8], "big", signed=True)


def _state(text: str) -> int:
    value = parse_int(text, -128, 127, "tinyint")
    if value not in STREAM_STATES:
        raise ValueError(f"{value} is not a stream state: 0 (current), 1 (closed) or 2 (opened)")
    return value


def _stream_id(text: str) -> bytes:
    value = parse_blob(text)
    if len(value) != STREAM_ID_BYTES:
        raise ValueError(f"0x{value.hex()} is not a 16-byte stream id ({len(value)} bytes)")
    return value


def _name_text(text: str) -> str:
    if not text:
        raise ValueError("empty name")
    return text


def _tablet_stream(name: str, lines: dict, row: dict) -> tuple[int, tuple]:
    """(stream_state, output row) of one ``cdc_streams`` row; every column is checked."""
    def field(column, parse):
        return _field(f"{name}, line {lines[column]}", row, column, parse)
    keyspace, table = field("keyspace_name", _name_text), field("table_name", _name_text)
    timestamp = field("timestamp", parse_cqlsh_timestamp)
    state = field("stream_state", _state)
    stream_id = field("stream_id", _stream_id)
    return state, (keyspace, table, timestamp, stream_token(stream_id), stream_id.hex())


# --------------------------------------------------------------------------------------------- sources

def _read_text(source) -> str:
    if isinstance(source, _Text):
        return source.text
    with open(source, newline="", encoding="utf-8") as handle:
        return handle.read()


def _lines(text: str) -> list[str]:
    return [_ANSI.sub("", line).rstrip("\r") for line in text.split("\n")]


def is_select_output(text: str) -> bool:
    """Whether ``text`` is cqlsh's printout of a SELECT (it has a ``---+---`` rule) rather than CSV."""
    return any(_RULE.fullmatch(line.strip()) for line in _lines(text))


def _first_row(text: str, options: CsvOptions) -> Optional[list[str]]:
    for row in options.reader(io.StringIO(text, newline="")):
        if row and row != [""]:
            return [value.strip() for value in row]
    return None


_PART = re.compile(r"(.+)\.\d+")


def _read_csv(source, text: str, options: CsvOptions, header: Optional[bool],
              headers: dict[str, list[str]]) -> Iterator[Located]:
    """Rows of one COPY TO file. Without ``header``, the file has a header when its first row names
    only columns of the table (a data row has a timestamp). A part ``name.N`` (MAXOUTPUTSIZE) of a
    file ``name`` read before it with a header has that header's columns: cqlsh writes the header
    in the first part only."""
    name = _name(source)
    first = _first_row(text, options)
    if header is None:
        header = first is not None and all(n in CDC_STREAMS_COLUMNS for n in first)
    part = _PART.fullmatch(name)
    columns = CDC_STREAMS_COLUMNS
    if header:
        headers[name] = first or []
    elif part and part.group(1) in headers:
        columns = headers[part.group(1)]
    for name, line, row in read_cqlsh_csv([source], columns, replace(options, header=header),
                                          required=CDC_STREAMS_COLUMNS):
        yield name, dict.fromkeys(row, line), row


def _header(line: str, rule: str) -> Optional[list[str]]:
    """The column names of a header line over its rule, or None when the two do not fit."""
    names = [n.strip() for n in line.split("|")]
    if len(names) != rule.strip().count("+") + 1 or not all(names):
        return None
    return names


def _read_select(name: str, text: str) -> Iterator[Located]:
    """Rows of cqlsh's SELECT printout(s) in ``text``, either form, each with its lines."""
    lines = _lines(text)
    columns: Optional[list[str]] = None                  # inside a table: its header ([] for EXPAND ON)
    record: Optional[tuple[dict, dict]] = None           # EXPAND ON: the row being read
    read = 0                                             # rows of the table so far
    index = 0
    while index < len(lines):
        line, number = lines[index], index + 1
        stripped = line.strip()
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        index += 1
        if record is not None and (not stripped or _FOOTER.fullmatch(stripped) or _VERTICAL.fullmatch(stripped)):
            yield name, record[0], record[1]
            record = None
        if not stripped or stripped == _MORE:
            continue
        footer = _FOOTER.fullmatch(stripped)
        if footer:
            if columns is not None and read != int(footer.group(1)):
                raise GenerationImportError(f"{name}, line {number}: cqlsh printed {stripped} but {read} were read "
                                            f"(is the output cut short?)")
            columns, read = None, 0
            continue
        if _RULE.fullmatch(following) and _VERTICAL.fullmatch(stripped):
            columns, record, read, index = [], ({}, {}), read + 1, index + 1
            continue
        header = _header(line, following) if _RULE.fullmatch(following) else None
        if header:
            if columns and header != columns:
                raise GenerationImportError(f"{name}, line {number}: a header {header} without the '(N rows)' "
                                            f"of the table above")
            missing = [c for c in CDC_STREAMS_COLUMNS if c not in header]
            if missing:
                raise GenerationImportError(f"{name}, line {number}: header {header} lacks column(s) {missing}")
            columns, index = header, index + 1          # a terminal repeats the header on every page
            continue
        if columns is None:
            continue                                     # a prompt, the statement, warnings
        if record is not None:
            column, bar, value = line.partition("|")
            if not bar:
                raise GenerationImportError(f"{name}, line {number}: expected 'column | value', "
                                            f"got {stripped[:80]!r}")
            record[0][column.strip()] = number
            record[1][column.strip()] = value.strip()
            continue
        if not columns:
            raise GenerationImportError(f"{name}, line {number}: expected '@ Row N' (EXPAND ON), "
                                        f"got {stripped[:80]!r}")
        values = [v.strip() for v in line.split("|")]
        if len(values) != len(columns):
            raise GenerationImportError(f"{name}, line {number}: {len(values)} fields, expected {len(columns)} "
                                        f"({', '.join(columns)})")
        read += 1
        yield name, dict.fromkeys(columns, number), dict(zip(columns, values))
    if record is not None:
        yield name, record[0], record[1]


def _complete(rows: Iterator[Located]) -> Iterator[Located]:
    """The rows, each checked to have every column (an EXPAND ON row lists its own)."""
    for name, lines, row in rows:
        missing = [c for c in CDC_STREAMS_COLUMNS if c not in row]
        if missing:
            raise GenerationImportError(f"{name}, line {min(lines.values(), default='?')}: "
                                        f"the row lacks column(s) {missing}")
        yield name, lines, row


# --------------------------------------------------------------------------------------------- importer

def read_cdc_streams(path: Sources, *, options: CsvOptions = CsvOptions(),
                     header: Optional[bool] = None) -> Iterator[tuple[int, tuple]]:
    """(stream_state, output row) of every row of ``system.cdc_streams`` exports (COPY TO CSV or
    SELECT printout, per file), in file order. ``options``: the COPY TO dialect; ``header``: whether
    the CSV files start with a header (None: told from the first row)."""
    headers: dict[str, list[str]] = {}                    # file name: its header, for its parts
    for source in _as_list(path):
        text = _read_text(source)
        if is_select_output(text):
            rows = _complete(_read_select(_name(source), text))
        else:
            rows = _read_csv(source, text, options, header, headers)
        for name, lines, row in rows:
            yield _tablet_stream(name, lines, row)


def import_cdc_streams(path: Sources, *, options: CsvOptions = CsvOptions(),
                       header: Optional[bool] = None) -> list[tuple]:
    """The rows of ``cdc_input.tablet_streams`` (TABLET_STREAMS_COLUMNS) in ``system.cdc_streams``
    exports (a path, an open text stream, or several): the state-0 rows, each set's timestamp in ms,
    each stream's last token read from its ID; sorted by keyspace, table, set, token."""
    return sorted({row for state, row in read_cdc_streams(path, options=options, header=header) if state == CURRENT})
