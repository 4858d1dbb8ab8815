"""Import the CDC generations of a real cluster from CSV files written by cqlsh ``COPY ... TO``
(``docs/scylla/math.md`` §7.1, §7.2, §4 "Storage order", §9.5).

Tables and the column order cqlsh uses without a column list (partition key, clustering
columns, then the other columns alphabetically, as the driver's table metadata lists them)::

    system_distributed.cdc_generation_timestamps     key, time, expired
    system_distributed.cdc_streams_descriptions_v2   time, range_end, streams
    system.cdc_generations_v3                        key, id, range_end, ignore_msb, streams
      (older shape, and system_distributed_everywhere.cdc_generation_descriptions_v2:
                                                     id, range_end, ignore_msb, num_ranges, streams)

    COPY system_distributed.cdc_generation_timestamps TO 'timestamps.csv';
    COPY system_distributed.cdc_streams_descriptions_v2 TO 'descriptions.csv';         -- or WITH HEADER=true

cqlsh's COPY TO formats: ``HEADER=false``, ``DELIMITER=','``, ``QUOTE='"'``, ``ESCAPE='\\'``,
``NULL=''``; timestamps ``2023-11-14 21:00:00.000+0000`` (milliseconds; older cqlsh without the
fraction, ``.000000`` on screen, epoch ms when out of range); blobs ``0x…``; frozen sets
``{0x…, 0x…}``, sorted by the driver (unsigned bytes), not in the shard order Scylla stores.
Rows come in no particular order (COPY TO exports token ranges in parallel).

Shard order is restored per vnode (§4): recompute ``find_first_token_for_shard`` of every shard from
(previous range_end, range_end, len(streams), ignore_msb) and match streams by token. Streams
sharing a token (shards owning no token of a small vnode all get its end token) cannot be told
apart and keep their input order; apart from the one shard that really starts at that end
token, they never receive writes.

``cdc_streams_descriptions_v2`` does not store ``ignore_msb``: it is the ``ignore_msb`` parameter
(default 12, the ``murmur3_partitioner_ignore_msb_bits`` default); give the cluster's value if it
was changed. A wrong value is detected (the tokens stop matching) unless every vnode is too small
to tell. Generations are kept only when their timestamp is in ``cdc_generation_timestamps`` (when
given): the description rows are written before that commit row.

``cdc_generations_v3`` is keyed by a timeuuid, not the generation timestamp: pass
``timestamps_by_id`` (e.g. ``read_committed_cdc_generations`` of a ``system.topology`` export).

Output: ``[(generation_ts_ms, [Entry...])]`` oldest first, ``Entry.index`` = position by range_end;
``stream_rows`` / ``stream_columns`` give the ``GENERATION_STREAMS_COLUMNS`` layout.
"""
from __future__ import annotations

import csv
import io
import re
import uuid
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable, Iterator, Mapping, Optional, Sequence, Union

import numpy as np

from cdclake.generations.cluster_history import parse_utc_timestamp_ms
from cdclake.generations.vnodes import DEFAULT_IGNORE_MSB, Entry, generation_stream_rows, generations_stream_columns
from python_udfs.int64 import INT64_MAX, INT64_MIN
from python_udfs.sharding import find_first_token_for_shard, find_first_tokens_for_shards
from python_udfs.stream_ids import STREAM_ID_BYTES

TIMESTAMPS_COLUMNS = ("key", "time", "expired")
DESCRIPTIONS_V2_COLUMNS = ("time", "range_end", "streams")
GENERATIONS_V3_COLUMNS = ("key", "id", "range_end", "ignore_msb", "streams")
GENERATIONS_V3_OLD_COLUMNS = ("id", "range_end", "ignore_msb", "num_ranges", "streams")
TIMESTAMPS_KEY = "timestamps"
GENERATIONS_V3_KEY = "cdc_generations"

Source = Union[str, Path, IO[str]]              # a path or an open text stream
Sources = Union[Source, Sequence[Source]]
Generations = list[tuple[int, list[Entry]]]


class GenerationImportError(ValueError):
    """A CSV file could not be imported; the message names the file, row and column."""


# --------------------------------------------------------------------------------------------- values

_BLOB = re.compile(r"0[xX]([0-9a-fA-F]*)")
_INTEGER = re.compile(r"\s*-?\d+\s*")


def parse_cqlsh_timestamp(text: str) -> int:
    """Milliseconds since the epoch of a cqlsh timestamp: ``2023-11-14 21:00:00.000+0000`` (also
    ``.000000``, no fraction, ``T``/``Z`` forms), or plain epoch milliseconds (what COPY TO writes
    for dates it cannot format)."""
    if _INTEGER.fullmatch(text):
        return int(text)
    return parse_utc_timestamp_ms(text)


def parse_blob(text: str) -> bytes:
    """``0x0123…`` -> bytes."""
    match = _BLOB.fullmatch(text.strip())
    if not match or len(match.group(1)) % 2:
        raise ValueError(f"not a blob literal: {text[:60]!r}")
    return bytes.fromhex(match.group(1))


def parse_blob_collection(text: str) -> list[bytes]:
    """``{0x…, 0x…}`` (set) or ``[0x…, 0x…]`` (list) -> blobs in text order."""
    text = text.strip()
    if len(text) < 2 or (text[0], text[-1]) not in (("{", "}"), ("[", "]")):
        raise ValueError(f"not a set or list of blobs: {text[:60]!r}")
    inner = text[1:-1].strip()
    return [parse_blob(item) for item in inner.split(",")] if inner else []


def parse_int(text: str, low: int, high: int, what: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise ValueError(f"not an integer: {text[:60]!r}")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"{what} out of range: {value}")
    return value


def parse_uuid(text: str) -> str:
    """Canonical lowercase text of a uuid / timeuuid."""
    return str(uuid.UUID(text.strip()))


_COMMITTED = re.compile(r"\(\s*'?([^',()]+?)'?\s*,\s*([0-9a-fA-F-]{36})\s*\)")


def parse_committed_cdc_generations(text: str) -> dict[str, int]:
    """cqlsh text of ``system.topology.committed_cdc_generations`` (``set<tuple<timestamp, timeuuid>>``,
    e.g. ``{('2023-11-14 21:00:00.000+0000', 8f2b…)}``) -> {generation id: timestamp ms}."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"not a set of (timestamp, timeuuid) tuples: {text[:60]!r}")
    pairs = _COMMITTED.findall(text)
    if len(pairs) != text.count("("):
        raise ValueError(f"could not parse every (timestamp, timeuuid) tuple of {text[:80]!r}")
    return {parse_uuid(gen_id): parse_cqlsh_timestamp(ts) for ts, gen_id in pairs}


# --------------------------------------------------------------------------------------------- CSV

@dataclass(frozen=True)
class CsvOptions:
    """The COPY TO options that change the file: HEADER, DELIMITER, QUOTE, ESCAPE, NULL."""

    header: bool = False
    delimiter: str = ","
    quote: str = '"'
    escape: str = "\\"
    null: str = ""

    def reader(self, stream: IO[str]):
        if self.quote == self.escape:                   # cqlsh: same char -> doublequote
            return csv.reader(stream, delimiter=self.delimiter, quotechar=self.quote, doublequote=True)
        return csv.reader(stream, delimiter=self.delimiter, quotechar=self.quote, escapechar=self.escape,
                          doublequote=False)


class _Text:
    """A file-like source read into memory, so it can be read more than once."""

    def __init__(self, stream: IO[str]):
        self.name = getattr(stream, "name", "<stream>")
        self.text = stream.read()

    def open(self) -> IO[str]:
        return io.StringIO(self.text, newline="")


def _as_list(sources: Sources) -> list:
    if isinstance(sources, (str, Path)) or hasattr(sources, "read"):
        sources = [sources]
    return [s if isinstance(s, (str, Path, _Text)) else _Text(s) for s in sources]


def _name(source) -> str:
    return source.name if isinstance(source, _Text) else str(source)


def read_cqlsh_csv(sources: Sources, columns: Sequence[str], options: CsvOptions = CsvOptions(),
                   required: Optional[Sequence[str]] = None) -> Iterator[tuple[str, int, dict]]:
    """Rows of one or more COPY TO files (``path``, ``path.1``… when MAXOUTPUTSIZE split it) as
    (file name, line number, {column: text or None}). Without a header the columns are
    ``columns``; with one, the header names them (in any order) and must hold ``required``."""
    required = list(required if required is not None else columns)
    for source in _as_list(sources):
        name = _name(source)
        stream = source.open() if isinstance(source, _Text) else open(source, newline="", encoding="utf-8")
        try:
            reader = options.reader(stream)
            names = list(columns)
            if options.header:
                header = next(reader, None)
                if header is None:
                    continue
                names = [h.strip() for h in header]
                missing = [c for c in required if c not in names]
                if missing:
                    raise GenerationImportError(f"{name}: header {names} lacks column(s) {missing}")
            for row in reader:
                if not row or row == [""]:
                    continue
                if not options.header and reader.line_num == 1 and [v.strip().lower() for v in row] == names:
                    raise GenerationImportError(f"{name}: the first line is a header ({', '.join(row)}): "
                                                f"the file was written WITH HEADER=true, read it with header=True")
                if len(row) != len(names):
                    raise GenerationImportError(
                        f"{name}, line {reader.line_num}: {len(row)} fields, expected {len(names)} ({', '.join(names)})"
                        + ("" if options.header else "; was the file written WITH HEADER=true?"))
                yield name, reader.line_num, {n: (None if v == options.null else v) for n, v in zip(names, row)}
        except csv.Error as error:
            raise GenerationImportError(f"{name}: malformed CSV: {error}") from None
        finally:
            stream.close()


def _field(where: str, row: dict, column: str, parse, *args):
    text = row.get(column)
    if text is None:
        raise GenerationImportError(f"{where}: column {column!r} is null")
    try:
        return parse(text, *args)
    except ValueError as error:
        raise GenerationImportError(f"{where}: column {column!r}: {error}") from None


def _streams(where: str, row: dict) -> list[bytes]:
    streams = _field(where, row, "streams", parse_blob_collection)
    if not streams:
        raise GenerationImportError(f"{where}: column 'streams' is empty (a vnode has at least one stream)")
    bad = [s for s in streams if len(s) != STREAM_ID_BYTES]
    if bad:
        raise GenerationImportError(f"{where}: column 'streams': 0x{bad[0].hex()} is not a 16-byte stream id")
    return streams


def _range_end(where: str, row: dict) -> int:
    value = _field(where, row, "range_end", parse_int, INT64_MIN, INT64_MAX, "bigint")
    if value == INT64_MIN:
        raise GenerationImportError(f"{where}: column 'range_end' is -2^63 (the minimum-token sentinel)")
    return value


# --------------------------------------------------------------------------------------------- tables

def read_generation_timestamps(sources: Sources, options: CsvOptions = CsvOptions()) -> list[int]:
    """``cdc_generation_timestamps`` -> generation timestamps (ms), ascending."""
    result = set()
    for name, line, row in read_cqlsh_csv(sources, TIMESTAMPS_COLUMNS, options, required=("time",)):
        where = f"{name}, line {line}"
        if "key" in row and row["key"] is not None and row["key"] != TIMESTAMPS_KEY:
            raise GenerationImportError(f"{where}: column 'key' is {row['key']!r}, expected {TIMESTAMPS_KEY!r}")
        result.add(_field(where, row, "time", parse_cqlsh_timestamp))
    return sorted(result)


DescriptionRow = tuple[int, int, list[bytes]]        # (range_end, ignore_msb, streams in file order)


def read_streams_descriptions_v2(sources: Sources, options: CsvOptions = CsvOptions(),
                                 ignore_msb: int = DEFAULT_IGNORE_MSB) -> dict[int, list[DescriptionRow]]:
    """``cdc_streams_descriptions_v2`` -> {generation ts ms: rows}; the table has no ignore_msb
    column, so every row gets ``ignore_msb``."""
    result: dict[int, list[DescriptionRow]] = defaultdict(list)
    for name, line, row in read_cqlsh_csv(sources, DESCRIPTIONS_V2_COLUMNS, options):
        where = f"{name}, line {line}"
        ts = _field(where, row, "time", parse_cqlsh_timestamp)
        result[ts].append((_range_end(where, row), ignore_msb, _streams(where, row)))
    return dict(result)


def read_cdc_generations_v3(sources: Sources, options: CsvOptions = CsvOptions(),
                            columns: Optional[Sequence[str]] = None) -> dict[str, list[DescriptionRow]]:
    """``system.cdc_generations_v3`` (or its older ``id``-keyed shape, or
    ``cdc_generation_descriptions_v2``) -> {generation id: rows}. Without a header the shape is
    told apart by the first field (``cdc_generations`` or a uuid) unless ``columns`` is given."""
    sources = _as_list(sources)
    if columns is None and not options.header:
        columns = GENERATIONS_V3_COLUMNS
        rows = read_cqlsh_csv(sources[:1], GENERATIONS_V3_COLUMNS, options)
        first = next(rows, None)
        rows.close()
        if first is not None and first[2]["key"] != GENERATIONS_V3_KEY:
            try:
                parse_uuid(first[2]["key"] or "")
                columns = GENERATIONS_V3_OLD_COLUMNS
            except ValueError:
                pass
    result: dict[str, list[DescriptionRow]] = defaultdict(list)
    for name, line, row in read_cqlsh_csv(sources, columns or GENERATIONS_V3_COLUMNS, options,
                                          required=("id", "range_end", "ignore_msb", "streams")):
        where = f"{name}, line {line}"
        if row.get("key") not in (None, GENERATIONS_V3_KEY):
            raise GenerationImportError(f"{where}: column 'key' is {row['key']!r}, expected {GENERATIONS_V3_KEY!r}")
        gen_id = _field(where, row, "id", parse_uuid)
        msb = _field(where, row, "ignore_msb", parse_int, 0, 63, "ignore_msb")
        result[gen_id].append((_range_end(where, row), msb, _streams(where, row)))
    return dict(result)


def read_committed_cdc_generations(sources: Sources, options: CsvOptions = CsvOptions(header=True),
                                   column: str = "committed_cdc_generations") -> dict[str, int]:
    """{generation id: timestamp ms} from a ``system.topology`` export: with a header (any columns),
    or without one when only that column was exported (``COPY system.topology
    (committed_cdc_generations) TO …``). The static column repeats on every row."""
    result: dict[str, int] = {}
    for name, line, row in read_cqlsh_csv(sources, (column,), options, required=(column,)):
        if row[column] is not None:
            result.update(_field(f"{name}, line {line}", row, column, parse_committed_cdc_generations))
    return result


# --------------------------------------------------------------------------------------------- shard order

def restore_shard_order(previous_range_end: int, range_end: int, streams: Sequence[bytes], ignore_msb: int) -> list[bytes]:
    """One vnode's streams in shard order (§4 "Storage order"): shard j's stream has token
    ``find_first_token_for_shard(previous_range_end, range_end, len(streams), ignore_msb, j)``;
    streams with equal tokens keep their input order. Scalar oracle of ``entries_from_rows``."""
    count = len(streams)
    by_token: dict[int, list[bytes]] = defaultdict(list)
    for stream in streams:
        by_token[int.from_bytes(stream[:8], "big", signed=True)].append(stream)
    result = []
    for shard in range(count):
        token = find_first_token_for_shard(previous_range_end, range_end, count, ignore_msb, shard)
        if not by_token.get(token):
            raise GenerationImportError(
                f"the streams of the vnode ending at {range_end} do not match {count} shards with "
                f"ignore_msb={ignore_msb}: no stream has token {token} (shard {shard})")
        result.append(by_token[token].pop(0))
    return result


def entries_from_rows(rows: Iterable[DescriptionRow], what: str = "generation") -> list[Entry]:
    """Description rows of one generation -> entries sorted by range_end, ``index`` = position,
    streams in shard order (vectorized ``restore_shard_order``)."""
    rows = sorted(rows, key=lambda r: r[0])
    if not rows:
        raise GenerationImportError(f"{what}: no description rows")
    ends_list = [r[0] for r in rows]
    for a, b in zip(ends_list, ends_list[1:]):
        if a == b:
            raise GenerationImportError(f"{what}: range_end {a} appears twice")
    counts = np.array([len(r[2]) for r in rows], dtype=np.int64)
    msbs = np.array([r[1] for r in rows], dtype=np.int64)
    ends = np.array(ends_list, dtype=np.int64)
    starts = np.roll(ends, 1)
    total = int(counts.sum())
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(counts)
    owner = np.repeat(np.arange(len(rows)), counts)
    shards = np.arange(total, dtype=np.int64) - offsets[:-1][owner]
    expected = find_first_tokens_for_shards(starts[owner], ends[owner], counts[owner], msbs[owner], shards)
    streams = [s for r in rows for s in r[2]]
    actual = np.frombuffer(b"".join(streams), dtype=">i8").reshape(-1, 2)[:, 0].astype(np.int64)
    position = np.arange(total)
    by_expected = np.lexsort((shards, expected, owner))      # per vnode: token, then shard
    by_actual = np.lexsort((position, actual, owner))        # per vnode: token, then input order
    mismatch = np.nonzero(expected[by_expected] != actual[by_actual])[0]
    if mismatch.size:
        k = int(owner[by_expected[mismatch[0]]])
        previous, end, count, msb = int(starts[k]), ends_list[k], int(counts[k]), int(msbs[k])
        want = sorted(find_first_token_for_shard(previous, end, count, msb, j) for j in range(count))
        got = sorted(int.from_bytes(s[:8], "big", signed=True) for s in rows[k][2])
        raise GenerationImportError(
            f"{what}: the {count} streams of the vnode ({previous}, {end}] do not start at the first tokens "
            f"of {count} shards with ignore_msb={msb} (expected tokens {want[:4]}…, found {got[:4]}…); "
            f"cdc_streams_descriptions_v2 has no ignore_msb column: is the cluster's "
            f"murmur3_partitioner_ignore_msb_bits different from {msb}?")
    restored = np.empty(total, dtype=np.int64)
    restored[by_expected] = by_actual                         # slot (vnode, shard) <- matched stream
    ordered = [streams[i] for i in restored.tolist()]
    bounds = offsets.tolist()
    return [Entry(k, ends_list[k], int(msbs[k]), ordered[bounds[k]:bounds[k + 1]]) for k in range(len(rows))]


# --------------------------------------------------------------------------------------------- importers

def import_streams_descriptions_v2(descriptions: Sources, timestamps: Optional[Sources] = None, *,
                                   ignore_msb: int = DEFAULT_IGNORE_MSB, options: CsvOptions = CsvOptions(),
                                   timestamps_options: Optional[CsvOptions] = None,
                                   skip_missing: bool = False) -> Generations:
    """Generations from ``cdc_streams_descriptions_v2`` exports, restricted to the timestamps of
    ``cdc_generation_timestamps`` exports when given (unpublished partitions are dropped; a published
    timestamp without description rows is an error unless ``skip_missing``). ``ignore_msb``: the
    cluster's ``murmur3_partitioner_ignore_msb_bits`` (not stored in the table)."""
    if not 0 <= ignore_msb < 64:
        raise ValueError(f"ignore_msb must be in [0, 64), got {ignore_msb}")
    rows = read_streams_descriptions_v2(descriptions, options, ignore_msb)
    selected = sorted(rows)
    if timestamps is not None:
        published = read_generation_timestamps(timestamps, timestamps_options or options)
        missing = [ts for ts in published if ts not in rows]
        if missing and not skip_missing:
            raise GenerationImportError(
                f"generation timestamps {missing[:5]} are in cdc_generation_timestamps but have no rows in "
                f"cdc_streams_descriptions_v2 (pass skip_missing=True to ignore them)")
        selected = [ts for ts in published if ts in rows]
    return [(ts, entries_from_rows(rows[ts], f"generation {ts}")) for ts in selected]


def import_cdc_generations_v3(generations: Sources, timestamps_by_id: Mapping[object, int], *,
                              options: CsvOptions = CsvOptions(), columns: Optional[Sequence[str]] = None,
                              skip_unknown_ids: bool = False) -> Generations:
    """Generations from a ``system.cdc_generations_v3`` export (ignore_msb is stored per row);
    ``timestamps_by_id``: {generation id: timestamp ms} (``read_committed_cdc_generations``). Ids
    without a timestamp (uncommitted) are an error unless ``skip_unknown_ids``; committed ids without
    rows (data deleted 24 h after the generation stopped operating) are simply absent."""
    by_id = {parse_uuid(str(k)): int(v) for k, v in timestamps_by_id.items()}
    rows = read_cdc_generations_v3(generations, options, columns)
    unknown = sorted(set(rows) - set(by_id))
    if unknown and not skip_unknown_ids:
        raise GenerationImportError(f"generation id(s) {unknown[:3]} have no timestamp in timestamps_by_id "
                                    f"(uncommitted? pass skip_unknown_ids=True to ignore them)")
    chosen = sorted((by_id[gen_id], gen_id) for gen_id in rows if gen_id in by_id)
    for (ts_a, id_a), (ts_b, id_b) in zip(chosen, chosen[1:]):
        if ts_a == ts_b:
            raise GenerationImportError(f"generations {id_a} and {id_b} have the same timestamp {ts_a}")
    return [(ts, entries_from_rows(rows[gen_id], f"generation {gen_id} ({ts})")) for ts, gen_id in chosen]


def stream_rows(generations: Generations) -> Iterator[dict]:
    """Rows in the ``GENERATION_STREAMS_COLUMNS`` layout for every imported generation."""
    for ts, entries in generations:
        yield from generation_stream_rows(ts, entries)


def stream_columns(generations: Generations) -> dict:
    """``stream_rows`` column-oriented (numpy arrays, stream_id as a list of hex strings)."""
    return generations_stream_columns(generations)
